/* fresh.c -- a restored guest made fresh: the host's entropy into the kernel's
 * CRNG, the wall clock stepped to the host's (see fresh.h). */
#define _GNU_SOURCE
#include "fresh.h"
#include "common/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#ifndef RNDRESEEDCRNG
#define RNDRESEEDCRNG _IO('R', 0x07)
#endif

int fresh_reseed(const char *hex, char *probe, size_t probe_len, char *err, size_t errlen)
{
	struct {
		struct rand_pool_info info;
		unsigned char buf[PROTO_SEED_HEX / 2];
	} in;
	unsigned char out[8];
	int fd, rc = -1;

	if (probe_len < 2 * sizeof(out) + 1 || proto_unhex(hex, in.buf, sizeof(in.buf)) < 0)
		return errorfn(err, errlen, "job: seed must be %d lower-case hex digits",
				  PROTO_SEED_HEX);
	in.info.entropy_count = (int)sizeof(in.buf) * 8;
	in.info.buf_size = (int)sizeof(in.buf);
	fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errorfn(err, errlen, "open /dev/urandom: %s", strerror(errno));
	if (ioctl(fd, RNDADDENTROPY, &in) < 0)
		errorfn(err, errlen, "RNDADDENTROPY: %s", strerror(errno));
	else if (ioctl(fd, RNDRESEEDCRNG) < 0)
		errorfn(err, errlen, "RNDRESEEDCRNG: %s", strerror(errno));
	else if (getrandom(out, sizeof(out), 0) != (ssize_t)sizeof(out))
		errorfn(err, errlen, "getrandom: %s", strerror(errno));
	else
		rc = 0;
	close(fd);
	if (rc == 0)
		proto_hex(out, sizeof(out), probe);
	return rc;
}

int fresh_clock(uint64_t host_ms, uint64_t *behind_ms, uint64_t *ahead_ms, char *err,
		size_t errlen)
{
	struct timespec ts;
	int64_t guest_ms;

	*behind_ms = *ahead_ms = 0;
	if (!host_ms)
		return errorfn(err, errlen, "job: no host_ms to set the clock to");
	clock_gettime(CLOCK_REALTIME, &ts);
	guest_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (guest_ms < (int64_t)host_ms)
		*behind_ms = host_ms - (uint64_t)guest_ms;
	else
		*ahead_ms = (uint64_t)guest_ms - host_ms;
	ts.tv_sec = (time_t)(host_ms / 1000);
	ts.tv_nsec = (long)(host_ms % 1000) * 1000000;
	if (clock_settime(CLOCK_REALTIME, &ts) < 0)
		return errorfn(err, errlen, "clock_settime: %s", strerror(errno));
	return 0;
}
