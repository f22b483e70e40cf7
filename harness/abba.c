/* abba.c -- ABBA ordering (and its mirror generalisation for more arms):
 * forward, backward, forward... so every arm sees early and late positions. */
#include "abba.h"

size_t abba_order(unsigned n_arms, unsigned n_cells, unsigned reps, struct abba_slot *out)
{
	unsigned blocks = (reps + 1) / 2, b, c, r, i, pos;
	size_t n = 0;

	for (b = 0; b < blocks; b++) {
		for (c = 0; c < n_cells; c++) {
			pos = 0;
			for (r = 2 * b; r < reps && r < 2 * b + 2; r++) {
				for (i = 0; i < n_arms; i++) {
					out[n].arm = (r % 2 == 0) ? i : n_arms - 1 - i;
					out[n].cell = c;
					out[n].block = b;
					out[n].position = pos++;
					n++;
				}
			}
		}
	}
	return n;
}
