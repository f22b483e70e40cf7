/* bench_stats.c -- `make bench-stats`: how often the real verdict code
 * (verdict_of_runs, verdict_adjust) is wrong and how often it finds an effect,
 * on synthetic ABBA blocks looked at again and again, and on stored A/A runs.
 * Counts, not times: it may run beside other work. Prints markdown tables. */
#include "analysis/confseq.h"
#include "analysis/signflip.h"
#include "analysis/metric.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "base/err.h"
#include "store/store.h"
#include "bench_margins.h"
#include "bench_robust.h"
#include "verdict_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned n_seq = 20000;       /* sequences per row (--seqs) */

#define MARGIN 0.02                  /* ops/s's declared margin (minimum effect 1 %) */

static double pct(unsigned k, unsigned n)
{
	return n ? 100.0 * k / n : NAN;
}

/* One standard error of a share of n draws, in points: sqrt(p (1 - p) / n). */
static double se_pct(unsigned k, unsigned n)
{
	double p = n ? (double)k / n : 0;

	return n ? 100 * sqrt(p * (1 - p) / n) : NAN;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_stats: %s\n", what);
	exit(1);
}

static const char *const shape_names[] = { "normal", "lognormal", "t, 3 df" };

/* ---- a fixed-n t-test looked at as often: what the harness does not do ---- */

/* The block deltas of q's first n blocks (harmonic means per arm), their count. */
static size_t deltas_of(const struct sim_seq *q, size_t n, double *d)
{
	unsigned blk[SIM_MAX_BLOCKS];
	long k = stats_block_deltas(q->obs, q->upto[n], 1, d, blk, SIM_MAX_BLOCKS);

	if (k < 0)
		die("out of memory");
	return (size_t)k;
}

/* |mean| >= floor and a fixed-n two-sided t-test at 5 % rejects. */
static int naive_t(const double *d, size_t n, double floor)
{
	double m = stats_mean(d, n), s = stats_sd(d, n);

	if (n < 2 || !(s > 0))
		return n >= 2 && m != 0 && fabs(m) >= floor;
	return fabs(m) >= floor && stats_t_p2(m * sqrt((double)n) / s, (double)n - 1) < 0.05;
}

/* Some look from first to last says DIFFERENT by the naive test. */
static int naive_peek(const struct sim_seq *q, size_t first, size_t last, double floor)
{
	double d[SIM_MAX_BLOCKS];
	size_t n, k = deltas_of(q, last, d);

	for (n = first; n <= last && n <= k; n++)
		if (naive_t(d, n, floor))
			return 1;
	return 0;
}

/* ---- 1. one verdict, no effect, looked at after every block ---- */

struct aa_row {
	struct sim_noise_model nm;
	double floor;
};

