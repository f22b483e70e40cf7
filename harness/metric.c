/* metric.c -- the table of per-run metrics: reports lay them out, compare
 * judges them; event rates and ratios can be 0, so only ops/s is harmonic. */
#include "metric.h"

#include <string.h>

static double get_ops(const struct run_summary *r) { return r->ops_per_s; }
static double get_refault(const struct run_summary *r) { return r->refault_per_s; }
static double get_majflt(const struct run_summary *r) { return r->majflt_per_s; }
static double get_per_read(const struct run_summary *r) { return r->refaults_per_read; }
static double get_resident(const struct run_summary *r) { return 100.0 * r->resident_share; }
static double get_miss(const struct run_summary *r) { return 100.0 * r->miss_share; }

const struct metric metrics[] = {
	/* name       width dec delta abba cmp higher harmonic */
	{ "ops/s",     10, 0, 1, 1, 1, 1, 1, get_ops },
	{ "refault/s", 9,  0, 1, 1, 1, 0, 0, get_refault },
	{ "majflt/s",  8,  0, 0, 1, 1, 0, 0, get_majflt },
	{ "rf/read",   7,  4, 0, 1, 1, 0, 0, get_per_read },
	{ "resid%",    6,  1, 0, 1, 0, 1, 0, get_resident },
	{ "miss%",     6,  1, 0, 0, 1, 0, 0, get_miss },
};

const size_t n_metrics = sizeof(metrics) / sizeof(metrics[0]);

const struct metric *metric_find(const char *name)
{
	size_t i;

	for (i = 0; i < n_metrics; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}
