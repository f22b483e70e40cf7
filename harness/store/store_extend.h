/* store_extend.h -- a queued matrix grown cell by cell: how many repetitions
 * each cell has planned, and more of them appended as ABBA blocks at once. */
#ifndef STORE_EXTEND_H
#define STORE_EXTEND_H

#include <stdint.h>

#include "store/store.h"

/*
 * Planned repetitions of each of the matrix's n_cells cells (n_arms arms):
 * one past the last rep any of its runs stands for (block and position say
 * which), whatever the runs' status; attempts of one run count once.
 */
int store_cell_reps(struct store *s, int64_t mid, unsigned n_arms, unsigned n_cells,
		    unsigned *ret_reps, char *err);

/*
 * Bring each cell c of matrix mid to at least want[c] repetitions, appending
 * what it lacks after its own runs in ABBA (Williams) order, cells taking
 * turns block by block (abba_order_cells). Reading what each cell has and
 * appending is one transaction: two callers at once never queue a repetition
 * twice. matrices.reps becomes at least matrix_reps; a finished matrix that
 * got runs is active again. ret_added[c] (may be NULL): runs added to cell c.
 */
int store_grow_cells(struct store *s, int64_t mid, unsigned n_arms, unsigned n_cells,
		     const unsigned *want, uint64_t matrix_reps, unsigned *ret_added, char *err);

/*
 * What a submit (POST /matrices) and `harness run FILE` do: queue m in ABBA
 * order (store_add_matrix) or, if a live matrix of its spec is queued
 * already, bring that one's cells up to m->reps (store_grow_cells). *ret_id
 * is the matrix, *ret_runs the runs added, *ret_appended 1 if it was there.
 */
int store_queue_matrix(struct store *s, const struct matrix *m, int64_t *ret_id,
		       size_t *ret_runs, int *ret_appended, char *err);

#endif
