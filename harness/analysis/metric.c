/* metric.c -- the table of per-run metrics: reports lay them out, compare
 * judges them; event rates and ratios can be 0, so only ops/s is harmonic. */
#include "analysis/metric.h"
#include "analysis/stats.h"

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
static double get_evict_rf(const struct run_summary *r) { return 100.0 * r->evict_refault_share; }
static double get_gens_min(const struct run_summary *r) { return r->gens_per_min; }
static double get_oldest_age(const struct run_summary *r) { return r->oldest_age_s; }

/* Per interval: the same quantities over one interval of one run; NAN (a
 * gap) where a stream's interval is missing, which the sum carries. */
static double sum_streams(const double *v)
{
	double s = 0;
	int k;

	for (k = 0; k < PROTO_MAX_STREAMS; k++)
		s += v[k];
	return s;
}

static double per_s(double v, double seconds) { return seconds > 0 ? v / seconds : NAN; }
static double share(double a, double b) { return b > 0 ? a / b : NAN; }

static double at_ops(const struct metric_interval *i)
{
	return per_s(sum_streams(i->p->ops), i->seconds);
}

static double at_refault(const struct metric_interval *i)
{
	return per_s(i->p->refault, i->seconds);
}

static double at_majflt(const struct metric_interval *i)
{
	return per_s(i->p->majflt, i->seconds);
}

static double at_activ(const struct metric_interval *i)
{
	return per_s(i->p->activate, i->seconds);
}

static double at_per_read(const struct metric_interval *i)
{
	return share(i->p->refault, sum_streams(i->p->reads));
}

static double at_resident(const struct metric_interval *i)
{
	double pages = 0;
	int f;

	for (f = 0; f < PROTO_MAX_FILES; f++)
		pages += i->p->resident[f];
	return 100.0 * share(pages, i->file_pages);
}

static double at_miss(const struct metric_interval *i)
{
	return 100.0 * share(sum_streams(i->p->misses), sum_streams(i->p->reads));
}

/* Per operation (ycsb streams): YCSB's GET is a read, its SCAN a scan. */
static double get_read(const struct run_summary *r) { return r->op_per_s[OP_READ]; }
static double get_update(const struct run_summary *r) { return r->op_per_s[OP_UPDATE]; }
static double get_insert(const struct run_summary *r) { return r->op_per_s[OP_INSERT]; }
static double get_scan(const struct run_summary *r) { return r->op_per_s[OP_SCAN]; }
static double get_rmw(const struct run_summary *r) { return r->op_per_s[OP_RMW]; }
static double get_read_p99(const struct run_summary *r) { return r->op_p99_us[OP_READ]; }
static double get_scan_p99(const struct run_summary *r) { return r->op_p99_us[OP_SCAN]; }

/* Reclaim storms (seed 002): requests completed per second, their latency in ms. */
static double get_reclaim(const struct run_summary *r) { return r->op_per_s[OP_RECLAIM]; }
static double get_reclaim_mean(const struct run_summary *r) { return r->op_mean_us[OP_RECLAIM] / 1000; }
static double get_reclaim_max(const struct run_summary *r) { return r->op_max_us[OP_RECLAIM] / 1000; }

/* GET/SCAN: reads per scan, as seed 001 relates the two intensities. */
static double get_get_scan(const struct run_summary *r)
{
	double g = r->op_per_s[OP_READ], s = r->op_per_s[OP_SCAN];

	return isnan(g) || isnan(s) || s <= 0 ? NAN : g / s;
}

