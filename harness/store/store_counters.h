/* store_counters.h -- the named counters of a matrix's runs read back (the counters
 * table: /proc/vmstat, zram, zswap, reclaim stalls), per cell and arm, for `harness vmstat`. */
#ifndef STORE_COUNTERS_H
#define STORE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"
#include "store/store.h"

/*
 * One counter of one cell and arm: its change over the measured intervals of
 * a run (seq -1), or over interval seq, as the mean over the arm's done runs
 * in the cell (a run without a row for it changed it by 0).
 */
struct counter_mean {
	unsigned cell, arm, runs;
	int64_t seq;
	char key[PROTO_COUNTER_KEY_MAX];
	double mean;
};

/* A row of store_counter_each: 0 goes on, -1 stops the read ("out of memory"). */
typedef int (*counter_mean_fn)(void *arg, const struct counter_mean *m);

/*
 * The counters of source src in matrix mid, each row to fn as it is read
 * (nothing kept: a matrix of many keys and intervals streams): key NULL,
 * every key that changed in some done run, over the runs' measured
 * intervals (sorted by cell, key, arm); else that key, per interval (sorted
 * by cell, seq, arm).
 */
int store_counter_each(struct store *s, int64_t mid, const char *src, const char *key,
		       counter_mean_fn fn, void *arg, char *err);

#endif
