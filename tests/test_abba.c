/* test_abba.c -- unit tests for harness/spec/abba.c: the A B B A run order, the
 * Williams design for more arms (carry-over and position balance), odd
 * repetition counts, cells taking turns block by block, the position balance
 * that cancels linear drift, and appending reps to an existing design. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spec/abba.h"

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
					/* a block is abba_block_reps(arms) reps */
					assert_true(slots[i].block <
						    (reps + abba_block_reps(arms) - 1) /
						    abba_block_reps(arms));
					assert_true(slots[i].position <
						    abba_block_reps(arms) * arms);
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

static void test_block_reps(void **state)
{
	(void)state;
	assert_int_equal(abba_block_reps(0), 1);
	assert_int_equal(abba_block_reps(1), 1);
	assert_int_equal(abba_block_reps(2), 2);
	assert_int_equal(abba_block_reps(3), 6);
	assert_int_equal(abba_block_reps(4), 4);
	assert_int_equal(abba_block_reps(5), 10);
	assert_int_equal(abba_block_reps(6), 6);
}

/* One arm: every rep is its own block. */
static void test_one_arm(void **state)
{
	size_t i, n;

	(void)state;
	n = order(1, 2, 3);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].arm, 0);
		assert_int_equal(slots[i].cell, i % 2);
		assert_int_equal(slots[i].block, i / 2);
		assert_int_equal(slots[i].position, 0);
	}
}

/* The rows of one block, straight from the textbook construction: row 0 is
 * 0, 1, k-1, 2, k-2, ...; row i adds i mod k; odd k adds every row's mirror.
 * Each block must hold exactly these rows, each once. */
static void test_williams_rows(void **state)
{
	unsigned k, R, q, j, i, m, want[16][8], got, used[16];
	size_t n;

	(void)state;
	for (k = 2; k <= 8; k++) {
		R = abba_block_reps(k);
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				unsigned f = j == 0 ? 0 : j % 2 ? (j + 1) / 2 : k - j / 2;

				want[i][j] = (f + i) % k;
				if (k % 2)
					want[k + i][k - 1 - j] = (f + i) % k;
			}
		n = order(k, 1, R);
		assert_int_equal(n, (size_t)R * k);
		memset(used, 0, sizeof(used));
		for (q = 0; q < R; q++) {
			got = R;
			for (m = 0; m < R && got == R; m++) {
				for (j = 0; j < k; j++)
					if (slots[q * k + j].arm != want[m][j])
						break;
				if (j == k)
					got = m;
			}
			assert_true(got < R);           /* rep q is a Williams row */
			assert_int_equal(used[got], 0); /* ... not used before */
			used[got] = 1;
		}
	}
}

/* Over one full block of k = 3..8 arms: every arm once per row, every ordered
 * pair (a, b), a != b, adjacent (a then b) equally often within rows, every
 * arm at every position in a row equally often. */
static void test_williams_balance(void **state)
{
	unsigned k, cells, R, q, j, a, b, c, seen[8], pair[8][8], at[8][8];
	size_t base, n;

	(void)state;
	for (k = 3; k <= 8; k++)
		for (cells = 1; cells <= 2; cells++) {
			R = abba_block_reps(k);
			n = order(k, cells, R);
			assert_int_equal(n, (size_t)R * k * cells);
			for (c = 0; c < cells; c++) {
				base = (size_t)c * R * k;   /* one block per cell */
				memset(pair, 0, sizeof(pair));
				memset(at, 0, sizeof(at));
				for (q = 0; q < R; q++) {
					memset(seen, 0, sizeof(seen));
					for (j = 0; j < k; j++) {
						const struct abba_slot *s = &slots[base + q * k + j];

						assert_int_equal(s->cell, c);
						assert_int_equal(s->block, 0);
						assert_int_equal(s->position, q * k + j);
						assert_true(s->arm < k);
						seen[s->arm]++;
						at[s->arm][j]++;
						if (j > 0)
							pair[slots[base + q * k + j - 1].arm][s->arm]++;
					}
					for (a = 0; a < k; a++)
						assert_int_equal(seen[a], 1);
				}
				/* k(k-1) pairs share R(k-1) adjacencies: R/k each */
				for (a = 0; a < k; a++)
					for (b = 0; b < k; b++)
						assert_int_equal(pair[a][b], a == b ? 0 : R / k);
				/* k positions share R rows: R/k each */
				for (a = 0; a < k; a++)
					for (j = 0; j < k; j++)
						assert_int_equal(at[a][j], R / k);
			}
		}
}

