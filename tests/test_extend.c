/* test_extend.c -- precomputed run summaries and `harness extend` on a real
 * SQLite file filled through the store API: summaries equal schema 3's view,
 * extend grows only UNKNOWN cells, capped, in ABBA order, also over the API. */
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
#include <curl/curl.h>
#include <jansson.h>
#include <sqlite3.h>

#include "analysis/summary.h"
#include "cli/commands.h"
#include "daemon/api.h"
#include "cli/client.h"
#include "analysis/compare.h"
#include "analysis/verdict.h"
#include "store/store_noise.h"
#include "conf/conf.h"
#include "base/err.h"
#include "base/lock.h"
#include "analysis/extend.h"
#include "analysis/stats.h"
#include "store/store.h"
#include "store/store_pressure.h"
#include "store/store_extend.h"
#include "summary_v3.h"
#include "testlib.h"

static char dir[PATH_MAX];
static struct conf conf;
static struct store *store;
static sqlite3 *raw;   /* the test's own connection to the store's database */

/* ---- matrices filled by hand ---- */

static struct matrix *new_matrix(const char *name, unsigned n_arms, unsigned n_cells,
				 unsigned reps)
{
	static const char *const arm_names[] = { "base", "new", "third" };
	struct matrix *m = fixture_matrix_new(name, dir, reps);
	struct cell *c;
	unsigned i;

	sfmt(m->hash, sizeof(m->hash), "hash-%s", name);
	m->n_arms = n_arms;
	m->n_cells = n_cells;
	for (i = 0; i < n_arms; i++) {
		sfmt(m->arms[i].name, sizeof(m->arms[i].name), "%s", arm_names[i]);
		sfmt(m->arms[i].files[0].kernel, sizeof(m->arms[i].files[0].kernel), "/k/%u", i);
		sfmt(m->arms[i].files[0].release, sizeof(m->arms[i].files[0].release), "6.12.%u", i);
	}
	for (i = 0; i < n_cells; i++) {
		c = &m->cells[i];
		sfmt(c->name, sizeof(c->name), "cell%u", i);
		c->job.duration_s = 10;
		c->job.interval_ms = 1000;
		c->job.nfiles = 2;
		sfmt(c->job.files[0].name, sizeof(c->job.files[0].name), "a");
		sfmt(c->job.files[1].name, sizeof(c->job.files[1].name), "b");
		c->job.nstreams = 2;
		sfmt(c->job.streams[0].name, sizeof(c->job.streams[0].name), "r");
		sfmt(c->job.streams[1].name, sizeof(c->job.streams[1].name), "s");
	}
	return m;
}

/* Queue a matrix in ABBA order; its queued runs in *ret. */
static int64_t queue_matrix(const char *name, unsigned n_arms, unsigned n_cells, unsigned reps,
			    struct run_ref **ret, size_t *ret_n)
{
	struct matrix *m = new_matrix(name, n_arms, n_cells, reps);
	int64_t mid;

	*ret_n = fixture_queue(store, m, &mid, ret);
	free(m);
	return mid;
}

/* How a fake run looks: which parts the guest sent, and at what rates. */
struct shape {
	unsigned ramp, intervals, streams, files;
	int setup;                 /* run_files from a setup message */
	double ops, reads_share;   /* per interval per stream; the share of reads */
	uint64_t seed;
	double jitter;             /* every count times 1 +- jitter / 2, at random */
};

static uint64_t jitter(uint64_t *seed, double v, double amp)
{
	double u = (double)(stats_rand(seed) >> 11) / 9007199254740992.0 - 0.5;

	return (uint64_t)llround(v * (1 + amp * u));
}

static void run_start(int64_t run, const struct shape *sh)
{
	struct proto_hello h = { .proto = 1, .page_size = 4096, .mem_total_kib = 1 << 19 };
	struct proto_setup st = { .file_pages = { .n = 2, .v = { 2048, 4096 } } };
	char err[ERR_MAX];

	sfmt(h.release, sizeof(h.release), "6.12.99-test");
	sfmt(st.lru_gen, sizeof(st.lru_gen), "0x0007");
	sfmt(st.residency, sizeof(st.residency), "cachestat");
	if (store_run_booting(store, run, "tcg", "host", "x86_64", "", err) < 0 ||
	    store_run_hello(store, run, &h, 1000, err) < 0 ||
	    (sh->setup && store_run_setup(store, run, &st, err) < 0))
		fail_msg("run %lld: %s", (long long)run, err);
}

static void run_samples(int64_t run, const struct shape *sh)
{
	struct proto_stream_sample ss;
	struct proto_sample smp;
	uint64_t i, k, seed = sh->seed;
	char err[ERR_MAX];

	for (i = 0; i < sh->ramp + sh->intervals; i++) {
		memset(&smp, 0, sizeof(smp));
		smp.seq = i;
		smp.t_ms = 1000 * (i + 1) + (i == 3 ? 37 : 0);
		smp.ramp = i < sh->ramp;
		smp.refault_file = jitter(&seed, 300, sh->jitter);
		smp.pgmajfault = jitter(&seed, 40, sh->jitter);
		smp.activate_file = jitter(&seed, 90, sh->jitter);
		smp.resident.n = sh->files;
		for (k = 0; k < sh->files; k++)
			smp.resident.v[k] = jitter(&seed, 1500, sh->jitter);
		if (store_sample(store, run, &smp, err) < 0)
			fail_msg("sample: %s", err);
		for (k = 0; k < sh->streams; k++) {
			memset(&ss, 0, sizeof(ss));
			ss.seq = i;
			ss.stream = k;
			ss.active = 1;
			ss.read_ops = (uint64_t)llround((double)jitter(&seed, sh->ops, sh->jitter) * sh->reads_share);
			ss.write_ops = jitter(&seed, sh->ops * (1 - sh->reads_share), sh->jitter);
			ss.misses = ss.read_ops / 10;
			if (store_stream_sample(store, run, &ss, err) < 0)
				fail_msg("stream sample: %s", err);
		}
	}
}

static void run_end(int64_t run, const char *status, const struct shape *sh)
{
	struct proto_summary sum = { .samples = sh->ramp + sh->intervals,
				     .duration_ms = 1000 * (sh->ramp + sh->intervals) };
	char err[ERR_MAX];

	if (summary_finish_run(store, run, status, strcmp(status, "done") ? "why" : NULL, &sum,
			     err) < 0)
		fail_msg("finish: %s", err);
}

