/* store_hosts.h -- what the database keeps per host: drained or not (an
 * operator's word, kept across restarts) and the runs each host did. */
#ifndef STORE_HOSTS_H
#define STORE_HOSTS_H

#include <stdint.h>

#include "store/store.h"

/* Drain (on 1: finish its blocks, claim nothing new) or resume a host. */
int store_set_host_drained(struct store *s, const char *host, int on, char *err);

/* 1 if the host is drained, 0 if not (or never named). */
int store_host_drained(struct store *s, const char *host, int *on, char *err);

/* Runs of the host: done, and ended another way (failed, interrupted...). */
int store_host_runs(struct store *s, const char *host, int64_t *done, int64_t *other, char *err);

#endif
