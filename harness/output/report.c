/* report.c -- the tables our users paste into mails, regenerated from the
 * database: ABBA blocks, a grid of cells x arms, time series, per-event rows. */
#include "output/report.h"
#include "base/err.h"
#include "analysis/compare.h"
#include "analysis/metric.h"
#include "store/store_compare.h"
#include "store/store_report.h"
#include "output/noise.h"
#include "output/table.h"
#include "common/fmt.h"

#include <math.h>
#include <string.h>

#include <jansson.h>

#define MAX_BINS  4096
#define MAX_COLS  8

/* ---- run summaries: the ABBA block and the grid ---- */

/* The metric's mean (harmonic or arithmetic) over one arm's done runs of one cell; n of them. */
static double arm_mean(const struct run_summary *v, size_t n, unsigned cell, unsigned arm,
		       const struct metric *m, unsigned *ret_n)
{
	_cleanup_free_ double *x = calloc(n + 1, sizeof(*x));
	size_t i, k = 0;

	*ret_n = 0;
	if (!x)
		return NAN;
	for (i = 0; i < n; i++)
		if (v[i].cell == cell && v[i].arm == arm)
			x[k++] = m->get(&v[i]);
	return metric_mean(m, x, k, ret_n);
}

/*
 * A Delta column: the change of val from base in %; "-" for the first arm
 * and where either is missing or base is 0.
 */
static void print_delta(FILE *f, double val, double base, int first)
{
	if (first || isnan(val) || isnan(base) || base == 0)
		fprintf(f, " %7s", "-");
	else
		fprintf(f, " %+6.1f%%", 100.0 * (val - base) / base);
}

/* A value column at the metric's width and decimals; "-" for NAN. */
static void print_value(FILE *f, const struct metric *m, double v)
{
	if (isnan(v))
		fprintf(f, " %*s", m->width, "-");
	else
		fprintf(f, " %*.*f", m->width, m->decimals, v);
}

/*
 * A cell's table heading: matrix / cell (arch, accel), its preset and params,
 * and the column heads of the ABBA metrics.
 */
static void abba_header(FILE *f, const struct matrix_info *mi, unsigned cell)
{
	size_t k;

	fprintf(f, "\n%s / %s  (%s, %s)\n", mi->name, mi->cell_names[cell],
		mi->cell_arch[cell][0] ? mi->cell_arch[cell] : mi->arch[0] ? mi->arch : "-",
		mi->cell_accel[cell][0] ? mi->cell_accel[cell] : mi->accel[0] ? mi->accel : "-");
	if (mi->cell_preset[cell][0] || mi->cell_params[cell][0])
		fprintf(f, "  %s%s%s\n", mi->cell_preset[cell], mi->cell_preset[cell][0] ? ": " : "",
			mi->cell_params[cell]);
	fprintf(f, "%-14s %-8s", "arm", "lru_gen");
	for (k = 0; k < n_metrics; k++) {
		if (!metrics[k].abba)
			continue;
		fprintf(f, " %*s", metrics[k].width, metrics[k].name);
		if (metrics[k].delta)
			fprintf(f, " %7s", "Delta");
	}
	fprintf(f, " %3s\n", "n");
}

/* Done runs of (cell, arm): what the n column counts, whichever metrics they lack. */
static unsigned done_runs(const struct run_summary *v, size_t n, unsigned cell, unsigned arm)
{
	unsigned k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += v[i].cell == cell && v[i].arm == arm;
	return k;
}

/*
 * A cell's ABBA table: per arm, the lru_gen read back, each ABBA metric's
 * mean over its done runs (and Delta against the first arm), and n.
 */
static void abba_block(FILE *f, const struct matrix_info *mi, const struct run_summary *v,
		       size_t n, unsigned cell)
{
	unsigned arm, k, used, base_n;
	double val, base;

	abba_header(f, mi, cell);
	for (arm = 0; arm < mi->n_arms; arm++) {
		fprintf(f, "%-14.14s %-8.8s", mi->arm_names[arm],
			mi->cell_lru[cell][arm][0] ? mi->cell_lru[cell][arm] : "-");
		for (k = 0; k < n_metrics; k++) {
			if (!metrics[k].abba)
				continue;
			val = arm_mean(v, n, cell, arm, &metrics[k], &used);
			base = arm_mean(v, n, cell, 0, &metrics[k], &base_n);
			print_value(f, &metrics[k], val);
			if (metrics[k].delta)
				print_delta(f, val, base, arm == 0);
		}
		fprintf(f, " %3u\n", done_runs(v, n, cell, arm));
	}
}

