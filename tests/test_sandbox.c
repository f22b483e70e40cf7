/* test_sandbox.c -- unit tests for harness/sandbox.c with real programs: the
 * guest's static fio and the host's static busybox, as root and as nobody. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <grp.h>
#include <sys/wait.h>

#include "base/err.h"
#include "base/proc.h"
#include "base/sandbox.h"

#define FIO_BIN     "images/out/x86_64/fio"   /* from `make images`, run from the repo root */
#define BUSYBOX_BIN "/bin/busybox"            /* Debian's busybox-static */
#define SECRET      "/etc/passwd"

struct run {
	struct sandbox_result res;
	char out[8192];
	char err[ERR_MAX];
	int r;
};

/* ARGV (argv[0] "fio" or "busybox") in the sandbox with that binary and JOB as job.fio. */
static void run_in(struct run *run, char **argv, const char *job, const struct sandbox_limits *lim)
{
	const struct sandbox_limits def = SANDBOX_LIMITS_DEFAULT;
	struct sandbox_file files[] = {
		{ .name = argv[0], .src = strcmp(argv[0], "fio") ? BUSYBOX_BIN : FIO_BIN, .exec = 1 },
		{ .name = "job.fio", .data = job, .len = job ? strlen(job) : 0 },
	};

	memset(run, 0, sizeof(*run));
	run->r = sandbox_run(argv, files, job ? 2 : 1, lim ? lim : &def, run->out,
			     sizeof(run->out), &run->res, run->err);
}

static void need(const char *bin)
{
	if (access(bin, X_OK) != 0) {
		print_message("skipping: no %s\n", bin);
		skip();
	}
}

