#!/usr/bin/env bash
# e2e_bisect.sh -- harness bisect on linux-source-6.12 (tinyconfig + the
# harness's fragment): a series of four patches made here, the first not
# building alone (the second reverts it), the third adding a loop to every
# read(2) of the page cache, the fourth touching only documentation. Run here
# with a budget, the bisection skips prefix 1, takes prefixes 2 and 3 for
# GOOD's and BAD's kernels and stops before the check; harnessd then runs the
# check (killed -9 and restarted on the way) and names patch 3; run again,
# here or there, everything is found in the database and nothing runs.
# BISECT_LONG=1 (make test-long): the second patch defines what the first
# uses instead, a kernel of its own, measured as a search step.
# usage: tests/e2e_bisect.sh HARNESS_BINARY HARNESSD_BINARY
# E2E_BUILDS (tests/run.sh sets it): a build cache shared with e2e_source.
set -u

. "$(dirname "$0")/testlib.sh" bisect "$@"
long=${BISECT_LONG:-0}
dpid= bpid=
trap '[ -n "$dpid" ] && kill -9 "$dpid" 2>/dev/null; [ -n "$bpid" ] && kill "$bpid" 2>/dev/null; wait 2>/dev/null' EXIT

e2e_conf
cd "$work" || exit 1
e2e_shared_builds
tree=$work/results/cache/builds/trees/pkg-linux-source-6.12/src

matrix() { # matrix NAME REPS ARMS: pread of a cached file, the path patch 3 slows;
	# the file read once first, in the ramp: random reads racing the first ones
	# from disk made ops/s range over two orders of magnitude
	cat > "$1.json" <<EOF2
{ "name": "$1", "reps": $2, "arms": [ $3 ],
  "workloads": [ { "name": "pread", "duration_s": 2, "ramp_s": 1, "memcg_mib": 64,
                   "files": [ { "name": "d", "mib": 4 } ],
                   "streams": [ { "kind": "scan", "file": "d" },
                                { "kind": "random", "file": "d", "start_s": 1 } ] } ] }
EOF2
}
arm() { # arm NAME [PATCHES]
	printf '{ "name": "%s", "source_package": "linux-source-6.12", "config": "tinyconfig"%s }' \
		"$1" "${2:+, \"patches\": \"$2\"}"
}

json() { # json EXPR FILE: a Python expression of the JSON j in FILE
	python3 -c 'import json, sys; j = json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2" 2>/dev/null
}

# 1. the tree (unpacked once, or e2e_source's), and GOOD built
matrix base 1 "$(arm good)"
t0=$SECONDS
"$harness" check base.json > base.out 2>&1
check "GOOD builds (exit $?, $((SECONDS - t0)) s)" grep -q "base.json: OK" base.out
[ -f "$tree/mm/filemap.c" ] || { tail -5 base.out; not_ok "the tree is there"; e2e_end; exit 1; }

# 2. the series, as a developer would send it
mkdir series && cd series || exit 1
git init -q && git config user.name dev && git config user.email dev@example.org
mkdir -p mm Documentation/admin-guide/mm
# from the harness's import of the tree (a build in progress may have patched its files)
for f in mm/filemap.c Documentation/admin-guide/mm/multigen_lru.rst; do
	git -C "$tree" show "HEAD:$f" > "$f"
done
git add . && git commit -qm base
sed -i 's/^\tpage_writeback_init();$/\tpr_notice("harness-e2e: %s\\n", HARNESS_E2E_WORDS);\n&/' mm/filemap.c
git commit -qam "mm: filemap: say at boot what the series is" -m "Uses a macro the next patch defines: this one alone does not build."
if [ "$long" = 1 ]; then
	sed -i 's/^#include "internal.h"$/&\n#define HARNESS_E2E_WORDS "bisect series applied"/' mm/filemap.c
	git commit -qam "mm: filemap: define the words said at boot"
else
	git revert --no-edit HEAD > /dev/null
fi
sed -i 's/^#include "internal.h"$/#include <linux\/delay.h>\n&/' mm/filemap.c
sed -i '/^\tiov_iter_truncate(iter, inode->i_sb->s_maxbytes - iocb->ki_pos);$/s/$/\n\t{ volatile unsigned int n; for (n = 0; n < 8000; n++) ; }\t\/* harness-e2e *\//' mm/filemap.c
git commit -qam "mm: filemap: count to 8000 in every read" -m "The regression the bisection must find: a fixed amount of work, not udelay(), whose length depends on a calibration TCG makes anew at each boot."
echo "The harness's bisect test touched this page." >> Documentation/admin-guide/mm/multigen_lru.rst
git commit -qam "Documentation: mm: a line about the test"
git format-patch -q --thread --stdout -4 > ../series.mbox
cd .. || exit 1
check "four patches, the third slowing mm/filemap.c's read path" \
	bash -c '[ "$(grep -c "^diff --git" series.mbox)" = 4 ] && grep -q "^+.*HARNESS_E2E_WORDS" series.mbox &&
		 grep -q "^+.{ volatile unsigned int n; for (n = 0; n < 8000; n++) ; }" series.mbox'
