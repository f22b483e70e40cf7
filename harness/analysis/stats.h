/* stats.h -- the statistics behind `harness compare`: means, per-block paired
 * deltas, a bootstrap interval, the Wilcoxon signed-rank test, Pearson's r.
 * Pure functions: no I/O, no global state; every random draw is seeded. */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_BOOT_B    2000    /* bootstrap resamples by default */
#define STATS_BOOT_SEED UINT64_C(0x9e3779b97f4a7c15)
#define STATS_EXACT_MAX 20      /* Wilcoxon: exact p up to this many non-zero differences */

/* Arithmetic mean; NAN for n == 0. */
double stats_mean(const double *x, size_t n);
/* Harmonic mean (for rates): 0 if any value is 0, NAN if n == 0 or any is negative. */
double stats_hmean(const double *x, size_t n);
/* Median (mean of the middle two for even n); NAN for n == 0 or out of memory. */
double stats_median(const double *x, size_t n);

/* One run's value of one metric, in an ABBA block, of the base (0) or new (1) arm. */
struct stats_obs {
	unsigned block;
	int arm;
	double v;
};

/*
 * Paired deltas, one per block that has runs of both arms, in block order:
 * mean(new runs of the block) / mean(base runs of the block) - 1 (harmonic
 * means if harmonic). A block whose base mean is 0 counts as 0 when the new
 * mean is 0 too, and is skipped otherwise. ret_delta and ret_block (may be
 * NULL) hold up to max. Returns the number of deltas, or -1 out of memory.
 */
long stats_block_deltas(const struct stats_obs *o, size_t n, int harmonic, double *ret_delta,
			unsigned *ret_block, size_t max);

/*
 * Percentile bootstrap interval of the mean of x: B resamples of n with
 * replacement (indices from splitmix64(seed) modulo n), their means sorted, the
 * (1 - level) / 2 and (1 + level) / 2 quantiles interpolated linearly between
 * order statistics (position p * (B - 1), numpy's default). Returns 0, or -1
 * for n == 0, B < 2 or out of memory.
 */
int stats_bootstrap_ci(const double *x, size_t n, unsigned B, double level, uint64_t seed,
		       double *ret_lo, double *ret_hi);

/* The generator the bootstrap uses: splitmix64, state advanced in place. */
uint64_t stats_rand(uint64_t *state);

struct stats_wilcoxon {
	size_t n;           /* non-zero differences used */
	double w_plus;      /* sum of the ranks of the positive differences (average ranks for ties) */
	double p;           /* two-sided; 1 when n == 0 */
	int exact;
};

/*
 * Wilcoxon signed-rank test of x against 0: zeros dropped (Wilcoxon's
 * definition), tied |x| given their average rank. n <= STATS_EXACT_MAX: exact
 * p from the permutation distribution of W+ over all 2^n sign assignments of
 * the ranks actually observed (exact also with ties); beyond, the normal
 * approximation with the tie-corrected variance, no continuity correction.
 * p = min(1, 2 * min(P(W+ <= w), P(W+ >= w))). Returns 0, or -1 out of memory.
 */
int stats_wilcoxon(const double *x, size_t n, struct stats_wilcoxon *ret);

/* Pearson's r of (x, y) and the two-sided p of t = r sqrt((n-2)/(1-r^2)), n-2 df. */
struct stats_corr {
	double r, t, p;
};

/* Returns 0, or -1 for n < 3 or a constant x or y (r undefined). */
int stats_pearson(const double *x, const double *y, size_t n, struct stats_corr *ret);

/* Two-sided p of Student's t with df degrees of freedom. */
double stats_t_p2(double t, double df);
/* Regularized incomplete beta I_x(a, b). */
double stats_betai(double a, double b, double x);

/*
 * How many more blocks would likely decide, if the mean stays at mean and the
 * interval's half-width shrinks as 1/sqrt(blocks): DIFFERENT needs a half-width
 * below |mean| (when |mean| >= floor), SAME one below floor - |mean| (when
 * |mean| < floor). ceil(n * (half / target)^2) - n, at least 1, at most
 * STATS_MORE_MAX (also when the target is 0).
 */
#define STATS_MORE_MAX 9999u
unsigned stats_more_blocks(size_t n, double mean, double half, double floor);

#endif
