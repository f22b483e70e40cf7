/* store_bisect.c -- harness bisect's reads of its steps' matrices: runs, wall
 * time, and one arm's outcome in a cell (did the candidate boot at all). */
#include "store/store_bisect.h"
#include "store/store_db.h"

#include <stdlib.h>
#include <string.h>

/* How many runs of a step's matrix started, and their wall time in seconds. */
static int total_row(sqlite3_stmt *st, void *arg)
{
	struct step_runs *r = arg;

	r->runs = (unsigned)sqlite3_column_int64(st, 0);
	r->wall_s = sqlite3_column_double(st, 1);
	return 0;
}

/*
 * An arm's runs in a cell: done, not done (failed, crashed, timed out,
 * unsupported), and the latest not-done run's reason.
 */
static int arm_row(sqlite3_stmt *st, void *arg)
{
	struct step_runs *r = arg;

	r->done = (unsigned)sqlite3_column_int64(st, 0);
	r->not_done = (unsigned)sqlite3_column_int64(st, 1);
	db_text_cut(st, 2, r->reason, sizeof(r->reason));
	return 0;
}

int store_step_runs(struct store *s, int64_t mid, unsigned arm, const char *cell,
		    struct step_runs *ret, char *err)
{
	memset(ret, 0, sizeof(*ret));
	if (db_rows(s, "SELECT COUNT(*), TOTAL((julianday(finished_at) - julianday(started_at))"
		    " * 86400) FROM runs WHERE matrix_id = ? AND started_at IS NOT NULL",
		    total_row, ret, err, "i", mid) < 0)
		return -1;
	return db_rows(s, "SELECT COUNT(*) FILTER (WHERE r.status = 'done'),"
		       " COUNT(*) FILTER (WHERE r.status IN ('failed','crashed','timeout','unsupported',"
		       "  'oom')),"
		       " (SELECT x.reason FROM runs x WHERE x.arm_id = a.id AND x.cell_id = c.id"
		       "  AND x.status IN ('failed','crashed','timeout','unsupported','oom')"
		       "  ORDER BY x.id DESC LIMIT 1)"
		       " FROM arms a JOIN cells c ON c.matrix_id = a.matrix_id"
		       " LEFT JOIN runs r ON r.arm_id = a.id AND r.cell_id = c.id"
		       " WHERE a.matrix_id = ? AND a.idx = ? AND c.name = ?",
		       arm_row, ret, err, "iit", mid, (int64_t)arm, cell);
}

/* ---- harnessd's bisections ---- */

#define BISECTION_COLUMNS \
	"id, matrix_id, cell, metric, good, bad, max_blocks, max_runs, max_hours, state," \
	" progress, result, result_text, created_at, ended_at"

void store_bisection_free(struct bisection *b)
{
	free(b->result);
	free(b->result_text);
	b->result = b->result_text = NULL;
}

/* Column col as a strdup'd string; NULL for SQL NULL (and out of memory). */
static char *text_or_null(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? strdup((const char *)t) : NULL;
}

/*
 * A bisections row into *b (its JSON texts strdup'd, the previous ones freed);
 * -1 when a text could not be copied.
 */
static int bisection_row(sqlite3_stmt *st, void *arg)
{
	struct bisection *b = arg;

	store_bisection_free(b);
	memset(b, 0, sizeof(*b));
	b->id = sqlite3_column_int64(st, 0);
	b->matrix_id = sqlite3_column_int64(st, 1);
	if (db_text(st, 2, b->cell, sizeof(b->cell)) < 0 ||
	    db_text(st, 3, b->metric, sizeof(b->metric)) < 0 ||
	    db_text(st, 4, b->good, sizeof(b->good)) < 0 ||
	    db_text(st, 5, b->bad, sizeof(b->bad)) < 0 ||
	    db_text(st, 9, b->state, sizeof(b->state)) < 0)
		return DB_TOO_LONG;
	b->max_blocks = (unsigned)sqlite3_column_int64(st, 6);
	b->max_runs = (unsigned)sqlite3_column_int64(st, 7);
	b->max_hours = sqlite3_column_double(st, 8);
	db_text_cut(st, 10, b->progress, sizeof(b->progress));
	b->result = text_or_null(st, 11);
	b->result_text = text_or_null(st, 12);
	db_text_cut(st, 13, b->created_at, sizeof(b->created_at));
	db_text_cut(st, 14, b->ended_at, sizeof(b->ended_at));
	return (sqlite3_column_type(st, 11) != SQLITE_NULL && !b->result) ||
	       (sqlite3_column_type(st, 12) != SQLITE_NULL && !b->result_text) ? -1 : 0;
}

