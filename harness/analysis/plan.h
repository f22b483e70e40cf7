/* plan.h -- how many blocks an effect needs: the verdict's own rule run on
 * simulated blocks of a stored spread (what calibrate and check promise). */
#ifndef PLAN_H
#define PLAN_H

#include <stddef.h>

#define PLAN_SEQS 2000    /* simulated sequences an estimate rests on */
#define PLAN_Z    1.645   /* the planned block is where the decided share's one-sided 95 %
			   * lower bound reaches VERDICT_POWER (81.5 % of PLAN_SEQS),
			   * so the plan keeps the power it prints, not half the time */

/*
 * The fewest blocks by which VERDICT_POWER of sequences are DIFFERENT
 * (with PLAN_Z's room for the simulation's own error), each looked at after
 * every block by the verdict's rule (the t mixture and the robust test both
 * under COMPARE_ALPHA / family, |mean| at least min_effect): blocks of 2
 * runs an arm, lognormal with log sd sd (the block's log ratio then has
 * about that spread), NEW's shifted by effect. sd, min_effect and effect on
 * the verdict's log scale: callers convert (verdict_to_scale). Seeded by its
 * inputs, so one input gives one answer and two inputs independent ones. 0
 * if none up to STATS_MORE_MAX, or where the closed form
 * (verdict_blocks_for) already says none (effect not above min_effect, sd
 * not finite); that closed form when there is no memory for the sequences.
 */
unsigned plan_blocks_needed(double sd, double min_effect, double effect, size_t family);

#endif
