/* store_phases.c -- the run_phases table: a run's phase ends written in one
 * transaction as it ends, and a matrix's read back for harness phases. */
#include "store/store_phases.h"
#include "store/store_db.h"

#include <string.h>

struct phases_arg {
	int64_t run;
	const char *const *names;
	const int64_t *at;
	size_t n;
};

/* Each phase the run reached (at[i] not 0: its ms), one row each. */
static int write_phases(struct store *s, void *p, char *err)
{
	struct phases_arg *a = p;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->at[i] && db_run(s, err, "INSERT OR REPLACE INTO run_phases VALUES (?,?,?)",
				       "iti", a->run, a->names[i], a->at[i]) < 0)
			return -1;
	return 0;
}

int store_run_phases(struct store *s, int64_t run, const char *const *names,
		     const int64_t *at, size_t n, char *err)
{
	struct phases_arg a = { run, names, at, n };

	return db_transaction(s, write_phases, &a, err);
}

struct rows_arg {
	int (*fn)(const struct phase_row *row, void *arg);
	void *arg;
};

/* A run's phase row as a struct phase_row, handed to the caller's fn. */
static int phase_row(sqlite3_stmt *st, void *p)
{
	struct rows_arg *a = p;
	struct phase_row row;

	memset(&row, 0, sizeof(row));
	row.run = sqlite3_column_int64(st, 0);
	row.slot = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
	if (db_text(st, 2, row.status, sizeof(row.status)) < 0 ||
	    db_text(st, 3, row.phase, sizeof(row.phase)) < 0 ||
	    db_text(st, 5, row.start, sizeof(row.start)) < 0)
		return DB_TOO_LONG;
	row.at_ms = sqlite3_column_int64(st, 4);
	row.save_bytes = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 :
			 sqlite3_column_int64(st, 6);
	return a->fn(&row, a->arg);
}

int store_matrix_phases(struct store *s, int64_t mid,
			int (*fn)(const struct phase_row *row, void *arg), void *arg, char *err)
{
	struct rows_arg a = { fn, arg };

	return db_rows(s, "SELECT r.id, r.slot, r.status, p.phase, p.at_ms, r.start, r.save_bytes"
		       " FROM runs r"
		       " JOIN run_phases p ON p.run_id = r.id WHERE r.matrix_id = ?"
		       " ORDER BY r.id", phase_row, &a, err, "i", mid);
}
