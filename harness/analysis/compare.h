/* compare.h -- `harness compare`: for every common cell and metric, is NEW
 * different from BASE, the same, or not yet known? The ABBA block is the unit.
 *
 * Folder analysis/: what the numbers say: statistics (stats.c), verdicts
 * (compare.c), the metric table, grids of cells x arms, extending matrices.
 * It may call: base/ common/ spec/ store/.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "spec/conf.h"
#include "store/store.h"

#define COMPARE_MIN_BLOCKS 3       /* fewer paired blocks: always UNKNOWN */
#define COMPARE_LEVEL      0.95    /* bootstrap interval */
#define COMPARE_ALPHA      0.05    /* Wilcoxon, and the drift check */
#define COMPARE_FLOOR      0.02    /* noise floor without A/A arms */

enum verdict_kind { VERDICT_UNKNOWN, VERDICT_SAME, VERDICT_DIFFERENT };

struct verdict {
	enum verdict_kind kind;
	size_t blocks;          /* paired deltas used */
	double delta;           /* mean paired delta, relative: -0.05 is -5 % */
	double lo, hi;          /* its bootstrap interval */
	double floor;           /* noise floor, relative */
	double p;               /* Wilcoxon signed-rank, two-sided */
	unsigned more;          /* UNKNOWN: blocks more that would likely decide */
	int worse;              /* DIFFERENT in the metric's bad direction */
	int drift;              /* delta correlates with block index (p < COMPARE_ALPHA)
				 * and its fitted line moves by >= floor over the blocks */
	double drift_r, drift_p;
};

/*
 * The verdict on paired deltas d (block numbers blocks, for the drift check):
 *   DIFFERENT  the bootstrap interval excludes 0, |mean| >= floor, and the
 *              Wilcoxon signed-rank p < COMPARE_ALPHA (the percentile bootstrap
 *              is too narrow for few blocks; the test keeps A/A false alarms
 *              at or below 5 %, and needs at least 6 non-zero deltas);
 *   SAME       the interval lies within [-floor, +floor];
 *   UNKNOWN    neither, or fewer than COMPARE_MIN_BLOCKS blocks; more says
 *              how many more blocks would likely decide.
 * worse: DIFFERENT and the mean goes against higher_better. Returns 0 or -1
 * (out of memory).
 */
int compare_verdict(const double *d, const unsigned *blocks, size_t n, double floor,
		    int higher_better, unsigned resamples, struct verdict *v);

struct compare_opts {
	const char *base_matrix, *new_matrix;  /* the same matrix when comparing arms */
	const char *base_arm, *new_arm;        /* NULL: two matrices, arms by position */
	const char *base_tag, *new_tag;        /* set: the arms so tagged, the matrices and
						* arms above unused (see compare_run) */
	double floor;                          /* the floor without A/A arms, relative */
	int floor_set;                         /* given (--floor): also the least A/A floor */
	unsigned resamples;                    /* bootstrap B */
	int regressions;                       /* print only DIFFERENT-and-worse rows */
	int json;
};

/* One verdict: a common cell, the (new) arm, a compared metric. */
struct metric;
struct compare_row {
	char cell[CELL_NAME_MAX];
	char arm[64];           /* two matrices: the new matrix's arm */
	const struct metric *m;
	int aa;                 /* floor from A/A arms */
	struct verdict v;
};

/*
 * The verdicts o asks for, printing nothing (o's output options are
 * ignored): one row per common cell and compared metric, in cell order.
 * *ret malloc'd. Returns 0, or -1 with err.
 */
int compare_rows(struct store *s, const struct compare_opts *o, struct compare_row **ret,
		 size_t *ret_n, char *err);

/*
 * Compare and print to out (warnings, such as drift, to warn). Returns 1 if
 * any cell and metric is DIFFERENT and worse, 0 if none, -1 with err.
 * With tags: the newest matrix with an arm of each tag compares them as two
 * arms of it; failing that, the newest matrix of each tag, its tagged arm
 * against the other's, as two matrices compare (blocks by index, cells by
 * name). A tag on no arm, or on several arms of the matrix chosen, is an error.
 */
int compare_run(struct store *s, const struct compare_opts *o, FILE *out, FILE *warn, char *err);


#endif
