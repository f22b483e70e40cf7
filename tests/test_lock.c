/* test_lock.c -- the results directory's lock (base/lock.c) on a real file: one
 * holder at a time, named in a refusal, not inherited, no symlink followed; and
 * the build gate across processes: compiles and measured blocks wait for each other. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"
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

/* ---- the build gate, across processes ---- */

/* tell for a child: the line down the pipe (arg: its write end). */
static void tell_pipe(void *arg, const char *line)
{
	int fd = *(int *)arg;

	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0)
		_exit(3);
}

/*
 * A child process that takes the gate as `as` (program who), saying through
 * the pipe what tell says and then "got"; it then lets go and exits 0, or,
 * with crash, exits holding it. *ret_rd: the pipe's read end.
 */
static pid_t child_take(enum buildlock_as as, const char *who, int crash, int *ret_rd)
{
	struct buildlock l;
	char err[ERR_MAX];
	int p[2];
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (buildlock_open(&l, dir, who, err) < 0 ||
		    buildlock_take(&l, as, tell_pipe, &p[1], NULL, err) < 0)
			_exit(2);
		tell_pipe(&p[1], "got");
		if (crash)
			_exit(0);
		buildlock_close(&l);
		_exit(0);
	}
	close(p[1]);
	*ret_rd = p[0];
	return pid;
}

