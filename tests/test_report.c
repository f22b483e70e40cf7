/* test_report.c -- `harness table` on a real SQLite database filled through
 * the store API: every format against its golden file (tests/golden/), text
 * within 72 columns, CSV and JSON parsed back and their numbers checked
 * against means computed here, harmonic and arithmetic means by hand, marks,
 * baselines, the ABBA position pairs and the command's errors. No guest boots.
 * GOLDEN_UPDATE=1 rewrites the golden files (then read the diff). Run from
 * the repository root. */
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
#include <jansson.h>

#include "cli/commands.h"
#include "analysis/compare.h"
#include "conf/conf.h"
#include "base/err.h"
#include "analysis/metric.h"
#include "output/report.h"
#include "spec/spec.h"
#include "store/store.h"
#include "output/table.h"
#include "testlib.h"

#define GOLDEN "tests/golden/"

static char dir[PATH_MAX];
static struct conf conf;
static struct store *store;
static int64_t seeds_id, abba_id, faults_id;

/* ---- the matrices ---- */

/* seeds: 4 arms x 2 cells, one Williams block of 4 reps: 004's four arms. */
static const struct fixture_arm seed_arms[] = {
	{ "orig", "6.12", "y", NULL, NULL }, { "fixed", "6.12-fix", "y", NULL, NULL },
	{ "fg", "6.12-fg", "y", NULL, NULL }, { "rd", "6.12-rd", "y", NULL, NULL },
};
static const char *const seed_cells[] = { "16G/1.1", "16G/0.9" };
/* ops/s factor of arm a in cell c, and its refaults-per-read factor */
static const double ops_f[2][4] = { { 1, 0.996, 1.132, 1.115 }, { 1, 1.013, 1.178, 1.162 } };
static const double rf_f[2][4] = { { 1, 0.999, 0.862, 0.875 }, { 1, 0.999, 0.879, 0.893 } };
/* rep r of a block: ops x1, x2, x4, x4 -> harmonic mean x2, arithmetic x2.75 */
static const uint64_t rep_x[4] = { 1, 2, 4, 4 };

/* What run (cell, arm, rep) of seeds measured: every number the checks derive from. */
static struct fixture_rates seed_rates(unsigned cell, unsigned arm, unsigned rep)
{
	struct fixture_rates r = { .majflt = 5, .resident = 1024 };

	r.ops = (uint64_t)llround(1e6 * (double)rep_x[rep] * ops_f[cell][arm]);
	/* refaults per read: 0.01, 0.02, 0.04, 0.04 times the arm's factor */
	r.refault = (uint64_t)llround((double)r.ops * 0.01 * (double)rep_x[rep] * rf_f[cell][arm]);
	r.p99_ns = 40000 + 10000 * (uint64_t)rep;       /* 40, 50, 60, 70 us */
	r.pass_resident = 256u << rep;                   /* 12.5, 25, 50, 100 % */
	return r;
}

static void add_seeds(void)
{
	struct matrix *m = fixture_matrix("seeds", dir, seed_arms, 4, seed_cells, 2, 4);
	struct run_ref *runs = NULL;
	struct fixture_rates r;
	size_t n, i;

	n = fixture_queue(store, m, &seeds_id, &runs);
	for (i = 0; i < n; i++) {
		r = seed_rates(runs[i].cell, runs[i].arm, runs[i].position / 4);
		fixture_run(store, runs[i].id, &r);
	}
	free(runs);
	free(m);
}

/*
 * abba: 2 arms, 8 ABBA blocks. Cell "hot": new reads 6.21 % less in the A B
 * pair of every block and 5.00 % less in the B A pair (seed 001's pairs);
 * cell "flat": new within 0.1 % of base, alternating by block.
 */
static const struct fixture_arm abba_arms[] = {
	{ "base", "6.12", "y", NULL, NULL }, { "new", "6.12-fg", "y", NULL, NULL },
};
static const char *const abba_cells[] = { "hot", "flat" };

