/* test_saved.c -- the saved guests' cache: pruning least recently used first to
 * the cap, passing by a save in use (its lock) and one an unfinished matrix uses;
 * no link followed; a save that fails to restore twice remade; the key by content. */
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include "base/err.h"
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

/* A file of n bytes of c at cache/name; its path in path. */
static void blob(const char *name, size_t n, char c, char *path, size_t len)
{
	char *buf = malloc(n);
	int fd;

	assert_non_null(buf);
	memset(buf, c, n);
	snprintf(path, len, "%s/%s", cache, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	free(buf);
}

/* A guest's configuration of small files in the cache directory, the host's facts. */
static void fake_config(struct vm_config *cfg, struct vm_host_facts *f)
{
	static char kernel[128], initrd[128], disk[128];

	blob("vmlinuz", 4096, 'k', kernel, sizeof(kernel));
	blob("initrd", 4096, 'i', initrd, sizeof(initrd));
	blob("data.img", 4096, 'd', disk, sizeof(disk));
	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = "x86_64";
	cfg->accel = "tcg";
	cfg->memory_mib = 384;
	cfg->vcpus = 2;
	cfg->kernel = kernel;
	cfg->initrd = initrd;
	cfg->backing = disk;
	cfg->cmdline = "console=ttyS0";
	memset(f, 0, sizeof(*f));
	strcpy(f->qemu, "7.2.0");
	strcpy(f->libvirt, "9.0.0");
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
	char key[65], err[ERR_MAX], text[64] = "", path[PATH_MAX + 8];
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
	snprintf(path, sizeof(path), "%s/users", s.dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_string_equal(text, "5\n15\n1\n");
}

/* dir/name holding text, made anew. */
static void write_at(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int exists_at(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/*
 * saves/KEY a symlink to another directory holding a save's file names:
 * pruning (cap 0) leaves that directory's files alone, and saved_open does
 * not take it for a save, nor writes through it.
 */
static void test_no_link_followed(void **state)
{
	static const char *const names[] = { "state", "hello", "users", "disk.qcow2", "host" };
	const struct saved_users u = { none_live, NULL };
	char victim[128], key[65], link[PATH_MAX], err[ERR_MAX];
	struct vm_config cfg;
	struct vm_host_facts f;
	struct saved s;
	size_t i;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", cache);
	assert_int_equal(mkdir(victim, 0700), 0);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		write_at(victim, names[i], i >= 2 && i != 3 ? "" : "precious\n");
	key_of('a', key);
	snprintf(link, sizeof(link), "%s/%s", top, key);
	assert_int_equal(symlink(victim, link), 0);
	snprintf(link, sizeof(link), "%s/%s.lock", top, key);   /* as saved_open makes it */
	close(open(link, O_RDWR | O_CREAT, 0600));
	saved_prune(cache, NULL, NULL, 0, &u);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!exists_at(victim, names[i]))
			fail_msg("pruning removed %s/%s through the link saves/%.8s...", victim,
				 names[i], key);
	assert_int_equal(access(link, F_OK), 0);   /* no save: not pruned, its lock kept */

	/* the key's own path a link to a complete save elsewhere: not ready, not used */
	fake_config(&cfg, &f);
	assert_int_equal(saved_open(cache, NULL, "here", &cfg, &f, 0, 0, &s, err), 0);
	saved_close(&s);
	assert_int_equal(symlink(victim, s.dir), 0);
	assert_int_equal(saved_open(cache, NULL, "here", &cfg, &f, 0, 0, &s, err), 0);
	assert_false(s.ready);
	saved_drop(&s);
	saved_close(&s);
	for (i = 0; i < 3; i++)
		if (!exists_at(victim, names[i]))
			fail_msg("dropping the save at a link removed %s/%s", victim, names[i]);
}

/* A save's files made by hand in s's directory, its hello as given. */
static void fake_save(const struct saved *s, const char *hello)
{
	mkdir(s->dir, 0700);
	write_at(s->dir, "state", "state");
	write_at(s->dir, "disk.qcow2", "disk");
	write_at(s->dir, "hello", hello);
}

/* An agent's hello line as the harness keeps it. */
static void hello_line(char *line, size_t len)
{
	struct proto_msg *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->type = PROTO_HELLO;
	m->u.hello.proto = PROTO_VERSION;
	strcpy(m->u.hello.release, "6.12.99-test");
	strcpy(m->u.hello.arch, "x86_64");
	m->u.hello.page_size = 4096;
	m->u.hello.mem_total_kib = 412345;
	strcpy(m->u.hello.lru_gen_caps, "0x0007");
	strcpy(m->u.hello.fio, "fio-3.38");
	assert_true(proto_format(m, line, len) > 0);
	free(m);
}

/* Open the save of cfg for a run; its readiness; what saved_hello said (0 or -1). */
static int open_and_hello(const struct vm_config *cfg, const struct vm_host_facts *f,
			  struct saved *s, int *hello_rc)
{
	struct proto_msg *m = calloc(1, sizeof(*m));
	char err[ERR_MAX];
	int ready;

	assert_non_null(m);
	assert_int_equal(saved_open(cache, NULL, "here", cfg, f, 0, 0, s, err), 0);
	ready = s->ready;
	if (ready) {
		saved_share(s);
		*hello_rc = saved_hello(s, m, err);
	}
	saved_close(s);
	free(m);
	return ready;
}

/*
 * A save whose hello was cut: it fails to restore twice, then it is gone
 * and made again. A good one restored more often stays.
 */
static void test_failing_save_remade(void **state)
{
	struct vm_config cfg;
	struct vm_host_facts f;
	char line[4096];
	struct saved s;
	int i, rc = 0;

	(void)state;
	fake_config(&cfg, &f);
	assert_int_equal(open_and_hello(&cfg, &f, &s, &rc), 0);
	hello_line(line, sizeof(line));
	fake_save(&s, line);
	for (i = 0; i < 4; i++) {
		assert_int_equal(open_and_hello(&cfg, &f, &s, &rc), 1);
		assert_int_equal(rc, 0);
	}
	fake_save(&s, "{\"type\":\"hel");
	for (i = 0; i < 2; i++) {
		if (!open_and_hello(&cfg, &f, &s, &rc))
			fail_msg("a save with a cut hello dropped after %d failed restores", i);
		assert_int_equal(rc, -1);
	}
	if (open_and_hello(&cfg, &f, &s, &rc))
		fail_msg("a save that failed to restore twice is still ready");
	assert_false(exists_at(s.dir, "state"));
}

/*
 * The kernel rewritten in place with its size and mtime put back: another
 * key, not the old save.
 */
static void test_key_by_content(void **state)
{
	struct vm_config cfg;
	struct vm_host_facts f;
	char key[65], err[ERR_MAX];
	struct timespec ts[2];
	struct stat st;
	struct saved s;
	int fd;

	(void)state;
	fake_config(&cfg, &f);
	assert_int_equal(saved_open(cache, NULL, "here", &cfg, &f, 0, 0, &s, err), 0);
	memcpy(key, s.key, sizeof(key));
	saved_close(&s);
	assert_int_equal(stat(cfg.kernel, &st), 0);
	fd = open(cfg.kernel, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "Y", 1, 100), 1);
	close(fd);
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, cfg.kernel, ts, 0), 0);
	assert_int_equal(saved_open(cache, NULL, "here", &cfg, &f, 0, 0, &s, err), 0);
	saved_close(&s);
	if (!strcmp(key, s.key))
		fail_msg("a kernel rewritten in place, its mtime put back, keeps its save's key");
	/* unchanged, the same key again (from the cached sum) */
	assert_int_equal(saved_open(cache, NULL, "here", &cfg, &f, 0, 0, &s, err), 0);
	memcpy(key, s.key, sizeof(key));
	saved_close(&s);
	assert_int_equal(saved_open(cache, NULL, "here", &cfg, &f, 0, 0, &s, err), 0);
	saved_close(&s);
	assert_string_equal(key, s.key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prune_passes_by_used_and_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_after_the_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_keeps_unreadable_users, setup, teardown),
		cmocka_unit_test_setup_teardown(test_use_once_per_matrix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_link_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_save_remade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_by_content, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
