/* metric.h -- the per-run metrics every report and comparison speaks of,
 * described once: name, layout in tables, which way is better, averaging. */
#ifndef METRIC_H
#define METRIC_H

#include <stddef.h>

#include "store.h"

struct metric {
	const char *name;
	int width, decimals;   /* in tables */
	int delta;             /* the ABBA block shows its Delta % against the first arm */
	int abba;              /* shown in the ABBA block */
	int compared;          /* harness compare gives verdicts on it */
	int higher_better;
	int harmonic;          /* a throughput: harmonic mean within a block, as MMTests */
	double (*get)(const struct run_summary *r);
};

extern const struct metric metrics[];
extern const size_t n_metrics;

/* The metric called name, or NULL. */
const struct metric *metric_find(const char *name);

#endif
