/* store_phases.h -- where each run's time went (schema 10): its phases' ends
 * as the runner marks them, and every run's phases of a matrix read back. */
#ifndef STORE_PHASES_H
#define STORE_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Run run's phases: names[i] ended at at[i] (wall ms; 0: not reached, not written). */
int store_run_phases(struct store *s, int64_t run, const char *const *names,
		     const int64_t *at, size_t n, char *err);

struct phase_row {
	int64_t run, slot;          /* slot: -1 where none was recorded */
	char status[16];
	char phase[16];
	int64_t at_ms;
	char start[8];              /* boot, save or restore; "" where not recorded */
	int64_t save_bytes;         /* start save: what the save takes on disk; else -1 */
};

/* fn for each phase of each run of matrix mid, by run; fn's -1 stops (out of memory). */
int store_matrix_phases(struct store *s, int64_t mid,
			int (*fn)(const struct phase_row *row, void *arg), void *arg, char *err);

#endif
