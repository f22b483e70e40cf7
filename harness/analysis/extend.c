/* extend.c -- adaptive repetitions: ask compare which cells are still
 * UNKNOWN and queue the ABBA blocks it estimates would decide them, capped. */
#include "analysis/extend.h"
#include "spec/abba.h"
#include "analysis/compare.h"
#include "base/err.h"
#include "analysis/metric.h"
#include "base/proc.h"
#include "spec/spec.h"
#include "analysis/stats.h"
#include "store/store_extend.h"
#include "common/fmt.h"

#include <getopt.h>
#include <string.h>

/* What one cell had and gets. */
struct cell_plan {
	unsigned target;     /* blocks wanted; 0: decided */
	json_t *unknown;     /* its UNKNOWN verdicts */
	unsigned left_out;   /* its blocks with a contended run, which compare left out */
};

struct plan {
	int64_t mid;
	struct matrix_info mi;
	unsigned R;          /* reps in a block */
	struct cell_plan cells[SPEC_MAX_CELLS];
	unsigned have[SPEC_MAX_CELLS], want[SPEC_MAX_CELLS], added[SPEC_MAX_CELLS];
};

/* The JSON each cell's plan holds. */
static void plan_release(struct plan *p)
{
	unsigned c;

	for (c = 0; c < SPEC_MAX_CELLS; c++)
		json_decref(p->cells[c].unknown);
}

/* The index of the cell called name in mi, or -1. */
static int cell_of(const struct matrix_info *mi, const char *name)
{
	unsigned c;

	for (c = 0; c < mi->n_cells; c++)
		if (!strcmp(mi->cell_names[c], name))
			return (int)c;
	return -1;
}

/* Every verdict extend asks for: one compare per arm pair, adjusted together. */
struct family {
	struct compare_row *rows;
	size_t n;
};

/* Append the verdicts of new against base to f. */
static int add_pair(struct store *s, const struct plan *p, const char *base, const char *new,
		    struct family *f, char *err)
{
	char key[32];
	struct compare_opts co = { .base_arm = base, .new_arm = new };
	_cleanup_free_ struct compare_row *rows = NULL;
	struct compare_row *grown;
	size_t n;

	if (fmtbuf(key, sizeof(key), "%lld", (long long)p->mid) < 0)
		return errorf(err, "matrix id %lld over %zu characters", (long long)p->mid,
			      sizeof(key) - 1);
	co.base_matrix = co.new_matrix = key;
	if (compare_rows(s, &co, &rows, &n, err) < 0)
		return -1;
	if (!(grown = realloc(f->rows, (f->n + n + 1) * sizeof(*grown))))
		return errorf(err, "out of memory");
	f->rows = grown;
	memcpy(f->rows + f->n, rows, n * sizeof(*rows));
	f->n += n;
	return 0;
}

/* Adjust every pair's verdicts as compare does (compare_adjust), then fold them into the plans. */
static int fold(struct plan *p, struct family *f, unsigned max_blocks, char *err)
{
	const struct compare_row *r;
	struct cell_plan *cp;
	unsigned want, upb = p->R >= ABBA_UNIT_REPS ? p->R / ABBA_UNIT_REPS : 1;
	size_t i, primary;
	int c;

	if (compare_adjust(f->rows, f->n, &primary) < 0)
		return errorf(err, "out of memory");
	for (i = 0; i < f->n; i++) {
		r = &f->rows[i];
		c = cell_of(&p->mi, r->cell);
		if (c < 0 || r->v.kind != VERDICT_UNKNOWN)
			continue;
		cp = &p->cells[c];
		want = (unsigned)r->v.blocks + r->v.more;      /* units (abba_unit) ... */
		want = want >= r->v.blocks ? (want + upb - 1) / upb : max_blocks;   /* ... blocks */
		want = want < max_blocks ? want : max_blocks;
		/* a block left out as contended does not count: it is replaced */
		want += r->left_out;
		want = want < SPEC_MAX_REPS / p->R ? want : SPEC_MAX_REPS / p->R;
		cp->left_out = r->left_out;
		cp->target = want > cp->target ? want : cp->target;
		if (json_array_append_new(cp->unknown, json_pack("{s:s, s:s, s:I, s:I, s:[I,I]}",
			"arm", r->arm, "metric", r->m->name, "blocks", (json_int_t)r->v.blocks,
			"more", (json_int_t)r->v.more, "more_range", (json_int_t)r->v.more_lo,
			(json_int_t)r->v.more_hi)) < 0)
			return errorf(err, "out of memory");
	}
	return 0;
}

/* 1 if mi has an arm called name. */
static int arm_known(const struct matrix_info *mi, const char *name)
{
	unsigned a;

	for (a = 0; a < mi->n_arms; a++)
		if (!strcmp(mi->arm_names[a], name))
			return 1;
	return 0;
}

