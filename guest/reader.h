/* reader.h -- the workload: N threads of random 4 KiB reads over one file, by
 * pread() or through a shared mapping, counting ops where the sampler can see them. */
#ifndef READER_H
#define READER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "zipf.h"

#define READER_PAGE 4096

/* One thread's op counter, alone on its cache line. */
struct reader_slot {
	_Atomic uint64_t ops;
} __attribute__((aligned(64)));

/*
 * Shared between the agent (outside the memcg) and the workload process (inside):
 * a MAP_SHARED anonymous region made before fork. The readers write their slot
 * and the error; the agent sets stop and reads the rest.
 */
struct reader_shared {
	_Atomic int stop;
	_Atomic int failed;      /* first failure claims err */
	_Atomic int err_set;     /* err is complete (release/acquire) */
	unsigned threads;
	char err[PROTO_ERR_MAX];
	struct reader_slot slot[];
};

/* What the readers do; pages counts READER_PAGE pages from offset 0. */
struct reader_job {
	const char *path;
	unsigned access;          /* enum wl_access */
	unsigned dist;            /* enum wl_dist */
	const struct zipf *zipf;  /* built by the caller when dist is WL_ZIPF */
	uint64_t pages;
	uint64_t run;             /* seeds the per-thread PRNGs */
};

/* Map a zeroed shared region for THREADS slots. Returns NULL with errno set. */
struct reader_shared *reader_shared_new(unsigned threads);
void reader_shared_free(struct reader_shared *sh);

/* Sum of the threads' op counters (relaxed reads). */
uint64_t reader_ops(const struct reader_shared *sh);

/* Record a failure in sh (first one wins) and ask every reader to stop. */
void reader_fail(struct reader_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Error text if a reader failed, else NULL. */
const char *reader_error(struct reader_shared *sh);

/*
 * In the workload process: open the file, start the threads, write one byte to
 * ready_fd once they all run, and read until sh->stop is set. Returns 0, or -1
 * after recording the reason with reader_fail().
 */
int reader_run(const struct reader_job *job, struct reader_shared *sh, int ready_fd);

#endif
