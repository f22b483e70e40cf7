/* test_zipf.c -- unit tests for guest/zipf.c: zipf_next fits its theoretical
 * distribution (chi-square), theta 0 is uniform, and zipf_scramble is a bijection. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "guest/zipf.h"

#define DRAWS 1000000

/* Upper 0.999 quantile of chi-square with df degrees, Wilson-Hilferty. */
static double chi2_critical_999(double df)
{
	const double z = 3.090232306167813;   /* standard normal 0.999 quantile */
	double a = 2.0 / (9.0 * df);

	return df * pow(1.0 - a + z * sqrt(a), 3.0);
}

/*
 * Chi-square of DRAWS zipf_next draws against weights 1/k^theta. Cells with an
 * expected count under 5 are pooled into one tail cell, as the test requires.
 */
static void check_fit(uint64_t n, double theta, uint64_t seed)
{
	struct zipf z;
	struct rng r;
	uint64_t *count, i, x;
	double *expect, h = 0.0, chi2 = 0.0, tail_obs = 0.0, tail_exp = 0.0;
	double crit;
	int cells = 0;

	assert_int_equal(zipf_init(&z, n, theta), 0);
	count = calloc(n, sizeof(*count));
	expect = calloc(n, sizeof(*expect));
	assert_non_null(count);
	assert_non_null(expect);
	rng_seed(&r, seed, 0);
	for (i = 0; i < DRAWS; i++) {
		x = zipf_next(&z, &r);
		assert_true(x < n);
		count[x]++;
	}
	for (i = 0; i < n; i++)
		h += pow((double)(i + 1), -theta);
	for (i = 0; i < n; i++) {
		expect[i] = DRAWS * pow((double)(i + 1), -theta) / h;
		if (expect[i] < 5.0) {
			tail_obs += count[i];
			tail_exp += expect[i];
			continue;
		}
		chi2 += (count[i] - expect[i]) * (count[i] - expect[i]) / expect[i];
		cells++;
	}
	if (tail_exp > 0.0) {
		chi2 += (tail_obs - tail_exp) * (tail_obs - tail_exp) / tail_exp;
		cells++;
	}
	crit = chi2_critical_999(cells - 1);
	print_message("n=%llu theta=%.2f cells=%d chi2=%.1f bound=%.1f\n",
		      (unsigned long long)n, theta, cells, chi2, crit);
	assert_true(chi2 < crit);
	free(count);
	free(expect);
	zipf_release(&z);
}

static void test_zipf_theta_08(void **state)
{
	(void)state;
	check_fit(1000, 0.8, 1);
}

static void test_zipf_theta_11(void **state)
{
	(void)state;
	check_fit(1000, 1.1, 2);
}

static void test_zipf_theta_0_uniform(void **state)
{
	(void)state;
	check_fit(1000, 0.0, 3);
}

/* The uniform path readers take for distribution "uniform". */
static void test_rng_below_uniform(void **state)
{
	const uint64_t n = 1000;
	uint64_t count[1000] = { 0 }, i;
	double e = (double)DRAWS / n, chi2 = 0.0;
	struct rng r;

	(void)state;
	rng_seed(&r, 4, 7);
	for (i = 0; i < DRAWS; i++)
		count[rng_below(&r, n)]++;
	for (i = 0; i < n; i++)
		chi2 += (count[i] - e) * (count[i] - e) / e;
	assert_true(chi2 < chi2_critical_999(n - 1));
}

static void check_bijection(uint64_t n)
{
	unsigned char *seen = calloc(n, 1);
	uint64_t i, p;

	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		p = zipf_scramble(i, n);
		assert_true(p < n);
		assert_int_equal(seen[p], 0);
		seen[p] = 1;
	}
	free(seen);
}

static void test_scramble_bijection(void **state)
{
	/* primes, powers of two, 2^61 - 1's neighbours' small cousins, composites */
	static const uint64_t ns[] = { 1, 2, 3, 7, 97, 1000, 1024, 4096, 65536,
				       65537, 999983, 1 << 20, 16384 * 3, 1000003 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		check_bijection(ns[i]);
}

/* A scramble that is a bijection but the identity would defeat its purpose. */
static void test_scramble_moves_ranks(void **state)
{
	uint64_t i, moved = 0;

	(void)state;
	for (i = 1; i < 100; i++)
		moved += zipf_scramble(i, 16384) != i;
	assert_true(moved > 90);
}

static void test_init_limits(void **state)
{
	struct zipf z;

	(void)state;
	assert_int_equal(zipf_init(&z, ZIPF_MAX_N + 1, 1.0), -1);
	assert_int_equal(zipf_init(&z, 0, 1.0), -1);
	assert_int_equal(zipf_init(&z, 10, -0.5), -1);
	assert_int_equal(zipf_init(&z, 10, NAN), -1);
	assert_int_equal(zipf_init(&z, 1, 2.0), 0);
	assert_true(z.cdf[0] == 1.0);
	zipf_release(&z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zipf_theta_08),
		cmocka_unit_test(test_zipf_theta_11),
		cmocka_unit_test(test_zipf_theta_0_uniform),
		cmocka_unit_test(test_rng_below_uniform),
		cmocka_unit_test(test_scramble_bijection),
		cmocka_unit_test(test_scramble_moves_ranks),
		cmocka_unit_test(test_init_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