/* The verdicts of every pair asked for; 400 in *http when the options do not fit. */
static int gather(struct store *s, const struct extend_opts *o, struct plan *p, int *http,
		  char *err)
{
	struct family f = { 0 };
	unsigned a, c;
	int rc = 0;

	*http = 400;
	if (p->mi.n_arms < 2)
		return errorf(err, "matrix '%s': one arm, nothing to compare", p->mi.name);
	if (!o->max_blocks || o->max_blocks > SPEC_MAX_REPS / p->R)
		return errorf(err, "max_blocks: expected 1 to %u (%u reps a block, at most %d reps "
			      "a cell)", SPEC_MAX_REPS / p->R, p->R, SPEC_MAX_REPS);
	if (!o->base_arm != !o->new_arm)
		return errorf(err, "give both arms (BASE NEW) or neither");
	if (o->base_arm && !strcmp(o->base_arm, o->new_arm))
		return errorf(err, "arm '%s' compared with itself", o->base_arm);
	if (o->base_arm && (!arm_known(&p->mi, o->base_arm) || !arm_known(&p->mi, o->new_arm)))
		return errorf(err, "no arm '%s' in matrix '%s'", arm_known(&p->mi, o->base_arm) ?
			      o->new_arm : o->base_arm, p->mi.name);
	for (c = 0; c < p->mi.n_cells; c++)
		if (!(p->cells[c].unknown = json_array()))
			return errorf(err, "out of memory");
	*http = 500;
	if (o->base_arm)
		rc = add_pair(s, p, o->base_arm, o->new_arm, &f, err);
	for (a = 1; !o->base_arm && a < p->mi.n_arms && rc == 0; a++)
		rc = add_pair(s, p, p->mi.arm_names[0], p->mi.arm_names[a], &f, err);
	if (rc == 0)
		rc = fold(p, &f, o->max_blocks, err);
	free(f.rows);
	return rc;
}

static unsigned blocks_of(unsigned reps, unsigned R)
{
	return (reps + R - 1) / R;
}

/*
 * A cell's plan as JSON: decided or not, its blocks, its target, the blocks
 * and runs queued, its contended blocks and the verdicts still UNKNOWN.
 */
static json_t *cell_json(const struct plan *p, unsigned c)
{
	const struct cell_plan *cp = &p->cells[c];
	unsigned before = blocks_of(p->have[c], p->R);
	unsigned after = blocks_of(p->have[c] + p->added[c] / p->mi.n_arms, p->R);

	return json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:O}", "cell", p->mi.cell_names[c],
			 "decided", json_array_size(cp->unknown) == 0, "blocks", (json_int_t)before,
			 "target", (json_int_t)cp->target, "queued_blocks",
			 (json_int_t)(after - before), "runs", (json_int_t)p->added[c],
			 "contended_blocks", (json_int_t)cp->left_out, "unknown", cp->unknown);
}

/* What extend did, as JSON: per cell its plan, the runs queued in all. */
static int result_json(const struct plan *p, const struct extend_opts *o, json_t **ret,
		       char *err)
{
	json_t *cells = json_array(), *cj;
	json_int_t runs = 0;
	unsigned c;

	for (c = 0; cells && c < p->mi.n_cells; c++) {
		cj = cell_json(p, c);
		runs += p->added[c];
		if (!cj || json_array_append_new(cells, cj) < 0) {
			json_decref(cells);
			cells = NULL;
		}
	}
	if (!cells)
		return errorf(err, "out of memory");
	*ret = json_pack("{s:I, s:s, s:I, s:I, s:o}", "matrix", (json_int_t)p->mid, "name",
			 p->mi.name, "max_blocks", (json_int_t)o->max_blocks, "runs", runs,
			 "cells", cells);
	return *ret ? 0 : errorf(err, "out of memory");
}

/* Each UNKNOWN cell up to its target blocks, in whole reps; others as they are. */
static int grow(struct store *s, struct plan *p, char *err)
{
	unsigned c;

	if (store_cell_reps(s, p->mid, p->mi.n_arms, p->mi.n_cells, p->have, err) < 0)
		return -1;
	for (c = 0; c < p->mi.n_cells; c++)
		p->want[c] = p->cells[c].target * p->R;
	return store_grow_cells(s, p->mid, p->mi.n_arms, p->mi.n_cells, p->want, 0, p->added, err);
}

/* The matrix's state (active, paused, ...) into res. */
static int add_state(struct store *s, struct plan *p, json_t *res, char *err)
{
	char state[16];

	if (store_matrix_state(s, p->mid, state, err) < 0)
		return -1;
	json_object_set_new(res, "state", json_string(state));
	return 0;
}

