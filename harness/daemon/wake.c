/* wake.c -- the daemon's "there may be work" signal: a generation counter
 * under a mutex and a condition variable on the monotonic clock. */
#include "daemon/wake.h"

#include <pthread.h>
#include <time.h>

static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond;
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static unsigned wake_gen;

/* The wake condition on CLOCK_MONOTONIC, once (pthread_once). */
static void wake_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&wake_cond, &a);
	pthread_condattr_destroy(&a);
}

unsigned wake_seen(void)
{
	unsigned g;

	pthread_once(&wake_once, wake_init);
	pthread_mutex_lock(&wake_lock);
	g = wake_gen;
	pthread_mutex_unlock(&wake_lock);
	return g;
}

void wake_all(void)
{
	pthread_once(&wake_once, wake_init);
	pthread_mutex_lock(&wake_lock);
	wake_gen++;
	pthread_cond_broadcast(&wake_cond);
	pthread_mutex_unlock(&wake_lock);
}

void wake_wait(unsigned *seen, unsigned ms)
{
	struct timespec until;

	pthread_once(&wake_once, wake_init);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&wake_lock);
	while (wake_gen == *seen)
		if (pthread_cond_timedwait(&wake_cond, &wake_lock, &until) != 0)
			break;
	*seen = wake_gen;
	pthread_mutex_unlock(&wake_lock);
}
