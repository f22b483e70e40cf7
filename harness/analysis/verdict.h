/* verdict.h -- is a paired delta DIFFERENT, the SAME or not yet known, from
 * the ABBA blocks so far: what compare, table's grids and extend all decide by. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stddef.h>

#define COMPARE_MIN_BLOCKS 3       /* fewer paired blocks: always UNKNOWN */
#define COMPARE_LEVEL      0.95    /* bootstrap interval */
#define COMPARE_ALPHA      0.05    /* Wilcoxon, and the drift check */
#define COMPARE_FLOOR      0.02    /* noise floor without A/A arms */

enum verdict_kind { VERDICT_UNKNOWN, VERDICT_SAME, VERDICT_DIFFERENT };

struct verdict {
	enum verdict_kind kind;
	size_t blocks;          /* paired deltas used */
	double delta;           /* mean paired delta, relative: -0.05 is -5 % */
	double lo, hi;          /* its bootstrap interval */
	double floor;           /* noise floor, relative */
	double p;               /* Wilcoxon signed-rank, two-sided */
	unsigned more;          /* UNKNOWN: blocks more that would likely decide */
	int worse;              /* DIFFERENT in the metric's bad direction */
	int drift;              /* delta correlates with block index (p < COMPARE_ALPHA)
				 * and its fitted line moves by >= floor over the blocks */
	double drift_r, drift_p;
};

/*
 * The verdict on paired deltas d (block numbers blocks, for the drift check):
 *   DIFFERENT  the bootstrap interval excludes 0, |mean| >= floor, and the
 *              Wilcoxon signed-rank p < COMPARE_ALPHA (the percentile bootstrap
 *              is too narrow for few blocks; the test keeps A/A false alarms
 *              at or below 5 %, and needs at least 6 non-zero deltas);
 *   SAME       the interval lies within [-floor, +floor];
 *   UNKNOWN    neither, or fewer than COMPARE_MIN_BLOCKS blocks; more says
 *              how many more blocks would likely decide.
 * worse: DIFFERENT and the mean goes against higher_better. Returns 0 or -1
 * (out of memory).
 */
int verdict_decide(const double *d, const unsigned *blocks, size_t n, double floor,
		    int higher_better, unsigned resamples, struct verdict *v);

/* "UNKNOWN", "SAME" or "DIFFERENT". */
const char *verdict_name(enum verdict_kind k);

#endif