static void aa_table(void)
{
	static const struct aa_row rows[] = {
		{ { SIM_LOGNORMAL, 0.18 }, 1e-9 }, { { SIM_LOGNORMAL, 0.18 }, 0.02 },
		{ { SIM_NORMAL, 0.18 }, 1e-9 }, { { SIM_T3, 0.18 }, 1e-9 },
		{ { SIM_LOGNORMAL, 0.05 }, 1e-9 }, { { SIM_LOGNORMAL, 0.02 }, 0.02 },
	};
	static struct sim_seq q;
	struct sim_path p;
	uint64_t state;
	unsigned r, i, ever, same, ext_diff, naive, naive24, looks, all_looks;
	double d[SIM_MAX_BLOCKS];

	printf("\n### One verdict, A/A: false DIFFERENT with looks after every block\n\n"
	       "%u A/A sequences per row, 2 runs per arm per ABBA block, ops/s (harmonic means,"
	       " as the harness pairs them). *every block*: a verdict after each of blocks 2 to"
	       " 24, counted if any said DIFFERENT (and how often the first decision was SAME, the"
	       " right answer); *extend*: harness extend's policy, 6 blocks,"
	       " then as many more as the UNKNOWN's estimate, until decided or 24; *fixed t*:"
	       " a fixed-n t-test at 5 %% (what a percentile or t interval does), at every"
	       " block, and once at 24. +-: one standard error.\n\n", n_seq);
	printf("| runs | CV | margin | every block | SAME first (right) | extend | "
	       "extend looks | fixed t, every block | fixed t, once at 24 |\n"
	       "|---|---|---|---|---|---|---|---|---|\n");
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		ever = same = ext_diff = naive = naive24 = all_looks = 0;
		state = 1000 + r;
		for (i = 0; i < n_seq; i++) {
			sim_seq_fill(&q, &state, &rows[r].nm, 0, 24);
			if (sim_peek_every(&q, 2, 24, rows[r].floor, &p) < 0)
				die("out of memory");
			ever += p.ever_different;
			same += p.first == VERDICT_SAME;
			if (sim_extend(&q, 6, 24, rows[r].floor, &p, &looks) < 0)
				die("out of memory");
			ext_diff += p.ever_different;
			all_looks += looks;
			naive += naive_peek(&q, 2, 24, rows[r].floor);
			naive24 += naive_t(d, deltas_of(&q, 24, d), rows[r].floor);
		}
		printf("| %s | %.0f %% | %.0f %% | %.2f +-%.2f %% | %.2f %% | %.2f +-%.2f %% | %.1f |"
		       " %.1f %% | %.1f %% |\n", shape_names[rows[r].nm.shape], 100 * rows[r].nm.cv,
		       100 * rows[r].floor, pct(ever, n_seq), se_pct(ever, n_seq),
		       pct(same, n_seq), pct(ext_diff, n_seq), se_pct(ext_diff, n_seq),
		       (double)all_looks / n_seq, pct(naive, n_seq), pct(naive24, n_seq));
	}
}

/* ---- 2. power: a real effect, looked at after every block ---- */

#define MAX_LOOK 200

