/* buildgate.h -- kernel builds and measured runs kept apart in the daemon: a
 * compile waits until no block is in flight, and no block starts during one. */
#ifndef BUILDGATE_H
#define BUILDGATE_H

#include <pthread.h>
#include <stdatomic.h>

struct buildgate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int building;        /* a compile is on */
	unsigned blocks;     /* ABBA blocks in flight */
};

void buildgate_init(struct buildgate *g);
void buildgate_destroy(struct buildgate *g);

/* Before a compile (busy 1): wait until no block is in flight, then hold the
 * gate; after it (busy 0): let blocks start again. kbuild_gate_fn's shape. */
void buildgate_build(struct buildgate *g, int busy);

/* Before a block: wait while a compile is on; 0, or -1 if *stop became set. */
int buildgate_block_begin(struct buildgate *g, atomic_int *stop);
void buildgate_block_end(struct buildgate *g);

#endif
