/* bench_robust.c -- issue 47's rows of `make bench-stats`: SAME beside a stall in
 * some runs, coverage under two regimes, plans that keep their power, large effects. */
#include "bench_robust.h"
#include "analysis/plan.h"
#include "analysis/verdict.h"
#include "verdict_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOOK_MAX 300            /* blocks a SAME-or-DIFFERENT sequence is looked at to */

static void die(const char *what)
{
	fprintf(stderr, "bench_stats: %s\n", what);
	exit(1);
}

static double pct(unsigned k, unsigned n)
{
	return n ? 100.0 * k / n : NAN;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/*
 * ABBA blocks of lognormal runs at CV cv; each of NEW's runs, with
 * probability frac, is depth slower (a stall), and every run scaled by
 * 1 + effect for NEW.
 */
static void fill_stall(struct sim_seq *q, uint64_t *st, double cv, double frac, double depth,
		       double effect, size_t blocks)
{
	struct sim_noise_model nm = { SIM_LOGNORMAL, cv };
	size_t i;

	sim_seq_fill(q, st, &nm, effect, blocks);
	for (i = 0; i < q->upto[q->blocks]; i++)
		if (q->obs[i].arm && (double)(stats_rand(st) >> 11) / 9007199254740992.0 < frac)
			q->obs[i].v *= 1 - depth;
}

/* The first decision looking after every block from 2 to last, and at which block. */
static enum verdict_kind first_decision(const struct sim_seq *q, size_t last, size_t *at)
{
	struct verdict v;
	size_t n;

	for (n = 2; n <= last && n <= q->blocks; n++) {
		if (sim_verdict(q, n, 0, &v) < 0)
			die("out of memory");
		if (v.kind != VERDICT_UNKNOWN) {
			*at = n;
			return v.kind;
		}
	}
	*at = 0;
	return VERDICT_UNKNOWN;
}

/* The true mean of the block statistic of a stall shape, from many blocks. */
static double true_mean(double cv, double frac, double depth, double effect)
{
	static struct sim_seq q;
	struct verdict_rule r = sim_rule(0);
	static double d[SIM_MAX_BLOCKS];
	uint64_t st = 47;
	double sum = 0;
	size_t k = 0, i;
	long n;

	for (i = 0; i < 40; i++) {
		fill_stall(&q, &st, cv, frac, depth, effect, SIM_MAX_BLOCKS);
		n = verdict_unit_stats(q.obs, q.upto[q.blocks], &r, d, SIM_MAX_BLOCKS);
		for (long j = 0; j < n; j++, k++)
			sum += d[j];
	}
	return expm1(sum / (double)k);
}

/* Item 1: intermittent regressions, the first decision SAME; and SAME's cost on clean noise. */
static void stall_rows(unsigned n_seq)
{
	static const struct { double cv, frac, depth, effect; const char *what; } rows[] = {
		{ 0.01, 0.15, 0.20, 0, "15 % of NEW's runs 20 % slower, CV 1 %" },
		{ 0.005, 0.15, 0.20, 0, "15 % of NEW's runs 20 % slower, CV 0.5 %" },
		{ 0.01, 0.06, 0.50, 0, "6 % of NEW's runs 50 % slower, CV 1 %" },
		{ 0.01, 0.0625, 0.33, 0, "1 in 16 of NEW's runs a third slower, CV 1 %" },
		{ 0.01, 0, 0, 0, "no stall, CV 1 % (A/A: SAME is right)" },
		{ 0.02, 0, 0, 0, "no stall, CV 2 % (A/A: SAME is right)" },
		{ 0.05, 0, 0, 0, "no stall, CV 5 % (A/A: SAME is right)" },
	};
	static struct sim_seq q;
	size_t *at = calloc(n_seq, sizeof(*at)), k, when;
	unsigned r, i, same, diff;
	enum verdict_kind first;
	uint64_t st;

	if (!at)
		die("out of memory");
	printf("\n### SAME beside a stall in some runs (issue 47, item 1)\n\n"
	       "%u sequences a row, ops/s (margin 2 %%), lognormal runs, 2 of each arm an ABBA"
	       " block; each of NEW's runs stalls (is slower by the depth) with the row's"
	       " probability. A verdict after every block to %d, the first decision counted."
	       " *mean*: the block statistic's true mean (exp - 1), from %d blocks.\n\n"
	       "| NEW's runs | mean | first SAME | first DIFFERENT | median block of the first"
	       " decision | should be |\n|---|---|---|---|---|---|\n", n_seq, LOOK_MAX,
	       40 * SIM_MAX_BLOCKS);
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		same = diff = 0;
		k = 0;
		st = 4700 + r;
		for (i = 0; i < n_seq; i++) {
			fill_stall(&q, &st, rows[r].cv, rows[r].frac, rows[r].depth, rows[r].effect,
				   LOOK_MAX);
			first = first_decision(&q, LOOK_MAX, &when);
			same += first == VERDICT_SAME;
			diff += first == VERDICT_DIFFERENT;
			if (when)
				at[k++] = when;
		}
		qsort(at, k, sizeof(*at), cmp_size);
		printf("| %s | %+.2f %% | **%.2f %%** | %.2f %% | %zu | %s |\n", rows[r].what,
		       100 * true_mean(rows[r].cv, rows[r].frac, rows[r].depth, rows[r].effect),
		       pct(same, n_seq), pct(diff, n_seq), k ? at[k / 2] : 0,
		       rows[r].frac > 0 ? "SAME <= 5 %" : "SAME (its blocks: the cost)");
	}
	free(at);
}

