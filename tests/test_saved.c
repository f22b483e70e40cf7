/* test_saved.c -- the saved guests' cache: pruning least recently used first to
 * the cap, passing by a save in use (its lock) and one an unfinished matrix uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include "run/saved.h"

static char cache[64], top[128];

/* A key of 64 hex digits, all c. */
static void key_of(char c, char key[65])
{
	memset(key, c, 64);
	key[64] = '\0';
}

/* top/KEY/name holding n bytes of non-zero data (they take blocks on disk). */
static void put(char k, const char *name, size_t n)
{
	char key[65], path[256];
	char *buf = malloc(n ? n : 1);
	int fd;

	key_of(k, key);
	snprintf(path, sizeof(path), "%s/%s", top, key);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s", top, key, name);
	memset(buf, 'x', n ? n : 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	fsync(fd);
	close(fd);
	free(buf);
}

/* A complete save here: KiB of state and disk, its last use at time used. */
static void save_here(char k, size_t kib, time_t used)
{
	char key[65], path[256];
	struct timespec ts[2] = { { used, 0 }, { used, 0 } };

	put(k, "state", kib * 1024 - 64 * 1024);
	put(k, "disk.qcow2", 64 * 1024);
	put(k, "hello", 40);
	key_of(k, key);
	snprintf(path, sizeof(path), "%s/%s/hello", top, key);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	snprintf(path, sizeof(path), "%s/%s.lock", top, key);   /* saved_open makes it */
	close(open(path, O_RDWR | O_CREAT, 0600));
}

/* top/KEY/name holding text. */
static void put_text(char k, const char *name, const char *text)
{
	char key[65], path[256];
	FILE *f;

	key_of(k, key);
	snprintf(path, sizeof(path), "%s/%s/%s", top, key, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int there(char k)
{
	char key[65], path[256];

	key_of(k, key);
	snprintf(path, sizeof(path), "%s/%s", top, key);
	return access(path, F_OK) == 0;
}

/* The save's lock, taken shared as a run restoring it holds it; the fd. */
static int hold(char k)
{
	char key[65], path[256];
	int fd;

	key_of(k, key);
	snprintf(path, sizeof(path), "%s/%s.lock", top, key);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_SH), 0);
	return fd;
}

static int live_7(void *arg, int64_t mid)
{
	(void)arg;
	return mid == 7;
}

static int none_live(void *arg, int64_t mid)
{
	(void)arg;
	(void)mid;
	return 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(cache, sizeof(cache), "/tmp/test_saved.XXXXXX");
	assert_non_null(mkdtemp(cache));
	snprintf(top, sizeof(top), "%s/" SAVED_DIR, cache);
	assert_int_equal(mkdir(top, 0700), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", cache);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * Four saves here of 400 KiB, a cap of 900 KiB: the oldest (a) goes, b is
 * passed by (matrix 7, which used it, has runs to do), c too (a run holds
 * it), and d, the newest, goes to reach the cap. Another host's save,
 * older than all (e), is neither counted nor touched: its bytes are there.
 */
static void test_prune_passes_by_used_and_held(void **state)
{
	const struct saved_users u = { live_7, NULL };
	int fd;

	(void)state;
	save_here('a', 400, 1000);
	save_here('b', 400, 2000);
	put_text('b', "users", "3\n7\n");
	save_here('c', 400, 3000);
	save_here('d', 400, 4000);
	put('e', "hello", 40);          /* another host's record */
	put_text('e', "host", "there 999999999\n");
	fd = hold('c');
	assert_int_equal(saved_prune(cache, NULL, NULL, 900 << 10, &u), 2);
	assert_false(there('a'));
	assert_true(there('b'));
	assert_true(there('c'));
	assert_false(there('d'));
	assert_true(there('e'));
	close(fd);
}

/* Once the queue is done with matrix 7 (and c is let go), b and c go in turn. */
static void test_prune_after_the_queue(void **state)
{
	const struct saved_users u = { none_live, NULL };

	(void)state;
	save_here('b', 400, 2000);
	put_text('b', "users", "7\n");
	save_here('c', 400, 3000);
	assert_int_equal(saved_prune(cache, NULL, NULL, 500 << 10, &u), 1);
	assert_false(there('b'));
	assert_true(there('c'));
}

/* A users file not as the harness writes it: the save is kept, as if in use. */
static void test_prune_keeps_unreadable_users(void **state)
{
	const struct saved_users u = { none_live, NULL };

	(void)state;
	save_here('f', 400, 1000);
	put_text('f', "users", "7x\n");
	assert_int_equal(saved_prune(cache, NULL, NULL, 0, &u), 0);
	assert_true(there('f'));
}

/* saved_use names each matrix once, however many of its runs use the save. */
static void test_use_once_per_matrix(void **state)
{
	struct saved s;
	char key[65], err[256], text[64] = "";
	FILE *f;
	size_t n;

	(void)state;
	memset(&s, 0, sizeof(s));
	save_here('g', 100, 1000);
	key_of('g', key);
	snprintf(s.dir, sizeof(s.dir), "%s/%s", top, key);
	assert_int_equal(saved_use(&s, 5, err), 0);
	assert_int_equal(saved_use(&s, 15, err), 0);
	assert_int_equal(saved_use(&s, 5, err), 0);
	assert_int_equal(saved_use(&s, 1, err), 0);
	assert_int_equal(saved_use(&s, 15, err), 0);
	snprintf(err, sizeof(err), "%s/users", s.dir);
	f = fopen(err, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_string_equal(text, "5\n15\n1\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prune_passes_by_used_and_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_after_the_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_keeps_unreadable_users, setup, teardown),
		cmocka_unit_test_setup_teardown(test_use_once_per_matrix, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
