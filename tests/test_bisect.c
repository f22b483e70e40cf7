/* test_bisect.c -- harness bisect's search on a simulated oracle: series of
 * many lengths and culprits, verdicts from the real decision code on noisy
 * synthetic blocks, prefixes that do not build or boot, documentation-only
 * patches; always the right patch or an honest range, never a wrong one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/bisect.h"
#include "analysis/stats.h"
#include "verdict_sim.h"

#define MAXN 16

/* One measured pair: its blocks drawn once, looked at as they grow. */
struct pair {
	char step[12];
	unsigned base, k;
	struct sim_seq q;
};

struct oracle {
	unsigned n;
	double t[MAXN + 1];          /* the true effect of prefix k against prefix 0 */
	int nobuild[MAXN + 1], noboot[MAXN + 1], docs[MAXN + 1];
	struct sim_noise_model nm;
	uint64_t state;
	unsigned max_blocks;
	struct pair *pairs[64];
	size_t n_pairs;
	unsigned measures;           /* looks, for the budget test */
};

/* The prefix whose kernel k builds: documentation patches change nothing. */
static unsigned kernel_of(const struct oracle *o, unsigned k)
{
	while (k > 0 && o->docs[k])
		k--;
	return k;
}

static int o_build(void *arg, unsigned k, char *key, char *why, char *err)
{
	struct oracle *o = arg;
	unsigned rep = kernel_of(o, k);    /* a documentation patch builds its parent's kernel */

	(void)err;
	if (o->nobuild[rep]) {
		snprintf(why, ERR_MAX, "the build failed (simulated)");
		return 1;
	}
	snprintf(key, BISECT_KEY_MAX, "kernel-%u", rep);
	return 0;
}

static struct pair *pair_of(struct oracle *o, const char *step, unsigned base, unsigned k)
{
	struct pair *p;
	size_t i;

	for (i = 0; i < o->n_pairs; i++)
		if (!strcmp(o->pairs[i]->step, step) && o->pairs[i]->base == base &&
		    o->pairs[i]->k == k)
			return o->pairs[i];
	assert_true(o->n_pairs < 64);
	p = calloc(1, sizeof(*p));
	assert_non_null(p);
	snprintf(p->step, sizeof(p->step), "%s", step);
	p->base = base;
	p->k = k;
	sim_seq_fill(&p->q, &o->state, &o->nm, (1 + o->t[k]) / (1 + o->t[base]) - 1,
		     o->max_blocks);
	o->pairs[o->n_pairs++] = p;
	return p;
}

static int o_measure(void *arg, const char *step, unsigned base, unsigned k, unsigned blocks,
		     struct bisect_look *out, char *err)
{
	struct oracle *o = arg;
	struct pair *p;

	(void)err;
	o->measures++;
	assert_true(blocks <= o->max_blocks);
	if (o->noboot[kernel_of(o, k)] || o->noboot[kernel_of(o, base)]) {
		out->skip = 1;
		out->runs = 4;
		snprintf(out->why, sizeof(out->why), "p%u did not boot (simulated)", k);
		return 0;
	}
	if (!blocks) {                   /* what is known before anything runs: nothing */
		out->v.kind = VERDICT_UNKNOWN;
		return 0;
	}
	p = pair_of(o, step, base, k);
	out->runs = 4 * blocks;
	out->wall_s = 40.0 * blocks;
	return sim_verdict(&p->q, blocks, 0, &out->v);
}

static void oracle_free(struct oracle *o)
{
	for (size_t i = 0; i < o->n_pairs; i++)
		free(o->pairs[i]);
	o->n_pairs = 0;
}

/* A series of n with patch c carrying effect; each other patch is, with
 * probability 1/6 each, documentation only, unbuildable or unbootable. */
static void make_series(struct oracle *o, unsigned n, unsigned c, double effect, double cv,
			uint64_t seed)
{
	memset(o, 0, sizeof(*o));
	o->n = n;
	o->nm.shape = SIM_LOGNORMAL;
	o->nm.cv = cv;
	o->state = seed * 0x9e3779b97f4a7c15ull + 1;
	o->max_blocks = BISECT_MAX_BLOCKS;
	for (unsigned k = 1; k <= n; k++) {
		uint64_t x = stats_rand(&o->state) % 6;
		if (k != c && k != n) {
			o->docs[k] = x == 0;
			o->nobuild[k] = x == 1;
			o->noboot[k] = x == 2;
		}
		o->t[k] = k >= c ? effect : 0;
	}
}

/* Every patch builds, boots and changes the kernel. */
static void plain(struct oracle *o)
{
	memset(o->docs, 0, sizeof(o->docs));
	memset(o->nobuild, 0, sizeof(o->nobuild));
	memset(o->noboot, 0, sizeof(o->noboot));
}

