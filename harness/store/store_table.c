/* store_table.c -- read-only queries for `harness table`, kept apart from
 * store.c: latency and event residency per run, beside the run summaries. */
#include "store/store_table.h"
#include "store/store_db.h"
#include "store/store_ops.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

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

static const char extras_sql[] =
	"SELECT r.id,"
	" (SELECT SUM(t.lat_p99_ns * t.read_ops) / 1000.0 / NULLIF(SUM(t.read_ops), 0)"
	"  FROM stream_samples t JOIN samples s ON s.run_id = t.run_id AND s.seq = t.seq"
	"  WHERE t.run_id = r.id AND s.ramp = 0 AND t.lat_p99_ns > 0),"
	" (SELECT AVG(e.pages) FROM (SELECT SUM(f.resident_pages) AS pages FROM events v"
	"   JOIN event_files f ON f.run_id = v.run_id AND f.idx = v.idx"
	"   WHERE v.run_id = r.id AND v.kind = 'pass_end' GROUP BY v.idx) e)"
	"  / NULLIF((SELECT SUM(pages) FROM run_files WHERE run_id = r.id), 0),"
	LRU_EXTRAS
	" FROM runs r WHERE r.matrix_id = ? AND r.status = 'done' ORDER BY r.id";

static void fill_extras(void *elem, sqlite3_stmt *st)
{
	struct run_summary *r = elem;

	r->lat_p99_us = db_real_or_nan(st, 1);
	r->pass_resident_share = db_real_or_nan(st, 2);
	r->evict_refault_share = db_real_or_nan(st, 3);
	r->gens_per_min = db_real_or_nan(st, 4);
	r->oldest_age_s = db_real_or_nan(st, 5);
}

int store_table_extras(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		       char *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i].lat_p99_us = v[i].pass_resident_share = v[i].evict_refault_share =
			v[i].gens_per_min = v[i].oldest_age_s = NAN;
	if (n)
		qsort(v, n, sizeof(*v), db_id_cmp);
	if (db_rows_by_id(s, extras_sql, matrix_id, v, n, sizeof(*v),
			  "run latency and pass residency", fill_extras, err) < 0)
		return -1;
	return store_op_rates(s, matrix_id, v, n, err);
}
