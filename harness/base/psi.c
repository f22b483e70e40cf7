/* psi.c -- the host's /proc/pressure/{cpu,io} read, bounded, and parsed by
 * common/psi.c. */
#include "base/psi.h"
#include "base/err.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int psi_absent(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENOTSUP;
}

int psi_read(const char *path, struct psi *ret, char *err)
{
	char buf[PSI_TEXT_MAX + 1];
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return psi_absent(errno) ? 1 : errorf(err, "%s: %s", path, strerror(errno));
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			close(fd);
			return psi_absent(e) ? 1 : errorf(err, "%s: %s", path, strerror(e));
		}
		n += (size_t)r;
	}
	close(fd);
	if (psi_parse(buf, n, ret, err, ERR_MAX) < 0) {
		char msg[ERR_MAX];

		fmtcut(msg, sizeof(msg), "%s", err);
		return errorf(err, "%s: %s", path, msg);
	}
	return 0;
}
