/* html.c -- the matrix as one HTML page a browser opens offline: no scripts,
 * no external resources; every text from the database goes through escape.c. */
#include "output/html.h"
#include "analysis/compare.h"
#include "base/err.h"
#include "output/escape.h"
#include "output/lrutable.h"
#include "output/plot.h"
#include "base/proc.h"
#include "output/report.h"
#include "analysis/stats.h"
#include "store/store_compare.h"
#include "store/store_lru.h"
#include "store/store_report.h"
#include "output/table.h"
#include "common/fmt.h"

#include <string.h>

static const char style[] =
	"body{font:14px/1.45 sans-serif;margin:1.5em auto;max-width:1120px;padding:0 1em;"
	"color:#222}h1{font-size:1.5em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;"
	"margin-top:2em}h3{margin-bottom:.3em}table{border-collapse:collapse}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}"
	"th{background:#f0f0f0}pre{background:#f6f6f6;padding:8px;overflow-x:auto;"
	"font-size:12px}pre.console{max-height:28em;overflow-y:auto}.bad{color:#b00}"
	".note{color:#666}figure{margin:.8em 0}svg.plot{max-width:100%;height:auto}";

/* open and close: markup of this file, written as is; text: escaped. */
static void tag_text(FILE *f, const char *open, const char *text, const char *close)
{
	fputs(open, f);
	escape_xml(f, text);
	fputs(close, f);
}

static void fact(FILE *f, const char *label, const char *value)
{
	fprintf(f, "<tr><th>%s</th>", label);
	tag_text(f, "<td>", value && value[0] ? value : "-", "</td></tr>\n");
}

/*
 * The page's head and the matrix's facts: name, when queued, state, file,
 * guest size, reps, hosts, accels, architectures, runs by status.
 */
static void head(FILE *f, int64_t mid, const struct report_matrix *rm)
{
	char buf[128];

	tag_text(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		 "<title>harness report: ", rm->name, "</title>\n");
	fprintf(f, "<style>%s</style>\n</head>\n<body>\n", style);
	tag_text(f, "<h1>", rm->name, "</h1>\n");
	fprintf(f, "<p class=\"note\">matrix %lld; regenerate with <code>harness report %lld"
		"</code></p>\n<table class=\"facts\">\n", (long long)mid, (long long)mid);
	fact(f, "queued", rm->created_at);
	fact(f, "state", rm->state);
	fact(f, "matrix file", rm->spec_path);
	fmtcut(buf, sizeof(buf), "%llu MiB, %llu vCPUs", (unsigned long long)rm->memory_mib,
		 (unsigned long long)rm->vcpus);
	fact(f, "guest", buf);
	fmtcut(buf, sizeof(buf), "%llu", (unsigned long long)rm->reps);
	fact(f, "reps", buf);
	fact(f, "host", rm->hosts);
	fact(f, "accel", rm->accels);
	fact(f, "architecture", rm->archs);
	fact(f, "runs", rm->statuses);
	fputs("</table>\n", f);
}

/* A note under the facts when some done runs were contended (runs.contended). */
static void contended_note(FILE *f, const struct matrix_info *mi)
{
	if (!mi->runs_contended && !mi->runs_started_busy)
		return;
	fprintf(f, "<p class=\"note\"><b>Contended:</b> %u of the %u done runs measured while the"
		" host's CPU or I/O pressure was over harness.conf's <code>contended_cpu_pct</code> or <code>quiet_io_pct</code>"
		" (%u started busy after <code>quiet_wait_s</code>); the tables' means include"
		" them, Compare leaves their ABBA blocks out.</p>\n", mi->runs_contended,
		mi->runs_done, mi->runs_started_busy);
}

