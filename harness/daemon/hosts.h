/* hosts.h -- the machines the daemon's guest slots run on: each one's libvirt
 * connection, up or down (retried with backoff), drained or not, and its use.
 *
 * A host is connected when a slot first wants it; a host whose connection
 * fails or dies is down and asked again after 1, 2, 4... s (at most 60);
 * a drained host finishes the blocks it has and claims nothing new.
 */
#ifndef HOSTS_H
#define HOSTS_H

#include <jansson.h>

#include "conf/conf.h"
#include "store/store.h"
#include "vm/vm.h"

struct host;
struct hosts;

/* The hosts of c (conf_hosts()), none connected yet; libvirt logs to log_path. */
int hosts_open(const struct conf *c, const char *log_path, struct store *s, struct hosts **ret,
	       char *err);
void hosts_close(struct hosts *hs);

/* Connect this machine's hosts (the embedded driver) now: they fail the start, not a slot. */
int hosts_connect_local(struct hosts *hs, char *err);

/* How many hosts hs has; the i-th (NULL past the end); a host's harness.conf name. */
unsigned hosts_count(const struct hosts *hs);
struct host *hosts_at(struct hosts *hs, unsigned i);
const char *host_name(const struct host *h);
/* Guest slots: the host line's, or conf's guests for this machine. */
unsigned host_slots(const struct host *h, const struct conf *c);

/*
 * The host's connection for a slot about to claim a block, or NULL: drained,
 * down until its next retry, or failing again now (logged once per change).
 */
struct vm_conn *host_acquire(struct host *h);

/*
 * The archs whose cells the host runs, space-separated (conf's, else its
 * own); "", which claims no block, if they do not fit buf.
 */
void host_archs(struct host *h, char *buf, size_t len);

/* The connection died under a run: down now, retried with backoff. */
void host_lost(struct host *h, const char *why);

/* A slot begins (+1) or ends (-1) a block on h. */
void host_busy(struct host *h, int delta);

/* Drain (1) or resume (0) the host named name, kept in the database; -1 if none is. */
int hosts_drain(struct hosts *hs, struct store *s, const char *name, int on, char *err);

/* Every host as JSON: name, uri, state, drained, slots, busy, archs, accel, runs, error. */
json_t *hosts_json(struct hosts *hs, struct store *s, const struct conf *c);

/* The accelerator the host's own-arch guests get (decided once, by the first matrix with such a cell). */
const char *host_accel(struct host *h, const struct conf *c, const struct matrix *m);

#endif
