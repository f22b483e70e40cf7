/* store_table.c -- read-only queries for `harness table`, kept apart from
 * store.c: latency and event residency per run, beside the run summaries. */
#include "store/store_table.h"
#include "base/err.h"
#include "store/store_ops.h"

#include <math.h>
#include <stdlib.h>

#include <sqlite3.h>

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

static int by_run(const void *a, const void *b)
{
	const struct run_summary *x = a, *y = b;

	return (x->run > y->run) - (x->run < y->run);
}

double store_col_or_nan(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

int store_table_fill(struct store *s, const char *sql, int64_t matrix_id, struct run_summary *v,
		     size_t n, const char *what,
		     void (*fill)(struct run_summary *r, sqlite3_stmt *st), char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;
	struct run_summary key, *r;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return errorf(err, "database: prepare %s: %s", what, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, matrix_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		key.run = sqlite3_column_int64(st, 0);
		r = n ? bsearch(&key, v, n, sizeof(*v), by_run) : NULL;
		if (r)
			fill(r, st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return errorf(err, "database: read %s: %s", what, sqlite3_errmsg(db));
	return 0;
}

static void fill_extras(struct run_summary *r, sqlite3_stmt *st)
{
	r->lat_p99_us = store_col_or_nan(st, 1);
	r->pass_resident_share = store_col_or_nan(st, 2);
}

int store_table_extras(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		       char *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i].lat_p99_us = v[i].pass_resident_share = NAN;
	if (n)
		qsort(v, n, sizeof(*v), by_run);
	if (store_table_fill(s, extras_sql, matrix_id, v, n, "run latency and pass residency",
			     fill_extras, err) < 0)
		return -1;
	return store_op_rates(s, matrix_id, v, n, err);
}
