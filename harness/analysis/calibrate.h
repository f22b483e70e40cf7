/* calibrate.h -- the noise known before the night starts: an A/A matrix made
 * from a user's matrix, the spread of its paired deltas stored per cell and
 * metric, and what that spread says a matrix needs (blocks, for a given effect). */
#ifndef CALIBRATE_H
#define CALIBRATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/verdict.h"
#include "spec/spec.h"
#include "store/store.h"

#define CALIBRATE_BLOCKS 10      /* A/A blocks by default: the noise shown needs 4, and
				  * the range of blocks needed narrows with more */
#define CALIBRATE_EFFECT 0.05    /* the effect check and submit plan for by default */

/*
 * The A/A matrix of matrix file text (label names it in errors): named
 * "NAME-aa", its two arms copies of the arm called arm (an expanded name as
 * tables print it; NULL: the first), "ARM-1-aa" and "ARM-2-aa", with
 * 2 x blocks reps, restricted to cells[0..n_cells) if n_cells > 0. *ret
 * malloc'd JSON. Returns 0, or -1 with err.
 */
int calibrate_spec(const char *text, const char *label, const char *arm,
		   const char *const *cells, size_t n_cells, unsigned blocks, char **ret, char *err);

/*
 * Measure and store the calibration of A/A matrix mid (its two arms whose
 * names end in "-aa"): for every cell and compared metric it measured, the
 * blocks, the mean and sd of the paired deltas and the runs' coefficient of
 * variation. One line per cell and metric to out. Returns the rows stored,
 * or -1 with err.
 */
int calibrate_store(struct store *s, int64_t mid, FILE *out, char *err);

/*
 * Advice for matrix m: its plan (blocks a cell, the verdicts a compare of two
 * arms adjusts, the fewest blocks that can decide any of them, a warning when
 * the reps give fewer); then from the calibrations of its cells on host, per
 * cell, the blocks each metric needs to detect effect with VERDICT_POWER in
 * that family and the least effect the planned blocks can call
 * (say(arg, 0, line)), and a warning (say(arg, 1, line)) for every cell whose
 * reps give fewer blocks than its neediest metric asks, or that no number of
 * blocks can serve. Cells without a calibration are named in one line.
 * Returns 0, or -1 with err.
 */
typedef void (*calibrate_say_fn)(void *arg, int warning, const char *line);

/*
 * The blocks an effect needs with VERDICT_POWER at an A/A spread sd (of the
 * verdict's statistic, on scale) measured over blocks blocks, in a family of
 * family verdicts (plan_blocks_needed: the verdict's rule on simulated
 * blocks), and their 80 % range from sd's own uncertainty: *lo at the lower
 * end of sd's 80 % band, *hi at its upper end (0: no number of blocks does).
 * least (the minimum effect) and effect as shown (relative, or points / 100),
 * converted to scale here. Returns the estimate (0: none).
 */
unsigned calibrate_need_range(double sd, unsigned blocks, enum verdict_scale scale, double least,
			      double effect, size_t family, unsigned *lo, unsigned *hi);

/* m's "margins" and "primary" name compared metrics (metric_verdict_keys; calibrate_advice
 * checks them first). Returns 0, or -1 with err naming m's file and the field. */
int calibrate_verdict_keys(const struct matrix *m, char *err);

/*
 * m's plan alone, which needs no calibration: the units a cell gets, the
 * verdicts a compare of two arms adjusts, the fewest units a DIFFERENT and a
 * SAME need, and a warning (say(arg, 1, line)) when the units are too few
 * for a DIFFERENT in the primary metric. Returns 0, or -1 with err (m's
 * verdict keys).
 */
int calibrate_plan(const struct matrix *m, calibrate_say_fn say, void *arg, char *err);

/*
 * What host's calibrations say of m: the blocks each cell needs for an effect
 * of effect, the cells with none, through say (warnings flagged). Returns 0,
 * or -1 with err (m's verdict keys, the store).
 */
int calibrate_advice(struct store *s, const struct matrix *m, const char *host, double effect,
		     calibrate_say_fn say, void *arg, char *err);

#endif
