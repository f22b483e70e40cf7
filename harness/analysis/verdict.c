/* verdict.c -- one verdict (DIFFERENT, SAME, UNKNOWN) on the per-ABBA-block log
 * ratios (or differences) of one cell and metric, against a declared margin,
 * from an anytime-valid confidence sequence; a family adjusted; the drift check. */
#include "analysis/verdict.h"
#include "analysis/confseq.h"
#include "analysis/signflip.h"
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
 * Drift: Pearson's r of the per-block statistic against the block index,
 * flagged when p < COMPARE_ALPHA and the fitted line moves by at least the
 * margin (on the statistic's scale) from the first block to the last (a
 * drift well inside the margin changes no verdict, and would warn on rounding).
 */
static int drift_check(const double *d, const unsigned *blocks, size_t n, double margin,
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
	v->drift = c.p < COMPARE_ALPHA && fabs(sxy / sxx) * (x[n - 1] - x[0]) >= margin;
out:
	free(x);
	return 0;
}

/*
 * Blocks more (at least 1) until the interval's half-width fits margin (in
 * units of sd), and the total at least least (a DIFFERENT: the sign-flip
 * test's fewest blocks; SAME: 0).
 */
static unsigned more_for(size_t n, double margin, double alpha, size_t least)
{
	size_t N = confseq_n_for(margin, n + 1, STATS_MORE_MAX - 1, alpha);

	if (!N)
		return STATS_MORE_MAX;
	return (unsigned)((N > least ? N : least) - n);
}

double verdict_to_scale(enum verdict_scale scale, double x)
{
	return scale == VERDICT_LOG ? log1p(x) : x;
}

double verdict_shown(enum verdict_scale scale, double x)
{
	return scale == VERDICT_LOG ? expm1(x) : x;
}

/*
 * UNKNOWN: if the mean and sd stay, DIFFERENT needs the half-width below
 * |mean| (when |mean| >= min_effect), SAME below margin - |mean|; that room
 * over sd is a standardised effect, its 80 % band (standard error
 * sqrt((1 + m^2 / 2) / n), the delta method) gives the range.
 */
static void estimate(struct verdict *v)
{
	double a = fabs(v->est), m, se, lo = verdict_to_scale(v->scale, v->min_effect);
	double mg = verdict_to_scale(v->scale, v->margin), al = v->alpha_used;
	size_t n = v->blocks, least = a >= lo ? signflip_min_n(al) : 0;

	if (a >= lo && !least)       /* the sign-flip test can never reject at al */
		least = STATS_MORE_MAX + n;

	if (n < 2 || isnan(v->sd)) {
		v->more = v->more_lo = n < COMPARE_MIN_BLOCKS ? (unsigned)(COMPARE_MIN_BLOCKS - n) : 1;
		v->more_hi = STATS_MORE_MAX;
		return;
	}
	if (v->sd == 0) {
		v->more = v->more_lo = v->more_hi = more_for(n, INFINITY, al, least);
		return;
	}
	m = (a >= lo ? a : mg - a) / v->sd;
	se = sqrt((1 + m * m / 2) / (double)n);
	v->more = more_for(n, m, al, least);
	v->more_lo = more_for(n, m + VERDICT_RANGE_Z * se, al, least);
	v->more_hi = more_for(n, m - VERDICT_RANGE_Z * se, al, least);
}

/*
 * The interval at level 1 - alpha, on the scale and as shown: the t
 * mixture's, reaching to 0 while the sign-flip test has not rejected 0 at
 * alpha (0 is then still a value neither test rules out, so an interval that
 * excludes it is never shown beside anything but DIFFERENT or a row under
 * its minimum effect).
 */
static void draw_interval(struct verdict *v, double alpha, double *ret_lo, double *ret_hi)
{
	double r = confseq_radius(v->blocks, alpha), h;

	v->alpha_used = alpha;
	*ret_lo = -INFINITY;
	*ret_hi = INFINITY;
	if (!isinf(r) && !isnan(v->sd)) {
		h = r * v->sd / sqrt((double)v->blocks);
		*ret_lo = v->est - h;
		*ret_hi = v->est + h;
	}
	if (v->p_sym > alpha) {
		*ret_lo = fmin(*ret_lo, 0);
		*ret_hi = fmax(*ret_hi, 0);
	}
	v->lo = isinf(*ret_lo) ? -INFINITY : verdict_shown(v->scale, *ret_lo);
	v->hi = isinf(*ret_hi) ? INFINITY : verdict_shown(v->scale, *ret_hi);
}

/* p as the adjustment takes it: 1 under the minimum effect (it cannot be DIFFERENT). */
static double p_gated(const struct verdict *v)
{
	return fabs(v->est) >= verdict_to_scale(v->scale, v->min_effect) ? v->p : 1;
}

