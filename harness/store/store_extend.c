/* store_extend.c -- more repetitions for some cells of a queued matrix: read
 * what each cell has and append the rest as ABBA blocks in one transaction. */
#include "store/store_extend.h"
#include "spec/abba.h"
#include "base/err.h"
#include "spec/spec.h"
#include "store/store_db.h"

#include <string.h>

struct cell_reps {
	unsigned *reps, n_cells;
};

/* A cell's reps so far (its done blocks), at the cell's index. */
static int reps_row(sqlite3_stmt *st, void *arg)
{
	struct cell_reps *r = arg;
	int c = sqlite3_column_int(st, 0);

	if (c >= 0 && (unsigned)c < r->n_cells)
		r->reps[c] = (unsigned)sqlite3_column_int64(st, 1);
	return 0;
}

int store_cell_reps(struct store *s, int64_t mid, unsigned n_arms, unsigned n_cells,
		    unsigned *ret_reps, char *err)
{
	struct cell_reps r = { ret_reps, n_cells };

	memset(ret_reps, 0, n_cells * sizeof(*ret_reps));
	if (!n_arms)
		return errorf(err, "matrix %lld: no arms", (long long)mid);
	return db_rows(s, "SELECT c.idx, MAX(r.block * ?2 + r.position / ?3) + 1"
		       " FROM runs r JOIN cells c ON c.id = r.cell_id WHERE r.matrix_id = ?1"
		       " GROUP BY c.idx", reps_row, &r, err, "iii", mid,
		       (int64_t)abba_block_reps(n_arms), (int64_t)n_arms);
}

struct grow {
	int64_t mid;
	unsigned n_arms, n_cells;
	const unsigned *want;
	uint64_t matrix_reps;
	unsigned have[SPEC_MAX_CELLS], end[SPEC_MAX_CELLS];
};

/* Inside the transaction: what each cell has, then the blocks it lacks. */
static int grow_rows(struct store *s, void *p, char *err)
{
	_cleanup_free_ struct abba_slot *slots = NULL;
	struct grow *g = p;
	int64_t next = 0;
	size_t total = 0, n;
	unsigned c;

	if (store_cell_reps(s, g->mid, g->n_arms, g->n_cells, g->have, err) < 0)
		return -1;
	for (c = 0; c < g->n_cells; c++) {
		g->end[c] = g->want[c] > g->have[c] ? g->want[c] : g->have[c];
		total += (size_t)(g->end[c] - g->have[c]) * g->n_arms;
	}
	if (db_run(s, err, "UPDATE matrices SET reps = MAX(reps, ?2) WHERE id = ?1", "ii", g->mid,
		   (int64_t)g->matrix_reps) < 0)
		return -1;
	if (total == 0)
		return 0;
	slots = calloc(total, sizeof(*slots));
	if (!slots)
		return errorf(err, "out of memory");
	n = abba_order_cells(g->n_arms, g->n_cells, g->have, g->end, slots);
	if (db_rows(s, "SELECT COALESCE(MAX(seq) + 1, 0) FROM runs WHERE matrix_id = ?1", db_int,
		    &next, err, "i", g->mid) < 0 ||
	    db_insert_runs(s, g->mid, slots, n, next, err) < 0)
		return -1;
	return db_run(s, err, "UPDATE matrices SET state = 'active' WHERE id = ?1 AND state = 'finished'",
		      "i", g->mid);
}

int store_grow_cells(struct store *s, int64_t mid, unsigned n_arms, unsigned n_cells,
		     const unsigned *want, uint64_t matrix_reps, unsigned *ret_added, char *err)
{
	struct grow g = { .mid = mid, .n_arms = n_arms, .n_cells = n_cells, .want = want,
			  .matrix_reps = matrix_reps };
	unsigned c;

	if (n_cells > SPEC_MAX_CELLS)
		return errorf(err, "matrix %lld: more than %d cells", (long long)mid, SPEC_MAX_CELLS);
	if (db_transaction(s, grow_rows, &g, err) < 0)
		return -1;
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
