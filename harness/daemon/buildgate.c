/* buildgate.c -- one mutex and condition between the resolver's compiles and
 * the slots' blocks: either kind of work waits for the other to finish. */
#include "daemon/buildgate.h"

#include <time.h>

void buildgate_init(struct buildgate *g)
{
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->building = 0;
	g->blocks = 0;
}

void buildgate_destroy(struct buildgate *g)
{
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
}

void buildgate_build(struct buildgate *g, int busy)
{
	pthread_mutex_lock(&g->mu);
	if (busy) {
		g->building = 1;          /* no block starts from now on ... */
		while (g->blocks > 0)     /* ... and those in flight end first */
			pthread_cond_wait(&g->cv, &g->mu);
	} else {
		g->building = 0;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
}

int buildgate_block_begin(struct buildgate *g, atomic_int *stop)
{
	struct timespec ts;

	pthread_mutex_lock(&g->mu);
	while (g->building && !atomic_load(stop)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;   /* a stop is seen within a second */
		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
	}
	if (atomic_load(stop)) {
		pthread_mutex_unlock(&g->mu);
		return -1;
	}
	g->blocks++;
	pthread_mutex_unlock(&g->mu);
	return 0;
}

void buildgate_block_end(struct buildgate *g)
{
	pthread_mutex_lock(&g->mu);
	g->blocks--;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}
