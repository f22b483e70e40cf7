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

long stats_block_deltas(const struct stats_obs *o, size_t n, int harmonic, double *ret_delta,
			unsigned *ret_block, size_t max)
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
		if (isnan(base) || isnan(new) || (base == 0 && new != 0))
			continue;
		if (ret_block)
			ret_block[k] = v[a].block;
		ret_delta[k++] = base == 0 ? 0 : new / base - 1;
	}
	free(v);
	free(buf);
	return k;
}

/* ---- bootstrap ---- */

uint64_t stats_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Linear interpolation between order statistics of sorted v at p * (n - 1). */
static double quantile(const double *v, size_t n, double p)
{
	double h = p * (double)(n - 1), f = floor(h);
	size_t i = (size_t)f;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - f) * (v[i + 1] - v[i]);
}

int stats_bootstrap_ci(const double *x, size_t n, unsigned B, double level, uint64_t seed,
		       double *ret_lo, double *ret_hi)
{
	double *means, sum;
	uint64_t state = seed;
	unsigned b;
	size_t i;

	if (!n || B < 2 || !(means = malloc(B * sizeof(*means))))
		return -1;
	for (b = 0; b < B; b++) {
		sum = 0;
		for (i = 0; i < n; i++)
			sum += x[stats_rand(&state) % n];
		means[b] = sum / (double)n;
	}
	qsort(means, B, sizeof(*means), cmp_double);
	*ret_lo = quantile(means, B, (1 - level) / 2);
	*ret_hi = quantile(means, B, (1 + level) / 2);
	free(means);
	return 0;
}

/* ---- Wilcoxon signed-rank ---- */

struct signed_abs {
	double a;
	int pos;
};

static int cmp_abs(const void *a, const void *b)
{
	return cmp_double(&((const struct signed_abs *)a)->a, &((const struct signed_abs *)b)->a);
}

/*
 * Exact two-sided p: the distribution of 2 W+ over every sign assignment of
 * the doubled (integer) ranks r2, by counting subsets of each sum.
 */
static double exact_p(const unsigned *r2, size_t n, unsigned w2)
{
	unsigned total = 0, s, k;
	double *cnt, below = 0, above = 0, all;
	size_t i;

	for (i = 0; i < n; i++)
		total += r2[i];
	if (!(cnt = calloc(total + 1, sizeof(*cnt))))
		return NAN;
	cnt[0] = 1;
	for (i = 0, s = 0; i < n; i++) {
		s += r2[i];
		for (k = s; k >= r2[i]; k--) {
			cnt[k] += cnt[k - r2[i]];
			if (k == r2[i])
				break;
		}
	}
	all = ldexp(1, (int)n);
	for (k = 0; k <= total; k++) {
		if (k <= w2)
			below += cnt[k];
		if (k >= w2)
			above += cnt[k];
	}
	free(cnt);
	return fmin(1, 2 * fmin(below, above) / all);
}

int stats_wilcoxon(const double *x, size_t n, struct stats_wilcoxon *ret)
{
	struct signed_abs *v = malloc((n ? n : 1) * sizeof(*v));
	unsigned *r2 = malloc((n ? n : 1) * sizeof(*r2)), w2 = 0;
	double ties = 0, mean, var, t;
	size_t m = 0, i, j, k;

	if (!v || !r2) {
		free(v);
		free(r2);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (x[i] != 0) {
			v[m].a = fabs(x[i]);
			v[m++].pos = x[i] > 0;
		}
	qsort(v, m, sizeof(*v), cmp_abs);
	for (i = 0; i < m; i = j) {
		for (j = i; j < m && v[j].a == v[i].a; j++)
			;
		t = (double)(j - i);
		ties += t * t * t - t;
		for (k = i; k < j; k++) {
			r2[k] = (unsigned)(i + 1 + j);   /* 2 x the average of ranks i+1 .. j */
			w2 += v[k].pos ? r2[k] : 0;
		}
	}
	ret->n = m;
	ret->w_plus = w2 / 2.0;
	ret->exact = m <= STATS_EXACT_MAX;
	if (!m) {
		ret->p = 1;
	} else if (ret->exact) {
		ret->p = exact_p(r2, m, w2);
	} else {
		mean = (double)m * (double)(m + 1) / 4;
		var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24 - ties / 48;
		ret->p = var > 0 ? erfc(fabs(ret->w_plus - mean) / sqrt(var) / M_SQRT2) : 1;
	}
	free(v);
	free(r2);
	return isnan(ret->p) ? -1 : 0;
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

unsigned stats_more_blocks(size_t n, double mean, double half, double floor)
{
	double target = fabs(mean) >= floor ? fabs(mean) : floor - fabs(mean), need;

	if (!n || !(target > 0) || !isfinite(half))
		return STATS_MORE_MAX;
	need = ceil((double)n * (half / target) * (half / target));
	if (need > (double)n + STATS_MORE_MAX)
		return STATS_MORE_MAX;
	return need > (double)n ? (unsigned)(need - (double)n) : 1;
}
