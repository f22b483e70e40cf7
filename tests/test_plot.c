/* test_plot.c -- the SVG plots and the HTML report on a real SQLite database
 * filled through the store API as the runner would: ABBA runs with a ramp,
 * stream events, per-file residency, a crashed run with a console log. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/summary.h"
#include "conf/conf.h"
#include "base/err.h"
#include "base/textline.h"
#include "output/escape.h"
#include "output/html.h"
#include "output/lrutable.h"
#include "analysis/metric.h"
#include "output/plot.h"
#include "output/report.h"
#include "store/store.h"
#include "store/store_lru.h"
#include "testlib.h"

#define HOSTILE_CELL   "<b>\"x'&y</b>"
#define HOSTILE_CELL_E "&lt;b&gt;&quot;x&#39;&amp;y&lt;/b&gt;"
#define HOSTILE_STREAM "cold<&>"
#define HOSTILE_MATRIX "plots<i>"

static char dir[PATH_MAX], console[PATH_MAX + 16];
static struct conf conf;
static struct store *store;
static int64_t mid, empty_mid, gap_mid, lru_mid, swap_mid, old_mid;

#define GAP_SEQ 3   /* the interval every run of gap_mid's stream 'r' never told */

/* ---- a matrix filled by hand: arms mglru and classic, one cell, two files ---- */

static struct matrix *new_matrix(const char *name, unsigned reps)
{
	static const char *const arms[] = { "mglru", "classic" };
	struct matrix *m = fixture_matrix_new(name, dir, reps);
	struct cell *c;
	unsigned i;

	sfmt(m->path, sizeof(m->path), "plots.json");
	sfmt(m->hash, sizeof(m->hash), "%s", name);
	m->n_arms = 2;
	m->n_cells = 1;
	for (i = 0; i < 2; i++) {
		sfmt(m->arms[i].name, sizeof(m->arms[i].name), "%s", arms[i]);
		sfmt(m->arms[i].kernel, sizeof(m->arms[i].kernel), "6.12");
		sfmt(m->arms[i].files[0].kernel, sizeof(m->arms[i].files[0].kernel), "/k/vmlinuz");
		sfmt(m->arms[i].files[0].release, sizeof(m->arms[i].files[0].release), "6.12.99-test");
		sfmt(m->arms[i].lru_gen, sizeof(m->arms[i].lru_gen), i ? "n" : "y");
	}
	c = &m->cells[0];
	sfmt(c->name, sizeof(c->name), HOSTILE_CELL);
	sfmt(c->arch, sizeof(c->arch), "x86_64");
	c->job.memcg_mib = 64;
	c->job.duration_s = 11;
	c->job.interval_ms = 1000;
	c->job.ramp_s = 1;
	c->job.nfiles = 3;
	sfmt(c->job.files[0].name, sizeof(c->job.files[0].name), "vec");
	c->job.files[0].mib = 8;
	sfmt(c->job.files[1].name, sizeof(c->job.files[1].name), "cold");
	c->job.files[1].mib = 4;
	sfmt(c->job.files[2].name, sizeof(c->job.files[2].name), "big");
	c->job.files[2].mib = 128;
	c->job.nstreams = 2;
	c->job.streams[0].kind = KIND_RANDOM;
	sfmt(c->job.streams[0].name, sizeof(c->job.streams[0].name), "r");
	sfmt(c->job.streams[0].file, sizeof(c->job.streams[0].file), "vec");
	c->job.streams[1].kind = KIND_SCAN;
	sfmt(c->job.streams[1].name, sizeof(c->job.streams[1].name), HOSTILE_STREAM);
	sfmt(c->job.streams[1].file, sizeof(c->job.streams[1].file), "cold");
	return m;
}

static void event(int64_t run, unsigned idx, uint64_t t_ms, uint64_t stream, const char *kind,
		  uint64_t pass)
{
	struct proto_event e = { .t_ms = t_ms, .stream = stream, .pass = pass,
				 .resident = { .n = 3, .v = { 1024, 512, 4096 } } };
	char err[ERR_MAX];

	sfmt(e.kind, sizeof(e.kind), "%s", kind);
	if (store_event(store, run, idx, &e, err) < 0)
		fail_msg("event: %s", err);
}

static void boot(int64_t run, const char *console_path)
{
	struct proto_hello h = { .proto = 1, .page_size = 4096, .mem_total_kib = 1 << 19 };
	struct proto_setup st = { .file_pages = { .n = 3, .v = { 2048, 1024, 32768 } } };
	char err[ERR_MAX];

	sfmt(h.release, sizeof(h.release), "6.12.99-test");
	sfmt(h.arch, sizeof(h.arch), "x86_64");
	sfmt(st.lru_gen, sizeof(st.lru_gen), "0x0007");
	sfmt(st.residency, sizeof(st.residency), "cachestat");
	if (store_run_booting(store, run, "tcg", "testhost", "x86_64", console_path, err) < 0 ||
	    store_run_hello(store, run, &h, 1000, err) < 0 || store_run_setup(store, run, &st, err) < 0)
		fail_msg("run %lld: %s", (long long)run, err);
}

/*
 * One done run: a ramp interval, 10 more at ops/s (stream 'r'; the scanner's
 * rows say 0); the cold file read at t=5. missing: an interval whose row of
 * stream 'r' the guest never sent, or -1.
 */
static void done_run(int64_t run, double ops, int missing)
{
	struct proto_summary sum = { .samples = 11, .duration_ms = 11000 };
	struct proto_stream_sample ss;
	struct proto_sample smp;
	char err[ERR_MAX];
	uint64_t i;

	boot(run, "");
	for (i = 0; i <= 10; i++) {
		memset(&smp, 0, sizeof(smp));
		smp.seq = i;
		smp.t_ms = 1000 * (i + 1);
		smp.ramp = i == 0;
		smp.refault_file = 10 * i;
		smp.resident.n = 3;
		smp.resident.v[2] = 4096;
		smp.resident.v[0] = 2048 - 100 * i;
		smp.resident.v[1] = i >= 5 ? 1024 : 0;
		memset(&ss, 0, sizeof(ss));
		ss.seq = i;
		ss.active = 1;
		ss.read_ops = (uint64_t)ops;
		if (store_sample(store, run, &smp, err) < 0 ||
		    ((int)i != missing && store_stream_sample(store, run, &ss, err) < 0))
			fail_msg("sample: %s", err);
		ss.stream = 1;
		ss.read_ops = 0;
		if (store_stream_sample(store, run, &ss, err) < 0)
			fail_msg("sample: %s", err);
	}
	event(run, 0, 20, 0, "start", 0);
	event(run, 1, 5000, 1, "start", 0);
	event(run, 2, 5010, 1, "pass_start", 1);
	event(run, 3, 7000, 1, "pass_end", 1);
	event(run, 4, 11000, 0, "end", 0);
	if (summary_finish_run(store, run, "done", NULL, &sum, err) < 0)
		fail_msg("finish: %s", err);
}

