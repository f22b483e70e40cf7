/* store_bisect.h -- what harness bisect reads of a step's matrix: how many
 * runs it has, their wall time, and whether an arm ran at all in a cell. */
#ifndef STORE_BISECT_H
#define STORE_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "spec/spec.h"
#include "store/store.h"

struct step_runs {
	unsigned runs;          /* every run of the matrix that started, any status */
	double wall_s;          /* their started_at .. finished_at, summed */
	unsigned done;          /* of arm idx arm in the cell: done runs, */
	unsigned not_done;      /* and those that ended otherwise (failed, crashed, timeout) */
	char reason[ERR_MAX];   /* the last of those's reason */
};

/* Matrix mid's runs, and arm arm's (arms.idx) in the cell called cell. */
int store_step_runs(struct store *s, int64_t mid, unsigned arm, const char *cell,
		    struct step_runs *ret, char *err);

/* ---- harnessd's bisections (schema 9) ---- */

#define BISECTION_METRIC_MAX 32

struct bisection {
	int64_t id, matrix_id;
	char cell[CELL_NAME_MAX], metric[BISECTION_METRIC_MAX];
	char good[SPEC_NAME_MAX], bad[SPEC_NAME_MAX];
	unsigned max_blocks, max_runs;
	double max_hours;
	char state[16];             /* running, done, failed */
	char progress[ERR_MAX];     /* the last step said, or why it failed */
	char *result;               /* done: bisect_json's, as text (heap), else NULL */
	char *result_text;          /* done: the table as harness bisect prints it (heap) */
	char created_at[32], ended_at[32];
};

/* Free b's heap fields (result, result_text). */
void store_bisection_free(struct bisection *b);

/*
 * Queue bisection b (its id and state ignored): or, if one with the same
 * matrix, cell, metric, arms and budget is running or done, that one
 * (*ret_existing 1). *ret_id its id. With max_open (0: no limit) already
 * running (queued or running), a new one is not added: 1 with one line
 * saying so. -1 on a database error.
 */
int store_bisection_add(struct store *s, const struct bisection *b, unsigned max_open,
			int64_t *ret_id, int *ret_existing, char *err);

/* Bisection id into *b (store_bisection_free it); -1 with "no bisection N" if none. */
int store_bisection_get(struct store *s, int64_t id, struct bisection *b, char *err);

/*
 * A page of bisections' ids into ids (room for max): every running one
 * (at most max - limit), newest first, then at most limit ended ones older
 * than before, newest first. *ret_n how many.
 */
int store_bisection_ids(struct store *s, int64_t before, size_t limit, int64_t *ids, size_t max,
			size_t *ret_n, char *err);

/* The oldest running bisection, 0 if none. */
int store_bisection_next(struct store *s, int64_t *ret_id, char *err);

/* The line status shows for a running bisection. */
int store_bisection_progress(struct store *s, int64_t id, const char *line, char *err);

/* Ended: done with its result (JSON text and table), or failed with why (result NULL). */
int store_bisection_end(struct store *s, int64_t id, const char *state, const char *why,
			const char *result, const char *result_text, char *err);

#endif
