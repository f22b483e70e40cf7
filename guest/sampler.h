/* sampler.h -- what one interval measured: the memcg's memory.stat counters and
 * the data file's page-cache residency, by cachestat(2) or windowed mincore(2). */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#define SAMPLER_STAT_MAX   (64 * 1024)          /* memory.stat bigger than this is refused */
#define SAMPLER_WINDOW     (64ULL << 20)        /* mincore maps at most this much at a time */

/* Levels read at one instant; the caller takes deltas of the counters. */
struct sampler_counts {
	uint64_t pgmajfault;
	uint64_t refault_file;      /* workingset_refault_file */
	uint64_t activate_file;     /* workingset_activate_file */
	uint64_t resident_pages;    /* of the data file, in pages of 4 KiB */
};

struct sampler {
	int stat_fd;                /* <memcg>/memory.stat */
	int file_fd;                /* the data file, never mapped by the workload's mapping */
	uint64_t file_size;
	int use_cachestat;
	unsigned char *vec;         /* mincore vector for one window */
	char *buf;                  /* SAMPLER_STAT_MAX + 1 bytes */
};

/* 1 if cachestat(2) works on fd, else 0. */
int sampler_cachestat_works(int fd);

/*
 * Open memory.stat under memcg_dir and the data file. Returns 0, or -1 with a
 * reason naming the file in err; s is then safe to sampler_close().
 */
int sampler_open(struct sampler *s, const char *memcg_dir, const char *file,
		 int use_cachestat, char *err, size_t errlen);

/* Read every level now. Returns 0, or -1 with a reason in err. */
int sampler_read(struct sampler *s, struct sampler_counts *out, char *err, size_t errlen);

void sampler_close(struct sampler *s);

/*
 * Strict memory.stat parse: every line "key value\n", key [a-z0-9_]+, value a
 * decimal that fits 64 bits; the three keys we use present exactly once.
 * Fills the counters of out (not resident_pages). Returns 0, or -1 with err.
 */
int sampler_parse_stat(const char *buf, size_t len, struct sampler_counts *out,
		       char *err, size_t errlen);

#endif
