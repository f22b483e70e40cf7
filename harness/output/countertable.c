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

/* The table as its rows stream in: the cell being printed, its row being gathered. */
struct walk {
	FILE *f;
	const struct matrix_info *mi;
	const char *first;               /* the first column's title */
	int by_seq;
	unsigned next;                   /* cells whose header is out; the last is open */
	char label[64];                  /* the row being gathered, "" none */
	double v[SPEC_MAX_ARMS];         /* its value per arm, NAN where none yet */
};

/* The open cell's last row printed, or its note when it had none. */
static void close_cell(struct walk *w)
{
	if (w->label[0])
		row_out(w->f, w->label, w->v, w->mi->n_arms);
	else
		fputs("  (no done run changed it)\n", w->f);
	w->label[0] = '\0';
}

/* Cell c opened: the cells before it closed, those without rows with their note. */
static void open_cell(struct walk *w, unsigned c)
{
	while (w->next <= c) {
		if (w->next)
			close_cell(w);
		header(w->f, w->mi, w->next++, w->first);
	}
}

/* One mean as it is read (store_counter_each): consecutive ones of one label share a line. */
static int walk_row(void *arg, const struct counter_mean *m)
{
	struct walk *w = arg;
	char label[sizeof(w->label)];

	if (m->cell >= w->mi->n_cells || m->arm >= w->mi->n_arms || m->cell + 1 < w->next)
		return 0;
	open_cell(w, m->cell);
	if (w->by_seq)
		fmtcut(label, sizeof(label), "%lld", (long long)m->seq);
	else
		fmtcut(label, sizeof(label), "%s", m->key);
	if (w->label[0] && strcmp(w->label, label))
		row_out(w->f, w->label, w->v, w->mi->n_arms);
	memcpy(w->label, label, sizeof(label));
	w->v[m->arm] = m->mean;
	return 0;
}

int counter_table(FILE *f, struct store *s, int64_t mid, const char *src, const char *key,
		  char *err)
{
	_cleanup_free_ struct matrix_info *mi = calloc(1, sizeof(*mi));
	struct walk w = { .f = f, .first = key ? key : src, .by_seq = key != NULL };
	unsigned a;

	if (!src_known(src))
		return errorf(err, "--src '%s': expected vmstat, zram, zswap or stall", src);
	if (key && !proto_counter_key_ok(key))
		return errorf(err, "--key '%s': a counter's name is [a-z0-9_], under %d bytes", key,
			      PROTO_COUNTER_KEY_MAX);
	if (!mi)
		return errorf(err, "out of memory");
	if (store_matrix_info(s, mid, mi, err) < 0)
		return -1;
	w.mi = mi;
	for (a = 0; a < SPEC_MAX_ARMS; a++)
		w.v[a] = NAN;
	if (store_counter_each(s, mid, src, key, walk_row, &w, err) < 0)
		return -1;
	if (mi->n_cells) {
		open_cell(&w, mi->n_cells - 1);
		close_cell(&w);
	}
	if (key)
		fprintf(f, "%s's change over each interval (0 from the first), mean of each arm's "
			"done runs\n", key);
	else
		fprintf(f, "each counter's change over a run's measured intervals, mean of each "
			"arm's done runs; counters no run changed are left out\n");
	return 0;
}