/* ---- time series and events, per arm ---- */

enum col_kind { C_RATE_STREAM, C_RATE_ALL, C_MAJFLT, C_REFAULT, C_ACTIV, C_MB, C_RESID, C_MISS };

/*
 * One column of a series or events table: what it shows, for which stream or
 * file. Its head is the column's name as the layout gives it ("MB:cold.bin")
 * if that has at most COL_HEAD_MAX characters, else the kind's prefix and the
 * stream's or file's number in the cell ("MB:#2"), and a legend line under
 * the table gives the full name: never cut.
 */
#define COL_HEAD_MAX 14
#define COL_MIN      10   /* a column is at least this wide */

struct col {
	enum col_kind kind;
	int idx;             /* stream or file */
	char head[COL_HEAD_MAX + 1];
	char full[48];       /* the layout's name: "MB:" and a file name */
	int width;
};

static const struct {
	const char *prefix;
	enum col_kind kind;
	int arg;             /* 0 none, 1 a stream name, 2 a file name */
} col_names[] = {
	{ "iops:", C_RATE_STREAM, 1 }, { "ops/s", C_RATE_ALL, 0 }, { "majflt/s", C_MAJFLT, 0 },
	{ "refault/s", C_REFAULT, 0 }, { "activ/s", C_ACTIV, 0 }, { "MB:", C_MB, 2 },
	{ "resid%:", C_RESID, 2 }, { "miss%:", C_MISS, 1 },
};

/* The index of name among names[0..n), or -1. */
static int name_index(const char (*names)[PROTO_NAME_MAX], unsigned n, const char *name)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

/*
 * A column of a preset's table layout ("iops:STREAM", "MB:FILE", ...) into
 * c, its head shortened to "PREFIX#N" when the name is too long; -1 with
 * err naming the column when it is unknown or names no stream or file.
 */
static int parse_col(const char *text, const struct cell_layout *l, struct col *c, char *err)
{
	size_t i, plen;

	for (i = 0; i < ARRAY_SIZE(col_names); i++) {
		plen = strlen(col_names[i].prefix);
		if (strncmp(text, col_names[i].prefix, plen) || (!col_names[i].arg && text[plen]))
			continue;
		c->kind = col_names[i].kind;
		c->idx = col_names[i].arg == 1 ? name_index(l->streams, l->nstreams, text + plen) :
			 col_names[i].arg == 2 ? name_index(l->files, l->nfiles, text + plen) : 0;
		if (c->idx < 0)
			return errorf(err, "table column '%s': no such %s", text,
				      col_names[i].arg == 1 ? "stream" : "file");
		fmtcut(c->full, sizeof(c->full), "%s", text);
		if (strlen(text) <= COL_HEAD_MAX)
			fmtcut(c->head, sizeof(c->head), "%s", text);
		else
			fmtcut(c->head, sizeof(c->head), "%s#%d", col_names[i].prefix, c->idx + 1);
		c->width = (int)strlen(c->head) > COL_MIN ? (int)strlen(c->head) : COL_MIN;
		return 0;
	}
	return errorf(err, "table column '%s' is not one of iops:STREAM ops/s majflt/s refault/s "
		      "activ/s MB:FILE resid%%:FILE miss%%:STREAM", text);
}

/* The layout's array of columns, at most MAX_COLS, into cols[0..*n). */
static int parse_cols(json_t *arr, const struct cell_layout *l, struct col *cols, unsigned *n,
		      char *err)
{
	json_t *v;
	size_t i;

	*n = 0;
	json_array_foreach(arr, i, v) {
		if (*n == MAX_COLS || !json_is_string(v))
			return errorf(err, "table columns: at most %d strings", MAX_COLS);
		if (parse_col(json_string_value(v), l, &cols[(*n)++], err) < 0)
			return -1;
	}
	return 0;
}

/* A file's residency of pages of page_size bytes: MiB, or a share of its size (C_RESID). */
static double resident_value(const struct col *c, double pages, uint32_t page_size,
			     const struct cell_layout *l)
{
	double mib = pages * page_size / (1 << 20);

	if (c->kind == C_MB)
		return mib;
	return l->file_mib[c->idx] ? 100.0 * mib / (double)l->file_mib[c->idx] : NAN;
}

