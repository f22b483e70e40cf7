/* store_ops.h -- per-operation rates and latency of each done run (YCSB's
 * read, update, insert, scan, read-modify-write) from op_samples' totals. */
#ifndef STORE_OPS_H
#define STORE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * Fill op_per_s, op_p99_us, op_mean_us and op_max_us of the summaries
 * v[0..n) of matrix_id's done runs, sorted by run id: each operation's
 * measured total (ramp excluded) over all streams, per second of measured
 * time, its p99 and mean weighted by each stream's count, and its maximum;
 * NAN where the run has none. Returns 0 or -1 with err.
 */
int store_op_rates(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		   char *err);

#endif