/* The explicit first block for 4 arms. */
static void test_four_arms_block(void **state)
{
	static const unsigned arm[] = {
		0, 1, 3, 2,   2, 3, 1, 0,   1, 2, 0, 3,   3, 0, 2, 1,
	};
	size_t i, n;

	(void)state;
	n = order(4, 1, 5);
	assert_int_equal(n, 20);
	for (i = 0; i < 16; i++) {
		assert_int_equal(slots[i].arm, arm[i]);
		assert_int_equal(slots[i].block, 0);
		assert_int_equal(slots[i].position, i);
	}
	for (i = 16; i < 20; i++) {           /* rep 4 starts block 1 again */
		assert_int_equal(slots[i].arm, arm[i - 16]);
		assert_int_equal(slots[i].block, 1);
		assert_int_equal(slots[i].position, i - 16);
	}
}

static struct abba_slot whole[MAX_SLOTS];

/* Per cell, abba_order_from(k, c, first, reps) equals the cell's slots from
 * first * k onwards of abba_order(k, c, first + reps); cells take turns block
 * by block in what abba_order_from produces. */
static void check_append(unsigned k, unsigned cells, unsigned first, unsigned reps)
{
	unsigned R = abba_block_reps(k), c;
	size_t n_all, n, i, w, p, left;

	memset(whole, 0xa5, sizeof(whole));
	n_all = abba_order(k, cells, first + reps, whole);
	assert_int_equal(n_all, (size_t)k * cells * (first + reps));
	memset(slots, 0xa5, sizeof(slots));
	n = abba_order_from(k, cells, first, reps, slots);
	assert_int_equal(n, (size_t)k * cells * reps);
	assert_int_equal(slots[n].arm, 0xa5a5a5a5u);
	for (c = 0; c < cells; c++) {
		/* skip the cell's first `first * k` slots in the whole design */
		for (w = 0, left = (size_t)first * k; w < n_all; w++)
			if (whole[w].cell == c && left-- == 0)
				break;
		for (p = 0; p < n; p++) {
			if (slots[p].cell != c)
				continue;
			while (w < n_all && whole[w].cell != c)
				w++;
			assert_true(w < n_all);
			assert_int_equal(slots[p].arm, whole[w].arm);
			assert_int_equal(slots[p].block, whole[w].block);
			assert_int_equal(slots[p].position, whole[w].position);
			w++;
		}
		while (w < n_all && whole[w].cell != c)
			w++;
		assert_int_equal(w, n_all);           /* nothing of the cell left */
	}
	/* blocks never go down, and within a block the cells take turns */
	for (i = 1; i < n; i++) {
		assert_true(slots[i].block >= slots[i - 1].block);
		if (slots[i].block == slots[i - 1].block)
			assert_true(slots[i].cell >= slots[i - 1].cell);
		else
			assert_true(slots[i].block == slots[i - 1].block + 1);
	}
	assert_true(slots[0].block == first / R);
}

static void test_append(void **state)
{
	unsigned k, cells, first, reps;

	(void)state;
	/* the case asked for: 2 reps then 3 more */
	for (k = 1; k <= 6; k++)
		for (cells = 1; cells <= 3; cells++)
			check_append(k, cells, 2, 3);
	/* and every split of a small design */
	for (k = 1; k <= 5; k++)
		for (cells = 1; cells <= 2; cells++)
			for (first = 0; first <= 12; first++)
				for (reps = 1; reps <= 12; reps++)
					check_append(k, cells, first, reps);
}