[ "$fail" -eq 0 ] || { e2e_end; exit 1; }

# 3. GOOD and BAD, seven blocks (more than the 4 in which a DIFFERENT can
#    first be called at 0.05): the user's own matrix
matrix series 14 "$(arm good), $(arm bad series.mbox)"
t0=$SECONDS
"$harness" run series.json > series.out 2>&1
check "run series.json: GOOD and BAD ran (exit $?, $((SECONDS - t0)) s)" \
	[ "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id
	        WHERE m.name = 'series' AND r.status = 'done'")" = 28 ]

# 4. here, with a budget that stops it before the check (the long form: after
#    the search step's first 4 blocks, which may or may not decide it)
budget=$((long ? 16 : 10))
t0=$SECONDS
"$harness" bisect --max-runs $budget series --cell pread --metric ops/s good bad > budget.out 2>&1
rc=$?
sed -n '/^bisect of matrix/,$p' budget.out
if [ "$long" = 1 ]; then
	# p2 like GOOD: only the check is left; undecided: p1 (skipped) to p3 stay candidates
	stopped='^budget: the budget ran out: the first bad patch is (3, not checked against its parent|one of 1\.\.3 )'
else
	stopped='^budget: the budget ran out: the first bad patch is 3, not checked against its parent'
fi
check "bisect --max-runs $budget: stopped by its budget (exit $rc, $((SECONDS - t0)) s)" \
	bash -c "[ $rc -eq 2 ] && grep -Eq '$stopped' budget.out"
check "BAD against GOOD taken from the user's matrix, DIFFERENT, slower" \
	grep -Eq "^confirm +p4 +p0 +bad +DIFFERENT +7 +-[0-9.]+%.*matrix [0-9]+'s own 7 blocks of good and bad" budget.out
check "each prefix's tinyconfig taken as made before: the series leaves Kconfig alone" \
	[ "$(grep -cE '^resolving arms\[0\] \(p[123]\) x86_64: config: tinyconfig as made before from the same Kconfig inputs$' budget.out)" = 3 ]
check "prefix 1 does not build: skipped, with the compiler's words" \
	grep -Eq "^build +p1 +p1 +skip .*HARNESS_E2E_WORDS" budget.out
check "prefix 3 is BAD's kernel (patch 4 only documentation): its measurement reused" \
	grep -Eq "^same +p3 +p4 +bad .*the same kernel as p4" budget.out
if [ "$long" = 1 ]; then
	check "prefix 2, a kernel of its own, measured against GOOD for 4 blocks (16 runs)" \
		grep -Eq "^search +p2 +p0 +(good|undecided) +[A-Z]+ +4 .* 16 " budget.out
else
	check "prefix 2 is GOOD's kernel (it reverts patch 1): its measurement reused" \
		grep -Eq "^same +p2 +p0 +good .*the same kernel as p0" budget.out
	check "the check was not started: its blocks would spend the budget" \
		grep -Eq "^check +p3 +p2 +undecided .*not started" budget.out
fi
check "no compile overlapped a measured run (every prefix built before the first step)" \
	bash -c "! awk '/^run [0-9]+\\/[0-9]+ /{r=1} /^bisect: build p/{if (r) bad=1} END {exit !bad}' budget.out"

# 5. harnessd: the same bisection without a budget, killed -9 in its check and restarted
check "harnessd starts" start_daemon
"$harness" bisect series --cell pread --metric ops/s good bad > daemon1.out 2>&1 & bpid=$!
# the long form's search step may grow first: wait longer for the check
for _ in $(seq $((long ? 3600 : 600))); do
	n=$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id
	       WHERE m.name = 'series-bisect-k3' AND r.status = 'done'" 2>/dev/null)
	[ "${n:-0}" -ge 2 ] && break
	sleep 1
done
check "the daemon queued the check as a matrix and ran its runs ($n done)" [ "${n:-0}" -ge 2 ]
check "harness status shows the bisection's progress" \
	bash -c '"$1" status | grep -Eq "^1 +[0-9]+ +pread +ops/s +running "' _ "$harness"
