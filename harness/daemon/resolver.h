/* resolver.h -- the daemon's resolver: matrices submitted only parsed get
 * their kernels fetched, built and checked on a thread of their own. */
#ifndef RESOLVER_H
#define RESOLVER_H

#include "conf/conf.h"

struct resolver;

/*
 * Start the thread: it takes the oldest "resolving" matrix (store.h), also
 * those a stopped daemon left so, parses its stored spec, spec_resolve()s
 * it (each step logged and kept as the matrix's resolve_msg), and marks it
 * "resolved" (its runs may start) or "unresolved" with the one-line reason.
 * A kernel compile of a source arm passes gate: it waits until no block is
 * in flight, and no block starts until it ends.
 */
struct buildgate;
int resolver_start(const struct conf *c, struct buildgate *gate, struct resolver **ret,
		   char *err);

/* Stop: a download or package build in hand is waited for; then frees. */
void resolver_stop(struct resolver *r);

#endif