static void fake_run(int64_t run, const char *status, const struct shape *sh)
{
	run_start(run, sh);
	run_samples(run, sh);
	run_end(run, status, sh);
}

/* Two arms, ops/s 100000 x effect on the new arm, relative noise. */
static void fill_matrix(const struct run_ref *runs, size_t n, const double *effect,
			const double *noise, uint64_t seed)
{
	struct shape sh = { .ramp = 1, .intervals = 5, .streams = 1, .files = 1, .setup = 1,
			    .reads_share = 1 };
	double g;
	size_t i;

	for (i = 0; i < n; i++) {
		g = (double)(stats_rand(&seed) >> 11) / 9007199254740992.0 - 0.5;
		sh.ops = 100000 * (runs[i].arm ? effect[runs[i].cell] : 1) *
			 (1 + 3.46 * noise[runs[i].cell] * g);
		sh.seed = seed + i;
		fake_run(runs[i].id, "done", &sh);
	}
}

/* ---- fixture ---- */

static int setup(void **state)
{
	char path[PATH_MAX + 16];

	(void)state;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	fixture_dir(dir, "test_extend", &conf);
	sfmt(conf.api_socket, sizeof(conf.api_socket), "%s/harnessd.sock", conf.results);
	store = fixture_store(&conf);
	sfmt(path, sizeof(path), "%s/harness.db", conf.results);
	if (sqlite3_open(path, &raw) != SQLITE_OK)
		fail_msg("%s: %s", path, sqlite3_errmsg(raw));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sqlite3_close(raw);
	store_close(store);
	curl_global_cleanup();
	return fixture_rmdir(dir);
}

/* ---- helpers ---- */

