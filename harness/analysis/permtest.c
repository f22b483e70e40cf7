/* permtest.c -- the within-block randomisation e-process (see permtest.h): every
 * labelling of a block's runs scored, bettors tilted toward the extreme ones. */
#include "analysis/permtest.h"
#include "analysis/stats.h"

#include <math.h>
#include <string.h>

/* The mean of the runs of v[0..k) whose bit is (or is not, want 0) set in mask. */
static double mean_of(const double *v, size_t k, unsigned mask, int want, int harmonic)
{
	double x[PERMTEST_RUNS];
	size_t i, j = 0;

	for (i = 0; i < k; i++)
		if (!!(mask & (1u << i)) == want)
			x[j++] = v[i];
	return harmonic ? stats_hmean(x, j) : stats_mean(x, j);
}

/* The block statistic when the runs in mask are NEW's; NAN if it has none. */
static double stat_of(const double *v, size_t k, unsigned mask, int harmonic, int log_scale)
{
	double nw = mean_of(v, k, mask, 1, harmonic), bs = mean_of(v, k, mask, 0, harmonic);

	if (!log_scale)
		return nw - bs;
	return nw > 0 && bs > 0 ? log(nw / bs) : NAN;
}

/*
 * T of every labelling with nw of the k runs NEW (masks with nw bits set),
 * into t; the observed one's index into *obs (the observed: the last nw
 * runs). Returns how many, or 0 if a statistic is not defined.
 */
static size_t labellings(const double *v, size_t k, size_t nw, int harmonic, int log_scale,
			 double *t, size_t *obs)
{
	unsigned mask, seen = ((1u << nw) - 1) << (k - nw);
	size_t m = 0;

	for (mask = 0; mask < (1u << k); mask++) {
		if ((size_t)__builtin_popcount(mask) != nw)
			continue;
		t[m] = stat_of(v, k, mask, harmonic, log_scale);
		if (isnan(t[m]))
			return 0;
		if (mask == seen)
			*obs = m;
		m++;
	}
	return m;
}

int permtest_block(const double *b, size_t nb, const double *w, size_t nw, int harmonic,
		   int log_scale, double ret_lf[PERMTEST_BETS])
{
	double v[PERMTEST_RUNS], t[1u << PERMTEST_RUNS], e[PERMTEST_KAPPAS][1u << PERMTEST_RUNS];
	double s = 0, z;
	size_t k = nb + nw, m, i, c, obs = 0;

	memset(ret_lf, 0, PERMTEST_BETS * sizeof(*ret_lf));
	if (!nb || !nw || k > PERMTEST_RUNS)
		return 0;
	memcpy(v, b, nb * sizeof(*v));
	memcpy(v + nb, w, nw * sizeof(*v));
	m = labellings(v, k, nw, harmonic, log_scale, t, &obs);
	if (!m)
		return 0;
	z = stats_mean(t, m);
	for (i = 0; i < m; i++)
		s += (t[i] - z) * (t[i] - z);
	s = sqrt(s / (double)m);
	if (!(s > 0))
		return 0;              /* every labelling alike: nothing to bet on */
	/* kappa = 0.5 2^c: exp(kappa x) by squaring exp(x / 2), one exp a labelling */
	for (i = 0; i < m; i++)
		e[0][i] = exp((t[i] - z) / s / 2);
	for (c = 1; c < PERMTEST_KAPPAS; c++)
		for (i = 0; i < m; i++)
			e[c][i] = e[c - 1][i] * e[c - 1][i];
	for (c = 0; c < PERMTEST_KAPPAS; c++) {
		double up = 0, down = 0;

		for (i = 0; i < m; i++) {
			up += e[c][i];
			down += 1 / e[c][i];
		}
		/* m q(obs) = exp(kappa T_obs / S) / mean over labellings */
		ret_lf[2 * c] = log(e[c][obs] * (double)m / up);
		ret_lf[2 * c + 1] = log((double)m / (e[c][obs] * down));
	}
	return 0;
}

double permtest_log_e(const double l[PERMTEST_BETS])
{
	return stats_log_mean_exp(l, PERMTEST_BETS);
}
