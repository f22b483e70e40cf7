/* testlib.c -- the fixtures behind testlib.h; each fails the running cmocka
 * test on error instead of returning one. */
#define _GNU_SOURCE
#include "analysis/summary.h"
#include "testlib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "spec/abba.h"
#include "daemon/api.h"
#include "conf/conf.h"
#include "base/err.h"
#include "common/fmt.h"
#include "spec/spec.h"
#include "store/store.h"

void sfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfmtbuf(buf, len, fmt, ap);
	va_end(ap);
	assert_int_equal(rc, 0);
}

void assert_err_has(const char *err, va_list ap)
{
	const char *want;

	while ((want = va_arg(ap, const char *)))
		if (!strstr(err, want))
			fail_msg("error '%s' lacks '%s'", err, want);
}

const char *jq(const char *s)
{
	static char *ring[8];
	static unsigned k;
	char *d = strdup(s), *p;

	assert_non_null(d);
	for (p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	free(ring[k % 8]);
	ring[k % 8] = d;
	k++;
	return d;
}

void write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

void mkdirs(const char *fmt, ...)
{
	char path[PATH_MAX], *p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(path));
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || access(path, F_OK) == 0);
}

void fake_bzimage(unsigned char img[FAKE_BZIMAGE_SIZE], const char *release)
{
	unsigned off = 0x400;
	char ver[256];

	sfmt(ver, sizeof(ver), "%s (x@y) #1 SMP", release);
	memset(img, 0, FAKE_BZIMAGE_SIZE);
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = (unsigned char)((off - 0x200) & 0xff);
	img[0x20f] = (unsigned char)((off - 0x200) >> 8);
	memcpy(img + off, ver, strlen(ver) + 1);
}

void write_bzimage(const char *path, const char *release)
{
	unsigned char img[FAKE_BZIMAGE_SIZE];

	fake_bzimage(img, release);
	write_bytes(path, img, sizeof(img));
}

/* ---- a scratch directory and what lives in it ---- */

void fixture_dir(char *dir, const char *prefix, struct conf *conf)
{
	char tmp[PATH_MAX];

	sfmt(tmp, sizeof(tmp), "/tmp/%s.XXXXXX", prefix);
	if (!mkdtemp(tmp) || !realpath(tmp, dir))
		fail_msg("mkdtemp '%s': %m", tmp);
	conf_defaults(conf, dir);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int fixture_rmdir(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fixture_kernel(const struct conf *conf, const char *alias, const char *release,
		    const char *modules)
{
	char path[PATH_MAX];

	mkdirs("%s/x86_64/kernel/%s", conf->images, alias);
	sfmt(path, sizeof(path), "%s/x86_64/kernel/%s/vmlinuz", conf->images, alias);
	write_bzimage(path, release);
	if (!modules)
		return;
	sfmt(path, sizeof(path), "%s/x86_64/kernel/%s/modules.cpio", conf->images, alias);
	write_text(path, modules);
}

struct api *fixture_api(const struct conf *conf)
{
	struct api *api = NULL;
	char err[ERR_MAX];

	if (api_start(conf, &api, err) < 0)
		fail_msg("api_start: %s", err);
	return api;
}

/* ---- a results database filled through the store API ---- */

void fixture_sql(const struct conf *conf, const char *sql)
{
	char path[PATH_MAX + 16], *sqlerr = NULL;
	sqlite3 *db;

	sfmt(path, sizeof(path), "%s/harness.db", conf->results);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &sqlerr) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlerr);
	sqlite3_close(db);
}

int64_t fixture_sql_int(const struct conf *conf, const char *sql)
{
	char path[PATH_MAX + 16];
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	sqlite3 *db;

	sfmt(path, sizeof(path), "%s/harness.db", conf->results);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

struct store *fixture_store(const struct conf *conf)
{
	char path[PATH_MAX + 16], err[ERR_MAX];
	struct store *s = NULL;

	mkdirs("%s", conf->results);
	sfmt(path, sizeof(path), "%s/harness.db", conf->results);
	if (store_open(path, &s, err) < 0)
		fail_msg("store_open: %s", err);
	return s;
}

static char fixture_spec[] = "{}";

static void fixture_cell(struct cell *c, const char *name)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->arch, sizeof(c->arch), "x86_64");
	c->job.memcg_mib = 64;
	c->job.duration_s = 11;
	c->job.interval_ms = 1000;
	c->job.ramp_s = 1;
	c->job.nfiles = 1;
	snprintf(c->job.files[0].name, sizeof(c->job.files[0].name), "d");
	c->job.files[0].mib = 8;
	c->job.nstreams = 1;
	c->job.streams[0].kind = KIND_RANDOM;
	snprintf(c->job.streams[0].name, sizeof(c->job.streams[0].name), "r");
	snprintf(c->job.streams[0].file, sizeof(c->job.streams[0].file), "d");
	c->job.streams[0].threads = 1;
}

struct matrix *fixture_matrix_new(const char *name, const char *dir, unsigned reps)
{
	struct matrix *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	sfmt(m->name, sizeof(m->name), "%s", name);
	sfmt(m->path, sizeof(m->path), "%s.json", name);
	sfmt(m->base_dir, sizeof(m->base_dir), "%s", dir);
	sfmt(m->hash, sizeof(m->hash), "%s", name);   /* one live matrix per spec */
	sfmt(m->archs[0], sizeof(m->archs[0]), "x86_64");
	m->n_archs = 1;
	m->canonical = fixture_spec;
	m->reps = reps;
	m->memory_mib = 512;
	m->vcpus = 2;
	return m;
}

