/* counters.h -- the named counters every interval sends beside its sample (PROTO_COUNTERS):
 * all of /proc/vmstat, zram's mm_stat, zswap's debugfs files, the reclaim stall histogram. */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"
#include "stalls.h"

#define COUNTERS_KEYS_MAX  CS_VMSTAT_KEYS   /* keys of one source (6.12's vmstat: ~180) */
#define COUNTERS_ZSWAP_MAX CS_ZSWAP_KEYS    /* zswap's debugfs files */
#define COUNTERS_TEXT_MAX  1024             /* zram's mm_stat longer: refused */
#define COUNTERS_ZRAM      "/sys/block/zram0/mm_stat"
#define COUNTERS_ZSWAP     "/sys/kernel/debug/zswap"

/* One source's values as read at one instant. */
struct counter_set {
	unsigned n;
	char key[COUNTERS_KEYS_MAX][PROTO_COUNTER_KEY_MAX];
	uint64_t v[COUNTERS_KEYS_MAX];
};

struct counters {
	int zram_fd;                    /* -1: no zram */
	char zswap_key[COUNTERS_ZSWAP_MAX][PROTO_COUNTER_KEY_MAX];
	unsigned nzswap;
	struct stalls *stalls;          /* the agent's, opened before the setup (maybe off) */
	uint64_t stall_count, stall_us;  /* the stalls' totals as last sent */
	int based;                       /* the start's values were sent */
	struct counter_set prev[CS_COUNT], now[CS_COUNT];
	char text[COUNTERS_TEXT_MAX + 1];
};

/* c with nothing open: safe to counters_close(). */
void counters_init(struct counters *c);

/*
 * Open every source the guest has (zram and zswap are optional; stalls, the
 * agent's stall tracing, may be off) and read their values as the workload
 * starts, /proc/vmstat's from the text the sampler just read (vm, vlen).
 * 0, or -1 with err naming the file.
 */
int counters_open(struct counters *c, struct stalls *stalls, const char *vm, size_t vlen,
		  char *err, size_t errlen);

/*
 * Read every source now (/proc/vmstat: the sampler's text of now), and the
 * interval's reclaim stalls (how many ended since the last read, their µs)
 * into smp's stalls and stall_us.
 */
int counters_read(struct counters *c, const char *vm, size_t vlen, struct proto_sample *smp,
		  char *err, size_t errlen);

/*
 * As PROTO_COUNTERS for interval seq: the first time, the start's values
 * (base); then what changed since the last send. 0, or -1 with err.
 */
int counters_send(struct counters *c, uint64_t seq,
		  int (*send)(void *arg, const struct proto_msg *m), void *arg,
		  char *err, size_t errlen);

/*
 * "key value\n" lines (/proc/vmstat): key [a-z0-9_] shorter than
 * PROTO_COUNTER_KEY_MAX, value a decimal below 2^62, at most
 * COUNTERS_KEYS_MAX of them. 0, or -1 with err naming what.
 */
int counters_parse_lines(const char *what, const char *text, size_t len, struct counter_set *out,
			 char *err, size_t errlen);

/* zram's mm_stat: one line of 7 to 9 numbers, named as the kernel documents them. */
int counters_parse_mm_stat(const char *text, size_t len, struct counter_set *out, char *err,
			   size_t errlen);

/* The stall histogram's buckets, and its lost and refused counts, as a set. */
void counters_stall_set(const struct stalls *s, struct counter_set *out);

/*
 * The values of the last read (interval seq's end) as the workload's end,
 * after the last interval's changes: nothing if no interval was sent.
 */
int counters_send_end(struct counters *c, uint64_t seq,
		      int (*send)(void *arg, const struct proto_msg *m), void *arg,
		      char *err, size_t errlen);

/* Close every source's file (the stall tracing is the agent's to close). */
void counters_close(struct counters *c);

#endif