/* A crashed run: its console log is 100 KiB, hostile text at its end. */
static void crashed_run(int64_t run)
{
	char err[ERR_MAX];
	FILE *f;
	int i;

	sfmt(console, sizeof(console), "%s/console.log", dir);
	f = fopen(console, "w");
	assert_non_null(f);
	fprintf(f, "START-OF-LOG\r\n");
	for (i = 0; i < 2000; i++)
		fprintf(f, "[ %4d.000000] filler line of the boot log, fifty bytes\r\n", i);
	fprintf(f, "Kernel panic - not syncing: <script>alert(1)</script> \x01\xff\r\nEND-OF-LOG\r\n");
	assert_int_equal(fclose(f), 0);
	boot(run, console);
	if (summary_finish_run(store, run, "crashed", "kernel panic & <oops>", NULL, err) < 0 ||
	    store_run_console(store, run, "Kernel panic - not syncing: <x>", 2, err) < 0)
		fail_msg("crash: %s", err);
}

/*
 * lru_mid's runs: intervals 0 (the ramp) to 10 at t = 1 s ... 11 s. MGLRU
 * (arm 0): generations 2-5, from interval 5 on 3-6 (one made), 100, 200,
 * 300 and 400 file pages oldest first, the oldest's age t; its tier 0
 * counters grow while it is the oldest: gen 2 evicts 100 and refaults 50
 * a second (500 and 250 by interval 4), gen 3 evicts 10 a second (60 by
 * interval 10); tier 1 protects 7. The classic LRU (arm 1): 2 MiB active,
 * 6 MiB inactive file.
 */
static void lru_interval(int64_t run, uint64_t i, int mglru)
{
	struct proto_sample smp = { .seq = i, .t_ms = 1000 * (i + 1), .ramp = i == 0 };
	struct proto_lru l = { .seq = i, .gen.n = 4, .age_ms.n = 4, .anon.n = 4, .file.n = 4,
			       .rep.n = 4 };
	uint64_t g, base = i < 5 ? 2 : 3;
	char err[ERR_MAX];

	smp.active_file = mglru ? 0 : 2 << 20;
	smp.inactive_file = mglru ? 0 : 6 << 20;
	if (mglru) {
		smp.gen_valid = 1;
		smp.min_seq = base;
		smp.max_seq = base + 3;
		smp.lru_nodes = 1;
	}
	if (store_sample(store, run, &smp, err) < 0)
		fail_msg("sample: %s", err);
	if (!mglru)
		return;
#define X(m, key, max) l.m.n = PROTO_LRU_TIER_MAX;
	PROTO_LRU_TIER_FIELDS(X)
#undef X
	for (g = 0; g < 4; g++) {
		l.gen.v[g] = base + g;
		l.age_ms.v[g] = (1000 * (i + 1)) >> g;
		l.file.v[g] = 100 * (g + 1);
	}
	l.rep.v[0] = 1 << LRUGEN_FILE;
	l.file_evicted.v[0] = i < 5 ? 100 * (i + 1) : 10 * (i - 4);
	l.file_refaulted.v[0] = i < 5 ? 50 * (i + 1) : 0;
	l.file_protected.v[1] = 7;
	if (store_lru(store, run, &l, err) < 0)
		fail_msg("lru: %s", err);
}

static void lru_done_run(int64_t run, int mglru)
{
	struct proto_summary sum = { .samples = 11, .duration_ms = 11000 };
	char err[ERR_MAX];
	uint64_t i;

	boot(run, "");
	for (i = 0; i <= 10; i++)
		lru_interval(run, i, mglru);
	event(run, 0, 5000, 1, "pass_end", 1);
	if (summary_finish_run(store, run, "done", NULL, &sum, err) < 0)
		fail_msg("finish: %s", err);
}

static int64_t add_lru_matrix(void)
{
	struct matrix *m = new_matrix("lru", 1);
	struct run_ref *runs = NULL;
	int64_t id;
	size_t n, i;

	n = fixture_queue(store, m, &id, &runs);
	for (i = 0; i < n; i++)
		lru_done_run(runs[i].id, runs[i].arm == 0);
	free(runs);
	free(m);
	return id;
}

/*
 * swap_mid's intervals: 0 (the ramp) to 10, ending at t = 1, 2, ... 5 s, then
 * 5.5 s (interval 5 lasts half a second), 6.5, ... 10.5 s.
 */
static uint64_t swap_t_ms(uint64_t i)
{
	return 1000 * (i + 1) - (i >= 5 ? 500 : 0);
}

/*
 * A done run of swap_mid: at interval i, arm mglru swaps 100 i pages out and
 * 20 i in; classic 50 i out, none in, and stores 10 pages in zswap at
 * interval 3 (it loads none back). The memcg stalls 250 ms (some) and
 * 100 ms (full) every interval.
 */
static void swap_done_run(int64_t run, int mglru)
{
	struct proto_summary sum = { .samples = 11, .duration_ms = 10500 };
	struct proto_sample smp;
	char err[ERR_MAX];
	uint64_t i;

	boot(run, "");
	for (i = 0; i <= 10; i++) {
		memset(&smp, 0, sizeof(smp));
		smp.seq = i;
		smp.t_ms = swap_t_ms(i);
		smp.ramp = i == 0;
		smp.pswpout = (mglru ? 100 : 50) * i;
		smp.pswpin = mglru ? 20 * i : 0;
		smp.zswpout = !mglru && i == 3 ? 10 : 0;
		smp.memcg_psi_some_us = 250000;
		smp.memcg_psi_full_us = 100000;
		if (store_sample(store, run, &smp, err) < 0)
			fail_msg("sample: %s", err);
	}
	if (summary_finish_run(store, run, "done", NULL, &sum, err) < 0)
		fail_msg("finish: %s", err);
}

