/* metric.c -- the table of per-run metrics: reports lay them out, compare
 * judges them by the scale, margin and minimum effect declared here. */
#include "analysis/metric.h"
#include "analysis/stats.h"
#include "base/err.h"
#include "common/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

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
static double get_swapin(const struct run_summary *r) { return r->swapin_per_s; }
static double get_swapout(const struct run_summary *r) { return r->swapout_per_s; }
static double get_zswpin(const struct run_summary *r) { return r->zswpin_per_s; }
static double get_anon_rf(const struct run_summary *r) { return r->anon_refault_per_s; }
static double get_psi_some(const struct run_summary *r) { return r->psi_some_pct; }
static double get_psi_full(const struct run_summary *r) { return r->psi_full_pct; }
static double get_kswapd(const struct run_summary *r) { return r->kswapd_pct; }
static double get_stalls(const struct run_summary *r) { return r->stalls_per_s; }
static double get_stall_p99(const struct run_summary *r) { return r->stall_p99_us; }

/* Per interval: the same figures over one interval, summary_window's. */
static double at_ops(const struct metric_interval *i) { return i->w->ops_per_s; }
static double at_refault(const struct metric_interval *i) { return i->w->refault_per_s; }
static double at_majflt(const struct metric_interval *i) { return i->w->majflt_per_s; }
static double at_activ(const struct metric_interval *i) { return i->w->activate_per_s; }
static double at_per_read(const struct metric_interval *i) { return i->w->refaults_per_read; }
static double at_miss(const struct metric_interval *i) { return 100.0 * i->w->miss_share; }