/* Item 1: the two-regime shape, the true mean mu: does the interval cover it at every look? */
static void coverage_rows(unsigned n_seq)
{
	static const struct { double mu; int shape; const char *what; } rows[] = {
		{ 0, 1, "two regimes +-10 %, sd 2 % within, mean 0" },
		{ 0.03, 1, "two regimes +-10 %, sd 2 % within, mean +3 %" },
		{ 0.10, 1, "two regimes +-10 %, sd 2 % within, mean +10 %" },
		{ 0, 0, "normal, sd 18 %, mean 0" },
		{ 0.05, 0, "normal, sd 5 %, mean +5 %" },
	};
	static double d[SIM_MAX_BLOCKS];
	static unsigned blk[SIM_MAX_BLOCKS];
	struct verdict_rule rule = sim_rule(0);
	unsigned r, i, miss24, miss;
	struct verdict v;
	uint64_t st;
	size_t n, b;

	printf("\n### Coverage at every look (issue 47, item 1)\n\n"
	       "%u sequences a row of block statistics (on the log scale) with the row's true"
	       " mean; the interval (the t mixture's, joined with every value the robust test"
	       " keeps: verdict_covers) looked at after every block from 4; a sequence counts if"
	       " any look's interval missed the true mean.\n\n| blocks | missed by 24 | missed"
	       " by 200 | should be |\n|---|---|---|---|\n", n_seq);
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		miss24 = miss = 0;
		st = 4710 + r;
		for (i = 0; i < n_seq; i++) {
			int missed = 0;

			for (b = 0; b < 200; b++) {
				d[b] = rows[r].mu + (rows[r].shape ?
					(stats_rand(&st) & 1 ? 0.10 : -0.10) + 0.02 * sim_gauss(&st) :
					(rows[r].mu ? 0.05 : 0.18) * sim_gauss(&st));
				blk[b] = (unsigned)b;
			}
			for (n = 4; n <= 200 && !missed; n++) {
				if (verdict_decide(d, blk, n, &rule, &v) < 0)
					die("out of memory");
				if (!verdict_covers(&v, d, NULL, rows[r].mu)) {
					missed = 1;
					miss24 += n <= 24;
				}
			}
			miss += missed;
		}
		printf("| %s | **%.2f %%** | **%.2f %%** | <= 5 %% |\n", rows[r].what,
		       pct(miss24, n_seq), pct(miss, n_seq));
	}
}

