/* lrutable.h -- `harness lru MATRIX`: per cell and arm, what its first done run's
 * oldest generations evicted and got back, in the words of lru_gen_full's readers. */
#ifndef LRUTABLE_H
#define LRUTABLE_H

#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/*
 * For each cell, each arm's first done run: its oldest generations over the
 * measured window (seq, seen from/to, file pages evicted, refaulted, the
 * share, protected), one sentence per generation ("generation seq 3: N pages
 * evicted and M pages refaulted, x %"), the tiers summed; a run without
 * generations says so. arg is unused (the HTML report's text sections).
 * Returns 0 or -1 with err.
 */
int lru_table(FILE *f, struct store *s, int64_t mid, const void *arg, char *err);

#endif