/*
 * A matrix of swap_done_runs, one per arm; with old, its samples' swap and
 * pressure columns NULL afterwards, as in rows stored before schemas 19 and 21.
 */
static int64_t add_swap_matrix(const char *name, int old)
{
	struct matrix *m = new_matrix(name, 1);
	struct run_ref *runs = NULL;
	char sql[512];
	int64_t id;
	size_t n, i;

	n = fixture_queue(store, m, &id, &runs);
	for (i = 0; i < n; i++)
		swap_done_run(runs[i].id, runs[i].arm == 0);
	sfmt(sql, sizeof(sql), "UPDATE samples SET pswpin = NULL, pswpout = NULL, zswpin = NULL,"
	     " zswpout = NULL, memcg_psi_some_us = NULL, memcg_psi_full_us = NULL WHERE run_id IN"
	     " (SELECT id FROM runs WHERE matrix_id = %lld)", (long long)id);
	if (old)
		fixture_sql(&conf, sql);
	free(runs);
	free(m);
	return id;
}

/* gap_mid's table: 5 s rows of stream 'r' and of all streams */
static char gap_table[] = "{\"kind\": \"series\", \"step_s\": 5, \"columns\": [\"iops:r\", \"ops/s\"]}";

static int64_t add_matrix(const char *name, unsigned reps, int finish, int missing)
{
	struct matrix *m = new_matrix(name, reps);
	struct run_ref *runs = NULL;
	int64_t id;
	size_t n, i;
	int crashed = 0;

	if (missing >= 0)
		m->cells[0].table = gap_table;
	n = fixture_queue(store, m, &id, &runs);
	for (i = 0; i < n && finish; i++) {
		if (runs[i].arm == 1 && !crashed++)
			crashed_run(runs[i].id);
		else
			done_run(runs[i].id, runs[i].arm ? 2000 + 500.0 * runs[i].block : 1000,
				 missing);
	}
	free(runs);
	free(m);
	return id;
}

