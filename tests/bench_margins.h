/* bench_margins.h -- issue 29's rows of `make bench-stats` (bench_margins.c):
 * each "should be" of the table measured through the real verdict code. */
#ifndef BENCH_MARGINS_H
#define BENCH_MARGINS_H

/* Print the table, n_seq sequences a row, as markdown. */
void margins_table(unsigned n_seq);

#endif
