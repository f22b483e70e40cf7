/* countertable.h -- `harness vmstat MATRIX`: any named counter's change per cell and
 * arm (every /proc/vmstat key, zram's, zswap's, the reclaim stall histogram's). */
#ifndef COUNTERTABLE_H
#define COUNTERTABLE_H

#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/*
 * Per cell, a column per arm: with key NULL, every counter of source src
 * that changed in some done run, its change over a run's measured
 * intervals, mean over the arm's done runs; with a key, that counter's
 * change interval by interval. Returns 0, or -1 with err (a source not
 * known, a key that is not a counter's name).
 */
int counter_table(FILE *f, struct store *s, int64_t mid, const char *src, const char *key,
		  char *err);

#endif
