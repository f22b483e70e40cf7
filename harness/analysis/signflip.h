/* signflip.h -- the sign-flip e-process: an anytime-valid test of "no difference"
 * that needs only a block statistic symmetric about 0, not a normal one. */
#ifndef SIGNFLIP_H
#define SIGNFLIP_H

#include <stddef.h>

/*
 * Two arms that do not differ are exchangeable, so each block's log ratio
 * (or difference) is as likely to be d as -d, whatever its shape: skewed,
 * heavy-tailed, two regimes. Given every block's magnitude, its sign is then
 * a fair coin, and a bettor who stakes b_i of its wealth on each sign
 * (1 + b_i sign(d_i)), b_i fixed before the sign is seen, holds a
 * nonnegative martingale: by Ville's inequality it reaches 1/alpha with
 * probability at most alpha, however often it is looked at (testing by
 * betting: Shafer, "Testing by betting", JRSS A 184(2), 2021; Ramdas,
 * Gruenwald, Vovk and Shafer, "Game-theoretic statistics and safe
 * anytime-valid inference", Statistical Science 38(4), 2023; the symmetric
 * case as in de la Pena, Annals of Probability 27(1), 1999).
 *
 * The stake of block i is min(SIGNFLIP_CAP, c |d_i| / s_i), s_i the root
 * mean square of |d_1| .. |d_i| (magnitudes only, so the stake is fixed
 * given them), for each c of SIGNFLIP_BETS and both directions; the
 * e-process is the mean of those 2 x SIGNFLIP_BETS wealths (a mixture of
 * e-processes is one). A small c is the bet of a small effect against wide
 * noise, a large one stakes nearly everything on the sign.
 *
 * It tests mean 0 only where the statistic is symmetric: a skewed statistic
 * with mean 0 is two arms that differ in shape, which no test of a mean can
 * rule out from unbounded data (Bahadur and Savage, Annals of Mathematical
 * Statistics 27(4), 1956); BENCHMARKS.md measures that case.
 */
#define SIGNFLIP_BETS 6
#define SIGNFLIP_CAP  0.9    /* the largest share of the wealth staked on one sign */

/* The bettors' state, block by block (for a plan's simulation; a verdict uses signflip_log_evalue). */
struct signflip {
	double ss;                          /* sum of squares of the blocks so far */
	size_t n, held;                     /* blocks, and factors not yet in lw */
	double lw[2 * SIGNFLIP_BETS];       /* log wealth folded so far */
	double w[2 * SIGNFLIP_BETS];        /* the product of the held factors */
};

/* An empty sequence: wealth 1 in every bet. */
void signflip_init(struct signflip *s);

/* One more block's statistic (NAN: ignored; 0: a tie, no bet). */
void signflip_push(struct signflip *s, double d);

/* log of the e-value after the blocks pushed; 0 before any. */
double signflip_state_log_e(const struct signflip *s);

/* log of the e-value after d[0..n); 0 for n 0. */
double signflip_log_evalue(const double *d, size_t n);

/* log of the e-value of "the blocks are symmetric about mu": d[0..n) - mu bet on. */
double signflip_log_evalue_at(const double *d, size_t n, double mu);

/* The anytime-valid p of "no difference": min(1, 1 / e). */
double signflip_p(const double *d, size_t n);

/*
 * The fewest blocks at which n equal blocks of one sign reach 1/alpha: no
 * verdict can be DIFFERENT sooner (7 at alpha 0.05); 0 if none up to 1 000.
 */
size_t signflip_min_n(double alpha);

#endif
