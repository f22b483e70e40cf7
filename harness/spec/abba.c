/* abba.c -- run order: ABBA for two arms, a Williams design for more.
 *
 * Williams row 0 is 0, 1, k-1, 2, k-2, ...; row i adds i (mod k). For even k
 * the k rows balance carry-over; for odd k the k rows and their k mirrors do.
 * Within a block, rep q uses row q / 2, mirrored when q is odd: for even k
 * the mirror of row i is row i + k/2, so the block holds exactly the k rows;
 * for odd k it holds the k rows and their mirrors. Pairing each row with its
 * mirror keeps the ABBA property that any even number of reps cancels linear
 * drift; for k = 2 the block is A B, B A. */
#include <limits.h>

#include "spec/abba.h"

unsigned abba_block_reps(unsigned n_arms)
{
	if (n_arms <= 1)
		return 1;
	return n_arms % 2 == 0 ? n_arms : 2 * n_arms;
}

unsigned abba_unit(unsigned n_arms, unsigned block, unsigned position)
{
	unsigned per = abba_block_reps(n_arms) / ABBA_UNIT_REPS;

	if (n_arms < 2 || !per)
		return block;
	return block * per + position / n_arms / ABBA_UNIT_REPS;
}

/* Entry j of Williams row 0 for k arms. */
static unsigned williams_first(unsigned k, unsigned j)
{
	if (j == 0)
		return 0;
	return j % 2 ? (j + 1) / 2 : k - j / 2;
}

/* Arm at index j of rep q (counted within its block) for k arms. */
static unsigned williams_arm(unsigned k, unsigned q, unsigned j)
{
	unsigned row = q / 2;

	if (q % 2)
		j = k - 1 - j;
	return (williams_first(k, j) + row) % k;
}

/* Reps [from, to) of cell c that fall in block b, written to out; their slots. */
static size_t emit_block(unsigned k, unsigned c, unsigned b, unsigned from, unsigned to,
			 struct abba_slot *out)
{
	unsigned long long R = abba_block_reps(k), r0 = b * R, r1 = r0 + R, r;
	size_t n = 0;
	unsigned i;

	r0 = r0 > from ? r0 : from;
	r1 = r1 < to ? r1 : to;
	for (r = r0; r < r1; r++)
		for (i = 0; i < k; i++) {
			out[n].arm = williams_arm(k, (unsigned)(r - b * R), i);
			out[n].cell = c;
			out[n].block = b;
			out[n].position = (unsigned)((r - b * R) * k + i);
			n++;
		}
	return n;
}

size_t abba_order_from(unsigned n_arms, unsigned n_cells, unsigned first_rep, unsigned reps,
		       struct abba_slot *out)
{
	unsigned R = abba_block_reps(n_arms), end, b, c;
	size_t n = 0;

	if (n_arms == 0 || n_cells == 0 || reps == 0 || reps > UINT_MAX - first_rep)
		return 0;
	end = first_rep + reps;
	for (b = first_rep / R; b <= (end - 1) / R; b++)
		for (c = 0; c < n_cells; c++)
			n += emit_block(n_arms, c, b, first_rep, end, out + n);
	return n;
}

size_t abba_order_cells(unsigned n_arms, unsigned n_cells, const unsigned *first_rep,
			const unsigned *end_rep, struct abba_slot *out)
{
	unsigned R = abba_block_reps(n_arms), b0 = UINT_MAX, b1 = 0, b, c;
	size_t n = 0;

	for (c = 0; c < n_cells && n_arms; c++) {
		if (end_rep[c] <= first_rep[c])
			continue;
		b0 = first_rep[c] / R < b0 ? first_rep[c] / R : b0;
		b1 = (end_rep[c] - 1) / R > b1 ? (end_rep[c] - 1) / R : b1;
	}
	for (b = b0; b0 != UINT_MAX && b <= b1; b++)
		for (c = 0; c < n_cells; c++)
			if (end_rep[c] > first_rep[c])
				n += emit_block(n_arms, c, b, first_rep[c], end_rep[c], out + n);
	return n;
}

size_t abba_order(unsigned n_arms, unsigned n_cells, unsigned reps, struct abba_slot *out)
{
	return abba_order_from(n_arms, n_cells, 0, reps, out);
}
