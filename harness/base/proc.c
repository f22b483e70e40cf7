/* proc.c -- fork/exec with a deadline and the few file helpers around it.
 * Nothing here takes a command line: callers give argv arrays. */
#define _GNU_SOURCE             /* mkostemp */
#include "base/proc.h"
#include "base/err.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

int pathf(char *buf, char *err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX)
		return errorf(err, "path too long: '%.64s...'", buf);
	return 0;
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The child's log, opened by the parent: appended (or made anew), never through a symlink. */
static int open_log(const struct proc_opts *o, char *err)
{
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC;
	int fd;

	if (!o->log_path)
		return open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (o->log_new && unlink(o->log_path) < 0 && errno != ENOENT)
		return errorf(err, "cannot replace '%s': %s", o->log_path, strerror(errno));
	fd = open(o->log_path, flags | (o->log_new ? O_EXCL : O_APPEND), 0644);
	if (fd < 0)
		return errorf(err, "cannot open '%s': %s", o->log_path,
			      errno == ELOOP ? "it is a symlink" : strerror(errno));
	return fd;
}

/*
 * In the child: stdin from /dev/null, stdout (and stderr unless stdout_only)
 * to log, o's directory, umask and environment, its own process group, then
 * argv; exits 126 when a step fails, 127 when argv cannot run.
 */
static void child_exec(char *const argv[], const struct proc_opts *o, int log)
{
	int in = open("/dev/null", O_RDONLY);
	int null = open("/dev/null", O_WRONLY);

	if (in < 0 || null < 0 || dup2(in, 0) < 0 || dup2(log, 1) < 0 ||
	    dup2(o->stdout_only ? null : log, 2) < 0)
		_exit(126);
	if (o->cwd && chdir(o->cwd) < 0)
		_exit(126);
	if (o->readable)
		umask(022);
	for (char *const *e = o->env; e && *e; e++)
		if (putenv(*e) < 0)
			_exit(126);
	setpgid(0, 0);
	execvp(argv[0], argv);
	_exit(127);
}

/* Wait up to ms for pid without killing it: 0 if it ended (*wstatus set), 1 if not. */
static int proc_wait_quietly(pid_t pid, int ms, int *wstatus)
{
	int64_t until = now_ms() + ms;

	while (now_ms() < until) {
		if (waitpid(pid, wstatus, WNOHANG) == pid)
			return 0;
		usleep(10000);
	}
	return 1;
}

int proc_wait(pid_t pid, const char *what, int timeout_ms, int *ret_wstatus, char *err)
{
	int64_t deadline = now_ms() + timeout_ms;
	pid_t r;

	for (;;) {
		r = waitpid(pid, ret_wstatus, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return errorf(err, "waitpid '%s': %s", what, strerror(errno));
		if (now_ms() >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, ret_wstatus, 0);
			return 1;
		}
		usleep(10000);
	}
}

int proc_run(char *const argv[], const char *log_path, int timeout_ms, int *ret_status,
	     char *err)
{
	struct proc_opts o = { .log_path = log_path, .timeout_ms = timeout_ms };

	return proc_run_opts(argv, &o, ret_status, err);
}

int proc_wait_ticking(pid_t pid, const char *what, const struct proc_opts *o, int *wstatus,
			char *err)
{
	int64_t deadline = now_ms() + o->timeout_ms, left;
	int r;

	if (!o->tick || o->tick_ms <= 0)
		return proc_wait(pid, what, o->timeout_ms, wstatus, err);
	for (;;) {
		left = deadline - now_ms();
		if (left <= o->tick_ms)
			return proc_wait(pid, what, left > 0 ? (int)left : 0, wstatus, err);
		r = proc_wait_quietly(pid, o->tick_ms, wstatus);
		if (r == 0)
			return 0;
		o->tick(o->tick_arg);
	}
}

