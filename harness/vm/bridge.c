/* bridge.c -- one thread per remote channel: the stream's bytes into a socket
 * pair and back, polling the stream every few ms (one thread owns the stream). */
#include "vm/bridge.h"
#include "base/err.h"
#include "base/proc.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BRIDGE_BUF  65536
#define BRIDGE_POLL 5            /* ms between looks at the stream when it is quiet */

struct vm_bridge {
	virStreamPtr st;
	int fd;                      /* the bridge's end */
	pthread_t th;
	atomic_int stop;
	int ended;                   /* the stream said EOF or failed: finished or aborted */
	char buf[BRIDGE_BUF];
};

/* Everything the stream has now into the socket; 0, or -1 once it ended. */
static int from_stream(struct vm_bridge *b)
{
	int n;

	for (;;) {
		n = virStreamRecv(b->st, b->buf, sizeof(b->buf));
		if (n == -2)
			return 0;
		if (n <= 0) {
			if (n == 0)
				virStreamFinish(b->st);
			else
				virStreamAbort(b->st);
			b->ended = 1;
			return -1;
		}
		if (write_all(b->fd, b->buf, (size_t)n) < 0)
			return -1;
	}
}

/* What the caller wrote, sent on; -1 once its end is closed or the stream fails. */
static int to_stream(struct vm_bridge *b)
{
	ssize_t n = read(b->fd, b->buf, sizeof(b->buf));
	int sent, tries = 0;
	size_t off = 0;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	while (off < (size_t)n) {
		sent = virStreamSend(b->st, b->buf + off, (size_t)n - off);
		if (sent == -2 && tries++ < 1000) {
			usleep(1000);
			continue;
		}
		if (sent < 0)
			return -1;
		off += (size_t)sent;
	}
	return 0;
}

/*
 * The bridge's thread: libvirt's stream to the socket, and the socket's
 * bytes back to the stream while its writer is open, until stop; then the
 * caller's end sees EOF.
 */
static void *bridge_main(void *arg)
{
	struct vm_bridge *b = arg;
	struct pollfd pfd = { .fd = b->fd, .events = POLLIN };
	int writer_open = 1;

	while (!atomic_load(&b->stop)) {
		if (from_stream(b) < 0)
			break;
		pfd.events = writer_open ? POLLIN : 0;
		if (poll(&pfd, 1, BRIDGE_POLL) > 0 && (pfd.revents & (POLLIN | POLLHUP)) &&
		    writer_open && to_stream(b) < 0)
			writer_open = 0;   /* the caller closed its end: read on until told to stop */
	}
	/* the caller sees EOF: its end reads 0 once the stream has nothing more */
	shutdown(b->fd, SHUT_RDWR);
	return NULL;
}

int vm_bridge_open(virStreamPtr st, struct vm_bridge **ret, int *fd, char *err)
{
	struct vm_bridge *b = calloc(1, sizeof(*b));
	int sv[2];

	if (!b) {
		virStreamAbort(st);
		virStreamFree(st);
		return errorf(err, "out of memory");
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		errorf(err, "socketpair: %s", strerror(errno));
		goto fail;
	}
	b->st = st;
	b->fd = sv[1];
	if (pthread_create(&b->th, NULL, bridge_main, b) != 0) {
		close(sv[0]);
		close(sv[1]);
		errorf(err, "cannot start a channel thread");
		goto fail;
	}
	*fd = sv[0];
	*ret = b;
	return 0;
fail:
	virStreamAbort(st);
	virStreamFree(st);
	free(b);
	return -1;
}

void vm_bridge_close(struct vm_bridge *b)
{
	if (!b)
		return;
	atomic_store(&b->stop, 1);
	pthread_join(b->th, NULL);
	if (!b->ended)
		virStreamAbort(b->st);
	virStreamFree(b->st);
	close(b->fd);
	free(b);
}