int extend_matrix(struct store *s, const struct extend_opts *o, json_t **ret, int *ret_http,
		  char *err)
{
	_cleanup_free_ struct plan *p = calloc(1, sizeof(*p));
	char state[16];
	int rc = -1;

	*ret_http = 500;
	if (!p)
		return errorf(err, "out of memory");
	*ret_http = 404;
	if (store_find_matrix(s, o->matrix, &p->mid, err) < 0)
		return -1;
	*ret_http = 500;
	if (store_matrix_state(s, p->mid, state, err) < 0 ||
	    store_matrix_info(s, p->mid, &p->mi, err) < 0)
		return -1;
	*ret_http = 409;
	if (!strcmp(state, "cancelled"))
		return errorf(err, "matrix %lld is cancelled", (long long)p->mid);
	p->R = abba_block_reps(p->mi.n_arms);
	if (gather(s, o, p, ret_http, err) == 0 && grow(s, p, err) == 0 &&
	    result_json(p, o, ret, err) == 0) {
		rc = add_state(s, p, *ret, err);
		if (rc < 0)
			json_decref(*ret);
	}
	plan_release(p);
	return rc;
}

/* " ~12 (5 to 40)", " >9999": one estimate and its range. */
static void print_more(FILE *f, const json_t *u)
{
	const json_t *range = json_object_get(u, "more_range");
	json_int_t more = json_integer_value(json_object_get(u, "more"));
	json_int_t lo = json_integer_value(json_array_get(range, 0));
	json_int_t hi = json_integer_value(json_array_get(range, 1));

	if (more >= STATS_MORE_MAX) {
		fprintf(f, " >%u", STATS_MORE_MAX);
		return;
	}
	fprintf(f, " ~%lld", (long long)more);
	if (lo != more || hi != more)
		fprintf(f, " (%lld to %s%lld)", (long long)lo, hi >= STATS_MORE_MAX ? ">" : "",
			(long long)hi);
}

/* "ops/s ~3 (2 to 9), classic refault/s >9999" */
static void print_unknown(FILE *f, const json_t *unknown, int arms)
{
	const json_t *u;
	size_t i;

	json_array_foreach(unknown, i, u) {
		fprintf(f, "%s%s%s%s", i ? ", " : "", arms ? json_string_value(
			json_object_get(u, "arm")) : "", arms ? " " : "",
			json_string_value(json_object_get(u, "metric")));
		print_more(f, u);
	}
}

/* More than one new arm among the UNKNOWN verdicts: then each names its arm. */
static int several_arms(const json_t *cells)
{
	const char *first = NULL, *a;
	const json_t *cl, *u;
	size_t i, j;

	json_array_foreach(cells, i, cl)
		json_array_foreach(json_object_get(cl, "unknown"), j, u) {
			a = json_string_value(json_object_get(u, "arm"));
			if (!first)
				first = a;
			else if (a && strcmp(a, first))
				return 1;
		}
	return 0;
}

/*
 * A cell's line of extend's text: decided, or UNKNOWN with why and what was
 * queued (or why nothing was).
 */
static void print_cell(FILE *f, const json_t *cl, int arms, json_int_t max)
{
	json_int_t before = json_integer_value(json_object_get(cl, "blocks"));
	json_int_t q = json_integer_value(json_object_get(cl, "queued_blocks"));
	json_int_t lo = json_integer_value(json_object_get(cl, "contended_blocks"));
	char repl[48] = "";

	fprintf(f, "  %-24s ", json_string_value(json_object_get(cl, "cell")));
	if (json_is_true(json_object_get(cl, "decided"))) {
		fprintf(f, "decided, %lld blocks: nothing queued\n", (long long)before);
		return;
	}
	fprintf(f, "UNKNOWN (");
	print_unknown(f, json_object_get(cl, "unknown"), arms);
	if (lo)
		fmtcut(repl, sizeof(repl), " (%lld contended, replaced)", (long long)lo);
	if (q)
		fprintf(f, "): %lld blocks%s, queued %lld more (%lld runs)\n", (long long)before,
			repl, (long long)q, (long long)json_integer_value(json_object_get(cl, "runs")));
	else
		fprintf(f, "): %lld blocks, %s: nothing queued\n", (long long)before,
			before >= max ? "at the cap" : "enough already planned");
}

void extend_print(FILE *f, const json_t *res)
{
	const json_t *cl, *cells = json_object_get(res, "cells");
	json_int_t max = json_integer_value(json_object_get(res, "max_blocks"));
	int arms = several_arms(cells);
	size_t i;

	fprintf(f, "extend '%s' (matrix %lld): at most %lld blocks a cell\n",
		json_string_value(json_object_get(res, "name")),
		(long long)json_integer_value(json_object_get(res, "matrix")), (long long)max);
	json_array_foreach(cells, i, cl)
		print_cell(f, cl, arms, max);
	fprintf(f, "queued %lld runs; matrix %s\n",
		(long long)json_integer_value(json_object_get(res, "runs")),
		json_string_value(json_object_get(res, "state")));
}
