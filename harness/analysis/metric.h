/* metric.h -- the per-run metrics every report and comparison speaks of,
 * described once: name, layout in tables, which way is better, averaging. */
#ifndef METRIC_H
#define METRIC_H

#include <stddef.h>

#include "store/store.h"

/* One interval of one run, as a per-interval metric (plots) reads it. */
struct metric_interval {
	const struct series_point *p;
	double seconds;        /* the interval's length */
	double file_pages;     /* the cell's declared files, in pages */
};

struct metric {
	const char *name;      /* as in headers and --metric */
	int width, decimals;   /* in tables */
	int delta;             /* the ABBA block shows its Delta % against the first arm */
	int abba;              /* shown in the ABBA block */
	int compared;          /* harness compare gives verdicts on it */
	int higher_better;
	int harmonic;          /* a throughput: harmonic mean of runs (and within a block),
				* as MMTests; arithmetic mean otherwise */
	int table;             /* one of `harness table`'s tables without --metric */
	double (*get)(const struct run_summary *r);   /* NAN: the run has no value */
	const char *desc;      /* one line, for --metric's help and JSON */
	double (*at)(const struct metric_interval *iv);  /* per interval (plots), NULL: none;
							  * NAN: the interval has no value */
};

extern const struct metric metrics[];
extern const size_t n_metrics;

/* The metric called name, or NULL. */
const struct metric *metric_find(const char *name);

/*
 * The metric's mean of x[0..n): harmonic if m->harmonic, else arithmetic;
 * values that are NAN (runs without the measurement) are left out, *ret_n
 * (may be NULL) says how many were used. NAN when none; 0 for a harmonic
 * mean with a 0 in it. Returns NAN out of memory too.
 */
double metric_mean(const struct metric *m, const double *x, size_t n, unsigned *ret_n);

/*
 * The done runs of one cell and two arms as observations for
 * stats_block_deltas: arm base as arm 0, arm new as arm 1, runs without the
 * metric (NAN) left out. o has room for n. Returns how many.
 */
struct stats_obs;
size_t metric_pair_obs(const struct metric *m, const struct run_summary *v, size_t n,
		       unsigned cell, unsigned base, unsigned new_arm, struct stats_obs *o);

#endif
