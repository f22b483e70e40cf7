/* plan.h -- how many blocks an effect needs: the verdict's own rule run on
 * simulated blocks of a stored spread (what calibrate and check promise). */
#ifndef PLAN_H
#define PLAN_H

#include <stddef.h>

#define PLAN_SEQS 400     /* simulated sequences an estimate rests on (a share of
			   * VERDICT_POWER is then known to about +-2 points) */

/*
 * The fewest blocks by which VERDICT_POWER of simulated sequences were
 * DIFFERENT, each looked at after every block by the verdict's rule (the t
 * mixture and the sign-flip test both under COMPARE_ALPHA / family, |mean|
 * at least min_effect): blocks of normal statistics with mean effect and
 * standard deviation sd, all on the verdict's scale. Seeded, so one input
 * gives one answer. 0 if none up to STATS_MORE_MAX, or where the closed form
 * (verdict_blocks_for) already says none (effect not above min_effect, sd not
 * finite); that closed form when there is no memory for the sequences.
 */
unsigned plan_blocks_needed(double sd, double min_effect, double effect, size_t family);

#endif
