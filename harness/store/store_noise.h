/* store_noise.h -- what the database knows of noise: the A/A calibrations of a
 * host, per cell and metric (compare's floor, check's and submit's advice),
 * and the host's load as each run ended. */
#ifndef STORE_NOISE_H
#define STORE_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * A calibration belongs to the cell's job (as the guest gets it, JSON), the
 * guest's memory and vCPUs, the cell's architecture and the host its runs
 * ran on: any matrix with a cell of the same four finds it, whatever its name.
 */
struct calibration {
	unsigned cell;              /* index of the cell in the matrix read */
	char metric[24];
	char host[256];
	char at[32];                /* when it was stored, UTC */
	int64_t matrix_id;          /* the A/A matrix it was measured in */
	unsigned blocks;
	double mean, sd;            /* of the verdict's per-unit statistic: the log ratio
				     * (a difference in points / 100 for miss%) */
	double cv;                  /* of the runs' values, both arms */
};

/*
 * Store one: cell idx of A/A matrix mid, metric, what its blocks gave. The
 * host is the one most of mid's done runs ran on.
 */
int store_calibration_add(struct store *s, int64_t mid, unsigned cell, const char *metric,
			  unsigned blocks, double mean, double sd, double cv, char *err);

/*
 * The newest calibration of each cell and metric of stored matrix mid, on
 * host (NULL: the host most of mid's done runs ran on). *ret malloc'd, cell
 * order; none is no error.
 */
int store_calibrations(struct store *s, int64_t mid, const char *host, struct calibration **ret,
		       size_t *ret_n, char *err);

/* The same for a matrix not stored (check, submit), on host. */
int store_calibrations_for(struct store *s, const struct matrix *m, const char *host,
			   struct calibration **ret, size_t *ret_n, char *err);

/* The host's 1-minute load average as run ended (runs.host_load). */
int store_run_host_load(struct store *s, int64_t run, double load, char *err);

/* The highest host load of each cell's done runs of matrix mid into load[cell], NAN for none. */
int store_cell_host_loads(struct store *s, int64_t mid, double load[SPEC_MAX_CELLS], char *err);

#endif