static void add_abba(void)
{
	struct matrix *m = fixture_matrix("abba", dir, abba_arms, 2, abba_cells, 2, 60);
	struct fixture_rates r = { .refault = 1000, .majflt = 5, .resident = 1024 };
	struct run_ref *runs = NULL;
	size_t n, i;

	n = fixture_queue(store, m, &abba_id, &runs);
	for (i = 0; i < n; i++) {
		r.ops = 100000;
		if (runs[i].arm == 1 && runs[i].cell == 0)
			r.ops = runs[i].position / 2 == 0 ? 93790 : 95000;
		else if (runs[i].arm == 1)
			r.ops = runs[i].block % 2 ? 100100 : 99900;
		fixture_run(store, runs[i].id, &r);
	}
	free(runs);
	free(m);
}

/*
 * faults: 2 arms x 2 cells, 4 ABBA blocks, no major fault anywhere. Cell
 * "stall" tracks two files, one named longer than a table column, and lays
 * out a 000-style series table; cell "kv" tracks none (as a YCSB cell).
 */
#define LONG_FILE "cold-file-longer-than-ten.bin"

static void add_faults(void)
{
	static const char *const cells[] = { "stall", "kv" };
	static char layout[] = "{\"kind\": \"series\", \"step_s\": 5, \"columns\": [\"iops:r\","
			       " \"majflt/s\", \"MB:vs-vec.bin\", \"MB:" LONG_FILE "\"]}";
	struct matrix *m = fixture_matrix("faults", dir, abba_arms, 2, cells, 2, 8);
	struct fixture_rates r = { .ops = 1000, .refault = 100, .resident = 1024 };
	struct run_ref *runs = NULL;
	struct proto_job *j = &m->cells[0].job;
	size_t n, i;

	sfmt(j->files[0].name, sizeof(j->files[0].name), "vs-vec.bin");
	sfmt(j->files[1].name, sizeof(j->files[1].name), LONG_FILE);
	j->files[1].mib = 8;
	j->nfiles = 2;
	sfmt(j->streams[0].file, sizeof(j->streams[0].file), "vs-vec.bin");
	m->cells[0].table = layout;
	m->cells[1].job.nfiles = 0;
	m->cells[1].job.streams[0].file[0] = '\0';
	n = fixture_queue(store, m, &faults_id, &runs);
	for (i = 0; i < n; i++) {
		r.no_files = runs[i].cell == 1;
		r.ops = 1000 + 10 * runs[i].position;
		fixture_run(store, runs[i].id, &r);
	}
	free(runs);
	free(m);
}

/* ---- fixture ---- */

static int setup(void **state)
{
	(void)state;
	fixture_dir(dir, "test_report", &conf);
	store = fixture_store(&conf);
	add_seeds();
	add_abba();
	add_faults();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(store);
	return fixture_rmdir(dir);
}

/* ---- helpers ---- */

/* table_print into a string (free it). */
static char *render(int64_t mid, enum table_format fmt, const char *const *metric_names,
		    const char *baseline, int pairs)
{
	struct table_opts o = { .format = fmt, .baseline = baseline,
				.pairs = pairs };
	char *buf = NULL, err[ERR_MAX] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (; metric_names && *metric_names; metric_names++) {
		o.metric[o.n_metrics] = metric_find(*metric_names);
		assert_non_null(o.metric[o.n_metrics++]);
	}
	if (table_print(f, store, mid, &o, err) < 0)
		fail_msg("table_print: %s", err);
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return buf;
}

/* got equals the golden file name (GOLDEN_UPDATE=1: becomes it). */
static void golden(const char *name, const char *got)
{
	char path[PATH_MAX], *want;

	sfmt(path, sizeof(path), GOLDEN "%s", name);
	if (getenv("GOLDEN_UPDATE"))
		write_text(path, got);
	want = slurp(path);
	if (!want)
		fail_msg("%s missing (GOLDEN_UPDATE=1 writes it)", path);
	if (strcmp(want, got))
		fail_msg("%s differs; got:\n%s", path, got);
	free(want);
}