/* The first line of the host file the sandbox must not show. */
static void secret_line(char *buf, size_t len)
{
	FILE *f = fopen(SECRET, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	buf[strcspn(buf, "\n")] = '\0';
	assert_true(strlen(buf) > 4);
	fclose(f);
}

/* fio reading a host file as its job file: outside the sandbox it prints the
 * file's first line back; inside there is no such file. */
static void test_fio_reads_no_host_file(void **state)
{
	char line[512], log[] = "/tmp/test_sandbox.XXXXXX", leak[4096], err[ERR_MAX];
	char *argv[] = { "fio", "--parse-only", SECRET, NULL };
	char *bare[] = { FIO_BIN, "--parse-only", SECRET, NULL };
	struct run run;
	int fd, status;
	ssize_t n;

	(void)state;
	need(FIO_BIN);
	secret_line(line, sizeof(line));
	fd = mkstemp(log);
	assert_true(fd >= 0);
	assert_int_equal(proc_run(bare, log, 10000, &status, err), 0);
	n = pread(fd, leak, sizeof(leak) - 1, 0);
	leak[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(log);
	assert_non_null(strstr(leak, line));          /* what the sandbox is for */

	run_in(&run, argv, NULL, NULL);
	assert_int_equal(run.r, 0);
	assert_int_equal(run.res.code, 1);
	assert_string_equal(run.out, "fio: unable to open '" SECRET "' job file\n");
	assert_null(strstr(run.out, line));
}

/* A job file that includes a host file, given straight to the sandbox (the
 * harness's rules refuse it before that). */
static void test_fio_include_reads_nothing(void **state)
{
	char *argv[] = { "fio", "--parse-only", "/job.fio", NULL };
	char line[512];
	struct run run;

	(void)state;
	need(FIO_BIN);
	secret_line(line, sizeof(line));
	run_in(&run, argv, "[g]\nrw=read\ninclude " SECRET "\n", NULL);
	assert_int_equal(run.r, 0);
	/* fio then tries the name beside the job file, and exits 0 all the same */
	assert_non_null(strstr(run.out, "fio: unable to open '/" SECRET "' job file"));
	assert_non_null(strstr(run.out, "Error 1 while parsing include file"));
	assert_null(strstr(run.out, line));
	assert_null(strstr(run.out, "root:"));
	/* the job file itself is there */
	run_in(&run, (char *[]){ "fio", "--parse-only", "/job.fio", NULL }, "[g]\nrw=read\n", NULL);
	assert_int_equal(run.res.code, 0);
}

/* What the program sees: uid 65534, only its files, a read-only root, no
 * network but lo, no other process, no forks. */
static const struct expect {
	char *argv[5];
	int code;            /* its exit code */
	const char *out;     /* what it prints: all of it if exact, else a part */
	int exact;
} jail_expects[] = {
	{ { "busybox", "id" }, 0, "uid=65534 gid=65534\n", 1 },
	{ { "busybox", "ls", "-a", "/" }, 0, ".\n..\nbusybox\njob.fio\n", 1 },
	{ { "busybox", "cat", SECRET }, 1, "can't open '" SECRET "': No such file or directory", 0 },
	{ { "busybox", "touch", "/new" }, 1, "Read-only file system", 0 },
	{ { "busybox", "sh", "-c", "busybox true; busybox true" }, 2, "can't fork", 0 },
	{ { "busybox", "ip", "-o", "link" }, 0, "1: lo: <LOOPBACK>", 0 },
	{ { "busybox", "kill", "-0", "1" }, 0, "", 0 },           /* pid 1 is itself */
	{ { "busybox", "kill", "-0", "2" }, 1, "", 0 },
};

/* Each expectation in the sandbox; 0, or -1 with the first one that failed in msg. */
static int jail_problem(char *msg, size_t len)
{
	struct run run;

	for (size_t i = 0; i < ARRAY_SIZE(jail_expects); i++) {
		const struct expect *e = &jail_expects[i];

		run_in(&run, (char **)e->argv, "x", NULL);
		if (run.r == 0 && run.res.code == e->code &&
		    (e->exact ? !strcmp(run.out, e->out) : strstr(run.out, e->out) != NULL) &&
		    (strcmp(e->argv[1], "ip") || !strstr(run.out, "2: ")))
			continue;
		snprintf(msg, len, "busybox %s %s: %s, exit %d, said '%s'", e->argv[1],
			 e->argv[2] ? e->argv[2] : "", run.r ? run.err : "ran", run.res.code, run.out);
		return -1;
	}
	return 0;
}

static void test_jail(void **state)
{
	char msg[ERR_MAX];

	(void)state;
	need(BUSYBOX_BIN);
	if (jail_problem(msg, sizeof(msg)) < 0)
		fail_msg("%s", msg);
}

/* The harness runs with umask 077 (base/results.c): the jail's files must still
 * be readable and executable by uid 65534 inside it. */
static void test_jail_umask(void **state)
{
	mode_t old = umask(077);
	char msg[ERR_MAX];
	int r;

	(void)state;
	need(BUSYBOX_BIN);
	r = jail_problem(msg, sizeof(msg));
	umask(old);
	if (r < 0)
		fail_msg("under umask 077: %s", msg);
}

/* Not root (the daemon may run as its own user): a user namespace does it.
 * A forked child becomes uid and gid 65534 and reports back through a pipe. */
static void test_jail_not_root(void **state)
{
	char msg[ERR_MAX] = "";
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	(void)state;
	need(BUSYBOX_BIN);
	if (geteuid() != 0) {
		if (jail_problem(msg, sizeof(msg)) < 0)   /* this test already runs as a user */
			fail_msg("%s", msg);
		return;
	}
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			snprintf(msg, sizeof(msg), "cannot become nobody: %s", strerror(errno));
		else
			jail_problem(msg, sizeof(msg));
		_exit(write(fds[1], msg, strlen(msg)) < 0 || msg[0]);
	}
	close(fds[1]);
	n = read(fds[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("as nobody: %s", msg);
}

/* A CPU-burning program is killed at the CPU limit, not at the deadline. */
static void test_cpu_limit(void **state)
{
	struct sandbox_limits lim = SANDBOX_LIMITS_DEFAULT;
	struct run run;

	(void)state;
	need(FIO_BIN);
	lim.cpu_s = 1;
	lim.timeout_ms = 120000;
	run_in(&run, (char *[]){ "fio", "--crctest", NULL }, NULL, &lim);   /* 10 s of CPU */
	assert_int_equal(run.r, 0);
	assert_int_equal(run.res.signal, SIGKILL);
	assert_int_equal(run.res.timed_out, 0);
	lim.timeout_ms = 300;
	run_in(&run, (char *[]){ "busybox", "sleep", "30", NULL }, NULL, &lim);
	assert_int_equal(run.res.timed_out, 1);
}

/* Output stops at out_kib (pid 1 ignores SIGXFSZ: its writes fail); memory
 * beyond as_mib fails. */
static void test_output_and_memory_limits(void **state)
{
	struct sandbox_limits lim = SANDBOX_LIMITS_DEFAULT;
	struct run run;

	(void)state;
	need(FIO_BIN);
	lim.out_kib = 1;
	run_in(&run, (char *[]){ "fio", "--cmdhelp=all", NULL }, NULL, &lim);   /* 15 KB */
	assert_int_equal(run.r, 0);
	assert_int_equal(strlen(run.out), 1024);
	lim = (struct sandbox_limits)SANDBOX_LIMITS_DEFAULT;
	lim.as_mib = 64;                     /* fio's pools need about 150 MiB */
	run_in(&run, (char *[]){ "fio", "--parse-only", "--name=x", NULL }, NULL, &lim);
	assert_int_not_equal(run.res.code, 0);
}

/* unshare(2) made to fail (as a seccomp filter does it): refused, nothing run. */
static void no_namespaces(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };
	struct run run;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		_exit(3);
	run_in(&run, (char *[]){ "busybox", "echo", "ran", NULL }, NULL, NULL);
	if (run.r != -1 || run.out[0] || strchr(run.err, '\n') ||
	    !strstr(run.err, "sandbox: cannot create its namespaces") ||
	    !strstr(run.err, "Operation not permitted; 'busybox' was not run"))
		_exit(4);
}

static void test_refuses_without_namespaces(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	need(BUSYBOX_BIN);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		no_namespaces();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_bad_files(void **state)
{
	const struct sandbox_limits lim = SANDBOX_LIMITS_DEFAULT;
	struct sandbox_file f = { .name = "a/b", .data = "x", .len = 1, .exec = 1 };
	struct sandbox_result res;
	char out[64], err[ERR_MAX];

	(void)state;
	assert_int_equal(sandbox_run((char *[]){ "a/b", NULL }, &f, 1, &lim, out, sizeof(out),
				     &res, err), -1);
	assert_string_equal(err, "sandbox: bad file name 'a/b'");
	f.name = "x";
	f.exec = 0;
	assert_int_equal(sandbox_run((char *[]){ "x", NULL }, &f, 1, &lim, out, sizeof(out),
				     &res, err), -1);
	assert_string_equal(err, "sandbox: 'x' is not one of its executable files");
	f = (struct sandbox_file){ .name = "x", .src = "/dev/zero", .exec = 1 };
	assert_int_equal(sandbox_run((char *[]){ "x", NULL }, &f, 1, &lim, out, sizeof(out),
				     &res, err), -1);
	assert_string_equal(err, "sandbox: cannot copy '/dev/zero' in: not a regular file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fio_reads_no_host_file),
		cmocka_unit_test(test_fio_include_reads_nothing),
		cmocka_unit_test(test_jail),
		cmocka_unit_test(test_jail_umask),
		cmocka_unit_test(test_jail_not_root),
		cmocka_unit_test(test_cpu_limit),
		cmocka_unit_test(test_output_and_memory_limits),
		cmocka_unit_test(test_refuses_without_namespaces),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
