/* abba.h -- the order runs happen in: arms interleaved A B B A so that slow
 * drift of the host cancels out of every arm's mean; for more than two arms a
 * balanced (Williams) design, so every arm also precedes and follows every
 * other equally often. */
#ifndef ABBA_H
#define ABBA_H

#include <stddef.h>

struct abba_slot {
	unsigned arm;       /* index into the matrix's arms */
	unsigned cell;      /* index into the matrix's workloads */
	unsigned block;     /* block number within the cell, from 0 */
	unsigned position;  /* position inside the block, from 0 */
};

/*
 * Repetitions in one block: one complete Williams design for n_arms arms.
 * n_arms for even n_arms (2 -> A B, B A), 2 * n_arms for odd n_arms > 1
 * (every row and its mirror), 1 for a single arm (and for 0).
 */
unsigned abba_block_reps(unsigned n_arms);

/*
 * The unit a verdict pairs arms by: the smallest part of a block that is
 * position-balanced for every pair of its arms, a Williams row and its
 * mirror (two consecutive reps: each arm of any pair runs once before the
 * other and once after, at mirrored positions, so linear drift cancels);
 * for two arms that is the ABBA block itself. Carry-over from the other
 * arms is balanced over the whole block, not within a unit. Returns the
 * unit's number for the run at position of block (units of a cell count
 * from 0 like blocks); ABBA_UNIT_REPS reps make one.
 */
#define ABBA_UNIT_REPS 2
unsigned abba_unit(unsigned n_arms, unsigned block, unsigned position);

/*
 * Order n_cells x n_arms x reps runs. Within a cell, rep r uses Williams row
 * r mod R (R = abba_block_reps(n_arms)); a block is R consecutive reps, and
 * its slots are numbered 0 .. R * n_arms - 1. Odd reps within a block are the
 * mirror of the rep before them, so any even number of reps cancels linear
 * drift; a whole block also balances carry-over (every arm directly precedes
 * every other equally often). For 2 arms this is A B, B A. Cells take turns
 * block by block. out must hold n_cells * n_arms * reps slots. Returns the
 * number of slots written. Same as abba_order_from(..., 0, reps, out).
 */
size_t abba_order(unsigned n_arms, unsigned n_cells, unsigned reps, struct abba_slot *out);

/*
 * Like abba_order, but only reps [first_rep, first_rep + reps) of every cell,
 * with the block numbers and positions they have in one big design of
 * first_rep + reps reps: appending reps to a matrix that already has first_rep
 * continues its blocks (a partial last block is completed first). Cells take
 * turns block by block within what is produced. out must hold
 * n_cells * n_arms * reps slots. Returns the number of slots written (0 if
 * first_rep + reps overflows).
 */
size_t abba_order_from(unsigned n_arms, unsigned n_cells, unsigned first_rep, unsigned reps,
		       struct abba_slot *out);

/*
 * Like abba_order_from, but each cell c from its own rep first_rep[c] up to
 * end_rep[c] (none if end_rep[c] <= first_rep[c]): cells that had blocks
 * added on their own (harness extend) continue their own design, in ABBA (or
 * Williams) order, and cells still take turns block by block. out must hold
 * n_arms x the sum of (end_rep[c] - first_rep[c]) slots. Returns the number
 * of slots written.
 */
size_t abba_order_cells(unsigned n_arms, unsigned n_cells, const unsigned *first_rep,
			const unsigned *end_rep, struct abba_slot *out);

#endif