int proc_run_opts(char *const argv[], const struct proc_opts *o, int *ret_status, char *err)
{
	_cleanup_close_ int log = open_log(o, err);
	int status, r;
	pid_t pid;

	if (log < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return errorf(err, "cannot fork for '%s': %s", argv[0], strerror(errno));
	if (pid == 0)
		child_exec(argv, o, log);
	r = proc_wait_ticking(pid, argv[0], o, &status, err);
	if (r < 0)
		return -1;
	if (r == 1) {
		*ret_status = -1;
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return errorf(err, "cannot run '%s': not found in PATH", argv[0]);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 126 && o->cwd)
		return errorf(err, "cannot run '%s' in '%s'", argv[0], o->cwd);
	*ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return 0;
}

int proc_output(char *const argv[], const char *cwd, int timeout_ms, char *out, size_t len,
		char *err)
{
	char tmpl[] = "/tmp/harness-out.XXXXXX";
	_cleanup_close_ int fd = mkostemp(tmpl, O_CLOEXEC);
	struct proc_opts o = { .cwd = cwd, .log_path = tmpl, .timeout_ms = timeout_ms };
	int status, r;
	ssize_t n;

	if (fd < 0)
		return errorf(err, "cannot create a temporary file: %s", strerror(errno));
	r = proc_run_opts(argv, &o, &status, err);
	n = r == 0 ? pread(fd, out, len, 0) : -1;
	unlink(tmpl);
	if (r < 0)
		return -1;
	if (status != 0)
		return errorf(err, "'%s %s' failed (exit %d)", argv[0], argv[1] ? argv[1] : "",
			      status);
	if (n < 0 || (size_t)n >= len)
		return errorf(err, "'%s %s' printed more than %zu bytes", argv[0],
			      argv[1] ? argv[1] : "", len - 1);
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		n--;
	out[n] = '\0';
	return 0;
}

int mkdir_p(const char *path, char *err)
{
	char buf[4096];
	char *p;

	if (strlen(path) >= sizeof(buf))
		return errorf(err, "path too long: '%s'", path);
	strcpy(buf, path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return errorf(err, "cannot create '%s': %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return errorf(err, "cannot create '%s': %s", buf, strerror(errno));
	return 0;
}

int read_regular_file(const char *path, size_t max, char **ret, size_t *ret_len, char *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0)
		return errorf(err, "%s: cannot open: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errorf(err, "%s: not a regular file (a FIFO, device or directory is refused)",
			      path);
	if ((uintmax_t)st.st_size > max)
		return errorf(err, "%s: larger than %zu bytes", path, max);
	buf = malloc(max + 2);
	if (!buf)
		return errorf(err, "%s: out of memory", path);
	/* one byte more than max: a file that grew since fstat is still refused */
	while (len <= max && (n = read(fd, buf + len, max + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errorf(err, "%s: cannot read: %s", path, strerror(errno));
		len += (size_t)n;
	}
	if (len > max)
		return errorf(err, "%s: larger than %zu bytes", path, max);
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int file_identity(const char *path, char *out, size_t len)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	/* a cut identity could be another file's */
	if (fmtbuf(out, len, "%llx:%llx:%llx:%lld.%09ld:%llx", (unsigned long long)st.st_dev,
		   (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
		   (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		   (unsigned long long)st.st_rdev) < 0)
		return errno = ERANGE, -1;
	return 0;
}

int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	for (; n; p += w, n -= (size_t)w) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			w = 0;
		else if (w < 0)
			return -1;
		else if (w == 0) {
			errno = EIO;
			return -1;
		}
	}
	return 0;
}

/* path's directory opened (not through a symlink at its end), and its last name. */
static int open_parent(const char *path, const char **ret_name, char *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!slash) {
		*ret_name = path;
		return open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if ((size_t)(slash - path) >= sizeof(dir) ||
	    fmtbuf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path) < 0)
		return errorf(err, "path too long: '%.64s...'", path);
	*ret_name = slash + 1;
	fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errorf(err, "cannot open the directory '%s': %s", dir,
			      errno == ELOOP || errno == ENOTDIR ? "a symlink is there" : strerror(errno));
	return fd;
}

/*
 * NAME.tmp in DIRFD, made anew: never opened through a symlink (one there is
 * refused by name), a regular file left by a crash removed first.
 */
static int create_tmp(int dirfd, const char *path, const char *tmp, char *err)
{
	struct stat st;
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
		if (fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
			return errorf(err, "'%s.tmp' is a %s, not a file: refused", path,
				      S_ISLNK(st.st_mode) ? "symlink" : "special file");
		if (unlinkat(dirfd, tmp, 0) < 0)
			break;
	}
	if (fd < 0)
		return errorf(err, "cannot create '%s.tmp': %s", path, strerror(errno));
	return fd;
}

int write_file(const char *path, const void *buf, size_t len, char *err)
{
	_cleanup_close_ int dirfd = -1, fd = -1;
	const char *name;
	char tmp[NAME_MAX + 8];
	struct stat st;

	dirfd = open_parent(path, &name, err);
	if (dirfd < 0)
		return -1;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= (int)sizeof(tmp))
		return errorf(err, "name too long: '%s'", path);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return errorf(err, "'%s' is a symlink, not a file: refused", path);
	fd = create_tmp(dirfd, path, tmp, err);
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, len) < 0)
		return errorf(err, "cannot write '%s.tmp': %s", path, strerror(errno));
	if (fsync(fd) < 0 || renameat(dirfd, tmp, dirfd, name) < 0)
		return errorf(err, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int open_no_symlinks(const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC),
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

int copy_regular_file(const char *src, const char *dst, char *err)
{
	_cleanup_close_ int in = open_no_symlinks(src, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	_cleanup_close_ int dirfd = -1, out = -1;
	const char *name;
	char tmp[NAME_MAX + 8], buf[1 << 16];
	struct stat st;
	ssize_t n;

	if (in < 0 || fstat(in, &st) < 0 || !S_ISREG(st.st_mode))
		return errorf(err, "'%s': %s", src, in < 0 && errno == ELOOP ?
			      "a symlink is in its path: refused" : in < 0 ? strerror(errno) :
			      "not a regular file: refused");
	if ((dirfd = open_parent(dst, &name, err)) < 0 ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= (int)sizeof(tmp) ||
	    (out = create_tmp(dirfd, dst, tmp, err)) < 0)
		return errorf(err, "cannot copy '%s' to '%s'", src, dst);
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(out, buf, (size_t)n) < 0)
			return errorf(err, "cannot copy '%s' to '%s': %s", src, dst, strerror(errno));
	}
	if (fsync(out) < 0 || renameat(dirfd, tmp, dirfd, name) < 0)
		return errorf(err, "cannot write '%s': %s", dst, strerror(errno));
	return 0;
}