static int setup(void **state)
{
	(void)state;
	fixture_dir(dir, "test_plot", &conf);
	store = fixture_store(&conf);
	mid = add_matrix(HOSTILE_MATRIX, 4, 1, -1);
	empty_mid = add_matrix("empty", 2, 0, -1);
	gap_mid = add_matrix("gaps", 2, 1, GAP_SEQ);
	lru_mid = add_lru_matrix();
	swap_mid = add_swap_matrix("swap", 0);
	old_mid = add_swap_matrix("old", 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(store);
	return fixture_rmdir(dir);
}

/* ---- checks on the text ---- */

static int is_void(const char *name, size_t len)
{
	return (len == 4 && !strncmp(name, "meta", 4)) || (len == 2 && !strncmp(name, "br", 2));
}

/* Tags nest and close, and no '<' or '>' stands where an entity should. */
static int balanced(const char *s)
{
	const char *stack[256], *name, *end;
	size_t lens[256], len;
	int depth = 0;

	for (; (s = strchr(s, '<')); s = end + 1) {
		end = strchr(s + 1, '>');
		if (!end || memchr(s + 1, '<', (size_t)(end - s - 1)))
			return 0;
		if (s[1] == '!')
			continue;
		name = s + (s[1] == '/' ? 2 : 1);
		len = strcspn(name, " \t\n/>");
		if (s[1] == '/') {
			if (!depth || lens[depth - 1] != len || strncmp(stack[depth - 1], name, len))
				return 0;
			depth--;
		} else if (end[-1] != '/' && !is_void(name, len)) {
			if (depth == 256)
				return 0;
			stack[depth] = name;
			lens[depth++] = len;
		}
	}
	return depth == 0;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

/* The text between the first begin and the end after it. */
static char *between(const char *s, const char *begin, const char *end)
{
	const char *a = strstr(s, begin), *b = a ? strstr(a, end) : NULL;

	assert_non_null(b);
	return strndup(a, (size_t)(b - a) + strlen(end));
}

typedef int (*svg_fn)(FILE *f, const struct plot_cell *pc, const void *arg, char *err);

static int metric_svg(FILE *f, const struct plot_cell *pc, const void *arg, char *err)
{
	return plot_metric_svg(f, pc, arg, err);
}

static int file_svg(FILE *f, const struct plot_cell *pc, const void *arg, char *err)
{
	return plot_file_svg(f, pc, *(const unsigned *)arg, err);
}

static int counter_svg(FILE *f, const struct plot_cell *pc, const void *arg, char *err)
{
	return plot_counter_svg(f, pc, *(const enum plot_counter_chart *)arg, err);
}

static char *render(int64_t matrix, svg_fn fn, const void *arg)
{
	struct plot_cell *pc = NULL;
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (plot_cell_load(store, matrix, 0, &pc, err) < 0 || fn(f, pc, arg, err) < 0)
		fail_msg("plot: %s", err);
	assert_int_equal(fclose(f), 0);
	plot_cell_free(pc);
	return buf;
}

/* ---- tests ---- */

static void test_escape(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	escape_xml_n(f, "<a href=\"x\">&'\r\n\x01\x7f\xff\xc3\xa9\xe2\x82\0z", 25);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\n???\xc3\xa9???z");
	free(buf);
}

/* The CLI's and the log's escaper: one line, no byte that drives a terminal. */
static void test_escape_line(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	/* ESC, newline, CR, tab, DEL, C1 CSI (U+009B), a stray byte, then é and a backslash */
	escape_line(f, "%s: got '%s'", "m.json",
		    "a\x1b[31mred\nnext\r\t\x7f\xc2\x9b\xff\xc3\xa9\\");
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "m.json: got 'a\\u001b[31mred\\nnext\\r\\t\\u007f\\u009b"
			    "\\xff\xc3\xa9\\'\n");
	free(buf);
}

static void test_metric_at(void **state)
{
	struct series_point p[2] = {
		{ .t_ms = 1000, .refault = 999, .ops = { 1, 1 } },
		{ .t_ms = 1500, .refault = 50, .majflt = 10, .ops = { 300, 100 },
		  .reads = { 200, 50 }, .misses = { 25 }, .resident = { 512, 256 }, .page_size = 4096 },
	};
	struct summary_window w;
	struct metric_interval iv = { .w = &w, .file_mib = 4 };   /* 1024 pages of 4 KiB */
	const struct metric *m;
	char err[ERR_MAX];

	(void)state;
	summary_window(p, 1, 2, 2, &w);   /* the 0.5 s interval that ends at p[1] */
	assert_int_equal(plot_find_metric("ops/s", &m, err), 0);
	assert_float_equal(m->at(&iv), 800, 1e-9);
	assert_int_equal(plot_find_metric("refault/s", &m, err), 0);
	assert_float_equal(m->at(&iv), 100, 1e-9);
	assert_int_equal(plot_find_metric("rf/read", &m, err), 0);
	assert_float_equal(m->at(&iv), 0.2, 1e-9);
	assert_int_equal(plot_find_metric("resid%", &m, err), 0);
	assert_float_equal(m->at(&iv), 75, 1e-9);
	assert_int_equal(plot_find_metric("miss%", &m, err), 0);
	assert_float_equal(m->at(&iv), 10, 1e-9);
	p[1].ops[1] = NAN;   /* a stream that did not tell it: a gap, not 300 */
	summary_window(p, 1, 2, 2, &w);
	assert_int_equal(plot_find_metric("ops/s", &m, err), 0);
	assert_true(isnan(m->at(&iv)) && w.stream_ops_per_s[0] == 600);
	p[1].t_ms = 1000;    /* no time */
	summary_window(p, 1, 2, 2, &w);
	assert_true(isnan(m->at(&iv)));
	assert_int_equal(plot_find_metric("bogus", &m, err), -1);
	assert_non_null(strstr(err, "'bogus'"));
	assert_non_null(strstr(err, "refault/s"));
}

/* A counter per second of a window: the interval's own length; NAN where not stored or no time. */
static void test_per_s(void **state)
{
	struct series_point p[3] = {
		{ .t_ms = 1000, .pswpout = 10 }, { .t_ms = 1500, .pswpout = 40 },
		{ .t_ms = 1500, .pswpout = 5 },
	};
	size_t out = offsetof(struct series_point, pswpout);

	(void)state;
	assert_float_equal(summary_per_s(p, 1, 2, out), 40 / 0.5, 1e-9);
	assert_float_equal(summary_per_s(p, 0, 2, out), 50 / 1.5, 1e-9);
	assert_true(isnan(summary_per_s(p, 2, 3, out)));   /* no time */
	p[0].pswpout = NAN;                                 /* not stored */
	assert_true(isnan(summary_per_s(p, 0, 2, out)));
	assert_float_equal(summary_per_s(p, 1, 2, out), 80, 1e-9);
}

static void test_metric_svg(void **state)
{
	const struct metric *m;
	char err[ERR_MAX], *svg, *median;

	(void)state;
	assert_int_equal(plot_find_metric("ops/s", &m, err), 0);
	svg = render(mid, metric_svg, m);
	assert_true(balanced(svg));
	assert_int_equal(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39), 0);
	assert_int_equal(count(svg, "<svg"), 1);
	assert_int_equal(count(svg, "class=\"median\""), 2);
	assert_int_equal(count(svg, "class=\"band\""), 2);
	/* every interval of the mglru runs is on its line: M then 10 L */
	median = between(svg, "data-arm=\"mglru\"", "/>");
	assert_int_equal(count(median, "M"), 1);
	assert_int_equal(count(median, "L"), 10);
	free(median);
	assert_non_null(strstr(svg, "data-arm=\"classic\""));
	assert_non_null(strstr(svg, "3 runs</text>"));      /* classic: one crashed */
	assert_non_null(strstr(svg, "4 runs</text>"));
	assert_non_null(strstr(svg, "class=\"ramp\""));
	/* the cold read at t=5 and its pass share a line (10 ms apart); the reader's start
	 * at 20 ms and its end with the workload are no news */
	assert_non_null(strstr(svg, ">cold&lt;&amp;&gt; start, cold&lt;&amp;&gt; pass 1</text>"));
	assert_non_null(strstr(svg, ">cold&lt;&amp;&gt; pass 1 end</text>"));
	assert_non_null(strstr(svg, "cold&lt;&amp;&gt; start at t=5.0 s (mean of 7 runs)"));
	assert_null(strstr(svg, "r start"));
	assert_null(strstr(svg, "r end"));
	assert_int_equal(count(svg, "class=\"event\""), 2);
	assert_non_null(strstr(svg, HOSTILE_CELL_E));
	assert_non_null(strstr(svg, "plots&lt;i&gt;"));
	assert_null(strstr(svg, "<b>"));
	assert_null(strstr(svg, "<i>"));
	free(svg);
}

/*
 * A run's figures by hand: a ramp interval, stream 0 silent in one measured
 * interval (its rate over the 3 s it told, scaled to the 4 s measured),
 * stream 1 told throughout; residency at the last interval.
 */
static void test_summary_figures(void **state)
{
	struct series_point p[4] = {
		{ .seq = 0, .t_ms = 1000, .ramp = 1, .refault = 99, .ops = { 500, 500 } },
		{ .seq = 1, .t_ms = 2000, .refault = 10, .majflt = 4, .activate = 2,
		  .ops = { 100, 50 }, .reads = { 80, 50 }, .misses = { 8, 0 } },
		{ .seq = 2, .t_ms = 3000, .refault = 20, .ops = { NAN, 50 }, .reads = { NAN, 50 },
		  .misses = { NAN, 5 } },
		{ .seq = 3, .t_ms = 5000, .refault = 30, .ops = { 200, 100 },
		  .reads = { 160, 100 }, .misses = { 16, 10 }, .resident = { 300, 100 } },
	};
	struct run_summary r;

	(void)state;
	summary_figures(p, 4, 2, 800, &r);
	assert_float_equal(r.seconds, 4, 1e-12);
	assert_float_equal(r.refault_per_s, 15, 1e-12);
	assert_float_equal(r.majflt_per_s, 1, 1e-12);
	assert_float_equal(r.activate_per_s, 0.5, 1e-12);
	assert_float_equal(r.ops_per_s, (300.0 * 4 / 3 + 200) / 4, 1e-9);
	assert_float_equal(r.refaults_per_read, 60 / (240.0 * 4 / 3 + 200), 1e-12);
	assert_float_equal(r.miss_share, 39.0 / 440, 1e-12);
	assert_float_equal(r.resident_share, 0.5, 1e-12);
	/* no stream told a measured interval, no files: no rate, no share */
	summary_figures(p, 1, 2, 0, &r);
	assert_true(isnan(r.ops_per_s) && isnan(r.refault_per_s) && isnan(r.miss_share));
	assert_true(isnan(r.refaults_per_read) && isnan(r.resident_share));
}

