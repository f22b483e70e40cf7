/* plot.h -- time-series charts as SVG text drawn from the database: per cell,
 * a metric per interval per arm (median of its runs, min-max band) with the
 * ramp shaded and stream events marked, and each file's page-cache residency. */
#ifndef PLOT_H
#define PLOT_H

#include <stdint.h>
#include <stdio.h>

#include "spec/conf.h"
#include "analysis/metric.h"
#include "store/store.h"

#define PLOT_DEFAULT_METRIC "ops/s"

/* One cell's done runs and events, loaded once for all its charts. */
struct plot_cell;

/* Load cell (index) of matrix mid. Returns 0, or -1 with err. */
int plot_cell_load(struct store *s, int64_t mid, unsigned cell, struct plot_cell **ret, char *err);
void plot_cell_free(struct plot_cell *pc);
/* The cell's declared files, and the name of one. */
unsigned plot_cell_files(const struct plot_cell *pc);
const char *plot_cell_file_name(const struct plot_cell *pc, unsigned file);

/*
 * Write one chart as a complete <svg> element to f: the metric m (it must
 * have a per-interval accessor) or the resident MiB of one file, one median
 * path (class "median", data-arm NAME) and band per arm with done runs.
 * Returns 0, or -1 with err (out of memory).
 */
int plot_metric_svg(FILE *f, const struct plot_cell *pc, const struct metric *m, char *err);
int plot_file_svg(FILE *f, const struct plot_cell *pc, unsigned file, char *err);

/* A per-interval metric by name, or -1 with err listing the ones there are. */
int plot_find_metric(const char *name, const struct metric **ret, char *err);

/*
 * The arguments plot and report share: MATRIX, -o PATH (*out, NULL if not
 * given), --metric NAME up to max times into ms[*n]. Returns 0 to go on, or
 * -1 with the exit code in *rc after printing usage (cmd's) or the error.
 */
int plot_args(int argc, char **argv, const char *cmd, const char *usage, const char **out,
	      const struct metric **ms, unsigned max, unsigned *n, int *rc);

/* `harness plot MATRIX [-o DIR] [--metric NAME]...` (argv[0] "plot"): exit 0 or 1. */
int plot_main(const struct conf *c, int argc, char **argv);

#endif