static int64_t count(const char *sql, int64_t key)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	assert_int_equal(sqlite3_prepare_v2(raw, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, key);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* ---- summaries ---- */

static void test_summaries_equal_v3_view(void **state)
{
	static const struct shape shapes[] = {
		{ 2, 10, 2, 2, 1, 5000, 0.8, 1, 1 },   /* ramp, two streams, two files */
		{ 0, 7, 1, 1, 1, 3000, 1, 2, 1 },      /* no ramp */
		{ 1, 5, 0, 2, 1, 0, 1, 3, 1 },         /* no stream samples: no ops */
		{ 1, 6, 1, 2, 1, 2000, 0, 4, 1 },      /* writes only: no reads */
		{ 1, 6, 2, 2, 0, 4000, 0.5, 5, 1 },    /* no setup: no file pages */
		{ 3, 3, 1, 1, 1, 1000, 1, 6, 1 },      /* as long a ramp as a measure */
	};
	struct run_ref *runs;
	char err[ERR_MAX];
	size_t n, i;
	int64_t mid;

	(void)state;
	mid = queue_matrix("v3", 3, 3, 4, &runs, &n);
	for (i = 0; i < n; i++) {
		struct shape sh = shapes[i % ARRAY_SIZE(shapes)];

		sh.seed += i * 7919;
		if (i % 11 == 5) {               /* failed: samples, but no summary */
			fake_run(runs[i].id, "failed", &sh);
		} else if (i % 13 == 7) {        /* done without one sample */
			run_start(runs[i].id, &sh);
			run_end(runs[i].id, "done", &sh);
		} else {
			fake_run(runs[i].id, "done", &sh);
		}
	}
	free(runs);
	if (sqlite3_exec(raw, summary_v3_view, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("view: %s", sqlite3_errmsg(raw));
	assert_true(count("SELECT COUNT(*) FROM run_summary WHERE matrix_id = ?", mid) > 20);
	assert_int_equal(count("SELECT COUNT(*) FROM run_summary WHERE matrix_id = ?", mid),
			 count("SELECT COUNT(*) FROM run_summary_v3 WHERE matrix_id = ?", mid));
	assert_int_equal(count("SELECT COUNT(*) FROM (SELECT * FROM run_summary EXCEPT"
			       " SELECT * FROM run_summary_v3)", 0), 0);
	assert_int_equal(count("SELECT COUNT(*) FROM (SELECT * FROM run_summary_v3 EXCEPT"
			       " SELECT * FROM run_summary)", 0), 0);
	/* the NULL cases are there, and equal */
	assert_true(count("SELECT COUNT(*) FROM run_summary WHERE ops_per_s IS NULL", 0) > 0);
	assert_true(count("SELECT COUNT(*) FROM run_summary WHERE refaults_per_read IS NULL", 0) > 0);
	assert_true(count("SELECT COUNT(*) FROM run_summary WHERE resident_share IS NULL", 0) > 0);
	if (sqlite3_exec(raw, "DROP VIEW temp.run_summary_v3", NULL, NULL, NULL))
		fail_msg("drop: %s", err);
}

static void test_summary_written_at_finish(void **state)
{
	struct shape sh = { 1, 4, 1, 1, 1, 2000, 1, 9, 0.2 };
	struct run_summary *v = NULL;
	struct run_ref *runs;
	char err[ERR_MAX];
	size_t n, nv;
	int64_t mid;

	(void)state;
	mid = queue_matrix("finish", 2, 1, 2, &runs, &n);
	run_start(runs[0].id, &sh);
	run_samples(runs[0].id, &sh);
	assert_int_equal(count("SELECT COUNT(*) FROM run_summary WHERE run_id = ?", runs[0].id), 0);
	run_end(runs[0].id, "done", &sh);
	assert_int_equal(count("SELECT COUNT(*) FROM run_summary WHERE run_id = ?", runs[0].id), 1);
	fake_run(runs[1].id, "failed", &sh);
	fake_run(runs[2].id, "unsupported", &sh);
	assert_int_equal(count("SELECT COUNT(*) FROM run_summary WHERE matrix_id = ?", mid), 1);
	assert_int_equal(store_summaries(store, mid, 0, &v, &nv, err), 0);
	assert_int_equal(nv, 1);
	assert_int_equal(v[0].run, runs[0].id);
	assert_true(fabs(v[0].seconds - 4.0) < 1e-9 || fabs(v[0].seconds - 4.037) < 1e-9);
	assert_true(v[0].ops_per_s > 0);
	free(v);
	free(runs);
}

struct batch_arg {
	int64_t run;
	int fail;
};

/* Two intervals of a run, then (fail) an error. */
static int two_samples(struct store *s, void *arg, char *err)
{
	const struct batch_arg *b = arg;
	struct proto_sample smp = { 0 };
	uint64_t i;

	for (i = 0; i < 2; i++) {
		smp.seq = i;
		smp.t_ms = 1000 * (i + 1);
		if (store_sample(s, b->run, &smp, err) < 0)
			return -1;
	}
	return b->fail ? errorf(err, "stopped on purpose") : 0;
}

/* A bulk load (store_transaction) keeps all of its writes or, if it fails, none. */
static void test_batch_all_or_nothing(void **state)
{
	struct batch_arg b = { 0, 1 };
	struct run_ref *runs;
	char err[ERR_MAX];
	size_t n;

	(void)state;
	queue_matrix("batch", 2, 1, 1, &runs, &n);
	b.run = runs[0].id;
	free(runs);
	assert_int_equal(store_transaction(store, two_samples, &b, err), -1);
	assert_string_equal(err, "stopped on purpose");
	assert_int_equal(count("SELECT COUNT(*) FROM samples WHERE run_id = ?", b.run), 0);
	b.fail = 0;
	assert_int_equal(store_transaction(store, two_samples, &b, err), 0);
	assert_int_equal(count("SELECT COUNT(*) FROM samples WHERE run_id = ?", b.run), 2);
}

/*
 * A start's counters in two messages (vmstat has more keys than one holds);
 * a key sent again for the same interval is refused as the sender's (1, the
 * key named, nothing of that message kept), not as a database failure.
 */
static void test_counters_key_twice(void **state)
{
	static struct proto_counters c = { .seq = 0, .at = CA_START, .src = "vmstat" };
	struct run_ref *runs;
	char err[ERR_MAX];
	int64_t run;
	size_t n;

	(void)state;
	queue_matrix("counters", 2, 1, 1, &runs, &n);
	run = runs[0].id;
	free(runs);
	c.values.n = 2;
	sfmt(c.values.key[0], PROTO_COUNTER_KEY_MAX, "pgfault");
	sfmt(c.values.key[1], PROTO_COUNTER_KEY_MAX, "pgscan_kswapd");
	c.values.value[0] = c.values.value[1] = 5;
	assert_int_equal(store_counters(store, run, &c, err), 0);
	sfmt(c.values.key[0], PROTO_COUNTER_KEY_MAX, "pgsteal_kswapd");
	assert_int_equal(store_counters(store, run, &c, err), 1);   /* pgscan_kswapd again */
	assert_string_equal(err, "vmstat counter 'pgscan_kswapd' twice for the start at interval 0");
	assert_int_equal(count("SELECT COUNT(*) FROM counters WHERE run_id = ?", run), 2);
	c.at = CA_CHANGE;
	assert_int_equal(store_counters(store, run, &c, err), 0);   /* interval 0's change: its own rows */
	assert_int_equal(count("SELECT COUNT(*) FROM counters WHERE run_id = ?", run), 4);
}

static void test_schema3_refused(void **state)
{
	char path[PATH_MAX + 16], err[ERR_MAX] = "";
	struct store *s = NULL;
	sqlite3 *db;

	(void)state;
	sfmt(path, sizeof(path), "%s/old.db", dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE runs (id INTEGER PRIMARY KEY);"
				      "CREATE VIEW run_summary AS SELECT id AS run_id FROM runs;"
				      "PRAGMA user_version = 3;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(path, &s, err), -1);
	assert_null(s);
	assert_non_null(strstr(err, "has schema 3, this harness writes schema 24"));
	assert_non_null(strstr(err, path));
	assert_null(strchr(err, '\n'));
	/* left as it was */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "SELECT 1 FROM run_summary", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* One number a query over the database at path gives, or -1. */
static int64_t count_at(const char *path, const char *sql)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	int64_t v = -1;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/*
 * Schema 5 (the store's own, taken back: no dup_of, no unique index) with
 * what its racing submits could leave: two live matrices of one spec, and
 * a cancelled one.
 */
/* Schema 12's to 23's additions taken back out (the fixtures are made by today's store). */
#define DROP_SAMPLE_COLUMN(m, key, max) "ALTER TABLE samples DROP COLUMN \"" key "\";"
/* first in every downgrade: the chains below may drop the calibrations table */
#define DOWNGRADE_24 "ALTER TABLE calibrations DROP COLUMN scale;"
#define DOWNGRADE_23 "ALTER TABLE runs DROP COLUMN mthp_read; DROP TABLE run_mthp;"
#define DOWNGRADE_22 DOWNGRADE_23 PROTO_SAMPLE_STALL_FIELDS(DROP_SAMPLE_COLUMN) \
	"ALTER TABLE runs DROP COLUMN stalls; DROP TABLE counters;"
#define DOWNGRADE_21 DOWNGRADE_22 PROTO_SAMPLE_MONITOR_FIELDS(DROP_SAMPLE_COLUMN)
#define DOWNGRADE_20 DOWNGRADE_21 "ALTER TABLE runs DROP COLUMN oom_kills;"
#define DOWNGRADE_19 DOWNGRADE_20 \
	"ALTER TABLE runs DROP COLUMN swap_read; ALTER TABLE runs DROP COLUMN swappiness_read;" \
	PROTO_SAMPLE_SWAP_FIELDS(DROP_SAMPLE_COLUMN)
/* schema 20's status 'oom' taken out of the runs table's CHECK, last (the
 * connection is closed before the store opens the file again) */
#define REVERT_OOM_CHECK \
	"PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql," \
	" '''interrupted'',''cancelled'',''oom''))', '''interrupted'',''cancelled''))')" \
	" WHERE type = 'table' AND name = 'runs'; PRAGMA writable_schema = OFF;"
#define DOWNGRADE_18 DOWNGRADE_19 \
	"ALTER TABLE runs DROP COLUMN thp_enabled_read; ALTER TABLE runs DROP COLUMN thp_defrag_read;" \
	PROTO_SAMPLE_THP_FIELDS(DROP_SAMPLE_COLUMN)
#define DOWNGRADE_17 DOWNGRADE_18 "ALTER TABLE runs DROP COLUMN save_bytes;"
#define DOWNGRADE_16 DOWNGRADE_17 \
	"ALTER TABLE runs DROP COLUMN start; ALTER TABLE runs DROP COLUMN save_key;" \
	"ALTER TABLE runs DROP COLUMN clock_behind_ms; ALTER TABLE runs DROP COLUMN clock_ahead_ms;" \
	"ALTER TABLE runs DROP COLUMN rng;"
#define DOWNGRADE_15 DOWNGRADE_16 \
	"ALTER TABLE runs DROP COLUMN quiet_wait_ms; ALTER TABLE runs DROP COLUMN started_busy;" \
	"ALTER TABLE runs DROP COLUMN pressure_cpu_pct; ALTER TABLE runs DROP COLUMN pressure_io_pct;" \
	"ALTER TABLE runs DROP COLUMN pressure_load_pct; ALTER TABLE runs DROP COLUMN contended;" \
	"ALTER TABLE runs DROP COLUMN contended_why; DROP TABLE host_pressure;"
#define DOWNGRADE_14 DOWNGRADE_15 \
	"ALTER TABLE runs DROP COLUMN qemu_version; ALTER TABLE runs DROP COLUMN libvirt_version;" \
	"ALTER TABLE runs DROP COLUMN tcg_thread; ALTER TABLE runs DROP COLUMN host_kernel;" \
	"ALTER TABLE runs DROP COLUMN host_cpu; ALTER TABLE runs DROP COLUMN host_cpus;" \
	"ALTER TABLE runs DROP COLUMN vcpu_pin;"
#define DOWNGRADE_13 DOWNGRADE_14 \
	"ALTER TABLE runs DROP COLUMN trace; ALTER TABLE runs DROP COLUMN trace_lost;" \
	"ALTER TABLE runs DROP COLUMN trace_refused; ALTER TABLE run_files DROP COLUMN ino;" \
	"DROP TABLE trace_events;"
#define DOWNGRADE_12 DOWNGRADE_13 \
	PROTO_SAMPLE_LRU_FIELDS(DROP_SAMPLE_COLUMN) "DROP TABLE lru_gens; DROP TABLE lru_tiers;"

static void make_schema5(const char *path)
{
	static const char downgrade[] =
		DOWNGRADE_24 "DROP INDEX matrices_live_spec; ALTER TABLE matrices DROP COLUMN dup_of;"
		"ALTER TABLE arms DROP COLUMN build; ALTER TABLE arms DROP COLUMN failed;"
		"DROP TABLE calibrations; ALTER TABLE runs DROP COLUMN host_load;"
		"ALTER TABLE cells DROP COLUMN arch;" DOWNGRADE_12 REVERT_OOM_CHECK
		"UPDATE matrices SET spec_hash = 'hash-twin';"
		"UPDATE matrices SET state = 'cancelled' WHERE name = 'twin-c';"
		"PRAGMA user_version = 5;";
	static const char *const names[] = { "twin-a", "twin-b", "twin-c" };
	struct store *s = NULL;
	struct run_ref *runs;
	struct matrix *m;
	char err[ERR_MAX];
	int64_t mid;
	sqlite3 *db;
	size_t i;

	if (store_open(path, &s, err) < 0)
		fail_msg("%s", err);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		m = new_matrix(names[i], 2, 1, 2);
		fixture_queue(s, m, &mid, &runs);
		free(runs);
		free(m);
	}
	store_close(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, downgrade, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("making a schema 5 database: %s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* Schema 5's twins are kept, the newest live one is the spec's, new twins are refused. */
static void test_schema5_upgraded(void **state)
{
	char path[PATH_MAX + 16], err[ERR_MAX] = "";
	struct matrix *m = new_matrix("twin-a", 2, 1, 3);
	struct abba_slot slots[8];
	struct store *s = NULL;
	sqlite3 *db;
	size_t n = 0;
	int64_t mid = 0;
	int appended = 0, added = 1;

	(void)state;
	sfmt(path, sizeof(path), "%s/v5.db", dir);
	make_schema5(path);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM matrices WHERE spec_hash ="
				  " 'hash-twin' AND state != 'cancelled'"), 2);
	if (store_open(path, &s, err) < 0)
		fail_msg("schema 5 not upgraded: %s", err);
	store_close(s);
	/* nothing lost: three matrices, 4 runs each; the older live twin points at the newer */
	assert_int_equal(count_at(path, "PRAGMA user_version"), 24);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM matrices"), 3);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs"), 12);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM matrices WHERE name = 'twin-a'"
				  " AND dup_of = (SELECT id FROM matrices WHERE name = 'twin-b')"), 1);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM matrices WHERE dup_of IS NULL"), 2);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM pragma_integrity_check"
				  " WHERE integrity_check != 'ok'"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM pragma_foreign_key_check"), 0);
	/* opening it again upgrades nothing; the spec's matrix is the newest live twin */
	assert_int_equal(store_open(path, &s, err), 0);
	sfmt(m->hash, sizeof(m->hash), "hash-twin");
	if (store_queue_matrix(s, m, &mid, &n, &appended, err) < 0)
		fail_msg("%s", err);
	assert_true(appended);
	assert_int_equal(mid, count_at(path, "SELECT id FROM matrices WHERE name = 'twin-b'"));
	assert_int_equal(n, 2);   /* reps 2 -> 3 of two arms */
	n = abba_order(2, 1, 1, slots);
	assert_int_equal(store_add_matrix(s, m, slots, n, &mid, &added, err), 0);
	assert_false(added);
	/* and the schema itself refuses a second live matrix of the spec */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO matrices (name, spec_path, spec,"
				      " spec_hash, base_dir, reps, memory_mib, vcpus) VALUES"
				      " ('x', 'x', '{}', 'hash-twin', '/', 1, 1, 1)", NULL, NULL,
				      NULL), SQLITE_CONSTRAINT);
	sqlite3_close(db);
	store_close(s);
	free(m);
}

