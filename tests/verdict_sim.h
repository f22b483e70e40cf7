/* verdict_sim.h -- synthetic ABBA blocks run through the real decision code
 * (verdict_of_runs, verdict_adjust) and looked at again and again: a short
 * run in tests/test_stats.c, the figures of tests/bench_stats.c. */
#ifndef VERDICT_SIM_H
#define VERDICT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stats.h"
#include "analysis/verdict.h"

#define SIM_MAX_BLOCKS 512
#define SIM_RUNS       4      /* a block: A B B A */

enum sim_noise { SIM_NORMAL, SIM_LOGNORMAL, SIM_T3 };

/* Per-run noise: a coefficient of variation and a shape. */
struct sim_noise_model {
	enum sim_noise shape;
	double cv;
};

double sim_gauss(uint64_t *state);

/* One run's multiplicative noise factor, mean 1, the model's CV. */
double sim_factor(uint64_t *state, const struct sim_noise_model *nm);

/*
 * A sequence of blocks of one cell and metric, as stats_obs in block order:
 * sim_seq_fill makes each block 2 base runs and 2 new runs of 1000 x noise
 * (x (1 + effect) for the new arm); a caller filling obs itself sets upto.
 */
struct sim_seq {
	struct stats_obs obs[SIM_MAX_BLOCKS * SIM_RUNS];
	size_t blocks;
	size_t upto[SIM_MAX_BLOCKS + 1];   /* observations of the first b blocks */
};

void sim_seq_fill(struct sim_seq *q, uint64_t *state, const struct sim_noise_model *nm,
		  double effect, size_t blocks);

/* ops/s's rule (log ratio, harmonic, higher is better), its margin margin if > 0 (the
 * table's otherwise; the minimum effect half of it); quick (no drawn interval). */
struct verdict_rule sim_rule(double margin);

/* The verdict on the first n blocks of q by sim_rule(margin), alone. */
int sim_verdict(const struct sim_seq *q, size_t n, double margin, struct verdict *v);

/* What happened along one sequence looked at after every block from first to last. */
struct sim_path {
	int ever_different;     /* some look said DIFFERENT */
	int ever_same;
	enum verdict_kind first;    /* the first decision (UNKNOWN: none by last) */
	size_t first_at;            /* its block count */
};

int sim_peek_every(const struct sim_seq *q, size_t first, size_t last, double margin,
		   struct sim_path *ret);

/*
 * harness extend's policy on one verdict: look at start blocks, and while
 * UNKNOWN grow to blocks + more (at most max), look again. ret as above
 * (first: the decision extend stops at), *looks how many looks it took.
 */
int sim_extend(const struct sim_seq *q, size_t start, size_t max, double margin,
	       struct sim_path *ret, unsigned *looks);

#endif
