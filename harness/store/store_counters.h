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

/*
 * The counters of source src in matrix mid: key NULL, every key that changed
 * in some done run, over the runs' measured intervals (sorted by key, cell,
 * arm); else that key, per interval (sorted by cell, seq, arm). *ret malloc'd.
 */
int store_counter_means(struct store *s, int64_t mid, const char *src, const char *key,
			struct counter_mean **ret, size_t *ret_n, char *err);

#endif
