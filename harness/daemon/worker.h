/* worker.h -- a daemon thread that takes the oldest waiting item of one kind
 * from the store, one at a time, until stopped: the resolver's and the bisector's. */
#ifndef WORKER_H
#define WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "conf/conf.h"
#include "store/store.h"

struct worker {
	const char *name;       /* in the log: "resolver: <error>" */
	/* the next item's id into *ret_id, 0 if none waits; -1 with err */
	int (*next)(struct store *s, int64_t *ret_id, char *err);
	/* item id in hand; -1 with err (logged, and the worker goes on) */
	int (*one)(void *arg, int64_t id, char *err);
	void *arg;
	unsigned idle_ms;       /* the store is asked this often when nothing waits */
	struct store *store;    /* the worker's own connection, for next and one */
	atomic_int stop;        /* set by worker_stop: one should return soon */
	pthread_t th;
};

/* Open w->store on c's results and start the thread (w's first five fields set). */
int worker_start(const struct conf *c, struct worker *w, char *err);

/* Set stop, wait for the item in hand, close the store. */
void worker_stop(struct worker *w);

#endif
