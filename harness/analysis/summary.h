/* summary.h -- a run's figures (measured seconds, rates, shares) from its
 * intervals: the one computation the store keeps, the tables read and watch shows. */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stddef.h>

#include "common/proto.h"
#include "store/store.h"

/*
 * The figures of a run whose intervals are p[0..n) in seq order (its first
 * nstreams streams; a stream's NAN interval is one it never told) and whose
 * declared files hold file_pages pages: into ret's seconds, ops_per_s,
 * refault_per_s, majflt_per_s, activate_per_s, refaults_per_read,
 * miss_share and resident_share, the rest of ret untouched.
 *
 * Rates are over the measured time, from the last ramp interval to the end.
 * A stream's interval it never told is left out of that stream's time as
 * well as its ops: each stream counts at its rate over its told measured
 * intervals times the measured time (its sums exactly when it told them all).
 * NAN where a figure has no denominator; resident_share NAN without files.
 */
void summary_figures(const struct series_point *p, size_t n, unsigned nstreams,
		     double file_pages, struct run_summary *ret);

/*
 * End run in the store as status (with reason, and the guest's summary sum;
 * both may be NULL): a done run with intervals gets its figures, computed
 * from its stored intervals by summary_figures, in the same transaction.
 * Returns 0, or -1 with err.
 */
int summary_finish_run(struct store *s, int64_t run, const char *status, const char *reason,
		       const struct proto_summary *sum, char *err);

#endif
