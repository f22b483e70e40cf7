#!/usr/bin/env bash
# e2e_calibrate.sh -- harness calibrate in real guests: A/A blocks of a
# matrix's cell run on this host, their noise stored per cell and metric,
# then check's advice, compare's noise column and the tables' noise section use it.
# usage: tests/e2e_calibrate.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" calibrate "$@"

e2e_conf
cd "$work" || exit 1
host=$(hostname)
# two cells; the calibration measures one of them
cat > m.json <<'EOF2'
{ "name": "cal", "reps": 2,
  "arms": [ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" },
            { "name": "classic", "kernel": "6.12", "lru_gen": "n" } ],
  "workloads": [
    { "name": "zipf", "memcg_mib": 32, "duration_s": 3,
      "files": [ { "name": "d", "mib": 48 } ],
      "streams": [ { "kind": "random", "file": "d", "distribution": "zipf", "theta": 0.9 } ] },
    { "name": "other", "memcg_mib": 32, "duration_s": 3,
      "files": [ { "name": "d", "mib": 16 } ],
      "streams": [ { "kind": "random", "file": "d" } ] } ] }
EOF2

"$harness" calibrate --print --arm classic --cell zipf --blocks 4 m.json > aa.json 2> print.err
check "--print writes the A/A matrix: two copies of the arm, 8 reps, the one cell" \
	python3 -c 'import json,sys; m=json.load(open("aa.json"))
a=m["arms"]; sys.exit(not ([x["name"] for x in a] == ["classic-1-aa", "classic-2-aa"] and
  all(x["lru_gen"] == "n" for x in a) and m["reps"] == 8 and m["cells"] == ["zipf"]))'
"$harness" calibrate --cell nope m.json > bad.out 2> bad.err
rc=$?
check "a cell the matrix has not is refused before a guest boots (exit $rc)" \
	bash -c "[ $rc -eq 1 ] && [ \$(wc -l < bad.err) = 1 ] && grep -q 'cells\\[0\\]: expected the name of a cell' bad.err && [ ! -e results/runs ]"

"$harness" calibrate --arm classic --cell zipf --blocks 4 m.json > cal.out 2> cal.err
rc=$?
cat cal.out
[ -s cal.err ] && sed 's/^/stderr: /' cal.err
check "calibrate runs 4 A/A blocks, 16 runs (exit $rc)" \
	[ "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'cal-aa' AND r.status = 'done'")" = 16 ]
check "its noise is stored per metric, on this host, for the cell's job" \
	[ "$(q "SELECT COUNT(*) FROM calibrations WHERE host = '$host' AND cell = 'zipf' AND metric = 'ops/s' AND blocks = 4 AND sd > 0 AND cv > 0")" = 1 ]
check "and printed, one row per metric" grep -qE '^zipf +ops/s +4 ' cal.out

"$harness" check --parse-only m.json > check.out 2>&1
cat check.out
check "check names the calibrated cell's noise" grep -q "^noise of zipf on $host (calibrated " check.out
# how many blocks depends on this host's noise; 1 is too few for any (a verdict needs 4)
check "and warns that its 1 block is too few for 5 %" \
	grep -qE "^warning: m.json: cell zipf: (reps 2 give 1 units; .* needs up to [0-9]+ to detect 5 % with 80 % power|no number of blocks detects 5 % in )" check.out
check "naming every calibrated metric, and the least effect its blocks can call" \
	grep -qE "^noise of zipf on .*: miss% sd [0-9.]+% (needs [0-9]+ \([0-9]+ to ([0-9]+|never)\)|never), calls (from [0-9.]+%|nothing)(, SAME from (more than )?[0-9]+)?; ops/s sd " check.out
check "and warns that 1 unit a cell is too few for a DIFFERENT in ops/s over its 2 cells" \
	grep -qE "^warning: m.json: reps 2 give 1 unit a cell: DIFFERENT in ops/s needs at least 5 units, whatever the noise; this matrix has 1: reps 10 would$" check.out
check "and the plan says both floors before anything runs" \
	grep -qE "^plan: .* adjusts 2 verdicts of ops/s and 8 of the other metrics \(2 cells x 5 metrics\): DIFFERENT needs at least 5 units \(6 in the others\), SAME at least 30; this matrix has 1$" check.out
check "and names the cell it has no calibration of" \
	grep -q "^no calibration on $host for 1 of 2 cells (other): harness calibrate of the matrix file" check.out
"$harness" check --parse-only --effect 0 m.json > /dev/null 2> eff.err
check "--effect 0 is refused" grep -q 'usage: harness check' eff.err

"$harness" run m.json > run.out 2>&1
check "the matrix runs" [ "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'cal' AND r.status = 'done'")" = 8 ]
check "its table's noise section takes the cell's sd from the calibration" \
	grep -qE '^zipf +[0-9.]+% +1 +[0-9.]+% +calibration ' run.out
check "and the other cell's from its arms" grep -qE '^other .* arms 1-2 ' run.out
"$harness" --json compare cal mglru classic > cmp.json 2> cmp.err   # warnings: stderr
check "compare shows the calibrated cell's noise beside the declared margin, none for the other" \
	python3 -c 'import json,sys; v=json.load(open("cmp.json"))["verdicts"]
f={(r["cell"], r["metric"]): (r["noise_from"], r["margin_from"], r["margin_pct"]) for r in v}
sys.exit(not (f[("zipf", "ops/s")] == ("calibration", "table", 2.0) and f[("other", "ops/s")][0] == "none"))'
"$harness" compare cal mglru classic > cmp.out 2>&1
check "and its text says where the noise came from" \
	grep -q "noise in 'cal': calibrated on $host at " cmp.out

"$harness" calibrate --from cal-aa > from.out 2>&1
check "--from stores a stored A/A matrix's noise again" \
	[ "$(q "SELECT COUNT(*) FROM calibrations WHERE cell = 'zipf' AND metric = 'ops/s'")" = 2 ]
"$harness" calibrate --from cal > from2.out 2> from2.err
check "--from a matrix without -aa arms is refused in one line" \
	bash -c '[ $(wc -l < from2.err) = 1 ] && grep -q "expected two arms whose names end in -aa" from2.err'

e2e_end
