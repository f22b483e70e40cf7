/* permtest.h -- the within-block randomisation e-process: which of a block's runs
 * were NEW's, bet on against every other way of labelling the same runs. */
#ifndef PERMTEST_H
#define PERMTEST_H

#include <stddef.h>

/*
 * The sign-flip test (signflip.h) sees one number a block, so n blocks have
 * only 2^n sign patterns and it cannot reject before 7 blocks, however large
 * the effect. A block holds more: 2 runs of each arm (ABBA, or a Williams
 * row and its mirror). If the arms do not differ and a block's runs are
 * exchangeable (which run was which arm's does not change the values the
 * block's runs took), every one of the C(k, j) ways of naming j of its k
 * runs NEW is as likely as the one that happened (6 for 2 + 2). A bettor
 * who spreads its wealth over those labellings by a distribution q fixed
 * by the block's values alone (not by their labels) is paid C(k, j) q(the
 * one that happened): its expected factor is exactly 1, so the product over
 * blocks is a nonnegative martingale and Ville's inequality holds. Here q
 * tilts toward labellings with a large statistic T (the block's log ratio,
 * or difference, under that labelling): q(g) proportional to
 * exp(kappa T(g) / S), S the root mean square of T about its mean over the
 * block's labellings, for kappa 0.5, 1, 2, 4 and 8, each of both signs: a clean block
 * where NEW's runs are all above BASE's pays up to 6 where a sign pays 2.
 *
 * The assumption beyond symmetry: under no difference a block's runs are
 * exchangeable. A linear drift within the block makes the test conservative
 * (ABBA's own labelling is then the least extreme); a position effect that
 * favours the middle runs, or the outer ones, would not be, and
 * BENCHMARKS.md measures it. The verdict mixes these bettors with the
 * sign-flip ones (verdict.c), so a DIFFERENT still needs the t mixture.
 */
#define PERMTEST_KAPPAS 5
#define PERMTEST_BETS   (2 * PERMTEST_KAPPAS)
#define PERMTEST_RUNS   8      /* a block with more runs than this gets no bet (factor 1) */

/*
 * The log factor of each of the PERMTEST_BETS bettors for one block, from
 * its base runs b[0..nb) and new runs w[0..nw), the block statistic as the
 * verdict takes it: the log of the means' ratio (harmonic means if harmonic)
 * when log_scale, else their difference. A block that cannot be bet on
 * (fewer than 1 run an arm, more than PERMTEST_RUNS, a value not positive
 * on the log scale, every labelling equal) gets 0 in each. Returns 0.
 */
int permtest_block(const double *b, size_t nb, const double *w, size_t nw, int harmonic,
		   int log_scale, double ret_lf[PERMTEST_BETS]);

/* log of the e-value from each bettor's summed log factors l: the log of the mean of exp(l). */
double permtest_log_e(const double l[PERMTEST_BETS]);

#endif
