/* client.h -- harnessd's API as the `harness` commands reach it: a request
 * over the daemon's unix socket with libcurl, JSON in and out, or a stream. */
#ifndef CLIENT_H
#define CLIENT_H

#include <jansson.h>

#include "conf/conf.h"

#define CLIENT_LINE_MAX (1 << 16)   /* a streamed line (one sample) fits */

/* libcurl's set-up for client_call and client_stream, once a process; -1 with err. */
int client_start(char *err);
void client_stop(void);

/*
 * method path [body] to the daemon at c->api_socket (after client_start).
 * json: the reply is printed as it came, to stdout, whatever its status, and
 * *ret stays NULL. Otherwise, on a 2xx, *ret is the parsed body. Returns 0;
 * -1 with the daemon's error (or why there was no answer) in err; -2 in
 * JSON mode when the reply was an error (printed already).
 */
int client_call(const struct conf *c, const char *method, const char *path, const char *body,
		int json, json_t **ret, char *err);

/*
 * A streamed GET (after client_start): fn gets each line of a 200 reply
 * without its newline (len 0: a keep-alive), and stops the stream by
 * returning -1. Returns 0 when the stream ended or fn stopped it, -1 with
 * err (an error reply, a line over CLIENT_LINE_MAX, no answer), -2 in JSON
 * mode when the error reply was printed to stdout.
 */
typedef int client_line_fn(void *cls, const char *line, size_t len);
int client_stream(const struct conf *c, const char *path, int json, client_line_fn *fn,
		  void *cls, char *err);

/*
 * POST body (JSON text) to path on the daemon at c->api_socket, with its own
 * libcurl set-up (for commands that work with or without a daemon). 0: a
 * 2xx reply, *ret its JSON; 1: no daemon listens there (nothing was sent);
 * -1: an error reply or no usable answer, the daemon's message in err.
 */
int client_post(const struct conf *c, const char *path, const char *body, json_t **ret,
		char *err);
/* The same for a GET. */
int client_get(const struct conf *c, const char *path, json_t **ret, char *err);

/* A reply's integer at key (0 if there is none). */
static inline json_int_t reply_int(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* A reply's string at key, or def. */
static inline const char *reply_str(const json_t *o, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : def;
}

#endif
