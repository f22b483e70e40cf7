/* bench_report.c -- what `harness table` and `harness compare` cost over a big
 * database: 10 000 runs x 300 intervals built through the store API, then timed.
 * BENCH_DB=PATH keeps the database there and reuses it the next time. */
#include "analysis/summary.h"
#include "spec/abba.h"
#include "analysis/compare.h"
#include "conf/conf.h"
#include "base/err.h"
#include "output/report.h"
#include "analysis/stats.h"
#include "store/store.h"
#include "summary_v3.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#define ARMS   2
#define CELLS  50

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process: what a busy shared host does not inflate. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "bench_report: %s: %s\n", what, err);
	exit(1);
}

static struct matrix *bench_matrix(const char *dir, unsigned reps)
{
	static char canonical[] = "{}";
	struct matrix *m = calloc(1, sizeof(*m));
	struct cell *c;
	unsigned i;

	if (!m)
		die("matrix", "out of memory");
	snprintf(m->name, sizeof(m->name), "big");
	snprintf(m->path, sizeof(m->path), "big.json");
	snprintf(m->base_dir, sizeof(m->base_dir), "%s", dir);
	snprintf(m->hash, sizeof(m->hash), "big");
	snprintf(m->archs[0], sizeof(m->archs[0]), "x86_64");
	m->n_archs = 1;
	m->canonical = canonical;
	m->reps = reps;
	m->memory_mib = 512;
	m->vcpus = 2;
	m->n_arms = ARMS;
	m->n_cells = CELLS;
	for (i = 0; i < ARMS; i++) {
		snprintf(m->arms[i].name, sizeof(m->arms[i].name), i ? "new" : "base");
		snprintf(m->arms[i].files[0].kernel, sizeof(m->arms[i].files[0].kernel), "/k/%u", i);
		snprintf(m->arms[i].files[0].release, sizeof(m->arms[i].files[0].release), "6.12.%u", i);
	}
	for (i = 0; i < CELLS; i++) {
		c = &m->cells[i];
		snprintf(c->name, sizeof(c->name), "cell%02u", i);
		c->job.duration_s = 300;
		c->job.interval_ms = 1000;
		c->job.nfiles = 1;
		snprintf(c->job.files[0].name, sizeof(c->job.files[0].name), "data");
		c->job.files[0].mib = 64;
		c->job.nstreams = 1;
		snprintf(c->job.streams[0].name, sizeof(c->job.streams[0].name), "r");
	}
	return m;
}

/* Counts around v, +-10 %. */
static uint64_t around(uint64_t *seed, double v)
{
	return (uint64_t)(v * (0.9 + 0.2 * (double)(stats_rand(seed) >> 11) / 9007199254740992.0));
}

struct intervals {
	const struct run_ref *r;
	unsigned n;
};

/* Every interval of a run, as the runner sends them. */
static int run_intervals(struct store *s, void *arg, char *err)
{
	const struct intervals *iv = arg;
	struct proto_stream_sample ss = { .active = 1 };
	struct proto_sample smp = { .resident = { .n = 1 } };
	uint64_t seed = (uint64_t)iv->r->id, i;

	for (i = 0; i < iv->n; i++) {
		smp.seq = ss.seq = i;
		smp.t_ms = 1000 * (i + 1);
		smp.ramp = i < 10;
		smp.pgmajfault = around(&seed, 50);
		smp.refault_file = around(&seed, iv->r->arm ? 900 : 1000);
		smp.activate_file = around(&seed, 300);
		smp.resident.v[0] = around(&seed, 12000);
		ss.read_ops = around(&seed, iv->r->arm ? 20600 : 20000);
		ss.misses = ss.read_ops / 20;
		if (store_sample(s, iv->r->id, &smp, err) < 0 ||
		    store_stream_sample(s, iv->r->id, &ss, err) < 0)
			return -1;
	}
	return 0;
}

/* One run as the runner stores it: booted, hello, setup, every interval, finished. */
static double one_run(struct store *s, const struct run_ref *r, unsigned intervals, char *err)
{
	struct proto_hello h = { .proto = 1, .page_size = 4096, .mem_total_kib = 1 << 19 };
	struct proto_setup st = { .file_pages = { .n = 1, .v = { 16384 } } };
	struct proto_summary sum = { .samples = intervals, .duration_ms = 1000ull * intervals };
	struct intervals iv = { r, intervals };
	double t0;

	snprintf(h.release, sizeof(h.release), "6.12.%u", r->arm);
	snprintf(st.lru_gen, sizeof(st.lru_gen), "0x0007");
	if (store_run_booting(s, r->id, "tcg", "bench", "x86_64", "", err) < 0 ||
	    store_run_hello(s, r->id, &h, 4000, err) < 0 || store_run_setup(s, r->id, &st, err) < 0)
		die("run", err);
	/* the runner commits each interval; batched per run here, or the build takes hours */
	if (store_transaction(s, run_intervals, &iv, err) < 0)
		die("sample", err);
	t0 = now_s();
	if (summary_finish_run(s, r->id, "done", NULL, &sum, err) < 0)
		die("finish", err);
	return now_s() - t0;
}

