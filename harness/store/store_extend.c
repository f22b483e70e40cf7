/* store_extend.c -- more repetitions for some cells of a queued matrix: read
 * what each cell has and append the rest as ABBA blocks in one transaction. */
#include "store/store_extend.h"
#include "spec/abba.h"
#include "base/err.h"
#include "spec/spec.h"

#include <string.h>

#include <sqlite3.h>

static int db_fail(sqlite3 *db, char *err, const char *what)
{
	return errorf(err, "database: %s: %s", what, sqlite3_errmsg(db));
}

int store_cell_reps(struct store *s, int64_t mid, unsigned n_arms, unsigned n_cells,
		    unsigned *ret_reps, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;
	int rc, c;

	memset(ret_reps, 0, n_cells * sizeof(*ret_reps));
	if (!n_arms)
		return errorf(err, "matrix %lld: no arms", (long long)mid);
	if (sqlite3_prepare_v2(db, "SELECT c.idx, MAX(r.block * ?2 + r.position / ?3) + 1"
			       " FROM runs r JOIN cells c ON c.id = r.cell_id WHERE r.matrix_id = ?1"
			       " GROUP BY c.idx", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, err, "prepare");
	sqlite3_bind_int64(st, 1, mid);
	sqlite3_bind_int64(st, 2, abba_block_reps(n_arms));
	sqlite3_bind_int64(st, 3, n_arms);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c = sqlite3_column_int(st, 0);
		if (c >= 0 && (unsigned)c < n_cells)
			ret_reps[c] = (unsigned)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(db, err, "read");
}

/* Insert slots as runs of mid from seq first_seq on. */
static int insert_runs(sqlite3 *db, int64_t mid, const struct abba_slot *slots, size_t n,
		       int64_t first_seq, char *err)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(db, "INSERT INTO runs (matrix_id, arm_id, cell_id, seq, block,"
			       " position) SELECT ?1, a.id, c.id, ?4, ?5, ?6 FROM arms a, cells c"
			       " WHERE a.matrix_id = ?1 AND a.idx = ?2 AND c.matrix_id = ?1"
			       " AND c.idx = ?3", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, err, "prepare");
	for (i = 0; i < n && rc == SQLITE_DONE; i++) {
		sqlite3_bind_int64(st, 1, mid);
		sqlite3_bind_int64(st, 2, slots[i].arm);
		sqlite3_bind_int64(st, 3, slots[i].cell);
		sqlite3_bind_int64(st, 4, first_seq + (int64_t)i);
		sqlite3_bind_int64(st, 5, slots[i].block);
		sqlite3_bind_int64(st, 6, slots[i].position);
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE && sqlite3_changes(db) != 1)
			rc = SQLITE_NOTFOUND;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOTFOUND)
		return errorf(err, "matrix %lld: no arm %u or cell %u to queue runs for",
			      (long long)mid, slots[i - 1].arm, slots[i - 1].cell);
	return rc == SQLITE_DONE ? 0 : db_fail(db, err, "insert run");
}

/* One statement with ?1 = a, ?2 = b and no rows; ret_int gets column 0 if it has one. */
static int step_ii(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t *ret_int,
		   char *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, err, "prepare");
	sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, b);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && ret_int)
		*ret_int = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : db_fail(db, err, "write");
}

struct grow {
	int64_t mid;
	unsigned n_arms, n_cells;
	const unsigned *want;
	uint64_t matrix_reps;
	unsigned have[SPEC_MAX_CELLS], end[SPEC_MAX_CELLS];
};

static int grow_rows(struct store *s, struct grow *g, size_t *ret_n, char *err)
{
	_cleanup_free_ struct abba_slot *slots = NULL;
	sqlite3 *db = store_db(s);
	int64_t next = 0;
	size_t total = 0, n;
	unsigned c;

	if (store_cell_reps(s, g->mid, g->n_arms, g->n_cells, g->have, err) < 0)
		return -1;
	for (c = 0; c < g->n_cells; c++) {
		g->end[c] = g->want[c] > g->have[c] ? g->want[c] : g->have[c];
		total += (size_t)(g->end[c] - g->have[c]) * g->n_arms;
	}
	*ret_n = 0;
	if (step_ii(db, "UPDATE matrices SET reps = MAX(reps, ?2) WHERE id = ?1", g->mid,
		    (int64_t)g->matrix_reps, NULL, err) < 0)
		return -1;
	if (total == 0)
		return 0;
	slots = calloc(total, sizeof(*slots));
	if (!slots)
		return errorf(err, "out of memory");
	n = abba_order_cells(g->n_arms, g->n_cells, g->have, g->end, slots);
	if (step_ii(db, "SELECT COALESCE(MAX(seq) + 1, 0) FROM runs WHERE matrix_id = ?1", g->mid,
		    0, &next, err) < 0 ||
	    insert_runs(db, g->mid, slots, n, next, err) < 0 ||
	    step_ii(db, "UPDATE matrices SET state = 'active' WHERE id = ?1 AND state = 'finished'",
		    g->mid, 0, NULL, err) < 0)
		return -1;
	*ret_n = n;
	return 0;
}

int store_grow_cells(struct store *s, int64_t mid, unsigned n_arms, unsigned n_cells,
		     const unsigned *want, uint64_t matrix_reps, unsigned *ret_added, char *err)
{
	struct grow g = { .mid = mid, .n_arms = n_arms, .n_cells = n_cells, .want = want,
			  .matrix_reps = matrix_reps };
	sqlite3 *db = store_db(s);
	size_t n = 0;
	unsigned c;

	if (n_cells > SPEC_MAX_CELLS)
		return errorf(err, "matrix %lld: more than %d cells", (long long)mid, SPEC_MAX_CELLS);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, err, "begin");
	if (grow_rows(s, &g, &n, err) < 0) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, err, "commit");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	for (c = 0; ret_added && c < n_cells; c++)
		ret_added[c] = (g.end[c] - g.have[c]) * n_arms;
	return 0;
}

int store_queue_matrix(struct store *s, const struct matrix *m, int64_t *ret_id,
		       size_t *ret_runs, int *ret_appended, char *err)
{
	_cleanup_free_ struct abba_slot *slots = calloc(spec_run_count(m), sizeof(*slots));
	unsigned want[SPEC_MAX_CELLS], added[SPEC_MAX_CELLS], c;
	size_t n;
	int fresh;

	if (!slots)
		return errorf(err, "out of memory");
	n = abba_order(m->n_arms, m->n_cells, (unsigned)m->reps, slots);
	if (store_add_matrix(s, m, slots, n, ret_id, &fresh, err) < 0)
		return -1;
	*ret_appended = !fresh;
	*ret_runs = n;
	if (fresh)
		return 0;
	for (c = 0; c < m->n_cells; c++)
		want[c] = (unsigned)m->reps;
	if (store_grow_cells(s, *ret_id, m->n_arms, m->n_cells, want, m->reps, added, err) < 0)
		return -1;
	for (*ret_runs = 0, c = 0; c < m->n_cells; c++)
		*ret_runs += added[c];
	return 0;
}