/* Column c over points [a, b) of one run: summary_window's figure, or a file's residency. */
static double col_value(const struct col *c, const struct series_point *p, size_t a, size_t b,
			const struct cell_layout *l)
{
	struct summary_window w;

	if (b <= a)
		return NAN;
	if (c->kind == C_MB || c->kind == C_RESID)
		return resident_value(c, p[b - 1].resident[c->idx], p[b - 1].page_size, l);
	summary_window(p, a, b, l->nstreams, &w);
	switch (c->kind) {
	case C_RATE_STREAM: return w.stream_ops_per_s[c->idx];
	case C_RATE_ALL: return w.ops_per_s;
	case C_MAJFLT: return w.majflt_per_s;
	case C_REFAULT: return w.refault_per_s;
	case C_ACTIV: return w.activate_per_s;
	case C_MISS: return 100.0 * w.stream_miss_share[c->idx];
	default: return NAN;
	}
}

/* Bin one run into step_ms windows; acc[bin][col] += value, cnt[bin][col]++. */
static size_t bin_run(const struct series_point *p, size_t n, uint64_t step_ms,
		      const struct col *cols, unsigned ncols, const struct cell_layout *l,
		      double (*acc)[MAX_COLS], unsigned (*cnt)[MAX_COLS])
{
	size_t a = 0, b, bin, nbins = 0;
	double v;
	unsigned k;

	while (a < n) {
		bin = (size_t)((p[a].t_ms - 1) / step_ms);
		if (bin >= MAX_BINS)
			break;
		for (b = a; b < n && (p[b].t_ms - 1) / step_ms == bin; b++)
			;
		for (k = 0; k < ncols; k++) {
			v = col_value(&cols[k], p, a, b, l);
			if (!isnan(v)) {
				acc[bin][k] += v;
				cnt[bin][k]++;
			}
		}
		nbins = bin + 1 > nbins ? bin + 1 : nbins;
		a = b;
	}
	return nbins;
}

/*
 * A row of a series or events table: each column's mean over the runs that
 * had a value, "-" where none had.
 */
static void print_row(FILE *f, const char *label, const double *acc, const unsigned *cnt,
		      const struct col *cols, unsigned ncols)
{
	unsigned k;
	double v;

	fprintf(f, "%6s", label);
	for (k = 0; k < ncols; k++) {
		v = cnt[k] ? acc[k] / cnt[k] : NAN;
		if (isnan(v))
			fprintf(f, " %*s", cols[k].width, "-");
		else
			fprintf(f, " %*.*f", cols[k].width, fabs(v) >= 100 || v == floor(v) ? 0 : 2, v);
	}
	fprintf(f, "\n");
}

/* The header row, and a legend line for every head that is not the full name. */
static void print_head(FILE *f, const char *first, const struct col *cols, unsigned ncols)
{
	unsigned k;

	fprintf(f, "%6s", first);
	for (k = 0; k < ncols; k++)
		fprintf(f, " %*s", cols[k].width, cols[k].head);
	fprintf(f, "\n");
	for (k = 0; k < ncols; k++)
		if (strcmp(cols[k].head, cols[k].full))
			fprintf(f, "%6s %s = %s\n", "", cols[k].head, cols[k].full);
}

struct view {
	FILE *f;
	struct store *s;
	const struct matrix_info *mi;
	const struct run_ref *runs;
	size_t nruns;
	unsigned cell, arm;
	const struct cell_layout *l;
	struct col cols[MAX_COLS];
	unsigned ncols;
};

/* "\nMATRIX / CELL, ARM (lru_gen X), mean of N runs, ": an arm's table's heading, to go on. */
static void arm_heading(const struct view *w, unsigned used)
{
	const char *lru = w->mi->cell_lru[w->cell][w->arm];

	fprintf(w->f, "\n%s / %s, %s (lru_gen %s), mean of %u run%s, ", w->mi->name,
		w->mi->cell_names[w->cell], w->mi->arm_names[w->arm], lru[0] ? lru : "-", used,
		used == 1 ? "" : "s");
}

/* Sums and counts per row and column of an arm's table (384 KiB: on the heap). */
struct bins {
	double acc[MAX_BINS][MAX_COLS];
	unsigned cnt[MAX_BINS][MAX_COLS];
};

