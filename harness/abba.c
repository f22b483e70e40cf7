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

#include "abba.h"

unsigned abba_block_reps(unsigned n_arms)
{
	if (n_arms <= 1)
		return 1;
	return n_arms % 2 == 0 ? n_arms : 2 * n_arms;
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

size_t abba_order_from(unsigned n_arms, unsigned n_cells, unsigned first_rep, unsigned reps,
		       struct abba_slot *out)
{
	unsigned R = abba_block_reps(n_arms), end, b, b_end, c, r, r0, r1, i;
	size_t n = 0;

	if (n_arms == 0 || n_cells == 0 || reps == 0 || reps > UINT_MAX - first_rep)
		return 0;
	end = first_rep + reps;
	b_end = (end - 1) / R;
	for (b = first_rep / R; b <= b_end; b++) {
		r0 = b * R > first_rep ? b * R : first_rep;
		r1 = end - b * R > R ? b * R + R : end;
		for (c = 0; c < n_cells; c++)
			for (r = r0; r < r1; r++)
				for (i = 0; i < n_arms; i++) {
					out[n].arm = williams_arm(n_arms, r - b * R, i);
					out[n].cell = c;
					out[n].block = b;
					out[n].position = (r - b * R) * n_arms + i;
					n++;
				}
	}
	return n;
}

size_t abba_order(unsigned n_arms, unsigned n_cells, unsigned reps, struct abba_slot *out)
{
	return abba_order_from(n_arms, n_cells, 0, reps, out);
}