static void run(struct oracle *o, unsigned max_runs, struct bisect_result *r)
{
	struct bisect_opts opts = { .good = 0, .bad = o->n, .max_blocks = o->max_blocks,
				    .max_runs = max_runs };
	struct bisect_ops ops = { .build = o_build, .measure = o_measure, .arg = o };
	char err[ERR_MAX] = "";

	assert_int_equal(bisect_run(&opts, &ops, r, err), 0);
}

/* The e2e test's series: p1 does not build, p3 is the culprit, p4 touches only documentation. */
static void test_e2e_series(void **state)
{
	struct oracle o;
	struct bisect_result r;

	(void)state;
	make_series(&o, 4, 3, -0.4, 0.03, 7);
	plain(&o);
	o.nobuild[1] = 1;
	o.docs[4] = 1;
	run(&o, 0, &r);
	assert_int_equal(r.outcome, BISECT_FOUND);
	assert_int_equal(r.hi, 3);
	assert_int_equal(r.lo, 2);
	assert_int_equal(r.build_failed, 1);
	assert_int_equal(r.cls[1], BISECT_SKIP);
	assert_int_equal(r.cls[3], BISECT_BAD);    /* BAD's kernel: never measured itself */
	assert_int_equal(r.same_kernel, 1);
	assert_false(r.builds_up);
	/* confirm, build p1 (skip), same p3, search p2, check p3 against p2 */
	assert_int_equal(r.n_steps, 5);
	assert_string_equal(r.steps[4].what, "check");
	assert_int_equal(r.steps[4].base, 2);
	assert_true(r.runs >= 3 * 4 * COMPARE_MIN_BLOCKS);
	bisect_release(&r);
	oracle_free(&o);
}

/*
 * Every length 1..MAXN, every culprit, random skips and documentation
 * patches, a strong effect: a named patch is the culprit but for at most
 * COMPARE_ALPHA of the bisections (none is expected); a range holds it; most
 * are named.
 */
static void test_right_or_honest(void **state)
{
	unsigned n, c, seed, wrong = 0, found = 0, total = 0, ranged = 0, decidable = 0, p;
	struct oracle o;
	struct bisect_result r;

	(void)state;
	for (n = 1; n <= MAXN; n++)
		for (c = 1; c <= n; c++)
			for (seed = 0; seed < 3; seed++) {
				make_series(&o, n, c, seed == 1 ? 0.25 : -0.3, 0.04,
					    n * 1000 + c * 10 + seed);
				run(&o, 0, &r);
				total++;
				/* the culprit's parent (its kernel) builds and boots */
				p = kernel_of(&o, c - 1);
				decidable += !o.nobuild[p] && !o.noboot[p];
				if (r.outcome == BISECT_FOUND) {
					found++;
					wrong += r.hi != c;
				} else if (r.outcome == BISECT_RANGE) {
					ranged++;
					assert_true(c > r.lo && c <= r.hi);
				}
				bisect_release(&r);
				oracle_free(&o);
			}
	print_message("%u bisections: %u found (%u wrong), %u ranges; %u decidable\n", total,
		      found, wrong, ranged, decidable);
	assert_true(wrong <= COMPARE_ALPHA * total);
	assert_true(found >= 0.9 * decidable);
}

/* No effect at all: nothing to bisect, said so (a false DIFFERENT at most COMPARE_ALPHA). */
static void test_no_effect(void **state)
{
	unsigned seed, total = 0, refused = 0, named = 0;
	struct oracle o;
	struct bisect_result r;

	(void)state;
	for (seed = 0; seed < 60; seed++) {
		make_series(&o, 6, 3, 0, 0.04, 5000 + seed);
		run(&o, 0, &r);
		total++;
		refused += r.outcome == BISECT_NOT_DIFFERENT;
		named += r.outcome == BISECT_FOUND;     /* every name is a wrong one here */
		bisect_release(&r);
		oracle_free(&o);
	}
	assert_true(refused >= (1 - 2 * COMPARE_ALPHA) * total);
	assert_true(named <= COMPARE_ALPHA * total);
}

/* A weak effect in wide noise: undecided steps, never a wrong name. */
static void test_weak_effect_never_wrong(void **state)
{
	unsigned seed, wrong = 0, total = 0, named = 0;
	struct oracle o;
	struct bisect_result r;

	(void)state;
	for (seed = 0; seed < 60; seed++) {
		make_series(&o, 8, 1 + seed % 8, -0.06, 0.08, 9000 + seed);
		run(&o, 0, &r);
		total++;
		if (r.outcome == BISECT_FOUND) {
			named++;
			wrong += r.hi != 1 + seed % 8;
		}
		bisect_release(&r);
		oracle_free(&o);
	}
	print_message("weak effect: %u of %u named, %u wrong\n", named, total, wrong);
	assert_true(wrong <= COMPARE_ALPHA * total);
}