/*
 * An arm's series table: its runs' intervals binned into step_ms windows and
 * averaged over the runs, one row per window.
 */
static int series_arm(struct view *w, uint64_t step_ms, char *err)
{
	_cleanup_free_ struct bins *bn = calloc(1, sizeof(*bn));
	struct series_point *p;
	size_t i, n, b, nbins = 0, got;
	unsigned used = 0;
	char label[24];

	if (!bn)
		return errorf(err, "out of memory");
	for (i = 0; i < w->nruns; i++) {
		if (w->runs[i].cell != w->cell || w->runs[i].arm != w->arm)
			continue;
		if (store_run_series(w->s, w->runs[i].id, &p, &n, err) < 0)
			return -1;
		got = bin_run(p, n, step_ms, w->cols, w->ncols, w->l, bn->acc, bn->cnt);
		nbins = got > nbins ? got : nbins;
		used++;
		free(p);
	}
	arm_heading(w, used);
	fprintf(w->f, "per %llu s:\n", (unsigned long long)(step_ms / 1000));
	print_head(w->f, "t", w->cols, w->ncols);
	for (b = 0; b < nbins; b++) {
		fmtcut(label, sizeof(label), "%llu", (unsigned long long)((b + 1) * step_ms / 1000));
		print_row(w->f, label, bn->acc[b], bn->cnt[b], w->cols, w->ncols);
	}
	return 0;
}

/* Points whose interval overlaps (t0, t1]: the window of a pass. */
static void window(const struct series_point *p, size_t n, uint64_t t0, uint64_t t1, size_t *a,
		   size_t *b)
{
	for (*a = 0; *a < n && p[*a].t_ms <= t0; (*a)++)
		;
	for (*b = *a; *b < n && (*b == *a || p[*b - 1].t_ms < t1); (*b)++)
		;
}

/*
 * A column's value at event e: residency as the event saw it, a rate over the
 * window since the matching start of the same stream and pass.
 */
static double event_col(const struct col *c, const struct event_row *e, const struct event_row *ev,
			size_t nev, const struct series_point *p, size_t n, const struct cell_layout *l)
{
	uint64_t t0 = 0;
	size_t i, a, b;

	if (c->kind == C_MB || c->kind == C_RESID)
		return resident_value(c, e->resident[c->idx], e->page_size, l);
	for (i = 0; i < nev; i++)   /* the matching start: same stream and pass */
		if (&ev[i] != e && ev[i].stream == e->stream && ev[i].pass == e->pass &&
		    ev[i].t_ms <= e->t_ms && strstr(ev[i].kind, "start"))
			t0 = ev[i].t_ms;
	window(p, n, t0, e->t_ms, &a, &b);
	return col_value(c, p, a, b, l);   /* over the intervals' own time, which covers t0..e */
}

/*
 * One run's events of kind for stream: each a row of acc and cnt, the most
 * rows seen in *rows.
 */
static int events_run(struct view *w, int64_t run, int stream, const char *kind,
		      double (*acc)[MAX_COLS], unsigned (*cnt)[MAX_COLS], size_t *rows, char *err)
{
	struct series_point *p = NULL;
	struct event_row *ev = NULL;
	size_t n, nev, i, row = 0;
	unsigned k;
	double v;

	if (store_run_events(w->s, run, &ev, &nev, err) < 0 ||
	    store_run_series(w->s, run, &p, &n, err) < 0) {
		free(ev);
		return -1;
	}
	for (i = 0; i < nev && row < MAX_BINS; i++) {
		if ((int)ev[i].stream != stream || strcmp(ev[i].kind, kind))
			continue;
		for (k = 0; k < w->ncols; k++) {
			v = event_col(&w->cols[k], &ev[i], ev, nev, p, n, w->l);
			if (!isnan(v)) {
				acc[row][k] += v;
				cnt[row][k]++;
			}
		}
		row++;
	}
	*rows = row > *rows ? row : *rows;
	free(ev);
	free(p);
	return 0;
}

/*
 * An arm's events table: one row per occurrence of kind of the stream,
 * averaged over the arm's runs.
 */
