/* store_counters.c -- the counters table read back per cell and arm: each key's mean
 * change per done run, over the measured intervals or interval by interval. */
#include "store/store_counters.h"
#include "store/store_db.h"

#include <string.h>

/* The done runs of the row's cell and arm (run_summary has a row for each). */
#define ARM_RUNS                                                                          \
	"(SELECT COUNT(*) FROM run_summary a WHERE a.matrix_id = rs.matrix_id"            \
	" AND a.cell = rs.cell AND a.arm = rs.arm)"

static const char totals_sql[] =
	"SELECT rs.cell, rs.arm, " ARM_RUNS ", -1, c.key, SUM(c.value) * 1.0 / " ARM_RUNS
	" FROM counters c JOIN run_summary rs ON rs.run_id = c.run_id"
	" JOIN samples s ON s.run_id = c.run_id AND s.seq = c.seq"
	" WHERE rs.matrix_id = ? AND c.src = ? AND s.ramp = 0"
	" GROUP BY rs.cell, rs.arm, c.key"
	" ORDER BY CASE WHEN c.src = 'stall' THEN CAST(substr(c.key, 4) AS INTEGER) END,"
	" c.key, rs.cell, rs.arm";

static const char intervals_sql[] =
	"SELECT rs.cell, rs.arm, " ARM_RUNS ", c.seq, c.key, SUM(c.value) * 1.0 / " ARM_RUNS
	" FROM counters c JOIN run_summary rs ON rs.run_id = c.run_id"
	" WHERE rs.matrix_id = ? AND c.src = ? AND c.key = ? AND c.seq >= 0"
	" GROUP BY rs.cell, rs.arm, c.seq ORDER BY rs.cell, c.seq, rs.arm";

/* One row of either query (the stall histogram's buckets in the order of their bounds). */
static int mean_row(sqlite3_stmt *st, void *arg)
{
	struct counter_mean *m = rows_push(arg);

	if (!m)
		return -1;
	m->cell = (unsigned)sqlite3_column_int(st, 0);
	m->arm = (unsigned)sqlite3_column_int(st, 1);
	m->runs = (unsigned)sqlite3_column_int(st, 2);
	m->seq = sqlite3_column_int64(st, 3);
	if (db_text(st, 4, m->key, sizeof(m->key)) < 0)
		return DB_TOO_LONG;
	m->mean = sqlite3_column_double(st, 5);
	return 0;
}

int store_counter_means(struct store *s, int64_t mid, const char *src, const char *key,
			struct counter_mean **ret, size_t *ret_n, char *err)
{
	struct rows acc = ROWS(struct counter_mean);
	int rc = key ? db_rows(s, intervals_sql, mean_row, &acc, err, "itt", mid, src, key)
		     : db_rows(s, totals_sql, mean_row, &acc, err, "it", mid, src);

	return rows_take(&acc, rc, ret, ret_n);
}
