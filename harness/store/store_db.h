/* store_db.h -- PRIVATE to harness/store/: the connection behind struct store
 * and the one way each store file prepares, binds, steps and commits SQL. */
#ifndef STORE_DB_H
#define STORE_DB_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct abba_slot;

struct store {
	sqlite3 *db;
	sqlite3_stmt *ins_sample, *ins_file_sample, *ins_stream, *ins_op;
	sqlite3_stmt *ins_lru_gen, *ins_lru_tier, *ins_trace, *ins_counter;
};

/*
 * Binding formats, one letter per "?" parameter in order: i = int64_t,
 * t = text (NULL binds NULL), d = double.
 */

/* "database: what: <SQLite's message>" into err; returns -1. */
int db_err(struct store *s, char *err, const char *what);
/* Statements without parameters or rows (schema, pragmas), one after another. */
int db_exec(struct store *s, const char *sql, char *err);
int db_prepare(struct store *s, const char *sql, sqlite3_stmt **ret, char *err);
/* Run one statement bound from fmt that returns no rows. */
int db_run(struct store *s, char *err, const char *sql, const char *fmt, ...);

/*
 * A row of a SELECT: 0, -1 when memory ran out (the read stops, "out of
 * memory"), or DB_TOO_LONG when a text is longer than the field db_text reads
 * it into (the read stops and says so). arg is the caller's.
 */
typedef int (*db_row_fn)(sqlite3_stmt *st, void *arg);
#define DB_TOO_LONG (-2)

/* Prepare sql, bind it from fmt, call fn for each row, finalize. */
int db_rows(struct store *s, const char *sql, db_row_fn fn, void *arg, char *err,
	    const char *fmt, ...);
/* db_row_fn for one integer: column 0 into *(int64_t *)arg. */
int db_int(sqlite3_stmt *st, void *arg);
/* A db_row_fn: the row's first column, text, into arg's char[16] (a state). */
int db_state_row(sqlite3_stmt *st, void *arg);
/* The id the first row of sql (its ?1 bound to key) gives: 0 found, 1 none, -1 error. */
int db_id_by_key(struct store *s, const char *sql, const char *key, int64_t *ret_id, char *err);

/* SQLite's now, as every timestamp of the database is written (UTC, ms). */
#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"
/*
 * Column col as text into dst (len bytes; NULL reads ""): 0, or -1 when it is longer
 * (dst holds what fit; a row function returns DB_TOO_LONG). For what a program reads:
 * names, keys, paths, states.
 */
int db_text(sqlite3_stmt *st, int col, char *dst, size_t len)
	__attribute__((warn_unused_result));
/* Column col as text a person reads into dst: a longer one is cut and ends in "...". */
void db_text_cut(sqlite3_stmt *st, int col, char *dst, size_t len);
/* A text column and the char array of a row struct it is copied into. */
struct db_text_col {
	int col;
	size_t off, len;
};

#define DB_TEXT(col, type, field) \
	{ (col), offsetof(type, field), sizeof(((type *)0)->field) }

/* Each column of cols[0..n) into its field of the struct at row, for a person to read
 * (db_text_cut). */
void db_texts(sqlite3_stmt *st, void *row, const struct db_text_col *cols, size_t n);
/* Column col as a double, NAN where it is NULL. */
double db_real_or_nan(sqlite3_stmt *st, int col);

/*
 * Rows of sql (one int64 parameter, key) whose column 0 is the id of an
 * element of v[0..n) -- size bytes each, sorted by the int64_t id each
 * begins with (db_id_cmp) -- handed to fill with that element; rows of other
 * ids are skipped. what names the read in err.
 */
int db_rows_by_id(struct store *s, const char *sql, int64_t key, void *v, size_t n,
		  size_t size, const char *what, void (*fill)(void *elem, sqlite3_stmt *st),
		  char *err);
/* qsort/bsearch order of elements that begin with an int64_t id. */
int db_id_cmp(const void *a, const void *b);

/*
 * fn's writes inside BEGIN IMMEDIATE ... COMMIT: all of them or, if fn or the
 * commit fails, none (rolled back, the connection usable again).
 */
int db_transaction(struct store *s, int (*fn)(struct store *s, void *arg, char *err), void *arg,
		   char *err);

/*
 * Queue slots as runs of matrix mid, seq numbers from first_seq, by the
 * matrix's arm and cell rows; a slot naming no arm or cell of it fails.
 */
int db_insert_runs(struct store *s, int64_t mid, const struct abba_slot *slots, size_t n,
		   int64_t first_seq, char *err);

/* The queued runs of matrix mid's arms whose build failed: failed, with the arm's reason. */
int db_fail_arm_runs(struct store *s, int64_t mid, char *err);

/* A growing array of rows read from a query. */
struct rows {
	void *v;
	size_t n, cap, size;
};

#define ROWS(type) { .size = sizeof(type) }

/* A new zeroed element at the end, or NULL when memory runs out. */
void *rows_push(struct rows *r);
/* rc 0: hand the rows out; else free them and return -1 (err already says why). */
int rows_take(struct rows *r, int rc, void *ret, size_t *ret_n);

#endif
