#!/usr/bin/env python3
# docs_examples.py -- the examples of README.md and docs/*.md, checked so none
# goes stale (tests/e2e_docs.sh runs it; no guest boots):
#   - every whole matrix in a code block passes `harness check --parse-only`;
#   - every `harness/build/harness CMD` line names a command harness has, and
#     a test runs it (README's main lines as written: tests/e2e_readme.sh);
#   - every file under workloads/, tests/, tools/ or images/ a page names exists;
#   - every `key = value` line of a harness.conf block is a key harness.conf has;
#   - every link to a page (and its #anchor) leads somewhere;
#   - `harness help TOPIC` prints each page as the file holds it.
# Prints "ok - ..." / "not ok - ..." lines. usage: docs_examples.py HARNESS REPO WORKDIR
import json
import os
import re
import subprocess
import sys

harness, repo, work = (os.path.abspath(a) for a in sys.argv[1:4])
pages = ["README.md"] + sorted("docs/" + p for p in os.listdir(os.path.join(repo, "docs"))
                               if p.endswith(".md"))
failures = 0


def report(ok, what):
    global failures
    print(("ok - " if ok else "not ok - ") + what)
    failures += not ok


def blocks(text):
    """The code of a page: indented blocks and fenced ones, each as one string."""
    out, cur, fence = [], [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            if fence:
                out.append("\n".join(cur))
                cur = []
            fence = not fence
            continue
        if fence:
            cur.append(line)
        elif line.startswith("    ") or (cur and not line.strip()):
            cur.append(line[4:])
        elif cur:
            out.append("\n".join(cur))
            cur = []
    if cur:
        out.append("\n".join(cur))
    return out


def slug(heading):
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(text):
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, re.M)}


def commands():
    """The commands harness's usage lists (the command table's)."""
    r = subprocess.run([harness], capture_output=True, text=True)
    return set(re.findall(r"^\s+(?:harness\s+)?\[?([a-z][a-z-]+)", r.stdout + r.stderr, re.M))


def conf_keys():
    """The keys harness.conf may hold: the shipped file's and docs/conf.md's backquoted ones."""
    keys = set()
    for line in open(os.path.join(repo, "harness.conf")):
        m = re.match(r"#?\s*([a-z_]+) =", line)
        if m:
            keys.add(m.group(1))
    keys |= set(re.findall(r"`([a-z_]+)`", open(os.path.join(repo, "docs/conf.md")).read()))
    return keys


def check_matrix(page, obj, path=None):
    """A matrix example (obj, or the file at path) passes `harness check --parse-only`
    (harness.conf in work names the presets); 1 if it was one."""
    if not isinstance(obj, dict) or "arms" not in obj:
        return 0
    if not path:
        path = os.path.join(work, "example.json")
        json.dump(obj, open(path, "w"))
    r = subprocess.run([harness, "check", "--parse-only", path], capture_output=True, text=True,
                       cwd=work)
    report(r.returncode == 0, f"{page}: matrix '{obj.get('name')}' passes check --parse-only"
           f" {r.stderr.strip()[:200]}")
    return 1


