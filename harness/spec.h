/* spec.h -- a matrix file (JSON) parsed and validated into arms, workload
 * cells and repetitions; every error names the file, the field and the fix. */
#ifndef SPEC_H
#define SPEC_H

#include <limits.h>
#include <stdint.h>

#include "conf.h"
#include "fetch.h"
#include "image.h"
#include "proto.h"
#include "sha256.h"

#define SPEC_NAME_MAX  33
#define SPEC_MAX_ARMS  16
#define SPEC_MAX_CELLS 64
#define SPEC_MAX_REPS  1000
#define SPEC_FILE_MAX  (1 << 20)   /* a matrix file larger than this is refused */
#define GUEST_RESERVE_MIB 96       /* guest kernel + agent outside the memcg */

/* Where the kernel comes from: exactly one of kernel, package and url is set. */
struct arm {
	char name[SPEC_NAME_MAX];
	char kernel[PATH_MAX];      /* as written: alias or path, or "" */
	char modules[PATH_MAX];     /* as written, may be empty (only with kernel) */
	char package[IMAGE_PACKAGE_MAX];  /* a Debian kernel package, built by images/build.sh */
	char url[FETCH_URL_MAX];    /* a kernel image to download ... */
	char sha256[SHA256_HEX];    /* ... whose SHA-256 must be this (lowercase hex) */
	char modules_url[FETCH_URL_MAX];     /* optional modules cpio to download, with url */
	char modules_sha256[SHA256_HEX];
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
	char path[PATH_MAX];        /* the file, or the label errors name */
	char base_dir[PATH_MAX];    /* where relative paths in it start */
	char name[SPEC_NAME_MAX];
	char arch[16];
	uint64_t memory_mib, vcpus;
	uint64_t reps;
	unsigned n_arms, n_cells;
	struct arm arms[SPEC_MAX_ARMS];
	struct cell cells[SPEC_MAX_CELLS];
	char *canonical;            /* the spec as stored: sorted, compact JSON */
	char hash[17];              /* FNV-1a 64 of canonical without "reps", hex */
};

/*
 * Load and validate a matrix file against conf (guest size, images). Nothing
 * is booted, but the arms' kernels are made ready: "url" arms are downloaded
 * and checked, "package" arms built once, both into caches under
 * conf->results (see image.h). Returns 0, or -1 with "file: field: message".
 */
int spec_load(struct matrix *m, const char *path, const struct conf *conf, char *err);

/* The same from JSON text (the daemon's submissions and its stored specs). */
int spec_load_text(struct matrix *m, const char *text, const char *label, const char *base_dir,
		   const struct conf *conf, char *err);

void spec_release(struct matrix *m);

/* Number of runs the matrix expands to. */
unsigned spec_run_count(const struct matrix *m);

#endif
