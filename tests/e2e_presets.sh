#!/usr/bin/env bash
# e2e_presets.sh -- the grid presets (seed 004) run end to end in real guests
# from one command, and their seed-style tables come out of the database; the
# 000 and 003 presets run as the seed examples in e2e_seeds.sh.
# usage: tests/e2e_presets.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" presets "$@"

e2e_conf
# Seed 004's presets at a scale a TCG guest runs in seconds.
cat > "$work/seeds.json" <<'EOF'
{
  "name": "seeds", "reps": 1,
  "arms": [ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" },
            { "name": "classic", "kernel": "6.12", "lru_gen": "n" } ],
  "workloads": [
    { "name": "fd", "preset": "fio-zipf-fd", "scale": 0.01, "time_scale": 0.02,
      "params": { "theta": [0.8, 1.2] } },
    { "name": "mmap", "preset": "fio-zipf-mmap", "scale": 0.01, "time_scale": 0.02,
      "params": { "theta": 1.1 } }
  ]
}
EOF
cd "$work" || exit 1
"$harness" run seeds.json > run.out 2> run.err
rc=$?
cat run.out
[ -s run.err ] && sed 's/^/stderr: /' run.err
check "one command runs both presets (exit $rc)" [ "$rc" -eq 0 ]
check "all 6 runs done" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 6 ]
check "param arrays expand into cells" [ "$(q "SELECT group_concat(name, ' ') FROM cells")" = "fd/0.8 fd/1.2 mmap" ]

"$harness" table seeds > table.out 2>&1
check "004: a grid of cells x arms for ops/s and refaults per read" \
	bash -c 'grep -q "^seeds: ops/s" table.out && grep -q "^seeds: rf/read" table.out && grep -qE "^fd/1.2 " table.out'
# The table's numbers are the database's: the grid cell equals the harmonic
# mean of the runs' ops/s (digits grouped by commas in the table).
want=$(q "SELECT printf('%.0f', COUNT(*) / SUM(1.0 / ops_per_s)) FROM run_summary s JOIN cells c ON c.matrix_id = s.matrix_id AND c.idx = s.cell WHERE c.name = 'fd/0.8' AND s.arm = 1")
got=$(awk '/^seeds: ops\/s/ { g = 1 } g && /^fd\/0.8 / { gsub(/,/, "", $4); print $4; exit }' table.out)
check "004: grid value is the database's mean ($got = $want)" [ -n "$want" -a "$got" = "$want" ]
check "docs/tables.md's seed 004 grid sample says what the table says today" \
	python3 "$repo/tests/doc_output.py" "$repo/docs/tables.md" 3 table.out \
	seeds,16G/1.1,16G/0.9,orig,fixed,fg,rd seeds,fd/0.8,fd/1.2,mmap,mglru,classic
"$harness" table --format json --metric ops/s seeds > table.json 2>&1
check "table --format json parses and has a row per grid cell" \
	python3 -c 'import json,sys; t=json.load(open("table.json")); sys.exit(not (t[0]["metric"] == "ops/s" and len(t[0]["rows"]) == 3))'
"$harness" table --pairs seeds > pairs.out 2>&1
check "table --pairs prints a pair table per cell and arm" [ "$(grep -c "^block  *pair 1" pairs.out)" -ge 3 ]
check "ramp intervals flagged and kept out of the summary" [ "$(q "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id JOIN cells c ON c.id = r.cell_id WHERE c.name LIKE 'fd/%' AND s.ramp = 1")" -gt 0 ]

e2e_end
