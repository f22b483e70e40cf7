/* calibrate.c -- A/A calibration: the A/A matrix made from a user's matrix,
 * the spread of its paired deltas stored per cell and metric, and the blocks
 * that spread says a matrix needs for an effect. */
#include "analysis/calibrate.h"
#include "analysis/metric.h"
#include "analysis/plan.h"
#include "analysis/stats.h"
#include "analysis/confseq.h"
#include "analysis/signflip.h"
#include "analysis/verdict.h"
#include "base/err.h"
#include "spec/abba.h"
#include "store/store_noise.h"
#include "common/fmt.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---- the A/A matrix ---- */

static int has_aa_suffix(const char *name)
{
	size_t n = strlen(name);

	return n >= 3 && !strcmp(name + n - 3, "-aa");
}

/* A copy of the expanded arm called name (NULL: the first). */
static json_t *pick_arm(json_t *root, const char *name)
{
	json_t *arms = spec_expand_arms(json_object_get(root, "arms")), *a, *ret = NULL;
	size_t i;

	json_array_foreach(arms, i, a)
		if (!name || !strcmp(name, json_string_value(json_object_get(a, "name")) ?
					   json_string_value(json_object_get(a, "name")) : "")) {
			ret = json_deep_copy(a);
			break;
		}
	json_decref(arms);
	return ret;
}

/*
 * A copy of arm named "NAME-K-aa" (an A/A arm's own suffix dropped first),
 * the name cut to fit; NULL out of memory.
 */
