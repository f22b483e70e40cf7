/* noise.h -- the noise section of a matrix's tables: per cell, the runs'
 * coefficient of variation and the least effect its blocks could detect. */
#ifndef NOISE_H
#define NOISE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/*
 * For ops/s of every cell of matrix mid (runs v[0..n), as store_summaries
 * reads them): the largest of the arms' coefficients of variation, the
 * paired blocks of its first two arms, the per-block spread (a stored
 * calibration of the cell on the matrix's host if there is one, else those
 * two arms' paired deltas), the effect those blocks detect with
 * VERDICT_POWER, and the host's highest load as its runs ended. Returns 0,
 * or -1 with err.
 */
int noise_section(FILE *f, struct store *s, int64_t mid, const struct matrix_info *mi,
		  const struct run_summary *v, size_t n, char *err);

#endif
