/* fuzz_api.c -- libFuzzer target: raw HTTP requests to the daemon's real API
 * (api_start: libmicrohttpd, routes, queue, SQLite) over its unix socket, and
 * over TCP with a bearer token when the input carries an Authorization header. */
#define _GNU_SOURCE
#include "daemon/api.h"
#include "base/err.h"
#include "fuzzlib.h"
#include "base/proc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define REPLY_MAX  (64 * 1024)   /* kept of a response; the rest is read and dropped */
#define WAIT_MS    30000         /* no answer this long is a hang: abort (a stream a
                                    client left holds its slot up to 15 s) */

static struct conf conf;
static struct api *api;
static unsigned port;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[ERR_MAX];

	(void)argc;
	(void)argv;
	if (fuzz_conf(&conf, err) < 0 ||
	    pathf(conf.api_socket, err, "%s/harnessd.sock", conf.results) < 0) {
		fprintf(stderr, "fuzz_api: %s\n", err);
		exit(1);
	}
	snprintf(conf.api_tcp, sizeof(conf.api_tcp), "127.0.0.1:0");
	snprintf(conf.api_token, sizeof(conf.api_token), "fuzz-token");
	if (api_start(&conf, &api, err) < 0) {
		fprintf(stderr, "fuzz_api: api_start: %s\n", err);
		exit(1);
	}
	port = api_tcp_port(api);
	return 0;
}

static int dial(int tcp)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", conf.api_socket);
	if (fd < 0)
		return -1;
	if ((tcp ? connect(fd, (struct sockaddr *)&sin, sizeof(sin)) :
		   connect(fd, (struct sockaddr *)&sun, sizeof(sun))) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Write the request and half-close: the daemon sees where it ends. */
static void send_request(int fd, const uint8_t *data, size_t size)
{
	ssize_t n;

	while (size > 0 && (n = send(fd, data, size, MSG_NOSIGNAL)) > 0) {
		data += n;
		size -= (size_t)n;
	}
	shutdown(fd, SHUT_WR);
}

/*
 * The sample stream never ends by itself while its run goes on: its head and
 * a first line are enough. It is chunked to an HTTP/1.1 client and delimited
 * by the connection's close to an HTTP/1.0 one (no chunks there): either way
 * a body without a Content-Length.
 */
static int streaming(const char *reply, size_t len)
{
	const char *end = memmem(reply, len, "\r\n\r\n", 4);
	size_t head = end ? (size_t)(end - reply) : 0;

	return end && head + 4 < len && (memmem(reply, head, "chunked", 7) ||
					 !memmem(reply, head, "Content-Length:", 15));
}

/* Read until the daemon closes (or streams); -1 if it hangs. */
static int read_reply(int fd, char *reply, size_t *len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t deadline = now_ms() + WAIT_MS;
	char sink[4096];
	ssize_t n;

	*len = 0;
	for (;;) {
		if (now_ms() >= deadline)
			return -1;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = *len < REPLY_MAX ? read(fd, reply + *len, REPLY_MAX - *len) :
				       read(fd, sink, sizeof(sink));
		if (n <= 0)
			return n == 0 || errno == ECONNRESET ? 0 : -1;
		if (*len < REPLY_MAX)
			*len += (size_t)n;
		if (streaming(reply, *len))
			return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char reply[REPLY_MAX];
	int tcp = memmem(data, size, "Authorization:", 14) != NULL;
	int fd = dial(tcp);
	size_t len;

	if (fd < 0) {
		fprintf(stderr, "fuzz_api: cannot connect: %s\n", strerror(errno));
		abort();
	}
	send_request(fd, data, size);
	if (read_reply(fd, reply, &len) < 0) {
		fprintf(stderr, "fuzz_api: no answer within %d ms\n", WAIT_MS);
		abort();
	}
	/* whatever was asked, an answer is HTTP (or nothing, for what is not a request) */
	if (len > 0 && (len < 5 || memcmp(reply, "HTTP/", 5)))
		abort();
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%.*s\n", (int)len, reply);   /* when reproducing */
	close(fd);
	return 0;
}
