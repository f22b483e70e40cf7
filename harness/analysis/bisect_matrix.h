/* bisect_matrix.h -- a bisection of a stored matrix: GOOD and BAD checked
 * before anything builds, each prefix built from BAD's arm, each step a matrix. */
#ifndef BISECT_MATRIX_H
#define BISECT_MATRIX_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/bisect.h"
#include "conf/conf.h"
#include "spec/spec.h"

/* What is asked: as the command line or the API gives it. */
struct bisect_request {
	const char *matrix;          /* an id or a name */
	const char *cell, *metric, *good, *bad;
	unsigned max_blocks, max_runs;   /* 0: BISECT_MAX_BLOCKS; no limit */
	double max_hours;                /* 0: no limit */
};

/*
 * Where the harness bisect command and harnessd differ:
 *  run_step: queue the step's matrix (spec text, label for its errors,
 *            base_dir for its paths) and return once every run of it has
 *            ended, with its id; -1 with err.
 *  hold:     around each build (on 1, then 0): the CLI takes the results
 *            directory's lock; NULL in the daemon, which holds it.
 *  progress, gate: spec_resolve_gated's (gate NULL: compiles run at once).
 *  tell:     one line of the search's progress.
 */
struct bisect_hooks {
	int (*run_step)(void *arg, const char *text, const char *label, const char *base_dir,
			int64_t *ret_mid, char *err);
	int (*hold)(void *arg, int on, char *err);
	spec_progress_fn progress;
	kbuild_gate_fn gate;
	void (*tell)(void *arg, const char *line);
	void *arg;
};

struct bisect_matrix;

/*
 * Check rq against the stored matrix, reading nothing but the database: the
 * matrix, its cell, a metric compare decides on, GOOD and BAD both built
 * from source and alike but for their patches, GOOD's patches the first of
 * BAD's. -1 with one line naming what is wrong ("bisect: ...").
 */
int bisect_matrix_open(const struct conf *c, const struct bisect_request *rq,
		       const struct bisect_hooks *h, struct bisect_matrix **ret, char *err);

/* The bisection (bisect_run over x's builds and steps); *r as bisect_run's. */
int bisect_matrix_run(struct bisect_matrix *x, struct bisect_result *r, char *err);

/* Its heading and table, and its JSON (with the matrix, cell, metric and arms). */
void bisect_matrix_print(FILE *f, const struct bisect_matrix *x, const struct bisect_result *r);
json_t *bisect_matrix_json(const struct bisect_matrix *x, const struct bisect_result *r);

/* The matrix's id; and rq's values as checked (the metric's name as the table has it). */
int64_t bisect_matrix_id(const struct bisect_matrix *x);
const char *bisect_matrix_metric(const struct bisect_matrix *x);

/* Close x's store and free it. */
void bisect_matrix_close(struct bisect_matrix *x);

#endif