/* An interval a stream never told is missing in the series, never 0; the others are there. */
static void test_missing_interval_series(void **state)
{
	struct run_ref *runs = NULL;
	struct series_point *p = NULL;
	char err[ERR_MAX];
	size_t n, nruns;

	(void)state;
	if (store_done_runs(store, gap_mid, &runs, &nruns, err) < 0 ||
	    store_run_series(store, runs[0].id, &p, &n, err) < 0)
		fail_msg("series: %s", err);
	assert_int_equal(n, 11);
	assert_true(isnan(p[GAP_SEQ].ops[0]) && isnan(p[GAP_SEQ].reads[0]));
	assert_float_equal(p[GAP_SEQ].ops[1], 0, 0);          /* the scanner told its 0 */
	assert_float_equal(p[GAP_SEQ + 1].ops[0], 1000, 0);
	assert_float_equal(p[GAP_SEQ].ops[2], 0, 0);          /* no third stream */
	free(p);
	free(runs);
}

/* Two events with no file's residency (a cell without files): both read back. */
static size_t events_without_files(int64_t run)
{
	struct proto_event e0 = { .t_ms = 5, .kind = "start" }, e1 = { .t_ms = 9, .kind = "end" };
	struct event_row *ev = NULL;
	char err[ERR_MAX];
	size_t n;

	if (store_event(store, run, 0, &e0, err) < 0 || store_event(store, run, 1, &e1, err) < 0 ||
	    store_run_events(store, run, &ev, &n, err) < 0)
		fail_msg("events: %s", err);
	assert_true(n < 2 || (ev[0].t_ms == 5 && ev[1].t_ms == 9 && ev[1].resident[0] == 0 &&
			      ev[1].page_size == 65536));
	free(ev);
	return n;
}

/*
 * A run whose agent skipped a seq: the points after it keep their stream and
 * file rows (they were looked up by seq as an index, and lost); events
 * without files are there too; both carry the guest's page size, which
 * turns resident pages into MiB.
 */
static void test_series_seq_gap(void **state)
{
	static const uint64_t seqs[] = { 0, 1, 3, 4 };
	struct matrix *m = new_matrix("seqgap", 1);
	struct proto_stream_sample ss = { .active = 1 };
	struct proto_sample smp;
	struct series_point *p = NULL;
	struct run_ref *runs = NULL;
	char err[ERR_MAX];
	int64_t id;
	size_t n, i;

	(void)state;
	struct proto_hello h = { .proto = 1, .page_size = 65536, .release = "6.12.99-test",
				 .arch = "aarch64" };

	assert_true(fixture_queue(store, m, &id, &runs) > 0);
	boot(runs[0].id, "");
	if (store_run_hello(store, runs[0].id, &h, 1000, err) < 0)   /* a 64 KiB-page guest */
		fail_msg("hello: %s", err);
	for (i = 0; i < 4; i++) {
		memset(&smp, 0, sizeof(smp));
		smp.seq = ss.seq = seqs[i];
		smp.t_ms = 1000 * (seqs[i] + 1);
		smp.resident.n = 1;
		smp.resident.v[0] = 100 + (uint64_t)i;
		ss.read_ops = 10 * (seqs[i] + 1);
		if (store_sample(store, runs[0].id, &smp, err) < 0 ||
		    store_stream_sample(store, runs[0].id, &ss, err) < 0)
			fail_msg("sample: %s", err);
	}
	if (store_run_series(store, runs[0].id, &p, &n, err) < 0)
		fail_msg("series: %s", err);
	assert_int_equal(n, 4);
	assert_int_equal(events_without_files(runs[0].id), 2);
	for (i = 0; i < 4; i++) {
		assert_int_equal(p[i].seq, seqs[i]);
		assert_float_equal(p[i].ops[0], 10.0 * (double)(seqs[i] + 1), 0);
		assert_float_equal(p[i].resident[0], 100.0 + (double)i, 0);
		assert_int_equal(p[i].page_size, 65536);
	}
	free(p);
	free(runs);
	free(m);
}

/* The plot leaves a gap there: each arm's line and band in two pieces, none at 0. */
static void test_missing_interval_plot(void **state)
{
	const struct metric *m;
	char err[ERR_MAX], *svg, *median;

	(void)state;
	assert_int_equal(plot_find_metric("ops/s", &m, err), 0);
	svg = render(gap_mid, metric_svg, m);
	median = between(svg, "data-arm=\"mglru\"", "/>");
	assert_int_equal(count(median, "M"), 2);
	assert_int_equal(count(median, "L"), 8);               /* 3 intervals, a gap, 7 */
	free(median);
	median = between(svg, "class=\"band\"", "/>");
	assert_int_equal(count(median, "Z"), 2);
	free(median);
	free(svg);
}

/* Tables and summaries: the stream's rate over the intervals it told, not 4/5 of it. */
static void test_missing_interval_rates(void **state)
{
	struct run_summary *v = NULL;
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0, n, i;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	if (store_summaries(store, gap_mid, 0, &v, &n, err) < 0)
		fail_msg("summaries: %s", err);
	for (i = 0; i < n; i++)
		if (v[i].arm == 0)
			assert_float_equal(v[i].ops_per_s, 1000, 1e-9);
	free(v);
	assert_non_null(f);
	if (report_table(f, store, gap_mid, err) < 0)
		fail_msg("report_table: %s", err);
	assert_int_equal(fclose(f), 0);
	/* t=5: intervals 1-5 s, the fourth missing: stream r and all streams at 1000/s */
	assert_non_null(strstr(buf, "\n     5       1000       1000\n"));
	assert_null(strstr(buf, "\n     5        800"));
	free(buf);
}

