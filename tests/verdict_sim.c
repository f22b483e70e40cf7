/* verdict_sim.c -- synthetic ABBA sequences for the verdict tests and the
 * bench: seeded noise, the real verdict code at every look. */
#include "verdict_sim.h"
#include "analysis/metric.h"

#include <math.h>
#include <string.h>

double sim_gauss(uint64_t *state)
{
	return stats_gauss(state);
}

double sim_factor(uint64_t *state, const struct sim_noise_model *nm)
{
	double s, z, chi;

	switch (nm->shape) {
	case SIM_LOGNORMAL:        /* exp(N(-s^2/2, s^2)): mean 1, CV sqrt(e^(s^2) - 1) */
		s = sqrt(log1p(nm->cv * nm->cv));
		return exp(s * sim_gauss(state) - s * s / 2);
	case SIM_T3:               /* Student's t, 3 df, scaled to sd cv (its variance is 3) */
		z = sim_gauss(state);
		chi = 0;
		for (int k = 0; k < 3; k++) {
			s = sim_gauss(state);
			chi += s * s;
		}
		return fmax(0.05, 1 + nm->cv * z / sqrt(chi / 3) / sqrt(3.0));
	default:
		return fmax(0.05, 1 + nm->cv * sim_gauss(state));
	}
}

void sim_seq_fill(struct sim_seq *q, uint64_t *state, const struct sim_noise_model *nm,
		  double effect, size_t blocks)
{
	size_t b, k, i = 0;

	q->blocks = blocks < SIM_MAX_BLOCKS ? blocks : SIM_MAX_BLOCKS;
	for (b = 0; b <= q->blocks; b++)
		q->upto[b] = b * SIM_RUNS;
	for (b = 0; b < q->blocks; b++)
		for (k = 0; k < SIM_RUNS; k++, i++) {
			q->obs[i].block = (unsigned)b;
			q->obs[i].arm = k == 1 || k == 2;        /* A B B A */
			q->obs[i].v = 1000 * sim_factor(state, nm) * (q->obs[i].arm ? 1 + effect : 1);
		}
}

struct verdict_rule sim_rule(double margin)
{
	double margins[METRIC_MAX] = { 0 };
	const struct metric *m = metric_find("ops/s");
	struct verdict_rule r;

	margins[m - metrics] = margin;
	metric_rule(m, margins, &r);
	r.quick = 1;        /* decisions only: the drawn interval is for reports */
	return r;
}

int sim_verdict(const struct sim_seq *q, size_t n, double margin, struct verdict *v)
{
	double d[SIM_MAX_BLOCKS];
	unsigned blk[SIM_MAX_BLOCKS];

	if (n > q->blocks)
		n = q->blocks;
	struct verdict_rule rule = sim_rule(margin);

	return verdict_of_runs(q->obs, q->upto[n], &rule, d, blk, SIM_MAX_BLOCKS, v);
}

static void note(struct sim_path *p, const struct verdict *v)
{
	p->ever_different |= v->kind == VERDICT_DIFFERENT;
	p->ever_same |= v->kind == VERDICT_SAME;
	if (p->first == VERDICT_UNKNOWN && v->kind != VERDICT_UNKNOWN) {
		p->first = v->kind;
		p->first_at = v->blocks;
	}
}

int sim_peek_every(const struct sim_seq *q, size_t first, size_t last, double margin,
		   struct sim_path *ret)
{
	struct verdict v;
	size_t n;

	memset(ret, 0, sizeof(*ret));
	for (n = first; n <= last && n <= q->blocks; n++) {
		if (sim_verdict(q, n, margin, &v) < 0)
			return -1;
		note(ret, &v);
	}
	return 0;
}

int sim_extend(const struct sim_seq *q, size_t start, size_t max, double margin,
	       struct sim_path *ret, unsigned *looks)
{
	struct verdict v;
	size_t n = start;

	memset(ret, 0, sizeof(*ret));
	*looks = 0;
	for (;;) {
		if (sim_verdict(q, n, margin, &v) < 0)
			return -1;
		(*looks)++;
		note(ret, &v);
		if (v.kind != VERDICT_UNKNOWN || n >= max || n >= q->blocks)
			return 0;
		n = n + v.more < max ? n + v.more : max;
	}
}
