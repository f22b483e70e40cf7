#!/usr/bin/env python3
# doc_output.py -- a fenced output block of a docs/ page held against what the
# program prints today, so the page's sample cannot go stale.
#
# usage: doc_output.py PAGE N REAL DOC_NAMES REAL_NAMES [SKIP]
#
# Block N (1-based) of PAGE's ``` blocks, or with N as iK its K-th block
# indented by four blanks (a "$ " command line and "..." in it left out),
# was a real run, but of other arms,
# cells and numbers than the test's. Both texts are normalised: the names
# (comma-separated DOC_NAMES in the page, REAL_NAMES in REAL: matrix, cells,
# arms) become "@", every number "#" ("runs" "run", "matrices" and "the
# only matrix" "the newest of # matrix"), runs of blanks one blank. Then every
# line of the block must be a line of REAL, except a table's header or row
# (a line that starts with a name or with "cell"), whose columns depend on
# how many arms there are, or a line that starts with one of the words of
# SKIP (comma-separated: a header or a list whose items are per arm, as
# "arm" or "kernels:"). Prints each line missing and exits 1, or exits 0.
import re
import sys


def blocks(text):
    """The page's fenced blocks, in order, each as its text."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith('```'):
            if cur is None:
                cur = []
            else:
                out.append('\n'.join(cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def indented(text):
    """The page's blocks indented by four blanks after a blank line, in order."""
    out, cur, prev = [], None, ''
    for line in text.splitlines():
        if line.startswith('    ') and (cur is not None or not prev.strip()):
            if cur is None:
                cur = []
            if not line.lstrip().startswith('$ ') and line.strip() != '...':
                cur.append(line[4:])
        elif cur is not None and line.strip():
            out.append('\n'.join(cur))
            cur = None
        prev = line
    if cur is not None:
        out.append('\n'.join(cur))
    return out


def normalise(text, names):
    """Names to "@" (the longest first), numbers to "#", blanks squeezed."""
    lines = []
    for line in text.splitlines():
        for n in sorted(names, key=len, reverse=True):
            line = re.sub(r'(?<![\w.-])' + re.escape(n) + r'(?![\w.-])', '@', line)
        line = re.sub(r'\bh[0-9a-f]{8}\b', 'h#', line)   # a build's key
        line = re.sub(r'\d+(\.\d+)?', '#', line)
        line = re.sub(r'\bruns\b', 'run', line)   # "1 run", "2 runs"
        line = re.sub(r'\bmatrices\b', 'matrix', line)
        line = line.replace('the only matrix', 'the newest of # matrix')
        line = ' '.join(line.split())
        if line:
            lines.append(line)
    return lines


def main(argv):
    if len(argv) not in (6, 7):
        sys.exit('usage: doc_output.py PAGE N REAL DOC_NAMES REAL_NAMES [SKIP]')
    page, n, real, doc_names, real_names = argv[1:6]
    skip = {'@', 'cell'} | set(argv[6].split(',') if len(argv) == 7 else [])
    text = open(page).read()
    bl = indented(text) if n.startswith('i') else blocks(text)
    k = int(n.lstrip('i'))
    if not 1 <= k <= len(bl):
        sys.exit(f'{page}: no block {n} (it has {len(bl)})')
    want = normalise(bl[k - 1], doc_names.split(','))
    have = set(normalise(open(real).read(), real_names.split(',')))
    missing = [w for w in want if w.split()[0] not in skip and w not in have]
    for m in missing:
        print(f'{page} block {n}: not in today\'s output: {m}')
    checked = sum(1 for w in want if w.split()[0] not in skip)
    if checked == 0:
        sys.exit(f'{page} block {n}: no line left to check')
    sys.exit(1 if missing else 0)


if __name__ == '__main__':
    main(sys.argv)
