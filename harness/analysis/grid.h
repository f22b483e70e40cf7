/* grid.h -- one metric of a matrix as a grid, cells down and arms across: each
 * arm's mean, its Delta against a baseline arm, the paired-block verdict, n. */
#ifndef GRID_H
#define GRID_H

#include <stddef.h>

#include "analysis/verdict.h"
#include "analysis/metric.h"
#include "store/store.h"

struct grid_entry {
	double value;          /* the metric's mean over the arm's runs in the cell; NAN none */
	double delta;          /* value / the baseline's value - 1; NAN for the baseline, or none */
	unsigned n;            /* runs with a value */
	unsigned contended;    /* of the arm's runs in the cell, contended (runs.contended) */
	struct verdict v;      /* of the per-block paired deltas against the baseline
				* (verdict_of_runs, then grid_adjust), blocks with a
				* contended run left out as compare does; blocks 0 for
				* the baseline itself */
};

struct grid {
	const struct metric *m;
	const struct matrix_info *mi;
	unsigned base;                  /* the baseline arm */
	double margin;                  /* the verdicts' margin, relative; 0: the metric's declared one */
	unsigned n_rows;
	unsigned cells[SPEC_MAX_CELLS]; /* row -> cell */
	struct grid_entry e[SPEC_MAX_CELLS][SPEC_MAX_ARMS];   /* [row][arm] */
};

/*
 * Fill g->e for g->cells[0..g->n_rows) from the done runs' summaries v[0..n);
 * g->m, g->mi, g->base and g->margin set by the caller. Returns 0 or -1 with err.
 */
int grid_fill(struct grid *g, const struct run_summary *v, size_t n, char *err);

/* The verdict rule of g's metric: the metric table's, its margin g->margin when set. */
struct verdict_rule grid_rule(const struct grid *g);

/*
 * Benjamini-Hochberg over every verdict of the n filled grids g (the
 * baseline's entries are none): the family of what one table command
 * shows, *ret_family verdicts (the NOT MEASURED ones are in none). Returns
 * 0 or -1 with err.
 */
int grid_adjust(struct grid *const *g, size_t n, size_t *ret_family, char *err);

/*
 * The ABBA position pairs of one row and arm against the baseline: a block of
 * k arms holds per_block reps, each of which runs every arm once (A B, B A for
 * two arms); the paired delta of a rep is arm / baseline - 1 of its two runs.
 */
struct grid_pairs {
	unsigned per_block;    /* position pairs (reps) per block */
	size_t n_blocks;
	unsigned *block;       /* n_blocks block numbers, ascending */
	double *d;             /* [n_blocks][per_block] relative deltas, NAN where missing */
	double *mean;          /* [per_block] arithmetic mean over the blocks, NAN if none */
};

/* Row row's per-block deltas of arm against the baseline into ret (release it); -1 with err. */
int grid_pairs(const struct grid *g, const struct run_summary *v, size_t n, unsigned row,
	       unsigned arm, struct grid_pairs *ret, char *err);
void grid_pairs_release(struct grid_pairs *p);

#endif
