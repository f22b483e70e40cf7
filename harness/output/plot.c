/* plot.c -- SVG written by hand from the database: per cell and arm the median
 * of the runs' per-interval values and their min-max band, the ramp, events. */
#include "output/plot.h"
#include "base/err.h"
#include "output/escape.h"
#include "base/proc.h"
#include "store/store_lru.h"
#include "store/store_report.h"
#include "common/fmt.h"

#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define W        880
#define H        340
#define ML       72            /* margins: left, right (legend), top (title), bottom */
#define MR       176
#define MT       40
#define MB       44
#define PW       (W - ML - MR)
#define PH       (H - MT - MB)
#define MAX_MARKERS 48

static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999",
};

/* ---- one cell's data ---- */

struct run_series {
	unsigned arm;
	struct series_point *p;
	size_t n;
};

/* A stream event, averaged over the runs that posted it. */
struct marker {
	uint64_t stream, pass;
	char kind[16];
	double t_sum_ms;
	unsigned n;
};

struct plot_cell {
	struct matrix_info mi;
	struct cell_layout l;
	unsigned cell;
	uint64_t memcg_mib;
	struct run_series *runs;
	size_t nruns;
	unsigned arm_runs[SPEC_MAX_ARMS];
	struct marker markers[MAX_MARKERS];
	unsigned nmarkers;
	double ramp_s, t_max_s, step_s;
};

void plot_cell_free(struct plot_cell *pc)
{
	size_t i;

	if (!pc)
		return;
	for (i = 0; i < pc->nruns; i++)
		free(pc->runs[i].p);
	free(pc->runs);
	free(pc);
}

unsigned plot_cell_files(const struct plot_cell *pc)
{
	return pc->l.nfiles;
}

const char *plot_cell_file_name(const struct plot_cell *pc, unsigned file)
{
	return file < pc->l.nfiles ? pc->l.files[file] : "";
}

/* Only what a reader looks for on the time axis: streams and passes. */
static int marked_kind(const char *kind)
{
	return !strcmp(kind, "start") || !strcmp(kind, "end") || !strcmp(kind, "pass_start") ||
	       !strcmp(kind, "pass_end");
}

/*
 * An event into the cell's markers: the same stream, pass and kind add up
 * (their mean time is drawn), a new one takes a slot while MAX_MARKERS last.
 */
static int add_marker(struct plot_cell *pc, const struct event_row *e, char *err)
{
	struct marker *m;
	unsigned i;

	for (i = 0; i < pc->nmarkers; i++) {
		m = &pc->markers[i];
		if (m->stream == e->stream && m->pass == e->pass && !strcmp(m->kind, e->kind))
			break;
	}
	if (i == pc->nmarkers) {
		if (pc->nmarkers == MAX_MARKERS)
			return 0;
		m = &pc->markers[pc->nmarkers];
		if (fmtbuf(m->kind, sizeof(m->kind), "%s", e->kind) < 0)
			return errorf(err, "event '%.64s...': a kind of over %zu characters",
				      e->kind, sizeof(m->kind) - 1);
		m->stream = e->stream;
		m->pass = e->pass;
		pc->nmarkers++;
	}
	pc->markers[i].t_sum_ms += (double)e->t_ms;
	pc->markers[i].n++;
	return 0;
}

