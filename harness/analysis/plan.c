/* plan.c -- blocks an effect needs (see plan.h): many simulated sequences of
 * runs advanced block by block together until enough of them are DIFFERENT. */
#include "analysis/plan.h"
#include "analysis/confseq.h"
#include "analysis/permtest.h"
#include "analysis/signflip.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "base/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * One simulated sequence: its running mean and sum of squared deviations
 * (Welford), its sign bettors and its randomisation bettors' log wealth.
 */
struct plan_seq {
	double mean, m2;
	size_t n;
	int decided;
	struct signflip sf;
	double lp[PERMTEST_BETS];
};

/* The rule a plan applies: level, minimum effect, and from which block. */
struct plan_rule {
	double alpha, min;
	size_t from;
};

/*
 * One more block into q: 2 runs an arm, each exp(sd z) (NEW's times
 * exp(effect)), so the block's log ratio of harmonic means has about sd's
 * spread. Is q DIFFERENT now by the verdict's rule?
 */
static int plan_step(struct plan_seq *q, uint64_t *st, double sd, double effect,
		     const struct plan_rule *r)
{
	double b[2], w[2], lf[PERMTEST_BETS], x, dx;
	size_t j;

	for (j = 0; j < 2; j++) {
		b[j] = exp(sd * stats_gauss(st));
		w[j] = exp(effect + sd * stats_gauss(st));
	}
	x = log(stats_hmean(w, 2) / stats_hmean(b, 2));
	dx = x - q->mean;
	q->n++;
	q->mean += dx / (double)q->n;
	q->m2 += dx * (x - q->mean);
	signflip_push(&q->sf, x);
	permtest_block(b, 2, w, 2, 1, 1, lf);
	for (j = 0; j < PERMTEST_BETS; j++)
		q->lp[j] += lf[j];
	if (q->n < r->from || fabs(q->mean) < r->min)
		return 0;
	if (confseq_p(q->mean, sqrt(q->m2 / (double)(q->n - 1)), q->n) > r->alpha)
		return 0;       /* the cheaper test first */
	return verdict_robust_mix(signflip_state_log_e(&q->sf), permtest_log_e(q->lp), 1) >=
	       log(1 / r->alpha);
}

/* A seed from the question itself: each input its own draws, the same input the same answer. */
static uint64_t plan_seed(double sd, double min_effect, double effect, size_t family)
{
	double in[3] = { sd, min_effect, effect };
	uint64_t h = 29 + family, bits;
	size_t i;

	for (i = 0; i < 3; i++) {
		memcpy(&bits, &in[i], sizeof(bits));
		h ^= bits;
		h = stats_rand(&h);
	}
	return h;
}

unsigned plan_blocks_needed(double sd, double min_effect, double effect, size_t family)
{
	struct plan_rule r = { COMPARE_ALPHA / (double)(family ? family : 1), min_effect, 0 };
	size_t want = (size_t)ceil(VERDICT_POWER * PLAN_SEQS +
				   PLAN_Z * sqrt(VERDICT_POWER * (1 - VERDICT_POWER) * PLAN_SEQS));
	_cleanup_free_ struct plan_seq *q = calloc(PLAN_SEQS, sizeof(*q));
	uint64_t state = plan_seed(sd, min_effect, effect, family);
	size_t i, n, decided = 0;

	r.from = verdict_min_different(r.alpha, 1);
	if (!r.from || !isfinite(sd) || sd < 0 ||
	    !verdict_blocks_for(sd, min_effect, effect, family))
		return 0;        /* the closed form says never: nothing to simulate */
	if (!q)
		return verdict_blocks_for(sd, min_effect, effect, family);   /* out of memory */
	for (i = 0; i < PLAN_SEQS; i++)
		signflip_init(&q[i].sf);
	for (n = 1; n <= STATS_MORE_MAX; n++) {
		for (i = 0; i < PLAN_SEQS; i++) {
			if (q[i].decided)
				continue;
			q[i].decided = plan_step(&q[i], &state, sd, effect, &r);
			decided += q[i].decided;
		}
		if (decided >= want)
			return (unsigned)n;
	}
	return 0;
}