/* The sd of the per-block log ratio at a run CV, measured. */
static double block_sd(double cv)
{
	static struct sim_seq q;
	static double d[SIM_MAX_BLOCKS];
	struct verdict_rule r = sim_rule(0);
	struct sim_noise_model nm = { SIM_LOGNORMAL, cv };
	double s = 0, ss = 0;
	uint64_t st = 4720;
	size_t k = 0;

	for (int i = 0; i < 40; i++) {
		sim_seq_fill(&q, &st, &nm, 0, SIM_MAX_BLOCKS);
		long n = verdict_unit_stats(q.obs, q.upto[q.blocks], &r, d, SIM_MAX_BLOCKS);

		for (long j = 0; j < n; j++, k++) {
			s += d[j];
			ss += d[j] * d[j];
		}
	}
	return sqrt((ss - s * s / (double)k) / (double)(k - 1));
}

/* Item 2: plan_blocks_needed at the true spread, against fresh sequences of runs. */
static void plan_rows(unsigned n_seq)
{
	static const struct { double effect, cv; } rows[] = {
		{ 0.10, 0.18 }, { 0.05, 0.05 }, { 0.10, 0.05 }, { 0.02, 0.02 }, { 0.05, 0.02 },
		{ 0.10, 0.02 }, { 0.50, 0.18 }, { 0.20, 0.01 }, { 0.02, 0.05 },
	};
	static struct sim_seq q;
	struct sim_noise_model nm = { SIM_LOGNORMAL, 0 };
	unsigned r, i, by, reps = n_seq / 2;
	size_t when;
	unsigned need;
	double sd;
	uint64_t st;

	printf("\n### Plans against what happens (issue 47, item 2)\n\n"
	       "The blocks `plan_blocks_needed` says an effect needs with 80 %% power (one verdict,"
	       " ops/s, minimum effect 1 %%), given the block statistic's true sd (measured at the"
	       " run CV); then %u fresh sequences of runs with that effect and CV, a verdict after"
	       " every block: the share DIFFERENT by the planned block.\n\n| effect | CV | sd of"
	       " the block log ratio | planned blocks | DIFFERENT by then | should be |\n"
	       "|---|---|---|---|---|---|\n", reps);
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		nm.cv = rows[r].cv;
		sd = block_sd(rows[r].cv);
		need = plan_blocks_needed(sd, log1p(0.01), log1p(rows[r].effect), 1);
		by = 0;
		st = 4730 + r;
		for (i = 0; need && need <= SIM_MAX_BLOCKS && i < reps; i++) {
			sim_seq_fill(&q, &st, &nm, rows[r].effect, need);
			by += first_decision(&q, need, &when) == VERDICT_DIFFERENT;
		}
		printf("| %.0f %% | %.0f %% | %.2f %% | %u | **%.1f %%** | >= 78 %% |\n",
		       100 * rows[r].effect, 100 * rows[r].cv, 100 * sd, need, pct(by, reps));
	}
}

/* Item 4: a large effect, the first DIFFERENT's block. */
static void early_rows(unsigned n_seq)
{
	static const struct { double effect, cv; } rows[] = {
		{ 0.20, 0.01 }, { 0.50, 0.15 }, { 0.10, 0.02 }, { 0.05, 0.01 },
	};
	static struct sim_seq q;
	struct sim_noise_model nm = { SIM_LOGNORMAL, 0 };
	size_t *at = calloc(n_seq, sizeof(*at)), k, when;
	unsigned r, i, by6;
	uint64_t st;

	if (!at)
		die("out of memory");
	printf("\n### Large effects decided early (issue 47, item 4)\n\n"
	       "%u sequences a row, one verdict (ops/s), lognormal runs, the first DIFFERENT"
	       " looking after every block; before issue 47 none could come before block 7.\n\n"
	       "| effect | CV | DIFFERENT by 6 blocks | median block | p90 |\n|---|---|---|---|---|\n",
	       n_seq);
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		nm.cv = rows[r].cv;
		st = 4740 + r;
		by6 = 0;
		k = 0;
		for (i = 0; i < n_seq; i++) {
			sim_seq_fill(&q, &st, &nm, rows[r].effect, 40);
			if (first_decision(&q, 40, &when) == VERDICT_DIFFERENT) {
				by6 += when <= 6;
				at[k++] = when;
			}
		}
		qsort(at, k, sizeof(*at), cmp_size);
		printf("| +%.0f %% | %.0f %% | **%.1f %%** | %zu | %zu |\n", 100 * rows[r].effect,
		       100 * rows[r].cv, pct(by6, n_seq), k ? at[k / 2] : 0,
		       k ? at[k * 9 / 10] : 0);
	}
	free(at);
}

