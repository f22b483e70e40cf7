/* store_table.h -- what `harness table` reads beyond the run summaries: each
 * done run's p99 latency and its residency at scan pass ends. */
#ifndef STORE_TABLE_H
#define STORE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * Fill lat_p99_us and pass_resident_share of the summaries v[0..n) of
 * matrix_id's done runs (NAN where a run has none: no stream reported a
 * latency, no pass ended). Sorts v by run id. Returns 0 or -1 with err.
 */
int store_table_extras(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		       char *err);

struct sqlite3_stmt;

/*
 * Run sql with matrix_id bound to its one parameter and give fill each row
 * whose first column is the id of a run in v[0..n) (sorted by run id), with
 * that run's summary; rows of other runs are skipped. what names the query
 * in err. Returns 0 or -1 with err.
 */
int store_table_fill(struct store *s, const char *sql, int64_t matrix_id, struct run_summary *v,
		     size_t n, const char *what,
		     void (*fill)(struct run_summary *r, struct sqlite3_stmt *st), char *err);

/* Column col of the row as a double, NAN where it is NULL. */
double store_col_or_nan(struct sqlite3_stmt *st, int col);

#endif
