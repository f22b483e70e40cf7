/* fdio.c -- whole writes to a file descriptor, and small sysfs reads (fdio.h). */
#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	if (write_all(fd, text, strlen(text)) < 0)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		e = errno;
	close(fd);
	while (n > 0 && strchr("\n \t", buf[n - 1]))
		n--;
	buf[n > 0 ? n : 0] = '\0';
	return e;
}

int read_count(const char *path, uint64_t *v)
{
	char text[32], *end;
	unsigned long long x;
	int e = read_text(path, text, sizeof(text));

	if (e)
		return e;
	errno = 0;
	x = strtoull(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end || errno || x > INT64_MAX)
		return EINVAL;
	*v = x;
	return 0;
}

int read_whole(int fd, char *buf, size_t max, size_t *len)
{
	size_t have = 0;
	ssize_t n;

	for (;;) {
		n = pread(fd, buf + have, max + 1 - have, (off_t)have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		if ((have += (size_t)n) > max)
			return errno = EFBIG, -1;
	}
	*len = have;
	return 0;
}