struct add_arg {
	const struct bisection *b;
	unsigned max_open;
	int64_t id, open;
	int existing;
	int full;
};

/*
 * A bisection asked for: the same one not failed is reused (a->existing); a
 * new one is refused when max_open are running (a->full), else inserted.
 */
static int add_tx(struct store *s, void *p, char *err)
{
	struct add_arg *a = p;
	const struct bisection *b = a->b;

	if (db_rows(s, "SELECT id FROM bisections WHERE matrix_id = ? AND cell = ? AND metric = ?"
		    " AND good = ? AND bad = ? AND max_blocks = ? AND max_runs = ? AND max_hours = ?"
		    " AND state != 'failed' ORDER BY id DESC LIMIT 1", db_int, &a->id, err,
		    "ittttiid", b->matrix_id, b->cell, b->metric, b->good, b->bad,
		    (int64_t)b->max_blocks, (int64_t)b->max_runs, b->max_hours) < 0)
		return -1;
	if ((a->existing = a->id != 0))
		return 0;
	if (a->max_open && db_rows(s, "SELECT COUNT(*) FROM bisections WHERE state = 'running'",
				   db_int, &a->open, err, "") < 0)
		return -1;
	if ((a->full = a->max_open && a->open >= a->max_open))
		return 0;
	if (db_run(s, err, "INSERT INTO bisections (matrix_id, cell, metric, good, bad, max_blocks,"
		   " max_runs, max_hours) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "ittttiid",
		   b->matrix_id, b->cell, b->metric, b->good, b->bad, (int64_t)b->max_blocks,
		   (int64_t)b->max_runs, b->max_hours) < 0)
		return -1;
	a->id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int store_bisection_add(struct store *s, const struct bisection *b, unsigned max_open,
			int64_t *ret_id, int *ret_existing, char *err)
{
	struct add_arg a = { .b = b, .max_open = max_open };

	if (db_transaction(s, add_tx, &a, err) < 0)
		return -1;
	if (a.full) {
		errorf(err, "bisections: %lld queued or running, bisections_max in harness.conf is "
		       "%u: expected one to end first", (long long)a.open, max_open);
		return 1;
	}
	*ret_id = a.id;
	*ret_existing = a.existing;
	return 0;
}

int store_bisection_get(struct store *s, int64_t id, struct bisection *b, char *err)
{
	memset(b, 0, sizeof(*b));
	if (db_rows(s, "SELECT " BISECTION_COLUMNS " FROM bisections WHERE id = ?", bisection_row,
		    b, err, "i", id) < 0) {
		store_bisection_free(b);
		return -1;
	}
	return b->id ? 0 : errorf(err, "no bisection %lld", (long long)id);
}

int store_bisection_next(struct store *s, int64_t *ret_id, char *err)
{
	*ret_id = 0;
	return db_rows(s, "SELECT id FROM bisections WHERE state = 'running' ORDER BY id LIMIT 1",
		       db_int, ret_id, err, "");
}

int store_bisection_progress(struct store *s, int64_t id, const char *line, char *err)
{
	return db_run(s, err, "UPDATE bisections SET progress = ? WHERE id = ?", "ti", line, id);
}

int store_bisection_end(struct store *s, int64_t id, const char *state, const char *why,
			const char *result, const char *result_text, char *err)
{
	return db_run(s, err, "UPDATE bisections SET state = ?, progress = COALESCE(?, progress),"
		      " result = ?, result_text = ?,"
		      " ended_at = strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id = ?", "tttti",
		      state, why, result, result_text, id);
}

struct ids {
	int64_t *v;
	size_t n, max;
};

/* One id into a->v, up to a->max (the caller's limit: more rows are ignored). */
static int id_row(sqlite3_stmt *st, void *arg)
{
	struct ids *a = arg;

	if (a->n < a->max)
		a->v[a->n++] = sqlite3_column_int64(st, 0);
	return 0;
}

int store_bisection_ids(struct store *s, int64_t before, size_t limit, int64_t *ids, size_t max,
			size_t *ret_n, char *err)
{
	struct ids a = { ids, 0, max > limit ? max - limit : 0 };
	int rc = db_rows(s, "SELECT id FROM bisections WHERE state = 'running' ORDER BY id DESC"
			 " LIMIT ?", id_row, &a, err, "i", (int64_t)a.max);

	a.max = a.n + limit < max ? a.n + limit : max;
	if (rc == 0)
		rc = db_rows(s, "SELECT id FROM bisections WHERE state != 'running' AND id < ?"
			     " ORDER BY id DESC LIMIT ?", id_row, &a, err, "ii", before,
			     (int64_t)limit);
	*ret_n = a.n;
	return rc;
}
