/* gate.c -- connections whose head is not in yet: a table under one
 * lock, caps per peer and in all, and a watchdog thread that cuts late ones. */
#include "daemon/gate.h"
#include "base/err.h"
#include "base/proc.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* A peer as compared: IPv4 (v4-mapped too) by address, IPv6 by its /64. */
struct peer {
	unsigned char family;     /* 4, 6, or 0 for anything else (one peer) */
	unsigned char addr[8];
};

struct wait {
	const void *key;          /* NULL: a free slot */
	int fd;
	struct peer peer;
	int64_t since_ms;         /* accepted (now_ms) */
	int cut;                  /* shut down, closing: no longer counted */
};

struct gate {
	struct gate_limits lim;
	unsigned slots;
	struct wait *w;           /* slots entries */
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* an entry came, or stop */
	pthread_t watchdog;
	int stop;
};

/*
 * Who a connection is from, for the per-peer limit: an IPv4 address (a
 * mapped one too), or an IPv6 /64 (one host hands out a whole /64).
 */
static struct peer peer_of(const struct sockaddr *sa)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	struct peer p;

	memset(&p, 0, sizeof(p));
	if (sa && sa->sa_family == AF_INET) {
		p.family = 4;
		memcpy(p.addr, &s4->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		p.family = 4;
		memcpy(p.addr, s6->sin6_addr.s6_addr + 12, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		p.family = 6;
		memcpy(p.addr, s6->sin6_addr.s6_addr, 8);
	}
	return p;
}

/* Shut the socket down: its connection thread sees the end and closes it. */
static void cut(struct wait *w)
{
	shutdown(w->fd, SHUT_RDWR);
	w->cut = 1;
}

/* Waiting (not cut) connections from p, NULL: from anyone; the oldest in *oldest. */
static unsigned count_waiting(const struct gate *g, const struct peer *p, struct wait **oldest)
{
	unsigned i, n = 0;
	struct wait *w;

	*oldest = NULL;
	for (i = 0; i < g->slots; i++) {
		w = &g->w[i];
		if (!w->key || w->cut || (p && memcmp(&w->peer, p, sizeof(*p))))
			continue;
		n++;
		if (!*oldest || w->since_ms < (*oldest)->since_ms)
			*oldest = w;
	}
	return n;
}

/* The gate's entry of connection key, or NULL. */
static struct wait *find(const struct gate *g, const void *key)
{
	unsigned i;

	for (i = 0; i < g->slots; i++)
		if (g->w[i].key == key)
			return &g->w[i];
	return NULL;
}

/* Cut what is past its deadline; the next deadline, or INT64_MAX if none. */
static int64_t cut_late(struct gate *g, int64_t now)
{
	int64_t next = INT64_MAX, due;
	struct wait *w;
	unsigned i;

	for (i = 0; i < g->slots; i++) {
		w = &g->w[i];
		if (!w->key || w->cut)
			continue;
		due = w->since_ms + g->lim.header_ms;
		if (due <= now)
			cut(w);
		else if (due < next)
			next = due;
	}
	return next;
}

/*
 * The gate's watchdog thread: sleeps until the next deadline (or a new
 * entry), then cuts every connection past it, until stop.
 */
static void *watch(void *arg)
{
	struct gate *g = arg;
	struct timespec ts;
	int64_t next;

	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		next = cut_late(g, now_ms());
		if (next == INT64_MAX) {
			pthread_cond_wait(&g->wake, &g->lock);
			continue;
		}
		ts.tv_sec = next / 1000;
		ts.tv_nsec = (next % 1000) * 1000000L;
		pthread_cond_timedwait(&g->wake, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* The gate's mutex and a condition on CLOCK_MONOTONIC (now_ms's); -1 with err. */
static int sync_init(struct gate *g, char *err)
{
	pthread_condattr_t ca;
	int rc;

	if (pthread_mutex_init(&g->lock, NULL))
		return errorf(err, "gate: cannot make a mutex");
	rc = pthread_condattr_init(&ca);
	if (!rc)
		rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);   /* now_ms's clock */
	if (!rc)
		rc = pthread_cond_init(&g->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (rc) {
		pthread_mutex_destroy(&g->lock);
		return errorf(err, "gate: cannot make a condition variable");
	}
	return 0;
}

int gate_new(const struct gate_limits *lim, unsigned slots, struct gate **ret, char *err)
{
	struct gate *g;

	if (!lim->header_ms || !lim->per_peer || lim->per_peer > lim->waiting ||
	    lim->waiting > slots)
		return errorf(err, "gate: expected 1 <= per_peer (%u) <= waiting (%u) <= slots "
			      "(%u) and header_ms > 0", lim->per_peer, lim->waiting, slots);
	g = calloc(1, sizeof(*g));
	if (g)
		g->w = calloc(slots, sizeof(*g->w));
	if (!g || !g->w) {
		free(g);
		return errorf(err, "out of memory");
	}
	g->lim = *lim;
	g->slots = slots;
	if (sync_init(g, err) < 0) {
		free(g->w);
		free(g);
		return -1;
	}
	if (pthread_create(&g->watchdog, NULL, watch, g)) {
		pthread_cond_destroy(&g->wake);
		pthread_mutex_destroy(&g->lock);
		free(g->w);
		free(g);
		return errorf(err, "gate: cannot start its watchdog thread");
	}
	*ret = g;
	return 0;
}

void gate_free(struct gate *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = 1;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->watchdog, NULL);
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g->w);
	free(g);
}

void gate_admit(struct gate *g, const struct sockaddr *sa)
{
	struct peer p = peer_of(sa);
	struct wait *old;

	pthread_mutex_lock(&g->lock);
	if (count_waiting(g, &p, &old) >= g->lim.per_peer)
		cut(old);
	if (count_waiting(g, NULL, &old) >= g->lim.waiting)
		cut(old);
	pthread_mutex_unlock(&g->lock);
}

void gate_enter(struct gate *g, const void *key, int fd, const struct sockaddr *sa)
{
	struct wait *w;

	pthread_mutex_lock(&g->lock);
	w = find(g, NULL);
	if (w) {
		*w = (struct wait){ .key = key, .fd = fd, .peer = peer_of(sa), .since_ms = now_ms() };
		pthread_cond_signal(&g->wake);
	} else {
		shutdown(fd, SHUT_RDWR);   /* more connections than slots: cannot happen */
	}
	pthread_mutex_unlock(&g->lock);
}

void gate_forget(struct gate *g, const void *key)
{
	struct wait *w;

	pthread_mutex_lock(&g->lock);
	w = key ? find(g, key) : NULL;
	if (w)
		memset(w, 0, sizeof(*w));
	pthread_mutex_unlock(&g->lock);
}
