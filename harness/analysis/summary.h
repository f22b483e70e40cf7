/* summary.h -- a run's figures (measured seconds, rates, shares) from its
 * intervals: the one computation the store keeps, the tables read and watch shows. */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stddef.h>

#include "common/proto.h"
#include "store/store.h"

/*
 * The figures of the window p[a..b) of a run's intervals (in seq order, its
 * first nstreams streams; a stream's NAN interval is one it never told),
 * from the end of p[a - 1] (or 0) to the end of p[b - 1]. Every table,
 * plot, watch line and run summary takes its numbers from here.
 */
struct summary_window {
	double seconds;
	double ops_per_s, refault_per_s, majflt_per_s, activate_per_s;
	double refaults_per_read, miss_share;   /* all streams; shares in 0..1 */
	double stream_ops_per_s[PROTO_MAX_STREAMS], stream_miss_share[PROTO_MAX_STREAMS];
	const struct series_point *last;        /* p[b - 1]: residency as it ends; NULL if empty */
};

/*
 * Into w: the counters' sums over the window's time; each stream's ops at
 * its rate over the intervals it told, times the window (its sums exactly
 * when it told them all, NAN when it told none); the all-stream figures NAN
 * when one stream told nothing (a gap, never a guess). NAN where a figure
 * has no denominator; an empty window (b <= a) is all NAN, seconds 0.
 */
void summary_window(const struct series_point *p, size_t a, size_t b, unsigned nstreams,
		    struct summary_window *w);

/*
 * A counter of the intervals (the double at byte offset field of struct
 * series_point: offsetof(struct series_point, pswpout)) summed over the
 * window p[a..b) per second of it, as summary_window times its rates; NAN
 * when an interval has no value (NAN: not stored) or the window no time.
 */
double summary_per_s(const struct series_point *p, size_t a, size_t b, size_t field);

/*
 * The figures of a run whose intervals are p[0..n) in seq order (its first
 * nstreams streams; a stream's NAN interval is one it never told) and whose
 * declared files hold file_pages pages: into ret's seconds, ops_per_s,
 * refault_per_s, majflt_per_s, activate_per_s, refaults_per_read,
 * miss_share and resident_share, the rest of ret untouched.
 *
 * The rates are summary_window's over the measured time, from the last
 * ramp interval to the end, but a stream that told no measured interval at
 * all is left out of the all-stream figures (NAN only when none told), as
 * the run's stored figures have always been; resident_share NAN without
 * files.
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