static int events_arm(struct view *w, int stream, const char *kind, char *err)
{
	_cleanup_free_ struct bins *bn = calloc(1, sizeof(*bn));
	size_t i, r, rows = 0;
	unsigned used = 0;
	char label[24];

	if (!bn)
		return errorf(err, "out of memory");
	for (i = 0; i < w->nruns; i++) {
		if (w->runs[i].cell != w->cell || w->runs[i].arm != w->arm)
			continue;
		if (events_run(w, w->runs[i].id, stream, kind, bn->acc, bn->cnt, &rows, err) < 0)
			return -1;
		used++;
	}
	arm_heading(w, used);
	fprintf(w->f, "at each %s of '%s':\n", kind, w->l->streams[stream]);
	print_head(w->f, "#", w->cols, w->ncols);
	for (r = 0; r < rows; r++) {
		fmtcut(label, sizeof(label), "%zu", r + 1);
		print_row(w->f, label, bn->acc[r], bn->cnt[r], w->cols, w->ncols);
	}
	return 0;
}

/* A cell's own table, as its preset lays it out: series or events, per arm. */
static int cell_table(struct view *w, json_t *layout, char *err)
{
	const char *kind = json_string_value(json_object_get(layout, "kind"));
	json_t *step = json_object_get(layout, "step_s");
	const char *stream = json_string_value(json_object_get(layout, "stream"));
	const char *event = json_string_value(json_object_get(layout, "event"));
	int si;

	if (!kind || !strcmp(kind, "grid"))
		return 0;
	if (parse_cols(json_object_get(layout, "columns"), w->l, w->cols, &w->ncols, err) < 0)
		return -1;
	for (w->arm = 0; w->arm < w->mi->n_arms; w->arm++) {
		if (!strcmp(kind, "series")) {
			if (series_arm(w, (uint64_t)(json_is_integer(step) ? json_integer_value(step)
						     : 5) * 1000, err) < 0)
				return -1;
		} else if (!strcmp(kind, "events")) {
			si = stream ? name_index(w->l->streams, w->l->nstreams, stream) : -1;
			if (si < 0 || !event)
				return errorf(err, "events table needs a known 'stream' and an 'event'");
			if (events_arm(w, si, event, err) < 0)
				return -1;
		} else {
			return errorf(err, "table kind '%s': expected series, events or grid", kind);
		}
	}
	return 0;
}

/* The grid's metrics: the first grid layout's, for every cell that has one. */
static int grids(FILE *f, struct store *s, int64_t mid, const struct matrix_info *mi,
		 const struct run_summary *v, size_t n, char *err)
{
	unsigned cells[SPEC_MAX_CELLS], ncells = 0, c;
	const struct metric *use[TABLE_MAX_METRICS];
	struct cell_layout l;
	json_t *layout, *ms = NULL, *x;
	size_t i, nm = 0;
	int rc;

	for (c = 0; c < mi->n_cells; c++) {
		if (store_cell_layout(s, mid, c, &l, err) < 0)
			return -1;
		layout = json_loads(l.report, 0, NULL);
		x = json_object_get(layout, "kind");
		if (json_is_string(x) && !strcmp(json_string_value(x), "grid")) {
			cells[ncells++] = c;
			if (!ms)
				ms = json_incref(json_object_get(layout, "metrics"));
		}
		json_decref(layout);
	}
	json_array_foreach(ms, i, x)
		if (nm < TABLE_MAX_METRICS && json_is_string(x) &&
		    (use[nm] = metric_find(json_string_value(x))))
			nm++;
	json_decref(ms);
	rc = nm ? table_text_grids(f, mi, v, n, cells, ncells, use, nm, err) : 0;
	return rc;
}

/* The preset tables of every cell whose preset has a layout. */
static int cell_tables(FILE *f, struct store *s, int64_t mid, const struct matrix_info *mi,
		       char *err)
{
	struct view w = { .f = f, .s = s, .mi = mi };
	_cleanup_free_ struct run_ref *runs = NULL;
	struct cell_layout l;
	json_t *layout;
	int rc = 0;

	if (store_done_runs(s, mid, &runs, &w.nruns, err) < 0)
		return -1;
	w.runs = runs;
	w.l = &l;
	for (w.cell = 0; w.cell < mi->n_cells && rc == 0; w.cell++) {
		if (store_cell_layout(s, mid, w.cell, &l, err) < 0)
			return -1;
		if (!l.report[0])
			continue;
		layout = json_loads(l.report, 0, NULL);
		rc = layout ? cell_table(&w, layout, err) : errorf(err, "cell table layout is not JSON");
		json_decref(layout);
	}
	return rc;
}

