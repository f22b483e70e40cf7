/* client.h -- the `harness` commands that talk to harnessd over its unix
 * socket with libcurl: submit, status, cancel, pause, resume, watch. */
#ifndef CLIENT_H
#define CLIENT_H

#include <jansson.h>

#include "spec/conf.h"

/* Is cmd one of the client's commands? */
int client_handles(const char *cmd);

/*
 * Run argv[0] (a command client_handles accepts) with its arguments against
 * the daemon at c->api_socket. json: print the daemon's JSON as it came, to
 * stdout, whatever the status. Returns the exit code: 0, or 1 on any error
 * (reported on stderr), a refused request, or a watched run that did not end
 * done.
 */
int client_main(const struct conf *c, int argc, char **argv, int json);

/*
 * POST body (JSON text) to path on the daemon at c->api_socket. 0: a 2xx
 * reply, *ret its JSON; 1: no daemon listens there (nothing was sent); -1:
 * an error reply or no usable answer, the daemon's message in err.
 */
int client_post(const struct conf *c, const char *path, const char *body, json_t **ret,
		char *err);
/* The same for a GET. */
int client_get(const struct conf *c, const char *path, json_t **ret, char *err);

#endif