static void contains(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("'%s' not in:\n%s", needle, text);
}

static void check_width(const char *text, size_t max)
{
	const char *p = text, *nl;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		if ((size_t)(nl - p) > max)
			fail_msg("line of %zu columns: %.*s", (size_t)(nl - p), (int)(nl - p), p);
	}
}

static double hmean(const double *x, size_t n)
{
	double inv = 0;
	size_t i;

	for (i = 0; i < n; i++)
		inv += 1 / x[i];
	return (double)n / inv;
}

static double amean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

/* seeds' expected mean of cell and arm, from the rates the runs were given. */
static double seed_expect(const char *metric, unsigned cell, unsigned arm)
{
	struct fixture_rates r;
	double x[4];
	unsigned rep;

	for (rep = 0; rep < 4; rep++) {
		r = seed_rates(cell, arm, rep);
		x[rep] = !strcmp(metric, "ops/s") ? (double)r.ops : (double)r.refault / (double)r.ops;
	}
	return !strcmp(metric, "ops/s") ? hmean(x, 4) : amean(x, 4);
}

static int near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want) + 1e-12;
}

static json_t *parse_json(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (!j)
		fail_msg("not JSON (%s at line %d): %s", e.text, e.line, text);
	return j;
}

/* The entry of arm in row cell of a grid table object. */
static json_t *entry(json_t *t, const char *cell, const char *arm)
{
	json_t *row, *a;
	size_t i, k;

	json_array_foreach(json_object_get(t, "rows"), i, row) {
		if (strcmp(json_string_value(json_object_get(row, "cell")), cell))
			continue;
		json_array_foreach(json_object_get(row, "arms"), k, a)
			if (!strcmp(json_string_value(json_object_get(a, "arm")), arm))
				return a;
	}
	fail_msg("no entry %s / %s", cell, arm);
	return NULL;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fail_msg("'%s' is not a number", key);
	return json_number_value(v);
}

/* ---- formats against their golden files ---- */

static void test_text(void **state)
{
	char *out = render(seeds_id, TABLE_TEXT, NULL, NULL, 0);
	const char *p;
	unsigned heads = 0;

	(void)state;
	golden("seeds.txt", out);
	check_width(out, TABLE_WIDTH);
	/* four arms of ops/s do not fit 72 columns: two stacked tables, each
	 * repeating the row labels */
	for (p = out; (p = strstr(p, "\ncell ")) && p < strstr(out, "rf/read"); p++)
		heads++;
	assert_int_equal(heads, 2);
	for (p = out, heads = 0; (p = strstr(p, "\n16G/1.1 ")) && p < strstr(out, "rf/read"); p++)
		heads++;
	assert_int_equal(heads, 2);
	/* rf/read's narrower numbers fit in one */
	for (p = strstr(out, "rf/read"), heads = 0; (p = strstr(p, "\ncell ")); p++)
		heads++;
	assert_int_equal(heads, 1);
	contains(out, "seeds: ops/s (higher is better), harmonic mean of runs");
	contains(out, "seeds: rf/read (lower is better), arithmetic mean of runs");
	contains(out, "2,000,000");    /* orig, 16G/1.1: grouped digits */
	free(out);
}

static void test_markdown(void **state)
{
	char *out = render(seeds_id, TABLE_MARKDOWN, NULL, NULL, 0);

	(void)state;
	golden("seeds.md", out);
	/* one pipe table per metric: header, alignment row, 2 rows; 1 + 2 + 3 * 3 columns */
	contains(out, "| cell | orig | n | fixed | Delta | n | fg | Delta | n | rd |");
	contains(out, "| --- | ---: | ---: |");
	contains(out, "| 16G/1.1 | 2,000,000 | 4 | 1,992,000 | -0.4% | 4 |");
	free(out);
}

