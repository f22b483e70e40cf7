/* gate.h -- the API's door: a connection whose head (on TCP, with the token) is
 * not in yet gets a deadline from accept, and a peer only so many such waits. */
#ifndef GATE_H
#define GATE_H

#include <sys/socket.h>

struct gate_limits {
	unsigned header_ms;   /* accept to the token checked: then cut */
	unsigned per_peer;    /* waiting connections from one IPv4 address or IPv6 /64 */
	unsigned waiting;     /* waiting connections in all */
};

struct gate;

/*
 * A gate for at most slots connections (the listener's own limit; waiting
 * and per_peer at most that, header_ms at least 1), its watchdog thread
 * started. Returns 0, or -1 with err.
 */
int gate_new(const struct gate_limits *lim, unsigned slots, struct gate **ret, char *err);

/* Stop the watchdog and free g (after the listener is gone). NULL is fine. */
void gate_free(struct gate *g);

/*
 * A connection from sa is being accepted: make room for it. At per_peer
 * waits from its address the oldest of them is cut, at waiting in all the
 * oldest of all: a newcomer is never refused for others' slow headers, and a
 * peer's flood only pushes out its own connections.
 */
void gate_admit(struct gate *g, const struct sockaddr *sa);

/*
 * Track connection key (socket fd, peer sa) from now on: cut (shutdown) once
 * header_ms pass before gate_pass. Cut at once if there is no room.
 */
void gate_enter(struct gate *g, const void *key, int fd, const struct sockaddr *sa);

/*
 * Forget key: it showed the token (no deadline, no longer waiting) or it is
 * closing (call before its fd is closed). A key not tracked is fine.
 */
void gate_forget(struct gate *g, const void *key);

#endif
