/* report.c -- the ABBA table our users paste into mails: columns described
 * once in a table, means over done runs, Delta % against the baseline arm. */
#include "report.h"
#include "err.h"

#include <math.h>
#include <string.h>

struct column {
	const char *head;
	int width;
	double (*get)(const struct run_summary *r);
	int delta;          /* print Delta % against the first arm */
	int decimals;
};

static double get_ops(const struct run_summary *r) { return r->ops_per_s; }
static double get_refault(const struct run_summary *r) { return r->refault_per_s; }
static double get_majflt(const struct run_summary *r) { return r->majflt_per_s; }
static double get_per_read(const struct run_summary *r) { return r->refaults_per_read; }
static double get_resident(const struct run_summary *r) { return 100.0 * r->resident_share; }

static const struct column columns[] = {
	{ "ops/s",     10, get_ops,      1, 0 },
	{ "refault/s", 9,  get_refault,  1, 0 },
	{ "majflt/s",  8,  get_majflt,   0, 0 },
	{ "rf/read",   7,  get_per_read, 0, 4 },
	{ "resid%",    6,  get_resident, 0, 1 },
};

#define NCOLS ARRAY_SIZE(columns)

struct arm_stats {
	unsigned n;
	double mean[NCOLS];
};

static void arm_means(const struct run_summary *v, size_t n, unsigned cell, unsigned arm,
		      struct arm_stats *st)
{
	size_t i, k;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		if (v[i].cell != cell || v[i].arm != arm)
			continue;
		for (k = 0; k < NCOLS; k++)
			st->mean[k] += columns[k].get(&v[i]);
		st->n++;
	}
	for (k = 0; k < NCOLS && st->n; k++)
		st->mean[k] /= st->n;
}

static void print_header(FILE *f, const struct matrix_info *mi, unsigned cell)
{
	size_t k;

	fprintf(f, "\n%s / %s  (%s, %s)\n", mi->name, mi->cell_names[cell],
		mi->arch[0] ? mi->arch : "-", mi->accel[0] ? mi->accel : "-");
	if (mi->cell_preset[cell][0] || mi->cell_params[cell][0])
		fprintf(f, "  %s%s%s\n", mi->cell_preset[cell], mi->cell_preset[cell][0] ? ": " : "",
			mi->cell_params[cell]);
	fprintf(f, "%-14s %-8s", "arm", "lru_gen");
	for (k = 0; k < NCOLS; k++) {
		fprintf(f, " %*s", columns[k].width, columns[k].head);
		if (columns[k].delta)
			fprintf(f, " %7s", "Delta");
	}
	fprintf(f, " %3s\n", "n");
}

static void print_row(FILE *f, const struct matrix_info *mi, unsigned arm,
		      const struct arm_stats *st, const struct arm_stats *base)
{
	size_t k;
	double d;

	fprintf(f, "%-14.14s %-8.8s", mi->arm_names[arm], mi->arm_lru[arm][0] ? mi->arm_lru[arm] : "-");
	for (k = 0; k < NCOLS; k++) {
		if (!st->n)
			fprintf(f, " %*s", columns[k].width, "-");
		else
			fprintf(f, " %*.*f", columns[k].width, columns[k].decimals, st->mean[k]);
		if (!columns[k].delta)
			continue;
		if (arm == 0 || !st->n || !base->n || base->mean[k] == 0)
			fprintf(f, " %7s", "-");
		else {
			d = 100.0 * (st->mean[k] - base->mean[k]) / base->mean[k];
			fprintf(f, " %+6.1f%%", d);
		}
	}
	fprintf(f, " %3u\n", st->n);
}

int report_table(FILE *f, struct store *s, int64_t matrix_id, char *err)
{
	struct matrix_info mi;
	_cleanup_free_ struct run_summary *v = NULL;
	struct arm_stats base, st;
	unsigned cell, arm;
	size_t n;

	if (store_matrix_info(s, matrix_id, &mi, err) < 0 ||
	    store_summaries(s, matrix_id, &v, &n, err) < 0)
		return -1;
	for (cell = 0; cell < mi.n_cells; cell++) {
		print_header(f, &mi, cell);
		arm_means(v, n, cell, 0, &base);
		for (arm = 0; arm < mi.n_arms; arm++) {
			arm_means(v, n, cell, arm, &st);
			print_row(f, &mi, arm, &st, &base);
		}
	}
	fprintf(f, "\nkernels:");
	for (arm = 0; arm < mi.n_arms; arm++)
		fprintf(f, "%s %s=%s", arm ? "," : "", mi.arm_names[arm], mi.arm_release[arm]);
	fprintf(f, "\nruns: %u done, %u failed, %u unsupported, %u total; Delta against %s;"
		" means over done runs\n", mi.runs_done, mi.runs_failed, mi.runs_unsupported,
		mi.runs_total, mi.arm_names[0]);
	return 0;
}
