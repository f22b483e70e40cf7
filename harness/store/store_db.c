/* store_db.c -- the store's SQL plumbing (store_db.h): prepare, bind by format,
 * step rows to a callback, one transaction helper, growing row arrays. */
#include "store/store_db.h"
#include "base/err.h"
#include "spec/abba.h"
#include "common/fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int db_err(struct store *s, char *err, const char *what)
{
	return errorf(err, "database: %s: %s", what, sqlite3_errmsg(s->db));
}

int db_exec(struct store *s, const char *sql, char *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		errorf(err, "database: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int db_prepare(struct store *s, const char *sql, sqlite3_stmt **ret, char *err)
{
	*ret = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, ret, NULL) != SQLITE_OK)
		return db_err(s, err, "prepare");
	return 0;
}

/* Bind "?" parameters from a format (store_db.h). */
static int bind_args(sqlite3_stmt *st, const char *fmt, va_list ap)
{
	const char *t;
	double d;
	int i, rc = SQLITE_OK;

	for (i = 1; *fmt && rc == SQLITE_OK; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'd':   /* NAN (no value) is NULL */
			d = va_arg(ap, double);
			rc = isnan(d) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, d);
			break;
		case 't':
			t = va_arg(ap, const char *);
			rc = t ? sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i);
			break;
		}
	}
	return rc;
}