/* The declared files' residency as the interval ends, in % of their size. */
static double at_resident(const struct metric_interval *i)
{
	const struct series_point *p = i->w->last;
	double pages = 0;
	int f;

	if (!p || !(i->file_mib > 0))
		return NAN;
	for (f = 0; f < PROTO_MAX_FILES; f++)
		pages += p->resident[f];
	return 100.0 * pages * p->page_size / (1 << 20) / i->file_mib;
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

/*
 * How compare judges a compared metric, declared before any data (issue 29:
 * never widened by the noise). Throughputs on the log ratio: SAME within
 * +-2 %, what kernel changes are routinely argued over and what 10 to 20
 * blocks at a 5 % per-block spread can show; DIFFERENT from 1 %, so that a
 * sure change between 1 and 2 % is told, not called the same. Event rates
 * (refaults, faults, reclaims) move by tens of % between runs (per-block
 * spread 18 to 40 %) and matter when they move a lot: +-10 %, from 5 %. A
 * share already in % on the difference, in points: +-1 point, from 0.5.
 * Metrics compare leaves out get the same kinds for the marks of `table
 * --metric`: latencies, ages and rates as NOISY, shares as SHARE.
 */
#define THROUGHPUT .scale = VERDICT_LOG, .margin = 0.02, .min_effect = 0.01
#define NOISY      .scale = VERDICT_LOG, .margin = 0.10, .min_effect = 0.05
#define SHARE      .scale = VERDICT_DIFF, .margin = 0.01, .min_effect = 0.005

const struct metric metrics[] = {
	/* name        width dec delta abba cmp higher harm table */
	{ "ops/s",       10, 0, 1, 1, 1, 1, 1, 1, get_ops,
	  "operations per second, all streams, after the ramp", .at = at_ops, THROUGHPUT },
	{ "refault/s",    9, 0, 1, 1, 1, 0, 0, 0, get_refault,
	  "memcg workingset_refault_file per second", .at = at_refault, NOISY },
	{ "majflt/s",     8, 0, 0, 1, 1, 0, 0, 0, get_majflt,
	  "memcg pgmajfault per second", .at = at_majflt, NOISY },
	{ "activ/s",      8, 0, 0, 0, 0, 0, 0, 0, get_activ,
	  "memcg workingset_activate_file per second", .at = at_activ, NOISY },
	{ "rf/read",      7, 4, 0, 1, 1, 0, 0, 1, get_per_read,
	  "file refaults per read", .at = at_per_read, NOISY },
	{ "resid%",       6, 1, 0, 1, 0, 1, 0, 0, get_resident,
	  "page-cache residency of the declared files at the end, %", .at = at_resident, SHARE },
	{ "resid%@pass",  6, 1, 0, 0, 0, 1, 0, 0, get_pass_resid,
	  "residency of the declared files at each scan pass_end event, mean over passes, %",
	  .at = NULL, SHARE },
	{ "miss%",        6, 1, 0, 0, 1, 0, 0, 0, get_miss,
	  "share of reads slower than the miss threshold, %", .at = at_miss, SHARE },
	{ "p99_us",       8, 1, 0, 0, 0, 0, 0, 0, get_p99,
	  "p99 latency of each interval, mean weighted by its reads, microseconds", .at = NULL, NOISY },
	{ "read/s",       9, 0, 1, 0, 1, 1, 1, 0, get_read,
	  "YCSB reads (GET) per second, every ycsb stream, after the ramp", .at = NULL, THROUGHPUT },
	{ "update/s",     9, 0, 1, 0, 1, 1, 1, 0, get_update,
	  "YCSB updates per second, after the ramp", .at = NULL, THROUGHPUT },
	{ "insert/s",     9, 0, 1, 0, 1, 1, 1, 0, get_insert,
	  "YCSB inserts per second, after the ramp", .at = NULL, THROUGHPUT },
	{ "scan/s",       9, 1, 1, 0, 1, 1, 1, 0, get_scan,
	  "YCSB scans (SCAN) per second, after the ramp", .at = NULL, THROUGHPUT },
	{ "rmw/s",        9, 0, 1, 0, 1, 1, 1, 0, get_rmw,
	  "YCSB read-modify-writes per second, after the ramp", .at = NULL, THROUGHPUT },
	{ "get/scan",     8, 1, 0, 0, 0, 1, 0, 0, get_get_scan,
	  "YCSB reads per scan (seed 001's GET/SCAN)", .at = NULL, NOISY },
	{ "read_p99_us", 11, 1, 0, 0, 0, 0, 0, 0, get_read_p99,
	  "p99 latency of YCSB reads over the measured run, microseconds", .at = NULL, NOISY },
	{ "scan_p99_us", 11, 1, 0, 0, 0, 0, 0, 0, get_scan_p99,
	  "p99 latency of YCSB scans over the measured run, microseconds", .at = NULL, NOISY },
	{ "reclaim/s",    9, 2, 1, 0, 1, 1, 1, 0, get_reclaim,
	  "memory.reclaim requests completed per second, EAGAIN ones too (seed 002)",
	  .at = NULL, NOISY },
	{ "reclaim_ms",   10, 1, 1, 0, 1, 0, 0, 0, get_reclaim_mean,
	  "mean latency of the memory.reclaim requests, milliseconds", .at = NULL, NOISY },
	{ "reclaim_max_ms", 14, 1, 0, 0, 0, 0, 0, 0, get_reclaim_max,
	  "maximum latency of the memory.reclaim requests, milliseconds", .at = NULL, NOISY },
	/* MGLRU's insides (lru_gen_full, lru_gen), over the measured intervals */
	{ "evict_rf%",    9, 1, 0, 0, 0, 0, 0, 0, get_evict_rf,
	  "MGLRU: file pages refaulted per file page evicted from the oldest generations, %",
	  .at = NULL, SHARE },
	{ "gens/min",     8, 2, 0, 0, 0, 0, 0, 0, get_gens_min,
	  "MGLRU: generations created per minute (max_seq's growth)", .at = NULL, NOISY },
	{ "oldest_age_s", 12, 1, 0, 0, 0, 0, 0, 0, get_oldest_age,
	  "MGLRU: age of the oldest generation, mean over the intervals, seconds", .at = NULL, NOISY },
	/* swap and anonymous memory (a cell's "swap"), over the measured intervals */
	{ "swapin/s",     8, 0, 0, 0, 0, 0, 0, 0, get_swapin,
	  "pages swapped in per second (/proc/vmstat pswpin)", .at = NULL, NOISY },
	{ "swapout/s",    9, 0, 0, 0, 0, 0, 0, 0, get_swapout,
	  "pages swapped out per second (/proc/vmstat pswpout)", .at = NULL, NOISY },
	{ "zswpin/s",     8, 0, 0, 0, 0, 0, 0, 0, get_zswpin,
	  "pages loaded back from zswap per second (memcg zswpin)", .at = NULL, NOISY },
	{ "anon_rf/s",    9, 0, 0, 0, 0, 0, 0, 0, get_anon_rf,
	  "memcg workingset_refault_anon per second", .at = NULL, NOISY },
	/* monitors: who stalled on memory, and what kswapd cost */
	{ "psi_some%",    9, 2, 0, 0, 0, 0, 0, 0, get_psi_some,
	  "share of time some task of the memcg stalled on memory (memory.pressure), %",
	  .at = NULL, SHARE },
	{ "psi_full%",    9, 2, 0, 0, 0, 0, 0, 0, get_psi_full,
	  "share of time all its tasks stalled on memory at once, %", .at = NULL, SHARE },
	{ "kswapd%",      7, 2, 0, 0, 0, 0, 0, 0, get_kswapd,
	  "kswapd's CPU time (its threads' utime + stime) as a share of one CPU, %",
	  .at = NULL, SHARE },
	{ "stalls/s",     8, 1, 0, 0, 0, 0, 0, 0, get_stalls,
	  "reclaim stalls (direct and memcg, vmscan tracepoints) ended per second", .at = NULL,
	  NOISY },
	{ "stall_p99_us", 12, 0, 0, 0, 0, 0, 0, 0, get_stall_p99,
	  "p99 of the reclaim stalls' length (the log2 histogram's bucket bound), microseconds",
	  .at = NULL, NOISY },
};

const size_t n_metrics = sizeof(metrics) / sizeof(metrics[0]);

_Static_assert(sizeof(metrics) / sizeof(metrics[0]) <= METRIC_MAX, "METRIC_MAX too small");

void metric_rule(const struct metric *m, const double *margins, struct verdict_rule *ret)
{
	double mg = margins ? margins[m - metrics] : 0;

	ret->scale = m->scale;
	ret->harmonic = m->harmonic;
	ret->higher_better = m->higher_better;
	ret->margin = mg > 0 ? mg : m->margin;
	ret->min_effect = m->margin > 0 ? ret->margin * m->min_effect / m->margin : 0;
	ret->quick = 0;
}

void metric_margins_min(double a[METRIC_MAX], const double b[METRIC_MAX])
{
	for (size_t i = 0; i < METRIC_MAX; i++)
		if (b[i] > 0)
			a[i] = a[i] > 0 ? fmin(a[i], b[i]) : b[i];
}

/* Set name's margin to pct (a percentage); -1 with err (what, the field) if either is wrong. */
static int set_margin(const char *what, const char *name, double pct, double margins[METRIC_MAX],
		      char *err)
{
	const struct metric *m = metric_find(name);

	if (!m || !m->compared)
		return errorf(err, "%s: '%s': expected a compared metric, such as ops/s", what, name);
	if (!(pct > 0 && pct <= 100))
		return errorf(err, "%s: '%s': expected a percentage above 0 and at most 100", what,
			      name);
	margins[m - metrics] = pct / 100;
	return 0;
}

/* "primary" of root into *ret (METRIC_PRIMARY if absent). Returns 0, or -1 with err. */
static int primary_of(json_t *root, const char *label, const struct metric **ret, char *err)
{
	json_t *p = json_object_get(root, "primary");
	const char *name = json_is_string(p) ? json_string_value(p) : p ? "" : METRIC_PRIMARY;
	const struct metric *m = metric_find(name);

	if (!m || !m->compared)
		return errorf(err, "%s: primary: '%s': expected a compared metric, such as ops/s",
			      label, name);
	*ret = m;
	return 0;
}

int metric_verdict_keys(const char *text, const char *label, double margins[METRIC_MAX],
			const struct metric **ret_primary, char *err)
{
	json_t *root = json_loads(text, 0, NULL), *o, *v;
	const struct metric *primary = NULL;
	const char *k;
	char what[512];
	int rc = 0;

	if (!root)
		return errorf(err, "%s: not JSON", label);
	rc = primary_of(root, label, &primary, err);
	if (rc == 0 && ret_primary)
		*ret_primary = primary;
	o = json_object_get(root, "margins");
	fmtcut(what, sizeof(what), "%s: margins", label);
	if (rc == 0 && o && !json_is_object(o))
		rc = errorf(err, "%s: expected an object of metric: percentage", what);
	json_object_foreach(json_is_object(o) ? o : NULL, k, v)
		if (rc == 0)
			rc = set_margin(what, k, json_is_number(v) ? json_number_value(v) : NAN,
					margins, err);
	json_decref(root);
	return rc;
}

int metric_margin_arg(const char *arg, double margins[METRIC_MAX], char *err)
{
	const char *eq = strrchr(arg, '=');
	char name[64], *end;
	double pct;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name))
		return errorf(err, "--margin '%s': expected METRIC=PCT, such as ops/s=3", arg);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = 0;
	pct = strtod(eq + 1, &end);
	return set_margin("--margin", name, end == eq + 1 || *end ? NAN : pct, margins, err);
}

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
