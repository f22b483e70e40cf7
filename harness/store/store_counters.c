/* store_counters.c -- the counters table read back per cell and arm: each key's mean
 * change per done run, over the measured intervals or interval by interval. Sums are
 * TOTAL's floating point: no run's values can make SUM's integer overflow fail a read. */
#include "store/store_counters.h"
#include "store/store_db.h"

#include <string.h>

/* The done runs of the row's cell and arm (run_summary has a row for each). */
#define ARM_RUNS                                                                          \
	"(SELECT COUNT(*) FROM run_summary a WHERE a.matrix_id = rs.matrix_id"            \
	" AND a.cell = rs.cell AND a.arm = rs.arm)"

static const char totals_sql[] =
	"SELECT rs.cell, rs.arm, " ARM_RUNS ", -1, c.key, TOTAL(c.value) / " ARM_RUNS
	" FROM counters c JOIN run_summary rs ON rs.run_id = c.run_id"
	" JOIN samples s ON s.run_id = c.run_id AND s.seq = c.seq"
	" WHERE rs.matrix_id = ? AND c.src = ? AND s.ramp = 0"
	" GROUP BY rs.cell, rs.arm, c.key"
	" ORDER BY rs.cell, CASE WHEN c.src = 'stall' THEN CAST(substr(c.key, 4) AS INTEGER) END,"
	" c.key, rs.arm";

static const char intervals_sql[] =
	"SELECT rs.cell, rs.arm, " ARM_RUNS ", c.seq, c.key, TOTAL(c.value) / " ARM_RUNS
	" FROM counters c JOIN run_summary rs ON rs.run_id = c.run_id"
	" WHERE rs.matrix_id = ? AND c.src = ? AND c.key = ? AND c.seq >= 0"
	" GROUP BY rs.cell, rs.arm, c.seq ORDER BY rs.cell, c.seq, rs.arm";

struct each_arg {
	counter_mean_fn fn;
	void *arg;
};

/* One row of either query to the caller's function (the stall histogram's buckets in
 * the order of their bounds). */
static int mean_row(sqlite3_stmt *st, void *arg)
{
	const struct each_arg *a = arg;
	struct counter_mean m;

	m.cell = (unsigned)sqlite3_column_int(st, 0);
	m.arm = (unsigned)sqlite3_column_int(st, 1);
	m.runs = (unsigned)sqlite3_column_int(st, 2);
	m.seq = sqlite3_column_int64(st, 3);
	if (db_text(st, 4, m.key, sizeof(m.key)) < 0)
		return DB_TOO_LONG;
	m.mean = sqlite3_column_double(st, 5);
	return a->fn(a->arg, &m);
}

int store_counter_each(struct store *s, int64_t mid, const char *src, const char *key,
		       counter_mean_fn fn, void *arg, char *err)
{
	struct each_arg a = { fn, arg };

	return key ? db_rows(s, intervals_sql, mean_row, &a, err, "itt", mid, src, key)
		   : db_rows(s, totals_sql, mean_row, &a, err, "it", mid, src);
}
