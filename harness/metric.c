/* metric.c -- the table of per-run metrics: reports lay them out, compare
 * judges them; event rates and ratios can be 0, so only ops/s is harmonic. */
#include "metric.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double get_ops(const struct run_summary *r) { return r->ops_per_s; }
static double get_refault(const struct run_summary *r) { return r->refault_per_s; }
static double get_majflt(const struct run_summary *r) { return r->majflt_per_s; }
static double get_activ(const struct run_summary *r) { return r->activate_per_s; }
static double get_per_read(const struct run_summary *r) { return r->refaults_per_read; }
static double get_resident(const struct run_summary *r) { return 100.0 * r->resident_share; }
static double get_miss(const struct run_summary *r) { return 100.0 * r->miss_share; }
static double get_p99(const struct run_summary *r) { return r->lat_p99_us; }
static double get_pass_resid(const struct run_summary *r) { return 100.0 * r->pass_resident_share; }

const struct metric metrics[] = {
	/* name        width dec delta abba cmp higher harm table */
	{ "ops/s",       10, 0, 1, 1, 1, 1, 1, 1, get_ops,
	  "operations per second, all streams, after the ramp" },
	{ "refault/s",    9, 0, 1, 1, 1, 0, 0, 0, get_refault,
	  "memcg workingset_refault_file per second" },
	{ "majflt/s",     8, 0, 0, 1, 1, 0, 0, 0, get_majflt,
	  "memcg pgmajfault per second" },
	{ "activ/s",      8, 0, 0, 0, 0, 0, 0, 0, get_activ,
	  "memcg workingset_activate_file per second" },
	{ "rf/read",      7, 4, 0, 1, 1, 0, 0, 1, get_per_read,
	  "file refaults per read" },
	{ "resid%",       6, 1, 0, 1, 0, 1, 0, 0, get_resident,
	  "page-cache residency of the declared files at the end, %" },
	{ "resid%@pass",  6, 1, 0, 0, 0, 1, 0, 0, get_pass_resid,
	  "residency of the declared files at each scan pass_end event, mean over passes, %" },
	{ "miss%",        6, 1, 0, 0, 1, 0, 0, 0, get_miss,
	  "share of reads slower than the miss threshold, %" },
	{ "p99_us",       8, 1, 0, 0, 0, 0, 0, 0, get_p99,
	  "p99 latency of each interval, mean weighted by its reads, microseconds" },
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

double metric_mean(const struct metric *m, const double *x, size_t n, unsigned *ret_n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), mean;
	size_t i, k = 0;

	if (ret_n)
		*ret_n = 0;
	if (!v)
		return NAN;
	for (i = 0; i < n; i++)
		if (!isnan(x[i]))
			v[k++] = x[i];
	mean = m->harmonic ? stats_hmean(v, k) : stats_mean(v, k);
	free(v);
	if (ret_n)
		*ret_n = (unsigned)k;
	return mean;
}
