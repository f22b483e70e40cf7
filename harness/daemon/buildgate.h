/* buildgate.h -- kernel builds and measured runs kept apart: in the daemon (a
 * compile waits until no block is in flight, and no block starts during one)
 * and, underneath, across processes on the results directory (base/lock.h). */
#ifndef BUILDGATE_H
#define BUILDGATE_H

#include "base/lock.h"

#include <pthread.h>
#include <stdatomic.h>

struct buildgate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned building;   /* compiles on (or waiting for the blocks in flight) */
	unsigned blocks;     /* ABBA blocks in flight */
};

/* Set up and tear down g's lock and condition (no compile, no block in flight). */
void buildgate_init(struct buildgate *g);
void buildgate_destroy(struct buildgate *g);

/*
 * Before a compile (busy 1): wait until no block of this daemon is in
 * flight, then take l (the compiling thread's own, open) as building, which
 * waits for other processes' blocks and compiles; after it (busy 0): let go
 * of l and let blocks start again. A wait across processes is said through
 * tell (may be NULL). -1 with err if l cannot be taken: nothing is held then
 * and the build stops before compiling.
 */
int buildgate_build(struct buildgate *g, struct buildlock *l, int busy,
		    buildlock_tell_fn tell, void *arg, char *err);

/*
 * Before a block: wait while a compile of this daemon is on, then take l (the
 * slot's own, open) as measuring, waiting while another process compiles
 * (said through tell). 0, or -1 if *stop became set (nothing held then).
 */
int buildgate_block_begin(struct buildgate *g, struct buildlock *l, atomic_int *stop,
			  buildlock_tell_fn tell, void *arg);
void buildgate_block_end(struct buildgate *g, struct buildlock *l);

#endif
