#!/usr/bin/env python3
# lint.py -- the layout's rules checked from the code: no include cycle between
# modules, each stage folder includes only the folders its main header allows
# ("may call:"), no SQL outside harness/store/, no function-static state or
# libc calls keeping static state, no circle of calls between files, no
# snprintf whose result (its sign of a cut) is dropped, one error
# convention, a comment on every function a header declares.
# Prints "ok -"/"not ok -".
import glob, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
MAY = re.compile(r"may call:\s*([^\n*.]*)")
# SQL: a string literal that starts a statement, or the SQLite API itself
SQL = re.compile(r'"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|BEGIN|COMMIT|ROLLBACK|PRAGMA|WITH)\b'
                 r'|\bsqlite3_\w+\s*\(|#include <sqlite3\.h>')
results = []


def check(what, problems):
    results.append((what, problems))


def sources():
    for top in ('harness', 'common', 'guest'):
        for d, _, files in os.walk(top):
            # build output folders, not kbuild/ (whose name ends in 'build' too)
            if 'build' in d.split('/'):
                continue
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    yield os.path.join(d, f)


def resolve(src, name):
    """The repository path an #include "name" in src refers to, or None."""
    for base in (os.path.dirname(src), '.', 'harness'):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(p):
            return p
    return None


def module(path):
    return os.path.splitext(path)[0]


def folder(path):
    parts = path.split('/')
    return parts[1] if parts[0] == 'harness' else parts[0]


files = list(sources())
edges = {}      # module -> set of modules
fedges = []     # (file, included file)
for f in files:
    text = open(f, encoding='utf-8', errors='replace').read()
    for name in INC.findall(text):
        p = resolve(f, name)
        if p is None:
            continue
        fedges.append((f, p))
        if module(p) != module(f):
            edges.setdefault(module(f), set()).add(module(p))

def cycles_of(graph):
    """Each cycle a depth-first walk of graph (node -> set of nodes) meets, as a path."""
    found, state = [], {}

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                found.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return [' -> '.join(c) for c in found]


# 1. cycles between modules (x.c and x.h are one module)
check('no include cycle between modules', cycles_of(edges))

# 2. each folder includes only what its main header allows
allowed, mains, probs = {}, {}, []
for f in files:
    m = MAY.search(open(f, encoding='utf-8', errors='replace').read())
    if m:
        d = folder(f)
        if d in allowed:
            probs.append(f'{d}/: "may call:" in both {mains[d]} and {f}')
        allowed[d] = {w.strip('/ ') for w in m.group(1).split() if w.strip('/ ') != 'nothing'}
        mains[d] = f
for d in sorted({folder(f) for f in files}):
    if d not in allowed:
        probs.append(f'{d}/: no main header says what it "may call:"')
for f, p in fedges:
    a, b = folder(f), folder(p)
    if a != b and a in allowed and b not in allowed[a]:
        probs.append(f'{f} includes {p}: {a}/ may call only {" ".join(sorted(allowed[a])) or "nothing"}')
check('each folder includes only the folders its main header names', probs)

# 3. the store is the only place that speaks SQL
probs = []
for f in files:
    if f.startswith('harness/store/'):
        continue
    for i, line in enumerate(open(f, encoding='utf-8', errors='replace'), 1):
        if SQL.search(line):
            probs.append(f'{f}:{i}: {line.strip()[:60]}')
check('no SQL outside harness/store/', probs)

# 4. nothing the daemon's threads (API connections, scheduler slots) share by
#    accident: no function-static variable but constant tables and __thread
#    ones (a static inside a function is indented; one at file scope is not),
#    no libc call that keeps static state (their _r forms take the caller's)
FSTATIC = re.compile(r'^[ \t]+static\s+(?!const\s|__thread\s)')
NOT_REENTRANT = re.compile(r'\b(strtok|localtime|gmtime|ctime|asctime|getpwnam|getpwuid|getgrnam'
                           r'|getgrgid|rand|strsignal|inet_ntoa|gethostbyname|ttyname|getlogin'
                           r'|ptsname)\s*\(')
