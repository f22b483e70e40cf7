/* summary.c -- a run's figures from its intervals (summary.h): written once
 * when the run ends, read by every table and comparison, shown by watch. */
#include "analysis/summary.h"
#include "base/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One stream's told measured intervals: its sums and their length. */
struct told {
	double ops, reads, misses, ms;
	int any;
};

static double ratio(double a, double b) { return b != 0 && !isnan(b) ? a / b : NAN; }

/* The streams' measured intervals, each counted where that stream told it. */
static void streams_told(const struct series_point *p, size_t n, unsigned nstreams,
			 struct told *t)
{
	uint64_t prev = 0;
	unsigned k;
	size_t i;

	for (i = 0; i < n; prev = p[i].t_ms, i++) {
		if (p[i].ramp)
			continue;
		for (k = 0; k < nstreams; k++) {
			if (isnan(p[i].ops[k]))
				continue;
			t[k].ops += p[i].ops[k];
			t[k].reads += p[i].reads[k];
			t[k].misses += p[i].misses[k];
			t[k].ms += (double)p[i].t_ms - (double)prev;
			t[k].any = 1;
		}
	}
}

/*
 * Ops and reads scaled from each stream's told time to the measured time:
 * ops/s and the miss share into r, the reads (NAN: no stream told a rate)
 * into *ret_reads.
 */
static void stream_figures(const struct told *t, unsigned nstreams, double measured_ms,
			   struct run_summary *r, double *ret_reads)
{
	double ops = NAN, reads = NAN, misses = NAN, told_reads = NAN;
	unsigned k;

	for (k = 0; k < nstreams; k++) {
		if (!t[k].any)
			continue;
		misses = (isnan(misses) ? 0 : misses) + t[k].misses;
		told_reads = (isnan(told_reads) ? 0 : told_reads) + t[k].reads;
		if (t[k].ms == 0)
			continue;   /* told, but no time: no rate */
		ops = (isnan(ops) ? 0 : ops) + t[k].ops * measured_ms / t[k].ms;
		reads = (isnan(reads) ? 0 : reads) + t[k].reads * measured_ms / t[k].ms;
	}
	r->ops_per_s = ratio(ops * 1000.0, measured_ms);
	r->miss_share = ratio(misses, told_reads);
	*ret_reads = reads;
}

void summary_figures(const struct series_point *p, size_t n, unsigned nstreams,
		     double file_pages, struct run_summary *r)
{
	struct told t[PROTO_MAX_STREAMS] = { 0 };
	double ramp_ms = 0, end_ms = 0, refaults = 0, majflt = 0, activ = 0, resident = 0, reads;
	size_t i, last = 0;
	int f;

	if (nstreams > PROTO_MAX_STREAMS)
		nstreams = PROTO_MAX_STREAMS;
	for (i = 0; i < n; i++) {
		if (p[i].ramp && (double)p[i].t_ms > ramp_ms)
			ramp_ms = (double)p[i].t_ms;
		if ((double)p[i].t_ms > end_ms)
			end_ms = (double)p[i].t_ms;
		if (p[i].seq >= p[last].seq)
			last = i;
		if (p[i].ramp)
			continue;
		refaults += p[i].refault;
		majflt += p[i].majflt;
		activ += p[i].activate;
	}
	r->seconds = (end_ms - ramp_ms) / 1000.0;
	r->refault_per_s = ratio(refaults * 1000.0, end_ms - ramp_ms);
	r->majflt_per_s = ratio(majflt * 1000.0, end_ms - ramp_ms);
	r->activate_per_s = ratio(activ * 1000.0, end_ms - ramp_ms);
	streams_told(p, n, nstreams, t);
	stream_figures(t, nstreams, end_ms - ramp_ms, r, &reads);
	r->refaults_per_read = ratio(refaults, reads);
	for (f = 0; n && f < PROTO_MAX_FILES; f++)
		resident += p[last].resident[f];
	r->resident_share = n && file_pages > 0 ? resident / file_pages : NAN;
}

int summary_finish_run(struct store *s, int64_t run, const char *status, const char *reason,
		       const struct proto_summary *sum, char *err)
{
	_cleanup_free_ struct series_point *p = NULL;
	struct run_summary fig;
	unsigned nstreams;
	double pages;
	size_t n = 0;

	if (strcmp(status, "done"))
		return store_run_finish(s, run, status, reason, sum, NULL, err);
	if (store_run_series(s, run, &p, &n, err) < 0 ||
	    store_run_shape(s, run, &nstreams, &pages, err) < 0)
		return -1;
	summary_figures(p, n, nstreams, pages, &fig);
	return store_run_finish(s, run, status, reason, sum, n ? &fig : NULL, err);
}