/* Looks: every block to 24, then every 8th to MAX_LOOK; the first DIFFERENT's block, 0 if none. */
static size_t first_different(const struct sim_seq *q, double floor)
{
	struct verdict v;
	size_t n;

	for (n = 2; n <= MAX_LOOK; n += n < 24 ? 1 : 8) {
		if (sim_verdict(q, n, floor, &v) < 0)
			die("out of memory");
		if (v.kind == VERDICT_DIFFERENT)
			return n;
		if (v.kind == VERDICT_SAME)
			return 0;
	}
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static void power_table(void)
{
	static const double effects[] = { 0.02, 0.05, 0.10 }, cvs[] = { 0.18, 0.05, 0.02 };
	static struct sim_seq q;
	unsigned e, c, i, k, by24, by96, by200, naive24, ext;
	struct sim_noise_model nm = { SIM_LOGNORMAL, 0 };
	unsigned reps = n_seq / 4, looks;
	size_t *at = calloc(reps, sizeof(*at)), got;
	double d[SIM_MAX_BLOCKS];
	struct sim_path p;
	uint64_t state;

	if (!at)
		die("out of memory");
	printf("\n### Power: a real effect on ops/s, margin 2 %% (minimum effect 1 %%)\n\n"
	       "%u sequences per row (lognormal runs). DIFFERENT by N blocks: looked at after"
	       " every block to 24, then every 8th, counted at the first DIFFERENT; *extend, 24*:"
	       " harness extend's policy capped at 24 blocks; median: blocks at the first"
	       " DIFFERENT among those found by 200; *fixed t at 24*: one fixed-n t-test at 24"
	       " blocks, for what anytime validity costs.\n\n", reps);
	printf("| effect | CV | by 24 | extend, 24 | by 96 | by 200 | median blocks |"
	       " fixed t at 24 |\n|---|---|---|---|---|---|---|---|\n");
	for (c = 0; c < ARRAY_SIZE(cvs); c++)
		for (e = 0; e < ARRAY_SIZE(effects); e++) {
			nm.cv = cvs[c];
			state = 5000 + 10 * c + e;
			by24 = by96 = by200 = naive24 = ext = 0;
			for (i = 0, k = 0; i < reps; i++) {
				sim_seq_fill(&q, &state, &nm, -effects[e], MAX_LOOK);
				got = first_different(&q, MARGIN);
				by24 += got && got <= 24;
				by96 += got && got <= 96;
				by200 += got != 0;
				if (got)
					at[k++] = got;
				naive24 += naive_t(d, deltas_of(&q, 24, d), MARGIN);
				if (sim_extend(&q, 6, 24, MARGIN, &p, &looks) < 0)
					die("out of memory");
				ext += p.first == VERDICT_DIFFERENT;
			}
			qsort(at, k, sizeof(*at), cmp_size);
			printf("| %.0f %% | %.0f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | ",
			       100 * effects[e], 100 * cvs[c], pct(by24, reps), pct(ext, reps),
			       pct(by96, reps), pct(by200, reps));
			if (k)
				printf("%zu |", at[k / 2]);
			else
				printf("- |");
			printf(" %.1f %% |\n", pct(naive24, reps));
		}
	free(at);
}

/* ---- 3. the "more blocks" estimate against what happened ---- */

static void estimate_table(void)
{
	static const struct { double effect, cv; } rows[] = {
		{ 0.10, 0.18 }, { 0.05, 0.05 }, { 0.0, 0.05 }, { 0.10, 0.05 }, { 0.0, 0.02 },
	};
	static struct sim_seq q;
	struct sim_noise_model nm = { SIM_LOGNORMAL, 0 };
	unsigned r, i, unknown, within, below, decided, reps = n_seq / 10;
	struct verdict v;
	size_t n, at;
	uint64_t state;

	printf("\n### The \"more blocks\" estimate at 6 blocks against the block that decided\n\n"
	       "%u sequences per row, margin 2 %%. At 6 blocks each UNKNOWN verdict's estimate"
	       " (~more, and its 80 %% range) is kept; the sequence then goes on, a verdict"
	       " after every block up to %d, and the blocks more it took to decide (DIFFERENT"
	       " or SAME) are compared with it.\n\n", reps, SIM_MAX_BLOCKS);
	printf("| effect | CV | UNKNOWN at 6 | decided by %d | within the range |"
	       " at most the estimate |\n|---|---|---|---|---|---|\n", SIM_MAX_BLOCKS);
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		nm.cv = rows[r].cv;
		state = 9000 + r;
		unknown = within = below = decided = 0;
		for (i = 0; i < reps; i++) {
			sim_seq_fill(&q, &state, &nm, rows[r].effect, SIM_MAX_BLOCKS);
			if (sim_verdict(&q, 6, MARGIN, &v) < 0)
				die("out of memory");
			if (v.kind != VERDICT_UNKNOWN)
				continue;
			unknown++;
			struct verdict w = v;

			for (n = 7, at = 0; n <= SIM_MAX_BLOCKS && !at; n++) {
				if (sim_verdict(&q, n, MARGIN, &w) < 0)
					die("out of memory");
				if (w.kind != VERDICT_UNKNOWN)
					at = n - 6;
			}
			if (!at)
				at = STATS_MORE_MAX;   /* not within SIM_MAX_BLOCKS: "more than" */
			decided += at < STATS_MORE_MAX;
			within += at >= v.more_lo && (at <= v.more_hi || v.more_hi >= STATS_MORE_MAX);
			below += at <= v.more;
		}
		printf("| %.0f %% | %.0f %% | %u | %.1f %% | %.1f %% | %.1f %% |\n",
		       100 * rows[r].effect, 100 * rows[r].cv, unknown, pct(decided, unknown),
		       pct(within, unknown), pct(below, unknown));
	}
}

