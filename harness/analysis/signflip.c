/* signflip.c -- the sign-flip e-process (see signflip.h): a mixture of bettors
 * on each block's sign, staking by its magnitude; its p; the fewest blocks. */
#include "analysis/signflip.h"

#include "analysis/stats.h"

#include <math.h>

static const double signflip_c[SIGNFLIP_BETS] = { 0.125, 0.25, 0.5, 1, 2, 4 };

/*
 * Each wealth is kept as a product of at most FOLD factors (each in
 * [1 - SIGNFLIP_CAP, 1 + SIGNFLIP_CAP], so 32 of them stay far inside a
 * double's range) folded into its log: a log per 32 blocks, not per block,
 * which is what makes a verdict after every one of 500 blocks cheap.
 */
#define FOLD 32

void signflip_init(struct signflip *s)
{
	size_t k;

	s->ss = 0;
	s->n = s->held = 0;
	for (k = 0; k < 2 * SIGNFLIP_BETS; k++) {
		s->lw[k] = 0;
		s->w[k] = 1;
	}
}

void signflip_push(struct signflip *s, double d)
{
	double sc, b, sg;
	size_t k;

	if (isnan(d))
		return;
	s->ss += d * d;
	s->n++;
	if (d == 0)
		return;                 /* a tie: no sign to bet on */
	sc = sqrt(s->ss / (double)s->n);
	sg = d > 0 ? 1 : -1;
	for (k = 0; k < SIGNFLIP_BETS; k++) {
		b = fmin(SIGNFLIP_CAP, signflip_c[k] * fabs(d) / sc);
		s->w[2 * k] *= 1 + b * sg;
		s->w[2 * k + 1] *= 1 - b * sg;
	}
	if (++s->held < FOLD)
		return;
	for (k = 0; k < 2 * SIGNFLIP_BETS; k++) {
		s->lw[k] += log(s->w[k]);
		s->w[k] = 1;
	}
	s->held = 0;
}

double signflip_state_log_e(const struct signflip *s)
{
	double l[2 * SIGNFLIP_BETS];
	size_t k;

	if (!s->n)
		return 0;
	for (k = 0; k < 2 * SIGNFLIP_BETS; k++)
		l[k] = s->lw[k] + log(s->w[k]);
	return stats_log_mean_exp(l, 2 * SIGNFLIP_BETS);
}

double signflip_log_evalue_at(const double *d, size_t n, double mu)
{
	struct signflip s;
	size_t i;

	signflip_init(&s);
	for (i = 0; i < n; i++)
		signflip_push(&s, d[i] - mu);
	return signflip_state_log_e(&s);
}

double signflip_log_evalue(const double *d, size_t n)
{
	return signflip_log_evalue_at(d, n, 0);
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
		if (stats_log_mean_exp(lw, 2 * SIGNFLIP_BETS) >= log(1 / alpha))
			return n;
	}
	return 0;
}
