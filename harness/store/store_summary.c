/* store_summary.c -- the one place a struct run_summary is filled: each done
 * run's stored figures and, on request, its per-operation and table extras. */
#include "store/store.h"
#include "store/store_db.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* db_rows_by_id finds a summary by the id it begins with. */
_Static_assert(offsetof(struct run_summary, run) == 0, "run_summary starts with its run id");

/*
 * Per done run: the read-weighted mean of its measured intervals' p99 latency
 * (streams that report one), and the declared files' residency at each
 * pass_end event as a share of their pages, averaged over the events.
 */
/*
 * The multi-gen LRU over the measured intervals: the file pages refaulted
 * per file page evicted in the generations lru_gen_full gave tiers for (each
 * generation's counters grow while it is the oldest and are reset when it
 * stops being so: the largest value seen is what it did), new generations
 * (max_seq's growth) per minute, and the oldest generation's age (the
 * largest of an interval's, mean over the intervals). NULL without MGLRU.
 */
#define LRU_EXTRAS                                                                          \
	" (SELECT 1.0 * SUM(fr) / NULLIF(SUM(fe), 0) FROM (SELECT MAX(fr) AS fr, MAX(fe) AS fe"     \
	"   FROM (SELECT t.seq, t.gen, SUM(t.file_refaulted) AS fr, SUM(t.file_evicted) AS fe"   \
	"    FROM lru_tiers t JOIN samples s ON s.run_id = t.run_id AND s.seq = t.seq"           \
	"    WHERE t.run_id = r.id AND s.ramp = 0 AND t.file_evicted IS NOT NULL"                \
	"    GROUP BY t.seq, t.gen) GROUP BY gen)),"                                              \
	" (SELECT (MAX(lru_gen_max_seq) - MIN(lru_gen_max_seq)) * 60000.0"                       \
	"   / NULLIF(MAX(t_ms) - MIN(t_ms), 0) FROM samples"                                    \
	"   WHERE run_id = r.id AND ramp = 0 AND lru_gen_valid = 1),"                           \
	" (SELECT AVG(a) / 1000.0 FROM (SELECT MAX(g.age_ms) AS a FROM lru_gens g"              \
	"   JOIN samples s ON s.run_id = g.run_id AND s.seq = g.seq"                             \
	"   WHERE g.run_id = r.id AND s.ramp = 0 GROUP BY g.seq))"

/*
 * A sample column summed over the measured intervals, times factor, per
 * second of them (run_summary.seconds). Swap: pswpin, pswpout, zswpin and
 * workingset_refault_anon per second (NULL before schema 19); the monitors:
 * the memcg's memory pressure stalls (some, full) and kswapd's CPU time as a
 * share of the time, % (NULL before schema 21).
 */
#define PER_SECOND(col, factor)                                                             \
	" (SELECT SUM(s." col " * 1.0) * " factor " / NULLIF((SELECT seconds FROM run_summary"          \
	"   WHERE run_id = r.id), 0) FROM samples s WHERE s.run_id = r.id AND s.ramp = 0),"
#define SWAP_EXTRAS PER_SECOND("pswpin", "1") PER_SECOND("pswpout", "1")                      \
	PER_SECOND("zswpin", "1") PER_SECOND("workingset_refault_anon", "1")
#define MONITOR_EXTRAS PER_SECOND("memcg_psi_some_us", "1e-4")                               \
	PER_SECOND("memcg_psi_full_us", "1e-4") PER_SECOND("kswapd_ms", "0.1")

/*
 * Reclaim stalls over the measured intervals (schema 22), where the run's
 * stall tracing was on: how many ended per second, and the least bucket
 * bound of the stall histogram (counters, src 'stall', keys le_<N>us) below
 * which 99 % of them fall.
 */
