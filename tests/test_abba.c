/* test_abba.c -- unit tests for harness/abba.c: the A B B A run order, its
 * mirror generalisation to more arms, odd repetition counts, cells taking
 * turns block by block, and the position balance that cancels linear drift. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "abba.h"

#define MAX_SLOTS 4096

static struct abba_slot slots[MAX_SLOTS];

/* Fill slots with a canary so unwritten entries are visible. */
static size_t order(unsigned arms, unsigned cells, unsigned reps)
{
	memset(slots, 0xa5, sizeof(slots));
	return abba_order(arms, cells, reps, slots);
}

static void test_two_arms_four_reps(void **state)
{
	static const unsigned arm[]   = { 0, 1, 1, 0, 0, 1, 1, 0 };
	static const unsigned block[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const unsigned pos[]   = { 0, 1, 2, 3, 0, 1, 2, 3 };
	size_t i, n;

	(void)state;
	n = order(2, 1, 4);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].arm, arm[i]);
		assert_int_equal(slots[i].cell, 0);
		assert_int_equal(slots[i].block, block[i]);
		assert_int_equal(slots[i].position, pos[i]);
	}
	/* nothing written past the end */
	assert_int_equal(slots[8].arm, 0xa5a5a5a5u);
}

static void test_two_arms_odd_reps(void **state)
{
	static const unsigned arm[]   = { 0, 1, 1, 0, 0, 1 };
	static const unsigned block[] = { 0, 0, 0, 0, 1, 1 };
	static const unsigned pos[]   = { 0, 1, 2, 3, 0, 1 };
	size_t i, n;

	(void)state;
	n = order(2, 1, 3);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].arm, arm[i]);
		assert_int_equal(slots[i].cell, 0);
		assert_int_equal(slots[i].block, block[i]);
		assert_int_equal(slots[i].position, pos[i]);
	}
	assert_int_equal(slots[6].arm, 0xa5a5a5a5u);
}

static void test_one_rep(void **state)
{
	size_t n;

	(void)state;
	n = order(2, 1, 1);
	assert_int_equal(n, 2);
	assert_int_equal(slots[0].arm, 0);
	assert_int_equal(slots[1].arm, 1);
	assert_int_equal(slots[0].block, 0);
	assert_int_equal(slots[1].block, 0);
	assert_int_equal(slots[1].position, 1);
}

static void test_three_arms_mirror(void **state)
{
	static const unsigned arm[] = { 0, 1, 2, 2, 1, 0 };
	size_t i, n;

	(void)state;
	n = order(3, 1, 2);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].arm, arm[i]);
		assert_int_equal(slots[i].block, 0);
		assert_int_equal(slots[i].position, i);
		assert_int_equal(slots[i].cell, 0);
	}
}

static void test_cells_alternate_by_block(void **state)
{
	/* 2 arms, 2 cells, 4 reps: c0 b0, c1 b0, c0 b1, c1 b1, each A B B A */
	static const unsigned abba[] = { 0, 1, 1, 0 };
	size_t i, n;

	(void)state;
	n = order(2, 2, 4);
	assert_int_equal(n, 16);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].cell, (i / 4) % 2);
		assert_int_equal(slots[i].block, i / 8);
		assert_int_equal(slots[i].position, i % 4);
		assert_int_equal(slots[i].arm, abba[i % 4]);
	}
}

static void test_cells_alternate_odd_reps(void **state)
{
	/* 2 arms, 2 cells, 3 reps: c0 ABBA, c1 ABBA, c0 AB, c1 AB */
	static const unsigned arm[]   = { 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1 };
	static const unsigned cell[]  = { 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1 };
	static const unsigned block[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };
	static const unsigned pos[]   = { 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 0, 1 };
	size_t i, n;

	(void)state;
	n = order(2, 2, 3);
	assert_int_equal(n, 12);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].arm, arm[i]);
		assert_int_equal(slots[i].cell, cell[i]);
		assert_int_equal(slots[i].block, block[i]);
		assert_int_equal(slots[i].position, pos[i]);
	}
}

/* Every (cell, arm) pair appears exactly reps times, in any shape. */
static void test_counts(void **state)
{
	unsigned arms, cells, reps, a, c, count[8][8];
	size_t i, n;

	(void)state;
	for (arms = 1; arms <= 5; arms++)
		for (cells = 1; cells <= 4; cells++)
			for (reps = 1; reps <= 9; reps++) {
				n = order(arms, cells, reps);
				assert_int_equal(n, (size_t)arms * cells * reps);
				memset(count, 0, sizeof(count));
				for (i = 0; i < n; i++) {
					assert_true(slots[i].arm < arms);
					assert_true(slots[i].cell < cells);
					assert_true(slots[i].block < (reps + 1) / 2);
					assert_true(slots[i].position < 2 * arms);
					count[slots[i].cell][slots[i].arm]++;
				}
				for (c = 0; c < cells; c++)
					for (a = 0; a < arms; a++)
						assert_int_equal(count[c][a], reps);
			}
}

/* For even reps, every arm's positions sum to the same total in each cell:
 * a linear drift within a block adds the same amount to every arm. */
static void test_balance(void **state)
{
	unsigned arms, cells, reps, a, c;
	unsigned long sum[8][8];
	size_t i, n;

	(void)state;
	for (arms = 2; arms <= 4; arms++)
		for (cells = 1; cells <= 3; cells++)
			for (reps = 2; reps <= 10; reps += 2) {
				n = order(arms, cells, reps);
				memset(sum, 0, sizeof(sum));
				for (i = 0; i < n; i++)
					sum[slots[i].cell][slots[i].arm] += slots[i].position;
				for (c = 0; c < cells; c++)
					for (a = 1; a < arms; a++)
						assert_int_equal(sum[c][a], sum[c][0]);
			}
	/* the specific case: 2 arms, 4 reps -> A at 0,3,0,3; B at 1,2,1,2 */
	n = order(2, 1, 4);
	memset(sum, 0, sizeof(sum));
	for (i = 0; i < n; i++)
		sum[0][slots[i].arm] += slots[i].position;
	assert_int_equal(sum[0][0], 6);
	assert_int_equal(sum[0][1], 6);
}

/* Odd reps leave the last half block unbalanced: A first, so A's sum is lower. */
static void test_odd_reps_unbalanced_tail(void **state)
{
	unsigned long sum[2] = { 0, 0 };
	size_t i, n;

	(void)state;
	n = order(2, 1, 3);
	for (i = 0; i < n; i++)
		sum[slots[i].arm] += slots[i].position;
	assert_int_equal(sum[0], 3);   /* 0 + 3 + 0 */
	assert_int_equal(sum[1], 4);   /* 1 + 2 + 1 */
}

static void test_zero(void **state)
{
	(void)state;
	assert_int_equal(order(2, 1, 0), 0);
	assert_int_equal(order(0, 1, 4), 0);
	assert_int_equal(order(2, 0, 4), 0);
	assert_int_equal(slots[0].arm, 0xa5a5a5a5u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_arms_four_reps),
		cmocka_unit_test(test_two_arms_odd_reps),
		cmocka_unit_test(test_one_rep),
		cmocka_unit_test(test_three_arms_mirror),
		cmocka_unit_test(test_cells_alternate_by_block),
		cmocka_unit_test(test_cells_alternate_odd_reps),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_balance),
		cmocka_unit_test(test_odd_reps_unbalanced_tail),
		cmocka_unit_test(test_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
