/* verdict.c -- one verdict (DIFFERENT, SAME, UNKNOWN) on the paired ABBA-block
 * deltas of one cell and metric, against a noise floor, from an anytime-valid
 * confidence sequence; a family of them adjusted together; the drift check. */
#include "analysis/verdict.h"
#include "analysis/confseq.h"
#include "analysis/stats.h"
#include "base/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = { "UNKNOWN", "SAME", "DIFFERENT", "NOT MEASURED" };

const char *verdict_name(enum verdict_kind k)
{
	return verdict_names[k];
}

/*
 * Drift: Pearson's r of the paired delta against the block index, flagged
 * when p < COMPARE_ALPHA and the fitted line moves by at least the floor from
 * the first block to the last (a drift well inside the noise floor changes
 * no verdict, and would warn on rounding).
 */
static int drift_check(const double *d, const unsigned *blocks, size_t n, double floor,
		       struct verdict *v)
{
	double *x = calloc(n ? n : 1, sizeof(*x)), mx, my, sxx = 0, sxy = 0;
	struct stats_corr c;
	size_t i;

	v->drift_r = v->drift_p = NAN;
	if (!x)
		return -1;
	if (!blocks)
		goto out;
	for (i = 0; i < n; i++)
		x[i] = blocks[i];
	if (stats_pearson(x, d, n, &c) < 0)
		goto out;
	v->drift_r = c.r;
	v->drift_p = c.p;
	mx = stats_mean(x, n);
	my = stats_mean(d, n);
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (d[i] - my);
	}
	v->drift = c.p < COMPARE_ALPHA && fabs(sxy / sxx) * (x[n - 1] - x[0]) >= floor;
out:
	free(x);
	return 0;
}

/* Blocks more (at least 1) until the interval's half-width fits margin (in units of sd). */
static unsigned more_for(size_t n, double margin)
{
	size_t N = confseq_n_for(margin, n + 1, STATS_MORE_MAX - 1, COMPARE_ALPHA);

	return N ? (unsigned)(N - n) : STATS_MORE_MAX;
}

/*
 * UNKNOWN: if the mean and sd stay, DIFFERENT needs the half-width below
 * |mean| (when |mean| >= floor), SAME below floor - |mean|; that margin over
 * sd is a standardised effect, its 80 % band (standard error
 * sqrt((1 + m^2 / 2) / n), the delta method) gives the range.
 */
static void estimate(struct verdict *v)
{
	double a = fabs(v->delta), m, se;
	size_t n = v->blocks;

	if (n < 2 || isnan(v->sd)) {
		v->more = v->more_lo = n < COMPARE_MIN_BLOCKS ? (unsigned)(COMPARE_MIN_BLOCKS - n) : 1;
		v->more_hi = STATS_MORE_MAX;
		return;
	}
	if (v->sd == 0) {
		v->more = v->more_lo = v->more_hi = more_for(n, INFINITY);
		return;
	}
	m = (a >= v->floor ? a : v->floor - a) / v->sd;
	se = sqrt((1 + m * m / 2) / (double)n);
	v->more = more_for(n, m);
	v->more_lo = more_for(n, m + VERDICT_RANGE_Z * se);
	v->more_hi = more_for(n, m - VERDICT_RANGE_Z * se);
}

/* The kind from q, the mean and the interval (see verdict_decide). */
static void decide(struct verdict *v)
{
	int enough = v->blocks >= COMPARE_MIN_BLOCKS;

	if (v->kind == VERDICT_UNMEASURED)
		return;
	v->kind = VERDICT_UNKNOWN;
	v->worse = 0;
	v->more = v->more_lo = v->more_hi = 0;
	if (enough && v->q <= COMPARE_ALPHA && fabs(v->delta) >= v->floor) {
		v->kind = VERDICT_DIFFERENT;
		v->worse = v->higher_better ? v->delta < 0 : v->delta > 0;
	} else if (enough && v->lo >= -v->floor && v->hi <= v->floor) {
		v->kind = VERDICT_SAME;
	} else {
		estimate(v);
	}
}