#define STALL_EXTRAS                                                                        \
	" (SELECT CASE WHEN r.stalls LIKE 'on:%' THEN SUM(s.reclaim_stalls * 1.0)"             \
	"   / NULLIF((SELECT seconds FROM run_summary WHERE run_id = r.id), 0) END"            \
	"   FROM samples s WHERE s.run_id = r.id AND s.ramp = 0),"                             \
	" (SELECT MIN(b) FROM (SELECT b, SUM(n) OVER (ORDER BY b) AS cum, SUM(n) OVER () AS tot" \
	"   FROM (SELECT CAST(substr(c.key, 4) AS INTEGER) AS b, TOTAL(c.value) AS n"             \
	"    FROM counters c JOIN samples s ON s.run_id = c.run_id AND s.seq = c.seq"           \
	"    WHERE c.run_id = r.id AND c.src = 'stall' AND c.key LIKE 'le!_%' ESCAPE '!'"       \
	"    AND s.ramp = 0 GROUP BY b)) WHERE tot > 0 AND cum >= 0.99 * tot),"

static const char extras_sql[] =
	"SELECT r.id,"
	" (SELECT SUM(t.lat_p99_ns * 1.0 * t.read_ops) / 1000.0 / NULLIF(SUM(t.read_ops * 1.0), 0)"
	"  FROM stream_samples t JOIN samples s ON s.run_id = t.run_id AND s.seq = t.seq"
	"  WHERE t.run_id = r.id AND s.ramp = 0 AND t.lat_p99_ns > 0),"
	" (SELECT AVG(e.pages) FROM (SELECT SUM(f.resident_pages) AS pages FROM events v"
	"   JOIN event_files f ON f.run_id = v.run_id AND f.idx = v.idx"
	"   WHERE v.run_id = r.id AND v.kind = 'pass_end' GROUP BY v.idx) e)"
	"  / NULLIF((SELECT SUM(pages) FROM run_files WHERE run_id = r.id), 0),"
	SWAP_EXTRAS
	MONITOR_EXTRAS
	STALL_EXTRAS
	LRU_EXTRAS
	" FROM runs r WHERE r.matrix_id = ? AND r.status = 'done' ORDER BY r.id";

/* A run's table extras from extras_sql's row (NAN where it has none). */
static void fill_extras(void *elem, sqlite3_stmt *st)
{
	struct run_summary *r = elem;

	r->lat_p99_us = db_real_or_nan(st, 1);
	r->pass_resident_share = db_real_or_nan(st, 2);
	r->swapin_per_s = db_real_or_nan(st, 3);
	r->swapout_per_s = db_real_or_nan(st, 4);
	r->zswpin_per_s = db_real_or_nan(st, 5);
	r->anon_refault_per_s = db_real_or_nan(st, 6);
	r->psi_some_pct = db_real_or_nan(st, 7);
	r->psi_full_pct = db_real_or_nan(st, 8);
	r->kswapd_pct = db_real_or_nan(st, 9);
	r->stalls_per_s = db_real_or_nan(st, 10);
	r->stall_p99_us = db_real_or_nan(st, 11);
	r->evict_refault_share = db_real_or_nan(st, 12);
	r->gens_per_min = db_real_or_nan(st, 13);
	r->oldest_age_s = db_real_or_nan(st, 14);
}

/* The table's extras of v[0..n), sorted by run id (NAN where a run has none). */
static int table_extras(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
			char *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i].lat_p99_us = v[i].pass_resident_share = v[i].evict_refault_share =
			v[i].gens_per_min = v[i].oldest_age_s = v[i].swapin_per_s =
			v[i].swapout_per_s = v[i].zswpin_per_s = v[i].anon_refault_per_s =
			v[i].psi_some_pct = v[i].psi_full_pct = v[i].kswapd_pct =
			v[i].stalls_per_s = v[i].stall_p99_us = NAN;
	return db_rows_by_id(s, extras_sql, matrix_id, v, n, sizeof(*v),
			     "run latency and pass residency", fill_extras, err);
}

static const char ops_sql[] =
	"SELECT o.run_id, o.op, SUM(o.ops * 1.0) * 1000.0 / NULLIF(MAX(o.span_ms), 0),"
	" SUM(o.lat_p99_ns * 1.0 * o.ops) / 1000.0 / NULLIF(SUM(o.ops * 1.0), 0),"
	" SUM(o.lat_mean_ns * 1.0 * o.ops) / 1000.0 / NULLIF(SUM(o.ops * 1.0), 0),"
	" CASE WHEN SUM(o.ops * 1.0) > 0 THEN MAX(o.lat_max_ns) / 1000.0 END"
	" FROM op_samples o JOIN runs r ON r.id = o.run_id"
	" WHERE r.matrix_id = ? AND r.status = 'done' AND o.total = 1"
	" GROUP BY o.run_id, o.op ORDER BY o.run_id";