/* A run's stream and pass events as markers. */
static int load_events(struct store *s, struct plot_cell *pc, int64_t run, char *err)
{
	_cleanup_free_ struct event_row *ev = NULL;
	size_t n, i;

	if (store_run_events(s, run, &ev, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (marked_kind(ev[i].kind) && add_marker(pc, &ev[i], err) < 0)
			return -1;
	return 0;
}

/*
 * A run's intervals into the cell's next slot, widening its time axis, ramp
 * and step; then its events.
 */
static int load_run(struct store *s, struct plot_cell *pc, const struct run_ref *ref, char *err)
{
	struct run_series *r = &pc->runs[pc->nruns];
	size_t i;

	if (ref->arm >= SPEC_MAX_ARMS)
		return 0;
	if (store_run_series(s, ref->id, &r->p, &r->n, err) < 0)
		return -1;
	r->arm = ref->arm;
	pc->nruns++;
	pc->arm_runs[ref->arm]++;
	for (i = 0; i < r->n; i++) {
		if (r->p[i].ramp)
			pc->ramp_s = fmax(pc->ramp_s, r->p[i].t_ms / 1000.0);
		pc->t_max_s = fmax(pc->t_max_s, r->p[i].t_ms / 1000.0);
	}
	if (r->n)
		pc->step_s = fmax(pc->step_s, r->p[r->n - 1].t_ms / 1000.0 / (double)r->n);
	return load_events(s, pc, ref->id, err);
}

int plot_cell_load(struct store *s, int64_t mid, unsigned cell, struct plot_cell **ret, char *err)
{
	struct plot_cell *pc = calloc(1, sizeof(*pc));
	_cleanup_free_ struct run_ref *refs = NULL;
	uint64_t memcg[SPEC_MAX_CELLS];
	size_t n, i;

	if (!pc)
		return errorf(err, "out of memory");
	pc->cell = cell;
	if (store_matrix_info(s, mid, &pc->mi, err) < 0 ||
	    store_cell_layout(s, mid, cell, &pc->l, err) < 0 ||
	    store_report_memcg(s, mid, memcg, err) < 0 || store_done_runs(s, mid, &refs, &n, err) < 0)
		goto fail;
	if (cell >= pc->mi.n_cells || cell >= SPEC_MAX_CELLS) {
		errorf(err, "matrix '%s' has no cell %u", pc->mi.name, cell);
		goto fail;
	}
	pc->memcg_mib = memcg[cell];
	if (!(pc->runs = calloc(n ? n : 1, sizeof(*pc->runs)))) {
		errorf(err, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++)
		if (refs[i].cell == cell && load_run(s, pc, &refs[i], err) < 0)
			goto fail;
	*ret = pc;
	return 0;
fail:
	plot_cell_free(pc);
	return -1;
}

/* ---- one arm's line: per interval, the median and range over its runs ---- */

typedef double (*value_fn)(const struct series_point *p, size_t i, const void *ctx);

struct band {
	size_t n;
	double *t, *med, *lo, *hi;    /* t in seconds; NAN where no run has a value */
};

/* A band's arrays freed, the band zeroed. */
static void band_free(struct band *b)
{
	free(b->t);
	free(b->med);
	free(b->lo);
	free(b->hi);
	memset(b, 0, sizeof(*b));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Interval i across the arm's runs: its mean end time, and the values' order statistics. */
static void band_point(const struct plot_cell *pc, unsigned arm, value_fn fn, const void *ctx,
		       size_t i, double *tmp, struct band *b)
{
	double tsum = 0, v;
	size_t r, k = 0, tn = 0;

	for (r = 0; r < pc->nruns; r++) {
		if (pc->runs[r].arm != arm || i >= pc->runs[r].n)
			continue;
		tsum += (double)pc->runs[r].p[i].t_ms;
		tn++;
		v = fn(pc->runs[r].p, i, ctx);
		if (isfinite(v))
			tmp[k++] = v;
	}
	b->t[i] = tn ? tsum / (double)tn / 1000.0 : NAN;
	b->med[i] = b->lo[i] = b->hi[i] = NAN;
	if (!k)
		return;
	qsort(tmp, k, sizeof(*tmp), cmp_double);
	b->med[i] = k % 2 ? tmp[k / 2] : (tmp[k / 2 - 1] + tmp[k / 2]) / 2;
	b->lo[i] = tmp[0];
	b->hi[i] = tmp[k - 1];
}

/*
 * An arm's band: per interval, over its runs, the mean time and the median,
 * least and largest of fn; -1 out of memory (b freed).
 */
static int band_make(const struct plot_cell *pc, unsigned arm, value_fn fn, const void *ctx,
		     struct band *b)
{
	_cleanup_free_ double *tmp = calloc(pc->nruns + 1, sizeof(double));
	size_t r, i, n = 0;

	for (r = 0; r < pc->nruns; r++)
		if (pc->runs[r].arm == arm && pc->runs[r].n > n)
			n = pc->runs[r].n;
	b->n = n;
	b->t = calloc(n + 1, sizeof(double));
	b->med = calloc(n + 1, sizeof(double));
	b->lo = calloc(n + 1, sizeof(double));
	b->hi = calloc(n + 1, sizeof(double));
	if (!tmp || !b->t || !b->med || !b->lo || !b->hi) {
		band_free(b);
		return -1;
	}
	for (i = 0; i < n; i++)
		band_point(pc, arm, fn, ctx, i, tmp, b);
	return 0;
}

struct metric_ctx {
	const struct metric *m;
	unsigned nstreams;
	double file_mib;
};

/*
 * The metric of ctx over interval i (a value_fn), by the metric table's own
 * per-interval rule.
 */
static double metric_value(const struct series_point *p, size_t i, const void *ctx)
{
	const struct metric_ctx *c = ctx;
	struct summary_window w;
	struct metric_interval iv = { &w, c->file_mib };

	summary_window(p, i, i + 1, c->nstreams, &w);
	return c->m->at(&iv);
}

static double file_value(const struct series_point *p, size_t i, const void *ctx)
{
	return p[i].resident[*(const unsigned *)ctx] * p[i].page_size / (1 << 20);
}

/* ---- stored counters per interval: memory pressure, swap traffic ---- */

/*
 * A counter of the interval (a double of struct series_point, NAN where the
 * run did not store it) drawn per second of the interval, times scale.
 */
struct counter {
	const char *key;       /* the median's data-series */
	const char *label;     /* in the legend */
	size_t field;          /* offsetof(struct series_point, ...) */
	double scale;
	int optional;          /* drawn only where some run has it other than 0 */
};

#define COUNTER_MAX 4

/*
 * A chart of counters in one unit: drawn when one of its counters says
 * something (with nonzero a value other than 0, else any value stored),
 * otherwise left out, absent saying why.
 */
struct counter_chart {
	const char *name, *what, *ylabel, *absent;
	int nonzero;
	struct counter c[COUNTER_MAX];
};

#define AT(field) offsetof(struct series_point, field)

/* The charts, by enum plot_counter_chart: stall us per s x 1e-4 is %; pages per s. */
static const struct counter_chart counter_charts[PLOT_COUNTER_CHARTS] = {
	[PLOT_PRESSURE] = {
		"memory pressure", "memory pressure of the memcg (memory.pressure)",
		"% of the interval stalled",
		"no run of this cell stored the memcg's memory.pressure (runs before schema 21)", 0,
		{ { "some", "some: a task stalled", AT(psi_some_us), 1e-4, 0 },
		  { "full", "full: all stalled", AT(psi_full_us), 1e-4, 0 } } },
	[PLOT_SWAP] = {
		"swap", "swap traffic", "pages/s",
		"no run of this cell swapped a page in or out (pswpin, pswpout, zswpin and"
		" zswpout all 0, or not stored: runs before schema 19)", 1,
		{ { "pswpin", "swap-ins (pswpin)", AT(pswpin), 1, 0 },
		  { "pswpout", "swap-outs (pswpout)", AT(pswpout), 1, 0 },
		  { "zswpin", "zswap loads (zswpin)", AT(zswpin), 1, 1 },
		  { "zswpout", "zswap stores (zswpout)", AT(zswpout), 1, 1 } } },
};

/* The counter of ctx (a struct counter) over interval i, per second of it, scaled. */
static double counter_value(const struct series_point *p, size_t i, const void *ctx)
{
	const struct counter *c = ctx;

	return summary_per_s(p, i, i + 1, c->field) * c->scale;
}

/* Whether a run of the cell has the counter stored (nonzero: other than 0) somewhere. */
static int counter_says(const struct plot_cell *pc, const struct counter *c, int nonzero)
{
	size_t r, i;
	double v;

	for (r = 0; r < pc->nruns; r++)
		for (i = 0; i < pc->runs[r].n; i++) {
			memcpy(&v, (const char *)&pc->runs[r].p[i] + c->field, sizeof(v));
			if (!isnan(v) && (!nonzero || v != 0))
				return 1;
		}
	return 0;
}

/* ---- drawing ---- */

/* A horizontal reference line: a file's size, the memcg limit. */
struct ref {
	double y;
	char label[64];
};

struct chart {
	FILE *f;
	const struct plot_cell *pc;
	double x1, y1, xstep, ystep;   /* axes run from 0 */
};

static double px(const struct chart *c, double x)
{
	return ML + fmin(fmax(x, 0), c->x1) / c->x1 * PW;
}

static double py(const struct chart *c, double y)
{
	return MT + PH - fmin(fmax(y, 0), c->y1) / c->y1 * PH;
}

/* A round step (1, 2 or 5 times a power of ten) giving about target ticks. */
static double nice_step(double range, int target)
{
	double raw = range / target, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return mag * (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10);
}

/* Both axes' maxima, rounded up to a tick: y past ymax, x the cell's workload. */
static void axes_to(struct chart *c, double ymax)
{
	if (!(ymax > 0) || !isfinite(ymax))
		ymax = 1;
	c->ystep = nice_step(ymax, 5);
	c->y1 = ceil(ymax / c->ystep) * c->ystep;
	c->x1 = c->pc->t_max_s > 0 ? c->pc->t_max_s : 1;
	c->xstep = nice_step(c->x1, 8);
	c->x1 = ceil(c->x1 / c->xstep) * c->xstep;
}

/* Axis maxima: past every value of the nb bands and reference line, rounded up to a tick. */
static void scale(struct chart *c, const struct band *b, unsigned nb, const struct ref *refs,
		  unsigned nrefs)
{
	double ymax = 0;
	unsigned a, k;
	size_t i;

	for (a = 0; a < nb; a++)
		for (i = 0; i < b[a].n; i++)
			if (!isnan(b[a].hi[i]))
				ymax = fmax(ymax, b[a].hi[i]);
	for (k = 0; k < nrefs; k++)
		ymax = fmax(ymax, refs[k].y);
	axes_to(c, ymax);
}

/* Tick label: 12k, 1.5M, 0.25, as the step needs. */
static void tick_label(char *buf, size_t len, double v, double step, double max)
{
	const char *unit = max >= 1e6 ? "M" : max >= 1e4 ? "k" : "";
	double div = max >= 1e6 ? 1e6 : max >= 1e4 ? 1e3 : 1;
	int dec = (int)fmax(0, ceil(-log10(step / div) - 1e-9));

	fmtcut(buf, len, "%.*f%s", dec > 6 ? 6 : dec, v / div, v == 0 ? "" : unit);
}

/* "matrix / cell: what", escaped: the chart's title and its heading. */
static void chart_title(const struct chart *c, const char *what)
{
	escape_xml(c->f, c->pc->mi.name);
	fputs(" / ", c->f);
	escape_xml(c->f, c->pc->mi.cell_names[c->pc->cell]);
	fputs(": ", c->f);
	escape_xml(c->f, what);
}

/* The SVG element, its title (the cell and what) and the subtitle sub. */
static void svg_open(struct chart *c, const char *what, const char *sub)
{
	const struct plot_cell *pc = c->pc;

	fprintf(c->f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\""
		" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<title>", W, H, W, H);
	chart_title(c, what);
	fprintf(c->f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
		"<text x=\"%d\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", W, H, ML);
	chart_title(c, what);
	fprintf(c->f, "</text>\n<text x=\"%d\" y=\"30\" fill=\"#555\">", ML);
	escape_xml(c->f, sub);
	fprintf(c->f, "%s</text>\n", pc->ramp_s > 0 ? "; shaded: ramp" : "");
}

/* Grid lines and tick labels on both axes, the frame, and the axis labels. */
static void axes(const struct chart *c, const char *ylabel)
{
	char label[32];
	double v;

	fputs("<g class=\"axes\">\n", c->f);
	for (v = 0; v <= c->y1 + c->ystep / 2; v += c->ystep) {
		tick_label(label, sizeof(label), v, c->ystep, c->y1);
		fprintf(c->f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%s</text>\n",
			ML, ML + PW, py(c, v), py(c, v), ML - 6, py(c, v) + 4, label);
	}
	for (v = 0; v <= c->x1 + c->xstep / 2; v += c->xstep) {
		tick_label(label, sizeof(label), v, c->xstep, 0);
		fprintf(c->f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%s</text>\n",
			px(c, v), px(c, v), MT + PH, MT + PH + 4, px(c, v), MT + PH + 16, label);
	}
	fprintf(c->f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
		" stroke=\"#333\"/>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">t (s)</text>\n"
		"<text transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">",
		ML, MT, PW, PH, ML + PW / 2, H - 8, MT + PH / 2);
	escape_xml(c->f, ylabel);
	fputs("</text>\n</g>\n", c->f);
}

/* The ramp's shaded area, when the runs had one. */
static void ramp(const struct chart *c)
{
	if (c->pc->ramp_s <= 0)
		return;
	fprintf(c->f, "<g class=\"ramp\"><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\""
		" fill=\"#888\" fill-opacity=\"0.15\"/><text x=\"%d\" y=\"%d\" fill=\"#666\">ramp"
		"</text></g>\n", ML, MT, px(c, c->pc->ramp_s) - ML, PH, ML + 4, MT + PH - 6);
}

/* Each run of defined values: hi forward, lo back, closed. */
static void band_path(const struct chart *c, const struct band *b, const char *color)
{
	size_t i = 0, j, k;

	fprintf(c->f, "<path class=\"band\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" d=\"",
		color);
	while (i < b->n) {
		if (isnan(b->lo[i])) {
			i++;
			continue;
		}
		for (j = i; j < b->n && !isnan(b->lo[j]); j++)
			;
		for (k = i; k < j; k++)
			fprintf(c->f, "%c%.1f %.1f ", k == i ? 'M' : 'L', px(c, b->t[k]), py(c, b->hi[k]));
		for (k = j; k-- > i;)
			fprintf(c->f, "L%.1f %.1f ", px(c, b->t[k]), py(c, b->lo[k]));
		fputs("Z ", c->f);
		i = j;
	}
	fputs("\"/>\n", c->f);
}

/*
 * One line of a chart, drawn per arm: fn of each interval. A chart of
 * several names each (key: the median's data-series; label: the legend's)
 * and strokes each its own way (dashes); NULL key: the only one.
 */
struct line {
	const char *key, *label;
	value_fn fn;
	const void *ctx;
};

/* Line k's stroke: solid, dashed, dotted, dash-dotted. */
static const char *const dashes[COUNTER_MAX] = {
	"", " stroke-dasharray=\"6 3\"", " stroke-dasharray=\"2 2\"",
	" stroke-dasharray=\"8 3 2 3\"",
};

/* An arm's median line, lifted where an interval has no value; dashed as line k. */
static void median_path(const struct chart *c, const struct band *b, const char *color,
			const char *arm, const struct line *ln, unsigned k)
{
	int pen = 0;
	size_t i;

	fputs("<path class=\"median\" data-arm=\"", c->f);
	escape_xml(c->f, arm);
	if (ln->key)
		fprintf(c->f, "\" data-series=\"%s", ln->key);
	fprintf(c->f, "\"%s fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" d=\"", dashes[k],
		color);
	for (i = 0; i < b->n; i++) {
		if (isnan(b->med[i])) {
			pen = 0;
			continue;
		}
		fprintf(c->f, "%c%.1f %.1f ", pen ? 'L' : 'M', px(c, b->t[i]), py(c, b->med[i]));
		pen = 1;
	}
	fputs("\"/>\n", c->f);
}

/* Dashed horizontal reference lines, each labelled. */
static void refs_draw(const struct chart *c, const struct ref *refs, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++) {
		fprintf(c->f, "<g class=\"ref\"><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\""
			" stroke=\"#555\" stroke-dasharray=\"6 3\"/><text x=\"%d\" y=\"%.1f\""
			" text-anchor=\"end\" fill=\"#555\">", ML, ML + PW, py(c, refs[k].y),
			py(c, refs[k].y), ML + PW - 4, py(c, refs[k].y) - 4);
		escape_xml(c->f, refs[k].label);
		fputs("</text></g>\n", c->f);
	}
}

/* A marker's label: the stream's name and the event (and its pass). */
static void marker_label(const struct plot_cell *pc, const struct marker *m, char *buf,
			 size_t len)
{
	const char *stream = m->stream < pc->l.nstreams ? pc->l.streams[m->stream] : "?";

	if (!strcmp(m->kind, "pass_start"))
		fmtcut(buf, len, "%s pass %llu", stream, (unsigned long long)m->pass);
	else if (!strcmp(m->kind, "pass_end"))
		fmtcut(buf, len, "%s pass %llu end", stream, (unsigned long long)m->pass);
	else
		fmtcut(buf, len, "%s %s", stream, m->kind);
}

/* A marker on the time axis: its mean time and label. */
struct mark {
	double t;
	char label[PROTO_NAME_MAX + 40];
	unsigned runs;
};

static int cmp_mark(const void *a, const void *b)
{
	double x = ((const struct mark *)a)->t, y = ((const struct mark *)b)->t;

	return (x > y) - (x < y);
}

/* Stream starts in the first interval and ends in the last say nothing: left out. */
static unsigned marks_of(const struct plot_cell *pc, struct mark *out)
{
	const struct marker *m;
	unsigned i, n = 0;
	double t;

	for (i = 0; i < pc->nmarkers; i++) {
		m = &pc->markers[i];
		t = m->t_sum_ms / m->n / 1000.0;
		if ((!strcmp(m->kind, "start") && t < pc->step_s) ||
		    (!strcmp(m->kind, "end") && t > pc->t_max_s - pc->step_s))
			continue;
		out[n].t = t;
		out[n].runs = m->n;
		marker_label(pc, m, out[n++].label, sizeof(out[0].label));
	}
	qsort(out, n, sizeof(*out), cmp_mark);
	return n;
}

#define MARK_GAP_PX 14   /* closer markers share a line and a label */

/* One dotted line per group of close markers, their labels joined. */
static void markers(const struct chart *c)
{
	struct mark mk[MAX_MARKERS];
	unsigned n = marks_of(c->pc, mk), i, j, k;
	double x;

	for (i = 0; i < n; i = j) {
		x = px(c, mk[i].t);
		for (j = i + 1; j < n && px(c, mk[j].t) - x < MARK_GAP_PX; j++)
			;
		fputs("<g class=\"event\"><title>", c->f);
		for (k = i; k < j; k++) {
			escape_xml(c->f, mk[k].label);
			fprintf(c->f, " at t=%.1f s (mean of %u run%s)%s", mk[k].t, mk[k].runs,
				mk[k].runs == 1 ? "" : "s", k + 1 < j ? "; " : "");
		}
		fprintf(c->f, "</title><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\""
			" stroke=\"#444\" stroke-dasharray=\"2 3\"/><text transform=\"translate(%.1f %d)"
			" rotate(90)\" font-size=\"10\" fill=\"#444\">", x, x, MT, MT + PH, x + 3, MT + 4);
		for (k = i; k < j; k++) {
			escape_xml(c->f, mk[k].label);
			fputs(k + 1 < j ? ", " : "", c->f);
		}
		fputs("</text></g>\n", c->f);
	}
}

/* Under the arms, each line's dash and label, when the chart has several. */
static void line_legend(const struct chart *c, const struct line *lines, unsigned n, int y)
{
	unsigned k;

	for (k = 0; k < n && n > 1; k++, y += 16) {
		fprintf(c->f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\""
			" stroke-width=\"1.6\"%s/><text x=\"%d\" y=\"%d\">", W - MR + 12, W - MR + 28,
			y - 4, y - 4, dashes[k], W - MR + 34, y);
		escape_xml(c->f, lines[k].label);
		fputs("</text>\n", c->f);
	}
}

/*
 * Two lines an arm (name; lru_gen and runs) while they and the lines'
 * legend fit beside the plot, else one; then the lines' legend.
 */
static void legend(const struct chart *c, const struct line *lines, unsigned nlines)
{
	const struct plot_cell *pc = c->pc;
	int extra = nlines > 1 ? 8 + (int)nlines * 16 : 0;
	int two = (int)pc->mi.n_arms * 30 + extra <= PH, y;
	const char *lru;
	unsigned a;

	fputs("<g class=\"legend\">\n", c->f);
	for (a = 0; a < pc->mi.n_arms; a++) {
		y = MT + 8 + (int)a * (two ? 30 : 16);
		lru = pc->mi.cell_lru[pc->cell][a][0] ? pc->mi.cell_lru[pc->cell][a] : "-";
		fprintf(c->f, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"4\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\">", W - MR + 12, y - 4, palette[a % ARRAY_SIZE(palette)],
			W - MR + 34, y);
		escape_xml(c->f, pc->mi.arm_names[a]);
		if (two) {
			fprintf(c->f, "</text><text x=\"%d\" y=\"%d\" fill=\"#666\" font-size=\"10\">"
				"lru_gen ", W - MR + 34, y + 12);
			escape_xml(c->f, lru);
		}
		fputs(",", c->f);
		fprintf(c->f, " %u run%s</text>\n", pc->arm_runs[a], pc->arm_runs[a] == 1 ? "" : "s");
	}
	line_legend(c, lines, nlines, MT + 16 + (int)pc->mi.n_arms * (two ? 30 : 16));
	fputs("</g>\n", c->f);
}

/* The bands of nlines lines per arm, arm-major: b[a * nlines + k]. */
struct bands {
	struct band b[SPEC_MAX_ARMS * COUNTER_MAX];
	unsigned narms, nlines;
};

/* Every arm's band of every line; -1 out of memory. */
static int bands_make(const struct plot_cell *pc, const struct line *lines, struct bands *bs)
{
	unsigned a, k;

	for (a = 0; a < bs->narms; a++)
		for (k = 0; k < bs->nlines; k++)
			if (band_make(pc, a, lines[k].fn, lines[k].ctx, &bs->b[a * bs->nlines + k]) < 0)
				return -1;
	return 0;
}

/* Each arm's bands, the references, markers, each arm's medians and the legend. */
static void chart_body(struct chart *c, const struct bands *bs, const struct line *lines,
		       const struct ref *refs, unsigned nrefs)
{
	const struct plot_cell *pc = c->pc;
	unsigned a, k;

	for (a = 0; a < bs->narms; a++)
		for (k = 0; k < bs->nlines && pc->arm_runs[a]; k++)
			band_path(c, &bs->b[a * bs->nlines + k], palette[a % ARRAY_SIZE(palette)]);
	refs_draw(c, refs, nrefs);
	markers(c);
	for (a = 0; a < bs->narms; a++)
		for (k = 0; k < bs->nlines && pc->arm_runs[a]; k++)
			median_path(c, &bs->b[a * bs->nlines + k], palette[a % ARRAY_SIZE(palette)],
				    pc->mi.arm_names[a], &lines[k], k);
	legend(c, lines, bs->nlines);
}

/*
 * One chart: each arm's band and median of each line over its runs, the
 * references, markers and legend; -1 with err out of memory.
 */
static int draw(FILE *f, const struct plot_cell *pc, const char *what, const char *ylabel,
		const struct line *lines, unsigned nlines, const struct ref *refs, unsigned nrefs,
		char *err)
{
	_cleanup_free_ struct bands *bs = calloc(1, sizeof(*bs));
	struct chart c = { .f = f, .pc = pc };
	unsigned i;
	int rc;

	if (!bs)
		return errorf(err, "out of memory");
	bs->narms = pc->mi.n_arms < SPEC_MAX_ARMS ? pc->mi.n_arms : SPEC_MAX_ARMS;
	bs->nlines = nlines < COUNTER_MAX ? nlines : COUNTER_MAX;
	rc = bands_make(pc, lines, bs);
	if (rc == 0) {
		scale(&c, bs->b, bs->narms * bs->nlines, refs, nrefs);
		svg_open(&c, what, "line: median of each arm's done runs per interval;"
			 " band: min to max");
		axes(&c, ylabel);
		ramp(&c);
		chart_body(&c, bs, lines, refs, nrefs);
		fputs("</svg>\n", f);
	}
	for (i = 0; i < bs->narms * bs->nlines; i++)
		band_free(&bs->b[i]);
	return rc < 0 ? errorf(err, "out of memory") : 0;
}

int plot_metric_svg(FILE *f, const struct plot_cell *pc, const struct metric *m, char *err)
{
	struct metric_ctx ctx = { .m = m, .nstreams = pc->l.nstreams };
	struct line ln = { .fn = metric_value, .ctx = &ctx };
	unsigned k;

	if (!m->at)
		return errorf(err, "metric '%s' has no per-interval value", m->name);
	for (k = 0; k < pc->l.nfiles; k++)
		ctx.file_mib += (double)pc->l.file_mib[k];
	return draw(f, pc, m->name, m->name, &ln, 1, NULL, 0, err);
}

/* The file's size is its ceiling; the memcg limit is drawn only when it is lower. */
int plot_file_svg(FILE *f, const struct plot_cell *pc, unsigned file, char *err)
{
	struct ref refs[2];
	unsigned nrefs = 0;
	uint64_t mib;
	char what[PROTO_NAME_MAX + 80];

	if (file >= pc->l.nfiles)
		return errorf(err, "cell '%s' has no file %u", pc->mi.cell_names[pc->cell], file);
	mib = pc->l.file_mib[file];
	if (mib) {
		refs[nrefs].y = (double)mib;
		fmtcut(refs[nrefs++].label, sizeof(refs[0].label), "file size %llu MiB",
			 (unsigned long long)mib);
	}
	if (pc->memcg_mib && pc->memcg_mib < mib) {
		refs[nrefs].y = (double)pc->memcg_mib;
		fmtcut(refs[nrefs++].label, sizeof(refs[0].label), "memcg limit %llu MiB",
			 (unsigned long long)pc->memcg_mib);
	}
	fmtcut(what, sizeof(what), "page cache of '%s' (%llu MiB; memcg %llu MiB)",
		 pc->l.files[file], (unsigned long long)mib, (unsigned long long)pc->memcg_mib);
	return draw(f, pc, what, "resident MiB", &(struct line){ .fn = file_value, .ctx = &file }, 1,
		    refs, nrefs, err);
}

const char *plot_counter_absent(const struct plot_cell *pc, enum plot_counter_chart k)
{
	const struct counter_chart *cc = &counter_charts[k];
	unsigned i;

	if (!pc->nruns)
		return "no run of this cell is done";
	for (i = 0; i < COUNTER_MAX && cc->c[i].key; i++)
		if (counter_says(pc, &cc->c[i], cc->nonzero))
			return NULL;
	return cc->absent;
}

const char *plot_counter_name(enum plot_counter_chart k)
{
	return counter_charts[k].name;
}

/* Its counters as lines, an optional one only where a run has it other than 0. */
int plot_counter_svg(FILE *f, const struct plot_cell *pc, enum plot_counter_chart k, char *err)
{
	const struct counter_chart *cc = &counter_charts[k];
	struct line lines[COUNTER_MAX];
	unsigned i, n = 0;

	for (i = 0; i < COUNTER_MAX && cc->c[i].key; i++)
		if (!cc->c[i].optional || counter_says(pc, &cc->c[i], 1))
			lines[n++] = (struct line){ cc->c[i].key, cc->c[i].label, counter_value,
						    &cc->c[i] };
	return draw(f, pc, cc->what, cc->ylabel, lines, n, NULL, 0, err);
}

/* ---- the LRU inside one run: where its file pages were, stacked ---- */

/*
 * Bottom to top: MGLRU's generations oldest first, named by their seq against
 * the youngest (generations are consecutive seqs; the lowest present, whichever
 * it is, is the one evicted), or the classic LRU's lists.
 */
static const char *const gen_layers[LRU_RANKS] = { "max_seq-3", "max_seq-2", "max_seq-1",
						   "max_seq" };
static const char *const list_layers[] = { "inactive_file", "active_file" };
static const char *const layer_colors[] = { "#d55e00", "#e69f00", "#56b4e9", "#0072b2" };

static double layer_mib(const struct lru_point *p, int gens, unsigned k)
{
	if (gens)
		return p->gens ? p->file_mib[LRU_RANKS - 1 - k] : NAN;
	return k == 0 ? p->inactive_file : p->active_file;
}

/* The top of layers 0..k at point i (NAN: the interval has none). */
static double layer_top(const struct lru_point *p, int gens, unsigned k)
{
	double y = 0;
	unsigned j;

	for (j = 0; j <= k; j++)
		y += layer_mib(p, gens, j);
	return y;
}

/*
 * One stacked layer (a generation's rank or an LRU list) as a closed area
 * over the intervals that have it.
 */
static void layer_path(const struct chart *c, const struct lru_point *p, size_t n, int gens,
		       unsigned k, const char *name)
{
	size_t i;
	int first = 1;

	fprintf(c->f, "<path class=\"layer\" data-layer=\"%s\" fill=\"%s\" fill-opacity=\"0.85\""
		" stroke=\"none\" d=\"", name, layer_colors[(gens ? k : k * 3) % ARRAY_SIZE(layer_colors)]);
	for (i = 0; i < n; i++) {
		if (isnan(layer_top(&p[i], gens, k)))
			continue;
		fprintf(c->f, "%s%.1f %.1f", first ? "M" : " L", px(c, p[i].t_s),
			py(c, layer_top(&p[i], gens, k)));
		first = 0;
	}
	for (i = n; i-- > 0;) {
		if (isnan(layer_top(&p[i], gens, k)))
			continue;
		fprintf(c->f, " L%.1f %.1f", px(c, p[i].t_s),
			py(c, k ? layer_top(&p[i], gens, k - 1) : 0));
	}
	fputs(first ? "\"/>\n" : " Z\"/>\n", c->f);
}

/* A tick above the plot at each interval whose max_seq grew: a generation was made. */
static unsigned aging_ticks(const struct chart *c, const struct lru_point *p, size_t n)
{
	unsigned made = 0;
	size_t i;

	for (i = 1; i < n; i++) {
		if (!p[i].gens || !p[i - 1].gens || p[i].max_seq <= p[i - 1].max_seq)
			continue;
		made += (unsigned)(p[i].max_seq - p[i - 1].max_seq);
		fprintf(c->f, "<g class=\"aging\"><title>max_seq %llu at t=%.1f s</title><line x1=\"%.1f\""
			" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#c00\" stroke-width=\"2\"/></g>\n",
			(unsigned long long)p[i].max_seq, p[i].t_s, px(c, p[i].t_s), px(c, p[i].t_s),
			MT - 8, MT);
	}
	return made;
}

/* The layers' legend, with the count of generations made for MGLRU's chart. */
static void layer_legend(const struct chart *c, int gens, unsigned nl, unsigned made)
{
	const char *const *names = gens ? gen_layers : list_layers;
	unsigned k;

	fputs("<g class=\"legend\">\n", c->f);
	for (k = 0; k < nl; k++)
		fprintf(c->f, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\">%s</text>\n", W - MR + 12, MT + 8 + (int)(nl - 1 - k) * 18,
			layer_colors[(gens ? k : k * 3) % ARRAY_SIZE(layer_colors)], W - MR + 34,
			MT + 17 + (int)(nl - 1 - k) * 18, names[k]);
	if (gens)
		fprintf(c->f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#c00\""
			" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">new generation (%u)</text>\n",
			W - MR + 20, W - MR + 20, MT + 8 + (int)nl * 18, MT + 18 + (int)nl * 18,
			W - MR + 34, MT + 17 + (int)nl * 18, made);
	fputs("</g>\n", c->f);
}

/* The vertical scale: the top of the highest stack. */
static void lru_scale(struct chart *c, const struct lru_point *p, size_t n, int gens, unsigned nl)
{
	double ymax = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(layer_top(&p[i], gens, nl - 1)))
			ymax = fmax(ymax, layer_top(&p[i], gens, nl - 1));
	axes_to(c, ymax);
}

/*
 * An arm's LRU chart of one run: file pages by generation (MGLRU) or by list
 * (classic), stacked per interval, the generations made as ticks.
 */
static void lru_draw(FILE *f, const struct plot_cell *pc, unsigned arm, int64_t run,
		     const struct lru_point *p, size_t n, int gens)
{
	struct chart c = { .f = f, .pc = pc };
	unsigned nl = gens ? LRU_RANKS : ARRAY_SIZE(list_layers), k, made;
	char what[160];

	fmtcut(what, sizeof(what), "%s of run %lld (%s)",
		 gens ? "file pages by generation" : "file pages by LRU list", (long long)run,
		 pc->mi.arm_names[arm]);
	lru_scale(&c, p, n, gens, nl);
	svg_open(&c, what, gens ? "MGLRU generations at each interval's end, max_seq the youngest;"
				  " red ticks: a generation made; dotted: stream and pass events"
				: "classic LRU lists at each interval's end (memory.stat); dotted:"
				  " stream and pass events");
	axes(&c, "file MiB");
	ramp(&c);
	for (k = 0; k < nl; k++)
		layer_path(&c, p, n, gens, k, (gens ? gen_layers : list_layers)[k]);
	made = gens ? aging_ticks(&c, p, n) : 0;
	markers(&c);
	layer_legend(&c, gens, nl, made);
	fputs("</svg>\n", f);
}

int plot_lru_svg(FILE *f, struct store *s, const struct plot_cell *pc, unsigned arm,
		 int64_t run, char *err)
{
	struct lru_point *p = NULL;
	size_t n = 0, i;
	int gens = 0, lists = 0;

	if (store_lru_points(s, run, &p, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		gens |= p[i].gens;
		lists |= p[i].active_file + p[i].inactive_file > 0;   /* NAN: not read */
	}
	if (gens || lists)
		lru_draw(f, pc, arm < pc->mi.n_arms ? arm : 0, run, p, n, gens);
	free(p);
	return gens || lists;
}

int plot_find_metric(const char *name, const struct metric **ret, char *err)
{
	char names[256] = "";
	size_t k, len = 0;

	for (k = 0; k < n_metrics; k++) {
		if (metrics[k].at && !strcmp(metrics[k].name, name)) {
			*ret = &metrics[k];
			return 0;
		}
		if (metrics[k].at && len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, " %s", metrics[k].name);
	}
	return errorf(err, "--metric '%s': not one of%s", name, names);
}

/* ---- charts into files ---- */

/* A file-name part: letters, digits, . _ - kept, anything else '_'. */
void plot_slug(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = (src[i] >= 'a' && src[i] <= 'z') || (src[i] >= 'A' && src[i] <= 'Z') ||
			 (src[i] >= '0' && src[i] <= '9') || strchr("._-", src[i]) ? src[i] : '_';
	dst[i] = '\0';
}

/* Render one chart into memory and write it to dir/c<cell>-<cell>-<what>.svg. */
static int write_chart(const char *dir, const struct plot_cell *pc, const char *what,
		       const struct metric *m, unsigned file, char *err)
{
	char path[PATH_MAX], cs[CELL_NAME_MAX], ws[PROTO_NAME_MAX + 8];
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	plot_slug(cs, sizeof(cs), pc->mi.cell_names[pc->cell]);
	plot_slug(ws, sizeof(ws), what);
	if (pathf(path, err, "%s/c%02u-%s-%s%s.svg", dir, pc->cell, cs, m ? "" : "file-", ws) < 0)
		return -1;
	if (!(f = open_memstream(&buf, &len)))
		return errorf(err, "out of memory");
	rc = m ? plot_metric_svg(f, pc, m, err) : plot_file_svg(f, pc, file, err);
	if (fclose(f) != 0 && rc == 0)
		rc = errorf(err, "out of memory");
	if (rc == 0 && (rc = write_file(path, buf, len, err)) == 0)
		printf("%s\n", path);
	return rc;
}

int plot_cell_write(struct store *s, int64_t mid, unsigned cell, const char *dir,
			 const struct metric *const *ms, unsigned nms, char *err)
{
	struct plot_cell *pc = NULL;
	unsigned k;
	int rc = 0;

	if (plot_cell_load(s, mid, cell, &pc, err) < 0)
		return -1;
	for (k = 0; k < nms && rc == 0; k++)
		rc = write_chart(dir, pc, ms[k]->name, ms[k], 0, err);
	for (k = 0; k < pc->l.nfiles && rc == 0; k++)
		rc = write_chart(dir, pc, pc->l.files[k], NULL, k, err);
	plot_cell_free(pc);
	return rc;
}
