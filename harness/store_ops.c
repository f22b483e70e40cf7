/* store_ops.c -- per-operation totals of done runs for the tables: ops/s and
 * p99 by operation (op_samples, total = 1), one prepared query per matrix. */
#include "store_ops.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static const char ops_sql[] =
	"SELECT o.run_id, o.op, SUM(o.ops) * 1000.0 / NULLIF(MAX(o.span_ms), 0),"
	" SUM(o.lat_p99_ns * o.ops) / 1000.0 / NULLIF(SUM(o.ops), 0),"
	" SUM(o.lat_mean_ns * o.ops) / 1000.0 / NULLIF(SUM(o.ops), 0),"
	" CASE WHEN SUM(o.ops) > 0 THEN MAX(o.lat_max_ns) / 1000.0 END"
	" FROM op_samples o JOIN runs r ON r.id = o.run_id"
	" WHERE r.matrix_id = ? AND r.status = 'done' AND o.total = 1"
	" GROUP BY o.run_id, o.op ORDER BY o.run_id";

static int by_run(const void *a, const void *b)
{
	const struct run_summary *x = a, *y = b;

	return (x->run > y->run) - (x->run < y->run);
}

static int op_index(const char *name)
{
	int i;

	for (i = 0; name && proto_op_names[i]; i++)
		if (!strcmp(proto_op_names[i], name))
			return i;
	return -1;
}

static double col_or_nan(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

int store_op_rates(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		   char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;
	struct run_summary key, *r;
	size_t i;
	int rc, op, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < OP_COUNT; k++)
			v[i].op_per_s[k] = v[i].op_p99_us[k] = v[i].op_mean_us[k] =
				v[i].op_max_us[k] = NAN;
	if (sqlite3_prepare_v2(db, ops_sql, -1, &st, NULL) != SQLITE_OK)
		return errorf(err, "database: prepare per-operation totals: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, matrix_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		key.run = sqlite3_column_int64(st, 0);
		op = op_index((const char *)sqlite3_column_text(st, 1));
		r = n ? bsearch(&key, v, n, sizeof(*v), by_run) : NULL;
		if (!r || op < 0)
			continue;
		r->op_per_s[op] = col_or_nan(st, 2);
		r->op_p99_us[op] = col_or_nan(st, 3);
		r->op_mean_us[op] = col_or_nan(st, 4);
		r->op_max_us[op] = col_or_nan(st, 5);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return errorf(err, "database: read per-operation totals: %s", sqlite3_errmsg(db));
	return 0;
}
