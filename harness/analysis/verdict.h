/* verdict.h -- is a per-block log ratio DIFFERENT, the SAME or not yet known, from
 * the ABBA blocks so far: what compare, table's grids and extend all decide by. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stddef.h>

#include "analysis/permtest.h"

#define COMPARE_ALPHA      0.05    /* per verdict, however often looked at; and the FDR
				    * of a family of verdicts; and the drift check */
#define COMPARE_MIN_BLOCKS 4       /* the fewest blocks at which the confidence sequence
				    * at COMPARE_ALPHA is bounded: fewer are always UNKNOWN */
#define VERDICT_RANGE_Z    1.2816  /* "more blocks" range: an 80 % band of the effect */
#define VERDICT_PERM_SHARE 0.1     /* the robust test's wealth bet by the within-block
				    * randomisation test (permtest.h); the rest on signs */
/*
 * SAME waits until a stall in 1 of VERDICT_STALL_RUNS of either arm's runs
 * would have shown at least once with probability 1 - COMPARE_ALPHA (2 runs
 * an arm a unit): before it, no test of the blocks seen can tell "no stall"
 * from "a stall not yet met" (docs/verdicts.md).
 */
#define VERDICT_STALL_RUNS 20
#define VERDICT_GRID       129     /* points the robust test is evaluated at, for the interval */

enum verdict_kind { VERDICT_UNKNOWN, VERDICT_SAME, VERDICT_DIFFERENT, VERDICT_UNMEASURED };

/*
 * The scale a metric is judged on (its row of the metric table): LOG, the
 * log of NEW's block mean over BASE's (shown as exp(.) - 1, a relative
 * change); DIFF, NEW's block mean minus BASE's, for a share already in %
 * (shown in points: 0.01 is 1 point).
 */
enum verdict_scale { VERDICT_LOG, VERDICT_DIFF };

/* What a verdict is decided by, declared before the data (never from the noise). */
struct verdict_rule {
	enum verdict_scale scale;
	int harmonic;           /* block means harmonic (throughputs) */
	int higher_better;
	double margin;          /* SAME: the interval within +-margin (relative: 0.02 is 2 %;
				 * DIFF: points / 100) */
	double min_effect;      /* DIFFERENT: |delta| at least this; rows under it take
				 * p = 1 in the adjustment */
	int quick;              /* simulations: no interval drawn beyond the t mixture's and
				 * 0 (every decision is the same) */
};

/*
 * One unit's runs of the two arms (as stats_obs gives them), for the
 * randomisation test and for the robust interval: base runs b, new runs w.
 */
struct verdict_runs {
	double b[PERMTEST_RUNS], w[PERMTEST_RUNS];
	unsigned nb, nw;
};

struct verdict {
	enum verdict_kind kind;
	enum verdict_scale scale;
	size_t blocks;          /* units used (abba_unit: one statistic each) */
	double est;             /* mean of the per-block statistic on its scale; NAN for none */
	double sd;              /* its sample standard deviation, on that scale; NAN below 2 */
	double delta;           /* est as shown: exp(est) - 1 (LOG) or est (DIFF) */
	double lo, hi;          /* the confidence sequence at level 1 - alpha_used, as shown,
				 * reaching to 0 while the sign-flip test keeps 0;
				 * -+INFINITY while unbounded */
	double alpha_used;      /* COMPARE_ALPHA alone; COMPARE_ALPHA max(R, 1) / N after
				 * verdict_adjust (R of N DIFFERENT) */
	double margin, min_effect;   /* the rule's, as shown */
	double p;               /* anytime-valid p of "no difference": the larger of the
				 * t mixture's (confseq_p) and the sign-flip test's */
	double p_sym;           /* the robust test's alone: 1 / its e-value, the sign-flip
				 * bettors mixed with the randomisation test's (when runs) */
	double le_pos, le_neg;  /* the robust test's log e-value at +-margin (SAME's evidence
				 * that does not assume normal blocks) */
	size_t grid_n;          /* the robust test's log e-value at grid_lo + i grid_h */
	double grid_lo, grid_h, grid_le[VERDICT_GRID];
	int runs;               /* the randomisation test had runs to bet on */
	double q;               /* p adjusted over the family (Benjamini-Hochberg, verdict_adjust,
				 * p = 1 below min_effect); that p itself for a verdict alone */
	int different_raw;      /* DIFFERENT by p alone, before the adjustment */
	unsigned more;          /* UNKNOWN: blocks more that would likely decide, */
	unsigned more_lo, more_hi;  /* and a range (80 %) of it; STATS_MORE_MAX: more than that */
	int higher_better;      /* the metric's good direction, as given */
	int harmonic;           /* the rule's block means */
	int worse;              /* DIFFERENT in the metric's bad direction */
	int drift;              /* delta correlates with block index (p < COMPARE_ALPHA)
				 * and its fitted line moves by >= margin over the blocks */
	double drift_r, drift_p;
};

