/* scheduler.h -- the daemon's guest slots: each claims the next ABBA block from
 * the queue and runs it back to back in fresh guests until told to stop. */
#ifndef SCHEDULER_H
#define SCHEDULER_H

#include <jansson.h>

#include "conf/conf.h"
#include "store/store.h"
#include "vm/vm.h"

struct sched;

struct buildgate;

/* Start the slots of every host (hosts.h), each with its own database
 * connection; no block starts while gate says a kernel compiles. libvirt
 * logs to log_path. */
int sched_start(const struct conf *c, const char *log_path, struct buildgate *gate,
		struct sched **ret, char *err);

/* The hosts, as `GET /hosts` lists them (s: the caller's database connection). */
json_t *sched_hosts_json(struct sched *sc, struct store *s);

/* Drain (on 1) or resume a host by name; -1 with why if there is no such host. */
int sched_host_drain(struct sched *sc, struct store *s, const char *name, int on, char *err);

/*
 * Stop: runs in flight end interrupted (their guests destroyed) and are
 * queued again as fresh boots; claimed blocks are given back. Waits for the
 * slots, then frees.
 */
void sched_stop(struct sched *s);

/*
 * Why the queue is paused, "" while it runs: a database write was refused
 * (disk full...). The run in flight then is re-queued, and the queue resumes,
 * once the database takes writes again; nothing committed is touched.
 */
void sched_pause_reason(struct sched *sc, char *buf, size_t len);

#endif