/* The kind from q, the mean and the interval at alpha (see verdict_decide). */
static void decide(struct verdict *v, double alpha)
{
	int enough = v->blocks >= COMPARE_MIN_BLOCKS;
	double mg = verdict_to_scale(v->scale, v->margin), lo, hi;

	if (v->kind == VERDICT_UNMEASURED)
		return;
	draw_interval(v, alpha, &lo, &hi);
	v->kind = VERDICT_UNKNOWN;
	v->worse = 0;
	v->more = v->more_lo = v->more_hi = 0;
	if (enough && v->q <= COMPARE_ALPHA) {
		v->kind = VERDICT_DIFFERENT;
		v->worse = v->higher_better ? v->est < 0 : v->est > 0;
	} else if (enough && lo >= -mg && hi <= mg) {
		v->kind = VERDICT_SAME;
	} else {
		estimate(v);
	}
}

int verdict_decide(const double *d, const unsigned *blocks, size_t n,
		   const struct verdict_rule *rule, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->blocks = n;
	v->scale = rule->scale;
	v->margin = rule->margin;
	v->min_effect = fmin(rule->min_effect, rule->margin);
	v->higher_better = rule->higher_better;
	v->est = stats_mean(d, n);
	v->sd = stats_sd(d, n);
	v->delta = verdict_shown(v->scale, v->est);
	v->p_sym = signflip_p(d, n);
	v->p = fmax(confseq_p(v->est, v->sd, n), v->p_sym);
	v->q = p_gated(v);
	v->different_raw = n >= COMPARE_MIN_BLOCKS && v->q <= COMPARE_ALPHA;
	decide(v, COMPARE_ALPHA);
	return drift_check(d, blocks, n, verdict_to_scale(v->scale, v->margin), v);
}

void verdict_unmeasured(struct verdict *v)
{
	v->kind = VERDICT_UNMEASURED;
	v->est = v->delta = v->sd = v->lo = v->hi = v->p = v->p_sym = v->q = NAN;
	v->different_raw = v->worse = v->drift = 0;
	v->more = v->more_lo = v->more_hi = 0;
}

/* Each block's statistic on scale from its two means, into d and blocks; how many. */
static size_t block_stats(enum verdict_scale scale, const double *base, const double *new,
			  unsigned *blocks, size_t k, double *d)
{
	size_t i, j = 0;

	for (i = 0; i < k; i++) {
		if (scale == VERDICT_DIFF)
			d[j] = (new[i] - base[i]) / 100;
		else if (base[i] > 0 && new[i] > 0)
			d[j] = log(new[i] / base[i]);
		else if (base[i] == 0 && new[i] == 0)
			d[j] = 0;
		else
			continue;
		blocks[j++] = blocks[i];
	}
	return j;
}

int verdict_of_runs(const struct stats_obs *o, size_t n_obs, const struct verdict_rule *rule,
		    double *d, unsigned *blocks, size_t cap, struct verdict *v)
{
	_cleanup_free_ double *base = calloc(cap + 1, sizeof(*base));
	_cleanup_free_ double *new = calloc(cap + 1, sizeof(*new));
	long k = base && new ? stats_block_means(o, n_obs, rule->harmonic, base, new, blocks, cap)
			     : -1;
	size_t i, zeros = 0, values = 0;

	if (k < 0 || verdict_decide(d, blocks, block_stats(rule->scale, base, new, blocks,
							     (size_t)k, d), rule, v) < 0)
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
	size_t i, k = 0, family, called = 0;
	double level;

	if (!p || !q)
		return -1;
	for (i = 0; i < n; i++)
		if (v[i]->kind != VERDICT_UNMEASURED)
			p[k++] = p_gated(v[i]);
	if (stats_bh(p, k, q) < 0)
		return -1;
	for (family = k, i = 0; i < family; i++)
		called += q[i] <= COMPARE_ALPHA;
	level = family ? COMPARE_ALPHA * (double)(called ? called : 1) / (double)family : 0;
	for (i = 0, k = 0; i < n; i++)
		if (v[i]->kind != VERDICT_UNMEASURED) {
			v[i]->q = q[k++];
			decide(v[i], level);
		}
	return 0;
}

double verdict_least_callable(double sd, double min_effect, size_t n, size_t family)
{
	double a = COMPARE_ALPHA / (double)(family ? family : 1), r = confseq_radius(n, a);
	size_t least = signflip_min_n(a);

	if (n < COMPARE_MIN_BLOCKS || !least || n < least || isinf(r) || !isfinite(sd) || sd < 0)
		return INFINITY;
	return fmax(min_effect, r * sd / sqrt((double)n));
}

double verdict_detectable(double sd, double min_effect, size_t n, size_t family)
{
	double least = verdict_least_callable(sd, min_effect, n, family);

	return isinf(least) ? INFINITY : least + VERDICT_POWER_Z * sd / sqrt((double)n);
}

unsigned verdict_blocks_for(double sd, double min_effect, double effect, size_t family)
{
	size_t lo = signflip_min_n(COMPARE_ALPHA / (double)(family ? family : 1)),
	       hi = STATS_MORE_MAX, mid;

	/* past the minimum, both terms fall with n: bisect */
	if (lo < COMPARE_MIN_BLOCKS)
		lo = COMPARE_MIN_BLOCKS;
	if (!(effect > min_effect) || verdict_detectable(sd, min_effect, hi, family) > effect)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (verdict_detectable(sd, min_effect, mid, family) <= effect)
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