/*
 * The verdict on per-block statistics d (on rule's scale; block numbers
 * blocks, in the order they ran, for the drift check), alone (q = p, or 1
 * below min_effect):
 *   DIFFERENT  q <= COMPARE_ALPHA (the confidence sequence excludes 0 and
 *              the sign-flip test rejects 0, so neither normal nor merely
 *              symmetric block statistics can fake one) and |mean| >= min_effect;
 *   SAME       the confidence sequence lies within +-margin (an equivalence
 *              test, so never before COMPARE_MIN_BLOCKS);
 *   UNKNOWN    neither; more says how many more blocks would likely decide.
 * worse: DIFFERENT and the mean goes against higher_better. Returns 0 or -1
 * (out of memory).
 */
int verdict_decide(const double *d, const unsigned *blocks, size_t n,
		   const struct verdict_rule *rule, struct verdict *v);

/*
 * The same with each unit's runs (runs[i] gave d[i]; NULL: none), which the
 * robust test also bets on within units. SAME needs, besides the interval,
 * at least verdict_same_min_blocks() units and the robust test rejecting
 * both ends of the margin. Returns 0 or -1 (out of memory).
 */
int verdict_decide_runs(const double *d, const unsigned *blocks, const struct verdict_runs *runs,
			size_t n, const struct verdict_rule *rule, struct verdict *v);

/*
 * The robust test's log e-value from its two bettors' log e-values, without
 * overflow: log((1 - VERDICT_PERM_SHARE) e^ls + VERDICT_PERM_SHARE e^lp),
 * the signs' ls alone without runs.
 */
double verdict_robust_mix(double ls, double lp, int runs);

/* The fewest units SAME can be called at: ceil(log alpha / (2 log(1 - 1 / VERDICT_STALL_RUNS))). */
size_t verdict_same_min_blocks(void);

/*
 * The fewest units at which a DIFFERENT is possible at level alpha: both the
 * t mixture (an infinite t) and the robust test (every unit's runs clean of
 * each other; signs alone without runs) can reach 1/alpha.
 */
size_t verdict_min_different(double alpha, int runs);

/*
 * Does the verdict's (unadjusted) sequence keep mu (on the scale): the t
 * mixture or the robust test does not reject it at v->alpha_used. For the
 * coverage of simulations; d and runs as decided.
 */
int verdict_covers(const struct verdict *v, const double *d, const struct verdict_runs *runs,
		   double mu);

/* A metric that is 0 in every run of both arms: no verdict, not in any family. */
void verdict_unmeasured(struct verdict *v);

/*
 * The verdict from runs: o[0..n_obs) (both arms' runs of one cell and
 * metric) paired per block (stats_block_means, harmonic if rule->harmonic),
 * each block's statistic on rule's scale into d and blocks (room for cap
 * each), then decided. On the log scale a block where one arm's mean is 0
 * and the other's is not has no ratio and is left out (both 0: 0). NOT
 * MEASURED if every value is 0. Returns 0 or -1 (out of memory).
 */