/* ---- extend ---- */

/*
 * SB blocks, the fewest at which SAME can be called (verdict_same_min_blocks):
 * cell0 the same within 0.1 %: SAME; cell1 3 % apart in 15 % noise: UNKNOWN.
 */
#define SB ((unsigned)verdict_same_min_blocks())
static int64_t undecided_matrix(const char *name)
{
	static const double effect[] = { 1.0, 1.03 }, noise[] = { 0.001, 0.15 };
	struct run_ref *runs;
	size_t n;
	int64_t mid = queue_matrix(name, 2, 2, 2 * SB, &runs, &n);

	fill_matrix(runs, n, effect, noise, 42);
	free(runs);
	return mid;
}

/* Blocks cell c of mid should get: its UNKNOWN verdicts' blocks + more, capped. */
static unsigned expected_blocks(int64_t mid, const char *cell, unsigned max)
{
	struct compare_opts o = { .base_arm = "base", .new_arm = "new" };
	struct compare_row *rows;
	char key[32], err[ERR_MAX];
	unsigned want = 0, w;
	size_t n, i;

	sfmt(key, sizeof(key), "%lld", (long long)mid);
	o.base_matrix = o.new_matrix = key;
	assert_int_equal(compare_rows(store, &o, &rows, &n, err), 0);
	for (i = 0; i < n; i++) {
		if (strcmp(rows[i].cell, cell) || rows[i].v.kind != VERDICT_UNKNOWN)
			continue;
		w = (unsigned)rows[i].v.blocks + rows[i].v.more;
		w = w < max ? w : max;
		want = w > want ? w : want;
	}
	free(rows);
	return want;
}