const struct metric metrics[] = {
	/* name        width dec delta abba cmp higher harm table */
	{ "ops/s",       10, 0, 1, 1, 1, 1, 1, 1, get_ops,
	  "operations per second, all streams, after the ramp", .at = at_ops },
	{ "refault/s",    9, 0, 1, 1, 1, 0, 0, 0, get_refault,
	  "memcg workingset_refault_file per second", .at = at_refault },
	{ "majflt/s",     8, 0, 0, 1, 1, 0, 0, 0, get_majflt,
	  "memcg pgmajfault per second", .at = at_majflt },
	{ "activ/s",      8, 0, 0, 0, 0, 0, 0, 0, get_activ,
	  "memcg workingset_activate_file per second", .at = at_activ },
	{ "rf/read",      7, 4, 0, 1, 1, 0, 0, 1, get_per_read,
	  "file refaults per read", .at = at_per_read },
	{ "resid%",       6, 1, 0, 1, 0, 1, 0, 0, get_resident,
	  "page-cache residency of the declared files at the end, %", .at = at_resident },
	{ "resid%@pass",  6, 1, 0, 0, 0, 1, 0, 0, get_pass_resid,
	  "residency of the declared files at each scan pass_end event, mean over passes, %", .at = NULL },
	{ "miss%",        6, 1, 0, 0, 1, 0, 0, 0, get_miss,
	  "share of reads slower than the miss threshold, %", .at = at_miss },
	{ "p99_us",       8, 1, 0, 0, 0, 0, 0, 0, get_p99,
	  "p99 latency of each interval, mean weighted by its reads, microseconds", .at = NULL },
	{ "read/s",       9, 0, 1, 0, 1, 1, 1, 0, get_read,
	  "YCSB reads (GET) per second, every ycsb stream, after the ramp", .at = NULL },
	{ "update/s",     9, 0, 1, 0, 1, 1, 1, 0, get_update,
	  "YCSB updates per second, after the ramp", .at = NULL },
	{ "insert/s",     9, 0, 1, 0, 1, 1, 1, 0, get_insert,
	  "YCSB inserts per second, after the ramp", .at = NULL },
	{ "scan/s",       9, 1, 1, 0, 1, 1, 1, 0, get_scan,
	  "YCSB scans (SCAN) per second, after the ramp", .at = NULL },
	{ "rmw/s",        9, 0, 1, 0, 1, 1, 1, 0, get_rmw,
	  "YCSB read-modify-writes per second, after the ramp", .at = NULL },
	{ "get/scan",     8, 1, 0, 0, 0, 1, 0, 0, get_get_scan,
	  "YCSB reads per scan (seed 001's GET/SCAN)", .at = NULL },
	{ "read_p99_us", 11, 1, 0, 0, 0, 0, 0, 0, get_read_p99,
	  "p99 latency of YCSB reads over the measured run, microseconds", .at = NULL },
	{ "scan_p99_us", 11, 1, 0, 0, 0, 0, 0, 0, get_scan_p99,
	  "p99 latency of YCSB scans over the measured run, microseconds", .at = NULL },
	{ "reclaim/s",    9, 2, 1, 0, 1, 1, 1, 0, get_reclaim,
	  "memory.reclaim requests completed per second, EAGAIN ones too (seed 002)", .at = NULL },
	{ "reclaim_ms",   10, 1, 1, 0, 1, 0, 0, 0, get_reclaim_mean,
	  "mean latency of the memory.reclaim requests, milliseconds", .at = NULL },
	{ "reclaim_max_ms", 14, 1, 0, 0, 0, 0, 0, 0, get_reclaim_max,
	  "maximum latency of the memory.reclaim requests, milliseconds", .at = NULL },
	/* MGLRU's insides (lru_gen_full, lru_gen), over the measured intervals */
	{ "evict_rf%",    9, 1, 0, 0, 0, 0, 0, 0, get_evict_rf,
	  "MGLRU: file pages refaulted per file page evicted from the oldest generations, %",
	  .at = NULL },
	{ "gens/min",     8, 2, 0, 0, 0, 0, 0, 0, get_gens_min,
	  "MGLRU: generations created per minute (max_seq's growth)", .at = NULL },
	{ "oldest_age_s", 12, 1, 0, 0, 0, 0, 0, 0, get_oldest_age,
	  "MGLRU: age of the oldest generation, mean over the intervals, seconds", .at = NULL },
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

size_t metric_pair_obs(const struct metric *m, const struct run_summary *v, size_t n,
		       unsigned cell, unsigned base, unsigned new_arm, struct stats_obs *o)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (v[i].cell != cell || (v[i].arm != base && v[i].arm != new_arm) ||
		    isnan(m->get(&v[i])))
			continue;
		o[k].block = v[i].block;
		o[k].arm = v[i].arm == new_arm;
		o[k++].v = m->get(&v[i]);
	}
	return k;
}
