/* api.h -- the daemon's HTTP/JSON API (libmicrohttpd) on a unix socket and,
 * if harness.conf asks, on TCP with a bearer token.
 *
 * Routes (every body is compact JSON ending in '\n'; every error is a 4xx/5xx
 * with {"error": "one line"}; a head httphead_check refuses is a 400 that
 * closes the connection):
 *   GET  /health                        queue_health
 *   POST /matrices                      {"base_dir": "/abs", "spec": {...}} -> 201 queue_submit
 *   GET  /matrices                      queue_list
 *   GET  /matrices/KEY                  queue_matrix (KEY: an id or a name)
 *   POST /matrices/KEY/cancel|pause|resume  queue_control -> {"matrix": KEY, "action": A}
 *   POST /matrices/KEY/extend           {"max_blocks": N, "base": ARM, "new": ARM}
 *                                       (arms optional) -> extend_matrix's result
 *   POST /matrices/KEY/bisect           queue_bisect (429: bisections_max running)
 *   GET  /bisections?before=ID&limit=N  queue_bisections: the running ones, a page
 *                                       of ended ones (limit 100 by default, <= 1000)
 *   GET  /bisections/ID                 queue_bisection
 *   GET  /runs/ID/samples?after=N&max=M one page of queue_samples
 *   GET  /runs/ID/stream?after=N        chunked, one JSON object a line:
 *        first {"run", "status", "files", "streams"} (no "seq"),
 *        then every sample (as in queue_samples, it has "seq") as it arrives,
 *        last {"run", "status", "finished": true} once the run has ended and
 *        every sample was sent; an empty line now and then keeps it alive.
 */
#ifndef API_H
#define API_H

#include "conf/conf.h"
#include "daemon/gate.h"

#define API_BODY_MAX (1u << 20)   /* request bodies: 413 beyond this */
#define API_CONN_MAX 64           /* connections per listener */
#define API_IDLE_S   60           /* a connection idle this long is closed */

/* Connections before their head is in, on TCP with the token (gate.h): api_start's limits. */
#define API_HEADER_MS    10000    /* from accept to the request's headers in */
#define API_PEER_WAITING 8        /* from one address (IPv6: one /64) */
#define API_WAITING      32       /* in all, of API_CONN_MAX: the rest stay for token holders */

struct api;

/*
 * Listen on c->api_socket (mode 0600, or 0660 owned by c->api_group) and, if
 * c->api_tcp is set, on that HOST:PORT too (c->api_token must be set). A stale
 * socket file is replaced; one another daemon answers on is refused. Each
 * connection has a thread and a database connection of its own, opened on
 * <results>/harness.db. On both listeners the request's headers must be in
 * within API_HEADER_MS of accept (on TCP carrying the token), or the
 * connection is cut; a 401 closes it. The unix socket's clients are one peer
 * (API_WAITING of them may wait). c is copied. Returns 0, or -1 with err.
 */
int api_start(const struct conf *c, struct api **ret, char *err);

/* The same with the gates' limits (NULL: the API_* defaults above; the unix socket's
 * per_peer is its waiting). */
int api_start_limits(const struct conf *c, const struct gate_limits *lim, struct api **ret,
		     char *err);

struct sched;
/* The scheduler whose pause GET /health reports (the API starts before it). */
void api_set_sched(struct api *a, struct sched *sc);

/*
 * What api_start would refuse in c, by the same checks, without serving:
 * api_tcp without api_token, an api_tcp that does not parse, resolve or bind
 * (in use is fine: the daemon may be running), an unknown api_group, an
 * api_socket too long for sun_path, that exists as something else than a
 * socket, or whose directory is missing or not writable. Messages start with
 * path (NULL: "harness.conf"). For harnessd -n. Returns 0, or -1 with err.
 */
int api_check(const struct conf *c, const char *path, char *err);

/* The TCP port actually listened on (api_tcp may say port 0), 0 if none. */
unsigned api_tcp_port(const struct api *a);

/* Stop listening, end every stream, join every connection, remove the socket. */
void api_stop(struct api *a);

#endif