static void test_file_svg(void **state)
{
	unsigned file;
	char *svg;

	(void)state;
	for (file = 0; file < 3; file++) {
		svg = render(mid, file_svg, &file);
		assert_true(balanced(svg));
		assert_int_equal(count(svg, "class=\"median\""), 2);
		if (file == 2) {   /* larger than the memcg: the limit is its ceiling */
			assert_non_null(strstr(svg, ">memcg limit 64 MiB</text>"));
			assert_non_null(strstr(svg, ">file size 128 MiB</text>"));
			free(svg);
			continue;
		}
		/* files smaller than the memcg: their size is the line, the limit only named */
		assert_null(strstr(svg, "memcg limit"));
		assert_non_null(strstr(svg, file ? "file size 4 MiB" : "file size 8 MiB"));
		assert_non_null(strstr(svg, file ? "page cache of &#39;cold&#39; (4 MiB; memcg 64 MiB)"
					    : "page cache of &#39;vec&#39; (8 MiB; memcg 64 MiB)"));
		free(svg);
	}
}

static void test_empty_cell(void **state)
{
	const struct metric *m;
	char err[ERR_MAX], *svg;

	(void)state;
	assert_int_equal(plot_find_metric("refault/s", &m, err), 0);
	svg = render(empty_mid, metric_svg, m);
	assert_true(balanced(svg));
	assert_int_equal(count(svg, "class=\"median\""), 0);
	assert_non_null(strstr(svg, "0 runs</text>"));
	free(svg);
}

/* ---- memory pressure and swap traffic ---- */

/* Where value v lies on a chart whose y axis runs from 0 to y1: 256 px up from y=296. */
static double svg_y(double v, double y1)
{
	return 40 + 256 - v / y1 * 256;
}

/* The points of arm's median line of series, into x and y (at most max); how many. */
static size_t median_points(const char *svg, const char *arm, const char *series, double *x,
			    double *y, size_t max)
{
	const char *p, *end;
	char key[128], *e;
	size_t n = 0;

	sfmt(key, sizeof(key), "data-arm=\"%s\" data-series=\"%s\"", arm, series);
	p = strstr(svg, key);
	assert_non_null(p);
	p = strstr(p, " d=\"");
	assert_non_null(p);
	for (p += 4, end = strchr(p, '"'); p < end && n < max; p = e) {
		while (*p == ' ' || *p == 'M' || *p == 'L')
			p++;
		if (p >= end)
			break;
		x[n] = strtod(p, &e);
		y[n++] = strtod(e, &e);
	}
	return n;
}

/* plot_counter_absent of chart k for matrix's cell, copied (NULL: drawn). */
static char *absent(int64_t matrix, enum plot_counter_chart k)
{
	struct plot_cell *pc = NULL;
	const char *why;
	char err[ERR_MAX], *ret;

	if (plot_cell_load(store, matrix, 0, &pc, err) < 0)
		fail_msg("plot: %s", err);
	why = plot_counter_absent(pc, k);
	ret = why ? strdup(why) : NULL;
	plot_cell_free(pc);
	return ret;
}

/*
 * Swap traffic: each point is the interval's pswpout (pswpin, zswpout) over
 * its own seconds; the axis runs to mglru's 1000 pages/s. zswap's stores
 * are drawn because classic has some, its loads are not: none has any.
 */
static void test_swap_svg(void **state)
{
	enum plot_counter_chart k = PLOT_SWAP;
	char *svg = render(swap_mid, counter_svg, &k);
	double x[16], y[16], y1 = 1000;
	size_t i;

	(void)state;
	assert_null(absent(swap_mid, PLOT_SWAP));
	assert_true(balanced(svg));
	assert_non_null(strstr(svg, ": swap traffic</title>"));
	assert_int_equal(count(svg, "class=\"median\""), 6);   /* 2 arms: pswpin, pswpout, zswpout */
	assert_null(strstr(svg, "data-series=\"zswpin\""));
	assert_non_null(strstr(svg, ">swap-outs (pswpout)</text>"));
	assert_non_null(strstr(svg, ">zswap stores (zswpout)</text>"));
	assert_null(strstr(svg, "zswap loads"));
	assert_int_equal(median_points(svg, "mglru", "pswpout", x, y, 16), 11);
	assert_float_equal(y[4], svg_y(400 / 1.0, y1), 0.051);   /* interval 4: 1 s */
	assert_float_equal(y[5], svg_y(500 / 0.5, y1), 0.051);   /* interval 5: 0.5 s */
	assert_float_equal(y[6], svg_y(600 / 1.0, y1), 0.051);
	assert_float_equal(x[5], 72 + 5.5 / 12 * 632, 0.051);    /* at its end, t=5.5 on 0..12 s */
	assert_int_equal(median_points(svg, "mglru", "pswpin", x, y, 16), 11);
	assert_float_equal(y[5], svg_y(100 / 0.5, y1), 0.051);
	assert_int_equal(median_points(svg, "classic", "pswpout", x, y, 16), 11);
	assert_float_equal(y[5], svg_y(250 / 0.5, y1), 0.051);
	assert_int_equal(median_points(svg, "classic", "pswpin", x, y, 16), 11);
	for (i = 0; i < 11; i++)
		assert_float_equal(y[i], svg_y(0, y1), 0.051);
	assert_int_equal(median_points(svg, "classic", "zswpout", x, y, 16), 11);
	assert_float_equal(y[3], svg_y(10 / 1.0, y1), 0.051);
	assert_float_equal(y[4], svg_y(0, y1), 0.051);
	free(svg);
}