/* The index of an operation's name in proto_op_names, or -1. */
static int op_index(const char *name)
{
	int i;

	for (i = 0; name && proto_op_names[i]; i++)
		if (!strcmp(proto_op_names[i], name))
			return i;
	return -1;
}

/* One operation's rate and latencies of a run, from ops_sql's row. */
static void fill_op(void *elem, sqlite3_stmt *st)
{
	struct run_summary *r = elem;
	int op = op_index((const char *)sqlite3_column_text(st, 1));

	if (op < 0)
		return;
	r->op_per_s[op] = db_real_or_nan(st, 2);
	r->op_p99_us[op] = db_real_or_nan(st, 3);
	r->op_mean_us[op] = db_real_or_nan(st, 4);
	r->op_max_us[op] = db_real_or_nan(st, 5);
}

/* Per-operation figures of v[0..n), sorted by run id (NAN where a run has none). */
static int op_rates(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		    char *err)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < OP_COUNT; k++)
			v[i].op_per_s[k] = v[i].op_p99_us[k] = v[i].op_mean_us[k] =
				v[i].op_max_us[k] = NAN;
	return db_rows_by_id(s, ops_sql, matrix_id, v, n, sizeof(*v), "per-operation totals", fill_op,
			     err);
}

/*
 * One stored summary row as a struct run_summary. A figure stored NULL
 * (summary_figures had no value: no stream told a rate, no reads) reads as
 * NAN, which tables show as "-" and compare leaves out; read as 0 it was a
 * measured zero, and two of them a SAME.
 */
static int summary_row(sqlite3_stmt *st, void *arg)
{
	struct run_summary *r = rows_push(arg);

	if (!r)
		return -1;
	r->run = sqlite3_column_int64(st, 0);
	r->arm = (unsigned)sqlite3_column_int(st, 1);
	r->cell = (unsigned)sqlite3_column_int(st, 2);
	r->block = (unsigned)sqlite3_column_int(st, 3);
	r->position = (unsigned)sqlite3_column_int(st, 4);
	r->seconds = sqlite3_column_double(st, 5);
	r->ops_per_s = db_real_or_nan(st, 6);
	r->refault_per_s = db_real_or_nan(st, 7);
	r->majflt_per_s = db_real_or_nan(st, 8);
	r->activate_per_s = db_real_or_nan(st, 9);
	r->refaults_per_read = db_real_or_nan(st, 10);
	r->miss_share = db_real_or_nan(st, 11);
	r->resident_share = db_real_or_nan(st, 12);
	if (db_text(st, 13, r->host, sizeof(r->host)) < 0)
		return DB_TOO_LONG;
	r->contended = sqlite3_column_int(st, 14) != 0;
	return 0;
}

static const char summaries_sql[] =
	"SELECT s.run_id, s.arm, s.cell, s.block, s.position,"
	" s.seconds, s.ops_per_s, s.refault_per_s, s.majflt_per_s,"
	" s.activate_per_s, s.refaults_per_read, s.miss_share,"
	" s.resident_share, r.host, COALESCE(r.contended, 0)"
	" FROM run_summary s JOIN runs r"
	" ON r.id = s.run_id WHERE s.matrix_id = ? ORDER BY s.run_id";

int store_summaries(struct store *s, int64_t matrix_id, unsigned with, struct run_summary **ret,
		    size_t *ret_n, char *err)
{
	struct rows acc = ROWS(struct run_summary);

	if (rows_take(&acc, db_rows(s, summaries_sql, summary_row, &acc, err, "i", matrix_id),
		      ret, ret_n) < 0)
		return -1;
	if (((with & SUMMARY_TABLE) && table_extras(s, matrix_id, *ret, *ret_n, err) < 0) ||
	    ((with & (SUMMARY_OPS | SUMMARY_TABLE)) &&
	     op_rates(s, matrix_id, *ret, *ret_n, err) < 0)) {
		free(*ret);
		*ret = NULL;
		return -1;
	}
	return 0;
}
