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
static const char extras_sql[] =
	"SELECT r.id,"
	" (SELECT SUM(t.lat_p99_ns * t.read_ops) / 1000.0 / NULLIF(SUM(t.read_ops), 0)"
	"  FROM stream_samples t JOIN samples s ON s.run_id = t.run_id AND s.seq = t.seq"
	"  WHERE t.run_id = r.id AND s.ramp = 0 AND t.lat_p99_ns > 0),"
	" (SELECT AVG(e.pages) FROM (SELECT SUM(f.resident_pages) AS pages FROM events v"
	"   JOIN event_files f ON f.run_id = v.run_id AND f.idx = v.idx"
	"   WHERE v.run_id = r.id AND v.kind = 'pass_end' GROUP BY v.idx) e)"
	"  / NULLIF((SELECT SUM(pages) FROM run_files WHERE run_id = r.id), 0)"
	" FROM runs r WHERE r.matrix_id = ? AND r.status = 'done' ORDER BY r.id";

static void fill_extras(void *elem, sqlite3_stmt *st)
{
	struct run_summary *r = elem;

	r->lat_p99_us = db_real_or_nan(st, 1);
	r->pass_resident_share = db_real_or_nan(st, 2);
}

int store_table_extras(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		       char *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i].lat_p99_us = v[i].pass_resident_share = NAN;
	if (n)
		qsort(v, n, sizeof(*v), db_id_cmp);
	if (db_rows_by_id(s, extras_sql, matrix_id, v, n, sizeof(*v),
			  "run latency and pass residency", fill_extras, err) < 0)
		return -1;
	return store_op_rates(s, matrix_id, v, n, err);
}