/* Two arms: 2 reps, then 2 more appended, are block 1 A B B A, as if 4 had
 * been queued at once. */
static void test_append_two_arms(void **state)
{
	static const unsigned arm[] = { 0, 1, 1, 0, 0, 1, 1, 0 };
	static const unsigned cell[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	size_t i, n;

	(void)state;
	memset(slots, 0xa5, sizeof(slots));
	n = abba_order_from(2, 2, 2, 2, slots);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_int_equal(slots[i].arm, arm[i]);
		assert_int_equal(slots[i].cell, cell[i]);
		assert_int_equal(slots[i].block, 1);
		assert_int_equal(slots[i].position, i % 4);
	}
	/* appending to an odd count finishes the half block first */
	n = abba_order_from(2, 1, 3, 3, slots);
	assert_int_equal(n, 6);
	assert_int_equal(slots[0].arm, 1);
	assert_int_equal(slots[0].block, 1);
	assert_int_equal(slots[0].position, 2);
	assert_int_equal(slots[1].arm, 0);
	assert_int_equal(slots[1].position, 3);
	assert_int_equal(slots[2].block, 2);
	assert_int_equal(slots[2].position, 0);
	assert_int_equal(slots[5].arm, 0);
	assert_int_equal(slots[5].block, 2);
	assert_int_equal(slots[5].position, 3);
}

static void test_append_zero(void **state)
{
	(void)state;
	memset(slots, 0xa5, sizeof(slots));
	assert_int_equal(abba_order_from(2, 1, 4, 0, slots), 0);
	assert_int_equal(abba_order_from(0, 1, 4, 2, slots), 0);
	assert_int_equal(abba_order_from(2, 0, 4, 2, slots), 0);
	assert_int_equal(abba_order_from(2, 1, 0xffffffffu, 2, slots), 0);
	assert_int_equal(slots[0].arm, 0xa5a5a5a5u);
}

/*
 * abba_unit: a Williams row and its mirror, for every arm count from 2 to 7:
 * each unit holds every arm twice, and for every pair of arms one rep puts
 * the first before the second and the other after, at mirrored positions
 * (so their position sums are equal and linear drift cancels per pair).
 */
static void test_units_balanced_per_pair(void **state)
{
	static struct abba_slot o[2 * 7 * 14];
	unsigned k, u, a, b, i, units, before[7][7], sum[7];
	size_t n;

	(void)state;
	for (k = 2; k <= 7; k++) {
		n = abba_order(k, 1, 2 * abba_block_reps(k), o);
		units = (unsigned)n / (k * ABBA_UNIT_REPS);
		assert_int_equal(abba_unit(k, o[n - 1].block, o[n - 1].position), units - 1);
		for (u = 0; u < units; u++) {
			memset(before, 0, sizeof(before));
			memset(sum, 0, sizeof(sum));
			for (i = 0; i < n; i++) {
				if (abba_unit(k, o[i].block, o[i].position) != u)
					continue;
				sum[o[i].arm] += o[i].position % k;
				for (b = 0; b < k; b++)      /* arms later in the same rep */
					if (i % k + b < k && i + b < n && b)
						before[o[i].arm][o[i + b].arm]++;
			}
			for (a = 0; a < k; a++)
				for (b = 0; b < k; b++)
					if (a != b)
						assert_int_equal(before[a][b], 1);
			for (a = 1; a < k; a++)
				assert_int_equal(sum[a], sum[0]);
		}
	}
	assert_int_equal(abba_unit(1, 5, 0), 5);
	assert_int_equal(abba_unit(2, 3, 3), 3);     /* two arms: the ABBA block */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_balanced_per_pair),
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
		cmocka_unit_test(test_block_reps),
		cmocka_unit_test(test_one_arm),
		cmocka_unit_test(test_williams_rows),
		cmocka_unit_test(test_williams_balance),
		cmocka_unit_test(test_four_arms_block),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_append_two_arms),
		cmocka_unit_test(test_append_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
