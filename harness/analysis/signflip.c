/* signflip.c -- the sign-flip e-process (see signflip.h): a mixture of bettors
 * on each block's sign, staking by its magnitude; its p; the fewest blocks. */
#include "analysis/signflip.h"

#include <math.h>

static const double signflip_c[SIGNFLIP_BETS] = { 0.125, 0.25, 0.5, 1, 2, 4 };

/* log of the mean of exp(l[0..n)), without overflow. */
static double log_mean_exp(const double *l, size_t n)
{
	double m = -INFINITY, sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m = fmax(m, l[i]);
	if (isinf(m))
		return m;
	for (i = 0; i < n; i++)
		sum += exp(l[i] - m);
	return m + log(sum / (double)n);
}

/*
 * Each wealth is kept as a product of at most FOLD factors (each in
 * [1 - SIGNFLIP_CAP, 1 + SIGNFLIP_CAP], so 32 of them stay far inside a
 * double's range) folded into its log: a log per 32 blocks, not per block,
 * which is what makes a verdict after every one of 500 blocks cheap.
 */
#define FOLD 32

double signflip_log_evalue(const double *d, size_t n)
{
	double lw[2 * SIGNFLIP_BETS] = { 0 }, w[2 * SIGNFLIP_BETS], ss = 0, s, b, sg;
	size_t i, k, held = 0;

	for (k = 0; k < 2 * SIGNFLIP_BETS; k++)
		w[k] = 1;
	for (i = 0; i < n; i++) {
		if (isnan(d[i]))
			continue;
		ss += d[i] * d[i];
		if (d[i] == 0)
			continue;           /* a tie: no sign to bet on */
		s = sqrt(ss / (double)(i + 1));
		sg = d[i] > 0 ? 1 : -1;
		for (k = 0; k < SIGNFLIP_BETS; k++) {
			b = fmin(SIGNFLIP_CAP, signflip_c[k] * fabs(d[i]) / s);
			w[2 * k] *= 1 + b * sg;
			w[2 * k + 1] *= 1 - b * sg;
		}
		if (++held < FOLD)
			continue;
		for (k = 0; k < 2 * SIGNFLIP_BETS; k++) {
			lw[k] += log(w[k]);
			w[k] = 1;
		}
		held = 0;
	}
	for (k = 0; k < 2 * SIGNFLIP_BETS; k++)
		lw[k] += log(w[k]);
	return n ? log_mean_exp(lw, 2 * SIGNFLIP_BETS) : 0;
}

double signflip_p(const double *d, size_t n)
{
	return fmin(1, exp(-signflip_log_evalue(d, n)));
}

size_t signflip_min_n(double alpha)
{
	double lw[2 * SIGNFLIP_BETS] = { 0 }, b;
	size_t n, k;

	if (!(alpha > 0 && alpha < 1))
		return 0;
	for (n = 1; n <= 1000; n++) {
		for (k = 0; k < SIGNFLIP_BETS; k++) {   /* |d_i| / s_i is 1 for equal blocks */
			b = fmin(SIGNFLIP_CAP, signflip_c[k]);
			lw[2 * k] += log1p(b);
			lw[2 * k + 1] += log1p(-b);
		}
		if (log_mean_exp(lw, 2 * SIGNFLIP_BETS) >= log(1 / alpha))
			return n;
	}
	return 0;
}