/* Memory pressure: stall us over the interval's length, in %; the axis to 50 %. */
static void test_pressure_svg(void **state)
{
	enum plot_counter_chart k = PLOT_PRESSURE;
	char *svg = render(swap_mid, counter_svg, &k);
	double x[16], y[16], y1 = 50;

	(void)state;
	assert_null(absent(swap_mid, PLOT_PRESSURE));
	assert_true(balanced(svg));
	assert_non_null(strstr(svg, ": memory pressure of the memcg (memory.pressure)</title>"));
	assert_int_equal(count(svg, "class=\"median\""), 4);
	assert_non_null(strstr(svg, ">some: a task stalled</text>"));
	assert_non_null(strstr(svg, ">full: all stalled</text>"));
	assert_int_equal(median_points(svg, "mglru", "some", x, y, 16), 11);
	assert_float_equal(y[4], svg_y(100 * 0.250 / 1.0, y1), 0.051);
	assert_float_equal(y[5], svg_y(100 * 0.250 / 0.5, y1), 0.051);
	assert_int_equal(median_points(svg, "classic", "full", x, y, 16), 11);
	assert_float_equal(y[4], svg_y(100 * 0.100 / 1.0, y1), 0.051);
	assert_float_equal(y[5], svg_y(100 * 0.100 / 0.5, y1), 0.051);
	free(svg);
}

/*
 * Left out, and why: a cell that swapped nothing (its pressure, stored as 0,
 * is drawn), rows without the columns (stored before schemas 19 and 21), a
 * cell without done runs.
 */
static void test_counters_absent(void **state)
{
	char *why;

	(void)state;
	assert_null(absent(mid, PLOT_PRESSURE));
	why = absent(mid, PLOT_SWAP);
	assert_non_null(why);
	assert_non_null(strstr(why, "no run of this cell swapped a page in or out"));
	free(why);
	why = absent(old_mid, PLOT_SWAP);
	assert_non_null(why);
	assert_non_null(strstr(why, "runs before schema 19"));
	free(why);
	why = absent(old_mid, PLOT_PRESSURE);
	assert_non_null(why);
	assert_string_equal(why, "no run of this cell stored the memcg's memory.pressure"
			    " (runs before schema 21)");
	free(why);
	why = absent(empty_mid, PLOT_SWAP);
	assert_string_equal(why, "no run of this cell is done");
	free(why);
}

static char *report(int64_t matrix)
{
	struct html_opts o = { .console_bytes = 4096 };
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(plot_find_metric("ops/s", &o.metrics[o.n_metrics++], err), 0);
	assert_int_equal(plot_find_metric("refault/s", &o.metrics[o.n_metrics++], err), 0);
	if (html_report(f, store, matrix, &o, err) < 0)
		fail_msg("report: %s", err);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_html(void **state)
{
	char *html = report(mid), *pre;
	const char *dump = getenv("TEST_PLOT_HTML");   /* to look at it: a path */

	(void)state;
	if (dump)
		write_text(dump, html);
	assert_true(balanced(html));
	assert_int_equal(strncmp(html, "<!DOCTYPE html>", 15), 0);
	/* ops/s, refault/s, memory pressure (stored, as 0) and the three files' page cache */
	assert_int_equal(count(html, "<svg "), 6);
	assert_int_equal(count(html, "</svg>"), 6);
	assert_non_null(strstr(html, "memory pressure of the memcg"));
	/* no swap chart: one line says so, and why */
	assert_int_equal(count(html, "<p class=\"note\">No swap chart: no run of this cell swapped a"
			       " page in or out ("), 1);
	assert_null(strstr(html, "No memory pressure chart"));
	/* self-contained: no scripts, nothing fetched */
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "src="));
	assert_null(strstr(html, "href=\"http"));
	assert_null(strstr(html, "@import"));
	/* the ABBA blocks, harness table's grids, the verdicts */
	assert_non_null(strstr(html, "<h2 id=\"tables\">"));
	assert_int_equal(count(html, "<pre>"), 4);   /* and the oldest generations */
	/* with the ABBA blocks, what the guests read back */
	assert_non_null(strstr(html, "\n  classic      swap none; swappiness 0\n"));
	assert_non_null(strstr(html, "<h3>mglru &rarr; classic</h3>"));
	assert_non_null(strstr(html, "UNKNOWN"));
	/* kernels, options, where it ran */
	assert_non_null(strstr(html, "6.12.99-test"));
	assert_non_null(strstr(html, "<td>testhost</td>"));
	assert_non_null(strstr(html, "<td>tcg</td>"));
	assert_non_null(strstr(html, "7 done, 1 crashed"));
	/* the crashed run: reason, crash excerpt, the console log's end, escaped and bounded */
	assert_non_null(strstr(html, "kernel panic &amp; &lt;oops&gt;"));
	assert_non_null(strstr(html, "Kernel panic - not syncing: &lt;x&gt;"));
	pre = between(html, "<pre class=\"console\">", "</pre>");
	assert_non_null(strstr(pre, "&lt;script&gt;alert(1)&lt;/script&gt; ??\nEND-OF-LOG\n"));
	assert_null(strstr(pre, "START-OF-LOG"));
	assert_null(strstr(pre, "\r"));
	assert_true(strlen(pre) < 4096 + 512);
	assert_non_null(strstr(pre, "bytes before]"));
	free(pre);
	free(html);
}

static void test_html_no_done_runs(void **state)
{
	char *html = report(empty_mid);

	(void)state;
	assert_true(balanced(html));
	assert_non_null(strstr(html, "None failed"));
	assert_int_equal(count(html, "<svg "), 5);
	assert_non_null(strstr(html, "<p class=\"note\">No memory pressure chart: no run of this cell"
				     " is done.</p>\n"));
	assert_non_null(strstr(html, "<p class=\"note\">No swap chart: no run of this cell is"
				     " done.</p>\n"));
	free(html);
}

/* Both charts beside ops/s where the runs swapped; both left out, said why, where none stored. */
static void test_html_counters(void **state)
{
	char *html = report(swap_mid), *old = report(old_mid), *after;

	(void)state;
	assert_true(balanced(html) && balanced(old));
	after = strstr(html, ": refault/s</title>");   /* after the metrics' charts */
	assert_non_null(after);
	assert_non_null(strstr(after, ": memory pressure of the memcg (memory.pressure)</title>"));
	assert_non_null(strstr(after, ": swap traffic</title>"));
	assert_null(strstr(html, "<p class=\"note\">No "));
	assert_int_equal(count(html, "<svg "), 7);
	assert_int_equal(count(old, "<svg "), 5);
	assert_non_null(strstr(old, "<p class=\"note\">No memory pressure chart: no run of this cell"
				    " stored the memcg&#39;s memory.pressure (runs before schema 21).</p>"));
	assert_non_null(strstr(old, "<p class=\"note\">No swap chart: no run of this cell swapped"));
	free(html);
	free(old);
}

