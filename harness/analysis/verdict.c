/* verdict.c -- one verdict (DIFFERENT, SAME, UNKNOWN) on the per-ABBA-block log
 * ratios (or differences) of one cell and metric, against a declared margin,
 * from an anytime-valid confidence sequence; a family adjusted; the drift check. */
#include "analysis/verdict.h"
#include "analysis/confseq.h"
#include "analysis/permtest.h"
#include "analysis/signflip.h"
#include "analysis/stats.h"
#include "base/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VERDICT_BLOCK_RUNS 64     /* runs of one arm in one unit read, at most */

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

double verdict_robust_mix(double ls, double lp, int runs)
{
	double w = VERDICT_PERM_SHARE, m;

	if (!runs)
		return ls;
	m = fmax(ls, lp);
	return m + log((1 - w) * exp(ls - m) + w * exp(lp - m));
}

/*
 * The robust test's log e-value of "NEW is BASE shifted by mu" (on the
 * scale): the sign-flip bettors on d - mu, and, with runs, the
 * randomisation bettors on each unit's runs with NEW's shifted back by mu.
 */
static double robust_log_e(const double *d, const struct verdict_runs *runs, size_t n,
			   enum verdict_scale scale, int harmonic, double mu)
{
	double ls = signflip_log_evalue_at(d, n, mu), l[PERMTEST_BETS] = { 0 },
	       lf[PERMTEST_BETS], w[PERMTEST_RUNS], f = exp(-mu);
	size_t i, j;

	if (!runs)
		return ls;
	for (i = 0; i < n; i++) {
		for (j = 0; j < runs[i].nw && j < PERMTEST_RUNS; j++)
			w[j] = scale == VERDICT_LOG ? runs[i].w[j] * f : runs[i].w[j] - 100 * mu;
		permtest_block(runs[i].b, runs[i].nb, w, runs[i].nw, harmonic,
			       scale == VERDICT_LOG, lf);
		for (j = 0; j < PERMTEST_BETS; j++)
			l[j] += lf[j];
	}
	return verdict_robust_mix(ls, permtest_log_e(l), 1);
}

size_t verdict_same_min_blocks(void)
{
	return (size_t)ceil(log(COMPARE_ALPHA) / (2 * log1p(-1.0 / VERDICT_STALL_RUNS)));
}

size_t verdict_min_different(double alpha, int runs)
{
	static const double b[2] = { 1, 1 }, w[2] = { 2, 2 };
	double lf[PERMTEST_BETS], l[PERMTEST_BETS] = { 0 }, target, ls;
	struct signflip sf;
	size_t n, j, t = 0;

	if (!(alpha > 0 && alpha < 1))
		return 0;
	target = log(1 / alpha);
	permtest_block(b, 2, w, 2, 1, 1, lf);
	signflip_init(&sf);
	for (n = 1; n <= 1000; n++) {
		signflip_push(&sf, 1);     /* equal units of one sign: the signs' best */
		for (j = 0; j < PERMTEST_BETS; j++)
			l[j] += lf[j];
		if (!t && confseq_log_evalue(INFINITY, n) >= target)
			t = n;
		ls = signflip_state_log_e(&sf);
		if (t && verdict_robust_mix(ls, permtest_log_e(l), runs) >= target)
			return n > COMPARE_MIN_BLOCKS ? n : COMPARE_MIN_BLOCKS;
	}
	return 0;
}

/*
 * UNKNOWN: if the mean and sd stay, DIFFERENT needs the half-width below
 * |mean| (when |mean| >= min_effect), SAME below margin - |mean|; that room
 * over sd is a standardised effect, its 80 % band (standard error
 * sqrt((1 + m^2 / 2) / n), the delta method) gives the range. Never fewer
 * than the blocks the verdict's kind needs at all.
 */