struct matrix *fixture_matrix(const char *name, const char *dir, const struct fixture_arm *arms,
			      unsigned n_arms, const char *const *cells, unsigned n_cells,
			      unsigned reps)
{
	struct matrix *m = fixture_matrix_new(name, dir, reps);
	struct arm *a;
	unsigned i;

	m->n_arms = n_arms;
	m->n_cells = n_cells;
	for (i = 0; i < n_arms; i++) {
		a = &m->arms[i];
		snprintf(a->name, sizeof(a->name), "%s", arms[i].name);
		snprintf(a->kernel, sizeof(a->kernel), "%s", arms[i].kernel);
		snprintf(a->files[0].kernel, sizeof(a->files[0].kernel), "/images/%s/vmlinuz",
			 arms[i].kernel);
		snprintf(a->files[0].release, sizeof(a->files[0].release), "%s-test", arms[i].kernel);
		snprintf(a->lru_gen, sizeof(a->lru_gen), "%s", arms[i].lru_gen);
		snprintf(a->cmdline, sizeof(a->cmdline), "%s", arms[i].cmdline ? arms[i].cmdline : "");
		snprintf(a->tag, sizeof(a->tag), "%s", arms[i].tag ? arms[i].tag : "");
	}
	for (i = 0; i < n_cells; i++)
		fixture_cell(&m->cells[i], cells[i]);
	return m;
}

size_t fixture_queue(struct store *s, const struct matrix *m, int64_t *ret_mid,
		     struct run_ref **ret_runs)
{
	struct abba_slot *slots = calloc((size_t)m->n_arms * m->n_cells * m->reps, sizeof(*slots));
	char err[ERR_MAX] = "its spec hash was queued before";
	int added = 0;
	size_t n;

	assert_non_null(slots);
	n = abba_order(m->n_arms, m->n_cells, (unsigned)m->reps, slots);
	if (store_add_matrix(s, m, slots, n, ret_mid, &added, err) < 0 || !added ||
	    store_queued_runs(s, *ret_mid, ret_runs, &n, err) < 0)
		fail_msg("%s: %s", m->name, err);
	free(slots);
	return n;
}

static void fixture_event(struct store *s, int64_t run, const struct fixture_rates *r)
{
	struct proto_event e = { .t_ms = 6000, .stream = 0, .pass = 1 };
	char err[ERR_MAX];

	snprintf(e.kind, sizeof(e.kind), "pass_end");
	e.resident.n = 1;
	e.resident.v[0] = r->pass_resident;
	if (store_event(s, run, 0, &e, err) < 0)
		fail_msg("event: %s", err);
}

static void fixture_interval(struct store *s, int64_t run, uint64_t i,
			     const struct fixture_rates *r)
{
	struct proto_sample smp = { .seq = i, .t_ms = 1000 * (i + 1), .ramp = i == 0 };
	struct proto_stream_sample ss = { .seq = i, .active = 1 };
	char err[ERR_MAX];

	smp.refault_file = r->refault;
	smp.pgmajfault = r->majflt;
	smp.resident.n = r->no_files ? 0 : 1;
	smp.resident.v[0] = r->resident;
	ss.read_ops = r->ops;
	ss.misses = r->misses;
	ss.lat_p50_ns = r->p99_ns / 2;
	ss.lat_p99_ns = r->p99_ns;
	ss.lat_max_ns = r->p99_ns;
	if (store_sample(s, run, &smp, err) < 0 || store_stream_sample(s, run, &ss, err) < 0)
		fail_msg("run %lld sample %llu: %s", (long long)run, (unsigned long long)i, err);
}

void fixture_run(struct store *s, int64_t run, const struct fixture_rates *r)
{
	struct proto_hello h = { .proto = 1, .page_size = 4096, .mem_total_kib = 1 << 19 };
	struct proto_setup st = { .file_pages = { .n = 1, .v = { 2048 } } };
	struct proto_summary sum = { .samples = 11, .duration_ms = 11000 };
	char err[ERR_MAX];
	uint64_t i;

	snprintf(h.release, sizeof(h.release), "6.12.99-test");
	snprintf(st.lru_gen, sizeof(st.lru_gen), "0x0007");
	snprintf(st.residency, sizeof(st.residency), "mincore");
	snprintf(st.thp_enabled, sizeof(st.thp_enabled), "never");
	snprintf(st.thp_defrag, sizeof(st.thp_defrag), "madvise");
	snprintf(st.mthp, sizeof(st.mthp), "16K:never 64K:never 2048K:inherit");
	st.swappiness = 60;
	st.file_pages.n = r->no_files ? 0 : 1;
	if (store_run_booting(s, run, "tcg", "host", "x86_64", "", err) < 0 ||
	    store_run_hello(s, run, &h, 1000, err) < 0 || store_run_setup(s, run, &st, err) < 0)
		fail_msg("run %lld: %s", (long long)run, err);
	for (i = 0; i <= 10; i++)
		fixture_interval(s, run, i, r);
	if (r->pass_resident)
		fixture_event(s, run, r);
	if (summary_finish_run(s, run, "done", NULL, &sum, err) < 0)
		fail_msg("run %lld finish: %s", (long long)run, err);
}
