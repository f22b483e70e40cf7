/* store_compare.h -- what `harness compare` reads from the database beyond the
 * run summaries: each arm's boot identity, to find A/A calibration arms. */
#ifndef STORE_COMPARE_H
#define STORE_COMPARE_H

#include <limits.h>
#include <stdint.h>

#include "store.h"

/* What makes two arms boot the same guest. */
struct arm_identity {
	char name[64];
	char kernel[PATH_MAX];    /* the resolved kernel image */
	char modules[PATH_MAX];   /* and modules cpio */
	char lru_gen[8];
	char cmdline[256];
};

/* A matrix's arms in index order, at most SPEC_MAX_ARMS; *ret_n of them. */
int store_arm_identities(struct store *s, int64_t matrix_id, struct arm_identity *ret,
			 unsigned *ret_n, char *err);

#endif
