#!/usr/bin/env bash
# e2e_contended.sh -- the quiet-host gate in real guests: an A/A matrix run
# while the test keeps the host busy for its first block (three busy loops at
# first, so the gate waits and starts the first run flagged, then two: with
# the guest's own TCG thread, more runnable threads than the 2 cores): those
# runs are contended, the later quiet ones are not; compare leaves the
# contended block out and says so; extend queues its replacement.
# usage: tests/e2e_contended.sh HARNESS_BINARY   (images must be built)
# Another's guests on the host stall the CPU too, and flag the quiet block as
# they should: the test watches for QEMUs not its own and then skips the
# checks that need a quiet host (and counts the blocks compare leaves out
# from the database, whatever they are).
set -u

. "$(dirname "$0")/testlib.sh" contended "$@"

e2e_conf 'quiet_cpu_pct = 30' 'contended_cpu_pct = 50' 'quiet_io_pct = 20' 'quiet_wait_s = 3'
cd "$work" || exit 1
# A/A: two arms of the same kernel; 2 blocks of 4 runs (ABBA), short runs
cat > m.json <<'EOF2'
{ "name": "busy", "reps": 4,
  "arms": [ { "name": "a1", "kernel": "6.12", "lru_gen": "y" },
            { "name": "a2", "kernel": "6.12", "lru_gen": "y" } ],
  "workloads": [
    { "name": "zipf", "memcg_mib": 32, "duration_s": 4, "interval_ms": 500,
      "files": [ { "name": "d", "mib": 48 } ],
      "streams": [ { "kind": "random", "file": "d", "distribution": "zipf", "theta": 0.9 } ] } ] }
EOF2

loops=()
busy() { ( while :; do :; done ) & loops+=($!); }
stop_loops() { # stop_loops N: kill all but the first N loops
	while [ ${#loops[@]} -gt "$1" ]; do
		kill "${loops[-1]}" 2> /dev/null; wait "${loops[-1]}" 2> /dev/null
		unset 'loops[-1]'
	done
}
trap 'stop_loops 0' EXIT
runs_where() { q "SELECT COUNT(*) FROM runs WHERE $1" 2> /dev/null || echo 0; }
# foreign_guests PID: 0 while a QEMU runs that is not of harness PID (written to foreign)
foreign_guests() {
	while kill -0 "$1" 2> /dev/null; do
		pgrep -af qemu-system | grep -v "guest=harness-$1-run-" | grep -q . && echo yes > foreign
		sleep 0.5
	done
}
skip() { echo "# skip - $*"; }

busy; busy; busy
"$harness" run m.json > run.out 2> run.err & hpid=$!
# three loops on two cores until the first run has booted: the gate waited 3 s and gave up
for _ in $(seq 600); do [ "$(runs_where "status != 'queued'")" -ge 1 ] && break; sleep 0.1; done
stop_loops 2
# two loops through block 0 (its 4 runs), none after: one would not do, a guest under
# single-threaded TCG (QEMU < 8.1) is one busy thread, and one loop beside it stalls nobody
# on two cores
for _ in $(seq 1800); do [ "$(runs_where "status = 'done' AND block = 0")" -ge 4 ] && break; sleep 0.1; done
stop_loops 0
foreign_guests $hpid &
wait $hpid
rc=$?
cat run.out
sed 's/^/stderr: /' run.err
check "the matrix ran, 8 runs done (exit $rc)" [ "$(runs_where "status = 'done'")" = 8 ]
check "the gate said it waited, why, and for how long, before the first run" \
	grep -qE '^harness: host busy: cpu some [0-9.]+% > 30% over the last 1 s: waiting up to 3 s before run 1$' run.err
check "then started it anyway, flagged" grep -q '^harness: host still busy after 3 s (cpu some' run.err
check "stored: started busy, waited 3 s" \
	[ "$(q "SELECT started_busy, quiet_wait_ms >= 3000 FROM runs WHERE id = 1")" = "1|1" ]
check "every run of block 0 (the busy loop overlapped it) is contended, and why: the stall, and the busy loop's CPU beside the guest's QEMU" \
	[ "$(runs_where "block = 0 AND contended = 1 AND contended_why LIKE 'cpu some %> 50%, others used % of a CPU > 25%'")" = 4 ]
if [ -e foreign ]; then
	skip "no run of block 1 (quiet) is: other guests ran on the host meanwhile"
else
	check "no run of block 1 (quiet) is" [ "$(runs_where "block = 1 AND contended = 0")" = 4 ]
fi
nb=$(q "SELECT COUNT(DISTINCT block) FROM runs WHERE contended = 1")
[ "$nb" = 1 ] && bl=block || bl=blocks
check "the host's pressure is stored beside every sample" \
	[ "$(q "SELECT COUNT(*) FROM samples s JOIN host_pressure p USING (run_id, seq)")" = \
	  "$(q "SELECT COUNT(*) FROM samples")" ]
check "the table marks the run count and says why in a footnote" \
	bash -c "grep -q '^runs: 8 done\*, ' run.out && grep -qE '^\* [4-8] of them contended' run.out"

"$harness" compare busy a1 a2 > cmp.out 2>&1
cat cmp.out
check "compare leaves the $nb contended $bl out and says so in one line" \
	[ "$(grep -c "^left out $nb $bl with a contended run" cmp.out)" = 1 ]
check "its verdicts count the other $((2 - nb))" grep -qE "^zipf +ops/s +$((2 - nb)) " cmp.out
"$harness" compare --keep-contended busy a1 a2 > keep.out 2>&1
check "--keep-contended keeps them (2 blocks) and says so" \
	bash -c "grep -q '^kept $nb $bl with a contended run (--keep-contended)' keep.out && grep -qE '^zipf +ops/s +2 ' keep.out"
"$harness" compare --json busy a1 a2 > cmp.json 2> cmp.err   # warnings: stderr
check "--json says it too" python3 -c 'import json,sys
c=json.load(open("cmp.json"))["contended_blocks"]; sys.exit(not (c["n"] == '"$nb"' and c["left_out"]))'

# the cap counts the blocks compare kept: 2, and the contended ones come on top
"$harness" extend --until-decided --max-blocks 2 busy > ext.out 2>&1
cat ext.out
check "extend replaces the contended $bl: $nb more, $((4 * nb)) runs" \
	bash -c "grep -qE '^  zipf .*\($nb contended, replaced\), queued $nb more \($((4 * nb)) runs\)' ext.out && [ \"\$(sqlite3 results/harness.db \"SELECT COUNT(*) FROM runs WHERE status = 'queued'\")\" = $((4 * nb)) ]"
rm -f foreign
"$harness" run busy > run2.out 2> run2.err & hpid=$!
foreign_guests $hpid &
wait $hpid
check "the replacements ran" [ "$(runs_where "block >= 2 AND status = 'done'")" = $((4 * nb)) ]
if [ -e foreign ]; then
	skip "the replacements ran on a quiet host, not contended: other guests ran meanwhile"
else
	check "the replacements ran on a quiet host, not contended" \
		[ "$(runs_where "block >= 2 AND contended = 0")" = $((4 * nb)) ]
fi
"$harness" compare busy a1 a2 > cmp2.out 2>&1
cat cmp2.out
nb2=$(q "SELECT COUNT(DISTINCT block) FROM runs WHERE contended = 1")
check "compare now counts the blocks not contended ($((2 + nb - nb2)))" \
	grep -qE "^zipf +ops/s +$((2 + nb - nb2)) " cmp2.out
e2e_end