/* ---- 4. a family: 13 cells x 4 arms x 5 metrics, one compare ---- */

#define F_CELLS   13
#define F_ARMS    4              /* compared against a baseline arm */
#define F_METRICS 5
#define F_N       (F_CELLS * F_ARMS * F_METRICS)
#define F_MAX     24
#define F_RUNS    2              /* runs of each arm per block */

/*
 * One cell's runs: [block][arm 0 = baseline, 1..F_ARMS][run][metric]. A run's
 * metrics share half their noise (correlation 0.5); refault/s (metric 1)
 * moves against ops/s.
 */
struct fcell {
	double v[F_MAX][F_ARMS + 1][F_RUNS][F_METRICS];
};

struct family {
	struct fcell cell[F_CELLS];
	double effect[F_CELLS][F_ARMS + 1][F_METRICS];
	unsigned blocks[F_CELLS];
};

static void family_fill(struct family *f, uint64_t *state, double cv)
{
	double s = sqrt(log1p(cv * cv)), zr, zm;
	unsigned c, b, a, r, m;

	for (c = 0; c < F_CELLS; c++)
		for (b = 0; b < F_MAX; b++)
			for (a = 0; a <= F_ARMS; a++)
				for (r = 0; r < F_RUNS; r++) {
					zr = sim_gauss(state);
					for (m = 0; m < F_METRICS; m++) {
						zm = (m == 1 ? -zr : zr) * sqrt(0.5) +
						     sim_gauss(state) * sqrt(0.5);
						f->cell[c].v[b][a][r][m] = 1000 * exp(s * zm - s * s / 2) *
									 (1 + f->effect[c][a][m]);
					}
				}
}

/* The verdict on arm a against the baseline, metric m, with the cell's blocks. */
static void family_verdict(const struct family *f, unsigned c, unsigned a, unsigned m,
			   struct verdict *v)
{
	struct stats_obs o[F_MAX * 2 * F_RUNS];
	double d[F_MAX];
	unsigned blk[F_MAX], b, r, k = 0;

	for (b = 0; b < f->blocks[c]; b++)
		for (r = 0; r < F_RUNS; r++) {
			o[k++] = (struct stats_obs){ b, 0, f->cell[c].v[b][0][r][m] };
			o[k++] = (struct stats_obs){ b, 1, f->cell[c].v[b][a][r][m] };
		}
	struct verdict_rule rule = { VERDICT_LOG, m == 0, m == 0, 0.02, 0.01, 0 };

	if (verdict_of_runs(o, k, &rule, d, blk, F_MAX, v) < 0)
		die("out of memory");
}

/* Every verdict of the family at its cells' blocks; adjusted unless raw. */
static void family_compare(const struct family *f, struct verdict *v, int adjust)
{
	struct verdict *vs[F_N];
	unsigned c, a, m, i = 0;

	for (c = 0; c < F_CELLS; c++)
		for (a = 1; a <= F_ARMS; a++)
			for (m = 0; m < F_METRICS; m++, i++) {
				family_verdict(f, c, a, m, &v[i]);
				vs[i] = &v[i];
			}
	if (adjust && verdict_adjust(vs, F_N) < 0)
		die("out of memory");
}

static int is_true(const struct family *f, unsigned i)
{
	unsigned c = i / (F_ARMS * F_METRICS), a = 1 + i / F_METRICS % F_ARMS, m = i % F_METRICS;

	return f->effect[c][a][m] != 0;
}

struct family_count {
	unsigned fam, any_false, raw_any_false, ever_any_false;
	double fdp, raw_fdp, true_found, raw_true_found, looks;
};

