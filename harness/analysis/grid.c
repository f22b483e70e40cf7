/* grid.c -- the numbers behind `harness table`: per cell and arm the mean of
 * one metric, its Delta, and the verdict of compare.c on per-block deltas. */
#include "analysis/grid.h"
#include "spec/abba.h"
#include "base/err.h"
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The metric's value of every run of (cell, arm) into x; how many. */
static size_t arm_values(const struct grid *g, const struct run_summary *v, size_t n,
			 unsigned cell, unsigned arm, double *x)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i].cell == cell && v[i].arm == arm)
			x[k++] = g->m->get(&v[i]);
	return k;
}

/* Does the block of v[j] (its cell and block) have a contended run? */
static int block_contended(const struct run_summary *v, size_t n, size_t j)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].contended && v[i].cell == v[j].cell && v[i].block == v[j].block)
			return 1;
	return 0;
}

/* The contended runs of (cell, arm). */
static unsigned arm_contended(const struct run_summary *v, size_t n, unsigned cell, unsigned arm)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += v[i].cell == cell && v[i].arm == arm && v[i].contended;
	return k;
}

/*
 * Observations of the baseline (0) and arm (1) in cell, blocks with a
 * contended run left out; with pairs, each rep
 * of a block is a block of its own (block * per_block + rep). Returns their count.
 */
static size_t observations(const struct grid *g, const struct run_summary *v, size_t n,
			   unsigned cell, unsigned arm, int pairs, struct stats_obs *o)
{
	unsigned per = abba_block_reps(g->mi->n_arms), arms = g->mi->n_arms ? g->mi->n_arms : 1;
	size_t i, k = 0;
	double x;

	for (i = 0; i < n; i++) {
		if (v[i].cell != cell || (v[i].arm != g->base && v[i].arm != arm))
			continue;
		if (isnan(x = g->m->get(&v[i])) || block_contended(v, n, i))
			continue;
		o[k].arm = v[i].arm == arm;
		o[k].block = pairs ? v[i].block * per + v[i].position / arms
				   : abba_unit(g->mi->n_arms, v[i].block, v[i].position);
		o[k++].v = x;
	}
	return k;
}

struct verdict_rule grid_rule(const struct grid *g)
{
	double margins[METRIC_MAX] = { 0 };
	struct verdict_rule r;

	margins[g->m - metrics] = g->margin;
	metric_rule(g->m, margins, &r);
	return r;
}

/*
 * One entry of the grid: the arm's mean over its runs, whether any was
 * contended, its Delta against the baseline and, for a non-baseline arm,
 * its verdict from the paired blocks; -1 with err out of memory.
 */
static int fill_entry(struct grid *g, const struct run_summary *v, size_t n, unsigned row,
		      unsigned arm, double *x, struct stats_obs *o, unsigned *blocks, char *err)
{
	struct grid_entry *e = &g->e[row][arm];
	struct verdict_rule rule;
	unsigned cell = g->cells[row];
	double base = g->e[row][g->base].value;
	size_t k;

	e->value = metric_mean(g->m, x, arm_values(g, v, n, cell, arm, x), &e->n);
	e->contended = arm_contended(v, n, cell, arm);
	e->delta = arm == g->base || isnan(base) || base == 0 ? NAN : e->value / base - 1;
	memset(&e->v, 0, sizeof(e->v));
	e->v.delta = e->v.lo = e->v.hi = e->v.p = e->v.p_sym = e->v.q = NAN;
	if (arm == g->base)
		return 0;
	k = observations(g, v, n, cell, arm, 0, o);
	rule = grid_rule(g);
	if (verdict_of_runs(o, k, &rule, x, blocks, n, &e->v) < 0)
		return errorf(err, "out of memory");
	return 0;
}

