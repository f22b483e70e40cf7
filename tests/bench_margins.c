/* bench_margins.c -- issue 29's table in `make bench-stats`: SAME beside a real
 * regression, long A/A runs, skewed statistics, a large effect found. */
#include "bench_margins.h"
#include "analysis/calibrate.h"
#include "analysis/verdict.h"
#include "verdict_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define LONG_RUN 500            /* blocks of the long rows (SIM_MAX_BLOCKS holds them) */

/* What a sequence of looks, one after every block, said first, and whether it ever said DIFFERENT. */
struct looks {
	enum verdict_kind first;
	size_t first_at;        /* 0: nothing decided */
	size_t diff_at;         /* the first DIFFERENT's block, 0: none */
	int diff_up;            /* that DIFFERENT had NEW above BASE */
};

static void die(const char *what)
{
	fprintf(stderr, "bench_stats: %s\n", what);
	exit(1);
}

/* A lognormal run CV whose per-run log sd is spread: a block's log ratio of 2 + 2 runs then has sd about spread. */
static double run_cv(double spread)
{
	return sqrt(expm1(spread * spread));
}

/* Looks at d[0..k) after every block from 2 to last, by rule; stops at the first DIFFERENT. */
static struct looks look_all(const double *d, const unsigned *blk, size_t k, size_t last,
			     const struct verdict_rule *rule)
{
	struct looks l = { VERDICT_UNKNOWN, 0, 0, 0 };
	struct verdict v;
	size_t n;

	for (n = 2; n <= last && n <= k; n++) {
		if (verdict_decide(d, blk, n, rule, &v) < 0)
			die("out of memory");
		if (!l.first_at && v.kind != VERDICT_UNKNOWN) {
			l.first = v.kind;
			l.first_at = n;
		}
		if (v.kind == VERDICT_DIFFERENT) {
			l.diff_at = n;
			l.diff_up = v.delta > 0;
			break;
		}
	}
	return l;
}

/* A simulated ABBA sequence of blocks blocks (ops/s, lognormal runs): its per-block log ratios. */
static size_t sim_stats(uint64_t *state, double spread, double effect, size_t blocks, double *d,
			unsigned *blk)
{
	static struct sim_seq q;
	struct sim_noise_model nm = { SIM_LOGNORMAL, run_cv(spread) };
	struct verdict_rule rule = sim_rule(0);
	struct verdict v;

	sim_seq_fill(&q, state, &nm, effect, blocks);
	if (verdict_of_runs(q.obs, q.upto[q.blocks], &rule, d, blk, SIM_MAX_BLOCKS, &v) < 0)
		die("out of memory");
	return v.blocks;
}

static double pct(unsigned k, unsigned n)
{
	return n ? 100.0 * k / n : NAN;
}

/* Row 1 (and 2, 3): a true 3 % regression of ops/s; how often the first verdict is SAME. */
static void regression_rows(unsigned n_seq)
{
	static const double spreads[] = { 0.05, 0.18 };
	static double d[SIM_MAX_BLOCKS];
	static unsigned blk[SIM_MAX_BLOCKS];
	struct verdict_rule rule = sim_rule(0);
	unsigned s, i, same[2] = { 0 }, diff[2] = { 0 };
	uint64_t state = 2900;
	struct looks l;
	size_t k;

	for (s = 0; s < 2; s++)
		for (i = 0; i < n_seq; i++) {
			k = sim_stats(&state, spreads[s], -0.03, LONG_RUN, d, blk);
			l = look_all(d, blk, k, LONG_RUN, &rule);
			same[s] += l.first == VERDICT_SAME;
			diff[s] += l.first == VERDICT_DIFFERENT;
		}
	printf("| a true -3 %% ops/s regression, first verdict SAME (sd 5 %% / 18 %%), margin"
	       " declared 2 %% | 15 %% / 34 %% (margin from A/A arms) | **%.2f %% / %.2f %%**"
	       " (first DIFFERENT %.1f %% / %.1f %%, by %d blocks) | <= 5 %% |\n",
	       pct(same[0], n_seq), pct(same[1], n_seq), pct(diff[0], n_seq), pct(diff[1], n_seq),
	       LONG_RUN);
	printf("| the same, margin from a 10-block calibration | 21 %% / 58 %% | the row above: a"
	       " calibration is shown beside the margin, it never sets it | <= 5 %% |\n");
	printf("| the same, margin from a 4-block calibration | 79 %% / 92 %% | the row above |"
	       " <= 5 %% |\n");
}