/* RFC 4180 records: fields split at commas outside quotes, "" inside quotes a quote. */
static size_t csv_fields(const char *line, char fields[][64], size_t max)
{
	size_t n = 0, k = 0;
	int quoted = 0;

	for (; *line && *line != '\r'; line++) {
		if (quoted && *line == '"' && line[1] == '"') {
			fields[n][k++] = *line++;
		} else if (*line == '"') {
			quoted = !quoted;
		} else if (*line == ',' && !quoted) {
			fields[n++][k] = 0;
			k = 0;
			assert_true(n < max);
		} else {
			fields[n][k++] = *line;
		}
		assert_true(k < 63);
	}
	assert_false(quoted);
	fields[n++][k] = 0;
	return n;
}

static void test_csv(void **state)
{
	char *out = render(seeds_id, TABLE_CSV, NULL, NULL, 0), *line, *save = NULL;
	char head[16][64], f[16][64], *end;
	size_t nh = 0, nf, rows = 0, i, cell;
	unsigned arm;

	(void)state;
	golden("seeds.csv", out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(strlen(line) && line[strlen(line) - 1] == '\r');   /* CRLF */
		if (!nh) {
			nh = csv_fields(line, head, 16);
			assert_string_equal(head[0], "matrix");
			assert_string_equal(head[5], "value");
			continue;
		}
		nf = csv_fields(line, f, 16);
		assert_int_equal(nf, nh);
		rows++;
		for (cell = 0; cell < 2 && strcmp(f[2], seed_cells[cell]); cell++)
			;
		for (arm = 0; arm < 4 && strcmp(f[3], seed_arms[arm].name); arm++)
			;
		assert_true(cell < 2 && arm < 4);
		if (!near(strtod(f[5], &end), seed_expect(f[1], (unsigned)cell, arm), 1e-9) || *end)
			fail_msg("csv %s %s %s: value %s", f[1], f[2], f[3], f[5]);
		for (i = 0; i < nf; i++)
			assert_null(strchr(f[i], '\n'));
	}
	assert_int_equal(rows, 2 * 2 * 4);    /* two metrics, two cells, four arms */
	free(out);
}

static void test_json(void **state)
{
	char *out = render(seeds_id, TABLE_JSON, NULL, NULL, 0);
	json_t *j = parse_json(out), *t, *e;
	unsigned cell, arm;
	size_t i;
	double base;

	(void)state;
	golden("seeds.json", out);
	assert_int_equal(json_array_size(j), 2);
	json_array_foreach(j, i, t) {
		const char *metric = json_string_value(json_object_get(t, "metric"));

		assert_string_equal(json_string_value(json_object_get(t, "baseline")), "orig");
		assert_string_equal(json_string_value(json_object_get(t, "mean")),
				    i == 0 ? "harmonic" : "arithmetic");
		for (cell = 0; cell < 2; cell++)
			for (arm = 0; arm < 4; arm++) {
				e = entry(t, seed_cells[cell], seed_arms[arm].name);
				base = seed_expect(metric, cell, 0);
				assert_true(near(num(e, "value"), seed_expect(metric, cell, arm), 1e-12));
				assert_int_equal(num(e, "n"), 4);
				if (arm == 0) {
					assert_true(json_is_null(json_object_get(e, "delta_pct")));
					assert_true(json_is_null(json_object_get(e, "verdict")));
					continue;
				}
				assert_true(near(num(e, "delta_pct"),
						 100 * (seed_expect(metric, cell, arm) / base - 1), 1e-9));
				/* one block of 4 arms: 2 units (a Williams row and its mirror
				 * each), too few to decide */
				assert_string_equal(json_string_value(json_object_get(e, "verdict")),
						    "UNKNOWN");
				assert_int_equal(num(e, "blocks"), 2);
			}
	}
	json_decref(j);
	free(out);
}

/* ---- averaging, marks, baseline, pairs ---- */

