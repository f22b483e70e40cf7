/* confseq.h -- an anytime-valid confidence sequence for the mean of the paired
 * ABBA-block deltas: valid however often it is looked at as blocks arrive. */
#ifndef CONFSEQ_H
#define CONFSEQ_H

#include <stddef.h>

/*
 * The sequence is the t-test's mixture e-process (a Bayes factor that is a
 * nonnegative martingale under the null, so Ville's inequality bounds the
 * chance it ever reaches 1/alpha by alpha; Perez-Ortiz, Lardy, de Heide and
 * Gruenwald, "E-statistics, group invariance and anytime-valid testing",
 * Annals of Statistics 52(4), 2024; not Lai's, "On confidence sequences",
 * Annals of Statistics 4(2), 1976, whose flat prior on the t likelihood
 * gives no e-process): with n deltas, mean m and
 * sample sd s, t = (m - mu) sqrt(n) / s and nu = n - 1,
 *
 *   e(t) = c^-1/2 ((1 + t^2 / nu) / (1 + t^2 / (c nu)))^((nu + 1) / 2),
 *   c = 1 + n g,
 *
 * the likelihood ratio of t under a N(0, g) prior on the standardised effect
 * (mu_true - mu) / sigma against no effect, sigma left free (right Haar
 * prior). Normal deltas assumed; A/A deltas of runs with an 18 % CV are close
 * to that, and BENCHMARKS.md measures lognormal and heavy-tailed ones too. A
 * verdict's DIFFERENT also needs the robust test (the sign-flip bettors of
 * signflip.h and the within-unit randomisation of permtest.h), and its
 * interval joins every value that test keeps, so either assumption is enough.
 * The 1 - alpha sequence at n is every mu whose e(t) < 1/alpha:
 *   m -+ r_n s / sqrt(n), r_n = confseq_radius(n, alpha),
 * and it covers the true mean at every n at once with probability >= 1 - alpha.
 */
#define CONFSEQ_G 2.0   /* prior variance of the standardised effect: tightest near
			 * 10 to 30 blocks, the sizes these matrices reach */

/* log e(t) at n deltas (t may be +-INFINITY: s = 0); 0 for n < 2 (no evidence yet). */
double confseq_log_evalue(double t, size_t n);

/*
 * The anytime-valid p of mean 0: min(1, 1 / e(t)), t = m sqrt(n) / s (s = 0:
 * 1 if m is 0, else t infinite). P(p_n <= a for some n) <= a for every a.
 * 1 for n < 2.
 */
double confseq_p(double mean, double sd, size_t n);

/* r_n: the half-width in units of s / sqrt(n); INFINITY where the sequence is unbounded (n < 2, or too few deltas for alpha). */
double confseq_radius(size_t n, double alpha);

/* The fewest deltas at which the sequence is bounded (4 at alpha 0.05). */
size_t confseq_min_n(double alpha);

/*
 * The fewest deltas N in [from, from + max] at which r_N / sqrt(N) <= margin
 * (a margin in units of sd: the interval's half-width would then fit it);
 * 0 if none does (margin <= 0 included). r_N / sqrt(N) falls with N from
 * confseq_min_n on (tests/test_stats.c checks it), so a bisection finds it.
 */
size_t confseq_n_for(double margin, size_t from, size_t max, double alpha);

#endif
