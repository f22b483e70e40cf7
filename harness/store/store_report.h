/* store_report.h -- what plots and the HTML report read from the database
 * beyond the tables: cell limits, arm options, the guests seen, failed runs. */
#ifndef STORE_REPORT_H
#define STORE_REPORT_H

#include <limits.h>
#include <stdint.h>

#include "base/err.h"
#include "base/hash.h"
#include "store/store.h"

/* The matrix as queued, and where its runs ran. */
struct report_matrix {
	char name[64], created_at[32], state[16];
	char spec_path[PATH_MAX];
	uint64_t reps, memory_mib, vcpus;
	char hosts[256], accels[64], archs[64];   /* distinct over its runs, comma-separated */
	char statuses[256];                       /* "4 done, 1 crashed" */
};

/* One arm: its options, and what its guests reported. */
struct report_arm {
	char name[64];
	char kernel[PATH_MAX];                /* as written in the matrix */
	char release[RELEASE_MAX];            /* read from the image */
	char lru_gen[8], cmdline[256];
	char guest_releases[256];             /* uname -r in its guests, distinct */
	char lru_read[64];                    /* lru_gen read back, distinct */
	/* an arm built from source (its first arch's build): "" / 0 otherwise */
	char build_key[HASH_SHA256_HEX], tree[160], source[256], base[128], config[256];
	char config_sha256[HASH_SHA256_HEX], image_sha256[HASH_SHA256_HEX];
	char patches[1024];                   /* the subjects, "; "-joined */
	char failed[ERR_MAX];                 /* why its build failed, "" if it did not */
	double build_s;
	int64_t n_patches, cached;
};

/* A run that ended failed, crashed or timed out. */
struct report_run {
	int64_t id, attempt, warnings;
	char arm[64], cell[CELL_NAME_MAX], status[16];
	char reason[512], crash[2048], guest_release[RELEASE_MAX];
	char console[PATH_MAX];
};

/* The report's facts of a matrix: name, dates, state, sizes, hosts, accels, arches, run counts. */
int store_report_matrix(struct store *s, int64_t mid, struct report_matrix *ret, char *err);
/* The arms in index order, at most SPEC_MAX_ARMS; *ret_n of them. */
int store_report_arms(struct store *s, int64_t mid, struct report_arm *ret, unsigned *ret_n,
		      char *err);
/* Failed, crashed and timed-out runs in order; *ret is malloc'd. */
int store_report_bad_runs(struct store *s, int64_t mid, struct report_run **ret, size_t *ret_n,
			  char *err);
/* Each cell's memory.max in MiB (0 if unknown), indexed by cell. */
int store_report_memcg(struct store *s, int64_t mid, uint64_t memcg_mib[SPEC_MAX_CELLS],
		       char *err);

#endif