/* The page's links: its sections, each cell's plots, the failed runs. */
static void contents(FILE *f, const struct matrix_info *mi, size_t nbad)
{
	unsigned c;

	fputs("<p><a href=\"#arms\">Arms</a> &middot; <a href=\"#tables\">Tables</a> &middot; "
	      "<a href=\"#compare\">Compare</a> &middot; <a href=\"#lru\">Inside the LRU</a> &middot; "
	      "<a href=\"#plots\">Plots</a>", f);
	for (c = 0; c < mi->n_cells; c++) {
		fprintf(f, " (<a href=\"#cell-%u\">", c);
		escape_xml(f, mi->cell_names[c]);
		fputs("</a>)", f);
	}
	fprintf(f, " &middot; <a href=\"#failed\">Failed runs (%zu)</a></p>\n", nbad);
}

/*
 * The arms' table: kernel, image release, guest kernel, lru_gen asked and
 * read back, cmdline; every text escaped.
 */
static void arms(FILE *f, const struct report_arm *a, unsigned n)
{
	unsigned i;

	fputs("<h2 id=\"arms\">Arms</h2>\n<table>\n<tr><th>arm</th><th>kernel</th>"
	      "<th>release (image)</th><th>guest kernel</th><th>lru_gen</th><th>read back</th>"
	      "<th>cmdline</th></tr>\n", f);
	for (i = 0; i < n; i++) {
		tag_text(f, "<tr><td>", a[i].name, "</td>");
		tag_text(f, "<td>", a[i].kernel, "</td>");
		tag_text(f, "<td>", a[i].release, "</td>");
		tag_text(f, "<td>", a[i].guest_releases[0] ? a[i].guest_releases : "-", "</td>");
		tag_text(f, "<td>", a[i].lru_gen[0] ? a[i].lru_gen : "default", "</td>");
		tag_text(f, "<td>", a[i].lru_read[0] ? a[i].lru_read : "-", "</td>");
		tag_text(f, "<td>", a[i].cmdline[0] ? a[i].cmdline : "-", "</td></tr>\n");
	}
	fputs("</table>\n", f);
}

/* Per arm, what measured its done runs (schema 14); nothing if no run recorded it. */
static int machines(FILE *f, struct store *s, int64_t mid, const struct report_arm *a,
		    unsigned n, char *err)
{
	struct store_machines m;
	unsigned i, k, shown = 0;

	for (i = 0; i < n; i++) {
		if (store_matrix_machines(s, mid, (int)i, &m, err) < 0)
			return -1;
		if (!m.v[MACHINE_QEMU][0] && !m.v[MACHINE_HOST_KERNEL][0])
			continue;
		if (!shown++) {
			fputs("<h3>Measured with</h3>\n<table>\n<tr><th>arm</th>", f);
			for (k = 0; k < MACHINE_FACTS; k++)
				tag_text(f, "<th>", report_machine_labels[k], "</th>");
			fputs("</tr>\n", f);
		}
		tag_text(f, "<tr><td>", a[i].name, "</td>");
		for (k = 0; k < MACHINE_FACTS; k++)
			tag_text(f, "<td>", m.v[k][0] ? m.v[k] : "-", "</td>");
		fputs("</tr>\n", f);
	}
	if (shown)
		fputs("</table>\n", f);
	return 0;
}

/* Text a function prints, captured and written escaped in a <pre>; its return value. */
typedef int (*text_fn)(FILE *out, struct store *s, int64_t mid, const void *arg, char *err);

/*
 * What fn prints, captured in memory and written escaped in a <pre> (nothing
 * when it prints nothing); fn's return value, or -1 with err.
 */
static int pre_of(FILE *f, text_fn fn, struct store *s, int64_t mid, const void *arg, char *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return errorf(err, "out of memory");
	rc = fn(m, s, mid, arg, err);
	if (fclose(m) != 0)
		return errorf(err, "out of memory");
	if (rc < 0)
		return -1;
	if (!len)
		return rc;     /* nothing to show: no empty box */
	fputs("<pre>", f);
	escape_xml_n(f, buf, len);
	fputs("</pre>\n", f);
	return rc;
}

/* The ABBA tables as harness run prints them (a text_fn). */
static int abba_text(FILE *out, struct store *s, int64_t mid, const void *arg, char *err)
{
	(void)arg;
	return report_table(out, s, mid, err);
}