/* A line from fd within ms (no newline): 1, or 0 if none came (EOF or time). */
static int line_within(int fd, char *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	char c;

	while (n + 1 < len) {
		if (poll(&pfd, 1, ms) != 1 || read(fd, &c, 1) != 1)
			return 0;
		if (c == '\n')
			break;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return 1;
}

static void child_done(pid_t pid, int rd)
{
	int status;

	close(rd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A tell that records its line and stops the wait (arg: struct told). */
struct told {
	char line[ERR_MAX + PATH_MAX];
	atomic_int stop;
};

static void tell_stop(void *arg, const char *line)
{
	struct told *t = arg;

	sfmt(t->line, sizeof(t->line), "%s", line);
	atomic_store(&t->stop, 1);
}

/* A compile in another process waits while a block is measured here, says so,
 * keeps new blocks out meanwhile, and starts once the block ends. */
static void test_compile_waits_for_block(void **state)
{
	struct buildlock block, late;
	struct told t = { "", 0 };
	char err[ERR_MAX], line[ERR_MAX + PATH_MAX], want[64];
	int rd;
	pid_t pid;

	(void)state;
	assert_int_equal(buildlock_open(&block, dir, "harnessd", err), 0);
	assert_int_equal(buildlock_take(&block, BUILDLOCK_MEASURING, NULL, NULL, NULL, err), 0);
	pid = child_take(BUILDLOCK_BUILDING, "harness check", 0, &rd);
	assert_true(line_within(rd, line, sizeof(line), 5000));
	if (!strstr(line, "build gate: measured blocks are in flight (") ||
	    !strstr(line, "/" BUILDLOCK_FILE ")") || !strstr(line, "the compile waits"))
		fail_msg("the compile said '%s'", line);
	assert_false(line_within(rd, line, sizeof(line), 300));   /* still waiting */
	/* no new block while it waits: told who holds the turn, and stopped */
	assert_int_equal(buildlock_open(&late, dir, "harnessd", err), 0);
	assert_int_equal(buildlock_take(&late, BUILDLOCK_MEASURING, tell_stop, &t, &t.stop, err),
			 -1);
	sfmt(want, sizeof(want), "(pid %ld, harness check)", (long)pid);
	if (!strstr(t.line, "a kernel compile holds") || !strstr(t.line, want))
		fail_msg("the late block was told '%s'", t.line);
	assert_int_equal(late.held, 0);
	buildlock_close(&late);
	/* the block ends: the compile goes */
	buildlock_drop(&block);
	assert_true(line_within(rd, line, sizeof(line), 5000));
	assert_string_equal(line, "got");
	child_done(pid, rd);
	buildlock_close(&block);
}

/* A block in another process waits while a compile holds the gate here. */
static void test_block_waits_for_compile(void **state)
{
	struct buildlock build;
	char err[ERR_MAX], line[ERR_MAX + PATH_MAX], want[64];
	int rd;
	pid_t pid;

	(void)state;
	assert_int_equal(buildlock_open(&build, dir, "harness run", err), 0);
	assert_int_equal(buildlock_take(&build, BUILDLOCK_BUILDING, NULL, NULL, NULL, err), 0);
	assert_true(fcntl(build.lock, F_GETFD) & FD_CLOEXEC);
	pid = child_take(BUILDLOCK_MEASURING, "harnessd", 0, &rd);
	assert_true(line_within(rd, line, sizeof(line), 5000));
	sfmt(want, sizeof(want), "(pid %ld, harness run); the block waits", (long)getpid());
	if (!strstr(line, "build gate: a kernel compile holds ") || !strstr(line, want))
		fail_msg("the block said '%s'", line);
	assert_false(line_within(rd, line, sizeof(line), 300));
	buildlock_drop(&build);
	assert_true(line_within(rd, line, sizeof(line), 5000));
	assert_string_equal(line, "got");
	child_done(pid, rd);
	buildlock_close(&build);
}

/* Blocks share the gate: here twice and in another process, none waits. */
static void test_blocks_share(void **state)
{
	struct buildlock a, b;
	char err[ERR_MAX], line[ERR_MAX + PATH_MAX];
	int rd;
	pid_t pid;

	(void)state;
	assert_int_equal(buildlock_open(&a, dir, "harnessd", err), 0);
	assert_int_equal(buildlock_open(&b, dir, "harnessd", err), 0);
	assert_int_equal(buildlock_take(&a, BUILDLOCK_MEASURING, NULL, NULL, NULL, err), 0);
	assert_int_equal(buildlock_take(&b, BUILDLOCK_MEASURING, NULL, NULL, NULL, err), 0);
	pid = child_take(BUILDLOCK_MEASURING, "harness run", 0, &rd);
	assert_true(line_within(rd, line, sizeof(line), 5000));
	assert_string_equal(line, "got");   /* no waiting line before it */
	child_done(pid, rd);
	buildlock_close(&a);
	buildlock_close(&b);
}

/* A compile that dies holding the gate lets go with its process. */
static void test_dead_compile_lets_go(void **state)
{
	struct buildlock l;
	struct told t = { "", 0 };
	char err[ERR_MAX], line[64];
	int rd;
	pid_t pid;

	(void)state;
	pid = child_take(BUILDLOCK_BUILDING, "harness check", 1, &rd);
	assert_true(line_within(rd, line, sizeof(line), 5000));
	assert_string_equal(line, "got");
	child_done(pid, rd);
	assert_int_equal(buildlock_open(&l, dir, "harnessd", err), 0);
	if (buildlock_take(&l, BUILDLOCK_MEASURING, tell_stop, &t, &t.stop, err) < 0)
		fail_msg("the dead compile still holds the gate: %s", t.line);
	buildlock_close(&l);
}

/* The gate's files: 0600, never opened through a symlink. */
static void test_gate_files(void **state)
{
	struct buildlock l;
	char err[ERR_MAX], target[PATH_MAX + 16], file[PATH_MAX + 16], text[64];
	struct stat st;

	(void)state;
	sfmt(file, sizeof(file), "%s/" BUILDLOCK_TURN, dir);
	unlink(file);
	assert_int_equal(buildlock_open(&l, dir, "harnessd", err), 0);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	buildlock_close(&l);
	sfmt(target, sizeof(target), "%s/precious2", dir);
	write_text(target, "keep me\n");
	assert_int_equal(unlink(file), 0);
	assert_int_equal(symlink(target, file), 0);
	assert_int_equal(buildlock_open(&l, dir, "harness check", err), -1);
	if (!strstr(err, file) || !strstr(err, "is a symlink: refused"))
		fail_msg("'%s'", err);
	assert_int_equal(l.lock, -1);
	assert_int_equal(l.turn, -1);
	read_text(target, text, sizeof(text));
	assert_string_equal(text, "keep me\n");
	assert_int_equal(unlink(file), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_holder),
		cmocka_unit_test(test_not_inherited),
		cmocka_unit_test(test_unreadable_holder),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_compile_waits_for_block),
		cmocka_unit_test(test_block_waits_for_compile),
		cmocka_unit_test(test_blocks_share),
		cmocka_unit_test(test_dead_compile_lets_go),
		cmocka_unit_test(test_gate_files),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
