/* fuzz_channel.c -- libFuzzer target: bytes a guest writes to its channel,
 * read back by channel_recv (bounded lines, then proto_parse) over a socketpair
 * and checked against proto_parse of the input's lines one by one. */
#include "vm/channel.h"
#include "base/err.h"
#include "base/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct channel ch;
static struct proto_msg got, want;

/* The whole input into fd, then its end: the reader sees EOF after it. */
static void send_all(int fd, const uint8_t *data, size_t size)
{
	ssize_t n;

	while (size > 0 && (n = write(fd, data, size)) > 0) {
		data += n;
		size -= (size_t)n;
	}
	close(fd);
}

/*
 * What the reader must make of the next line at *off: CH_MSG with want
 * filled, CH_BAD (over-long or not a message), or CH_EOF (only a partial
 * line left).
 */
static enum channel_status expect(const uint8_t *data, size_t size, size_t *off)
{
	const uint8_t *p = data + *off, *nl = memchr(p, '\n', size - *off);
	size_t len = nl ? (size_t)(nl - p) : size - *off;
	char err[ERR_MAX];

	if (len + 1 > PROTO_LINE_MAX)
		return CH_BAD;
	if (!nl)
		return CH_EOF;
	*off += len + 1;
	memset(&want, 0, sizeof(want));
	return proto_parse((const char *)p, len, &want, err, sizeof(err)) == 0 ? CH_MSG : CH_BAD;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum channel_status st, ex;
	char err[ERR_MAX];
	size_t off = 0;
	int sv[2];

	if (size > 65536)
		return 0;   /* more than the socket buffers hold without a reader */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	channel_init(&ch);
	ch.fd = sv[0];
	send_all(sv[1], data, size);
	do {
		memset(&got, 0, sizeof(got));
		st = channel_recv(&ch, &got, now_ms() + 5000, err);
		ex = expect(data, size, &off);
		if (st != ex || (st == CH_MSG && memcmp(&got, &want, sizeof(got)))) {
			fprintf(stderr, "fuzz_channel: read %d, the line says %d\n", st, ex);
			abort();
		}
	} while (st == CH_MSG);
	channel_close(&ch);
	return 0;
}
