/* channel.c -- bounded line reading from the guest's socket and message
 * sending. Over-long lines and garbage are reported, never truncated. */
#include "vm/channel.h"
#include "base/err.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

void channel_init(struct channel *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->fd = -1;
}

int channel_unix_connect(const char *path, int64_t deadline_ms, int *ret, char *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return errorf(err, "socket path too long: '%s'", path);
	strcpy(sun.sun_path, path);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return errorf(err, "socket: %s", strerror(errno));
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
			break;
		close(fd);
		if (errno != ENOENT && errno != ECONNREFUSED)
			return errorf(err, "cannot connect to '%s': %s", path, strerror(errno));
		if (now_ms() >= deadline_ms)
			return errorf(err, "channel socket '%s' never appeared", path);
		usleep(20000);
	}
	*ret = fd;
	return 0;
}

int channel_attach(struct channel *ch, int fd, char *err)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return errorf(err, "channel: %s", strerror(errno));
	ch->fd = fd;
	ch->len = 0;
	return 0;
}

void channel_close(struct channel *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	ch->fd = -1;
}

ssize_t channel_take_line(const char *buf, size_t len, size_t *consumed)
{
	const char *nl = memchr(buf, '\n', len);

	if (!nl)
		return -1;
	*consumed = (size_t)(nl - buf) + 1;
	return nl - buf;
}

/*
 * The line of n bytes at the buffer's start parsed into msg, and used bytes
 * (the line and its newline) dropped from the buffer.
 */
static enum channel_status parse_line(struct channel *ch, size_t n, size_t used,
				      struct proto_msg *msg, char *err)
{
	int ok = proto_parse(ch->buf, n, msg, err, ERR_MAX);

	memmove(ch->buf, ch->buf + used, ch->len - used);
	ch->len -= used;
	ch->taken += used;
	return ok == 0 ? CH_MSG : CH_BAD;
}

enum channel_status channel_recv(struct channel *ch, struct proto_msg *msg, int64_t deadline_ms,
				 char *err)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	size_t used;
	ssize_t n;
	int64_t left;

	for (;;) {
		n = channel_take_line(ch->buf, ch->len, &used);
		if (n >= 0)
			return parse_line(ch, (size_t)n, used, msg, err);
		if (ch->len == sizeof(ch->buf)) {
			errorf(err, "guest sent a line longer than %d bytes", PROTO_LINE_MAX);
			return CH_BAD;
		}
		left = deadline_ms - now_ms();
		if (left <= 0)
			return CH_TIMEOUT;
		if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR) {
			errorf(err, "poll: %s", strerror(errno));
			return CH_EOF;
		}
		n = read(ch->fd, ch->buf + ch->len, sizeof(ch->buf) - ch->len);
		if (n == 0)
			return CH_EOF;
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			errorf(err, "channel read: %s", strerror(errno));
			return CH_EOF;
		}
		if (n > 0)
			ch->len += (size_t)n;
	}
}

int channel_send(struct channel *ch, const struct proto_msg *msg, char *err)
{
	char line[PROTO_LINE_MAX];
	struct pollfd pfd = { .fd = ch->fd, .events = POLLOUT };
	int len = proto_format(msg, line, sizeof(line));
	size_t off = 0;
	ssize_t n;

	if (len < 0)
		return errorf(err, "message does not fit a %d-byte line", PROTO_LINE_MAX);
	while (off < (size_t)len) {
		n = write(ch->fd, line + off, (size_t)len - off);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (poll(&pfd, 1, 5000) <= 0)
				return errorf(err, "channel write timed out");
			continue;
		}
		if (n < 0)
			return errorf(err, "channel write: %s", strerror(errno));
		off += (size_t)n;
	}
	return 0;
}