static void estimate(struct verdict *v)
{
	double a = fabs(v->est), m, se, lo = verdict_to_scale(v->scale, v->min_effect);
	double mg = verdict_to_scale(v->scale, v->margin), al = v->alpha_used;
	size_t n = v->blocks, least = a >= lo ? verdict_min_different(al, v->runs)
					      : verdict_same_min_blocks();

	if (!least)       /* the robust test can never reject at al */
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
 * The robust test's log e-value on a grid around the data, 0 and both ends
 * of the margin (0 a grid point), so the interval can be redrawn at any
 * level (verdict_adjust) without the data.
 */
static void robust_grid(struct verdict *v, const double *d, const struct verdict_runs *runs,
			int harmonic)
{
	double mg = verdict_to_scale(v->scale, v->margin), dev = 0, r, lo, hi, h;
	size_t i, n = v->blocks;
	long k0;

	for (i = 0; i < n; i++)
		dev = fmax(dev, fabs(d[i] - v->est));
	r = fmax(3 * dev, fmax(isnan(v->sd) ? 0 : 4 * v->sd, mg));
	lo = fmin(fmin(0, v->est - r), -2 * mg);
	hi = fmax(fmax(0, v->est + r), 2 * mg);
	h = (hi - lo) / (VERDICT_GRID - 2);
	if (!(h > 0) || !isfinite(h))
		return;
	k0 = lround(-lo / h);
	v->grid_lo = -(double)k0 * h;
	v->grid_h = h;
	for (i = 0; i < VERDICT_GRID; i++)
		v->grid_le[i] = robust_log_e(d, runs, n, v->scale, harmonic,
					     i == (size_t)k0 ? 0 : v->grid_lo + (double)i * h);
	v->grid_n = VERDICT_GRID;
}

/* Where the grid's log e crosses target between points i - 1 (rejected) and i (kept). */
static double grid_cross(const struct verdict *v, size_t i, size_t j, double target)
{
	double a = v->grid_le[i], b = v->grid_le[j], xi = v->grid_lo + (double)i * v->grid_h,
	       xj = v->grid_lo + (double)j * v->grid_h;

	return a == b ? xj : xi + (xj - xi) * (a - target) / (a - b);
}

/*
 * The robust test's kept set at level alpha, as a hull [*lo, *hi] on the
 * scale: -+INFINITY where it is kept to the grid's end; returns 0 if it
 * keeps no grid point. The ends of the margin SAME tested are respected.
 */
static int robust_hull(const struct verdict *v, double alpha, double *lo, double *hi)
{
	double target = log(1 / alpha), mg = verdict_to_scale(v->scale, v->margin);
	size_t i, a = v->grid_n, b = 0;

	for (i = 0; i < v->grid_n; i++)
		if (v->grid_le[i] < target) {
			if (a == v->grid_n)
				a = i;
			b = i;
		}
	if (a == v->grid_n)
		return 0;
	*lo = a == 0 ? -INFINITY : grid_cross(v, a - 1, a, target);
	*hi = b == v->grid_n - 1 ? INFINITY : grid_cross(v, b + 1, b, target);
	if (v->le_neg >= target)
		*lo = fmax(*lo, -mg);
	if (v->le_pos >= target)
		*hi = fmin(*hi, mg);
	return 1;
}

/*
 * The interval at level 1 - alpha, on the scale and as shown: every value
 * the t mixture or the robust test keeps (a value is out only when both
 * reject it, as 0 is only when both do), so it covers the truth at every
 * look when the blocks are normal or the runs exchangeable. Without the
 * grid (quick): the t mixture's, reaching to 0 while the robust test keeps it.
 */
static void draw_interval(struct verdict *v, double alpha, double *ret_lo, double *ret_hi)
{
	double r = confseq_radius(v->blocks, alpha), h, rlo, rhi;

	v->alpha_used = alpha;
	*ret_lo = -INFINITY;
	*ret_hi = INFINITY;
	if (!isinf(r) && !isnan(v->sd)) {
		h = r * v->sd / sqrt((double)v->blocks);
		*ret_lo = v->est - h;
		*ret_hi = v->est + h;
	}
	if (v->grid_n && robust_hull(v, alpha, &rlo, &rhi)) {
		*ret_lo = fmin(*ret_lo, rlo);
		*ret_hi = fmax(*ret_hi, rhi);
	}
	if (v->p_sym > alpha) {
		*ret_lo = fmin(*ret_lo, 0);
		*ret_hi = fmax(*ret_hi, 0);
	}
}

/* The interval as shown, from its ends on the scale; an UNKNOWN's reaches to 0. */
static void show_interval(struct verdict *v, double lo, double hi)
{
	if (v->kind == VERDICT_UNKNOWN) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	v->lo = isinf(lo) ? -INFINITY : verdict_shown(v->scale, lo);
	v->hi = isinf(hi) ? INFINITY : verdict_shown(v->scale, hi);
}

/* p as the adjustment takes it: 1 under the minimum effect (it cannot be DIFFERENT). */
static double p_gated(const struct verdict *v)
{
	return fabs(v->est) >= verdict_to_scale(v->scale, v->min_effect) ? v->p : 1;
}

/*
 * SAME at alpha: enough units for a stall to have shown, the t mixture's
 * interval within the margin, and the robust test rejecting both its ends.
 */
static int same_at(const struct verdict *v, double alpha)
{
	double mg = verdict_to_scale(v->scale, v->margin), r = confseq_radius(v->blocks, alpha), h;

	if (v->blocks < verdict_same_min_blocks() || isinf(r) || isnan(v->sd))
		return 0;
	h = r * v->sd / sqrt((double)v->blocks);
	return v->est - h >= -mg && v->est + h <= mg && v->le_pos >= log(1 / alpha) &&
	       v->le_neg >= log(1 / alpha);
}

/* The kind from q, the mean and the interval at alpha (see verdict_decide). */
static void decide(struct verdict *v, double alpha)
{
	int enough = v->blocks >= COMPARE_MIN_BLOCKS;
	double lo, hi;

	if (v->kind == VERDICT_UNMEASURED)
		return;
	draw_interval(v, alpha, &lo, &hi);
	v->kind = VERDICT_UNKNOWN;
	v->worse = 0;
	v->more = v->more_lo = v->more_hi = 0;
	if (enough && v->q <= COMPARE_ALPHA) {
		v->kind = VERDICT_DIFFERENT;
		v->worse = v->higher_better ? v->est < 0 : v->est > 0;
	} else if (same_at(v, alpha)) {
		v->kind = VERDICT_SAME;
	} else {
		estimate(v);
	}
	show_interval(v, lo, hi);
}

int verdict_decide_runs(const double *d, const unsigned *blocks, const struct verdict_runs *runs,
			size_t n, const struct verdict_rule *rule, struct verdict *v)
{
	double mg;

	memset(v, 0, sizeof(*v));
	v->blocks = n;
	v->scale = rule->scale;
	v->harmonic = rule->harmonic;
	v->margin = rule->margin;
	v->min_effect = fmin(rule->min_effect, rule->margin);
	v->higher_better = rule->higher_better;
	v->runs = runs != NULL;
	v->est = stats_mean(d, n);
	v->sd = stats_sd(d, n);
	v->delta = verdict_shown(v->scale, v->est);
	mg = verdict_to_scale(v->scale, v->margin);
	v->p_sym = fmin(1, exp(-robust_log_e(d, runs, n, v->scale, rule->harmonic, 0)));
	if (n >= verdict_same_min_blocks()) {     /* SAME's robust evidence, only when it can count */
		v->le_pos = robust_log_e(d, runs, n, v->scale, rule->harmonic, mg);
		v->le_neg = robust_log_e(d, runs, n, v->scale, rule->harmonic, -mg);
	}
	if (!rule->quick && n >= 2)
		robust_grid(v, d, runs, rule->harmonic);
	v->p = fmax(confseq_p(v->est, v->sd, n), v->p_sym);
	v->q = p_gated(v);
	v->different_raw = n >= COMPARE_MIN_BLOCKS && v->q <= COMPARE_ALPHA;
	decide(v, COMPARE_ALPHA);
	return drift_check(d, blocks, n, mg, v);
}

int verdict_decide(const double *d, const unsigned *blocks, size_t n,
		   const struct verdict_rule *rule, struct verdict *v)
{
	return verdict_decide_runs(d, blocks, NULL, n, rule, v);
}

int verdict_covers(const struct verdict *v, const double *d, const struct verdict_runs *runs,
		   double mu)
{
	double r = confseq_radius(v->blocks, v->alpha_used);

	if (isinf(r) || isnan(v->sd) || fabs(v->est - mu) <= r * v->sd / sqrt((double)v->blocks))
		return 1;
	return robust_log_e(d, runs, v->blocks, v->scale, v->harmonic, mu) < log(1 / v->alpha_used);
}

void verdict_unmeasured(struct verdict *v)
{
	v->kind = VERDICT_UNMEASURED;
	v->est = v->delta = v->sd = v->lo = v->hi = v->p = v->p_sym = v->q = NAN;
	v->different_raw = v->worse = v->drift = 0;
	v->more = v->more_lo = v->more_hi = 0;
}

static int cmp_obs(const void *a, const void *b)
{
	const struct stats_obs *x = a, *y = b;

	return (x->block > y->block) - (x->block < y->block);
}

/*
 * One block's runs o[0..k) into r, and its statistic on the rule's scale
 * into *d: 0, or 1 when the block has no statistic (an arm without runs; on
 * the log scale one mean 0 and the other not; both 0 give 0).
 */
static int block_of(const struct stats_obs *o, size_t k, const struct verdict_rule *rule,
		    struct verdict_runs *r, double *d)
{
	double bs[VERDICT_BLOCK_RUNS], ws[VERDICT_BLOCK_RUNS], base, new;
	size_t i, nb = 0, nw = 0;

	for (i = 0; i < k; i++) {       /* a NAN run makes its arm's mean NAN: no statistic */
		if (o[i].arm == 0 && nb < VERDICT_BLOCK_RUNS)
			bs[nb++] = o[i].v;
		else if (o[i].arm == 1 && nw < VERDICT_BLOCK_RUNS)
			ws[nw++] = o[i].v;
	}
	if (!nb || !nw)
		return 1;
	base = rule->harmonic ? stats_hmean(bs, nb) : stats_mean(bs, nb);
	new = rule->harmonic ? stats_hmean(ws, nw) : stats_mean(ws, nw);
	if (isnan(base) || isnan(new))
		return 1;
	if (rule->scale == VERDICT_DIFF)
		*d = (new - base) / 100;
	else if (base > 0 && new > 0)
		*d = log(new / base);
	else if (base == 0 && new == 0)
		*d = 0;
	else
		return 1;
	memset(r, 0, sizeof(*r));
	if (nb + nw <= PERMTEST_RUNS) {       /* more: no randomisation bet (nb = nw = 0) */
		memcpy(r->b, bs, nb * sizeof(*bs));
		memcpy(r->w, ws, nw * sizeof(*ws));
		r->nb = (unsigned)nb;
		r->nw = (unsigned)nw;
	}
	return 0;
}

/*
 * Each unit's statistic and runs, in block order, into d, blocks and r (room
 * for cap each): how many, or -1 out of memory.
 */
static long units_of(const struct stats_obs *o, size_t n_obs, const struct verdict_rule *rule,
		     double *d, unsigned *blocks, struct verdict_runs *r, size_t cap)
{
	_cleanup_free_ struct stats_obs *s = malloc((n_obs ? n_obs : 1) * sizeof(*s));
	struct verdict_runs tmp;
	size_t a, b, k = 0;

	if (!s)
		return -1;
	memcpy(s, o, n_obs * sizeof(*s));
	qsort(s, n_obs, sizeof(*s), cmp_obs);
	for (a = 0; a < n_obs && k < cap; a = b) {
		for (b = a; b < n_obs && s[b].block == s[a].block; b++)
			;
		if (block_of(s + a, b - a, rule, r ? &r[k] : &tmp, &d[k]) == 0) {
			if (blocks)
				blocks[k] = s[a].block;
			k++;
		}
	}
	return (long)k;
}

long verdict_unit_stats(const struct stats_obs *o, size_t n_obs, const struct verdict_rule *rule,
			double *d, size_t cap)
{
	return units_of(o, n_obs, rule, d, NULL, NULL, cap);
}

int verdict_of_runs(const struct stats_obs *o, size_t n_obs, const struct verdict_rule *rule,
		    double *d, unsigned *blocks, size_t cap, struct verdict *v)
{
	_cleanup_free_ struct verdict_runs *r = calloc(cap + 1, sizeof(*r));
	long k = r ? units_of(o, n_obs, rule, d, blocks, r, cap) : -1;
	size_t i, zeros = 0, values = 0;

	if (k < 0 || verdict_decide_runs(d, blocks, r, (size_t)k, rule, v) < 0)
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
	size_t least = verdict_min_different(a, 1);

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
	size_t lo = verdict_min_different(COMPARE_ALPHA / (double)(family ? family : 1), 1),
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
