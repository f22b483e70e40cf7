/* stats.c -- pure statistics for comparing arms block by block: no I/O, and
 * every random number from a seeded generator, so results are reproducible. */
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double stats_mean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double stats_hmean(const double *x, size_t n)
{
	double inv = 0;
	size_t i;
	int zero = 0;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		if (x[i] < 0 || isnan(x[i]))
			return NAN;
		if (x[i] == 0)
			zero = 1;
		else
			inv += 1.0 / x[i];
	}
	return zero ? 0 : (double)n / inv;
}

double stats_sd(const double *x, size_t n)
{
	double m = stats_mean(x, n), ss = 0;
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_median(const double *x, size_t n)
{
	double *v, m;

	if (!n || !(v = malloc(n * sizeof(*v))))
		return NAN;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

/* ---- paired deltas per block ---- */

static int cmp_block(const void *a, const void *b)
{
	const struct stats_obs *x = a, *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return (x->arm > y->arm) - (x->arm < y->arm);
}

/* Mean of one arm's values in o[a, b) (all of one block, sorted by arm). */
static double arm_mean(const struct stats_obs *o, size_t a, size_t b, int arm, int harmonic,
		       double *buf)
{
	size_t i, k = 0;

	for (i = a; i < b; i++)
		if (o[i].arm == arm)
			buf[k++] = o[i].v;
	if (!k)
		return NAN;
	return harmonic ? stats_hmean(buf, k) : stats_mean(buf, k);
}

double stats_log_mean_exp(const double *l, size_t n)
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

long stats_block_means(const struct stats_obs *o, size_t n, int harmonic, double *ret_base,
		       double *ret_new, unsigned *ret_block, size_t max)
{
	struct stats_obs *v = malloc((n ? n : 1) * sizeof(*v));
	double *buf = malloc((n ? n : 1) * sizeof(*buf)), base, new;
	size_t a, b;
	long k = 0;

	if (!v || !buf) {
		free(v);
		free(buf);
		return -1;
	}
	memcpy(v, o, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_block);
	for (a = 0; a < n && (size_t)k < max; a = b) {
		for (b = a; b < n && v[b].block == v[a].block; b++)
			;
		base = arm_mean(v, a, b, 0, harmonic, buf);
		new = arm_mean(v, a, b, 1, harmonic, buf);
		if (isnan(base) || isnan(new))
			continue;
		if (ret_block)
			ret_block[k] = v[a].block;
		ret_base[k] = base;
		ret_new[k++] = new;
	}
	free(v);
	free(buf);
	return k;
}

long stats_block_deltas(const struct stats_obs *o, size_t n, int harmonic, double *ret_delta,
			unsigned *ret_block, size_t max)
{
	double *base = malloc((max ? max : 1) * sizeof(*base));
	double *new = malloc((max ? max : 1) * sizeof(*new));
	unsigned *blk = malloc((max ? max : 1) * sizeof(*blk));
	long k = base && new && blk ? stats_block_means(o, n, harmonic, base, new, blk, max) : -1;
	long i, j = 0;

	for (i = 0; i < k; i++) {
		if (base[i] == 0 && new[i] != 0)
			continue;
		if (ret_block)
			ret_block[j] = blk[i];
		ret_delta[j++] = base[i] == 0 ? 0 : new[i] / base[i] - 1;
	}
	free(base);
	free(new);
	free(blk);
	return k < 0 ? -1 : j;
}

/* ---- random numbers ---- */

uint64_t stats_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

double stats_gauss(uint64_t *state)
{
	double u1 = ((double)(stats_rand(state) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(stats_rand(state) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* ---- Pearson's r and Student's t ---- */

/* Continued fraction of the incomplete beta (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, num, del;
	int m, m2;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		m2 = 2 * m;
		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double stats_t_p2(double t, double df)
{
	if (isinf(t))
		return 0;
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

int stats_pearson(const double *x, const double *y, size_t n, struct stats_corr *ret)
{
	double mx, my, sxx = 0, syy = 0, sxy = 0, r, df;
	size_t i;

	if (n < 3)
		return -1;
	mx = stats_mean(x, n);
	my = stats_mean(y, n);
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (sxx <= 0 || syy <= 0)
		return -1;
	r = fmax(-1, fmin(1, sxy / sqrt(sxx * syy)));
	df = (double)(n - 2);
	ret->r = r;
	ret->t = 1 - r * r > 0 ? r * sqrt(df / (1 - r * r)) : copysign(INFINITY, r);
	ret->p = stats_t_p2(ret->t, df);
	return 0;
}

double stats_t_quantile(double P, double df)
{
	double lo = 0, hi = 1, mid, want;
	int i;

	if (!(P > 0 && P < 1) || !(df > 0))
		return NAN;
	if (P == 0.5)
		return 0;
	want = 2 * fmin(P, 1 - P);          /* the two-sided p of the quantile */
	while (stats_t_p2(hi, df) > want && hi < 1e15)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		mid = (lo + hi) / 2;
		if (stats_t_p2(mid, df) > want)
			lo = mid;
		else
			hi = mid;
	}
	return P > 0.5 ? (lo + hi) / 2 : -(lo + hi) / 2;
}

/* ---- Benjamini-Hochberg ---- */

struct ranked {
	double p;
	size_t i;
};

/* By p, then by index: the order Benjamini-Hochberg ranks in, ties stable. */
static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

int stats_bh(const double *p, size_t n, double *ret_q)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	double run = 1;
	size_t k;

	if (!r)
		return -1;
	for (k = 0; k < n; k++) {
		r[k].p = isnan(p[k]) ? 1 : p[k];
		r[k].i = k;
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (k = n; k-- > 0;) {        /* from the largest: q_(k) = min_{j >= k} n p_(j) / j */
		run = fmin(run, r[k].p * (double)n / (double)(k + 1));
		ret_q[r[k].i] = fmin(1, run);
	}
	free(r);
	return 0;
}
