/* extend.h -- `harness extend`: more ABBA blocks only for the cells whose
 * compare verdict is still UNKNOWN, as many as compare estimates, capped. */
#ifndef EXTEND_H
#define EXTEND_H

#include <stdio.h>

#include <jansson.h>

#include "conf/conf.h"
#include "store/store.h"

struct extend_opts {
	const char *matrix;              /* an id or a name */
	const char *base_arm, *new_arm;  /* NULL: every other arm against the first */
	unsigned max_blocks;             /* blocks a cell may have in all */
};

/*
 * For each cell: the compare verdicts (declared margins, as `harness compare`
 * gives them) of the new arm(s) against the base, every pair's adjusted
 * together, the primary metric apart from the others (verdict_adjust). A
 * cell with an UNKNOWN verdict is grown to the blocks it has compared plus
 * the most any of its UNKNOWN verdicts estimates would decide, at most
 * max_blocks; decided cells get nothing. New runs are queued after each
 * cell's own, in ABBA order
 * (store_grow_cells); a finished matrix is active again. *ret:
 *   {"matrix": ID, "name": N, "state": S, "max_blocks": N, "runs": QUEUED,
 *    "cells": [{"cell": NAME, "decided": bool, "blocks": PLANNED_BEFORE,
 *               "target": BLOCKS_WANTED, "queued_blocks": Q, "runs": R,
 *               "unknown": [{"arm", "metric", "blocks", "more",
 *                            "more_range": [LO, HI]}]}]}
 * Returns 0, or -1 with err and *ret_http: 404 no such matrix, 409 it is
 * cancelled, 400 bad options (arms, max_blocks), 500 otherwise.
 */
int extend_matrix(struct store *s, const struct extend_opts *o, json_t **ret, int *ret_http,
		  char *err);

/* extend_matrix's result as lines, one per cell. */
void extend_print(FILE *f, const json_t *res);


#endif