probs = []
for f in files:
    for i, line in enumerate(open(f, encoding='utf-8', errors='replace'), 1):
        if FSTATIC.search(line):
            probs.append(f'{f}:{i}: function-static: {line.strip()[:60]}')
        if NOT_REENTRANT.search(line):
            probs.append(f'{f}:{i}: static state in libc (use the _r form): {line.strip()[:60]}')
check('no function-static variables, no libc calls with static state', probs)

# 5. no circle of calls between files: a .c file that calls a function defined
#    in another (non-static, at file scope) depends on it, and no chain of such
#    dependencies comes back to where it began (the layering, file by file)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'')
DEF = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*\)\s*\{', re.M)
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


TOKENS = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\')|/\*.*?\*/|//[^\n]*', re.S)


def code(path):
    """path's text without comments and string contents, its lines where they
    were; one pass, so a "//" in a string is no comment and a quote in a
    comment no string."""
    text = open(path, encoding='utf-8', errors='replace').read()
    return TOKENS.sub(lambda m: '""' if m.group(1) and m.group(1)[0] == '"' else
                      "' '" if m.group(1) else ' ' + '\n' * m.group(0).count('\n'), text)


cfiles = [f for f in files if f.endswith('.c')]
defined = {}
texts = {f: code(f) for f in cfiles}
for f, t in texts.items():
    for name in DEF.findall(t):
        defined.setdefault(name, set()).add(f)
calls = {f: set() for f in cfiles}
for f, t in texts.items():
    for name in set(CALL.findall(t)):
        for g in defined.get(name, ()):
            # a function the host and the guest agent each define is two programs' own
            if g != f and len(defined[name]) == 1:
                calls[f].add(g)
check('no circle of calls between files', cycles_of(calls))


def test_checks_split(path):
    """check DESC [ A ] && [ B ]: the shell runs [ B ] after check, unasserted;
    check DESC CMD || cat out: check returns 0, so cat never runs."""
    lines, out, i = open(path).read().split('\n'), [], 0
    while i < len(lines):
        cmd, j = lines[i], i
        if re.match(r'\s*check ', cmd):
            while re.search(r'(\\|&&|\|\|)\s*$', cmd) and j + 1 < len(lines):
                j += 1
                cmd += '\n' + lines[j]
            bare = re.sub(r"'[^']*'", "''", re.sub(r'"(\\.|[^"\\])*"', '""', cmd))
            if re.search(r'\]\s*(\\\n\s*)?&&', bare):
                out.append(f'{path}:{i + 1}: a test after check is not the check\'s (use -a)')
            # check returns 0 whatever its command did: "|| cat out" after it never runs
            if re.search(r'\|\|\s*$|\|\|\s*\w+(\s+[\w.$/-]+)?\s*$', bare, re.M):
                out.append(f'{path}:{i + 1}: what follows check\'s "||" never runs (use explain)')
        i = j + 1
    return out


check('every condition and explanation of a test\'s check is inside it',
      [p for f in sorted(glob.glob('tests/*.sh')) for p in test_checks_split(f)])


def stream_kinds():
    """PROTO_STREAM_KINDS in common/proto.h: the one list of kinds; each kind its
    descriptor file and its guest file, and no KIND_X used outside them."""
    text = open('common/proto.h').read()
    block = re.search(r'#define PROTO_STREAM_KINDS\(X\)((?:.*\\\n)*.*)', text).group(1)
    kinds = re.findall(r'X\((\w+), (\w+)\)', block)
    out = []
    for enum, kid in kinds:
        for f in (f'common/kind_{kid}.c', f'guest/stream_{kid}.c'):
            if not os.path.exists(f):
                out.append(f'kind {kid}: {f} missing')
    for f in sources():
        if not f.endswith(('.c', '.h')) or f.startswith('tests/'):
            continue
        for n, line in enumerate(open(f, encoding='utf-8', errors='replace'), 1):
            for m in re.findall(r'\bKIND_([A-Z]+)\b', line):
                if m not in ('COUNT', 'OPT_BIT'):
                    out.append(f'{f}:{n}: KIND_{m}: ask the kind\'s descriptor (proto_kinds[])')
    return out


