/* bench_sched.c -- what placing blocks costs with a big queue: 100 000 runs
 * queued, 100 simulated hosts x 8 slots claiming blocks through the store. */
#include "spec/abba.h"
#include "base/err.h"
#include "analysis/stats.h"
#include "store/store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#define HOSTS     100
#define SLOTS     8              /* per host */
#define MATRICES  10
#define ARMS      2
#define CELLS     50             /* half x86_64, half aarch64 */
#define REPS      100            /* 2 x 50 x 100 = 10 000 runs a matrix */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "bench_sched: %s: %s\n", what, err);
	exit(1);
}

/* Host h's archs: one in ten aarch64 boards, one in ten both, the rest x86_64. */
static const char *host_archs(unsigned h)
{
	return h % 10 == 0 ? "aarch64" : h % 10 == 1 ? "x86_64 aarch64" : "x86_64";
}

static struct matrix *bench_matrix(const char *dir, unsigned k)
{
	static char canonical[] = "{}";
	struct matrix *m = calloc(1, sizeof(*m));
	unsigned i;

	if (!m)
		die("matrix", "out of memory");
	snprintf(m->name, sizeof(m->name), "queue%u", k);
	snprintf(m->path, sizeof(m->path), "queue%u.json", k);
	snprintf(m->base_dir, sizeof(m->base_dir), "%s", dir);
	snprintf(m->hash, sizeof(m->hash), "q%u", k);
	snprintf(m->archs[0], sizeof(m->archs[0]), "x86_64");
	snprintf(m->archs[1], sizeof(m->archs[1]), "aarch64");
	m->n_archs = 2;
	m->canonical = canonical;
	m->reps = REPS;
	m->memory_mib = 512;
	m->vcpus = 2;
	m->n_arms = ARMS;
	m->n_cells = CELLS;
	for (i = 0; i < ARMS; i++)
		snprintf(m->arms[i].name, sizeof(m->arms[i].name), i ? "new" : "base");
	for (i = 0; i < CELLS; i++) {
		struct cell *c = &m->cells[i];

		snprintf(c->name, sizeof(c->name), "cell%02u", i);
		snprintf(c->arch, sizeof(c->arch), "%s", i % 2 ? "aarch64" : "x86_64");
		c->arch_idx = i % 2;
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

static void queue_all(struct store *s, const char *dir)
{
	size_t runs = (size_t)ARMS * CELLS * REPS, n;
	struct abba_slot *slots = calloc(runs, sizeof(*slots));
	char err[ERR_MAX];
	int64_t mid;
	unsigned k;
	int added;

	if (!slots)
		die("slots", "out of memory");
	for (k = 0; k < MATRICES; k++) {
		struct matrix *m = bench_matrix(dir, k);

		n = abba_order(ARMS, CELLS, REPS, slots);
		if (store_add_matrix(s, m, slots, n, &mid, &added, err) < 0)
			die("queue", err);
		free(m);
	}
	free(slots);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Claimed runs of a cell whose arch the claiming slot's host does not run: must be 0. */
static int64_t misplaced(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM runs r JOIN cells c ON c.id = r.cell_id"
			       " WHERE r.slot IS NOT NULL AND r.status = 'queued' AND"
			       " ((r.slot / 8) % 10 = 0 AND c.arch != 'aarch64' OR"
			       " (r.slot / 8) % 10 >= 2 AND c.arch != 'x86_64')", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The claimed runs end (done, as the slots would leave them), outside the timing. */
static void finish_claimed(sqlite3 *db)
{
	char *e = NULL;

	if (sqlite3_exec(db, "UPDATE runs SET status = 'done', slot = NULL WHERE slot IS NOT NULL",
			 NULL, NULL, &e) != SQLITE_OK)
		die("finish", e);
}

static int64_t queued(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM runs WHERE status = 'queued'", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Every slot of every host claims one block; each claim's seconds into t. */
static size_t round_of_claims(struct store *s, double *t, unsigned *wrong)
{
	struct run_ref *refs;
	char err[ERR_MAX];
	int64_t mid;
	size_t n, k = 0;
	unsigned h, slot;
	double t0;

	for (slot = 0; slot < SLOTS; slot++)
		for (h = 0; h < HOSTS; h++) {
			t0 = now_s();
			if (store_claim_block(s, (int)(h * SLOTS + slot), host_archs(h), &mid, &refs,
					      &n, err) < 0)
				die("claim", err);
			t[k++] = now_s() - t0;
			/* a block is one cell's: 4 runs, an arch the host runs */
			*wrong += n && n != 4;
			free(n ? refs : NULL);
		}
	return k;
}

int main(void)
{
	char dir[] = "/tmp/bench_sched.XXXXXX", path[PATH_MAX], err[ERR_MAX];
	static double t[HOSTS * SLOTS];
	struct store *s = NULL;
	unsigned round, wrong = 0;
	int64_t bad = 0;
	double t0, build_s, total = 0, worst = 0;
	int64_t left;
	sqlite3 *db;
	size_t n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(dir))
		die("mkdtemp", "failed");
	snprintf(path, sizeof(path), "%s/harness.db", dir);
	if (store_open(path, &s, err) < 0)
		die("open", err);
	t0 = now_s();
	queue_all(s, dir);
	build_s = now_s() - t0;
	if (sqlite3_open(path, &db) != SQLITE_OK)
		die("open", sqlite3_errmsg(db));
	sqlite3_busy_timeout(db, 10000);
	printf("bench_sched: %d matrices, %lld runs queued (%.1f s), %d hosts x %d slots\n",
	       MATRICES, (long long)queued(db), build_s, HOSTS, SLOTS);
	printf("%8s %8s %9s %9s %9s\n", "queued", "claims", "median_ms", "p99_ms", "max_ms");
	for (round = 0; (left = queued(db)) > 0; round++) {
		n = round_of_claims(s, t, &wrong);
		qsort(t, n, sizeof(t[0]), cmp_double);
		for (size_t i = 0; i < n; i++)
			total += t[i];
		worst = t[n - 1] > worst ? t[n - 1] : worst;
		if (round % 8 == 0 || left <= (int64_t)(HOSTS * SLOTS * 4))
			printf("%8lld %8zu %9.2f %9.2f %9.2f\n", (long long)left, n, 1e3 * t[n / 2],
			       1e3 * t[n * 99 / 100], 1e3 * t[n - 1]);
		bad += misplaced(db);
		finish_claimed(db);
	}
	printf("bench_sched: %u rounds, %.2f ms a claim on average, %.1f ms at worst, "
	       "%u blocks not of 4 runs, %lld runs on a host without their arch\n", round,
	       1e3 * total / (HOSTS * SLOTS * round), 1e3 * worst, wrong, (long long)bad);
	/* what 800 slots ask of the one database: a claim per block of four 5-minute runs */
	printf("bench_sched: demand %.2f claims/s (800 slots, 20-minute blocks); one writer "
	       "sustains %.0f claims/s at the average\n", HOSTS * SLOTS / 1200.0,
	       (HOSTS * SLOTS * round) / total);
	sqlite3_close(db);
	store_close(s);
	for (const char *const *f = (const char *const[]){ "", "-wal", "-shm", NULL }; *f; f++) {
		snprintf(path, sizeof(path), "%s/harness.db%s", dir, *f);
		unlink(path);
	}
	rmdir(dir);
	return wrong || bad ? 1 : 0;
}
