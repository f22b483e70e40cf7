/* summary.c -- a run's figures from its intervals (summary.h): written once
 * when the run ends, read by every table and comparison, shown by watch. */
#include "analysis/summary.h"
#include "base/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One stream's told intervals of a window: its sums and their length. */
struct told {
	double ops, reads, misses, ms;
	int any;
};

/* a / b, NAN where b is 0 or has no value (a rate without time, a share of nothing) */
static double ratio(double a, double b) { return b != 0 && !isnan(b) ? a / b : NAN; }

/*
 * sum + v, where a NAN v makes the sum NAN (a gap); with skip_silent, a NAN
 * sum is the empty one, so the first value starts it.
 */
static double add(double sum, double v, int skip_silent)
{
	return (skip_silent && isnan(sum) ? 0 : sum) + v;
}

/* The streams' intervals in p[a..b), each counted where that stream told it. */
static void streams_told(const struct series_point *p, size_t a, size_t b, unsigned nstreams,
			 struct told *t)
{
	double ms;
	unsigned k;
	size_t i;

	for (i = a; i < b; i++) {
		ms = (double)p[i].t_ms - (i ? (double)p[i - 1].t_ms : 0);
		for (k = 0; k < nstreams; k++) {
			if (isnan(p[i].ops[k]))
				continue;
			t[k].ops += p[i].ops[k];
			t[k].reads += p[i].reads[k];
			t[k].misses += p[i].misses[k];
			t[k].ms += ms;
			t[k].any = 1;
		}
	}
}

/*
 * Each stream's rates into w, and the all-stream ones: a stream's ops and
 * reads scaled from its told time to the window's (its sums when it told
 * every interval), summed over the streams. A stream that told nothing in
 * the window makes the sums NAN (a gap, never a guess), or with skip_silent
 * is left out of them (NAN only when no stream told).
 */
static void stream_figures(const struct told *t, unsigned nstreams, double window_ms,
			   int skip_silent, struct summary_window *w, double *ret_reads)
{
	double ops = skip_silent || !nstreams ? NAN : 0, reads = ops, misses = ops, told_reads = ops;
	double scale;
	unsigned k;

	for (k = 0; k < nstreams; k++) {
		scale = t[k].ms > 0 ? window_ms / t[k].ms : NAN;
		w->stream_ops_per_s[k] = ratio(t[k].ops * scale * 1000.0, window_ms);
		w->stream_miss_share[k] = t[k].any ? ratio(t[k].misses, t[k].reads) : NAN;
		if (skip_silent && !t[k].any)
			continue;
		misses = add(misses, t[k].any ? t[k].misses : NAN, skip_silent);
		told_reads = add(told_reads, t[k].any ? t[k].reads : NAN, skip_silent);
		if (skip_silent && t[k].ms == 0)
			continue;   /* told, but no time: no rate */
		ops = add(ops, t[k].ops * scale, skip_silent);
		reads = add(reads, t[k].reads * scale, skip_silent);
	}
	w->ops_per_s = ratio(ops * 1000.0, window_ms);
	w->miss_share = ratio(misses, told_reads);
	*ret_reads = reads;
}

/* The window p[a..b)'s length: from the end of p[a - 1] (or 0) to the end of p[b - 1], ms. */
static double window_ms(const struct series_point *p, size_t a, size_t b)
{
	return b > a ? (double)p[b - 1].t_ms - (a ? (double)p[a - 1].t_ms : 0) : 0;
}

/* The window's figures (summary_window's), silent streams left out with skip_silent. */
static void window_figures(const struct series_point *p, size_t a, size_t b, unsigned nstreams,
			   int skip_silent, struct summary_window *w)
{
	struct told t[PROTO_MAX_STREAMS] = { 0 };
	double refaults = 0, majflt = 0, activ = 0, ms, reads;
	unsigned k;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (k = 0; k < PROTO_MAX_STREAMS; k++)
		w->stream_ops_per_s[k] = w->stream_miss_share[k] = NAN;
	if (nstreams > PROTO_MAX_STREAMS)
		nstreams = PROTO_MAX_STREAMS;
	ms = window_ms(p, a, b);
	for (i = a; i < b; i++) {
		refaults += p[i].refault;
		majflt += p[i].majflt;
		activ += p[i].activate;
	}
	w->seconds = ms / 1000.0;
	w->last = b > a ? &p[b - 1] : NULL;
	w->refault_per_s = ratio(refaults * 1000.0, ms);
	w->majflt_per_s = ratio(majflt * 1000.0, ms);
	w->activate_per_s = ratio(activ * 1000.0, ms);
	streams_told(p, a, b, nstreams, t);
	stream_figures(t, nstreams, ms, skip_silent, w, &reads);
	w->refaults_per_read = ratio(refaults, reads);
}

void summary_window(const struct series_point *p, size_t a, size_t b, unsigned nstreams,
		    struct summary_window *w)
{
	window_figures(p, a, b, nstreams, 0, w);
}

double summary_per_s(const struct series_point *p, size_t a, size_t b, size_t field)
{
	double sum = 0, v;
	size_t i;

	for (i = a; i < b; i++) {
		memcpy(&v, (const char *)&p[i] + field, sizeof(v));
		sum += v;
	}
	return ratio(sum * 1000.0, window_ms(p, a, b));
}

void summary_figures(const struct series_point *p, size_t n, unsigned nstreams,
		     double file_pages, struct run_summary *r)
{
	struct summary_window w;
	double resident = 0;
	size_t a = 0, i;
	int f;

	for (i = 0; i < n; i++)   /* the ramp leads; the measured window starts after it */
		if (p[i].ramp)
			a = i + 1;
	window_figures(p, a, n, nstreams, 1, &w);
	r->seconds = w.seconds;
	r->ops_per_s = w.ops_per_s;
	r->refault_per_s = w.refault_per_s;
	r->majflt_per_s = w.majflt_per_s;
	r->activate_per_s = w.activate_per_s;
	r->refaults_per_read = w.refaults_per_read;
	r->miss_share = w.miss_share;
	for (f = 0; n && f < PROTO_MAX_FILES; f++)
		resident += p[n - 1].resident[f];
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