/* harness table's text grids (a text_fn). */
static int grid_text(FILE *out, struct store *s, int64_t mid, const void *arg, char *err)
{
	struct table_opts o = { .format = TABLE_TEXT };

	(void)arg;
	return table_print(out, s, mid, &o, err);
}

/* The Tables section: the ABBA tables, then the grids. */
static int tables(FILE *f, struct store *s, int64_t mid, char *err)
{
	fputs("<h2 id=\"tables\">Tables</h2>\n<p class=\"note\">The ABBA blocks as <code>harness"
	      " run</code> prints them (means over done runs, Delta against the first arm), then"
	      " <code>harness table</code>'s grids.</p>\n", f);
	if (pre_of(f, abba_text, s, mid, NULL, err) < 0)
		return -1;
	return pre_of(f, grid_text, s, mid, NULL, err);
}

struct compare_arg {
	const struct matrix_info *mi;
	unsigned arm;
};

/* compare_run of the first arm against another, drift warnings under it. */
static int compare_text(FILE *out, struct store *s, int64_t mid, const void *arg, char *err)
{
	const struct compare_arg *a = arg;
	char key[32];
	struct compare_opts o = {
		.base_matrix = key, .new_matrix = key,
		.base_arm = a->mi->arm_names[0], .new_arm = a->mi->arm_names[a->arm],
	};

	if (fmtbuf(key, sizeof(key), "%lld", (long long)mid) < 0)
		return errorf(err, "matrix id %lld over %zu characters", (long long)mid,
			      sizeof(key) - 1);
	return compare_run(s, &o, out, out, err);
}

/* Each arm against the first; a failed comparison is said in the page. */
static void compare(FILE *f, struct store *s, int64_t mid, const struct matrix_info *mi)
{
	struct compare_arg a = { .mi = mi };
	char err[ERR_MAX];
	int rc;

	fputs("<h2 id=\"compare\">Compare</h2>\n", f);
	if (mi->n_arms < 2) {
		fputs("<p class=\"note\">One arm: nothing to compare.</p>\n", f);
		return;
	}
	fputs("<p class=\"note\">As <code>harness compare MATRIX BASE NEW</code>: each arm against"
	      " the first, per ABBA block.</p>\n", f);
	for (a.arm = 1; a.arm < mi->n_arms; a.arm++) {
		tag_text(f, "<h3>", mi->arm_names[0], " &rarr; ");
		escape_xml(f, mi->arm_names[a.arm]);
		fputs("</h3>\n", f);
		rc = pre_of(f, compare_text, s, mid, &a, err);
		if (rc < 0)
			tag_text(f, "<p class=\"bad\">compare: ", err, "</p>\n");
		else if (rc > 0)
			fputs("<p class=\"bad\"><b>regression</b>: a cell and metric is DIFFERENT and"
			      " worse</p>\n", f);
	}
}

/* The oldest generations' counters of each arm's first run, in words. */
static int lru(FILE *f, struct store *s, int64_t mid, char *err)
{
	fputs("<h2 id=\"lru\">Inside the LRU</h2>\n<p class=\"note\">Per cell, each arm's first"
	      " done run: what its oldest generations (lru_gen_full) evicted and got back as"
	      " refaults over the measured intervals; the charts under Plots show where its file"
	      " pages were, generation by generation (or list by list for the classic LRU).</p>\n",
	      f);
	return pre_of(f, lru_table, s, mid, NULL, err);
}

/* Each arm's first done run: its file pages by generation or list. */
static int lru_plots(FILE *f, struct store *s, int64_t mid, const struct plot_cell *pc,
		     unsigned cell, char *err)
{
	int64_t run[SPEC_MAX_ARMS];
	unsigned a;

	if (store_lru_cell_runs(s, mid, cell, run, err) < 0)
		return -1;
	for (a = 0; a < SPEC_MAX_ARMS; a++) {
		if (!run[a])
			continue;
		fputs("<figure>\n", f);
		if (plot_lru_svg(f, s, pc, a, run[a], err) < 0)
			return -1;
		fputs("</figure>\n", f);
	}
	return 0;
}

