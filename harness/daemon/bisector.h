/* bisector.h -- the daemon's bisections: one at a time on a thread of their
 * own, each step queued as a matrix the scheduler runs, resumed after a restart. */
#ifndef BISECTOR_H
#define BISECTOR_H

#include "conf/conf.h"

struct bisector;
struct buildgate;

/*
 * Start the thread: it takes the oldest running bisection (store_bisect.h),
 * also one a stopped daemon left, and bisects (bisect_matrix.h): each
 * prefix built through gate, each step submitted as a matrix (queue.h) and
 * waited for until it is finished; its progress kept in the store and the
 * log; its result, or why it failed, stored at the end. After a restart a
 * bisection starts again from the top: its builds are cached and its steps'
 * matrices found by their specs with their runs, so nothing is measured twice.
 */
int bisector_start(const struct conf *c, struct buildgate *gate, struct bisector **ret,
		   char *err);

/* Stop: the bisection in hand stays running, to go on at the next start; then frees. */
void bisector_stop(struct bisector *b);

#endif