int verdict_decide(const double *d, const unsigned *blocks, size_t n, double floor,
		   int higher_better, struct verdict *v)
{
	double r;

	memset(v, 0, sizeof(*v));
	v->blocks = n;
	v->floor = floor;
	v->higher_better = higher_better;
	v->delta = stats_mean(d, n);
	v->sd = stats_sd(d, n);
	v->lo = -INFINITY;
	v->hi = INFINITY;
	r = confseq_radius(n, COMPARE_ALPHA);
	if (!isinf(r) && !isnan(v->sd)) {
		v->lo = v->delta - r * v->sd / sqrt((double)n);
		v->hi = v->delta + r * v->sd / sqrt((double)n);
	}
	v->p = v->q = confseq_p(v->delta, v->sd, n);
	v->different_raw = n >= COMPARE_MIN_BLOCKS && v->p <= COMPARE_ALPHA &&
			   fabs(v->delta) >= floor;
	decide(v);
	return drift_check(d, blocks, n, floor, v);
}

void verdict_unmeasured(struct verdict *v)
{
	v->kind = VERDICT_UNMEASURED;
	v->delta = v->sd = v->lo = v->hi = v->p = v->q = NAN;
	v->different_raw = v->worse = v->drift = 0;
	v->more = v->more_lo = v->more_hi = 0;
}

int verdict_of_runs(const struct stats_obs *o, size_t n_obs, int harmonic, double floor,
		    int higher_better, double *d, unsigned *blocks, size_t cap, struct verdict *v)
{
	long k = stats_block_deltas(o, n_obs, harmonic, d, blocks, cap);
	size_t i, zeros = 0, values = 0;

	if (k < 0 || verdict_decide(d, blocks, (size_t)k, floor, higher_better, v) < 0)
		return -1;
	for (i = 0; i < n_obs; i++) {
		values += !isnan(o[i].v);
		zeros += o[i].v == 0;
	}
	if (values && zeros == values)
		verdict_unmeasured(v);
	return 0;
}

int verdict_adjust(struct verdict *const *v, size_t n)
{
	_cleanup_free_ double *p = calloc(n + 1, sizeof(*p)), *q = calloc(n + 1, sizeof(*q));
	size_t i, k = 0;

	if (!p || !q)
		return -1;
	for (i = 0; i < n; i++)
		if (v[i]->kind != VERDICT_UNMEASURED)
			p[k++] = v[i]->p;
	if (stats_bh(p, k, q) < 0)
		return -1;
	for (i = 0, k = 0; i < n; i++)
		if (v[i]->kind != VERDICT_UNMEASURED) {
			v[i]->q = q[k++];
			decide(v[i]);
		}
	return 0;
}

double verdict_detectable(double sd, double floor, size_t n)
{
	double r = confseq_radius(n, COMPARE_ALPHA), se;

	if (n < COMPARE_MIN_BLOCKS || isinf(r) || !isfinite(sd) || sd < 0)
		return INFINITY;
	se = sd / sqrt((double)n);
	return fmax(floor, r * se) + VERDICT_POWER_Z * se;
}

unsigned verdict_blocks_for(double sd, double floor, double effect)
{
	size_t lo = COMPARE_MIN_BLOCKS, hi = STATS_MORE_MAX, mid;

	/* past the minimum, both terms fall with n: bisect */
	if (!(effect > floor) || verdict_detectable(sd, floor, hi) > effect)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (verdict_detectable(sd, floor, mid) <= effect)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (unsigned)lo;
}

double verdict_aa_floor(double mean, double sd, size_t n)
{
	if (n < COMPARE_MIN_BLOCKS || isnan(mean) || isnan(sd))
		return NAN;
	return fabs(mean) + stats_t_quantile(1 - COMPARE_ALPHA / 2, (double)(n - 1)) * sd /
	       sqrt((double)n);
}
