#!/usr/bin/env bash
# e2e_readme.sh -- README.md's own session, run as its lines are written:
# "Running one matrix" on workloads/examples/quick.json in real guests, the
# table it shows under "Reading a table" against the real one, and its
# "Comparing arms and versions" lines on that matrix.
# usage: tests/e2e_readme.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" readme "$@"

e2e_conf
cd "$work" || exit 1
# the README's paths, relative to a checkout: its binary and its examples
mkdir -p harness/build && ln -s "$harness" harness/build/harness &&
	ln -s "$repo/workloads" workloads || exit 1

# section HEADING: README's text under "## HEADING" or "### HEADING", to the next heading
section() {
	python3 - "$repo/README.md" "$1" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^#{2,3} " + re.escape(sys.argv[2]) + r"\n(.*?)(?=^#{2,3} |\Z)", text, re.M | re.S)
print(m.group(1) if m else "")
EOF
}
# harness_lines HEADING: its indented "harness/build/harness ..." lines, comments cut
harness_lines() {
	section "$1" | sed -n 's|^    \(harness/build/harness .*\)$|\1|p' | sed 's/ *#.*$//; s/ *$//'
}
# run_line N LINE: LINE split into words (no shell, no globbing), run; out.N, rc.N
run_line() {
	local -a argv
	read -ra argv <<< "$2"
	"${argv[@]}" > "out.$1" 2>&1
	echo $? > "rc.$1"
}

# --- "Running one matrix", every line as written ---
i=0
while IFS= read -r line; do
	i=$((i + 1))
	run_line "$i" "$line"
	check "README: '$line' exits 0 ($(cat "rc.$i"))" \
		explain "tail -5 out.$i" [ "$(cat "rc.$i")" -eq 0 ]
done < <(harness_lines "Running one matrix")
check "README: 'Running one matrix' has its five lines" [ "$i" -eq 5 ]
check "the run's 16 runs are done (8 reps of 2 arms)" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 16 ]

# --- "Reading a table": the table it shows is the one `table quick` prints ---
shown=$(section "Reading a table" | awk '/^```/ { if (f) exit; f = 1; next } f')
title=$(printf '%s\n' "$shown" | head -1 | sed 's/  (.*//')
head_shown=$(printf '%s\n' "$shown" | sed -n '2p' | tr -s ' ')
check "table quick: the title README shows ('$title')" grep -q "^$title  (" out.3
check "table quick: the columns README shows" \
	explain "grep -m1 ^arm out.3" [ "$(grep -m1 '^arm ' out.3 | tr -s ' ')" = "$head_shown" ]
# each arm's row: the lru_gen its kernel read back, as README shows it, and
# the number of runs; the memcg (64 MiB) holds at most half of the 128 MiB
# file, and a zipf reader keeps it close to full: resid% between 30 and 52
for arm in mglru classic; do
	want=$(printf '%s\n' "$shown" | awk -v a="$arm" '$1 == a { print $2 }')
	row=$(awk -v a="$arm" '$1 == a { print; exit }' out.3)
	check "table quick: $arm read lru_gen $want back, as README shows" \
		[ "$(printf '%s\n' "$row" | awk '{ print $2 }')" = "$want" -a -n "$want" ]
	check "table quick: $arm has its 8 runs and holds 30-52 % of the file ($row)" \
		python3 -c 'import sys; f = sys.argv[1].split()
sys.exit(not (f[-1] == "8" and 30 <= float(f[-2]) <= 52))' "$row"
done
check "table --format markdown quick: a Markdown grid" grep -q '^| *cell' out.4
first_block() { awk '/^```/ { if (f) exit; f = 1; next } f' "$1"; }
check "docs/tables.md shows the same quick table, so this checks it too" \
	[ "$(first_block "$repo/docs/tables.md")" = "$shown" ]

# --- "Comparing arms and versions": the lines on quick's arms ---
# MATRIX BASE NEW (and v3 v4, M1 M2) stand for a matrix and two of its arms;
# --tags needs tagged arms (docs/kernels.md's patch series example)
n=0
while IFS= read -r line; do
	case "$line" in *--tags*) continue ;; esac
	n=$((n + 1))
	line=$(printf '%s\n' "$line" | sed 's/\bMATRIX\b\|\bM1\b\|\bM2\b/quick/g;
		s/\bBASE\b\|\bv3\b/mglru/g; s/\bNEW\b\|\bv4\b/classic/g')
	run_line "c$n" "$line"
	check "README: '$line' answers ($(cat "rc.c$n"))" \
		explain "tail -5 out.c$n" [ "$(cat "rc.c$n")" -le 1 -a -s "out.c$n" ]
done < <(harness_lines "Comparing arms and versions")
check "README: three compare lines run on quick" [ "$n" -eq 3 ]
check "compare quick mglru classic: a verdict per metric of the cell" \
	grep -qE '^ *zipf-pread +ops/s .*(DIFFERENT|SAME|UNKNOWN)' out.c1

e2e_end