texts = {p: open(os.path.join(repo, p)).read() for p in pages}
cmds, keys = commands(), conf_keys()
matrices = checked_cmds = paths = links = confs = 0
shipped = set()   # the example matrices the pages name, each checked once
for page, text in texts.items():
    for b in blocks(text):
        s = b.strip()
        # a matrix, or a workload cell or an arm put into one ("..." fragments are not)
        if s.startswith("{") and "..." not in s:
            try:
                obj = json.loads(s)
            except ValueError as e:
                report(False, f"{page}: a JSON example does not parse: {e}")
                continue
            if "streams" in obj:
                obj = {"name": "w", "reps": 1, "arms": [{"name": "a", "kernel": "6.12"}],
                       "workloads": [obj]}
            elif "kernel" in obj or "package" in obj:
                obj = {"name": "a", "reps": 1, "arms": [obj], "workloads": [
                    {"name": "w", "files": [{"name": "d", "mib": 8}],
                     "streams": [{"kind": "random", "file": "d"}]}]}
            matrices += check_matrix(page, obj)
        for line in b.split("\n"):
            m = re.match(r"\s*harness/build/harness\s+(?:--json\s+|-c \S+\s+)?([a-z][a-z-]+)", line)
            if m:
                checked_cmds += 1
                if m.group(1) not in cmds:
                    report(False, f"{page}: '{line.strip()[:80]}': no command '{m.group(1)}'")
            m = re.match(r"([a-z_]+) = ", line)
            if m and "harness.conf" in text and not s.startswith("{"):
                confs += 1
                if m.group(1) not in keys:
                    report(False, f"{page}: '{line.strip()[:80]}': harness.conf has no key "
                           f"'{m.group(1)}'")
    for m in re.finditer(r"(?<![\w/.])((?:workloads|tests|tools|images)/[\w./-]+\w)([-.]?[*<])?",
                         text):
        p = m.group(1)
        if m.group(2) or re.search(r"[A-Z]|\.\.", p):   # a glob, a placeholder (ARCH), a..f
            continue
        paths += 1
        if not os.path.exists(os.path.join(repo, p)):
            report(False, f"{page}: names '{p}', which does not exist")
        elif p.startswith("workloads/examples/") and p.endswith(".json") and p not in shipped:
            shipped.add(p)
            full = os.path.join(repo, p)
            matrices += check_matrix(page, json.load(open(full)), full)
    for m in re.finditer(r"\]\(([^)#\s]*)(#[^)\s]*)?\)", text):
        target, anchor = m.group(1), (m.group(2) or "")[1:]
        if target.startswith("http") or target.endswith(".png"):
            continue
        dest = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target else page
        links += 1
        if dest not in texts:
            report(os.path.exists(os.path.join(repo, dest)), f"{page}: link to '{target}'")
            continue
        if anchor and anchor not in anchors(texts[dest]):
            report(False, f"{page}: link to '{target}#{anchor}': no such heading")



def run_by_tests():
    """Each `harness/build/harness CMD ...` line of a page is run by a test:
    README's "Running one matrix" and "Comparing arms and versions" as
    written (tests/e2e_readme.sh), any other where an e2e test runs its
    command with every option it shows (a|b|c: each of them)."""
    as_written = set()
    for sec in ("Running one matrix", "Comparing arms and versions"):
        m = re.search(r"^#{2,3} " + re.escape(sec) + r"\n(.*?)(?=^#{2,3} |\Z)",
                      texts["README.md"], re.M | re.S)
        as_written |= {re.sub(r"\s+#.*", "", l).strip() for l in m.group(1).split("\n")
                       if l.startswith("    harness/build/harness") and "--tags" not in l}
    runs = [l for f in sorted(os.listdir(os.path.join(repo, "tests")))
            if f.startswith(("e2e_", "long_")) and f.endswith(".sh")
            for l in open(os.path.join(repo, "tests", f)) if re.search(r'\$harness"?\s', l)]
    n, missing = 0, []
    for page, text in texts.items():
        for line in text.split("\n"):
            m = re.match(r"\s*harness/build/harness\s+(.*)", line)
            if not m:
                continue
            n += 1
            if re.sub(r"\s+#.*", "", line).strip() in as_written:
                continue   # README's, or a page showing it again
            words = re.sub(r"\s+#.*", "", m.group(1)).split()
            opts = [w.split("=")[0] for w in words if w.startswith("-")]
            cmd = next((w for w in words if not w.startswith("-")), "")
            for c in cmd.split("|"):
                if not any(re.search(r"\s" + re.escape(c) + r"\b", r) and
                           all(o in r for o in opts) for r in runs):
                    missing.append(f"{page}: '{line.strip()[:70]}'")
                    break
    return n, missing


n_run, not_run = run_by_tests()
report(not not_run, f"{n_run} harness command lines of the pages are run by a test"
       + "".join(f"\n#   not run: {m}" for m in not_run))
report(matrices >= 10, f"{matrices} matrices the pages show or name checked")
report(checked_cmds >= 40, f"{checked_cmds} harness command lines name commands harness has")
report(paths >= 20, f"{paths} file names in the pages exist")
report(links >= 30, f"{links} links between the pages lead to a page and a heading")
report(confs >= 5, f"{confs} harness.conf lines use keys harness.conf has")
differ = []
for page in pages[1:]:
    topic = os.path.basename(page)[:-3]
    r = subprocess.run([harness, "help", topic], capture_output=True, text=True)
    if r.stdout.rstrip("\n") != texts[page].rstrip("\n"):
        differ.append(topic)
report(not differ, f"harness help prints each of the {len(pages) - 1} pages as its file holds it"
       + (f" (not: {' '.join(differ)})" if differ else ""))
sys.exit(1 if failures else 0)