/* Text from the build or the guest on one line: anything but printable ASCII as '?'. */
static void print_plain(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s >= 0x20 && *s < 0x7f ? *s : '?', f);
}

/* "same kernel as X": the first earlier arm whose image has the same SHA-256. */
static const char *same_image(const struct report_arm *a, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (a[i].image_sha256[0] && !strcmp(a[j].image_sha256, a[i].image_sha256))
			return a[j].name;
	return NULL;
}

/*
 * A source arm's build line: key, tree, config, base, patches, time, cache,
 * or its failure; the first arm whose image is the same is named.
 */
static void build_line(FILE *f, const struct report_arm *a, unsigned i)
{
	const struct report_arm *r = &a[i];
	const char *same = same_image(a, i);

	fprintf(f, "  %-12s ", r->name);
	if (r->failed[0]) {
		fputs("FAILED: ", f);
		print_plain(f, r->failed);
		fputc('\n', f);
		return;
	}
	fprintf(f, "h%.8s %s; %s (config %.8s); ", r->build_key, r->tree, r->config,
		r->config_sha256);
	if (r->base[0])
		fprintf(f, "base %s; ", r->base);
	fprintf(f, "%lld patch%s%s", (long long)r->n_patches, r->n_patches == 1 ? "" : "es",
		r->n_patches ? ": " : "");
	print_plain(f, r->patches);
	fprintf(f, "; built in %.0f s%s%s%s\n", r->build_s, r->cached ? " (cached)" : "",
		same ? "; the same kernel as " : "", same ? same : "");
}

int report_builds(FILE *f, struct store *s, int64_t matrix_id, const void *arg, char *err)
{
	struct report_arm *a = calloc(SPEC_MAX_ARMS, sizeof(*a));
	unsigned n = 0, i, shown = 0;

	(void)arg;
	if (!a || store_report_arms(s, matrix_id, a, &n, err) < 0) {
		free(a);
		return a ? -1 : errorf(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (!a[i].build_key[0] && !a[i].failed[0])
			continue;
		if (!shown++)
			fputs("\nbuilt from source:\n", f);
		build_line(f, a, i);
	}
	free(a);
	return 0;
}

/*
 * mTHP's "16K:never 32K:never ... 2048K:inherit" as its sizes not "never"
 * ("2048K:inherit, the rest never"), "never" if all are; several runs'
 * values (" | " between) as they are.
 */
static void mthp_brief(FILE *f, const char *v)
{
	const char *p, *end, *colon;
	int kept = 0, dropped = 0;

	if (strstr(v, " | ")) {
		print_plain(f, v);
		return;
	}
	for (p = v; *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, " ");
		colon = memchr(p, ':', (size_t)(end - p));
		if (colon && end - colon - 1 == 5 && !memcmp(colon + 1, "never", 5)) {
			dropped++;
			continue;
		}
		fprintf(f, "%s%.*s", kept++ ? " " : "", (int)(end - p), p);
	}
	if (!kept)
		fputs("never", f);
	else if (dropped)
		fputs(", the rest never", f);
}

/* One arm's settings read back, m's from MACHINE_GUEST_FIRST: "THP ...; mTHP ...; ...". */
static void settings_line(FILE *f, const char *arm, const struct store_machines *m)
{
	int k, shown = 0;

	fprintf(f, "  %-12s ", arm);
	for (k = MACHINE_GUEST_FIRST; k < MACHINE_FACTS; k++) {
		if (!m->v[k][0])
			continue;
		fprintf(f, "%s%s ", shown++ ? "; " : "", report_machine_labels[k]);
		if (k == MACHINE_MTHP)
			mthp_brief(f, m->v[k]);
		else
			print_plain(f, m->v[k]);
	}
	fputc('\n', f);
}

/*
 * What the arms' done runs read back in their guests, an arm a line (the
 * machine facts from MACHINE_GUEST_FIRST); nothing if no done run stored them.
 */
static int report_settings(FILE *f, struct store *s, int64_t matrix_id,
			   const struct matrix_info *mi, char *err)
{
	struct store_machines m;
	unsigned arm, shown = 0;
	int k, any;

	for (arm = 0; arm < mi->n_arms; arm++) {
		if (store_matrix_machines(s, matrix_id, (int)arm, &m, err) < 0)
			return -1;
		for (k = MACHINE_GUEST_FIRST, any = 0; k < MACHINE_FACTS; k++)
			any |= !!m.v[k][0];
		if (!any)
			continue;
		if (!shown++)
			fputs("read back in the guests of the done runs:\n", f);
		settings_line(f, mi->arm_names[arm], &m);
	}
	return 0;
}