static void test_means_by_hand(void **state)
{
	static const char *const names[] = { "ops/s", "rf/read", "refault/s", "p99_us",
					     "resid%@pass", "resid%", "majflt/s", NULL };
	char *out = render(seeds_id, TABLE_JSON, names, NULL, 0);
	json_t *j = parse_json(out);

	(void)state;
	/* orig in 16G/1.1 read 1, 2, 4 and 4 million per second: the harmonic mean
	 * is 4 / (1 + 1/2 + 1/4 + 1/4) = 2 million, not the arithmetic 2.75 */
	assert_true(near(num(entry(json_array_get(j, 0), "16G/1.1", "orig"), "value"), 2e6, 1e-12));
	/* its refaults per read 0.01, 0.02, 0.04, 0.04: arithmetic 0.0275, not the harmonic 0.02 */
	assert_true(near(num(entry(json_array_get(j, 1), "16G/1.1", "orig"), "value"), 0.0275,
			 1e-12));
	/* refault/s 10000, 40000, 160000, 160000: arithmetic 92500 */
	assert_true(near(num(entry(json_array_get(j, 2), "16G/1.1", "orig"), "value"), 92500,
			 1e-12));
	/* p99 40, 50, 60, 70 us: 55; residency at the pass end 12.5, 25, 50, 100 %: 46.875 */
	assert_true(near(num(entry(json_array_get(j, 3), "16G/1.1", "fg"), "value"), 55, 1e-12));
	assert_true(near(num(entry(json_array_get(j, 4), "16G/0.9", "rd"), "value"), 46.875,
			 1e-12));
	assert_true(near(num(entry(json_array_get(j, 5), "16G/0.9", "rd"), "value"), 50, 1e-12));
	assert_true(near(num(entry(json_array_get(j, 6), "16G/0.9", "rd"), "value"), 5, 1e-12));
	/* fg is 13.2 % faster than orig in 16G/1.1: the ratio of the harmonic means */
	assert_true(near(num(entry(json_array_get(j, 0), "16G/1.1", "fg"), "delta_pct"), 13.2, 1e-9));
	json_decref(j);
	free(out);
}

static void test_marks(void **state)
{
	static const char *const ops[] = { "ops/s", NULL };
	char *out = render(abba_id, TABLE_TEXT, ops, NULL, 0);
	char *js = render(abba_id, TABLE_JSON, ops, NULL, 0);
	json_t *j = parse_json(js), *e;

	(void)state;
	golden("abba.txt", out);
	check_width(out, TABLE_WIDTH);
	/* hot: 30 blocks of a 5.6 % loss: DIFFERENT, marked *; flat: within 0.1 %: SAME, = (30
	 * blocks, the fewest a SAME needs) */
	e = entry(json_array_get(j, 0), "hot", "new");
	assert_string_equal(json_string_value(json_object_get(e, "verdict")), "DIFFERENT");
	assert_int_equal(num(e, "blocks"), 30);
	assert_true(num(e, "p") < 0.05 && num(e, "q") >= num(e, "p") && num(e, "q") < 0.05);
	contains(out, "%*");
	e = entry(json_array_get(j, 0), "flat", "new");
	assert_string_equal(json_string_value(json_object_get(e, "verdict")), "SAME");
	contains(out, "%=");
	assert_int_equal(num(e, "n"), 60);
	json_decref(j);
	free(js);
	free(out);
}

static void test_baseline(void **state)
{
	static const char *const ops[] = { "ops/s", NULL };
	char *out = render(seeds_id, TABLE_JSON, ops, "fg", 0);
	json_t *j = parse_json(out), *t = json_array_get(j, 0);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(t, "baseline")), "fg");
	assert_true(json_is_null(json_object_get(entry(t, "16G/1.1", "fg"), "delta_pct")));
	assert_true(near(num(entry(t, "16G/1.1", "orig"), "delta_pct"), 100 * (1 / 1.132 - 1),
			 1e-9));
	json_decref(j);
	free(out);
	/* text: the baseline's group comes first */
	out = render(seeds_id, TABLE_TEXT, ops, "fg", 0);
	contains(out, "\ncell            fg n       orig   Delta n");
	contains(out, "Delta: vs fg;");
	check_width(out, TABLE_WIDTH);
	free(out);
}