/* Count false and true DIFFERENTs of v (raw: before the adjustment) into fc. */
static void tally(const struct family *f, const struct verdict *v, int raw, struct family_count *fc)
{
	unsigned i, fals = 0, tru = 0, all = 0, n_true = 0;

	for (i = 0; i < F_N; i++) {
		int d = raw ? v[i].different_raw : v[i].kind == VERDICT_DIFFERENT;

		n_true += is_true(f, i);
		fals += d && !is_true(f, i);
		tru += d && is_true(f, i);
		all += d;
	}
	if (raw) {
		fc->raw_any_false += fals > 0;
		fc->raw_fdp += all ? (double)fals / all : 0;
		fc->raw_true_found += n_true ? (double)tru / n_true : 0;
	} else {
		fc->any_false += fals > 0;
		fc->fdp += all ? (double)fals / all : 0;
		fc->true_found += n_true ? (double)tru / n_true : 0;
	}
}

/*
 * extend --until-decided over the family: every cell starts at 6 blocks; each
 * round compares the whole family (adjusted), and grows each cell with an
 * UNKNOWN verdict to its largest blocks + more, at most F_MAX. A false
 * DIFFERENT in any round's report counts in ever_any_false.
 */
static unsigned family_extend(struct family *f, struct verdict *v, struct family_count *fc)
{
	unsigned c, i, want, rounds = 0, grew = 1, ever = 0;

	for (c = 0; c < F_CELLS; c++)
		f->blocks[c] = 6;
	while (grew) {
		rounds++;
		family_compare(f, v, 1);
		for (i = 0; i < F_N; i++)
			ever |= v[i].kind == VERDICT_DIFFERENT && !is_true(f, i);
		grew = 0;
		for (c = 0; c < F_CELLS; c++) {
			want = f->blocks[c];
			for (i = c * F_ARMS * F_METRICS; i < (c + 1) * F_ARMS * F_METRICS; i++)
				if (v[i].kind == VERDICT_UNKNOWN && v[i].blocks + v[i].more > want)
					want = (unsigned)(v[i].blocks + v[i].more);
			want = want < F_MAX ? want : F_MAX;
			grew |= want > f->blocks[c];
			f->blocks[c] = want;
		}
	}
	fc->ever_any_false += ever;
	return rounds;
}

static void family_table(void)
{
	static const struct { double cv, effect; const char *what; } rows[] = {
		{ 0.18, 0, "none" }, { 0.05, 0, "none" },
		{ 0.05, -0.10, "ops/s -10 % for arms 1 and 2 in every cell (26 verdicts)" },
		{ 0.18, -0.20, "ops/s -20 % for arms 1 and 2 in every cell (26 verdicts)" },
	};
	struct family *f = calloc(1, sizeof(*f));
	struct verdict *v = calloc(F_N, sizeof(*v));
	unsigned r, k, c, reps = n_seq / 20;
	struct family_count fixed, ext;
	uint64_t state;

	if (!f || !v)
		die("out of memory");
	printf("\n### A family: one compare of 13 cells x 4 arms x 5 metrics (260 verdicts)\n\n"
	       "%u families per row. Each block: 2 runs of the baseline and of each arm, 5"
	       " metrics per run sharing half their lognormal noise (refault/s against ops/s);"
	       " the 4 arms share the baseline's runs. *24 blocks*: every cell at 24 blocks,"
	       " one compare; *extend*: every cell at 6 blocks, then extend's rounds (each cell"
	       " grown to its UNKNOWNs' largest estimate, at most 24), counted in the last"
	       " round's compare and (*any round*) in every round's. Family-wise: families with"
	       " at least one false DIFFERENT; FDR: the mean share of false ones among the"
	       " DIFFERENTs; raw: the same verdicts before Benjamini-Hochberg.\n\n", reps);
	printf("| CV | true effects | 24 blocks: family-wise, raw / adjusted | FDR, raw / adjusted |"
	       " true found, raw / adjusted | extend: family-wise (any round) | FDR | true found |"
	       " rounds |\n|---|---|---|---|---|---|---|---|---|\n");
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		memset(&fixed, 0, sizeof(fixed));
		memset(&ext, 0, sizeof(ext));
		memset(f->effect, 0, sizeof(f->effect));
		for (c = 0; c < F_CELLS; c++)
			f->effect[c][1][0] = f->effect[c][2][0] = rows[r].effect;
		state = 7000 + r;
		for (k = 0; k < reps; k++) {
			family_fill(f, &state, rows[r].cv);
			for (c = 0; c < F_CELLS; c++)
				f->blocks[c] = F_MAX;
			family_compare(f, v, 1);
			tally(f, v, 0, &fixed);
			tally(f, v, 1, &fixed);
			ext.looks += family_extend(f, v, &ext);
			tally(f, v, 0, &ext);
		}
		printf("| %.0f %% | %s | %.1f %% / %.1f %% | %.2f %% / %.2f %% | %.1f %% / %.1f %% |"
		       " %.1f %% (%.1f %%) | %.2f %% | %.1f %% | %.1f |\n", 100 * rows[r].cv,
		       rows[r].what, pct(fixed.raw_any_false, reps), pct(fixed.any_false, reps),
		       100 * fixed.raw_fdp / reps, 100 * fixed.fdp / reps,
		       100 * fixed.raw_true_found / reps, 100 * fixed.true_found / reps,
		       pct(ext.any_false, reps), pct(ext.ever_any_false, reps), 100 * ext.fdp / reps,
		       100 * ext.true_found / reps, ext.looks / reps);
	}
	free(f);
	free(v);
}