static json_t *cell_result(json_t *res, const char *cell)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(res, "cells"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "cell")), cell))
			return c;
	fail_msg("no cell %s", cell);
	return NULL;
}

/* The queued runs of mid's cell: blocks from first on, each A B B A. */
static void check_abba_tail(int64_t mid, unsigned cell, unsigned first, unsigned blocks)
{
	struct run_ref *runs;
	char err[ERR_MAX];
	size_t n, i, k = 0;
	static const unsigned abba[] = { 0, 1, 1, 0 };

	assert_int_equal(store_queued_runs(store, mid, &runs, &n, err), 0);
	for (i = 0; i < n; i++) {
		if (runs[i].cell != cell)
			continue;
		assert_int_equal(runs[i].block, first + k / 4);
		assert_int_equal(runs[i].position, k % 4);
		assert_int_equal(runs[i].arm, abba[k % 4]);
		k++;
	}
	assert_int_equal(k, (size_t)blocks * 4);
	free(runs);
}

static void test_extend_unknown_cells_only(void **state)
{
	struct extend_opts o = { .matrix = "undecided", .max_blocks = SB + 8 };
	unsigned want = 0;
	char err[ERR_MAX];
	json_t *res, *c;
	int64_t mid;
	int http;

	(void)state;
	mid = undecided_matrix("undecided");
	want = expected_blocks(mid, "cell1", SB + 8);
	assert_true(want > SB);                                /* cell1 is UNKNOWN */
	assert_int_equal(expected_blocks(mid, "cell0", SB + 8), 0);   /* cell0 decided */
	assert_int_equal(count("SELECT COUNT(*) FROM matrices WHERE state = 'active' AND id = ?",
			       mid), 1);
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), 0);
	c = cell_result(res, "cell0");
	assert_true(json_is_true(json_object_get(c, "decided")));
	assert_int_equal(json_integer_value(json_object_get(c, "runs")), 0);
	c = cell_result(res, "cell1");
	assert_false(json_is_true(json_object_get(c, "decided")));
	assert_int_equal(json_integer_value(json_object_get(c, "blocks")), SB);
	assert_int_equal(json_integer_value(json_object_get(c, "queued_blocks")), want - SB);
	assert_int_equal(json_integer_value(json_object_get(c, "runs")), (want - SB) * 4);
	assert_true(json_array_size(json_object_get(c, "unknown")) > 0);
	assert_int_equal(json_integer_value(json_object_get(res, "runs")), (want - SB) * 4);
	json_decref(res);
	check_abba_tail(mid, 0, 0, 0);
	check_abba_tail(mid, 1, SB, want - SB);

	/* again: what is planned already counts; nothing twice */
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), 0);
	assert_int_equal(json_integer_value(json_object_get(res, "runs")), 0);
	json_decref(res);
}

/*
 * A block compare leaves out as contended does not count toward the cap:
 * at the cap of SB blocks, cell1 with one contended block gets one more.
 */
static void test_extend_replaces_contended(void **state)
{
	struct extend_opts o = { .matrix = "contended", .max_blocks = SB };
	char err[ERR_MAX];
	int64_t mid, run;
	json_t *res, *c;
	int http;

	(void)state;
	mid = undecided_matrix("contended");
	run = count("SELECT MIN(r.id) FROM runs r JOIN cells c ON c.id = r.cell_id"
		    " WHERE r.matrix_id = ? AND c.name = 'cell1' AND r.block = 0", mid);
	assert_true(run > 0);
	assert_int_equal(store_run_contended(store, run, 60.0, 1.0, NAN, 1, "cpu some 60.0% > 30%",
					     err), 0);
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), 0);
	c = cell_result(res, "cell1");
	assert_int_equal(json_integer_value(json_object_get(c, "contended_blocks")), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "queued_blocks")), 1);
	assert_int_equal(json_integer_value(json_object_get(cell_result(res, "cell0"),
							    "queued_blocks")), 0);
	json_decref(res);
	assert_int_equal(count("SELECT MAX(block) + 1 FROM runs r JOIN cells c ON c.id = r.cell_id"
			       " WHERE r.matrix_id = ? AND c.name = 'cell1'", mid), SB + 1);
}

