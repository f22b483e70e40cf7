#!/usr/bin/env python3
# seeds_measure.py -- what each seed's report turns on, read from a results
# database after workloads/examples/seed-*.json ran: one line per matrix,
# cell, arm and measure, "MATRIX CELL ARM MEASURE VALUE", for e2e_seeds.sh,
# e2e_source_seeds.sh and long_source_seeds.sh (the seeds' patches as arms).
# usage: tests/seeds_measure.py results/harness.db
import json
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])


def cells_arms(name):
    """The newest matrix called name: its cells (id, name, job) and arms (id, name)."""
    mid = db.execute("SELECT MAX(id) FROM matrices WHERE name = ?", (name,)).fetchone()[0]
    if mid is None:
        return [], []
    cells = db.execute("SELECT id, name, job FROM cells WHERE matrix_id = ? ORDER BY idx",
                       (mid,)).fetchall()
    arms = db.execute("SELECT id, name FROM arms WHERE matrix_id = ? ORDER BY idx",
                      (mid,)).fetchall()
    return cells, arms


def runs(cell_id, arm_id):
    """The cell's done runs of the arm, less the contended ones: a run the host
    held back says nothing of the kernel."""
    return [r[0] for r in db.execute("SELECT id FROM runs WHERE cell_id = ? AND arm_id = ?"
                                     " AND status = 'done' AND contended = 0 ORDER BY seq",
                                     (cell_id, arm_id))]


def pages(run, file_idx):
    row = db.execute("SELECT pages FROM run_files WHERE run_id = ? AND idx = ?",
                     (run, file_idx)).fetchone()
    return row[0] if row else None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else float("nan")


def out(matrix, cell, arm, measure, value):
    print("%s %s %s %s %.4f" % (matrix, cell, arm, measure, value))


def seed_003():
    """The hot file's share resident at each end of a scan pass (event_files)."""
    cells, arms = cells_arms("seed-003")
    for cid, cname, job in cells:
        streams = [s["name"] for s in json.loads(job)["streams"]]
        scan = streams.index("scan")
        for aid, aname in arms:
            shares = []
            for r in runs(cid, aid):
                total = pages(r, 0)
                for (res,) in db.execute(
                        "SELECT f.resident_pages FROM events e JOIN event_files f"
                        " ON f.run_id = e.run_id AND f.idx = e.idx AND f.file = 0"
                        " WHERE e.run_id = ? AND e.kind = 'pass_end' AND e.stream = ?",
                        (r, scan)):
                    shares.append(res / total)
            out("seed-003", cname, aname, "hot_resident_at_pass_ends", mean(shares))


def rate(run, stream, t0_ms, t1_ms):
    """A stream's reads per second over the told intervals ending in (t0, t1]."""
    row = db.execute("SELECT SUM(t.read_ops), COUNT(*) FROM stream_samples t JOIN samples s"
                     " ON s.run_id = t.run_id AND s.seq = t.seq WHERE t.run_id = ?"
                     " AND t.stream = ? AND s.t_ms > ? AND s.t_ms <= ?",
                     (run, stream, t0_ms, t1_ms)).fetchone()
    return row[0] / row[1] if row[1] else None


def faults_per_kread(run, t0_ms, t1_ms):
    """The guest's major faults per 1 000 of vec's reads over the told
    intervals: vec's misses once no other stream runs (the cold read's two
    passes are over by the run's last quarter). Unlike the read rate it does
    not follow TCG's speed."""
    row = db.execute("SELECT SUM(s.pgmajfault), SUM(t.read_ops) FROM stream_samples t JOIN samples s"
                     " ON s.run_id = t.run_id AND s.seq = t.seq WHERE t.run_id = ?"
                     " AND t.stream = 0 AND s.t_ms > ? AND s.t_ms <= ?",
                     (run, t0_ms, t1_ms)).fetchone()
    return 1000.0 * row[0] / row[1] if row[1] else None