/* ---- 5. stored A/A runs, resampled by block ---- */

struct stored {
	struct run_summary *v;
	size_t n;
	struct matrix_info mi;
	int a, b;        /* the A/A arms */
};

static int arm_of(const struct matrix_info *mi, const char *name)
{
	unsigned i;

	for (i = 0; i < mi->n_arms; i++)
		if (!strcmp(mi->arm_names[i], name))
			return (int)i;
	return -1;
}

/* Some run of the A/A arms in cell has the metric, and not 0. */
static int measured(const struct stored *st, unsigned cell, const struct metric *m)
{
	double x;
	size_t j;

	for (j = 0; j < st->n; j++)
		if (st->v[j].cell == cell && ((int)st->v[j].arm == st->a || (int)st->v[j].arm == st->b) &&
		    !isnan(x = m->get(&st->v[j])) && x != 0)
			return 1;
	return 0;
}

/*
 * A/A runs of one cell and metric resampled: 24 blocks drawn with
 * replacement from the stored ones, each with its arms swapped at random
 * (A/A arms are exchangeable, so the resampled pair has no effect, whatever
 * the stored mean happens to be), looked at after every block.
 */
static void resample_cell(const struct stored *st, unsigned cell, const struct metric *m)
{
	static struct sim_seq q;
	unsigned blocks[SIM_MAX_BLOCKS], nb = 0, i, b, ever = 0, same = 0, blk, swap;
	uint64_t state = 4242 + cell;
	struct sim_path p;
	size_t k, j;

	for (j = 0; j < st->n; j++) {
		const struct run_summary *r = &st->v[j];

		if (r->cell != cell || ((int)r->arm != st->a && (int)r->arm != st->b))
			continue;
		for (k = 0; k < nb && blocks[k] != r->block; k++)
			;
		if (k == nb && nb < SIM_MAX_BLOCKS)
			blocks[nb++] = r->block;
	}
	if (nb < 2 || !measured(st, cell, m))
		return;
	for (i = 0; i < n_seq / 4; i++) {
		q.blocks = 24;
		k = 0;
		for (b = 0; b < 24; b++) {
			q.upto[b] = k;
			blk = blocks[stats_rand(&state) % nb];
			swap = stats_rand(&state) & 1;
			for (j = 0; j < st->n && k < SIM_MAX_BLOCKS * SIM_RUNS; j++) {
				const struct run_summary *r = &st->v[j];

				if (r->cell != cell || r->block != blk ||
				    ((int)r->arm != st->a && (int)r->arm != st->b))
					continue;
				q.obs[k].block = b;
				q.obs[k].arm = ((int)r->arm == st->b) ^ (int)swap;
				q.obs[k++].v = m->get(r);
			}
		}
		q.upto[24] = k;
		if (sim_peek_every(&q, 2, 24, MARGIN, &p) < 0)
			die("out of memory");
		ever += p.ever_different;
		same += p.ever_same;
	}
	printf("| %s | %s | %u | %.2f %% | %.2f %% |\n", st->mi.cell_names[cell], m->name, nb,
	       pct(ever, n_seq / 4), pct(same, n_seq / 4));
}