/* Rows 4 and 5: A/A at a log-ratio spread, a look after every block to LONG_RUN. */
static void aa_long_row(unsigned n_seq, double spread, const char *before)
{
	static double d[SIM_MAX_BLOCKS];
	static unsigned blk[SIM_MAX_BLOCKS];
	struct verdict_rule rule = sim_rule(0);
	unsigned i, by100 = 0, ever = 0, up = 0;
	uint64_t state = 2910 + (uint64_t)(100 * spread);
	struct looks l;
	size_t k;

	for (i = 0; i < n_seq; i++) {
		k = sim_stats(&state, spread, 0, LONG_RUN, d, blk);
		l = look_all(d, blk, k, LONG_RUN, &rule);
		ever += l.diff_at != 0;
		by100 += l.diff_at && l.diff_at <= 100;
		up += l.diff_at && l.diff_up;
	}
	printf("| A/A, log-ratio sd %.0f %%, a look after every block to %d | %s |"
	       " **%.2f %% by 100, %.2f %% by %d** (%u of %u say NEW > BASE) | <= 5 %% |\n",
	       100 * spread, LONG_RUN, before, pct(by100, n_seq), pct(ever, n_seq), LONG_RUN, up,
	       ever);
}

enum skew { SKEW_LOGNORMAL, SKEW_T3, SKEW_BIMODAL };

/* One block statistic with mean 0 of the given shape (see skew_rows). */
static double skewed(uint64_t *state, enum skew shape)
{
	double s = sqrt(log1p(0.40 * 0.40)), chi = 0, z;
	int j;

	switch (shape) {
	case SKEW_LOGNORMAL:        /* centred lognormal, sd 40 %: right-skewed */
		return exp(s * sim_gauss(state) - s * s / 2) - 1;
	case SKEW_T3:               /* t, 3 df, sd 18 % */
		z = sim_gauss(state);
		for (j = 0; j < 3; j++) {
			s = sim_gauss(state);
			chi += s * s;
		}
		return 0.18 * z / sqrt(chi / 3) / sqrt(3.0);
	default:                    /* two regimes +-10 %, within each sd 2 % */
		return (stats_rand(state) & 1 ? 0.10 : -0.10) + 0.02 * sim_gauss(state);
	}
}