static json_t *aa_arm(json_t *arm, unsigned k)
{
	const char *base = json_string_value(json_object_get(arm, "name"));
	json_t *c = json_deep_copy(arm);
	char name[SPEC_NAME_MAX];
	int len = (int)strlen(base);

	if (has_aa_suffix(base))      /* an A/A arm already: not "x-aa-1-aa" */
		len -= 3;
	/* 27 + "-1-aa" or "-2-aa" fit; NULL if they did not */
	if (c && (fmtbuf(name, sizeof(name), "%.*s-%u-aa",
			 len < SPEC_NAME_MAX - 6 ? len : SPEC_NAME_MAX - 6, base, k) < 0 ||
		  json_object_set_new(c, "name", json_string(name)) < 0)) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/*
 * The matrix root turned into its A/A calibration: two copies of arm, the
 * cells asked for, 2 x blocks reps, its name and description; -1 out of
 * memory.
 */
static int aa_root(json_t *root, json_t *arm, const char *label, const char *const *cells,
		   size_t n_cells, unsigned blocks)
{
	json_t *arms = json_pack("[o,o]", aa_arm(arm, 1), aa_arm(arm, 2)), *names = json_array();
	char name[SPEC_NAME_MAX], desc[PATH_MAX + 128];
	size_t i;
	int rc = 0;

	/* 29 + "-aa" fit; -1 if they did not */
	rc |= fmtbuf(name, sizeof(name), "%.*s-aa", SPEC_NAME_MAX - 4,
		     json_string_value(json_object_get(root, "name"))) < 0;
	fmtcut(desc, sizeof(desc), "A/A calibration (harness calibrate) of arm '%s' of %s",
		 json_string_value(json_object_get(arm, "name")), label);
	for (i = 0; names && i < n_cells; i++)
		rc |= json_array_append_new(names, json_string(cells[i]));
	rc |= !arms || !names;
	rc |= json_object_set_new(root, "name", json_string(name));
	rc |= json_object_set_new(root, "description", json_string(desc));
	rc |= json_object_set_new(root, "reps", json_integer(2 * (json_int_t)blocks));
	rc |= json_object_set(root, "arms", arms);
	if (n_cells)
		rc |= json_object_set(root, "cells", names);
	json_decref(arms);
	json_decref(names);
	return rc ? -1 : 0;
}

int calibrate_spec(const char *text, const char *label, const char *arm,
		   const char *const *cells, size_t n_cells, unsigned blocks, char **ret, char *err)
{
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *a = NULL;
	int rc = -1;

	*ret = NULL;
	if (!root || !json_is_object(root) ||
	    !json_is_string(json_object_get(root, "name"))) {
		errorf(err, "%s: expected a matrix (parse it with harness check first)", label);
		goto out;
	}
	if (!(a = pick_arm(root, arm))) {
		errorf(err, "%s: --arm %s: expected the name of one of its arms, as tables print it",
		       label, arm ? arm : "(first)");
		goto out;
	}
	if (aa_root(root, a, label, cells, n_cells, blocks) < 0 ||
	    !(*ret = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)))) {
		errorf(err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(a);
	json_decref(root);
	return rc;
}

/* ---- measuring and storing ---- */

/* The spread of one cell and metric over arms a0 and a1. */
struct spread {
	size_t blocks;
	double mean, sd, cv;
};

/* 0, or 1 if the metric has no value or is 0 in every run (nothing to calibrate). */
static int spread_of(const struct run_summary *v, size_t n, unsigned cell, const int aa[2],
		     const struct metric *m, struct stats_obs *o, double *x, double *d,
		     struct spread *sp)
{
	size_t i, zeros = 0,
	       k = metric_pair_obs(m, v, n, cell, (unsigned)aa[0], (unsigned)aa[1], o);
	struct verdict_rule rule;
	long nd;

	for (i = 0; i < k; i++) {
		zeros += o[i].v == 0;
		x[i] = o[i].v;
	}
	if (!k || zeros == k)
		return 1;
	metric_rule(m, NULL, &rule);
	nd = verdict_unit_stats(o, k, &rule, d, n);
	sp->blocks = nd > 0 ? (size_t)nd : 0;
	sp->mean = stats_mean(d, sp->blocks);
	sp->sd = stats_sd(d, sp->blocks);
	sp->cv = stats_sd(x, k) / stats_mean(x, k);
	return 0;
}

/* A share as a percentage with one decimal; "-" when not finite. */
static void pct(char *buf, size_t size, double x)
{
	if (isfinite(x))
		fmtcut(buf, size, "%.1f%%", 100 * x);
	else
		fmtcut(buf, size, "-");
}

/*
 * The sd an A/A sd measured over blocks blocks may hide: the end (z = +-1.2816,
 * upper for z < 0) of its 80 % band from a chi-square on blocks - 1 degrees of
 * freedom (Wilson and Hilferty's cube-root approximation of its quantile).
 */
static double sd_bound(double sd, unsigned blocks, double z)
{
	double nu = (double)blocks - 1, c = 1 - 2 / (9 * nu) + z * sqrt(2 / (9 * nu));

	return blocks < 2 || c <= 0 ? INFINITY : sd / sqrt(c * c * c);
}

unsigned calibrate_need_range(double sd, unsigned blocks, enum verdict_scale scale, double least,
			      double effect, size_t family, unsigned *lo, unsigned *hi)
{
	least = verdict_to_scale(scale, least);     /* the plan simulates the verdict's scale */
	effect = verdict_to_scale(scale, effect);
	*lo = plan_blocks_needed(sd_bound(sd, blocks, VERDICT_RANGE_Z), least, effect, family);
	*hi = plan_blocks_needed(sd_bound(sd, blocks, -VERDICT_RANGE_Z), least, effect, family);
	return plan_blocks_needed(sd, least, effect, family);
}

/* "11 (7 to 25)", "11 (7 to never)" or "never" into buf. */
static const char *need_text(unsigned need, unsigned lo, unsigned hi, char *buf, size_t size)
{
	if (!need)
		fmtcut(buf, size, "never");
	else if (!hi)
		fmtcut(buf, size, "%u (%u to never)", need, lo);
	else
		fmtcut(buf, size, "%u (%u to %u)", need, lo, hi);
	return buf;
}

/*
 * A cell and metric's row of calibrate's table: blocks, mean and sd of the
 * A/A deltas, CV, the noise floor, the least effect it detects, and the
 * blocks a matrix needs.
 */
static void print_spread(FILE *out, const char *cell, const struct metric *m,
			 const struct spread *sp)
{
	double noise = verdict_aa_floor(sp->mean, sp->sd, sp->blocks), least;
	struct verdict_rule r;       /* the metric table's: a calibration never sets it */
	enum verdict_scale sc;
	unsigned lo, hi, need;
	char f[16], det[16], nd[48];

	metric_rule(m, NULL, &r);
	sc = r.scale;
	least = r.min_effect;
	need = calibrate_need_range(sp->sd, (unsigned)sp->blocks, sc, least, CALIBRATE_EFFECT, 1,
				    &lo, &hi);

	pct(f, sizeof(f), verdict_shown(sc, noise));
	pct(det, sizeof(det), verdict_shown(sc, verdict_detectable(sp->sd,
			verdict_to_scale(sc, least), sp->blocks, 1)));
	fprintf(out, "%-24s %-10s %6zu %+7.2f%% %6.2f%% %6.1f%% %7s %8s  %s\n", cell, m->name,
		sp->blocks, 100 * verdict_shown(sc, sp->mean), 100 * sp->sd, 100 * sp->cv, f, det,
		need_text(need, lo, hi, nd, sizeof(nd)));
}

struct aa_data {
	struct matrix_info mi;
	struct run_summary *v;
	size_t n;
	int aa[2];
	struct stats_obs *o;
	double *x, *d;
};

/*
 * An A/A matrix's summaries and its two -aa arms, with scratch for them;
 * -1 with err when it has no such pair.
 */
static int load_aa(struct store *s, int64_t mid, struct aa_data *a, char *err)
{
	unsigned i;

	a->aa[0] = a->aa[1] = -1;
	if (store_matrix_info(s, mid, &a->mi, err) < 0 ||
	    store_summaries(s, mid, SUMMARY_OPS, &a->v, &a->n, err) < 0)
		return -1;
	for (i = 0; i < a->mi.n_arms && a->aa[1] < 0; i++)
		if (has_aa_suffix(a->mi.arm_names[i]))
			a->aa[a->aa[0] >= 0] = (int)i;
	if (a->aa[1] < 0)
		return errorf(err, "matrix %lld '%s': expected two arms whose names end in -aa"
			      " (harness calibrate makes them)", (long long)mid, a->mi.name);
	a->o = calloc(a->n + 1, sizeof(*a->o));
	a->x = calloc(a->n + 1, sizeof(*a->x));
	a->d = calloc(a->n + 1, sizeof(*a->d));
	return a->o && a->x && a->d ? 0 : errorf(err, "out of memory");
}

/* What load_aa allocated. */
static void free_aa(struct aa_data *a)
{
	free(a->v);
	free(a->o);
	free(a->x);
	free(a->d);
}

int calibrate_store(struct store *s, int64_t mid, FILE *out, char *err)
{
	struct aa_data *a = calloc(1, sizeof(*a));
	const struct metric *m;
	struct spread sp;
	unsigned cell;
	int stored = 0;

	if (!a)
		return errorf(err, "out of memory");
	if (load_aa(s, mid, a, err) < 0)
		goto fail;
	fprintf(out, "\ncalibration of matrix %lld '%s', arms %s and %s; per block: delta and sd"
		" of the paired deltas; CV of the runs; noise, the far end of their t"
		" interval (shown by compare, never deciding); detects (%.0f %% power) above the"
		" metric's declared minimum effect; blocks for %.0f %%\n", (long long)mid, a->mi.name,
		a->mi.arm_names[a->aa[0]], a->mi.arm_names[a->aa[1]], 100 * VERDICT_POWER,
		100 * CALIBRATE_EFFECT);
	fprintf(out, "%-24s %-10s %6s %8s %7s %7s %7s %8s %8s\n", "cell", "metric", "blocks",
		"delta", "sd", "CV", "noise", "detects", "for 5%");
	for (cell = 0; cell < a->mi.n_cells; cell++)
		for (m = metrics; m < metrics + n_metrics; m++) {
			if (!m->compared || spread_of(a->v, a->n, cell, a->aa, m, a->o, a->x, a->d,
						      &sp))
				continue;
			if (store_calibration_add(s, mid, cell, m->name, (unsigned)sp.blocks, sp.mean,
						  sp.sd, sp.cv, err) < 0)
				goto fail;
			print_spread(out, a->mi.cell_names[cell], m, &sp);
			stored++;
		}
	free_aa(a);
	free(a);
	return stored;
fail:
	free_aa(a);
	free(a);
	return -1;
}

/* ---- what a matrix needs ---- */

/* "from 3.1 %" (the least effect the planned blocks can call) or "nothing" into buf. */
static const char *least_text(double least, char buf[32])
{
	if (isinf(least) || isnan(least))
		fmtcut(buf, 32, "nothing");
	else
		fmtcut(buf, 32, "from %.1f%%", 100 * least);
	return buf;
}

/*
 * The rule of calibration k's metric under the matrix's margins (a metric no
 * longer in the table: margin and minimum effect 0).
 */
static struct verdict_rule k_rule(const struct calibration *k, const double *margins)
{
	const struct metric *m = metric_find(k->metric);
	struct verdict_rule r = { VERDICT_LOG, 0, 0, 0, 0, 0 };

	if (m)
		metric_rule(m, margins, &r);
	return r;
}

/*
 * The fewest blocks at which the interval, at 0.05 / family and spread sd,
 * fits the margin and SAME can be called (never before
 * verdict_same_min_blocks); 0 for no margin, STATS_MORE_MAX for none.
 */
static size_t same_from(double sd, const struct verdict_rule *r, size_t family)
{
	size_t n, least = verdict_same_min_blocks();

	if (!(r->margin > 0) || !(sd > 0))
		return 0;
	n = confseq_n_for(verdict_to_scale(r->scale, r->margin) / sd, 1, STATS_MORE_MAX,
			  COMPARE_ALPHA / (double)family);
	return !n ? STATS_MORE_MAX : n > least ? n : least;
}

/*
 * One metric of a cell's noise line at o in line: its sd, the blocks effect
 * needs (with their range), the least effect the planned blocks can call, and
 * from how many blocks SAME can be shown. *ret_need: the range's upper end
 * (0: never). Returns the new o.
 */
static size_t metric_text(char *line, size_t o, size_t size, const struct calibration *k,
			  const struct verdict_rule *r, unsigned have, size_t family,
			  double effect, unsigned *ret_need)
{
	unsigned lo, hi, need = calibrate_need_range(k->sd, k->blocks, r->scale, r->min_effect,
						     effect, family, &lo, &hi);
	size_t same = same_from(k->sd, r, family);
	char nd[48], buf[32];

	if (o < size)
		o += (size_t)snprintf(line + o, size - o, " %s sd %.1f%% %s%s, calls %s", k->metric,
				      100 * k->sd, need ? "needs " : "",
				      need_text(need, lo, hi, nd, sizeof(nd)), least_text(verdict_shown(
				      r->scale, verdict_least_callable(k->sd, verdict_to_scale(r->scale,
				      r->min_effect), have, family)), buf));
	if (same && o < size)
		o += (size_t)snprintf(line + o, size - o, ", SAME from %s%zu", same >= STATS_MORE_MAX ?
				      "more than " : "", same);
	*ret_need = need ? hi : 0;     /* plan for the range's upper end */
	return o;
}

/* The units (abba_unit: a Williams row and its mirror) a cell of m gets, each a verdict's n. */
static unsigned plan_blocks(const struct matrix *m)
{
	return (unsigned)(m->reps / ABBA_UNIT_REPS);
}

/*
 * The verdicts a compare of two of m's arms adjusts together: every cell
 * times the compared metrics every fio cell measures (ops/s, refault/s,
 * majflt/s, rf/read, miss%); a larger compare only needs more.
 */
#define PLAN_METRICS 5
static size_t plan_family(const struct matrix *m)
{
	return (size_t)m->n_cells * PLAN_METRICS;
}

/*
 * The plan itself, before any noise is known: blocks a cell, the verdicts a
 * compare of two arms adjusts (the primary metric over the cells, the
 * others among themselves, as compare does), the fewest units a DIFFERENT
 * needs in each family and a SAME at all, against the units the matrix
 * has, and a warning when they are too few for a DIFFERENT in the primary
 * metric, whatever the noise.
 */
static void advise_plan(const struct matrix *m, const char *primary, calibrate_say_fn say,
			void *arg)
{
	unsigned have = plan_blocks(m), per = ABBA_UNIT_REPS;
	size_t fp = m->n_cells, fo = plan_family(m) - fp;
	size_t diff = verdict_min_different(COMPARE_ALPHA / (double)fp, 1),
	       other = verdict_min_different(COMPARE_ALPHA / (double)(fo ? fo : 1), 1),
	       same = verdict_same_min_blocks();
	char line[PATH_MAX + 512];

	if (m->n_arms < 2)     /* no pair of arms, no compare to plan for */
		return;
	fmtcut(line, sizeof(line), "plan: reps %llu give %u unit%s a cell (a unit: %u reps, a"
		 " Williams row and its mirror, balanced for every pair of the %u arms; %u reps a"
		 " block); a compare of two arms adjusts %zu verdict%s of %s and %zu of the other"
		 " metrics (%u cell%s x %d metrics): DIFFERENT needs at least %zu units (%zu in the"
		 " others), SAME at least %zu; this matrix has %u", (unsigned long long)m->reps,
		 have, have == 1 ? "" : "s", per, m->n_arms, abba_block_reps(m->n_arms), fp,
		 fp == 1 ? "" : "s", primary, fo, m->n_cells, m->n_cells == 1 ? "" : "s",
		 PLAN_METRICS, diff, other, same, have);
	say(arg, 0, line);
	if (have >= diff)
		return;
	fmtcut(line, sizeof(line), "%s: reps %llu give %u unit%s a cell: DIFFERENT in %s needs"
		 " at least %zu units, whatever the noise; this matrix has %u: reps %zu would",
		 m->path, (unsigned long long)m->reps, have, have == 1 ? "" : "s", primary, diff,
		 have, diff * per);
	say(arg, 1, line);
}

int calibrate_plan(const struct matrix *m, calibrate_say_fn say, void *arg, char *err)
{
	double margins[METRIC_MAX] = { 0 };
	const struct metric *primary = NULL;

	if (metric_verdict_keys(m->canonical ? m->canonical : "{}", m->path, margins, &primary,
				err) < 0)
		return -1;
	advise_plan(m, primary ? primary->name : METRIC_PRIMARY, say, arg);
	return 0;
}

/* One cell's line and, if its blocks fall short, its warning. */
static void advise_cell(const struct matrix *m, const double *margins,
			const struct calibration *k, size_t n, double effect, calibrate_say_fn say,
			void *arg)
{
	unsigned have = plan_blocks(m), need, worst = 0;
	size_t family = plan_family(m);
	const struct calibration *wk = NULL;
	struct verdict_rule r;
	char line[PATH_MAX + 1024];
	size_t i, o;

	o = (size_t)snprintf(line, sizeof(line), "noise of %s on %s (calibrated %s, %u blocks):",
			     m->cells[k->cell].name, k->host, k->at, k->blocks);
	for (i = 0; i < n; i++) {
		if (i && o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, ";");
		r = k_rule(&k[i], margins);
		o = metric_text(line, o, sizeof(line), &k[i], &r, have, family, effect, &need);
		if (!wk || (worst && (!need || need > worst))) {   /* 0, never, stays */
			wk = &k[i];
			worst = need;
		}
	}
	say(arg, 0, line);
	if (!worst)
		fmtcut(line, sizeof(line), "%s: cell %s: no number of blocks detects %.0f %% in %s"
			 " with %.0f %% power (A/A sd %.1f %% from %u blocks, minimum effect %.1f %%):"
			 " plan for a larger effect, declare a smaller margin (\"margins\"), calibrate"
			 " with more blocks, or remove noise", m->path, m->cells[k->cell].name,
			 100 * effect, wk->metric, 100 * VERDICT_POWER, 100 * wk->sd, wk->blocks,
			 100 * k_rule(wk, margins).min_effect);
	else if (worst > have)
		fmtcut(line, sizeof(line), "%s: cell %s: reps %llu give %u units; %s needs up"
			 " to %u to detect %.0f %% with %.0f %% power (A/A sd %.1f %% per unit on %s):"
			 " reps %u would", m->path, m->cells[k->cell].name,
			 (unsigned long long)m->reps, have, wk->metric, worst, 100 * effect,
			 100 * VERDICT_POWER, 100 * wk->sd, wk->host, worst * ABBA_UNIT_REPS);
	else
		return;
	say(arg, 1, line);
}

/* calibrate_verdict_keys, the margins into margins. */
static int verdict_keys(const struct matrix *m, double margins[METRIC_MAX], char *err)
{
	return metric_verdict_keys(m->canonical ? m->canonical : "{}", m->path, margins, NULL, err);
}

int calibrate_verdict_keys(const struct matrix *m, char *err)
{
	double margins[METRIC_MAX] = { 0 };

	return verdict_keys(m, margins, err);
}

int calibrate_advice(struct store *s, const struct matrix *m, const char *host, double effect,
		     calibrate_say_fn say, void *arg, char *err)
{
	_cleanup_free_ struct calibration *k = NULL;
	double margins[METRIC_MAX] = { 0 };
	char none[1024];
	size_t n, i, j, o = 0, missing = 0;
	unsigned c;

	if (verdict_keys(m, margins, err) < 0 || calibrate_plan(m, say, arg, err) < 0 ||
	    store_calibrations_for(s, m, host, &k, &n, err) < 0)
		return -1;
	for (c = 0, i = 0; c < m->n_cells; c++) {
		for (j = i; j < n && k[j].cell == c; j++)
			;
		if (j > i)
			advise_cell(m, margins, &k[i], j - i, effect, say, arg);
		else if (o < sizeof(none))
			o += (size_t)snprintf(none + o, sizeof(none) - o, "%s%s", missing++ ? ", " : "",
					      m->cells[c].name);
		i = j;
	}
	if (missing) {
		char line[2048];

		fmtcut(line, sizeof(line), "no calibration on %s for %zu of %u cells (%s): harness"
			 " calibrate of the matrix file measures their noise", host, missing,
			 m->n_cells, none);
		say(arg, 0, line);
	}
	return 0;
}
