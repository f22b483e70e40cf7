/* plot.h -- time-series charts as SVG text drawn from the database: per cell,
 * a metric per interval per arm (median of its runs, min-max band) with the
 * ramp shaded and stream events marked, the memcg's memory pressure and swap
 * traffic, and each file's page-cache residency. */
#ifndef PLOT_H
#define PLOT_H

#include <stdint.h>
#include <stdio.h>

#include "conf/conf.h"
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

/*
 * Where run's file pages were at each interval's end, stacked: its MGLRU
 * generations by age (youngest to oldest, a tick where one was made), or
 * without generations the classic LRU's inactive and active file lists;
 * arm names it. Returns 1 when drawn, 0 when the run stored neither, -1 with err.
 */
int plot_lru_svg(FILE *f, struct store *s, const struct plot_cell *pc, unsigned arm,
		 int64_t run, char *err);

/*
 * Charts of counters each interval stored beside the metrics, per arm a line
 * per counter: the memcg's memory pressure (PSI some and full, % of the
 * interval stalled) and swap traffic (pages swapped in and out per second,
 * zswap's loads and stores where a run has them).
 */
enum plot_counter_chart { PLOT_PRESSURE, PLOT_SWAP, PLOT_COUNTER_CHARTS };

/* Its name in words ("memory pressure", "swap"). */
const char *plot_counter_name(enum plot_counter_chart k);
/*
 * NULL when chart k says something for the cell (pressure: a done run stored
 * it; swap: one swapped a page), else one line saying why it is left out.
 */
const char *plot_counter_absent(const struct plot_cell *pc, enum plot_counter_chart k);
/* Chart k as a complete <svg> element (a median's data-series names its counter). */
int plot_counter_svg(FILE *f, const struct plot_cell *pc, enum plot_counter_chart k, char *err);

/* A per-interval metric by name, or -1 with err listing the ones there are. */
int plot_find_metric(const char *name, const struct metric **ret, char *err);

#define PLOT_METRICS_MAX 8   /* --metric options of one plot or report */

/* src as a file-name part in dst: letters, digits, . _ - kept, the rest '_'. */
void plot_slug(char *dst, size_t len, const char *src);

/*
 * Every chart of cell (each metric of ms, each file's residency) as
 * dir/cNN-CELL-WHAT.svg, each path printed on stdout. 0 or -1 with err.
 */
int plot_cell_write(struct store *s, int64_t mid, unsigned cell, const char *dir,
		    const struct metric *const *ms, unsigned nms, char *err);
#endif