static void stored_table(const char *db, const char *matrix, const char *arm_a, const char *arm_b)
{
	struct stored st = { 0 };
	struct store *s = NULL;
	char err[ERR_MAX];
	int64_t mid;
	unsigned c;
	size_t k;

	printf("\n### Stored A/A runs, resampled by block\n\n");
	if (!db) {
		printf("No results database given (`bench_stats --db FILE MATRIX ARM_A ARM_B`);"
		       " none with A/A arms was stored here.\n");
		return;
	}
	if (store_open(db, &s, err) < 0 || store_find_matrix(s, matrix, &mid, err) < 0 ||
	    store_matrix_info(s, mid, &st.mi, err) < 0 || store_summaries(s, mid, 0, &st.v, &st.n, err) < 0)
		die(err);
	if ((st.a = arm_of(&st.mi, arm_a)) < 0 || (st.b = arm_of(&st.mi, arm_b)) < 0)
		die("no such arm");
	printf("%s, matrix '%s', arms %s and %s: %u resampled sequences of 24 blocks per row,"
	       " looked at after every block from 2, margin 2 %%.\n\n| cell | metric | stored blocks |"
	       " ever DIFFERENT | ever SAME |\n|---|---|---|---|---|\n", db, st.mi.name, arm_a,
	       arm_b, n_seq / 4);
	for (c = 0; c < st.mi.n_cells; c++)
		for (k = 0; k < n_metrics; k++)
			if (metrics[k].compared)
				resample_cell(&st, c, &metrics[k]);
	free(st.v);
	store_close(s);
}

int main(int argc, char **argv)
{
	const char *db = NULL, *matrix = NULL, *a = NULL, *b = NULL;
	int i, only_robust = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--robust")) {
			only_robust = 1;
		} else if (!strcmp(argv[i], "--seqs") && i + 1 < argc) {
			n_seq = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--db") && i + 4 < argc) {
			db = argv[++i];
			matrix = argv[++i];
			a = argv[++i];
			b = argv[++i];
		} else {
			fprintf(stderr, "usage: bench_stats [--seqs N] [--robust] [--db FILE MATRIX ARM_A"
				" ARM_B]\n");
			return 2;
		}
	}
	if (n_seq < 100)
		die("--seqs: at least 100");
	printf("## Verdicts: error rates and power (`make bench-stats`)\n\n"
	       "alpha %.2f, margin %.0f %% (minimum effect half of it) unless a row says otherwise,"
	       " statistic: the per-block log ratio; confidence sequence prior"
	       " g = %.0f (analysis/confseq.h), and the robust test (analysis/signflip.h,"
	       " analysis/permtest.h);"
	       " SAME needs %zu blocks, DIFFERENT %zu (%zu from the signs alone).\n", COMPARE_ALPHA,
	       100 * MARGIN, CONFSEQ_G, verdict_same_min_blocks(),
	       verdict_min_different(COMPARE_ALPHA, 1), verdict_min_different(COMPARE_ALPHA, 0));
	robust_tables(n_seq < 2000 ? n_seq : 2000);
	if (only_robust)
		return 0;
	margins_table(n_seq < 2000 ? n_seq : 2000);
	aa_table();
	family_table();
	power_table();
	estimate_table();
	stored_table(db, matrix, a, b);
	return 0;
}