/* The first done run of lru_mid's arm. */
static int64_t lru_run(unsigned arm)
{
	int64_t run[SPEC_MAX_ARMS];
	char err[ERR_MAX];

	if (store_lru_cell_runs(store, lru_mid, 0, run, err) < 0)
		fail_msg("cell runs: %s", err);
	assert_true(run[arm] > 0);
	return run[arm];
}

static int lru_svg(FILE *f, const struct plot_cell *pc, const void *arg, char *err)
{
	unsigned arm = *(const unsigned *)arg;
	int rc = plot_lru_svg(f, store, pc, arm, lru_run(arm), err);

	assert_int_equal(rc, 1);
	return 0;
}

/* The y of a layer's path at its first point: "M<x> <y>". */
static double layer_first_y(const char *svg, const char *layer)
{
	char key[64];
	const char *p;
	double x, y;

	sfmt(key, sizeof(key), "data-layer=\"%s\"", layer);
	p = strstr(svg, key);
	assert_non_null(p);
	p = strstr(p, " d=\"M");
	assert_non_null(p);
	assert_int_equal(sscanf(p + 5, "%lf %lf", &x, &y), 2);
	return y;
}

/* MGLRU's generations stacked oldest at the bottom, one tick where one was made. */
static void test_lru_svg_gens(void **state)
{
	unsigned arm = 0;
	char *svg = render(lru_mid, lru_svg, &arm);
	double y_old, y_young, y_top = 40, y_zero = 340 - 44;

	(void)state;
	assert_true(balanced(svg));
	assert_int_equal(count(svg, "class=\"layer\""), 4);
	assert_int_equal(count(svg, "<g class=\"aging\">"), 1);
	assert_non_null(strstr(svg, "<title>max_seq 6 at t=6.0 s</title>"));
	assert_non_null(strstr(svg, "new generation (1)"));
	assert_non_null(strstr(svg, "file pages by generation of run"));
	/* 1000 pages = 3.90625 MiB on an axis to 4: the oldest's 100 pages a tenth of it */
	y_old = layer_first_y(svg, "max_seq-3");
	y_young = layer_first_y(svg, "max_seq");
	assert_float_equal((y_zero - y_old) / (y_zero - y_top), 0.390625 / 4, 0.01);
	assert_float_equal((y_zero - y_young) / (y_zero - y_top), 3.90625 / 4, 0.01);
	free(svg);
}

/* The classic LRU's lists where a run has no generations. */
static void test_lru_svg_lists(void **state)
{
	unsigned arm = 1;
	char *svg = render(lru_mid, lru_svg, &arm);

	(void)state;
	assert_true(balanced(svg));
	assert_int_equal(count(svg, "class=\"layer\""), 2);
	assert_non_null(strstr(svg, "data-layer=\"inactive_file\""));
	assert_non_null(strstr(svg, "data-layer=\"active_file\""));
	assert_null(strstr(svg, "class=\"aging\""));
	free(svg);
}

/* Seed 000's words from the counters, the tiers summed; the classic arm has none. */
static void test_lru_table(void **state)
{
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	if (lru_table(f, store, lru_mid, NULL, err) < 0)
		fail_msg("lru_table: %s", err);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "generation seq 2: 500 pages evicted and 250 refaulted, 50.00 %"));
	assert_non_null(strstr(buf, "generation seq 3: 60 pages evicted and 0 refaulted, 0.00 %"));
	assert_non_null(strstr(buf, "         2     2.0     5.0        500        250   50.0%          7\n"));
	assert_non_null(strstr(buf, "\n    tier 0: 560 evicted, 250 refaulted, 0 protected\n"
				    "    tier 1: 0 evicted, 0 refaulted, 14 protected\n"));
	assert_non_null(strstr(buf, " arm classic, run "));
	assert_non_null(strstr(buf, "no generation with tiers"));
	free(buf);
}

/* table --metric's MGLRU figures over the measured intervals; NAN for the classic LRU. */
static void test_lru_metrics(void **state)
{
	struct run_summary *v = NULL;
	char err[ERR_MAX];
	size_t n, i;

	(void)state;
	if (store_summaries(store, lru_mid, SUMMARY_TABLE, &v, &n, err) < 0)
		fail_msg("summaries: %s", err);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		if (v[i].arm == 0) {
			assert_float_equal(metric_find("evict_rf%")->get(&v[i]), 100.0 * 250 / 560, 1e-9);
			assert_float_equal(metric_find("gens/min")->get(&v[i]), 60.0 / 9, 1e-9);
			assert_float_equal(metric_find("oldest_age_s")->get(&v[i]), 6.5, 1e-9);
		} else {
			assert_true(isnan(metric_find("evict_rf%")->get(&v[i])));
			assert_true(isnan(metric_find("gens/min")->get(&v[i])));
			assert_true(isnan(metric_find("oldest_age_s")->get(&v[i])));
		}
	}
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_line),
		cmocka_unit_test(test_metric_at),
		cmocka_unit_test(test_per_s),
		cmocka_unit_test(test_metric_svg),
		cmocka_unit_test(test_summary_figures),
		cmocka_unit_test(test_missing_interval_series),
		cmocka_unit_test(test_series_seq_gap),
		cmocka_unit_test(test_missing_interval_plot),
		cmocka_unit_test(test_missing_interval_rates),
		cmocka_unit_test(test_file_svg),
		cmocka_unit_test(test_empty_cell),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_html_no_done_runs),
		cmocka_unit_test(test_swap_svg),
		cmocka_unit_test(test_pressure_svg),
		cmocka_unit_test(test_counters_absent),
		cmocka_unit_test(test_html_counters),
		cmocka_unit_test(test_lru_svg_gens),
		cmocka_unit_test(test_lru_svg_lists),
		cmocka_unit_test(test_lru_table),
		cmocka_unit_test(test_lru_metrics),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