struct stats_obs;
int verdict_of_runs(const struct stats_obs *o, size_t n_obs, const struct verdict_rule *rule,
		    double *d, unsigned *blocks, size_t cap, struct verdict *v);

/*
 * The per-unit statistics alone, as verdict_of_runs takes them (the log
 * ratio of the means, or their difference in points / 100), in block order
 * into d (room for cap): what calibrations and the noise section measure
 * the spread of. Returns how many, or -1 out of memory.
 */
long verdict_unit_stats(const struct stats_obs *o, size_t n_obs, const struct verdict_rule *rule,
			double *d, size_t cap);

/*
 * Benjamini-Hochberg over a family of verdicts (every verdict one command
 * gives, unmeasured ones left out), in the right order: a verdict under its
 * min_effect enters with p = 1 (it cannot be DIFFERENT), then each q is its
 * adjusted p; with R of the N verdicts at q <= COMPARE_ALPHA, every interval
 * is redrawn at level 1 - COMPARE_ALPHA max(R, 1) / N (the false coverage
 * rate intervals of Benjamini and Yekutieli, JASA 100, 2005), so an interval
 * that excludes 0 is DIFFERENT or under min_effect, and SAME is decided on
 * that interval. Taken afresh from the raw p, so adjusting again is right.
 * Returns 0 or -1 (out of memory).
 */
int verdict_adjust(struct verdict *const *v, size_t n);

/*
 * What A/A blocks (A/A arms in the matrix, or a stored calibration) say of
 * the noise, shown beside the margin and never used to decide: the far end
 * of the 95 % t interval of their mean, |mean| + t(0.975, n - 1) sd /
 * sqrt(n); NAN below COMPARE_MIN_BLOCKS.
 */
double verdict_aa_floor(double mean, double sd, size_t n);

/*
 * Power, for planning (check, submit, the report's noise line): with
 * per-block statistics of standard deviation sd and a minimum effect, the
 * verdict at n blocks in a family of `family` verdicts calls an effect
 * DIFFERENT when the mean clears both the minimum effect and the confidence
 * sequence's half-width at level COMPARE_ALPHA / family (the least a single
 * DIFFERENT among them needs), r_n sd / sqrt(n); a true effect e does so with
 * probability about Phi((e - max(min, r_n sd / sqrt(n))) sqrt(n) / sd).
 * Effects and sd on the verdict's scale.
 */
#define VERDICT_POWER   0.80
#define VERDICT_POWER_Z 0.8416   /* Phi^-1(VERDICT_POWER) */

/* The least effect (> 0) n blocks detect with VERDICT_POWER in a family of
 * family verdicts; INFINITY when the sequence is unbounded at n or sd is not finite. */
double verdict_detectable(double sd, double min_effect, size_t n, size_t family);

/*
 * The least effect n blocks can ever call DIFFERENT in a family of family
 * verdicts, whatever the data: the half-width at n with sd, at least
 * min_effect; INFINITY when the sequence at COMPARE_ALPHA / family is
 * unbounded at n or n is below the sign-flip test's fewest blocks at that
 * level (the plan cannot decide at all).
 */
double verdict_least_callable(double sd, double min_effect, size_t n, size_t family);

/*
 * The fewest blocks (>= COMPARE_MIN_BLOCKS) that detect effect with
 * VERDICT_POWER in a family of family verdicts; 0 if no number up to
 * STATS_MORE_MAX does (the minimum effect is above the effect, or the spread
 * is too wide).
 */
unsigned verdict_blocks_for(double sd, double min_effect, double effect, size_t family);

/* An effect shown (relative, or points / 100) on scale: log1p(x) or x. */
double verdict_to_scale(enum verdict_scale scale, double x);

/* Back from scale to what is shown: expm1(x) or x. */
double verdict_shown(enum verdict_scale scale, double x);

/* "UNKNOWN", "SAME", "DIFFERENT" or "NOT MEASURED". */
const char *verdict_name(enum verdict_kind k);

#endif
