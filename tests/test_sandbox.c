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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

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

/* PROBLEM run in a forked child as uid and gid 65534; its message fails the test. */
static void as_nobody(int (*problem)(char *msg, size_t len))
{
	char msg[ERR_MAX * 8] = "";
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			snprintf(msg, sizeof(msg), "cannot become nobody: %s", strerror(errno));
		else
			problem(msg, sizeof(msg));
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

/* Not root (the daemon may run as its own user): a user namespace does it. */
static void test_jail_not_root(void **state)
{
	char msg[ERR_MAX] = "";

	(void)state;
	need(BUSYBOX_BIN);
	if (geteuid() != 0) {
		if (jail_problem(msg, sizeof(msg)) < 0)   /* this test already runs as a user */
			fail_msg("%s", msg);
		return;
	}
	as_nobody(jail_problem);
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

/* ---- sandbox_exec: a build's jail, with host directories in its view ---- */

struct view_dirs {
	char top[64], src[96], obj[96], results[96], log[96];
};

/* top/{src (with .git/HEAD), obj (the jail's when root), results/db}; obj/build.log. */
static void make_view_dirs(struct view_dirs *d)
{
	char path[160];
	FILE *f;

	snprintf(d->top, sizeof(d->top), "/tmp/test_sandbox_view.XXXXXX");
	assert_non_null(mkdtemp(d->top));
	snprintf(d->src, sizeof(d->src), "%s/src", d->top);
	snprintf(d->obj, sizeof(d->obj), "%s/obj", d->top);
	snprintf(d->results, sizeof(d->results), "%s/results", d->top);
	snprintf(d->log, sizeof(d->log), "%s/build.log", d->top);
	snprintf(path, sizeof(path), "%s/.git", d->src);
	assert_int_equal(mkdir(d->src, 0755) | mkdir(path, 0755) | mkdir(d->obj, 0755) |
			 mkdir(d->results, 0700), 0);
	snprintf(path, sizeof(path), "%s/.git/HEAD", d->src);
	assert_non_null(f = fopen(path, "w"));
	fputs("ref: refs/heads/master\n", f);
	fclose(f);
	if (geteuid() == 0)
		assert_int_equal(chown(d->obj, 65534, 65534), 0);
}

/* A listener on 127.0.0.1 (its port in *port): whatever the jail tries must not reach it. */
static int listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* What a hostile build tries, each success written as a word into obj/out. */
static const char hostile_script[] =
	"exec > \"$OBJ/out\" 2>&1\n"
	"cat /etc/shadow > /dev/null 2>&1 && echo read-shadow\n"
	"cat /etc/passwd > /dev/null 2>&1 && echo read-passwd\n"
	"(echo x > /etc/x) 2> /dev/null && echo write-etc\n"
	"(echo x > /usr/x) 2> /dev/null && echo write-usr\n"
	"(echo x > \"$SRC/x\") 2> /dev/null && echo write-src\n"
	"[ -n \"$(ls -A \"$SRC/.git\")\" ] && echo see-git\n"
	"[ -e \"$RESULTS\" ] && echo see-results\n"
	"[ -e /root ] && echo see-root\n"
	"bash -c \"echo hi > /dev/tcp/127.0.0.1/$PORT\" 2> /dev/null && echo connect\n"
	"echo x > \"$OBJ/w\" && echo write-obj\n"
	"echo \"uid $(id -u) gid $(id -g)\"\n"
	"grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status | tr -s '\\t' ' '\n"
	"env | grep -c SANDBOX_TEST_CANARY | sed 's/^/canary /'\n"
	"(setsid sh -c 'sleep 2; echo alive > \"$OBJ/alive\"' &)\n"
	"echo end\n";

/* The hostile script in a view of D: -1 and a message, or 0 with obj/out's text in OUT. */
static int run_hostile(const struct view_dirs *d, int port, char *out, size_t len, char *msg)
{
	char e_obj[128], e_src[128], e_res[128], e_port[32], path[160];
	char *env[] = { "PATH=/usr/bin:/bin", e_obj, e_src, e_res, e_port, NULL };
	const struct sandbox_bind binds[] = { { d->src, 0 }, { d->obj, 1 } };
	char *argv[] = { "sh", "-c", (char *)hostile_script, NULL };
	struct sandbox_view v = { .binds = binds, .nbinds = 2, .env = env, .cwd = d->obj,
				  .log_path = d->log, .nproc = 64, .fsize_mib = 16,
				  .timeout_ms = 30000 };
	char hide[128];
	int status, fd;
	ssize_t n;

	snprintf(hide, sizeof(hide), "%s/.git", d->src);
	v.hide = hide;
	snprintf(e_obj, sizeof(e_obj), "OBJ=%s", d->obj);
	snprintf(e_src, sizeof(e_src), "SRC=%s", d->src);
	snprintf(e_res, sizeof(e_res), "RESULTS=%s", d->results);
	snprintf(e_port, sizeof(e_port), "PORT=%d", port);
	setenv("SANDBOX_TEST_CANARY", "the harness's environment", 1);
	if (sandbox_exec(argv, &v, &status, msg) < 0)
		return -1;
	if (status != 0)
		return snprintf(msg, ERR_MAX, "the script exited %d", status), -1;
	snprintf(path, sizeof(path), "%s/out", d->obj);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return snprintf(msg, ERR_MAX, "no %s", path), -1;
	n = read(fd, out, len - 1);
	close(fd);
	out[n > 0 ? n : 0] = '\0';
	return 0;
}

/* Every attempt failed; the jail was uid 65534 without capabilities; nothing outlived it. */
static int judge_hostile(const struct view_dirs *d, int lfd, const char *out, char *msg)
{
	static const char *const denied[] = { "read-shadow", "read-passwd", "write-etc",
					      "write-usr", "write-src", "see-git", "see-results",
					      "see-root", "connect" };
	static const char *const seen[] = { "write-obj\n", "uid 65534 gid 65534\n",
					    "CapEff: 0000000000000000\n",
					    "CapPrm: 0000000000000000\n", "NoNewPrivs: 1\n",
					    "canary 0\n", "end\n" };
	char path[160];

	for (size_t i = 0; i < ARRAY_SIZE(denied); i++)
		if (strstr(out, denied[i]))
			return snprintf(msg, ERR_MAX, "the jail could %s:\n%.400s", denied[i], out), -1;
	for (size_t i = 0; i < ARRAY_SIZE(seen); i++)
		if (!strstr(out, seen[i]))
			return snprintf(msg, ERR_MAX, "no '%.*s' in:\n%.400s",
					(int)strlen(seen[i]) - 1, seen[i], out), -1;
	if (accept(lfd, NULL, NULL) >= 0 || errno != EAGAIN)
		return snprintf(msg, ERR_MAX, "the listener saw a connection"), -1;
	sleep(3);
	snprintf(path, sizeof(path), "%s/alive", d->obj);
	if (access(path, F_OK) == 0)
		return snprintf(msg, ERR_MAX, "a process outlived the jail"), -1;
	return 0;
}

static int hostile_problem(char *msg, size_t len)
{
	struct view_dirs d;
	char out[4096];
	int port, lfd, r;

	assert_true(len >= ERR_MAX);   /* what run_hostile and judge_hostile write */
	make_view_dirs(&d);
	lfd = listener(&port);
	r = run_hostile(&d, port, out, sizeof(out), msg);
	if (r == 0)
		r = judge_hostile(&d, lfd, out, msg);
	close(lfd);
	return r;
}

static void test_build_jail(void **state)
{
	char msg[ERR_MAX * 8];

	(void)state;
	if (hostile_problem(msg, sizeof(msg)) < 0)
		fail_msg("%s", msg);
}

/* The same as the daemon's own user: a user namespace maps 65534 to it. */
static void test_build_jail_not_root(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	as_nobody(hostile_problem);
}

/* A symlink in a bind's path or at the log is refused by name; the deadline kills it all. */
static void test_build_jail_refusals(void **state)
{
	struct view_dirs d;
	char link[160], err[ERR_MAX], *env[] = { "PATH=/usr/bin", NULL };
	struct sandbox_bind b = { link, 1 };
	struct sandbox_view v = { .binds = &b, .nbinds = 1, .env = env, .nproc = 16,
				  .fsize_mib = 1, .timeout_ms = 500 };
	int status;

	(void)state;
	make_view_dirs(&d);
	snprintf(link, sizeof(link), "%s/link", d.top);
	assert_int_equal(symlink("/etc", link), 0);
	assert_int_equal(sandbox_exec((char *[]){ "true", NULL }, &v, &status, err), -1);
	assert_non_null(strstr(err, link));
	assert_non_null(strstr(err, "a symlink is in its path"));
	b.path = d.obj;
	v.log_path = link;
	assert_int_equal(sandbox_exec((char *[]){ "true", NULL }, &v, &status, err), -1);
	assert_non_null(strstr(err, "it is a symlink"));
	v.log_path = d.log;
	assert_int_equal(sandbox_exec((char *[]){ "sleep", "30", NULL }, &v, &status, err), 0);
	assert_int_equal(status, -1);
}

/* The text of the file at path (at most len - 1 bytes), "" if none. */
static void read_text(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, out, len - 1);

	out[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* script (sh -c) in a view of d (obj writable) with the limits of v; its exit code. */
static int run_view_script(const struct view_dirs *d, const char *script, struct sandbox_view *v,
			   char *err)
{
	char e_obj[128];
	char *env[] = { "PATH=/usr/bin:/bin", e_obj, NULL };
	const struct sandbox_bind binds[] = { { d->src, 0 }, { d->obj, 1 } };
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	int status;

	snprintf(e_obj, sizeof(e_obj), "OBJ=%s", d->obj);
	v->binds = binds;
	v->nbinds = 2;
	v->env = env;
	v->cwd = d->obj;
	v->log_path = d->log;
	v->timeout_ms = 60000;
	assert_int_equal(sandbox_exec(argv, v, &status, err), 0);
	return status;
}

/* What the limits script tries, each success a word in obj/out. */
static const char limits_script[] =
	"exec > \"$OBJ/out\" 2>&1\n"
	/* tail -c keeps the last 256 MiB of what it reads: as many bytes of its own memory */
	"head -c 268435456 /dev/zero | tail -c 268435456 | wc -c | grep -qx 268435456 && echo allocated\n"
	"dd if=/dev/zero of=/tmp/big bs=1M count=256 2> /dev/null && echo filled-tmp\n"
	"rm -f /tmp/big\n"
	"i=0; while [ $i -lt 300 ] && true > /tmp/f$i; do i=$((i + 1)); done 2> /dev/null; echo files $i\n"
	"bash -c 'n=0; while [ $n -lt 300 ] && exec {fd}< /dev/null; do n=$((n + 1)); done "
	"2> /dev/null; echo opened $n'\n"
	"echo end\n";

/*
 * #48: the build jail has a memory cgroup of its own (64 MiB here: a
 * process's 256 MiB is killed, and /tmp, half of it, refuses 256 MiB), /tmp holds at most
 * its count of files, and no process may open more than RLIMIT_NOFILE.
 */
static void test_build_jail_limits(void **state)
{
	struct view_dirs d;
	struct sandbox_view v = { .nproc = 64, .fsize_mib = 512, .nofile = 64, .tmp_inodes = 100,
				  .mem_max = 64 << 20 };
	char out[4096], log[4096], path[160], err[ERR_MAX];
	const char *files;

	(void)state;
	if (geteuid() != 0)
		skip();   /* a cgroup of its own needs root here */
	make_view_dirs(&d);
	assert_int_equal(run_view_script(&d, limits_script, &v, err), 0);
	snprintf(path, sizeof(path), "%s/out", d.obj);
	read_text(path, out, sizeof(out));
	read_text(d.log, log, sizeof(log));
	if (!strstr(out, "end\n") || strstr(out, "allocated") || strstr(out, "filled-tmp"))
		fail_msg("the jail's memory is not limited:\n%s", out);
	files = strstr(out, "files ");
	if (!files || atoi(files + 6) >= 100)
		fail_msg("/tmp took more files than its limit:\n%s", out);
	if (!strstr(out, "opened ") || atoi(strstr(out, "opened ") + 7) >= 64)
		fail_msg("more open files than RLIMIT_NOFILE:\n%s", out);
	if (!strstr(log, "harness: the build's memory limit (64 MiB) killed"))
		fail_msg("the log does not say the limit killed:\n%s", log);
}

/* #48: the build's stdout is a pipe the harness reads: it cannot truncate or seek the log. */
static void test_build_jail_log_pipe(void **state)
{
	struct view_dirs d;
	struct sandbox_view v = { .nproc = 64, .fsize_mib = 16 };
	char log[4096], err[ERR_MAX];
	int fd;

	(void)state;
	make_view_dirs(&d);
	fd = open(d.log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "harness: before the jail\n", 25), 25);
	close(fd);
	assert_int_equal(run_view_script(&d, "echo one; "
					  "perl -e 'truncate(STDOUT, 0) or print STDERR \"no truncate\\n\"'; "
					  "perl -e 'sysseek(STDOUT, 0, 0) or print STDERR \"no seek\\n\"'; "
					  "echo two", &v, err), 0);
	read_text(d.log, log, sizeof(log));
	if (strncmp(log, "harness: before the jail\none\n", 29) || !strstr(log, "no truncate\n") ||
	    !strstr(log, "no seek\n") || !strstr(log, "two\n"))
		fail_msg("the build reached its log:\n%s", log);
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
		cmocka_unit_test(test_build_jail),
		cmocka_unit_test(test_build_jail_not_root),
		cmocka_unit_test(test_build_jail_refusals),
		cmocka_unit_test(test_build_jail_limits),
		cmocka_unit_test(test_build_jail_log_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
