/* countertable.c -- the named counters' table: a row per counter (or per interval of
 * one counter), a column per arm, each cell of the matrix in turn. */
#include "output/countertable.h"
#include "base/err.h"
#include "store/store_counters.h"
#include "common/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KEY_W 32   /* the first column: a counter's name, or an interval */
#define ARM_W 14

/* 1 if src is a source's name (common/proto.h's PROTO_COUNTER_SRCS). */
static int src_known(const char *src)
{
	unsigned i;

	for (i = 0; proto_counter_src_names[i]; i++)
		if (!strcmp(proto_counter_src_names[i], src))
			return 1;
	return 0;
}

/* The header of a cell's table: the first column's title, then the arms. */
static void header(FILE *f, const struct matrix_info *mi, unsigned cell, const char *first)
{
	unsigned a;

	fprintf(f, "%s / %s\n  %-*s", mi->name, mi->cell_names[cell], KEY_W, first);
	for (a = 0; a < mi->n_arms; a++)
		fprintf(f, " %*.*s", ARM_W, ARM_W, mi->arm_names[a]);
	fputc('\n', f);
}

/* Print one row (label, a value per arm, "-" where an arm has none) and clear it. */
static void row_out(FILE *f, const char *label, double *v, unsigned n_arms)
{
	unsigned a;

	fprintf(f, "  %-*s", KEY_W, label);
	for (a = 0; a < n_arms; a++) {
		if (isnan(v[a]))
			fprintf(f, " %*s", ARM_W, "0");
		else
			fprintf(f, " %*.*f", ARM_W, fabs(v[a]) >= 100 || v[a] == floor(v[a]) ? 0 : 2,
				v[a]);
		v[a] = NAN;
	}
	fputc('\n', f);
}

/* Cell c's rows of m[0..n): consecutive rows with one label share a line. */
static void cell_rows(FILE *f, const struct matrix_info *mi, unsigned c,
		      const struct counter_mean *m, size_t n, int by_seq)
{
	double v[SPEC_MAX_ARMS];
	char label[64] = "", next[64];
	size_t i;
	unsigned a;

	for (a = 0; a < SPEC_MAX_ARMS; a++)
		v[a] = NAN;
	for (i = 0; i < n; i++) {
		if (m[i].cell != c || m[i].arm >= mi->n_arms)
			continue;
		if (by_seq)
			fmtcut(next, sizeof(next), "%lld", (long long)m[i].seq);
		else
			fmtcut(next, sizeof(next), "%s", m[i].key);
		if (label[0] && strcmp(label, next))
			row_out(f, label, v, mi->n_arms);
		memcpy(label, next, sizeof(label));
		v[m[i].arm] = m[i].mean;
	}
	if (label[0])
		row_out(f, label, v, mi->n_arms);
	else
		fputs("  (no done run changed it)\n", f);
}

int counter_table(FILE *f, struct store *s, int64_t mid, const char *src, const char *key,
		  char *err)
{
	_cleanup_free_ struct matrix_info *mi = calloc(1, sizeof(*mi));
	_cleanup_free_ struct counter_mean *m = NULL;
	size_t n = 0;
	unsigned c;

	if (!src_known(src))
		return errorf(err, "--src '%s': expected vmstat, zram, zswap or stall", src);
	if (key && !proto_counter_key_ok(key))
		return errorf(err, "--key '%s': a counter's name is [a-z0-9_], under %d bytes", key,
			      PROTO_COUNTER_KEY_MAX);
	if (!mi)
		return errorf(err, "out of memory");
	if (store_matrix_info(s, mid, mi, err) < 0 ||
	    store_counter_means(s, mid, src, key, &m, &n, err) < 0)
		return -1;
	for (c = 0; c < mi->n_cells; c++) {
		header(f, mi, c, key ? key : src);
		cell_rows(f, mi, c, m, n, key != NULL);
	}
	if (key)
		fprintf(f, "%s's change over each interval (0 from the first), mean of each arm's "
			"done runs\n", key);
	else
		fprintf(f, "each counter's change over a run's measured intervals, mean of each "
			"arm's done runs; counters no run changed are left out\n");
	return 0;
}
