/* lock.c -- the results directory's lock: flock(LOCK_EX | LOCK_NB) on
 * <results>/harness.lock, so a second daemon or `harness run` changes nothing. */
#include "base/lock.h"
#include "base/err.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
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