static void test_extend_respects_max_blocks(void **state)
{
	struct extend_opts o = { .matrix = "capped", .max_blocks = SB + 1 };
	char err[ERR_MAX];
	json_t *res;
	int64_t mid;
	int http;

	(void)state;
	mid = undecided_matrix("capped");
	assert_true(expected_blocks(mid, "cell1", 1000) > SB + 1);   /* wants more than the cap */
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), 0);
	assert_int_equal(json_integer_value(json_object_get(cell_result(res, "cell1"),
							    "queued_blocks")), 1);
	json_decref(res);
	check_abba_tail(mid, 1, SB, 1);
	assert_int_equal(count("SELECT MAX(block) + 1 FROM runs WHERE matrix_id = ?", mid), SB + 1);

	/* a later submit with more reps continues each cell's own blocks */
	{
		unsigned want[2] = { 2 * SB + 4, 2 * SB + 4 }, added[2];

		assert_int_equal(store_grow_cells(store, mid, 2, 2, want, 2 * SB + 4, added, err), 0);
		assert_int_equal(added[0], 4 * 2);         /* cell0: 2 SB -> 2 SB + 4 reps */
		assert_int_equal(added[1], 2 * 2);         /* cell1: 2 SB + 2 -> 2 SB + 4 */
		assert_int_equal(count("SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE matrix_id = ?"
				       " GROUP BY cell_id, block, position HAVING COUNT(*) > 1)", mid), 0);
		assert_int_equal(count("SELECT reps FROM matrices WHERE id = ?", mid), 2 * SB + 4);
	}

	/* bad options are refused with a reason */
	o.max_blocks = 0;
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), -1);
	assert_int_equal(http, 400);
	assert_non_null(strstr(err, "max_blocks"));
	o.max_blocks = 4;
	o.base_arm = "base";
	o.new_arm = "nope";
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), -1);
	assert_int_equal(http, 400);
	assert_non_null(strstr(err, "no arm 'nope'"));
	o.matrix = "no-such-matrix";
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), -1);
	assert_int_equal(http, 404);
}

static void test_extend_finished_matrix_is_active_again(void **state)
{
	struct extend_opts o = { .matrix = "finished", .max_blocks = SB + 8 };
	char err[ERR_MAX];
	json_t *res;
	int64_t mid;
	int http;

	(void)state;
	mid = undecided_matrix("finished");
	assert_int_equal(store_set_matrix_state(store, mid, "finished", err), 0);
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), 0);
	assert_string_equal(json_string_value(json_object_get(res, "state")), "active");
	json_decref(res);
	assert_int_equal(store_set_matrix_state(store, mid, "cancelled", err), 0);
	assert_int_equal(extend_matrix(store, &o, &res, &http, err), -1);
	assert_int_equal(http, 409);
}

static void test_extend_through_the_api(void **state)
{
	struct api *api = NULL;
	char err[ERR_MAX];
	json_t *res = NULL;
	char mb[16], body[64];
	char *argv[] = { "extend", "--until-decided", "--max-blocks", mb, "viaapi", NULL };
	int64_t mid;

	(void)state;
	sfmt(mb, sizeof(mb), "%u", SB + 1);     /* one block more than the matrix has */
	sfmt(body, sizeof(body), "{\"max_blocks\": %u}", SB + 1);
	mid = undecided_matrix("viaapi");
	/* no daemon: 1, nothing sent */
	assert_int_equal(client_post(&conf, "/matrices/viaapi/extend", body,
				     &res, err), 1);
	api = fixture_api(&conf);
	assert_int_equal(client_post(&conf, "/matrices/viaapi/extend", "{\"max_blocks\": 0}",
				     &res, err), -1);
	assert_non_null(strstr(err, "max_blocks"));
	assert_int_equal(client_post(&conf, "/matrices/viaapi/extend", "{\"max\": 31}", &res, err),
			 -1);
	assert_non_null(strstr(err, "unknown key 'max'"));
	assert_int_equal(client_post(&conf, "/matrices/nothere/extend", body,
				     &res, err), -1);
	assert_non_null(strstr(err, "no matrix"));
	assert_int_equal(client_post(&conf, "/matrices/viaapi/extend", body,
				     &res, err), 0);
	assert_int_equal(json_integer_value(json_object_get(res, "matrix")), mid);
	assert_int_equal(json_integer_value(json_object_get(cell_result(res, "cell1"),
							    "queued_blocks")), 1);
	json_decref(res);
	/* the command goes through the daemon too, and finds nothing more to queue */
	assert_int_equal(cmd_extend(&conf, 5, argv, 1), 0);
	api_stop(api);
	/* and without one, into the database */
	assert_int_equal(cmd_extend(&conf, 5, argv, 0), 0);
	assert_int_equal(count("SELECT MAX(block) + 1 FROM runs WHERE matrix_id = ?", mid), SB + 1);
	{
		char *usage[] = { "extend", "--max-blocks", mb, "viaapi", NULL };
		char *bad[] = { "extend", "--until-decided", "--max-blocks", "x", "viaapi", NULL };

		assert_int_equal(cmd_extend(&conf, 4, usage, 0), 1);
		assert_int_equal(cmd_extend(&conf, 5, bad, 0), 1);
	}
}