int grid_fill(struct grid *g, const struct run_summary *v, size_t n, char *err)
{
	_cleanup_free_ double *x = calloc(n + 1, sizeof(*x));
	_cleanup_free_ struct stats_obs *o = calloc(n + 1, sizeof(*o));
	_cleanup_free_ unsigned *blocks = calloc(n + 1, sizeof(*blocks));
	unsigned row, arm;

	if (!x || !o || !blocks)
		return errorf(err, "out of memory");
	if (g->base >= g->mi->n_arms)
		return errorf(err, "matrix '%s': baseline arm %u of %u", g->mi->name, g->base,
			      g->mi->n_arms);
	for (row = 0; row < g->n_rows; row++) {
		/* the baseline first: every Delta needs its value */
		if (fill_entry(g, v, n, row, g->base, x, o, blocks, err) < 0)
			return -1;
		for (arm = 0; arm < g->mi->n_arms; arm++)
			if (arm != g->base && fill_entry(g, v, n, row, arm, x, o, blocks, err) < 0)
				return -1;
	}
	return 0;
}

int grid_adjust(struct grid *const *g, size_t n, size_t *ret_family, char *err)
{
	_cleanup_free_ struct verdict **vs = NULL;
	size_t i, k = 0, cap = 0;
	unsigned row, arm;

	for (i = 0; i < n; i++)
		cap += (size_t)g[i]->n_rows * g[i]->mi->n_arms;
	if (!(vs = calloc(cap + 1, sizeof(*vs))))
		return errorf(err, "out of memory");
	for (i = 0; i < n; i++)
		for (row = 0; row < g[i]->n_rows; row++)
			for (arm = 0; arm < g[i]->mi->n_arms; arm++)
				if (arm != g[i]->base)
					vs[k++] = &g[i]->e[row][arm].v;
	if (verdict_adjust(vs, k) < 0)
		return errorf(err, "out of memory");
	for (i = 0, *ret_family = 0; i < k; i++)
		*ret_family += vs[i]->kind != VERDICT_UNMEASURED;
	return 0;
}

void grid_pairs_release(struct grid_pairs *p)
{
	free(p->block);
	free(p->d);
	free(p->mean);
	memset(p, 0, sizeof(*p));
}

/* Lay the deltas of virtual blocks vb (block * per + rep) out as [block][rep]. */
static void pairs_layout(struct grid_pairs *p, const double *d, const unsigned *vb, size_t k)
{
	size_t i, b = 0, j, used;
	unsigned r;
	double *col;

	for (i = 0; i < k; i++) {
		if (!b || vb[i] / p->per_block != p->block[b - 1])
			p->block[b++] = vb[i] / p->per_block;
		p->d[(b - 1) * p->per_block + vb[i] % p->per_block] = d[i];
	}
	p->n_blocks = b;
	col = p->mean + p->per_block;   /* scratch behind the means */
	for (r = 0; r < p->per_block; r++) {
		for (j = 0, used = 0; j < b; j++)
			if (!isnan(p->d[j * p->per_block + r]))
				col[used++] = p->d[j * p->per_block + r];
		p->mean[r] = stats_mean(col, used);
	}
}

int grid_pairs(const struct grid *g, const struct run_summary *v, size_t n, unsigned row,
	       unsigned arm, struct grid_pairs *ret, char *err)
{
	_cleanup_free_ struct stats_obs *o = calloc(n + 1, sizeof(*o));
	_cleanup_free_ double *d = calloc(n + 1, sizeof(*d));
	_cleanup_free_ unsigned *vb = calloc(n + 1, sizeof(*vb));
	struct grid_pairs p = { .per_block = abba_block_reps(g->mi->n_arms) };
	size_t i;
	long k;

	if (!o || !d || !vb)
		return errorf(err, "out of memory");
	k = stats_block_deltas(o, observations(g, v, n, g->cells[row], arm, 1, o), g->m->harmonic,
			       d, vb, n);
	p.block = calloc((size_t)(k > 0 ? k : 1), sizeof(*p.block));
	p.d = calloc((size_t)(k > 0 ? k : 1) * p.per_block, sizeof(*p.d));
	p.mean = calloc(2 * p.per_block + (size_t)(k > 0 ? k : 1), sizeof(*p.mean));
	if (k < 0 || !p.block || !p.d || !p.mean) {
		grid_pairs_release(&p);
		return errorf(err, "out of memory");
	}
	for (i = 0; i < (size_t)k * p.per_block; i++)
		p.d[i] = NAN;
	pairs_layout(&p, d, vb, (size_t)k);
	*ret = p;
	return 0;
}
