/* cmd_phases.c -- `harness phases`: where each run of a matrix spent its time,
 * phase by phase from the run's own stored timestamps, and the medians. */
#include "cli/commands.h"
#include "analysis/stats.h"
#include "base/err.h"
#include "base/textline.h"
#include "run/phases.h"
#include "store/store.h"
#include "store/store_phases.h"
#include "common/fmt.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define PHASES_MAX_RUNS 100000

struct phased_run {
	int64_t run, slot;
	char status[16], start[8];
	struct run_phases ph;
	int64_t gap;           /* from the previous run's end (same slot) to this domain's start; -1 */
	int64_t save_bytes;    /* start save: the save's size on disk; else -1 */
};

struct phased {
	struct phased_run *v;
	size_t n, cap;
};

/*
 * A phase row into its run's entry (a new run starts one, up to
 * PHASES_MAX_RUNS); -1 out of memory or past that.
 */
static int add_row(const struct phase_row *row, void *arg)
{
	struct phased *p = arg;
	struct phased_run *r;
	int k = phases_find(row->phase);

	if (!p->n || p->v[p->n - 1].run != row->run) {
		if (p->n == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 64;
			void *v = cap <= PHASES_MAX_RUNS ? realloc(p->v, cap * sizeof(*p->v)) : NULL;

			if (!v)
				return -1;
			p->v = v;
			p->cap = cap;
		}
		r = &p->v[p->n++];
		memset(r, 0, sizeof(*r));
		r->run = row->run;
		r->slot = row->slot;
		r->gap = -1;
		r->save_bytes = row->save_bytes;
		/* phase_row's fields are these sizes: they fit, -1 if they did not */
		if (fmtbuf(r->status, sizeof(r->status), "%s", row->status) < 0 ||
		    fmtbuf(r->start, sizeof(r->start), "%s", row->start) < 0)
			return -1;
	}
	if (k >= 0)
		p->v[p->n - 1].ph.at[k] = row->at_ms;
	return 0;
}

/* ms of phase k: from the end of the last phase before it that has one. */
static int64_t phase_ms(const struct run_phases *ph, int k)
{
	int j;

	if (k == 0 || !ph->at[k])
		return -1;
	for (j = k - 1; j >= 0 && !ph->at[j]; j--)
		;
	return j < 0 ? -1 : ph->at[k] - ph->at[j];
}

/* A run's ms from its first phase's end to its last one's; -1 without both. */
static int64_t total_ms(const struct run_phases *ph)
{
	int last;

	for (last = PH_COUNT - 1; last > 0 && !ph->at[last]; last--)
		;
	return ph->at[0] && last > 0 ? ph->at[last] - ph->at[0] : -1;
}

/* Runs in the order they started (a retry after a restart runs before later ids). */
static int by_start(const void *a, const void *b)
{
	const struct phased_run *x = a, *y = b;

	if (x->ph.at[PH_PICKED] != y->ph.at[PH_PICKED])
		return x->ph.at[PH_PICKED] < y->ph.at[PH_PICKED] ? -1 : 1;
	return x->run < y->run ? -1 : x->run > y->run;
}

/* The gap before each run, p in start order: the last earlier run of its slot
 * ended, this domain started. */
static void gaps(struct phased *p)
{
	size_t i, j;

	for (i = 1; i < p->n; i++) {
		struct phased_run *r = &p->v[i];

		if (!r->ph.at[PH_PREPARE])
			continue;
		for (j = i; j-- > 0;)
			if (p->v[j].slot == r->slot && p->v[j].ph.at[PH_STORE])
				break;
		if (j < i && p->v[j].ph.at[PH_STORE] <= r->ph.at[PH_PREPARE])
			r->gap = r->ph.at[PH_PREPARE] - p->v[j].ph.at[PH_STORE];
	}
}

/* Median of column k (phase k's ms; PH_COUNT: total; PH_COUNT + 1: gap), -1 if none. */
static double median_of(const struct phased *p, int k, double *buf)
{
	size_t i, n = 0;
	int64_t v;

	for (i = 0; i < p->n; i++) {
		v = k < PH_COUNT ? phase_ms(&p->v[i].ph, k) : k == PH_COUNT ? total_ms(&p->v[i].ph) :
			p->v[i].gap;
		if (v >= 0)
			buf[n++] = (double)v;
	}
	return n ? stats_median(buf, n) : -1;
}

/* A ms column; "-" for none (below 0). */
static void print_cell(double v)
{
	if (v < 0)
		printf(" %8s", "-");
	else
		printf(" %8.0f", v);
}

/*
 * The phases table: a row per run (each phase's ms, total, gap), the medians,
 * and what each phase is.
 */
