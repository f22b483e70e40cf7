/* spec.h -- a matrix file (JSON) parsed and validated into arms, workload
 * cells and repetitions; every error names the file, the field and the fix. */
#ifndef SPEC_H
#define SPEC_H

#include <limits.h>
#include <stdint.h>

#include "conf.h"
#include "image.h"
#include "proto.h"

#define SPEC_NAME_MAX  33
#define SPEC_MAX_ARMS  16
#define SPEC_MAX_CELLS 64
#define SPEC_MAX_REPS  1000
#define SPEC_FILE_MAX  (1 << 20)   /* a matrix file larger than this is refused */
#define GUEST_RESERVE_MIB 96       /* guest kernel + agent outside the memcg */

struct arm {
	char name[SPEC_NAME_MAX];
	char kernel[PATH_MAX];      /* as written: alias or path */
	char modules[PATH_MAX];     /* as written, may be empty */
	char lru_gen[8];            /* "y", "n" or "" (kernel default) */
	char cmdline[256];          /* extra boot options */
	struct kernel_files files;  /* resolved */
};

#define CELL_NAME_MAX 64

/* One workload cell: a job (files, streams) after presets, params and scale. */
struct cell {
	char name[CELL_NAME_MAX];
	char preset[SPEC_NAME_MAX];  /* "" if none */
	char params[256];            /* the expanded params, "theta=1.1 memcg_mib=160" */
	char *table;                 /* the preset's "table" (report layout), JSON or NULL */
	struct proto_job job;
};

struct matrix {
	char path[PATH_MAX];
	char name[SPEC_NAME_MAX];
	char arch[16];
	uint64_t memory_mib, vcpus;
	uint64_t reps;
	unsigned n_arms, n_cells;
	struct arm arms[SPEC_MAX_ARMS];
	struct cell cells[SPEC_MAX_CELLS];
	char *canonical;            /* the spec as stored: sorted, compact JSON */
	char hash[17];              /* FNV-1a 64 of canonical, hex */
};

/*
 * Load and validate a matrix file against conf (guest size, images). Nothing
 * is booted or written. Returns 0, or -1 with "file: field: message" in err.
 */
int spec_load(struct matrix *m, const char *path, const struct conf *conf, char *err);

void spec_release(struct matrix *m);

/* Number of runs the matrix expands to. */
unsigned spec_run_count(const struct matrix *m);

#endif
