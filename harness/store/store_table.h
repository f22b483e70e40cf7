/* store_table.h -- what `harness table` reads beyond the run summaries: each
 * done run's p99 latency and its residency at scan pass ends. */
#ifndef STORE_TABLE_H
#define STORE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * Fill lat_p99_us, pass_resident_share and the MGLRU figures of the
 * summaries v[0..n) of matrix_id's done runs (NAN where a run has none: no
 * stream reported a latency, no pass ended, no generations were read), and their per-operation rates (store_op_rates).
 * Sorts v by run id. Returns 0 or -1 with err.
 */
int store_table_extras(struct store *s, int64_t matrix_id, struct run_summary *v, size_t n,
		       char *err);

#endif
