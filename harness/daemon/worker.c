/* worker.c -- the loop the resolver and the bisector share: the next item
 * from the store, handled alone, errors logged, until told to stop. */
#include "daemon/worker.h"
#include "base/err.h"
#include "daemon/log.h"
#include "daemon/wake.h"

#include <unistd.h>

/*
 * A worker's thread: the next item handled alone, errors logged; after an
 * item the slots are woken, without one it waits to be woken or idle_ms.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char err[ERR_MAX];
	unsigned seen;
	int64_t id;

	while (!atomic_load(&w->stop)) {
		seen = wake_seen();
		if (w->next(w->store, &id, err) < 0 || (id && w->one(w->arg, id, err) < 0)) {
			hlog("%s: %s", w->name, err);
			id = 0;
		}
		if (id)
			wake_all();   /* a matrix resolved, a step queued: the slots look now */
		else
			wake_wait(&seen, w->idle_ms);
	}
	return NULL;
}

int worker_start(const struct conf *c, struct worker *w, char *err)
{
	atomic_init(&w->stop, 0);
	if (store_open_results(c->results, &w->store, err) < 0)
		return -1;
	if (pthread_create(&w->th, NULL, worker_main, w) != 0) {
		store_close(w->store);
		w->store = NULL;
		return errorf(err, "cannot start the %s thread", w->name);
	}
	return 0;
}

void worker_stop(struct worker *w)
{
	atomic_store(&w->stop, 1);
	pthread_join(w->th, NULL);
	store_close(w->store);
	w->store = NULL;
}