static void build(const char *db, const char *dir, unsigned runs, unsigned intervals)
{
	struct matrix *m = bench_matrix(dir, runs / (ARMS * CELLS));
	struct abba_slot *slots = calloc(runs, sizeof(*slots));
	struct run_ref *refs = NULL;
	struct store *s = NULL;
	char err[ERR_MAX];
	double t0 = now_s(), finish = 0;
	int64_t mid;
	size_t n, i;
	int added;

	if (!slots || store_open(db, &s, err) < 0)
		die(db, slots ? err : "out of memory");
	n = abba_order(ARMS, CELLS, (unsigned)m->reps, slots);
	if (store_add_matrix(s, m, slots, n, &mid, &added, err) < 0 ||
	    store_queued_runs(s, mid, &refs, &n, err) < 0)
		die("queue", err);
	for (i = 0; i < n; i++)
		finish += one_run(s, &refs[i], intervals, err);
	store_close(s);
	printf("build: %zu runs x %u intervals (%.1f M samples) in %.1f s; run end with its"
	       " summary: %.0f us a run\n", n, intervals, n * intervals / 1e6, now_s() - t0,
	       1e6 * finish / (double)n);
	free(refs);
	free(slots);
	free(m);
}

/* `harness table big`: open, find, print (to /dev/null). */
static double time_table(const char *db, double *ret_cpu)
{
	FILE *out = fopen("/dev/null", "w");
	struct store *s = NULL;
	char err[ERR_MAX];
	double t0 = now_s(), c0 = cpu_s();
	int64_t mid;

	if (!out || store_open(db, &s, err) < 0 || store_find_matrix(s, "big", &mid, err) < 0 ||
	    report_table(out, s, mid, err) < 0)
		die("table", err);
	store_close(s);
	fclose(out);
	*ret_cpu = cpu_s() - c0;
	return now_s() - t0;
}

/* `harness compare big base new`: every cell and metric. */
static double time_compare(const char *db, double *ret_cpu)
{
	struct compare_opts o = { .base_matrix = "big", .new_matrix = "big", .base_arm = "base",
				  .new_arm = "new" };
	FILE *out = fopen("/dev/null", "w");
	struct store *s = NULL;
	char err[ERR_MAX];
	double t0 = now_s(), c0 = cpu_s();

	if (!out || store_open(db, &s, err) < 0 || compare_run(s, &o, out, NULL, err) < 0)
		die("compare", err);
	store_close(s);
	fclose(out);
	*ret_cpu = cpu_s() - c0;
	return now_s() - t0;
}

/* Every summary row of the matrix from sql: the one read both commands begin with. */
static double time_rows(const char *db, const char *setup, const char *sql, long *ret_rows)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *raw = NULL;
	double t0;
	long rows = 0;

	/* a connection of its own: the store hands out none */
	if (sqlite3_open_v2(db, &raw, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		die(db, sqlite3_errmsg(raw));
	if (setup && sqlite3_exec(raw, setup, NULL, NULL, NULL) != SQLITE_OK)
		die("view", sqlite3_errmsg(raw));
	t0 = now_s();
	if (sqlite3_prepare_v2(raw, sql, -1, &st, NULL) != SQLITE_OK)
		die("prepare", sqlite3_errmsg(raw));
	while (sqlite3_step(st) == SQLITE_ROW)
		rows++;
	sqlite3_finalize(st);
	t0 = now_s() - t0;
	sqlite3_close(raw);
	*ret_rows = rows;
	return t0;
}

int main(int argc, char **argv)
{
	unsigned runs = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	unsigned intervals = argc > 2 ? (unsigned)atoi(argv[2]) : 300;
	char dir[] = "/tmp/bench_report.XXXXXX", db[PATH_MAX], path[PATH_MAX + 8];
	const char *keep = getenv("BENCH_DB");
	double table, compare, pre, view, table_cpu, compare_cpu;
	long n_pre, n_view;

	if (runs < ARMS * CELLS || intervals < 20 || !mkdtemp(dir))
		die("usage", "bench_report [RUNS >= 100 [INTERVALS >= 20]]");
	snprintf(db, sizeof(db), "%s/harness.db", dir);
	if (keep && access(keep, F_OK) == 0)   /* BENCH_DB: an earlier build, kept */
		snprintf(db, sizeof(db), "%s", keep);
	else
		build(keep ? keep : db, dir, runs, intervals);
	if (keep)
		snprintf(db, sizeof(db), "%s", keep);
	table = time_table(db, &table_cpu);
	compare = time_compare(db, &compare_cpu);
	pre = time_rows(db, NULL, "SELECT * FROM run_summary WHERE matrix_id = 1", &n_pre);
	view = time_rows(db, summary_v3_view, "SELECT * FROM run_summary_v3 WHERE matrix_id = 1",
			 &n_view);
	printf("harness table:   %.3f s (%.3f s CPU)\nharness compare: %.3f s (%.3f s CPU; %u"
	       " cells x %d arms)\n", table, table_cpu, compare, compare_cpu, CELLS,
	       ARMS);
	printf("summaries read: precomputed %.4f s (%ld rows), schema 3's view %.2f s (%ld rows):"
	       " %.0fx\n", pre, n_pre, view, n_view, view / pre);
	printf("table with the view (estimated): %.2f s, %.0fx today's\n", table - pre + view,
	       (table - pre + view) / table);
	snprintf(path, sizeof(path), "%s/harness.db-wal", dir);
	remove(path);
	snprintf(path, sizeof(path), "%s/harness.db-shm", dir);
	remove(path);
	snprintf(path, sizeof(path), "%s/harness.db", dir);
	remove(path);
	remove(dir);
	return 0;
}
