/* store_ops.c -- per-operation totals of done runs for the tables: ops/s and
 * p99 by operation (op_samples, total = 1), one prepared query per matrix. */
#include "store/store_ops.h"
#include "store/store_db.h"

#include <math.h>
#include <string.h>

static const char ops_sql[] =
	"SELECT o.run_id, o.op, SUM(o.ops) * 1000.0 / NULLIF(MAX(o.span_ms), 0),"
	" SUM(o.lat_p99_ns * o.ops) / 1000.0 / NULLIF(SUM(o.ops), 0),"
	" SUM(o.lat_mean_ns * o.ops) / 1000.0 / NULLIF(SUM(o.ops), 0),"
	" CASE WHEN SUM(o.ops) > 0 THEN MAX(o.lat_max_ns) / 1000.0 END"
	" FROM op_samples o JOIN runs r ON r.id = o.run_id"
	" WHERE r.matrix_id = ? AND r.status = 'done' AND o.total = 1"
	" GROUP BY o.run_id, o.op ORDER BY o.run_id";

static int op_index(const char *name)
{
	int i;

	for (i = 0; name && proto_op_names[i]; i++)
		if (!strcmp(proto_op_names[i], name))
			return i;
	return -1;
}

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

int store_op_rates(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
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