/* Prepare sql and bind it from fmt: the statement, or NULL with err. */
static sqlite3_stmt *prepare_bound(struct store *s, const char *sql, char *err,
				   const char *fmt, va_list ap)
{
	sqlite3_stmt *st;

	if (db_prepare(s, sql, &st, err) < 0)
		return NULL;
	if (bind_args(st, fmt, ap) != SQLITE_OK) {
		db_err(s, err, "bind");
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

int db_run(struct store *s, char *err, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	st = prepare_bound(s, sql, err, fmt, ap);
	va_end(ap);
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, err, "write");
}

/* Step st to its end, fn per row; st is finalized. */
static int step_rows(struct store *s, sqlite3_stmt *st, db_row_fn fn, void *arg, char *err)
{
	int rc, r;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((r = fn(st, arg)) < 0) {
			if (r == DB_TOO_LONG)
				errorf(err, "database: a stored text is longer than its field, "
				       "reading '%.60s...'", sqlite3_sql(st));
			else
				errorf(err, "out of memory");
			sqlite3_finalize(st);
			return -1;
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, err, "read");
}

int db_rows(struct store *s, const char *sql, db_row_fn fn, void *arg, char *err,
	    const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	va_start(ap, fmt);
	st = prepare_bound(s, sql, err, fmt, ap);
	va_end(ap);
	return st ? step_rows(s, st, fn, arg, err) : -1;
}

int db_int(sqlite3_stmt *st, void *arg)
{
	*(int64_t *)arg = sqlite3_column_int64(st, 0);
	return 0;
}

int db_state_row(sqlite3_stmt *st, void *arg)
{
	return db_text(st, 0, arg, 16) < 0 ? DB_TOO_LONG : 0;
}

struct found_id {
	int64_t id;
	int found;
};

/* The first row's id; the rest only say there was one. */
static int found_row(sqlite3_stmt *st, void *arg)
{
	struct found_id *f = arg;

	if (!f->found)
		f->id = sqlite3_column_int64(st, 0);
	f->found = 1;
	return 0;
}

int db_id_by_key(struct store *s, const char *sql, const char *key, int64_t *ret_id, char *err)
{
	struct found_id f = { 0, 0 };

	if (db_rows(s, sql, found_row, &f, err, "t", key) < 0)
		return -1;
	if (f.found)
		*ret_id = f.id;
	return f.found ? 0 : 1;
}

int db_text(sqlite3_stmt *st, int col, char *dst, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return fmtbuf(dst, len, "%s", t ? (const char *)t : "");
}

void db_text_cut(sqlite3_stmt *st, int col, char *dst, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	fmtcut(dst, len, "%s", t ? (const char *)t : "");
}

void db_texts(sqlite3_stmt *st, void *row, const struct db_text_col *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		db_text_cut(st, cols[i].col, (char *)row + cols[i].off, cols[i].len);
}

double db_real_or_nan(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

int db_id_cmp(const void *a, const void *b)
{
	int64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return (x > y) - (x < y);
}

struct by_id {
	void *v;
	size_t n, size;
	void (*fill)(void *elem, sqlite3_stmt *st);
};

/* A row handed to fill with the element of its id (column 0), if any. */
static int by_id_row(sqlite3_stmt *st, void *arg)
{
	struct by_id *b = arg;
	int64_t id = sqlite3_column_int64(st, 0);
	void *e = b->n ? bsearch(&id, b->v, b->n, b->size, db_id_cmp) : NULL;

	if (e)
		b->fill(e, st);
	return 0;
}

int db_rows_by_id(struct store *s, const char *sql, int64_t key, void *v, size_t n,
		  size_t size, const char *what, void (*fill)(void *elem, sqlite3_stmt *st),
		  char *err)
{
	struct by_id b = { v, n, size, fill };
	char msg[ERR_MAX];

	if (db_rows(s, sql, by_id_row, &b, msg, "i", key) < 0)
		return errorf(err, "%s (%s)", msg, what);
	return 0;
}

int db_transaction(struct store *s, int (*fn)(struct store *s, void *arg, char *err), void *arg,
		   char *err)
{
	if (db_exec(s, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	if (fn(s, arg, err) < 0 || db_exec(s, "COMMIT", err) < 0) {
		db_exec(s, "ROLLBACK", NULL);
		return -1;
	}
	return 0;
}

/* Bind one slot's ?1..?6 and insert it: SQLITE_DONE, SQLITE_NOTFOUND, or an error code. */
static int insert_run(struct store *s, sqlite3_stmt *st, int64_t mid,
		      const struct abba_slot *slot, int64_t seq)
{
	int rc;

	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_int64(st, 2, slot->arm);
	sqlite3_bind_int64(st, 3, slot->cell);
	sqlite3_bind_int64(st, 4, seq);
	sqlite3_bind_int64(st, 5, slot->block);
	sqlite3_bind_int64(st, 6, slot->position);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE && sqlite3_changes(s->db) != 1)
		rc = SQLITE_NOTFOUND;
	sqlite3_reset(st);
	return rc;
}

int db_insert_runs(struct store *s, int64_t mid, const struct abba_slot *slots, size_t n,
		   int64_t first_seq, char *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = SQLITE_DONE;

	/* the cell's arch is the run's from the start: which hosts may claim it */
	if (db_prepare(s, "INSERT INTO runs (matrix_id, arm_id, cell_id, seq, block,"
		       " position, arch) SELECT ?1, a.id, c.id, ?4, ?5, ?6, NULLIF(c.arch, '')"
		       " FROM arms a, cells c"
		       " WHERE a.matrix_id = ?1 AND a.idx = ?2 AND c.matrix_id = ?1"
		       " AND c.idx = ?3", &st, err) < 0)
		return -1;
	for (i = 0; i < n && rc == SQLITE_DONE; i++)
		rc = insert_run(s, st, mid, &slots[i], first_seq + (int64_t)i);
	sqlite3_finalize(st);
	if (rc == SQLITE_NOTFOUND)
		return errorf(err, "matrix %lld: no arm %u or cell %u to queue runs for",
			      (long long)mid, slots[i - 1].arm, slots[i - 1].cell);
	if (rc != SQLITE_DONE)
		return db_err(s, err, "insert run");
	return db_fail_arm_runs(s, mid, err);
}

int db_fail_arm_runs(struct store *s, int64_t mid, char *err)
{
	return db_run(s, err, "UPDATE runs SET status = 'failed', reason = (SELECT a.failed FROM"
		      " arms a WHERE a.id = runs.arm_id),"
		      " finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')"
		      " WHERE matrix_id = ?1 AND status = 'queued' AND arm_id IN"
		      " (SELECT id FROM arms WHERE matrix_id = ?1 AND failed IS NOT NULL)", "i", mid);
}

void *rows_push(struct rows *r)
{
	size_t cap = r->cap ? r->cap * 2 : 64;
	void *nv;

	if (r->n == r->cap) {
		nv = realloc(r->v, cap * r->size);
		if (!nv)
			return NULL;
		r->v = nv;
		r->cap = cap;
	}
	return memset((char *)r->v + r->n++ * r->size, 0, r->size);
}

int rows_take(struct rows *r, int rc, void *ret, size_t *ret_n)
{
	if (rc < 0) {
		free(r->v);
		r->v = NULL;
		return -1;
	}
	*(void **)ret = r->v;
	*ret_n = r->n;
	return 0;
}