const char *const report_machine_labels[MACHINE_FACTS] = {
	"QEMU", "libvirt", "accel", "TCG threading", "host kernel", "host CPU", "host CPUs",
	"vCPU pinning", "start", "THP", "mTHP", "swap", "swappiness",
};

int report_machines(FILE *f, struct store *s, int64_t matrix_id, char *err)
{
	struct store_machines m;
	int i, shown = 0;

	if (store_matrix_machines(s, matrix_id, -1, &m, err) < 0)
		return -1;
	if (!m.v[MACHINE_QEMU][0] && !m.v[MACHINE_HOST_KERNEL][0])
		return 0;
	for (i = 0; i < MACHINE_GUEST_FIRST; i++) {   /* the guests' settings: per arm, below */
		if (!m.v[i][0])
			continue;
		fprintf(f, "%s%s ", shown++ ? ", " : "measured with: ", report_machine_labels[i]);
		print_plain(f, m.v[i]);
	}
	fputc('\n', f);
	return 0;
}

/* The footnote of the run count's "*": how many runs were contended, what compare does. */
static void contended_note(FILE *f, const struct matrix_info *mi)
{
	if (mi->runs_contended)
		fprintf(f, "* %u of them contended: the host's CPU or I/O pressure was over "
			"harness.conf's contended_cpu_pct or quiet_io_pct while they measured; the "
			"means include them, compare leaves their blocks out (--keep-contended keeps "
			"them)\n", mi->runs_contended);
	if (mi->runs_started_busy)
		fprintf(f, "%s%u started on a busy host after quiet_wait_s\n",
			mi->runs_contended ? "  " : "note: ", mi->runs_started_busy);
}

/* Each cell in which an arm OOM'd where the first did not, or the reverse: a line each. */
static void oom_note(FILE *f, const struct matrix_info *mi)
{
	char line[512];
	unsigned c, a;

	for (c = 0; c < mi->n_cells; c++)
		for (a = 1; a < mi->n_arms; a++)
			if (compare_oom_line(mi, c, 0, mi, c, a, line, sizeof(line)))
				fprintf(f, "%s\n", line);
}

int report_table(FILE *f, struct store *s, int64_t matrix_id, char *err)
{
	struct matrix_info mi;
	_cleanup_free_ struct run_summary *v = NULL;
	unsigned cell, arm;
	size_t n;

	if (store_matrix_info(s, matrix_id, &mi, err) < 0 ||
	    store_summaries(s, matrix_id, SUMMARY_TABLE, &v, &n, err) < 0)
		return -1;
	for (cell = 0; cell < mi.n_cells; cell++)
		abba_block(f, &mi, v, n, cell);
	if (grids(f, s, matrix_id, &mi, v, n, err) < 0 || cell_tables(f, s, matrix_id, &mi, err) < 0)
		return -1;
	fprintf(f, "\nkernels:");
	for (arm = 0; arm < mi.n_arms; arm++)
		fprintf(f, "%s %s=%s%s%s%s", arm ? "," : "", mi.arm_names[arm], mi.arm_release[arm],
			mi.arm_tags[arm][0] ? " (tag " : "", mi.arm_tags[arm],
			mi.arm_tags[arm][0] ? ")" : "");
	fprintf(f, "\nruns: %u done%s, %u failed, %u unsupported, ", mi.runs_done,
		mi.runs_contended ? "*" : "", mi.runs_failed, mi.runs_unsupported);
	if (mi.runs_oom)   /* said where it happened: older reports' line otherwise */
		fprintf(f, "%u oom, ", mi.runs_oom);
	fprintf(f, "%u total; Delta against %s; means over done runs\n", mi.runs_total,
		mi.arm_names[0]);
	oom_note(f, &mi);
	contended_note(f, &mi);
	if (report_machines(f, s, matrix_id, err) < 0 ||
	    report_settings(f, s, matrix_id, &mi, err) < 0 ||
	    noise_section(f, s, matrix_id, &mi, v, n, err) < 0)
		return -1;
	return report_builds(f, s, matrix_id, NULL, err);
}
