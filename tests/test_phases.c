/* test_phases.c -- unit tests for what a run's overhead is measured and cut
 * with: the guest's boot clock placed on the host's (run/phases.c), the phases
 * stored and read back (store/store_phases.c), the initramfs kept once per arm
 * (vm/image.c) and the daemon's wake signal (daemon/wake.c). */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/proc.h"
#include "daemon/wake.h"
#include "run/phases.h"
#include "conf/conf.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_phases.h"
#include "vm/image.h"
#include "testlib.h"

#define HELLO_AT 1000000   /* the host's clock as the hello arrived, ms */

static struct proto_hello hello(uint64_t init, uint64_t ready, uint64_t at)
{
	struct proto_hello h = { .proto = PROTO_VERSION };

	h.up_init_ms = init;
	h.up_ready_ms = ready;
	h.up_hello_ms = at;
	return h;
}

/* Started at define = HELLO_AT - 4000: the guest's clock began 1200 ms later. */
static struct run_phases defined(void)
{
	struct run_phases p;

	memset(&p, 0, sizeof(p));
	p.at[PH_DEFINE] = HELLO_AT - 4000;
	p.at[PH_AGENT] = HELLO_AT;
	return p;
}

static void test_guest_clock_placed(void **state)
{
	struct run_phases p = defined();
	struct proto_hello h = hello(2500, 2600, 2800);

	(void)state;
	phases_from_hello(&p, &h, HELLO_AT);
	assert_int_equal(p.at[PH_FIRMWARE], HELLO_AT - 2800);
	assert_int_equal(p.at[PH_KERNEL], HELLO_AT - 300);
	assert_int_equal(p.at[PH_MODULES], HELLO_AT - 200);
}

/* A hostile or confused guest's clock is left out, never stored as a wrong phase. */
static void test_guest_clock_refused(void **state)
{
	static const uint64_t bad[][3] = {
		{ 0, 0, 0 },            /* not PID 1, or an older agent */
		{ 2600, 2500, 2800 },   /* ready before init */
		{ 2500, 2900, 2800 },   /* ready after hello */
		{ 2500, 2600, 5000 },   /* its clock started before the domain did */
		{ 2500, 2600, UINT64_C(1) << 40 },
	};
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run_phases p = defined();
		struct proto_hello h = hello(bad[i][0], bad[i][1], bad[i][2]);

		phases_from_hello(&p, &h, HELLO_AT);
		for (k = PH_FIRMWARE; k <= PH_MODULES; k++)
			assert_int_equal(p.at[k], 0);
	}
	{
		struct run_phases p = defined();
		struct proto_hello h = hello(2500, 2600, 2800);

		p.at[PH_DEFINE] = 0;   /* the domain never started: nothing to place it after */
		phases_from_hello(&p, &h, HELLO_AT);
		assert_int_equal(p.at[PH_FIRMWARE], 0);
	}
}

static void test_names(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < PH_COUNT; k++) {
		assert_int_equal(phases_find(phase_names[k]), k);
		assert_true(strlen(phase_names[k]) < sizeof(((struct phase_row *)0)->phase));
		assert_non_null(phase_descs[k]);
	}
	assert_int_equal(phases_find("boot"), -1);
}

struct rows {
	struct phase_row v[64];
	size_t n;
};

static int take(const struct phase_row *row, void *arg)
{
	struct rows *r = arg;

	if (r->n == 64)
		return -1;
	r->v[r->n++] = *row;
	return 0;
}