/*
 * The cell's counter charts (memory pressure, swap); one the runs say nothing
 * in is left out, and a note says so and why.
 */
static int counter_plots(FILE *f, const struct plot_cell *pc, char *err)
{
	const char *why;
	unsigned k;

	for (k = 0; k < PLOT_COUNTER_CHARTS; k++) {
		if ((why = plot_counter_absent(pc, k))) {
			fprintf(f, "<p class=\"note\">No %s chart: ", plot_counter_name(k));
			tag_text(f, "", why, ".</p>\n");
			continue;
		}
		fputs("<figure>\n", f);
		if (plot_counter_svg(f, pc, k, err) < 0)
			return -1;
		fputs("</figure>\n", f);
	}
	return 0;
}

/*
 * A cell's charts: one per metric asked for, memory pressure and swap
 * traffic, one per declared file's residency, then each arm's generations
 * or lists.
 */
static int cell_plots(FILE *f, struct store *s, int64_t mid, unsigned cell,
		      const struct html_opts *o, char *err)
{
	struct plot_cell *pc = NULL;
	unsigned k;
	int rc = 0;

	if (plot_cell_load(s, mid, cell, &pc, err) < 0)
		return -1;
	for (k = 0; k < o->n_metrics && rc == 0; k++) {
		fputs("<figure>\n", f);
		rc = plot_metric_svg(f, pc, o->metrics[k], err);
		fputs("</figure>\n", f);
	}
	if (rc == 0)
		rc = counter_plots(f, pc, err);
	for (k = 0; k < plot_cell_files(pc) && rc == 0; k++) {
		fputs("<figure>\n", f);
		rc = plot_file_svg(f, pc, k, err);
		fputs("</figure>\n", f);
	}
	if (rc == 0)
		rc = lru_plots(f, s, mid, pc, cell, err);
	plot_cell_free(pc);
	return rc;
}

/* The Plots section: per cell its heading, preset and charts. */
static int plots(FILE *f, struct store *s, int64_t mid, const struct matrix_info *mi,
		 const struct html_opts *o, char *err)
{
	unsigned c;

	fputs("<h2 id=\"plots\">Plots</h2>\n<p class=\"note\">Per interval: the line is the median"
	      " of an arm's done runs, the band their range; dotted lines mark stream and pass"
	      " events (mean time over runs); the grey area is the ramp, left out of the"
	      " tables.</p>\n", f);
	for (c = 0; c < mi->n_cells; c++) {
		fprintf(f, "<h3 id=\"cell-%u\">", c);
		escape_xml(f, mi->cell_names[c]);
		fputs("</h3>\n", f);
		if (mi->cell_preset[c][0] || mi->cell_params[c][0]) {
			tag_text(f, "<p class=\"note\">", mi->cell_preset[c], " ");
			escape_xml(f, mi->cell_params[c]);
			fputs("</p>\n", f);
		}
		if (cell_plots(f, s, mid, c, o, err) < 0)
			return -1;
	}
	return 0;
}

/* The last max bytes of a console log, from a line start, escaped in a <pre>. */
static void console_tail(FILE *f, const char *path, size_t max)
{
	_cleanup_fclose_ FILE *in = path[0] ? fopen(path, "rb") : NULL;
	_cleanup_free_ char *buf = malloc(max + 1);
	long size, start;
	size_t n, skip = 0;

	if (!in || !buf || fseek(in, 0, SEEK_END) < 0 || (size = ftell(in)) < 0) {
		tag_text(f, "<p class=\"note\">console log '", path, "' not readable</p>\n");
		return;
	}
	start = (size_t)size > max ? size - (long)max : 0;
	n = fseek(in, start, SEEK_SET) < 0 ? 0 : fread(buf, 1, max, in);
	if (start > 0)
		while (skip < n && buf[skip++] != '\n')
			;
	tag_text(f, "<p class=\"note\">end of ", path, "");
	fprintf(f, " (%ld bytes):</p>\n<pre class=\"console\">", size);
	if (start + (long)skip > 0)
		fprintf(f, "[... %ld bytes before]\n", start + (long)skip);
	escape_xml_n(f, buf + skip, n - skip);
	fputs("</pre>\n", f);
}

