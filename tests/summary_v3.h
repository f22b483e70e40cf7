/* summary_v3.h -- the run_summary view of schema 3, computed from the samples
 * on every read: the reference the precomputed summaries of schema 4 must equal. */
#ifndef SUMMARY_V3_H
#define SUMMARY_V3_H

/* A temporary view run_summary_v3 with the columns of the table run_summary. */
static const char summary_v3_view[] =
	"CREATE TEMP VIEW IF NOT EXISTS run_summary_v3 AS"
	" WITH w AS (SELECT run_id,"
	"   COALESCE(MAX(CASE WHEN ramp THEN t_ms END), 0) AS ramp_ms, MAX(t_ms) AS end_ms,"
	"   MAX(seq) AS last_seq,"
	"   SUM(CASE WHEN ramp THEN 0 ELSE workingset_refault_file END) AS refaults,"
	"   SUM(CASE WHEN ramp THEN 0 ELSE pgmajfault END) AS majflt,"
	"   SUM(CASE WHEN ramp THEN 0 ELSE workingset_activate_file END) AS activ"
	"   FROM samples GROUP BY run_id),"
	" o AS (SELECT t.run_id, SUM(t.read_ops + t.write_ops) AS ops, SUM(t.read_ops) AS reads,"
	"   SUM(t.misses) AS misses"
	"   FROM stream_samples t JOIN samples s ON s.run_id = t.run_id AND s.seq = t.seq"
	"   WHERE s.ramp = 0 GROUP BY t.run_id),"
	" p AS (SELECT run_id, SUM(pages) AS pages FROM run_files GROUP BY run_id)"
	" SELECT r.id AS run_id, r.matrix_id, a.idx AS arm, c.idx AS cell, r.block, r.position,"
	"  (w.end_ms - w.ramp_ms) / 1000.0 AS seconds,"
	"  o.ops * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0) AS ops_per_s,"
	"  w.refaults * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0) AS refault_per_s,"
	"  w.majflt * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0) AS majflt_per_s,"
	"  w.activ * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0) AS activate_per_s,"
	"  w.refaults * 1.0 / NULLIF(o.reads, 0) AS refaults_per_read,"
	"  o.misses * 1.0 / NULLIF(o.reads, 0) AS miss_share,"
	"  (SELECT SUM(f.resident_pages) FROM file_samples f"
	"   WHERE f.run_id = r.id AND f.seq = w.last_seq) * 1.0 / NULLIF(p.pages, 0) AS resident_share"
	" FROM runs r JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
	"  JOIN w ON w.run_id = r.id LEFT JOIN o ON o.run_id = r.id LEFT JOIN p ON p.run_id = r.id"
	" WHERE r.status = 'done';";

#endif
