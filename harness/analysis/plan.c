/* plan.c -- blocks an effect needs (see plan.h): many simulated sequences
 * advanced block by block together until enough of them are DIFFERENT. */
#include "analysis/plan.h"
#include "analysis/confseq.h"
#include "analysis/signflip.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "base/err.h"

#include <math.h>
#include <stdlib.h>

/* One simulated sequence: its running mean and sum of squared deviations (Welford), its bettors. */
struct plan_seq {
	double mean, m2;
	size_t n;
	int decided;
	struct signflip sf;
};

/* One more block x into q; is q DIFFERENT now (at level alpha, |mean| >= min)? */
static int plan_step(struct plan_seq *q, double x, double min, double alpha, size_t from)
{
	double d = x - q->mean, sd;

	q->n++;
	q->mean += d / (double)q->n;
	q->m2 += d * (x - q->mean);
	signflip_push(&q->sf, x);
	if (q->n < from || fabs(q->mean) < min)
		return 0;
	sd = sqrt(q->m2 / (double)(q->n - 1));
	if (confseq_p(q->mean, sd, q->n) > alpha)       /* the cheaper test first */
		return 0;
	return signflip_state_log_e(&q->sf) >= log(1 / alpha);
}

unsigned plan_blocks_needed(double sd, double min_effect, double effect, size_t family)
{
	double alpha = COMPARE_ALPHA / (double)(family ? family : 1);
	size_t from = signflip_min_n(alpha), want = (size_t)ceil(VERDICT_POWER * PLAN_SEQS);
	_cleanup_free_ struct plan_seq *q = calloc(PLAN_SEQS, sizeof(*q));
	size_t i, n, decided = 0;
	uint64_t state = 29;

	if (!from || !isfinite(sd) || sd < 0 || !verdict_blocks_for(sd, min_effect, effect, family))
		return 0;        /* the closed form says never: nothing to simulate */
	if (!q)
		return verdict_blocks_for(sd, min_effect, effect, family);   /* out of memory */
	if (from < COMPARE_MIN_BLOCKS)
		from = COMPARE_MIN_BLOCKS;
	for (i = 0; i < PLAN_SEQS; i++)
		signflip_init(&q[i].sf);
	for (n = 1; n <= STATS_MORE_MAX; n++) {
		for (i = 0; i < PLAN_SEQS; i++) {
			if (q[i].decided)
				continue;
			q[i].decided = plan_step(&q[i], effect + sd * stats_gauss(&state), min_effect,
						 alpha, from);
			decided += q[i].decided;
		}
		if (decided >= want)
			return (unsigned)n;
	}
	return 0;
}
