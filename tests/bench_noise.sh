#!/usr/bin/env bash
# bench_noise.sh -- where the A/A spread comes from: the same A/A matrix
# (harness calibrate) on a quiet host and on a host with one core kept busy,
# with two cells: "cached" (the file fits the memcg: after the warm-up no
# reclaim, so its spread is the host's and the harness's) and "reclaim" (the
# file is 3x the memcg: every miss reclaims, so the kernel's part adds).
# Per cell and condition: the per-block sd of the paired deltas and the runs'
# CV, with the warm-up (ramp_s) excluded as stored and, from the same
# intervals, included; the kernel part is sqrt(sd_reclaim^2 - sd_cached^2).
# usage: tests/bench_noise.sh HARNESS [BLOCKS]   (default 6 blocks; nothing
# else should run: the "busy" condition is the only load)
set -u
harness=$(readlink -f "${1:?harness binary}")
blocks=${2:-6}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/bench-noise.XXXXXX)
cd "$work" || exit 1
printf 'results = results\nimages = %s/images/out\npresets = %s/workloads/presets\n' \
	"$repo" "$repo" > harness.conf
printf 'memory_mib = 384\nvcpus = 2\nboot_timeout_s = 120\nslack_s = 60\n' >> harness.conf
cat > noise.json <<'EOF2'
{ "name": "noise", "reps": 2,
  "arms": [ { "name": "a", "kernel": "6.12", "lru_gen": "y" } ],
  "workloads": [
    { "name": "cached", "memcg_mib": 160, "duration_s": 11, "ramp_s": 3,
      "files": [ { "name": "d", "mib": 48 } ],
      "streams": [ { "kind": "random", "file": "d", "access": "pread", "distribution": "zipf",
                     "theta": 0.9, "threads": 2 } ] },
    { "name": "reclaim", "memcg_mib": 32, "duration_s": 11, "ramp_s": 3,
      "files": [ { "name": "d", "mib": 96 } ],
      "streams": [ { "kind": "random", "file": "d", "access": "pread", "distribution": "zipf",
                     "theta": 0.9, "threads": 2 } ] } ] }
EOF2

# spread COND: the calibration's rows, and the same runs with the ramp included
spread() {
	python3 - "$1" <<'EOF2'
import sqlite3, statistics, sys
cond = sys.argv[1]
db = sqlite3.connect("results/harness.db")
mid = db.execute("SELECT MAX(id) FROM matrices WHERE name = 'noise-aa'").fetchone()[0]
def hmean(x): return len(x) / sum(1.0 / v for v in x)
for cell, in db.execute("SELECT name FROM cells WHERE matrix_id = ? ORDER BY idx", (mid,)):
    for label, sql in (("ramp excluded", "SELECT s.arm, s.block, s.ops_per_s FROM run_summary s"
                        " JOIN cells c ON c.matrix_id = s.matrix_id AND c.idx = s.cell"
                        " WHERE s.matrix_id = ? AND c.name = ?"),
                       ("ramp included", "SELECT a.idx, r.block, SUM(t.read_ops) * 1000.0 /"
                        " (SELECT MAX(t_ms) FROM samples WHERE run_id = r.id) FROM runs r"
                        " JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
                        " JOIN stream_samples t ON t.run_id = r.id WHERE r.matrix_id = ?"
                        " AND c.name = ? AND r.status = 'done' GROUP BY r.id")):
        runs = db.execute(sql, (mid, cell)).fetchall()
        by = {}
        for arm, block, v in runs:
            by.setdefault(block, ([], []))[arm].append(v)
        d = [hmean(b[1]) / hmean(b[0]) - 1 for b in by.values() if b[0] and b[1]]
        vals = [v for _, _, v in runs]
        load = [x for x, in db.execute("SELECT r.host_load FROM runs r JOIN cells c ON"
                                       " c.id = r.cell_id WHERE r.matrix_id = ? AND c.name = ?"
                                       " AND r.host_load IS NOT NULL", (mid, cell))]
        print("%-6s %-8s %-14s blocks %2d  sd %5.2f %%  CV %5.2f %%  ops/s %8.0f  host load %s" % (
            cond, cell, label, len(d), 100 * statistics.stdev(d),
            100 * statistics.stdev(vals) / statistics.mean(vals), statistics.mean(vals),
            "%.1f to %.1f" % (min(load), max(load)) if load else "-"))
EOF2
}

run_cond() { # run_cond COND: a fresh results directory, the calibration, its spread
	rm -rf results
	/usr/bin/time -f "$1: %e s wall" "$harness" calibrate --blocks "$blocks" noise.json \
		> "$1.out" 2> "$1.time" || { echo "$1: calibrate failed"; tail -3 "$1.out"; exit 1; }
	tail -1 "$1.time"
	spread "$1"
}

run_cond quiet
sh -c 'while :; do :; done' & busy=$!
run_cond busy
kill "$busy"
rm -rf "$work"
