#!/usr/bin/env python3
# noise_spread.py -- the A/A spread of a `harness calibrate` matrix per cell: sd of the
# paired per-block deltas, the runs' CV, ops/s, boot-to-hello, the host's CPU pressure.
# usage: tests/noise_spread.py LABEL DB [MATRIX_NAME]   (bench_noise.sh, bench_qemu.sh)
import sqlite3
import statistics
import sys

label = sys.argv[1]
db = sqlite3.connect(sys.argv[2])
name = sys.argv[3] if len(sys.argv) > 3 else "noise-aa"
mid = db.execute("SELECT MAX(id) FROM matrices WHERE name = ?", (name,)).fetchone()[0]
WINDOWS = (("ramp excluded", "SELECT s.arm, s.block, s.ops_per_s FROM run_summary s"
            " JOIN cells c ON c.matrix_id = s.matrix_id AND c.idx = s.cell"
            " WHERE s.matrix_id = ? AND c.name = ?"),
           ("ramp included", "SELECT a.idx, r.block, SUM(t.read_ops) * 1000.0 /"
            " (SELECT MAX(t_ms) FROM samples WHERE run_id = r.id) FROM runs r"
            " JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
            " JOIN stream_samples t ON t.run_id = r.id WHERE r.matrix_id = ?"
            " AND c.name = ? AND r.status = 'done' GROUP BY r.id"))


def hmean(x):
    return len(x) / sum(1.0 / v for v in x)


def cell_runs(cell, column):
    return [x for x, in db.execute("SELECT r." + column + " FROM runs r JOIN cells c ON"
                                   " c.id = r.cell_id WHERE r.matrix_id = ? AND c.name = ?"
                                   " AND r." + column + " IS NOT NULL", (mid, cell))]


for cell, in db.execute("SELECT name FROM cells WHERE matrix_id = ? ORDER BY idx", (mid,)):
    ready, cpu = cell_runs(cell, "agent_ready_ms"), cell_runs(cell, "pressure_cpu_pct")
    flagged = sum(cell_runs(cell, "contended"))
    for window, sql in WINDOWS:
        runs = db.execute(sql, (mid, cell)).fetchall()
        by = {}
        for arm, block, v in runs:
            by.setdefault(block, ([], []))[arm].append(v)
        d = [hmean(b[1]) / hmean(b[0]) - 1 for b in by.values() if b[0] and b[1]]
        vals = [v for _, _, v in runs]
        print("%-10s %-8s %-14s blocks %2d  sd %5.2f %%  CV %5.2f %%  ops/s %8.0f"
              "  hello %5s ms  cpu some %s, %d contended" % (
                  label, cell, window, len(d), 100 * statistics.stdev(d),
                  100 * statistics.stdev(vals) / statistics.mean(vals), statistics.mean(vals),
                  "%.0f" % statistics.median(ready) if ready else "-",
                  "%.0f to %.0f %%" % (min(cpu), max(cpu)) if cpu else "-", flagged))