/* A schema 4 database (no resolve columns) is brought up to 5, every row kept. */
static void test_schema4_upgraded(void **state)
{
	char path[PATH_MAX + 16], err[ERR_MAX] = "", resolve[16];
	struct matrix *m = new_matrix("old", 2, 1, 2);
	struct run_ref *runs, *claimed;
	struct store *s = NULL;
	int64_t mid, got;
	size_t n, nc;
	sqlite3 *db;

	(void)state;
	/* schema 6 made by the store, taken back to 4: matrices had no resolve columns, no dup_of */
	sfmt(path, sizeof(path), "%s/v4.db", dir);
	assert_int_equal(store_open(path, &s, err), 0);
	n = fixture_queue(s, m, &mid, &runs);
	free(m);
	free(runs);
	store_close(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, DOWNGRADE_24 "DROP INDEX matrices_live_spec;"
			 " ALTER TABLE matrices DROP COLUMN dup_of; ALTER TABLE arms DROP COLUMN build; ALTER TABLE arms DROP COLUMN failed;"
			 "ALTER TABLE matrices DROP COLUMN resolve_msg;"
			 "ALTER TABLE matrices DROP COLUMN resolve; DROP TABLE calibrations;"
			 "ALTER TABLE runs DROP COLUMN host_load;"
			 "ALTER TABLE cells DROP COLUMN arch;" DOWNGRADE_12 REVERT_OOM_CHECK
			 "PRAGMA user_version = 4;",
			 NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("making a schema 4 database: %s", sqlite3_errmsg(db));
	sqlite3_close(db);

	if (store_open(path, &s, err) < 0)
		fail_msg("schema 4 refused: %s", err);
	assert_int_equal(store_matrix_resolve(s, mid, resolve, err), 0);
	assert_string_equal(resolve, "resolved");
	/* its queued runs are as they were, and may start */
	assert_int_equal(store_claim_block(s, 0, "x86_64", &got, &claimed, &nc, err), 0);
	free(claimed);
	assert_int_equal(got, mid);
	assert_int_equal(nc, n);
	assert_int_equal(store_unclaim(s, 0, err), 0);
	store_close(s);
	/* and it says schema 24 from now on (4 to 5 ... to 24), its arms with no build */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "SELECT resolve_msg FROM matrices", NULL, NULL, NULL),
			 SQLITE_OK);
	{
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 24);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	/* schema 23: no older run read multi-size THP back or counted its sizes */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE mthp_read IS NOT NULL"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM run_mthp"), 0);
	/* schema 20: status oom allowed now, and what the CHECK refused still refused */
	{
		char *e = NULL;

		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		if (sqlite3_exec(db, "UPDATE runs SET status = 'oom', oom_kills = 1 WHERE id = "
				 "(SELECT MIN(id) FROM runs)", NULL, NULL, &e) != SQLITE_OK)
			fail_msg("status oom refused after the upgrade: %s", e);
		assert_int_equal(sqlite3_exec(db, "UPDATE runs SET status = 'bogus'", NULL, NULL,
					      NULL), SQLITE_CONSTRAINT);
		sqlite3_close(db);
		assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE status = 'oom'"), 1);
		assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE swap_read IS NOT NULL"
					  " OR swappiness_read IS NOT NULL"), 0);
		/* schema 22: the old runs have no stall tracing, no counters, NULL stalls */
		assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE stalls IS NOT NULL"), 0);
		assert_int_equal(count_at(path, "SELECT COUNT(*) FROM counters"), 0);
		assert_int_equal(count_at(path, "SELECT COUNT(*) FROM samples WHERE reclaim_stalls"
					  " IS NOT NULL OR memcg_high IS NOT NULL"), 0);
	}
	/* schema 18: no older run read THP back */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE thp_enabled_read IS NOT NULL"
				  " OR thp_defrag_read IS NOT NULL"), 0);
	/* schema 17: no older run has a save's size */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE save_bytes IS NOT NULL"), 0);
	/* schema 16: no older run says how its guest started */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE start IS NOT NULL"
				  " OR save_key IS NOT NULL OR rng IS NOT NULL"), 0);
	/* schema 14: no older run says what measured it */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE qemu_version IS NOT NULL"
				  " OR libvirt_version IS NOT NULL OR tcg_thread IS NOT NULL"
				  " OR host_kernel IS NOT NULL OR host_cpu IS NOT NULL"
				  " OR host_cpus IS NOT NULL OR vcpu_pin IS NOT NULL"), 0);
	/* schema 15: no run judged contended, no host pressure stored */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE contended IS NOT NULL"
				  " OR quiet_wait_ms IS NOT NULL"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM host_pressure"), 0);
	/* schema 13: no run traced, no inode known, no event */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE trace IS NOT NULL"
				  " OR trace_lost IS NOT NULL"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM run_files WHERE ino IS NOT NULL"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM trace_events"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM arms WHERE build IS NULL AND"
				  " failed IS NULL"), 2);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM calibrations"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM bisections"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM run_phases"), 0);
	/* schema 12: memory.stat's LRU columns (NULL in older rows), the generation tables */
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM samples WHERE active_file IS NOT NULL"
				  " OR pgrefill IS NOT NULL OR lru_gen_nodes IS NOT NULL"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM lru_gens"), 0);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM lru_tiers WHERE file_evicted > 0"), 0);
}

/* A schema 13 database gets schema 14's machine columns; a run's machine is stored there. */
static void test_schema13_upgraded(void **state)
{
	struct store_machine mach = { .qemu = "7.2.0", .libvirt = "9.0.0", .tcg_thread = "single",
				      .kernel = "6.1.0-test", .cpu_model = "Test CPU", .cpus = 2,
				      .vcpu_pin = "none" };
	char path[PATH_MAX + 16], err[ERR_MAX] = "";
	struct matrix *m = new_matrix("v13", 1, 1, 1);
	struct run_ref *runs;
	struct store *s = NULL;
	int64_t mid;
	size_t n;
	sqlite3 *db;

	(void)state;
	sfmt(path, sizeof(path), "%s/v13.db", dir);
	assert_int_equal(store_open(path, &s, err), 0);
	n = fixture_queue(s, m, &mid, &runs);
	free(m);
	store_close(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, DOWNGRADE_24 DOWNGRADE_14 REVERT_OOM_CHECK "PRAGMA user_version = 13;",
			 NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("making a schema 13 database: %s", sqlite3_errmsg(db));
	sqlite3_close(db);
	if (store_open(path, &s, err) < 0)
		fail_msg("schema 13 refused: %s", err);
	assert_int_equal(store_run_machine(s, runs[0].id, &mach, err), 0);
	store_close(s);
	free(runs);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs"), (int64_t)n);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE qemu_version = '7.2.0'"
				  " AND libvirt_version = '9.0.0' AND tcg_thread = 'single'"
				  " AND host_kernel = '6.1.0-test' AND host_cpu = 'Test CPU'"
				  " AND host_cpus = 2 AND vcpu_pin = 'none'"), 1);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE qemu_version IS NULL"),
			 (int64_t)n - 1);
}

/*
 * A schema 23 database's calibrations (the ratio minus 1) are put on the
 * verdict's log scale by schema 24: ops/s's mean 0.05 and sd 0.10 become
 * log(1.05) and 0.10 / 1.05; miss%'s (a difference in points now) stays
 * 'ratio' and no reader finds it.
 */