kill -9 "$dpid"; wait "$dpid" 2>/dev/null; dpid=
wait "$bpid"; rc=$?; bpid=
check "the client following it says harnessd went away, in one line (exit $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'harnessd stopped answering.*it goes on when harnessd is back' daemon1.out"
check "the bisection is still running in the database" [ "$(q "SELECT state FROM bisections WHERE id = 1")" = running ]
sleep 1
check "harnessd starts again" start_daemon
for _ in $(seq $((long ? 3600 : 900))); do
	[ "$(q "SELECT state FROM bisections WHERE id = 1")" != running ] && break
	sleep 1
done
check "the bisection ends after the restart" [ "$(q "SELECT state FROM bisections WHERE id = 1")" = done ]
t0=$SECONDS
"$harness" bisect series --cell pread --metric ops/s good bad > daemon2.out 2>&1
rc=$?
sed -n '/^bisect of matrix/,$p' daemon2.out
check "asked again: the same bisection, its table, patch 3 (exit $rc, $((SECONDS - t0)) s)" \
	bash -c "[ $rc -eq 0 ] && grep -q '^bisection 1 of matrix [0-9]*: asked before, in harnessd' daemon2.out"
check "the first bad patch is 3/4, its subject and message-id" \
	grep -q "^first bad patch: 3/4 'mm: filemap: count to 8000 in every read' <.*@example.org>" daemon2.out
check "patch 3 checked against its parent: DIFFERENT again, slower" \
	grep -Eq "^check +p3 +p2 +bad +DIFFERENT +[0-9]+ +-[0-9.]+%" daemon2.out
check "the cost: runs and builds" \
	grep -Eq "^cost: [0-9]+ runs, .* 5 builds \(1 failed, [12] the same kernel as another prefix\)" daemon2.out
check "no effect said to build up over several patches" bash -c '! grep -q "builds up" daemon2.out'
# 4 blocks first (16 runs): a DIFFERENT can come at 4 since issue 47's randomisation test
check "the check's runs each done once, the one killed run again" \
	bash -c '[ "$1" = "$2" ] && [ "$1" -ge 16 ]' _ $(q "SELECT COUNT(*) || ' ' || COUNT(DISTINCT r.seq)
	        FROM runs r JOIN matrices m ON m.id = r.matrix_id
	        WHERE m.name = 'series-bisect-k3' AND r.status = 'done'")
console=$(q "SELECT r.console_path FROM runs r JOIN arms a ON a.id = r.arm_id JOIN matrices m
             ON m.id = r.matrix_id WHERE m.name = 'series-bisect-k3' AND a.name = 'p3'
             AND r.status = 'done' AND r.start IN ('boot', 'save') LIMIT 1")
check "the culprit's guest booted the bisection's build (its uname carries the key)" \
	bash -c "grep -q 'Linux version 6.12.*-h' '$console'"
"$harness" --json bisect series --cell pread --metric ops/s good bad > daemon.json 2> daemon.err
check "... and as JSON: the culprit" [ "$(json '"%s %s" % (j["culprit"]["patch"], j["outcome"])' daemon.json)" = "3 found" ]
kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=

# 6. here again: every step in the database, nothing runs, the same answer
t0=$SECONDS
"$harness" --json bisect series --cell pread --metric ops/s good bad > again.json 2> again.err
rc=$?
check "here again, as JSON (exit $rc, $((SECONDS - t0)) s): the same culprit" \
	[ "$(json '"%s %s" % (j["culprit"]["patch"], j["outcome"])' again.json)" = "3 found" ]
check "... and nothing was run again" bash -c '! grep -q "^run [0-9]*/[0-9]* " again.err'
check "... nor prefix 1 configured or compiled again: its compiler error is remembered" \
	bash -c '! grep -q "(p1) x86_64: c" again.err && grep -q "HARNESS_E2E_WORDS.*as before" again.json'
check "... the same cost as the daemon's" [ "$(json 'j["runs"]' again.json)" = "$(json 'j["runs"]' daemon.json)" ]

# 7. refused in one line before anything builds
"$harness" bisect series --cell pread --metric ops/s good nosuch > refused1.out 2>&1
check "an arm the matrix has not: one line (exit $?)" \
	grep -qx "harness: bisect: matrix 'series' has no arm 'nosuch' (its arms as tables name them)" refused1.out
"$harness" bisect series --cell nosuch --metric ops/s good bad > refused2.out 2>&1
check "a cell the matrix has not: one line" grep -qx "harness: bisect: --cell 'nosuch': matrix 'series' has no such cell" refused2.out
"$harness" bisect series --cell pread --metric nosuch good bad > refused3.out 2>&1
check "a metric compare does not decide on: one line" grep -q "^harness: bisect: metric 'nosuch': expected" refused3.out
"$harness" bisect series --cell pread --metric ops/s bad good > refused4.out 2>&1
check "GOOD with more patches than BAD: one line" grep -q "^harness: bisect: BAD 'good' has 0 patches and GOOD 'bad' 4" refused4.out

e2e_end
