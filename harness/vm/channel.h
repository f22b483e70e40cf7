/* channel.h -- the host end of the guest channel: a socket to QEMU's or to a
 * remote stream's bridge, read as bounded lines and parsed with proto.h. */
#ifndef CHANNEL_H
#define CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

struct channel {
	int fd;
	size_t len;                  /* bytes buffered in buf */
	uint64_t taken;              /* bytes of the lines taken since channel_init */
	char buf[PROTO_LINE_MAX];
};

/* An unconnected channel (no fd, empty buffer). */
void channel_init(struct channel *ch);

/* Connect to QEMU's socket at path, retrying until deadline_ms (now_ms clock). */
int channel_unix_connect(const char *path, int64_t deadline_ms, int *fd, char *err);

/* Read and send over fd (a socket, made non-blocking), which ch owns from here. */
int channel_attach(struct channel *ch, int fd, char *err);

/* Close ch's socket; ch may be closed again. */
void channel_close(struct channel *ch);

enum channel_status { CH_MSG, CH_TIMEOUT, CH_EOF, CH_BAD };

/*
 * Wait until deadline_ms for the next line and parse it into msg. CH_BAD
 * means the line was over-long, not UTF-8 text, or not a valid message: the
 * reason is in err and the guest is not to be trusted further.
 */
enum channel_status channel_recv(struct channel *ch, struct proto_msg *msg, int64_t deadline_ms,
				 char *err);

/* Split one complete line off buf (exposed for unit tests): returns the
 * line's length and sets *consumed, or -1 if no newline is buffered. */
ssize_t channel_take_line(const char *buf, size_t len, size_t *consumed);

/* msg as one line to the guest, waiting up to 5 s for room; -1 with err. */
int channel_send(struct channel *ch, const struct proto_msg *msg, char *err);

#endif
