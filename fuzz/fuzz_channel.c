/* fuzz_channel.c -- libFuzzer target: bytes a guest writes to its channel,
 * read back by channel_recv (bounded lines, then proto_parse) over a socketpair. */
#include "channel.h"
#include "err.h"
#include "proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct channel ch;
	static struct proto_msg msg;
	char err[ERR_MAX];
	int sv[2];
	enum channel_status st;

	if (size > 65536)
		return 0;   /* more than the socket buffers hold without a reader */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	channel_init(&ch);
	ch.fd = sv[0];
	send_all(sv[1], data, size);
	do
		st = channel_recv(&ch, &msg, now_ms() + 5000, err);
	while (st == CH_MSG);
	if (st == CH_TIMEOUT)
		abort();   /* the writer is gone: every read ends in a line, BAD or EOF */
	channel_close(&ch);
	return 0;
}
