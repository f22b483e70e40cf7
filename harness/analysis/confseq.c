/* confseq.c -- the t-test's mixture confidence sequence (see confseq.h): its
 * e-value, its half-width at n deltas in closed form, blocks needed. */
#include "analysis/confseq.h"

#include <math.h>

double confseq_log_evalue(double t, size_t n)
{
	double nu = (double)n - 1, lc = log1p((double)n * CONFSEQ_G);

	if (n < 2)
		return 0;
	if (isinf(t))
		return nu / 2 * lc;   /* the limit as |t| grows: c^(nu / 2) */
	if (isnan(t))
		return 0;
	return -lc / 2 + (nu + 1) / 2 * (log1p(t * t / nu) - log1p(t * t / (exp(lc) * nu)));
}

double confseq_p(double mean, double sd, size_t n)
{
	double t;

	if (n < 2 || isnan(mean) || isnan(sd))
		return 1;
	if (sd > 0)
		t = mean * sqrt((double)n) / sd;
	else
		t = mean == 0 ? 0 : INFINITY;
	return fmin(1, exp(-confseq_log_evalue(t, n)));
}

/*
 * e(t) = 1/alpha solved for t: with k = 2 / (nu + 1) and
 * rho = (sqrt(c) / alpha)^k, (1 + u) / (1 + u / c) = rho for u = t^2 / nu, so
 * u = (rho - 1) / (1 - rho / c); no solution (unbounded) when rho >= c.
 */
double confseq_radius(size_t n, double alpha)
{
	double nu = (double)n - 1, c = 1 + (double)n * CONFSEQ_G, lrho, u;

	if (n < 2 || !(alpha > 0 && alpha < 1))
		return INFINITY;
	lrho = (0.5 * log(c) - log(alpha)) * 2 / (nu + 1);
	if (lrho >= log(c))
		return INFINITY;
	u = expm1(lrho) / (1 - exp(lrho) / c);
	return sqrt(nu * u);
}

size_t confseq_min_n(double alpha)
{
	size_t n;

	for (n = 2; n < 1000 && isinf(confseq_radius(n, alpha)); n++)
		;
	return n;
}

static double width_at(size_t n, double alpha)
{
	return confseq_radius(n, alpha) / sqrt((double)n);
}

size_t confseq_n_for(double margin, size_t from, size_t max, double alpha)
{
	size_t lo, hi, mid, least = confseq_min_n(alpha);

	if (!(margin > 0))
		return 0;
	lo = from > least ? from : least;
	hi = from + max;
	if (lo > hi || width_at(hi, alpha) > margin)
		return 0;
	while (lo < hi) {          /* the least N in [lo, hi] that fits */
		mid = lo + (hi - lo) / 2;
		if (width_at(mid, alpha) <= margin)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