/* Written at a run's end, read back per matrix; a phase not reached is not a row. */
static void test_store_round_trip(void **state)
{
	static const struct fixture_arm arms[] = { { "a", "6.12", "y", NULL, NULL } };
	static const char *const cells[] = { "c" };
	char dir[PATH_MAX], err[ERR_MAX];
	struct conf conf;
	struct run_ref *runs;
	struct store *s;
	struct matrix *m;
	struct run_phases p;
	struct rows rows = { .n = 0 };
	int64_t mid;
	size_t n, i;
	int k;

	(void)state;
	fixture_dir(dir, "test-phases", &conf);
	s = fixture_store(&conf);
	m = fixture_matrix("ph", dir, arms, 1, cells, 1, 2);
	n = fixture_queue(s, m, &mid, &runs);
	assert_int_equal(n, 2);
	memset(&p, 0, sizeof(p));
	for (k = 0; k < PH_COUNT; k++)
		p.at[k] = k == PH_FIRMWARE ? 0 : 1000 + 10 * k;
	assert_int_equal(store_run_phases(s, runs[0].id, phase_names, p.at, PH_COUNT, err), 0);
	assert_int_equal(store_matrix_phases(s, mid, take, &rows, err), 0);
	assert_int_equal(rows.n, PH_COUNT - 1);
	for (i = 0; i < rows.n; i++) {
		k = phases_find(rows.v[i].phase);
		assert_true(k >= 0 && k != PH_FIRMWARE);
		assert_int_equal(rows.v[i].at_ms, 1000 + 10 * k);
		assert_int_equal(rows.v[i].run, runs[0].id);
		assert_string_equal(rows.v[i].status, "queued");
	}
	free(runs);
	free(m);
	store_close(s);
	assert_int_equal(fixture_rmdir(dir), 0);
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Once per base and modules: the same file for every run, a new one when either changes. */
static void test_initrd_cached(void **state)
{
	char dir[PATH_MAX], base[PATH_MAX], mods[PATH_MAX], cache[PATH_MAX];
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], text[64], err[ERR_MAX];
	struct conf conf;
	struct stat st1, st2;

	(void)state;
	fixture_dir(dir, "test-initrd", &conf);
	sfmt(base, sizeof(base), "%s/base.cpio", dir);
	sfmt(mods, sizeof(mods), "%s/modules.cpio", dir);
	sfmt(cache, sizeof(cache), "%s/cache", dir);
	write_text(base, "BASE.");
	write_text(mods, "MODS.");
	assert_int_equal(image_initrd_cached(cache, base, mods, a, err), 0);
	slurp(a, text, sizeof(text));
	assert_string_equal(text, "BASE.MODS.");
	assert_int_equal(stat(a, &st1), 0);
	assert_int_equal(image_initrd_cached(cache, base, mods, b, err), 0);
	assert_string_equal(a, b);
	assert_int_equal(stat(b, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);   /* not written again */
	/* a rebuilt base (another inode): another file, its own content */
	unlink(base);
	write_text(base, "BASE2.");
	assert_int_equal(image_initrd_cached(cache, base, mods, c, err), 0);
	assert_string_not_equal(a, c);
	slurp(c, text, sizeof(text));
	assert_string_equal(text, "BASE2.MODS.");
	/* no modules (a kernel with virtio built in) */
	assert_int_equal(image_initrd_cached(cache, base, "", c, err), 0);
	slurp(c, text, sizeof(text));
	assert_string_equal(text, "BASE2.");
	unlink(mods);
	assert_int_equal(image_initrd_cached(cache, base, mods, c, err), -1);
	assert_non_null(strstr(err, "modules.cpio"));
	assert_int_equal(fixture_rmdir(dir), 0);
}

static void *waker(void *arg)
{
	(void)arg;
	usleep(50000);
	wake_all();
	return NULL;
}

/* A wake ends a wait at once; one that came before the wait is not missed; else the timeout. */
static void test_wake(void **state)
{
	unsigned seen = wake_seen(), before;
	pthread_t th;
	int64_t t0;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, waker, NULL), 0);
	t0 = now_ms();
	wake_wait(&seen, 60000);
	assert_true(now_ms() - t0 < 30000);   /* woken, not timed out */
	pthread_join(th, NULL);
	before = seen;
	wake_all();
	wake_wait(&seen, 60000);                 /* returns at once: the wake came first */
	assert_int_equal(seen, before + 1);
	t0 = now_ms();
	wake_wait(&seen, 100);                   /* nothing comes: the timeout */
	assert_true(now_ms() - t0 >= 90);
	assert_int_equal(seen, before + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guest_clock_placed),
		cmocka_unit_test(test_guest_clock_refused),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_store_round_trip),
		cmocka_unit_test(test_initrd_cached),
		cmocka_unit_test(test_wake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