static void print_text(const char *key, const struct phased *p, double *buf)
{
	size_t i;
	int k;

	printf("%s: where each run's time went, in ms, runs as they started (each phase from "
	       "the end of the one before; gap: from the previous run's end in its slot to this "
	       "domain's start)\n", key);
	printf("%-8s %-8s %-8s", "run", "status", "start");
	for (k = 1; k < PH_COUNT; k++)
		printf(" %8s", phase_names[k]);
	printf(" %8s %8s %8s\n", "total", "gap", "save_MiB");
	for (i = 0; i < p->n; i++) {
		printf("%-8lld %-8s %-8s", (long long)p->v[i].run, p->v[i].status,
		       p->v[i].start[0] ? p->v[i].start : "-");
		for (k = 1; k < PH_COUNT; k++)
			print_cell((double)phase_ms(&p->v[i].ph, k));
		print_cell((double)total_ms(&p->v[i].ph));
		print_cell((double)p->v[i].gap);
		if (p->v[i].save_bytes >= 0)
			printf(" %8.1f", (double)p->v[i].save_bytes / 1048576.0);
		printf("\n");
	}
	printf("%-8s %-8s %-8s", "median", "", "");
	for (k = 1; k <= PH_COUNT + 1; k++)
		print_cell(median_of(p, k, buf));
	printf("\n");
	for (k = 1; k < PH_COUNT; k++)
		printf("  %-9s %s\n", phase_names[k], phase_descs[k]);
	printf("  %-9s %s\n", "save_MiB", "what the save a run made takes on disk (state, disk, "
	       "hello)");
}

/* A run's phases as a JSON object of ms, the ones it has. */
static json_t *phases_obj(const struct run_phases *ph)
{
	json_t *o = json_object();
	int k;

	for (k = 1; o && k < PH_COUNT; k++)
		if (phase_ms(ph, k) >= 0)
			json_object_set_new(o, phase_names[k], json_integer(phase_ms(ph, k)));
	return o;
}

/* The phases as JSON: each run's and the medians. */
static int print_json(const struct phased *p, double *buf)
{
	json_auto_t *o = json_object(), *runs = json_array(), *med = json_object();
	size_t i;
	int k;

	if (!o || !runs || !med)
		return -1;
	for (i = 0; i < p->n; i++) {
		json_t *r = json_pack("{s:I, s:s, s:s, s:o, s:I, s:I}", "run",
				      (json_int_t)p->v[i].run, "status", p->v[i].status,
				      "start", p->v[i].start, "ms", phases_obj(&p->v[i].ph),
				      "total_ms", (json_int_t)total_ms(&p->v[i].ph),
				      "gap_ms", (json_int_t)p->v[i].gap);

		if (!r)
			return -1;
		if (json_object_set_new(r, "save_bytes", p->v[i].save_bytes < 0 ? json_null() :
					json_integer(p->v[i].save_bytes)) < 0) {
			json_decref(r);
			return -1;
		}
		if (json_array_append_new(runs, r) < 0)   /* it takes r, even on failure */
			return -1;
	}
	for (k = 1; k <= PH_COUNT + 1; k++)
		json_object_set_new(med, k < PH_COUNT ? phase_names[k] : k == PH_COUNT ? "total" : "gap",
				    json_real(median_of(p, k, buf)));
	json_object_set(o, "runs", runs);
	json_object_set(o, "median_ms", med);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	printf("\n");
	return 0;
}

int cmd_phases(const struct conf *c, int argc, char **argv, int json)
{
	struct phased p = { 0 };
	struct store *s = NULL;
	char err[ERR_MAX];
	double *buf = NULL;
	int64_t mid;
	int ret = 1;

	if (argc != 2) {
		fputs("usage: harness phases MATRIX\n", stderr);
		return 1;
	}
	if (store_open_results(c->results, &s, err) < 0 ||
	    store_find_matrix(s, argv[1], &mid, err) < 0 ||
	    store_matrix_phases(s, mid, add_row, &p, err) < 0)
		goto out;
	buf = malloc((p.n ? p.n : 1) * sizeof(*buf));
	if (!buf) {
		errorf(err, "out of memory");
		goto out;
	}
	qsort(p.v, p.n, sizeof(*p.v), by_start);
	gaps(&p);
	if (json ? print_json(&p, buf) < 0 : (print_text(argv[1], &p, buf), 0)) {
		errorf(err, "out of memory");
		goto out;
	}
	ret = 0;
out:
	if (ret)
		escape_line(stderr, "harness: phases: %s", err);
	free(buf);
	free(p.v);
	store_close(s);
	return ret;
}