static void test_schema23_calibrations(void **state)
{
	char path[PATH_MAX + 16], err[ERR_MAX] = "";
	struct matrix *m = new_matrix("v23", 1, 1, 2);
	struct calibration *k = NULL;
	struct run_ref *runs;
	struct store *s = NULL;
	int64_t mid;
	size_t nk;
	sqlite3 *db;

	(void)state;
	sfmt(path, sizeof(path), "%s/v23.db", dir);
	assert_int_equal(store_open(path, &s, err), 0);
	assert_true(fixture_queue(s, m, &mid, &runs) >= 2);
	free(m);
	free(runs);
	store_close(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, DOWNGRADE_24 "PRAGMA user_version = 23;"
			 "INSERT INTO calibrations (host, job, memory_mib, vcpus, arch, metric,"
			 " matrix_id, cell, blocks, mean, sd, cv) SELECT 'box', c.job, m.memory_mib,"
			 " m.vcpus, 'x86_64', x.metric, m.id, c.name, 10, 0.05, 0.10, 0.1 FROM cells c"
			 " JOIN matrices m ON m.id = c.matrix_id, (SELECT 'ops/s' AS metric UNION ALL"
			 " SELECT 'miss%') x WHERE c.idx = 0;", NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("making a schema 23 database: %s", sqlite3_errmsg(db));
	sqlite3_close(db);
	if (store_open(path, &s, err) < 0)
		fail_msg("schema 23 refused: %s", err);
	assert_int_equal(store_calibrations(s, mid, "box", &k, &nk, err), 0);
	store_close(s);
	assert_int_equal(nk, 1);
	assert_string_equal(k[0].metric, "ops/s");
	assert_true(fabs(k[0].mean - log1p(0.05)) < 1e-12 && fabs(k[0].sd - 0.10 / 1.05) < 1e-12);
	free(k);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM calibrations WHERE scale = 'ratio'"
				  " AND metric = 'miss%'"), 1);
}

/*
 * A schema 22 database gets schema 23's multi-size THP column and table; a
 * run's read-back and its summary's per-size counters are stored there.
 */
static void test_schema22_upgraded(void **state)
{
	char path[PATH_MAX + 16], err[ERR_MAX] = "";
	struct matrix *m = new_matrix("v22", 1, 1, 2);
	struct proto_setup st = { .lru_gen = "0x0007", .residency = "cachestat",
				  .mthp = "16K:never 64K:always 2048K:inherit" };
	struct proto_summary sum = { .duration_ms = 3000, .samples = 3 };
	struct run_ref *runs;
	struct store *s = NULL;
	int64_t mid;
	sqlite3 *db;

	(void)state;
	sfmt(path, sizeof(path), "%s/v22.db", dir);
	assert_int_equal(store_open(path, &s, err), 0);
	assert_true(fixture_queue(s, m, &mid, &runs) >= 2);
	free(m);
	store_close(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, DOWNGRADE_24 DOWNGRADE_23 "PRAGMA user_version = 22;", NULL, NULL, NULL) !=
	    SQLITE_OK)
		fail_msg("making a schema 22 database: %s", sqlite3_errmsg(db));
	sqlite3_close(db);
	if (store_open(path, &s, err) < 0)
		fail_msg("schema 22 refused: %s", err);
	sum.mthp_kib.n = sum.mthp_anon_fault_alloc.n = sum.mthp_swpout.n = 2;
	sum.mthp_kib.v[0] = 64;
	sum.mthp_kib.v[1] = 2048;
	sum.mthp_anon_fault_alloc.v[0] = 514;
	sum.mthp_swpout.v[0] = 9;
	if (store_run_setup(s, runs[0].id, &st, err) < 0 ||
	    store_run_finish(s, runs[0].id, "done", NULL, &sum, NULL, err) < 0 ||
	    /* a run that failed: no summary, no counters */
	    store_run_finish(s, runs[1].id, "failed", "x", NULL, NULL, err) < 0)
		fail_msg("%s", err);
	store_close(s);
	assert_int_equal(count_at(path, "PRAGMA user_version"), 24);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE mthp_read ="
				  " '16K:never 64K:always 2048K:inherit'"), 1);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM runs WHERE mthp_read IS NOT NULL"), 1);
	assert_int_equal(count_at(path, "SELECT COUNT(*) FROM run_mthp"), 2);
	assert_int_equal(count_at(path, "SELECT anon_fault_alloc * 100 + swpout FROM run_mthp"
				  " WHERE kib = 64"), 51409);
	assert_int_equal(count_at(path, "SELECT anon_fault_alloc + swpout FROM run_mthp"
				  " WHERE kib = 2048"), 0);
	free(runs);
}

/* No API answers but the directory is held (a daemon starting, a harness run): nothing written. */
static void test_extend_refused_while_held(void **state)
{
	char mb[16], *argv[] = { "extend", "--until-decided", "--max-blocks", mb, "held", NULL };
	char err[ERR_MAX];
	int64_t mid, runs;
	int fd = -1;

	(void)state;
	sfmt(mb, sizeof(mb), "%u", SB + 1);
	mid = undecided_matrix("held");
	runs = count("SELECT COUNT(*) FROM runs WHERE matrix_id = ?", mid);
	if (lock_take(conf.results, "harnessd", &fd, err) < 0)
		fail_msg("%s", err);
	assert_int_equal(cmd_extend(&conf, 5, argv, 0), 1);
	assert_int_equal(count("SELECT COUNT(*) FROM runs WHERE matrix_id = ?", mid), runs);
	close(fd);
	assert_int_equal(cmd_extend(&conf, 5, argv, 0), 0);
	assert_true(count("SELECT COUNT(*) FROM runs WHERE matrix_id = ?", mid) > runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summaries_equal_v3_view),
		cmocka_unit_test(test_summary_written_at_finish),
		cmocka_unit_test(test_batch_all_or_nothing),
		cmocka_unit_test(test_counters_key_twice),
		cmocka_unit_test(test_schema3_refused),
		cmocka_unit_test(test_schema4_upgraded),
		cmocka_unit_test(test_schema13_upgraded),
		cmocka_unit_test(test_schema22_upgraded),
		cmocka_unit_test(test_schema23_calibrations),
		cmocka_unit_test(test_schema5_upgraded),
		cmocka_unit_test(test_extend_unknown_cells_only),
		cmocka_unit_test(test_extend_respects_max_blocks),
		cmocka_unit_test(test_extend_replaces_contended),
		cmocka_unit_test(test_extend_finished_matrix_is_active_again),
		cmocka_unit_test(test_extend_through_the_api),
		cmocka_unit_test(test_extend_refused_while_held),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
