/* fdio.c -- whole writes to a file descriptor (fdio.h). */
#include "fdio.h"

#include <errno.h>
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