/*
 * A/A blocks whose runs are not exchangeable within the unit, the
 * randomisation test's own assumption: the two middle runs (B's, in A B B A)
 * sharing a host state (correlation rho), or a linear drift across the
 * unit's four runs. Lognormal, CV cv; the block statistic's mean stays 0.
 */
static void fill_positions(struct sim_seq *q, uint64_t *st, double cv, double rho,
			   double drift, size_t blocks)
{
	double s = sqrt(log1p(cv * cv)), shared, z;
	size_t b, k, i = 0;

	q->blocks = blocks < SIM_MAX_BLOCKS ? blocks : SIM_MAX_BLOCKS;
	for (b = 0; b <= q->blocks; b++)
		q->upto[b] = b * SIM_RUNS;
	for (b = 0; b < q->blocks; b++) {
		shared = sim_gauss(st);
		for (k = 0; k < SIM_RUNS; k++, i++) {
			z = k == 1 || k == 2 ? sqrt(rho) * shared + sqrt(1 - rho) * sim_gauss(st) :
					       sim_gauss(st);
			q->obs[i].block = (unsigned)b;
			q->obs[i].arm = k == 1 || k == 2;
			q->obs[i].v = 1000 * exp(s * z - s * s / 2) * (1 + drift * (double)k);
		}
	}
}

/* Item 4's assumption checked: A/A with runs not exchangeable within a unit, false DIFFERENT. */
static void position_rows(unsigned n_seq)
{
	static const struct { double cv, rho, drift; const char *what; } rows[] = {
		{ 0.18, 0, 0, "exchangeable, CV 18 %" },
		{ 0.18, 0.8, 0, "the middle runs correlated 0.8, CV 18 %" },
		{ 0.02, 0.8, 0, "the middle runs correlated 0.8, CV 2 %" },
		{ 0.02, 0, 0.01, "a 1 % drift a run within the unit, CV 2 %" },
		{ 0.01, 0, 0.05, "a 5 % drift a run within the unit, CV 1 %" },
	};
	static struct sim_seq q;
	unsigned r, i, diff;
	struct verdict v;
	uint64_t st;
	size_t n;

	printf("\n### The randomisation test's assumption: A/A with runs not exchangeable"
	       " (issue 47, item 4)\n\n%u A/A sequences a row, lognormal runs, a verdict after"
	       " every block to 100; a sequence counts if any look said DIFFERENT.\n\n| runs"
	       " within a unit | ever DIFFERENT | should be |\n|---|---|---|\n", n_seq);
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		st = 4750 + r;
		diff = 0;
		for (i = 0; i < n_seq; i++) {
			fill_positions(&q, &st, rows[r].cv, rows[r].rho, rows[r].drift, 100);
			for (n = 2; n <= 100; n++) {
				if (sim_verdict(&q, n, 0, &v) < 0)
					die("out of memory");
				if (v.kind == VERDICT_DIFFERENT) {
					diff++;
					break;
				}
			}
		}
		printf("| %s | **%.2f %%** | <= 5 %% |\n", rows[r].what, pct(diff, n_seq));
	}
}

void robust_tables(unsigned n_seq)
{
	stall_rows(n_seq);
	coverage_rows(n_seq);
	plan_rows(n_seq);
	early_rows(n_seq);
	position_rows(n_seq / 2);
}
