/* verdict.c -- one verdict (DIFFERENT, SAME, UNKNOWN) on the paired ABBA-block
 * deltas of one cell and metric, against a noise floor; the drift check. */
#include "analysis/verdict.h"
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = { "UNKNOWN", "SAME", "DIFFERENT" };

const char *verdict_name(enum verdict_kind k)
{
	return verdict_names[k];
}

#define WILCOXON_MIN 6   /* two-sided exact p < 0.05 needs 6 non-zero deltas */

/*
 * Drift: Pearson's r of the paired delta against the block index, flagged
 * when p < COMPARE_ALPHA and the fitted line moves by at least the floor from
 * the first block to the last (a drift well inside the noise floor changes
 * no verdict, and would warn on rounding).
 */
static void drift_check(const double *d, const unsigned *blocks, size_t n, double floor,
			struct verdict *v)
{
	double *x = calloc(n ? n : 1, sizeof(*x)), mx, my, sxx = 0, sxy = 0;
	struct stats_corr c;
	size_t i;

	v->drift_r = v->drift_p = NAN;
	if (!x || !blocks)
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
}

int verdict_decide(const double *d, const unsigned *blocks, size_t n, double floor,
		    int higher_better, unsigned resamples, struct verdict *v)
{
	struct stats_wilcoxon w;
	unsigned more;

	memset(v, 0, sizeof(*v));
	v->blocks = n;
	v->floor = floor;
	v->delta = v->lo = v->hi = v->p = NAN;
	v->kind = VERDICT_UNKNOWN;
	if (n < COMPARE_MIN_BLOCKS) {
		v->more = (unsigned)(COMPARE_MIN_BLOCKS - n);
		drift_check(d, blocks, n, floor, v);
		return 0;
	}
	v->delta = stats_mean(d, n);
	if (stats_bootstrap_ci(d, n, resamples ? resamples : STATS_BOOT_B, COMPARE_LEVEL,
			       STATS_BOOT_SEED, &v->lo, &v->hi) < 0 ||
	    stats_wilcoxon(d, n, &w) < 0)
		return -1;
	v->p = w.p;
	drift_check(d, blocks, n, floor, v);
	if ((v->lo > 0 || v->hi < 0) && fabs(v->delta) >= floor && w.p < COMPARE_ALPHA) {
		v->kind = VERDICT_DIFFERENT;
		v->worse = higher_better ? v->delta < 0 : v->delta > 0;
	} else if (v->lo >= -floor && v->hi <= floor) {
		v->kind = VERDICT_SAME;
	} else {
		more = stats_more_blocks(n, v->delta, (v->hi - v->lo) / 2, floor);
		if (fabs(v->delta) >= floor && n + more < WILCOXON_MIN)
			more = (unsigned)(WILCOXON_MIN - n);
		v->more = more;
	}
	return 0;
}