check('the stream kinds are listed once (PROTO_STREAM_KINDS), each a descriptor and a guest file',
      stream_kinds())

def unchecked_snprintf():
    """snprintf's result is its only sign of a cut: a statement that is just
    the call (or casts it away) cuts silently. common/fmt.c judges it; the rest
    call fmtbuf (checked) or fmtcut (a cut marked "...")."""
    call = re.compile(r'(?:^|[;{}]|\belse\b|\)\s*\n)\s*(\(void\)\s*)?v?snprintf\s*\(', re.M)
    out = []
    for f in cfiles:
        if f == 'common/fmt.c':
            continue
        t = texts[f]
        for m in call.finditer(t):
            depth, i = 1, m.end()
            while i < len(t) and depth:
                depth += {'(': 1, ')': -1}.get(t[i], 0)
                i += 1
            if t[i:].lstrip().startswith(';'):
                n = t.count('\n', 0, m.end()) + 1
                out.append(f'{f}:{n}: snprintf\'s result dropped (fmtbuf or fmtcut, common/fmt.h)')
    return out


check('no snprintf into a fixed buffer unchecked (common/fmt.h)', unchecked_snprintf())

def error_convention():
    """common/err.h's convention only: a caller's buffer, -1, one line. No
    formatter of another name (proto_errf was one), no file-scope buffer a
    function leaves its error in (the agent's errmsg was one)."""
    out = []
    shared = re.compile(r'^static\s+char\s+\w*(err|msg)\w*\s*\[', re.M | re.I)
    for f in cfiles + [h for h in files if h.endswith('.h')]:
        t = code(f) if f.endswith('.c') else open(f, encoding='utf-8', errors='replace').read()
        for m in re.finditer(r'\bproto_errf\b', t):
            out.append(f'{f}:{t.count(chr(10), 0, m.start()) + 1}: proto_errf: errorfn (common/err.h)')
        for m in shared.finditer(t):
            out.append(f'{f}:{t.count(chr(10), 0, m.start()) + 1}: a file-scope error buffer: '
                       'the caller\'s, passed in')
    return out


check('one error convention (common/err.h): no other formatter, no shared error buffer',
      error_convention())

DECL = re.compile(r'^(?!static|typedef|extern\s+const|struct\s+\w+\s*\{|enum|union)'
                  r'[A-Za-z_][\w \*]*?\b(\w+)\s*\(')


def header_comments():
    """Every function a header declares says what it is for: a comment ends
    directly above it, or above the group of declarations (and #defines) it
    belongs to, no blank line between."""
    out = []
    for f in files:
        if not f.endswith('.h'):
            continue
        lines = open(f, encoding='utf-8', errors='replace').read().split('\n')
        i = 0
        while i < len(lines):
            m = DECL.match(lines[i])
            if not m or m.group(1) == '__attribute__':
                i += 1
                continue
            j = i - 1
            while j >= 0 and lines[j].strip() and not lines[j].rstrip().endswith('*/'):
                j -= 1
            if not (j >= 0 and lines[j].rstrip().endswith('*/')):
                out.append(f'{f}:{i + 1}: {m.group(1)}: no comment says what it is for')
            while i < len(lines) and not lines[i].rstrip().endswith((';', '{')):
                i += 1
            i += 1
    return out


check('every function a header declares has its comment', header_comments())

failed = 0
for what, problems in results:
    if problems:
        failed += 1
        print(f'not ok - {what}')
        for p in problems:
            print(f'#   {p}')
    else:
        print(f'ok - {what}')
print(f'lint: {len(results) - failed} passed, {failed} failed')
sys.exit(1 if failed else 0)