static void test_pairs(void **state)
{
	static const char *const ops[] = { "ops/s", NULL };
	char *out = render(abba_id, TABLE_TEXT, ops, NULL, 1);
	char *js = render(abba_id, TABLE_JSON, ops, NULL, 1);
	char *csv = render(abba_id, TABLE_CSV, ops, NULL, 1);
	char *md = render(abba_id, TABLE_MARKDOWN, ops, NULL, 1);
	json_t *j = parse_json(js), *t = json_array_get(j, 0), *b;
	size_t i;

	(void)state;
	golden("abba_pairs.txt", out);
	golden("abba_pairs.csv", csv);
	golden("abba_pairs.md", md);
	check_width(out, TABLE_WIDTH);
	/* seed 001: "the two ABBA position pairs were -6.21 % and -5.00 %" */
	contains(out, "\nmean   -6.21%  -5.00%\n");
	assert_int_equal(json_array_size(j), 2);              /* hot and flat, new vs base */
	assert_string_equal(json_string_value(json_object_get(t, "cell")), "hot");
	assert_int_equal(num(t, "pairs_per_block"), 2);
	assert_int_equal(json_array_size(json_object_get(t, "blocks")), 30);
	json_array_foreach(json_object_get(t, "blocks"), i, b) {
		assert_int_equal(num(b, "block"), i);
		assert_true(near(json_number_value(json_array_get(json_object_get(b, "delta_pct"), 0)),
				 -6.21, 1e-9));
		assert_true(near(json_number_value(json_array_get(json_object_get(b, "delta_pct"), 1)),
				 -5.00, 1e-9));
	}
	assert_true(near(json_number_value(json_array_get(json_object_get(t, "mean_pct"), 1)), -5.0,
			 1e-9));
	json_decref(j);
	free(js);
	free(csv);
	free(md);
	free(out);
}

/* The report `harness run` prints: the ABBA block per cell, ops/s now harmonic. */
static void test_default_report(void **state)
{
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	if (report_table(f, store, seeds_id, err) < 0)
		fail_msg("report_table: %s", err);
	fclose(f);
	contains(buf, "\nseeds / 16G/1.1  (");
	contains(buf, "\norig           0x0007      2000000       -");
	contains(buf, "runs: 32 done, 0 failed, 0 unsupported, 32 total");
	free(buf);
}

/*
 * What the guests read back, an arm a line under "measured with": the same
 * in every run of an arm, once; where one run of "new" read back THP always
 * and a zram swap, both values, so a report never hides runs measured under
 * different settings. mTHP shows only the sizes not never.
 */
static void test_settings(void **state)
{
	char *buf = NULL, err[ERR_MAX];
	size_t len = 0;
	FILE *f;

	(void)state;
	fixture_sql(&conf, "UPDATE runs SET thp_enabled_read = 'always', swap_read = 'zram lz4 96 MiB'"
		    " WHERE id = (SELECT MIN(r.id) FROM runs r JOIN arms a ON a.id = r.arm_id"
		    " WHERE a.name = 'new')");
	assert_non_null(f = open_memstream(&buf, &len));
	if (report_table(f, store, abba_id, err) < 0)
		fail_msg("report_table: %s", err);
	fclose(f);
	contains(buf, "\nread back in the guests of the done runs:\n"
		 "  base         THP never, defrag madvise; mTHP 2048K:inherit, the rest never;"
		 " swap none; swappiness 60\n"
		 "  new          THP always, defrag madvise | never, defrag madvise;"
		 " mTHP 2048K:inherit, the rest never; swap none | zram lz4 96 MiB; swappiness 60\n");
	free(buf);
}

/*
 * Issue 15's report faults: a file name longer than a column is never cut
 * (abbreviated by number, the full name under the header); a cell that
 * tracks no file shows no residency (-, not 0.0); a metric 0 in every run is
 * NOT MEASURED, not SAME, in harness table and harness compare alike.
 */
