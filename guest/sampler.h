/* sampler.h -- what one interval measured: the memcg's memory.stat, the
 * declared files' page-cache residency, and the memcg's lru_gen window. */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

#define SAMPLER_STAT_MAX   (256 * 1024)         /* memory.stat bigger: refused */
#define SAMPLER_KSWAPD_MAX 64                   /* kswapd threads (one per node) */
#define SAMPLER_GEN_MAX    (4 * 1024 * 1024)    /* lru_gen(_full) bigger: refused */
#define SAMPLER_WINDOW     (64ULL << 20)        /* mincore maps at most this much at a time */
#define SAMPLER_ONE_(X, m, key, max, stat, level) + 1
/* memory.stat keys read: a sample's rows of them (common/proto.h) */
#define SAMPLER_NKEYS      (0 PROTO_SAMPLE_STATS(SAMPLER_ONE_, _))
#define SAMPLER_LRU_GEN    "/sys/kernel/debug/lru_gen"
#define SAMPLER_LRU_FULL   "/sys/kernel/debug/lru_gen_full"

/* Everything read at one instant; sampler_fill() turns two into a sample. */
struct sampler_reading {
	uint64_t stat[SAMPLER_NKEYS];
	struct proto_u64s resident;     /* per file, 4 KiB pages */
	int gen_valid;
	uint64_t min_seq, max_seq;
	unsigned lru_nodes;             /* nodes of sampler.lru to send as PROTO_LRU */
	int lru_refused;                /* the text was not one lrugen_parse knows */
	/* /proc/vmstat's swap-ins and swap-outs, memory.swap.current (0 where the
	 * kernel accounts no swap) and memory.events' oom_kill, high, max and oom */
	uint64_t pswpin, pswpout, swap_current, oom_kill, memcg_high, memcg_max, memcg_oom;
	/* memory pressure totals (µs; 0 without PSI): the memcg's and the guest's,
	 * and kswapd's CPU time (ms) */
	uint64_t memcg_psi_some, memcg_psi_full, psi_some, psi_full, kswapd_ms;
};

struct sampler {
	int stat_fd;                    /* <memcg>/memory.stat */
	int vmstat_fd;                  /* /proc/vmstat */
	int events_fd;                  /* <memcg>/memory.events */
	int swap_fd;                    /* <memcg>/memory.swap.current; -1 if absent */
	int mpsi_fd, psi_fd;            /* memory.pressure, /proc/pressure/memory; -1 if absent */
	int kswapd_fd[SAMPLER_KSWAPD_MAX];   /* /proc/PID/stat of each kswapd thread */
	unsigned nkswapd;
	long clk_tck;
	int gen_fd;                     /* debugfs lru_gen_full, else lru_gen; -1 if absent or off */
	int gen_full;                   /* gen_fd is lru_gen_full */
	int gen_warned;                 /* a refused lru_gen text was reported once */
	char memcg_path[200];           /* as lru_gen names it, e.g. "/harness" */
	unsigned nfiles;
	int file_fd[PROTO_MAX_FILES];   /* never the workload's own descriptors */
	const char *file_name[PROTO_MAX_FILES];
	uint64_t file_size[PROTO_MAX_FILES];
	int use_cachestat;
	unsigned char *vec;             /* mincore vector for one window */
	char *buf;                      /* SAMPLER_STAT_MAX + 1 bytes */
	size_t vmstat_len;              /* /proc/vmstat's text as last read: buf[0, vmstat_len) */
	char *gen_buf;                  /* SAMPLER_GEN_MAX + 1 bytes, with gen_fd */
	struct lrugen_memcg *lru;       /* the memcg's generations as last read (~30 KB) */
};

/* 1 if cachestat(2) works on fd, else 0. */
int sampler_cachestat_works(int fd);

/* s with no file open: safe to sampler_close() before or after a failed sampler_open(). */
void sampler_init(struct sampler *s);

/*
 * Open memory.stat under memcg_dir, the files, and lru_gen if debugfs has it.
 * Returns 0, or -1 with a reason naming the file in err; s is then safe to
 * sampler_close().
 */
int sampler_open(struct sampler *s, const char *memcg_dir, const char *memcg_path,
		 char *const files[], unsigned nfiles, int use_cachestat, char *err, size_t errlen);

/*
 * The swap readings: /proc/vmstat's and memory.events' texts (lrugen_parse_kv)
 * and memory.swap.current's (NULL: absent) into out; -1 naming the file.
 */
int sampler_parse_swap(const char *vmstat, size_t vlen, const char *events, size_t elen,
		       const char *swap_current, struct sampler_reading *out, char *err,
		       size_t errlen);

/*
 * A /proc/PID/stat text's utime + stime (clock ticks) into *ticks: the
 * fields after the last ')' (a command name may hold anything), strictly
 * decimal. 0, or -1 with err.
 */
int sampler_parse_task_stat(const char *text, size_t len, uint64_t *ticks, char *err,
			    size_t errlen);

/* memory.events' oom_kill now into *kills; -1 if it cannot be read. */
int sampler_oom_kills(struct sampler *s, uint64_t *kills);

/* Read everything now. Returns 0, or -1 with a reason in err. */
int sampler_read(struct sampler *s, struct sampler_reading *out, char *err, size_t errlen);

/*
 * /proc/vmstat's text as the last sampler_read read it (the named counters
 * parse the same text, so their pswpin and pswpout are the sample's).
 */
const char *sampler_vmstat(const struct sampler *s, size_t *len);

/* Residency of every file now (for events). */
int sampler_residency(struct sampler *s, struct proto_u64s *out, char *err, size_t errlen);

/* Deltas of the counters, the levels and residency of now, into a sample. */
int sampler_fill(const struct sampler_reading *now, const struct sampler_reading *prev,
		 struct proto_sample *out, char *err, size_t errlen);

/* Close the sampler's files (memory.stat, lru_gen, the workload's files) and free its buffers. */
void sampler_close(struct sampler *s);

/*
 * Strict memory.stat parse (lrugen_parse_memory_stat): every line "key value\n", key
 * [a-z0-9_]+, value a decimal that fits 64 bits; each key we use present
 * exactly once.
 */
int sampler_parse_stat(const char *buf, size_t len, struct sampler_reading *out,
		       char *err, size_t errlen);

/* MGLRU is off (the arm's lru_gen "n", enabled reads 0x0000): read no generations. */
void sampler_lru_gen_off(struct sampler *s);

/*
 * The memcg memcg_path of lru_gen's (full 0) or lru_gen_full's text into *m,
 * and what the reading says of it: gen_valid, min_seq (the oldest seq of any
 * node), max_seq, lru_nodes. The memcg absent: no generations. A text
 * lrugen_parse refuses: none either, lru_refused 1, and -1 with its reason.
 */
int sampler_parse_lru(const char *buf, size_t len, int full, const char *memcg_path,
		      struct lrugen_memcg *m, struct sampler_reading *out,
		      char *err, size_t errlen);

/*
 * Node i of m as the PROTO_LRU of interval seq: its generations (in
 * lru_gen_full those gone for both types left out) and, from lru_gen_full,
 * the rep columns of every tier.
 */
void sampler_lru_msg(const struct lrugen_memcg *m, unsigned i, uint64_t seq,
		     struct proto_lru *out);

#endif
