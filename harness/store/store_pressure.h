/* store_pressure.h -- the host's pressure beside a run's samples (schema 15):
 * a row per interval the guest reported, what the quiet-host gate did before
 * the run, and whether its measured window was contended. */
#ifndef STORE_PRESSURE_H
#define STORE_PRESSURE_H

#include <stdint.h>

#include "store/store.h"

/*
 * One reading of the host as interval seq of run arrived (seq -1: as the job
 * was sent): ms on the host's monotonic clock, PSI's stall totals in µs
 * (NAN for a total the host has none of: cpu full before Linux 5.13, all
 * without PSI), its 1-minute load (NAN if unread).
 */
struct store_pressure {
	int64_t seq, ms;
	double cpu_some, cpu_full, io_some, io_full, load;
};

/* One interval's host pressure totals and load beside the run's samples. */
int store_host_pressure(struct store *s, int64_t run, const struct store_pressure *p, char *err);

/* The gate before run: how long it waited, and whether it started busy anyway. */
int store_run_quiet(struct store *s, int64_t run, int64_t waited_ms, int busy, char *err);

/*
 * The measured window of run: the shares of its wall time stalled (cpu and
 * io "some", NAN without PSI), the mean load per core in % (NAN if unread),
 * contended 0 or 1 and why ("cpu some 37.2% > 25%"; NULL when not).
 */
int store_run_contended(struct store *s, int64_t run, double cpu_pct, double io_pct,
			double load_pct, int contended, const char *why, char *err);

#endif
