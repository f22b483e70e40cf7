/* stats.h -- the statistics behind `harness compare`: means, per-block paired
 * deltas, Student's t, Pearson's r, Benjamini-Hochberg's adjustment.
 * Pure functions: no I/O, no global state; every random draw is seeded. */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_MORE_MAX 9999u    /* "more blocks" estimates stop here: more than this */

/* Arithmetic mean; NAN for n == 0. */
double stats_mean(const double *x, size_t n);
/* Harmonic mean (for rates): 0 if any value is 0, NAN if n == 0 or any is negative. */
double stats_hmean(const double *x, size_t n);
/* Sample standard deviation (n - 1 in the denominator); NAN for n < 2. */
double stats_sd(const double *x, size_t n);
/* log of the mean of exp(l[0..n)), without overflow (a mixture of e-values in logs); -INFINITY for n 0. */
double stats_log_mean_exp(const double *l, size_t n);
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
 * The per-block means behind those deltas: for each block with runs of both
 * arms, in block order, the base arm's mean and the new arm's (harmonic if
 * harmonic) into ret_base and ret_new, its number into ret_block (may be
 * NULL); up to max. Returns how many blocks, or -1 out of memory.
 */
long stats_block_means(const struct stats_obs *o, size_t n, int harmonic, double *ret_base,
		       double *ret_new, unsigned *ret_block, size_t max);

/* The generator the simulations and tests draw from: splitmix64, state advanced in place. */
uint64_t stats_rand(uint64_t *state);

/* A standard normal draw from stats_rand (Box and Muller, one of the pair). */
double stats_gauss(uint64_t *state);

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

/* Quantile of Student's t with df degrees of freedom: P(T <= x) = P (bisection on stats_t_p2). */
double stats_t_quantile(double P, double df);

/*
 * Benjamini-Hochberg adjusted p-values (R's p.adjust(p, "BH")): with p sorted
 * ascending, q_(k) = min over j >= k of min(1, n p_(j) / j). Rejecting every
 * q <= a is BH's step-up procedure at FDR level a (Benjamini and Hochberg,
 * JRSS B 57(1), 1995). NAN counts as 1. Returns 0, or -1 out of memory.
 */
int stats_bh(const double *p, size_t n, double *ret_q);

#endif