/*
 * A run that failed, crashed or timed out: its reason, guest kernel,
 * warnings, crash excerpt and its console log's end, all escaped.
 */
static void bad_run(FILE *f, const struct report_run *r, size_t console_bytes)
{
	fprintf(f, "<h3>run %lld", (long long)r->id);
	tag_text(f, ": ", r->arm, " / ");
	escape_xml(f, r->cell);
	tag_text(f, ", <span class=\"bad\">", r->status, "</span>");
	if (r->attempt)
		fprintf(f, " (attempt %lld)", (long long)r->attempt);
	fputs("</h3>\n", f);
	tag_text(f, "<p>", r->reason[0] ? r->reason : "no reason stored", "");
	if (r->guest_release[0])
		tag_text(f, "; guest kernel ", r->guest_release, "");
	if (r->warnings)
		fprintf(f, "; %lld WARNING%s in the console", (long long)r->warnings,
			r->warnings == 1 ? "" : "s");
	fputs("</p>\n", f);
	if (r->crash[0])
		tag_text(f, "<pre class=\"bad\">", r->crash, "</pre>\n");
	console_tail(f, r->console, console_bytes);
}

/*
 * The Failed runs section: the first HTML_MAX_FAILED such runs in full, a
 * count of the rest.
 */
static void failed(FILE *f, int64_t mid, const struct report_run *bad, size_t n,
		   const struct html_opts *o)
{
	size_t i;

	fputs("<h2 id=\"failed\">Failed runs</h2>\n", f);
	if (!n)
		fputs("<p class=\"note\">None failed, crashed or timed out.</p>\n", f);
	for (i = 0; i < n && i < HTML_MAX_FAILED; i++)
		bad_run(f, &bad[i], o->console_bytes ? o->console_bytes : HTML_CONSOLE_BYTES);
	if (n > HTML_MAX_FAILED)
		fprintf(f, "<p class=\"note\">and %zu more: <code>harness status %lld</code></p>\n",
			n - HTML_MAX_FAILED, (long long)mid);
}

int html_report(FILE *f, struct store *s, int64_t mid, const struct html_opts *o, char *err)
{
	_cleanup_free_ struct matrix_info *mi = calloc(1, sizeof(*mi));
	_cleanup_free_ struct report_matrix *rm = calloc(1, sizeof(*rm));
	_cleanup_free_ struct report_arm *ra = calloc(SPEC_MAX_ARMS, sizeof(*ra));
	_cleanup_free_ struct report_run *bad = NULL;
	unsigned narms;
	size_t nbad;

	if (!mi || !rm || !ra)
		return errorf(err, "out of memory");
	if (store_matrix_info(s, mid, mi, err) < 0 || store_report_matrix(s, mid, rm, err) < 0 ||
	    store_report_arms(s, mid, ra, &narms, err) < 0 ||
	    store_report_bad_runs(s, mid, &bad, &nbad, err) < 0)
		return -1;
	head(f, mid, rm);
	contended_note(f, mi);
	contents(f, mi, nbad);
	arms(f, ra, narms);
	if (machines(f, s, mid, ra, narms, err) < 0 ||
	    pre_of(f, report_builds, s, mid, NULL, err) < 0 || tables(f, s, mid, err) < 0)
		return -1;
	compare(f, s, mid, mi);
	if (lru(f, s, mid, err) < 0 || plots(f, s, mid, mi, o, err) < 0)
		return -1;
	failed(f, mid, bad, nbad, o);
	fputs("</body>\n</html>\n", f);
	return 0;
}
