/* abba.h -- the order runs happen in: arms interleaved A B B A so that slow
 * drift of the host cancels out of every arm's mean. */
#ifndef ABBA_H
#define ABBA_H

#include <stddef.h>

struct abba_slot {
	unsigned arm;       /* index into the matrix's arms */
	unsigned cell;      /* index into the matrix's workloads */
	unsigned block;     /* ABBA block number within the cell, from 0 */
	unsigned position;  /* position inside the block, from 0 */
};

/*
 * Order n_cells x n_arms x reps runs. Within a cell, rep r runs the arms
 * forwards when r is even and backwards when odd (A B, B A: two reps make
 * one ABBA block); cells take turns block by block. out must hold
 * n_cells * n_arms * reps slots. Returns the number of slots written.
 */
size_t abba_order(unsigned n_arms, unsigned n_cells, unsigned reps, struct abba_slot *out);

#endif
