/* buildgate.c -- one mutex and condition between the daemon's compiles and its
 * slots' blocks, and each holder's build.lock beneath for other processes. */
#include "daemon/buildgate.h"
#include "base/err.h"
#include "common/fmt.h"

#include <stdio.h>
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

/* In this daemon: no block starts from now on, and those in flight end first. */
static void build_enter(struct buildgate *g)
{
	pthread_mutex_lock(&g->mu);
	g->building++;
	while (g->blocks > 0)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

/* The last compile of this daemon ended: blocks may start. */
static void build_leave(struct buildgate *g)
{
	pthread_mutex_lock(&g->mu);
	if (--g->building == 0)
		pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

int buildgate_build(struct buildgate *g, struct buildlock *l, int busy,
		    buildlock_tell_fn tell, void *arg, char *err)
{
	char why[ERR_MAX];

	if (!busy) {
		buildlock_drop(l);
		build_leave(g);
		return 0;
	}
	build_enter(g);
	if (buildlock_take(l, BUILDLOCK_BUILDING, tell, arg, NULL, why) < 0) {
		build_leave(g);
		return errorf(err, "build gate: %s", why);
	}
	return 0;
}

/* In this daemon: wait while a compile is on, then count the block in. */
static int block_enter(struct buildgate *g, atomic_int *stop)
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

/* A measured block ends: one fewer, and a compile waiting for none may go. */
static void block_leave(struct buildgate *g)
{
	pthread_mutex_lock(&g->mu);
	g->blocks--;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

int buildgate_block_begin(struct buildgate *g, struct buildlock *l, atomic_int *stop,
			  buildlock_tell_fn tell, void *arg)
{
	char err[ERR_MAX], line[ERR_MAX + 64];

	if (block_enter(g, stop) < 0)
		return -1;
	if (buildlock_take(l, BUILDLOCK_MEASURING, tell, arg, stop, err) == 0)
		return 0;
	if (!atomic_load(stop) && tell) {
		fmtcut(line, sizeof(line), "build gate: %s; the block does not start", err);
		tell(arg, line);
	}
	block_leave(g);
	return -1;
}

void buildgate_block_end(struct buildgate *g, struct buildlock *l)
{
	buildlock_drop(l);
	block_leave(g);
}
