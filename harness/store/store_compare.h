/* store_compare.h -- what `harness compare` reads from the database beyond the
 * run summaries: each arm's boot identity, to find A/A calibration arms, and
 * which matrices have an arm of a given tag. */
#ifndef STORE_COMPARE_H
#define STORE_COMPARE_H

#include <limits.h>
#include <stdint.h>

#include "store/store.h"

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

/*
 * The matrices with an arm tagged tag and, unless also is NULL, one tagged
 * also: how many (*ret_n), and the newest (the highest id; 0 if none).
 */
int store_tag_matrices(struct store *s, const char *tag, const char *also, int64_t *ret_newest,
		       unsigned *ret_n, char *err);

/*
 * What measured runs (schema 14; how their guests started, schema 16: boot
 * or restore, a save run counted as restore), then from MACHINE_GUEST_FIRST
 * on the settings their guests read back (THP's enabled and defrag, the
 * multi-size THP sizes, the swap device or "none", vm.swappiness), in this
 * order in struct store_machines.
 */
enum store_machine_fact {
	MACHINE_QEMU, MACHINE_LIBVIRT, MACHINE_ACCEL, MACHINE_TCG_THREAD, MACHINE_HOST_KERNEL,
	MACHINE_HOST_CPU, MACHINE_HOST_CPUS, MACHINE_VCPU_PIN, MACHINE_START,
	MACHINE_THP, MACHINE_MTHP, MACHINE_SWAP, MACHINE_SWAPPINESS, MACHINE_FACTS
};
#define MACHINE_GUEST_FIRST MACHINE_THP

/* Each fact's distinct values over some runs, joined by " | " in order; "" if none recorded. */
struct store_machines {
	char v[MACHINE_FACTS][256];
};

/*
 * What measured the done runs of matrix matrix_id, only arm index arm's if
 * arm >= 0 (runs stored before schema 14 recorded none of it but accel).
 */
int store_matrix_machines(struct store *s, int64_t matrix_id, int arm, struct store_machines *ret,
			  char *err);

#endif
