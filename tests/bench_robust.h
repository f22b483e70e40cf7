/* bench_robust.h -- issue 47's rows of `make bench-stats` (bench_robust.c): SAME
 * beside stalls, coverage at every look, plans that keep 80 %, large effects early. */
#ifndef BENCH_ROBUST_H
#define BENCH_ROBUST_H

/* Print the tables, n_seq sequences a row (plans: half), as markdown. */
void robust_tables(unsigned n_seq);

#endif
