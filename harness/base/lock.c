/* lock.c -- the results directory's lock (flock on harness.lock: a second daemon
 * or `harness run` changes nothing) and its build gate (build.lock, build.turn). */
#include "base/lock.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WHO_MAX 32

void lock_note(int fd, const char *who)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%ld %.*s\n", (long)getpid(), WHO_MAX - 1, who);

	/* what a refusal says; a full disk leaves it empty, and the lock held */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) != n)
		(void)ftruncate(fd, 0);
}

/*
 * The holder lock_note wrote: "PID WHO\n", WHO lowercase letters and spaces.
 * 0, or -1 if the file says something else (or nothing yet).
 */
static int read_holder(int fd, long *ret_pid, char who[WHO_MAX])
{
	char buf[64], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	size_t len;
	long pid;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	pid = strtol(buf, &end, 10);
	if (errno || pid <= 0 || pid > INT_MAX || *end != ' ')
		return -1;
	len = strspn(end + 1, "abcdefghijklmnopqrstuvwxyz ");
	if (len == 0 || len >= WHO_MAX || end[1 + len] != '\n')
		return -1;
	memcpy(who, end + 1, len);
	who[len] = '\0';
	*ret_pid = pid;
	return 0;
}

/*
 * The error for a results directory another process holds, naming it when
 * the lock file says who.
 */
static int held(int fd, const char *results, const char *path, char *err)
{
	char who[WHO_MAX];
	long pid;

	if (read_holder(fd, &pid, who) < 0)
		return errorf(err, "%s is in use: another process holds %s (pid unknown); one "
			      "harnessd or harness run per results directory", results, path);
	return errorf(err, "%s is in use by %s (pid %ld holds %s); one harnessd or harness run "
		      "per results directory", results, who, pid, path);
}

int lock_take(const char *results, const char *who, int *ret_fd, char *err)
{
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX];
	struct stat st;

	if (pathf(path, err, "%s/" LOCK_FILE, results) < 0)
		return -1;
	/* no symlink followed: the file truncated is the lock, nothing it points at */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errorf(err, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return errorf(err, "'%s': expected a regular file", path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? held(fd, results, path, err)
					    : errorf(err, "cannot lock '%s': %s", path, strerror(errno));
	lock_note(fd, who);
	*ret_fd = fd;
	fd = -1;
	return 0;
}

/* ---- the build gate ---- */

/* One of the gate's files under results, as lock_take opens its own: the fd,
 * or -1 with err. path gets its name. */
static int gate_file(const char *results, const char *name, char *path, char *err)
{
	int fd;
	struct stat st;

	if (pathf(path, err, "%s/%s", results, name) < 0)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0 && errno == ELOOP)
		return errorf(err, "'%s' is a symlink: refused (the build gate is never opened "
			      "through one)", path);
	if (fd < 0)
		return errorf(err, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return errorf(err, "'%s': expected a regular file", path);
	}
	return fd;
}

int buildlock_open(struct buildlock *l, const char *results, const char *who, char *err)
{
	char turn[PATH_MAX];

	l->lock = l->turn = -1;
	l->held = 0;
	fmtcut(l->who, sizeof(l->who), "%s", who);
	if ((l->lock = gate_file(results, BUILDLOCK_FILE, l->path, err)) < 0 ||
	    (l->turn = gate_file(results, BUILDLOCK_TURN, turn, err)) < 0) {
		buildlock_close(l);
		return -1;
	}
	return 0;
}

void buildlock_close(struct buildlock *l)
{
	buildlock_drop(l);
	if (l->lock >= 0)
		close(l->lock);
	if (l->turn >= 0)
		close(l->turn);
	l->lock = l->turn = -1;
}

/* What a waiter waits for: the line it says once. */
enum gate_wait { WAIT_COMPILE, WAIT_BLOCKS };

/*
 * The line a waiter at the build gate says once: for what it waits, and who
 * holds the gate when the lock file says.
 */
static void wait_line(const struct buildlock *l, enum buildlock_as as, enum gate_wait w,
		      char *line, size_t len)
{
	char who[WHO_MAX], holder[WHO_MAX + 32] = "pid unknown";
	long pid;

	if (read_holder(l->turn, &pid, who) == 0)
		fmtcut(holder, sizeof(holder), "pid %ld, %s", pid, who);
	if (w == WAIT_BLOCKS)
		fmtcut(line, len, "build gate: measured blocks are in flight (%s); the compile "
			 "waits for them to end, and no block starts meanwhile", l->path);
	else
		fmtcut(line, len, "build gate: a kernel compile holds %s (%s); the %s waits for "
			 "it to end", l->path, holder, as == BUILDLOCK_BUILDING ? "compile" : "block");
}

/*
 * flock(fd, op) now or, after one line through tell, every BUILDLOCK_POLL_MS
 * until it is had: 0; 1 if stop became set first; -1 with err if flock fails.
 */
static int flock_wait(const struct buildlock *l, int fd, int op, enum gate_wait w,
		      buildlock_tell_fn tell, void *arg, atomic_int *stop, char *err)
{
	struct timespec ts = { 0, BUILDLOCK_POLL_MS * 1000000L };
	char line[ERR_MAX + PATH_MAX];
	int told = 0;

	for (;;) {
		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return errorf(err, "cannot lock '%s': %s", l->path, strerror(errno));
		if (stop && atomic_load(stop))
			return 1;
		if (!told++ && tell) {
			wait_line(l, op == LOCK_EX ? BUILDLOCK_BUILDING : BUILDLOCK_MEASURING, w,
				  line, sizeof(line));
			tell(arg, line);
		}
		nanosleep(&ts, NULL);
	}
}

int buildlock_take(struct buildlock *l, enum buildlock_as as, buildlock_tell_fn tell,
		   void *arg, atomic_int *stop, char *err)
{
	int op = as == BUILDLOCK_BUILDING ? LOCK_EX : LOCK_SH, rc;

	if (l->held)
		return errorf(err, "%s: taken twice by one holder", l->path);
	/* the turnstile: a compile keeps it, a block only passes it */
	if ((rc = flock_wait(l, l->turn, op, WAIT_COMPILE, tell, arg, stop, err)) != 0)
		return rc < 0 ? -1 : errorf(err, "stopped while waiting for %s", l->path);
	if (as == BUILDLOCK_BUILDING)
		lock_note(l->turn, l->who);
	rc = flock_wait(l, l->lock, op, as == BUILDLOCK_BUILDING ? WAIT_BLOCKS : WAIT_COMPILE,
			tell, arg, stop, err);
	if (rc != 0 || as == BUILDLOCK_MEASURING) {
		if (as == BUILDLOCK_BUILDING)
			(void)ftruncate(l->turn, 0);   /* a stale note would misname a holder */
		flock(l->turn, LOCK_UN);
	}
	if (rc != 0)
		return rc < 0 ? -1 : errorf(err, "stopped while waiting for %s", l->path);
	l->held = 1 + (int)as;
	return 0;
}

void buildlock_drop(struct buildlock *l)
{
	if (!l->held)
		return;
	flock(l->lock, LOCK_UN);
	if (l->held == 1 + (int)BUILDLOCK_BUILDING) {
		(void)ftruncate(l->turn, 0);
		flock(l->turn, LOCK_UN);
	}
	l->held = 0;
}