def recovered_s(run, cold_ms, end_ms, before):
    """Seconds from the cold read's start to the end of the first 5 s window,
    after vec's rate fell under half of before, back at 0.6 of before; the
    run's length after the cold read when it never is (or never fell)."""
    fell = False
    for t in range(cold_ms + 5000, end_ms + 1, 5000):
        r = rate(run, 0, t - 5000, t)
        if r is None:
            continue
        if not fell:
            fell = r < 0.5 * before
        elif r >= 0.6 * before:
            return (t - cold_ms) / 1000
    return (end_ms - cold_ms) / 1000


def seed_000(name):
    """vec's read rate after the cold file against before it, when it came
    back; the cold file's residency at the end. "Before" is the whole warm
    stretch before the cold read (its last three quarters: the first is fio
    faulting the file in), not the last few seconds of it: under TCG a cached
    run's rate wanders by a third over 5 s with no fault (a classic LRU run
    read 82 k/s at 6 to 16 s and 118 k/s at 17 to 21 s, then recovered to
    69 k/s, 0.59 of the short window and 0.73 of the long one)."""
    cells, arms = cells_arms(name)
    for cid, cname, job in cells:
        j = json.loads(job)
        cold_ms = int(j["streams"][1]["start_s"] * 1000)
        end_ms = int(j["duration_s"] * 1000)
        for aid, aname in arms:
            ratios, cold, back, misses = [], [], [], []
            for r in runs(cid, aid):
                before = rate(r, 0, cold_ms // 4, cold_ms)
                end_from = end_ms - (end_ms - cold_ms) // 4
                after = rate(r, 0, end_from, end_ms)
                misses.append(faults_per_kread(r, end_from, end_ms))
                if before and after is not None:
                    ratios.append(after / before)
                    back.append(recovered_s(r, cold_ms, end_ms, before))
                last = db.execute("SELECT f.resident_pages FROM file_samples f WHERE"
                                  " f.run_id = ? AND f.file = 1 ORDER BY f.seq DESC LIMIT 1",
                                  (r,)).fetchone()
                if last:
                    cold.append(last[0] / pages(r, 1))
            out(name, cname, aname, "vec_rate_end_over_before_cold", mean(ratios))
            out(name, cname, aname, "cold_resident_at_end", mean(cold))
            out(name, cname, aname, "recovered_s_after_cold", mean(back))
            out(name, cname, aname, "vec_faults_per_kread_end", mean(misses))


def seed_002():
    """Requests answered and EAGAINs, over the measured run (op_samples total 1)."""
    cells, arms = cells_arms("seed-002")
    for cid, cname, _ in cells:
        for aid, aname in arms:
            ops = eagain = 0
            for r in runs(cid, aid):
                for o, e in db.execute("SELECT SUM(ops), SUM(eagain) FROM op_samples"
                                       " WHERE run_id = ? AND total = 1", (r,)):
                    ops += o or 0
                    eagain += e or 0
            out("seed-002", cname, aname, "requests", ops)
            out("seed-002", cname, aname, "eagain", eagain)


def seed_002_patch():
    """Per arm of the series: requests per second over the measured spans
    (EAGAIN ones too), its slowest and fastest run, and the mean latency."""
    cells, arms = cells_arms("seed-002-patch")
    for cid, cname, _ in cells:
        for aid, aname in arms:
            rates, ops, ms, lat = [], 0, 0, 0
            for r in runs(cid, aid):
                for o, span, mean_ns in db.execute("SELECT ops, span_ms, lat_mean_ns FROM"
                                                   " op_samples WHERE run_id = ? AND total = 1",
                                                   (r,)):
                    if span:
                        rates.append(o * 1000 / span)
                    ops, ms, lat = ops + o, ms + span, lat + o * mean_ns
            if not rates:
                continue
            out("seed-002-patch", cname, aname, "requests_per_s", ops * 1000 / ms)
            out("seed-002-patch", cname, aname, "requests_per_s_min", min(rates))
            out("seed-002-patch", cname, aname, "requests_per_s_max", max(rates))
            out("seed-002-patch", cname, aname, "latency_mean_ms", lat / ops / 1e6 if ops else 0)


seed_003()
seed_000("seed-000")
seed_000("seed-000-patch")
seed_002()
seed_002_patch()
