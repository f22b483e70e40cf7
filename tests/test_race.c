/* test_race.c -- what harnessd calls from several threads at once (API
 * connections and scheduler slots), called so here; built with ThreadSanitizer,
 * which fails the binary on any data race it sees (tests/run.sh). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "conf/conf.h"
#include "spec/spec.h"
#include "store/store.h"
#include "testlib.h"
#include "vm/image.h"
#include "vm/vm.h"

#define THREADS 4
#define ROUNDS  3

static char dir[PATH_MAX], cache[PATH_MAX];
static struct conf conf;

/* Two workloads, so each load checks two cells' job lines. */
static const char matrix[] =
	"{'name':'race','reps':2,'arms':[{'name':'a','kernel':'6.12','lru_gen':['y','n']}],"
	"'workloads':[{'name':'w1','memcg_mib':64,'duration_s':5,'files':[{'name':'d','mib':8}],"
	"'streams':[{'kind':'random','file':'d','access':'pread'}]},"
	"{'name':'w2','memcg_mib':64,'duration_s':5,'files':[{'name':'d','mib':8}],"
	"'streams':[{'kind':'scan','file':'d'}]}]}";

static int setup(void **state)
{
	(void)state;
	fixture_dir(dir, "test_race", &conf);
	fixture_kernel(&conf, "6.12", "6.12.99-test", NULL);
	mkdirs("%s", conf.results);
	sfmt(cache, sizeof(cache), "%s/cache", conf.results);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fixture_rmdir(dir);
}

/* Start fn on THREADS threads with arg[i], join them; each returns NULL or a message. */
static void run_threads(void *(*fn)(void *), void *args, size_t arg_size)
{
	pthread_t t[THREADS];
	void *ret;
	int i;

	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, fn, (char *)args + i * arg_size), 0);
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		if (ret)
			fail_msg("thread %d: %s", i, (char *)ret);
	}
}

struct load_arg {
	const char *text;
	char hash[17], err[ERR_MAX];
	unsigned runs;
};

static void *load_main(void *p)
{
	struct load_arg *a = p;
	struct matrix *m;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return "out of memory";
		if (spec_load_text(m, a->text, "race.json", dir, &conf, a->err) < 0) {
			free(m);
			return a->err;
		}
		memcpy(a->hash, m->hash, sizeof(a->hash));
		a->runs = spec_run_count(m);
		spec_release(m);
		free(m);
	}
	return NULL;
}

/* spec_load_text (parse, then resolve), as API connections parse submits, the
 * resolver resolves them and every slot loads its run's matrix, at once. */
static void test_spec_threads(void **state)
{
	struct load_arg a[THREADS];
	int i;

	(void)state;
	memset(a, 0, sizeof(a));
	for (i = 0; i < THREADS; i++)
		a[i].text = jq(matrix);
	run_threads(load_main, a, sizeof(a[0]));
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(a[i].runs, 2 * 2 * 2);
		assert_string_equal(a[i].hash, a[0].hash);
	}
}

struct disk_arg {
	struct proto_job job;
	char path[PATH_MAX], err[ERR_MAX];
};

static void *disk_main(void *p)
{
	struct disk_arg *a = p;

	return image_data_disk(cache, &a->job, a->path, a->err) < 0 ? a->err : NULL;
}

/* Slots building data disks at once: two jobs, each wanted by two slots. */
static void test_data_disk_threads(void **state)
{
	struct disk_arg a[THREADS];
	struct stat st;
	int i;

	(void)state;
	memset(a, 0, sizeof(a));
	for (i = 0; i < THREADS; i++) {
		a[i].job.nfiles = 1;
		snprintf(a[i].job.files[0].name, sizeof(a[i].job.files[0].name), "f%d", i % 2);
		a[i].job.files[0].mib = 2;
	}
	run_threads(disk_main, a, sizeof(a[0]));
	for (i = 0; i < THREADS; i++) {
		assert_string_equal(a[i].path, a[i % 2].path);
		assert_int_equal(stat(a[i].path, &st), 0);
		assert_true(st.st_size >= 2 << 20);
	}
	assert_string_not_equal(a[0].path, a[1].path);
}

struct finish_arg {
	struct store *s;
	char err[ERR_MAX];
};

static void *finish_main(void *p)
{
	struct finish_arg *a = p;
	int64_t ids[8];
	size_t n;
	int r;

	for (r = 0; r < 10 * ROUNDS; r++)
		if (store_finish_matrices(a->s, ids, 8, &n, a->err) < 0)
			return a->err;
	return NULL;
}

/* Each slot asks its own connection which matrices are finished. */
static void test_finish_threads(void **state)
{
	struct finish_arg a[THREADS];
	int i;

	(void)state;
	store_close(fixture_store(&conf));      /* the schema, once */
	memset(a, 0, sizeof(a));
	for (i = 0; i < THREADS; i++)
		a[i].s = fixture_store(&conf);
	run_threads(finish_main, a, sizeof(a[0]));
	for (i = 0; i < THREADS; i++)
		store_close(a[i].s);
}

static void *arch_main(void *p)
{
	snprintf(p, 65, "%s", vm_host_arch());
	return NULL;
}

static void test_host_arch_threads(void **state)
{
	char arch[THREADS][65];
	struct utsname u;
	int i;

	(void)state;
	assert_int_equal(uname(&u), 0);
	run_threads(arch_main, arch, sizeof(arch[0]));
	for (i = 0; i < THREADS; i++)
		assert_string_equal(arch[i], u.machine);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_threads),
		cmocka_unit_test(test_data_disk_threads),
		cmocka_unit_test(test_finish_threads),
		cmocka_unit_test(test_host_arch_threads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