static void test_report_faults(void **state)
{
	static const char *const majflt[] = { "majflt/s", NULL };
	struct compare_opts co = { .base_matrix = "faults", .new_matrix = "faults",
				   .base_arm = "base", .new_arm = "new",
				   .json = 1 };
	char *buf = NULL, *js, *cmp = NULL, err[ERR_MAX];
	size_t len = 0, clen = 0, i;
	FILE *f = open_memstream(&buf, &len);
	json_t *j, *row;
	unsigned unmeasured = 0;

	(void)state;
	assert_non_null(f);
	if (report_table(f, store, faults_id, err) < 0)
		fail_msg("report_table: %s", err);
	fclose(f);
	contains(buf, "\n     t     iops:r   majflt/s MB:vs-vec.bin      MB:#2\n"
		      "       MB:#2 = MB:" LONG_FILE "\n");
	assert_null(strstr(buf, "MB:vs-vec.\n"));
	/* kv's ABBA block: resid% is "-" (the last column before n) */
	contains(buf, "\nfaults / kv  (");
	contains(strstr(buf, "\nfaults / kv  ("), "\nbase           0x0007         1015       -       "
		 "100       -        0  0.0985      -   8\n");
	free(buf);

	buf = render(faults_id, TABLE_TEXT, majflt, NULL, 0);
	contains(buf, "adjusted over the 0 verdicts of these tables");   /* none measured */
	free(buf);
	js = render(faults_id, TABLE_JSON, majflt, NULL, 0);
	j = parse_json(js);
	assert_string_equal(json_string_value(json_object_get(entry(json_array_get(j, 0), "stall",
						"new"), "verdict")), "NOT MEASURED");
	json_decref(j);
	free(js);

	f = open_memstream(&cmp, &clen);
	assert_non_null(f);
	assert_int_equal(compare_run(store, &co, f, NULL, err), 0);
	fclose(f);
	j = parse_json(cmp);
	json_array_foreach(json_object_get(j, "verdicts"), i, row)
		if (!strcmp(json_string_value(json_object_get(row, "metric")), "majflt/s")) {
			assert_string_equal(json_string_value(json_object_get(row, "verdict")),
					    "NOT MEASURED");
			assert_true(json_is_null(json_object_get(row, "q")));
			unmeasured++;
		}
	assert_int_equal(unmeasured, 2);
	/* and miss%: no read was ever a miss */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "summary"),
							    "not_measured")), 4);
	json_decref(j);
	free(cmp);
}

static void test_command(void **state)
{
	char *bad_format[] = { "table", "--format", "html", "seeds", NULL };
	char *bad_metric[] = { "table", "--metric", "bogus", "seeds", NULL };
	char *bad_base[] = { "table", "--baseline", "nope", "seeds", NULL };
	char *bad_floor[] = { "table", "--margin", "x", "seeds", NULL };
	char *no_matrix[] = { "table", "--pairs", NULL };
	char *unknown[] = { "table", "--format", "csv", "nosuch", NULL };
	char *ok[] = { "table", "--format", "csv", "--metric", "p99_us", "seeds", NULL };
	char *plain[] = { "table", "abba", NULL };
	FILE *saved = stdout;

	(void)state;
	stdout = fopen("/dev/null", "w");
	assert_non_null(stdout);
	assert_int_equal(cmd_table(&conf, 4, bad_format, 0), 1);
	assert_int_equal(cmd_table(&conf, 4, bad_metric, 0), 1);
	assert_int_equal(cmd_table(&conf, 4, bad_base, 0), 1);
	assert_int_equal(cmd_table(&conf, 4, bad_floor, 0), 1);
	assert_int_equal(cmd_table(&conf, 2, no_matrix, 0), 1);
	assert_int_equal(cmd_table(&conf, 4, unknown, 0), 1);
	assert_int_equal(cmd_table(&conf, 6, ok, 0), 0);
	assert_int_equal(cmd_table(&conf, 2, plain, 0), 0);
	assert_int_equal(cmd_table(&conf, 2, plain, 1), 0);
	fclose(stdout);
	stdout = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_means_by_hand),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_default_report),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_report_faults),
		cmocka_unit_test(test_command),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
