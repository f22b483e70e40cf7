/* metric.h -- the per-run metrics every report and comparison speaks of,
 * described once: name, layout in tables, which way is better, averaging. */
#ifndef METRIC_H
#define METRIC_H

#include <stddef.h>

#include "analysis/summary.h"
#include "analysis/verdict.h"
#include "store/store.h"

/* One interval of one run, as a per-interval metric (plots) reads it. */
struct metric_interval {
	const struct summary_window *w;   /* summary_window of the one interval */
	double file_mib;                  /* the cell's declared files' size */
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
	/* compared metrics: how verdicts judge them (struct verdict_rule), declared here */
	enum verdict_scale scale;   /* LOG: a ratio means something; DIFF: a share in % */
	double margin;              /* SAME within +-this (relative; DIFF: points / 100) */
	double min_effect;          /* DIFFERENT from this on (same units), <= margin */
};

#define METRIC_MAX 48           /* rows of the table, at most (margins per metric) */

extern const struct metric metrics[];
extern const size_t n_metrics;

/* The metric called name, or NULL. */
const struct metric *metric_find(const char *name);

/*
 * The verdict rule of m: its scale and direction from the table, its margin
 * margins[m's row] where that is above 0 (a matrix's "margins" or the
 * command line), else the table's; the minimum effect in the table's
 * proportion to the margin (half, for every row). margins may be NULL.
 */
void metric_rule(const struct metric *m, const double *margins, struct verdict_rule *ret);

/* The primary metric a matrix without "primary" has: what every workload kind measures. */
#define METRIC_PRIMARY "ops/s"

/*
 * What a matrix's JSON text declares for its verdicts: "margins" (absent:
 * nothing set), each key a compared metric, each value a percentage (points
 * for a share) above 0 and at most 100, into margins; "primary", a compared
 * metric (absent: METRIC_PRIMARY), into *ret_primary (may be NULL). Returns 0,
 * or -1 with err naming label and the field.
 */
int metric_verdict_keys(const char *text, const char *label, double margins[METRIC_MAX],
			const struct metric **ret_primary, char *err);

/* Per metric, the smaller of two margins where both are set (the stricter SAME): into a. */
void metric_margins_min(double a[METRIC_MAX], const double b[METRIC_MAX]);

/* One --margin METRIC=PCT into margins. Returns 0, or -1 with err. */
int metric_margin_arg(const char *arg, double margins[METRIC_MAX], char *err);

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