/* Two patches of half the effect each: no single culprit is claimed without saying so. */
static void test_effect_builds_up(void **state)
{
	unsigned seed, quiet = 0;
	struct oracle o;
	struct bisect_result r;

	(void)state;
	for (seed = 0; seed < 30; seed++) {
		make_series(&o, 6, 2, -0.15, 0.03, 12000 + seed);
		plain(&o);
		for (unsigned k = 4; k <= 6; k++)
			o.t[k] = (1 - 0.15) * (1 - 0.15) - 1;
		run(&o, 0, &r);
		if (r.outcome == BISECT_FOUND) {
			assert_true(r.hi == 2 || r.hi == 4);
			quiet += !r.builds_up;
		}
		bisect_release(&r);
		oracle_free(&o);
	}
	print_message("builds up: %u of 30 named one patch without saying it builds up\n", quiet);
	assert_true(quiet <= 3);
}

/* A budget of runs: the search stops there, with the range it has, holding the culprit. */
static void test_budget(void **state)
{
	struct oracle o;
	struct bisect_result r;

	(void)state;
	make_series(&o, 16, 11, -0.3, 0.04, 77);
	plain(&o);
	run(&o, 100, &r);
	assert_int_equal(r.outcome, BISECT_BUDGET);
	assert_true(11 > r.lo && 11 <= r.hi);
	assert_true(r.runs <= 100);               /* no step grew past it */
	assert_true(r.n_steps >= 2);
	bisect_release(&r);
	oracle_free(&o);
}

/* The class rule itself. */
static void test_classify(void **state)
{
	struct verdict v = { .kind = VERDICT_DIFFERENT, .blocks = 4, .delta = -0.4,
			     .lo = -0.45, .hi = -0.35 };

	(void)state;
	assert_int_equal(bisect_classify(&v, -0.4), BISECT_BAD);
	v.lo = -0.3;
	v.hi = -0.1;       /* different, but within half of BAD's effect? no: straddles -0.2 */
	assert_int_equal(bisect_classify(&v, -0.4), BISECT_UNDECIDED);
	v.lo = -0.15;
	v.hi = -0.05;      /* DIFFERENT well inside BAD's effect: like GOOD */
	assert_int_equal(bisect_classify(&v, -0.4), BISECT_GOOD);
	v.kind = VERDICT_SAME;
	assert_int_equal(bisect_classify(&v, 0.4), BISECT_GOOD);
	v.kind = VERDICT_UNKNOWN;
	v.blocks = 2;
	v.lo = -INFINITY;
	v.hi = INFINITY;
	assert_int_equal(bisect_classify(&v, 0.4), BISECT_UNDECIDED);
	v.kind = VERDICT_DIFFERENT;      /* BAD's size but the other way: not like BAD */
	v.blocks = 8;
	v.lo = 0.35;
	v.hi = 0.45;
	assert_int_equal(bisect_classify(&v, -0.4), BISECT_GOOD);
}

/* The budget's floor: one block, 4 runs of the cell's 60 s and a boot each (260 s). */
static void test_budget_floor(void **state)
{
	char err[ERR_MAX];

	(void)state;
	assert_int_equal(bisect_budget_check(0, 1e-300, 60, err), -1);
	assert_non_null(strstr(err, "max_hours 1e-300: expected at least one block's time, 260 s"));
	assert_int_equal(bisect_budget_check(0, 259.0 / 3600, 60, err), -1);
	assert_int_equal(bisect_budget_check(0, 260.0 / 3600, 60, err), 0);
	assert_int_equal(bisect_budget_check(0, 0, 60, err), 0);       /* no limit */
	assert_int_equal(bisect_budget_check(3, 0, 60, err), -1);
	assert_non_null(strstr(err, "max_runs 3: expected at least one block's 4 runs"));
	assert_int_equal(bisect_budget_check(4, 1, 60, err), 0);
	assert_int_equal(bisect_budget_check(0, 1e-300, 0, err), -1);  /* until it ends: a boot */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_budget_floor),
		cmocka_unit_test(test_e2e_series),
		cmocka_unit_test(test_right_or_honest),
		cmocka_unit_test(test_no_effect),
		cmocka_unit_test(test_weak_effect_never_wrong),
		cmocka_unit_test(test_effect_builds_up),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