/* Row 6 and item 3: A/A block statistics of a skewed or heavy-tailed shape, looked at to 24 and LONG_RUN. */
static void skew_rows(unsigned n_seq)
{
	static const char *const names[] = {
		"A/A, right-skewed statistic with mean 0 (lognormal sd 40 %, centred)",
		"A/A, heavy-tailed statistic (t, 3 df, sd 18 %)",
		"A/A, two regimes (+-10 %, sd 2 % within each)",
	};
	static const char *const before[] = { "5.0 % / 6.9 %", "-", "-" };
	static double d[SIM_MAX_BLOCKS];
	static unsigned blk[SIM_MAX_BLOCKS];
	struct verdict_rule rule = sim_rule(0);
	unsigned shape, i, by24, ever;
	uint64_t state = 2920;
	struct looks l;
	size_t b;

	for (shape = 0; shape < 3; shape++) {
		by24 = ever = 0;
		for (i = 0; i < n_seq; i++) {
			for (b = 0; b < LONG_RUN; b++) {
				d[b] = skewed(&state, (enum skew)shape);
				blk[b] = (unsigned)b;
			}
			l = look_all(d, blk, LONG_RUN, LONG_RUN, &rule);
			ever += l.diff_at != 0;
			by24 += l.diff_at && l.diff_at <= 24;
		}
		printf("| %s, to 24 / %d blocks | %s | **%.2f %% / %.2f %%** | <= 5 %% |\n",
		       names[shape], LONG_RUN, before[shape], pct(by24, n_seq), pct(ever, n_seq));
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Row 7: +10 % at sd 18 %: found, and after how many blocks. */
static void found_row(unsigned n_seq)
{
	static double d[SIM_MAX_BLOCKS];
	static unsigned blk[SIM_MAX_BLOCKS];
	struct verdict_rule rule = sim_rule(0);
	size_t *at = calloc(n_seq, sizeof(*at)), k, found = 0;
	uint64_t state = 2930;
	struct looks l;
	unsigned i;

	if (!at)
		die("out of memory");
	for (i = 0; i < n_seq; i++) {
		k = sim_stats(&state, 0.18, 0.10, LONG_RUN, d, blk);
		l = look_all(d, blk, k, LONG_RUN, &rule);
		if (l.diff_at)
			at[found++] = l.diff_at;
	}
	qsort(at, found, sizeof(*at), cmp_size);
	printf("| +10 %% at sd 18 %%, compare with a calibration stored | never DIFFERENT within"
	       " 1 000 blocks | **found by %d blocks in %.1f %%, median %zu, p90 %zu** | found |\n",
	       LONG_RUN, pct((unsigned)found, n_seq), found ? at[found / 2] : 0,
	       found ? at[found * 9 / 10] : 0);
	free(at);
}

/*
 * Row 8 (item 4): a 10-block A/A calibration, then the blocks it says an
 * effect needs (calibrate_need_range: the estimate and its 80 % range from
 * the spread's own uncertainty); a fresh sequence with the effect, a verdict
 * after every block: is it DIFFERENT by the range's upper end, as promised
 * (80 % power), and by the estimate?
 */
static void plan_row(unsigned n_seq, double spread, double effect, const char *before)
{
	static double d[SIM_MAX_BLOCKS];
	static unsigned blk[SIM_MAX_BLOCKS];
	struct verdict_rule rule = sim_rule(0);
	size_t *need = calloc(n_seq, sizeof(*need)), k;
	unsigned i, lo, hi, n, by_hi = 0, by_need = 0, planned = 0;
	uint64_t state = 2940 + (uint64_t)(100 * spread);
	double sd;
	struct looks l;

	if (!need)
		die("out of memory");
	for (i = 0; i < n_seq; i++) {
		k = sim_stats(&state, spread, 0, 10, d, blk);
		sd = stats_sd(d, k);
		n = calibrate_need_range(sd, (unsigned)k, rule.scale, rule.min_effect, effect, 1, &lo, &hi);
		need[i] = n ? n : STATS_MORE_MAX;
		if (!n || !hi || hi > LONG_RUN)
			continue;
		planned++;
		k = sim_stats(&state, spread, effect, hi, d, blk);
		l = look_all(d, blk, k, hi, &rule);
		by_hi += l.diff_at != 0;
		by_need += l.diff_at && l.diff_at <= n;
	}
	qsort(need, n_seq, sizeof(*need), cmp_size);
	printf("| calibrate's blocks for %.0f %% at sd %.0f %% (10-block calibration): its"
	       " estimate, p10 to p90 | %s | **%zu to %zu;"
	       " with its 80 %% range (upper end at most %d in %u of %u): DIFFERENT by the upper"
	       " end in %.1f %%, by the estimate in %.1f %%** | a range that holds (>= 80 %%) |\n",
	       100 * effect, 100 * spread, before, need[n_seq / 10], need[n_seq * 9 / 10], LONG_RUN,
	       planned, n_seq, pct(by_hi, planned), pct(by_need, planned));
	free(need);
}

void margins_table(unsigned n_seq)
{
	printf("\n### Issue 29's table: declared margins and the log ratio\n\n"
	       "%u sequences a row; ops/s's declared margin 2 %% (minimum effect 1 %%); spread: the"
	       " sd of the per-block log ratio (lognormal runs, 2 of each arm a block, as the"
	       " harness pairs them); a verdict after every block. *Before*: the issue's figures,"
	       " measured on main with the noise-derived floor and the mean of ratios.\n\n"
	       "| what | before | now | should be |\n|---|---|---|---|\n", n_seq);
	regression_rows(n_seq);
	aa_long_row(n_seq, 0.18, "11.6 % (202 of 231 say NEW > BASE)");
	aa_long_row(n_seq, 0.40, "7.7 % by 100, 79 % by 500");
	skew_rows(n_seq);
	found_row(n_seq);
	plan_row(n_seq, 0.18, 0.10, "10 to 283 blocks (for 5 %, one figure, no range)");
	plan_row(n_seq, 0.10, 0.05, "-");
}
