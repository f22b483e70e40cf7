/* test_lock.c -- the results directory's lock (harness/lock.c) on a real
 * file: one holder at a time, a refusal of one line naming the directory and
 * the holder, no lock inherited across exec, no symlink followed. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "spec/conf.h"
#include "base/err.h"
#include "base/lock.h"
#include "testlib.h"

static char dir[PATH_MAX];
static char path[PATH_MAX + 32];

static int setup(void **state)
{
	struct conf c;

	(void)state;
	fixture_dir(dir, "test_lock", &c);
	sfmt(path, sizeof(path), "%s/" LOCK_FILE, dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fixture_rmdir(dir);
}

/* A file's text. */
static void read_text(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void test_one_holder(void **state)
{
	char err[ERR_MAX] = "", text[64], want[64];
	int fd = -1, fd2 = -1;

	(void)state;
	if (lock_take(dir, "harnessd", &fd, err) < 0)
		fail_msg("%s", err);
	sfmt(want, sizeof(want), "%ld harnessd\n", (long)getpid());
	read_text(path, text, sizeof(text));
	assert_string_equal(text, want);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* a second open file: refused, one line naming the directory and the holder */
	assert_int_equal(lock_take(dir, "harness run", &fd2, err), -1);
	assert_int_equal(fd2, -1);
	sfmt(want, sizeof(want), "harnessd (pid %ld holds", (long)getpid());
	if (!strstr(err, dir) || !strstr(err, want) || strchr(err, '\n'))
		fail_msg("refusal: '%s'", err);
	read_text(path, text, sizeof(text));   /* and the holder's line is left as it was */
	assert_non_null(strstr(text, " harnessd\n"));
	/* let go: the next one gets it */
	close(fd);
	if (lock_take(dir, "harness run", &fd2, err) < 0)
		fail_msg("%s", err);
	read_text(path, text, sizeof(text));
	assert_non_null(strstr(text, " harness run\n"));
	close(fd2);
}

/* A program exec'd by the holder (QEMU, mkfs) does not keep the lock. */
static void test_not_inherited(void **state)
{
	char err[ERR_MAX], c;
	int fd = -1, status, exec_done[2];
	pid_t pid;

	(void)state;
	assert_int_equal(lock_take(dir, "harnessd", &fd, err), 0);
	/* the pipe's write end closes at the child's exec: EOF says it has exec'd */
	assert_int_equal(pipe2(exec_done, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "1", (char *)NULL);
		_exit(127);
	}
	close(exec_done[1]);
	assert_int_equal(read(exec_done[0], &c, 1), 0);
	close(exec_done[0]);
	close(fd);
	/* the holder is gone while its child runs: the lock is free */
	if (lock_take(dir, "harness run", &fd, err) < 0)
		fail_msg("the exec'd child kept the lock: %s", err);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* What the file says is not trusted: a holder without a readable pid is named as unknown. */
static void test_unreadable_holder(void **state)
{
	char err[ERR_MAX];
	int fd = -1, fd2 = -1;

	(void)state;
	assert_int_equal(lock_take(dir, "harnessd", &fd, err), 0);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "12 \033[2Jx\n", 9, 0), 9);
	assert_int_equal(lock_take(dir, "harness run", &fd2, err), -1);
	assert_non_null(strstr(err, "pid unknown"));
	assert_null(strchr(err, '\033'));
	close(fd);
}

/* A symlink as the lock file is refused, and what it points at left alone. */
static void test_symlink_refused(void **state)
{
	char err[ERR_MAX], target[PATH_MAX + 16], text[64];
	int fd = -1;

	(void)state;
	sfmt(target, sizeof(target), "%s/precious", dir);
	write_text(target, "keep me\n");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(lock_take(dir, "harnessd", &fd, err), -1);
	assert_non_null(strstr(err, path));
	assert_int_equal(fd, -1);
	read_text(target, text, sizeof(text));
	assert_string_equal(text, "keep me\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_holder),
		cmocka_unit_test(test_not_inherited),
		cmocka_unit_test(test_unreadable_holder),
		cmocka_unit_test(test_symlink_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
