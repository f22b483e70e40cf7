/* verdict.h -- is a paired delta DIFFERENT, the SAME or not yet known, from
 * the ABBA blocks so far: what compare, table's grids and extend all decide by. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stddef.h>

#define COMPARE_ALPHA      0.05    /* per verdict, however often looked at; and the FDR
				    * of a family of verdicts; and the drift check */
#define COMPARE_MIN_BLOCKS 4       /* the fewest blocks at which the confidence sequence
				    * at COMPARE_ALPHA is bounded: fewer are always UNKNOWN */
#define COMPARE_FLOOR      0.02    /* noise floor without A/A arms */
#define VERDICT_RANGE_Z    1.2816  /* "more blocks" range: an 80 % band of the effect */

enum verdict_kind { VERDICT_UNKNOWN, VERDICT_SAME, VERDICT_DIFFERENT, VERDICT_UNMEASURED };

struct verdict {
	enum verdict_kind kind;
	size_t blocks;          /* paired deltas used */
	double delta;           /* mean paired delta, relative: -0.05 is -5 %; NAN for none */
	double sd;              /* their sample standard deviation; NAN below 2 */
	double lo, hi;          /* the confidence sequence at this many blocks, level
				 * 1 - COMPARE_ALPHA (confseq.h); -+INFINITY while unbounded */
	double floor;           /* noise floor, relative */
	double p;               /* anytime-valid p of "no difference" (confseq_p) */
	double q;               /* p adjusted over the family (Benjamini-Hochberg, verdict_adjust);
				 * p itself for a verdict decided alone */
	int different_raw;      /* DIFFERENT by p alone, before the adjustment */
	unsigned more;          /* UNKNOWN: blocks more that would likely decide, */
	unsigned more_lo, more_hi;  /* and a range (80 %) of it; STATS_MORE_MAX: more than that */
	int higher_better;      /* the metric's good direction, as given */
	int worse;              /* DIFFERENT in the metric's bad direction */
	int drift;              /* delta correlates with block index (p < COMPARE_ALPHA)
				 * and its fitted line moves by >= floor over the blocks */
	double drift_r, drift_p;
};

/*
 * The verdict on paired deltas d (block numbers blocks, in the order they
 * ran, for the drift check), alone (q = p):
 *   DIFFERENT  q <= COMPARE_ALPHA (the confidence sequence excludes 0) and
 *              |mean| >= floor;
 *   SAME       the confidence sequence lies within [-floor, +floor] (an
 *              equivalence test, so never before COMPARE_MIN_BLOCKS);
 *   UNKNOWN    neither; more says how many more blocks would likely decide.
 * worse: DIFFERENT and the mean goes against higher_better. Returns 0 or -1
 * (out of memory).
 */
int verdict_decide(const double *d, const unsigned *blocks, size_t n, double floor,
		   int higher_better, struct verdict *v);

/* A metric that is 0 in every run of both arms: no verdict, not in any family. */
void verdict_unmeasured(struct verdict *v);

/*
 * The verdict from runs: o[0..n_obs) (both arms' runs of one cell and
 * metric) paired per block (stats_block_deltas, means harmonic if harmonic)
 * into d and blocks (room for cap each), then decided; NOT MEASURED if every
 * value is 0 (a majflt/s of a pread workload). Returns 0 or -1 (out of memory).
 */
struct stats_obs;
int verdict_of_runs(const struct stats_obs *o, size_t n_obs, int harmonic, double floor,
		    int higher_better, double *d, unsigned *blocks, size_t cap, struct verdict *v);

/*
 * Benjamini-Hochberg over a family of verdicts (every verdict one command
 * gives, unmeasured ones left out): each q becomes its adjusted p and each
 * verdict is decided again with it; the adjustment is taken afresh from the
 * raw p, so adjusting a family again (a larger one) is right. Returns 0 or -1
 * (out of memory).
 */
int verdict_adjust(struct verdict *const *v, size_t n);

/*
 * The noise floor A/A blocks give (A/A arms in the matrix, or a stored
 * calibration): the far end of the 95 % t interval of their mean paired
 * delta, |mean| + t(0.975, n - 1) sd / sqrt(n); NAN below COMPARE_MIN_BLOCKS.
 */
double verdict_aa_floor(double mean, double sd, size_t n);

/*
 * Power, for planning (check, submit, the report's noise line): with paired
 * deltas of standard deviation sd and a noise floor, the verdict at n blocks
 * calls an effect DIFFERENT when the mean clears both the floor and the
 * confidence sequence's half-width r_n sd / sqrt(n); a true effect e does so
 * with probability about Phi((e - max(floor, r_n sd / sqrt(n))) sqrt(n) / sd).
 * Looking after every block only adds chances, so this is a lower bound for
 * a matrix extended until decided.
 */
#define VERDICT_POWER   0.80
#define VERDICT_POWER_Z 0.8416   /* Phi^-1(VERDICT_POWER) */

/* The least effect (relative, > 0) n blocks detect with VERDICT_POWER; INFINITY below
 * COMPARE_MIN_BLOCKS or without a finite sd. */
double verdict_detectable(double sd, double floor, size_t n);

/*
 * The fewest blocks (>= COMPARE_MIN_BLOCKS) that detect effect with
 * VERDICT_POWER; 0 if no number up to STATS_MORE_MAX does (the floor is at or
 * above the effect, or the spread is too wide).
 */
unsigned verdict_blocks_for(double sd, double floor, double effect);

/* "UNKNOWN", "SAME", "DIFFERENT" or "NOT MEASURED". */
const char *verdict_name(enum verdict_kind k);

#endif
