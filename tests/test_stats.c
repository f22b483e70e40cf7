/* test_stats.c -- harness/analysis/stats.c against reference values computed
 * independently in plain Python (tests/data/gen_stats.py, frozen in
 * tests/data/stats_reference.json), and compare_verdict() on synthetic ABBA
 * blocks: A/A noise is rarely DIFFERENT, a planted effect is. Run from the
 * repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/compare.h"
#include "base/err.h"
#include "analysis/stats.h"

#define REFERENCE "tests/data/stats_reference.json"

static json_t *ref;

static int setup(void **state)
{
	json_error_t e;

	(void)state;
	ref = json_load_file(REFERENCE, 0, &e);
	if (!ref)
		fprintf(stderr, "%s:%d: %s\n", REFERENCE, e.line, e.text);
	return ref ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(ref);
	return 0;
}

/* |got - want| <= abs_tol + rel_tol |want|, with both values in the message. */
static void near(double got, double want, double abs_tol, double rel_tol, const char *what)
{
	if (!(fabs(got - want) <= abs_tol + rel_tol * fabs(want)))
		fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

/* A JSON array of numbers into a malloc'd array; its length in *n. */
static double *doubles(json_t *arr, size_t *n)
{
	double *v = calloc(json_array_size(arr) + 1, sizeof(*v));
	json_t *x;
	size_t i;

	assert_non_null(v);
	json_array_foreach(arr, i, x)
		v[i] = json_number_value(x);
	*n = json_array_size(arr);
	return v;
}

static double num(json_t *o, const char *key)
{
	json_t *x = json_object_get(o, key);

	assert_true(json_is_number(x));
	return json_number_value(x);
}

static void test_means(void **state)
{
	json_t *c;
	size_t i, n;
	double *x;

	(void)state;
	json_array_foreach(json_object_get(ref, "means"), i, c) {
		x = doubles(json_object_get(c, "x"), &n);
		near(stats_mean(x, n), num(c, "mean"), 0, 1e-12, "mean");
		near(stats_hmean(x, n), num(c, "hmean"), 0, 1e-12, "hmean");
		near(stats_median(x, n), num(c, "median"), 0, 1e-12, "median");
		free(x);
	}
	assert_true(isnan(stats_mean(NULL, 0)));
	assert_true(isnan(stats_median(NULL, 0)));
	x = (double[]){ 3, 0, 5 };
	assert_true(stats_hmean(x, 3) == 0);
	x = (double[]){ 3, -1 };
	assert_true(isnan(stats_hmean(x, 2)));
}

static void test_block_deltas(void **state)
{
	struct stats_obs obs[64];
	double d[64], *want;
	unsigned blocks[64];
	json_t *c, *o;
	size_t i, k, n, nw;
	long got;

	(void)state;
	json_array_foreach(json_object_get(ref, "deltas"), i, c) {
		n = json_array_size(json_object_get(c, "obs"));
		assert_true(n <= 64);
		json_array_foreach(json_object_get(c, "obs"), k, o) {
			obs[k].block = (unsigned)json_integer_value(json_array_get(o, 0));
			obs[k].arm = (int)json_integer_value(json_array_get(o, 1));
			obs[k].v = json_number_value(json_array_get(o, 2));
		}
		got = stats_block_deltas(obs, n, (int)num(c, "harmonic"), d, blocks, 64);
		want = doubles(json_object_get(c, "deltas"), &nw);
		assert_int_equal(got, nw);
		for (k = 0; k < nw; k++) {
			near(d[k], want[k], 1e-15, 1e-12, "block delta");
			assert_int_equal(blocks[k],
					 json_integer_value(json_array_get(json_object_get(c, "blocks"), k)));
		}
		free(want);
	}
	/* 001's two ABBA position pairs: -6.21 % and -5.00 % */
	obs[0] = (struct stats_obs){ 0, 0, 100 };
	obs[1] = (struct stats_obs){ 0, 1, 93.79 };
	obs[2] = (struct stats_obs){ 1, 1, 95 };
	obs[3] = (struct stats_obs){ 1, 0, 100 };
	obs[4] = (struct stats_obs){ 2, 0, 0 };     /* 0 over 0: no change */
	obs[5] = (struct stats_obs){ 2, 1, 0 };
	obs[6] = (struct stats_obs){ 3, 0, 0 };     /* x over 0: skipped */
	obs[7] = (struct stats_obs){ 3, 1, 4 };
	assert_int_equal(stats_block_deltas(obs, 8, 0, d, blocks, 64), 3);
	near(d[0], -0.0621, 1e-12, 0, "pair 1");
	near(d[1], -0.05, 1e-12, 0, "pair 2");
	assert_true(d[2] == 0);
}

static void test_bootstrap(void **state)
{
	double *x, lo, hi;
	json_t *c;
	size_t i, n;
	uint64_t seed;

	(void)state;
	json_array_foreach(json_object_get(ref, "bootstrap"), i, c) {
		x = doubles(json_object_get(c, "x"), &n);
		seed = strtoull(json_string_value(json_object_get(c, "seed")), NULL, 16);
		assert_int_equal(stats_bootstrap_ci(x, n, (unsigned)num(c, "B"), num(c, "level"), seed,
						    &lo, &hi), 0);
		near(lo, num(c, "lo"), 1e-14, 1e-10, "bootstrap lo");
		near(hi, num(c, "hi"), 1e-14, 1e-10, "bootstrap hi");
		free(x);
	}
	assert_int_equal(stats_bootstrap_ci(NULL, 0, 2000, 0.95, 1, &lo, &hi), -1);
}

static void test_wilcoxon(void **state)
{
	struct stats_wilcoxon w;
	double *x;
	json_t *c;
	size_t i, n;

	(void)state;
	json_array_foreach(json_object_get(ref, "wilcoxon"), i, c) {
		x = doubles(json_object_get(c, "x"), &n);
		assert_int_equal(stats_wilcoxon(x, n, &w), 0);
		assert_int_equal(w.n, (size_t)num(c, "n"));
		assert_int_equal(w.exact, (int)num(c, "exact"));
		near(w.w_plus, num(c, "w_plus"), 1e-12, 0, "W+");
		near(w.p, num(c, "p"), 1e-12, 1e-9, "wilcoxon p");
		free(x);
	}
}

static void test_pearson(void **state)
{
	struct stats_corr r;
	double *x, *y;
	json_t *c;
	size_t i, n, ny;

	(void)state;
	json_array_foreach(json_object_get(ref, "pearson"), i, c) {
		x = doubles(json_object_get(c, "x"), &n);
		y = doubles(json_object_get(c, "y"), &ny);
		assert_int_equal(stats_pearson(x, y, n, &r), 0);
		near(r.r, num(c, "r"), 1e-12, 1e-10, "pearson r");
		near(r.t, num(c, "t"), 1e-10, 1e-9, "pearson t");
		near(r.p, num(c, "p"), 1e-9, 1e-7, "pearson p");   /* Simpson's rule in the reference */
		free(x);
		free(y);
	}
	/* closed forms: df 1 is Cauchy, df 2 has p = 1 - t / sqrt(2 + t^2) */
	near(stats_t_p2(1.0, 1), 0.5, 1e-13, 0, "t df 1");
	near(stats_t_p2(2.5, 2), 1 - 2.5 / sqrt(2 + 6.25), 1e-13, 0, "t df 2");
	x = (double[]){ 1, 2, 3 };
	assert_int_equal(stats_pearson(x, (double[]){ 5, 5, 5 }, 3, &r), -1);
}

static void test_more_blocks(void **state)
{
	json_t *c;
	size_t i;

	(void)state;
	json_array_foreach(json_object_get(ref, "more_blocks"), i, c)
		assert_int_equal(stats_more_blocks((size_t)num(c, "n"), num(c, "mean"), num(c, "half"),
						   num(c, "floor")),
				 (unsigned)num(c, "more"));
	assert_int_equal(stats_more_blocks(0, 0, 0, 0.02), STATS_MORE_MAX);
}

/* ---- verdicts on synthetic ABBA blocks ---- */

static double gauss(uint64_t *state)
{
	double u1 = ((double)(stats_rand(state) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = (double)(stats_rand(state) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * blocks ABBA blocks of two runs per arm: each run 1000 x (1 + noise N(0, sd))
 * times (1 + effect) for the new arm; the verdict on ops/s (higher is better).
 */
static void synthetic(uint64_t seed, unsigned blocks, double effect, double sd, double floor,
		      struct verdict *v)
{
	struct stats_obs obs[4 * 64];
	double d[64];
	unsigned blk[64], b, k, n = 0;
	uint64_t state = seed;
	long nd;

	for (b = 0; b < blocks; b++)
		for (k = 0; k < 4; k++) {
			obs[n].block = b;
			obs[n].arm = k == 1 || k == 2;       /* A B B A */
			obs[n].v = 1000 * (1 + sd * gauss(&state)) * (obs[n].arm ? 1 + effect : 1);
			n++;
		}
	nd = stats_block_deltas(obs, n, 1, d, blk, 64);
	assert_int_equal(nd, blocks);
	assert_int_equal(compare_verdict(d, blk, (size_t)nd, floor, 1, 0, v), 0);
}

/*
 * A/A: no effect, 2 % noise per run. With a floor, the floor keeps DIFFERENT
 * away; with none, the rule rests on the Wilcoxon test alone, whose exact
 * level at 10 blocks is 50/1024 = 4.9 %: checked over more seeds, with room
 * for sampling error (2 sd).
 */
static void test_aa_rarely_different(void **state)
{
	static const struct { double floor; unsigned seeds, max; } cases[] = {
		{ COMPARE_FLOOR, 200, 10 }, { 0.005, 200, 10 }, { 0.0, 2000, 120 },
	};
	unsigned seed, different, unknown, i;
	uint64_t master;
	struct verdict v;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		different = unknown = 0;
		master = 1000 + i;
		for (seed = 0; seed < cases[i].seeds; seed++) {
			synthetic(stats_rand(&master), 10, 0, 0.02, cases[i].floor, &v);
			different += v.kind == VERDICT_DIFFERENT;
			unknown += v.kind == VERDICT_UNKNOWN;
		}
		printf("A/A, %u seeds x 10 blocks, 2 %% noise, floor %.1f %%: %u DIFFERENT,"
		       " %u UNKNOWN\n", cases[i].seeds, 100 * cases[i].floor, different, unknown);
		assert_true(different <= cases[i].max);
	}
}

static void test_planted_effect_different(void **state)
{
	unsigned seed, blocks;
	struct verdict v;

	(void)state;
	for (seed = 0; seed < 50; seed++) {
		synthetic(7000 + seed, 10, 0.05, 0.01, COMPARE_FLOOR, &v);
		assert_int_equal(v.kind, VERDICT_DIFFERENT);
		assert_false(v.worse);
		near(v.delta, 0.05, 0.01, 0, "planted effect");
		synthetic(8000 + seed, 10, -0.05, 0.01, COMPARE_FLOOR, &v);
		assert_int_equal(v.kind, VERDICT_DIFFERENT);
		assert_true(v.worse);
	}
	/* too few blocks never decide, and say how many more */
	for (blocks = 1; blocks < COMPARE_MIN_BLOCKS; blocks++) {
		synthetic(9000, blocks, 0.05, 0.01, COMPARE_FLOOR, &v);
		assert_int_equal(v.kind, VERDICT_UNKNOWN);
		assert_int_equal(v.more, COMPARE_MIN_BLOCKS - blocks);
	}
	synthetic(9001, 4, 0.05, 0.01, COMPARE_FLOOR, &v);  /* Wilcoxon needs 6 */
	assert_int_equal(v.kind, VERDICT_UNKNOWN);
	assert_true(v.more >= 2);
}

static void test_same_and_unknown(void **state)
{
	struct verdict v;
	unsigned seed, same = 0;

	(void)state;
	for (seed = 0; seed < 50; seed++) {
		synthetic(3000 + seed, 12, 0, 0.005, COMPARE_FLOOR, &v);
		same += v.kind == VERDICT_SAME;
		assert_int_not_equal(v.kind, VERDICT_DIFFERENT);
	}
	assert_int_equal(same, 50);
	/* noise as large as the floor: undecided, with a finite estimate */
	synthetic(4000, 4, 0.0, 0.05, COMPARE_FLOOR, &v);
	assert_int_equal(v.kind, VERDICT_UNKNOWN);
	assert_true(v.more >= 1 && v.more < STATS_MORE_MAX);
}

static void test_drift(void **state)
{
	double d[12];
	unsigned blk[12], i;
	struct verdict v;

	(void)state;
	for (i = 0; i < 12; i++) {
		blk[i] = i;
		d[i] = -0.03 + 0.005 * i + ((int)(i * 7 % 3) - 1) * 0.001;
	}
	assert_int_equal(compare_verdict(d, blk, 12, COMPARE_FLOOR, 1, 0, &v), 0);
	assert_true(v.drift);
	assert_true(v.drift_r > 0.9 && v.drift_p < 0.05);
	for (i = 0; i < 12; i++)
		d[i] = 0.01 * ((double)(i * 5 % 4) - 1.5);
	assert_int_equal(compare_verdict(d, blk, 12, COMPARE_FLOOR, 1, 0, &v), 0);
	assert_false(v.drift);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_means),
		cmocka_unit_test(test_block_deltas),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_wilcoxon),
		cmocka_unit_test(test_pearson),
		cmocka_unit_test(test_more_blocks),
		cmocka_unit_test(test_aa_rarely_different),
		cmocka_unit_test(test_planted_effect_different),
		cmocka_unit_test(test_same_and_unknown),
		cmocka_unit_test(test_drift),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
