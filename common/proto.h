/* proto.h -- the host <-> guest channel: one JSON object per line, both ways,
 * and the job (files, streams) described once for the matrix and the guest.
 *
 * Folder common/: what host and guest share, compiled into both: this protocol's wire
 * codec (proto.c) and the job's option tables of every stream kind and their checks
 * (proto_job.c), the fio argument rules (fioargs.c), the parsers of debugfs lru_gen and
 * memory.stat's LRU counters (lrugen.c), multi-size THP knob lists (mthp.c).
 * It may call: nothing.
 */
#ifndef PROTO_H
#define PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "common/lrugen.h"
#include "common/mthp.h"

#define PROTO_VERSION     12     /* 12: multi-size THP in the job, setup and summary;
				  * 11: PROTO_COUNTERS, reclaim stalls, memory.events;
				  * 10: the samples' monitors; 9: swap in the job and
				  * setup; 8: THP in the job and
				  * setup; 7: the job's seed and host
				  * clock; 6: PROTO_TRACE; 5: PROTO_LRU */
#define PROTO_PORT_NAME   "harness.0"
#define PROTO_LINE_MAX    16384  /* longer lines are refused, never truncated */
#define PROTO_STR_MAX     128    /* bound on short string fields */
#define PROTO_ERR_MAX     256
#define PROTO_NAME_MAX    32     /* file and stream names */
#define PROTO_MAX_FILES   16
#define PROTO_MAX_STREAMS 8
#define PROTO_FIO_MAX     4096   /* fio argument text, and job-file text */
#define PROTO_MAX_DBS     4      /* databases a job declares (ycsb streams) */

/*
 * One interval of the whole guest/memcg, described once: struct member, JSON
 * key (the memory.stat name where there is one), upper bound accepted from a
 * guest. Counters are deltas over the interval; file, anon and the lru_gen
 * sequence numbers are levels.
 *
 * The fields read from memory.stat are rows of their own lists,
 * S(X, member, JSON key, bound, memory.stat key, level): the guest's sampler
 * builds its key table and count from them (guest/sampler.c), the store its
 * columns (store/store.c), so adding a counter is one row here (plus its
 * parse in common/lrugen.h's struct lrugen_stat, and a schema upgrade for
 * the group it joins). PROTO_STAT_FIELD turns such a row into an X row.
 */
#define PROTO_STAT_FIELD(X, m, key, max, stat, level) X(m, key, max)
#define PROTO_SAMPLE_FIELDS(X) \
	PROTO_SAMPLE_BASE_FIELDS(X) PROTO_SAMPLE_LRU_FIELDS(X) PROTO_SAMPLE_THP_FIELDS(X) \
	PROTO_SAMPLE_SWAP_FIELDS(X) PROTO_SAMPLE_MONITOR_FIELDS(X) PROTO_SAMPLE_STALL_FIELDS(X)
#define PROTO_SAMPLE_BASE_FIELDS(X)                                            \
	X(seq,              "seq",                      UINT64_C(1) << 32)     \
	X(t_ms,             "t_ms",                     UINT64_C(1) << 40)     \
	X(ramp,             "ramp",                     1)                     \
	PROTO_SAMPLE_BASE_STATS(PROTO_STAT_FIELD, X)                           \
	X(gen_valid,        "lru_gen_valid",            1)                     \
	X(min_seq,          "lru_gen_min_seq",          UINT64_C(1) << 62)     \
	X(max_seq,          "lru_gen_max_seq",          UINT64_C(1) << 62)
#define PROTO_SAMPLE_BASE_STATS(S, X)                                                      \
	S(X, pgmajfault,    "pgmajfault",               UINT64_C(1) << 48, pgmajfault, 0) \
	S(X, refault_file,  "workingset_refault_file",  UINT64_C(1) << 48,                 \
	  workingset_refault_file, 0)                                                      \
	S(X, refault_anon,  "workingset_refault_anon",  UINT64_C(1) << 48,                 \
	  workingset_refault_anon, 0)                                                      \
	S(X, activate_file, "workingset_activate_file", UINT64_C(1) << 48,                 \
	  workingset_activate_file, 0)                                                     \
	S(X, activate_anon, "workingset_activate_anon", UINT64_C(1) << 48,                 \
	  workingset_activate_anon, 0)                                                     \
	S(X, restore_file,  "workingset_restore_file",  UINT64_C(1) << 48,                 \
	  workingset_restore_file, 0)                                                      \
	S(X, pgscan,        "pgscan",                   UINT64_C(1) << 48, pgscan, 0)     \
	S(X, pgsteal,       "pgsteal",                  UINT64_C(1) << 48, pgsteal, 0)    \
	S(X, file_bytes,    "file",                     UINT64_C(1) << 50, file, 1)       \
	S(X, anon_bytes,    "anon",                     UINT64_C(1) << 50, anon, 1)

/*
 * The sample fields protocol 5 (schema 12) added, stored as nullable columns
 * (rows of older runs have none): the classic LRU's sizes (levels, bytes),
 * memory.stat's aging and eviction counters (deltas), and how many PROTO_LRU
 * messages (one per node) follow the sample; lru_gen_refused is 1 when the
 * interval's lru_gen text was not one the parser knows (none follow then).
 */
#define PROTO_SAMPLE_LRU_FIELDS(X)                                             \
	PROTO_SAMPLE_LRU_STATS(PROTO_STAT_FIELD, X)                            \
	X(lru_nodes,        "lru_gen_nodes",            LRUGEN_MAX_NODES)      \
	X(lru_refused,      "lru_gen_refused",          1)
#define PROTO_SAMPLE_LRU_STATS(S, X)                                                       \
	S(X, active_anon,    "active_anon",             UINT64_C(1) << 50, active_anon, 1) \
	S(X, inactive_anon,  "inactive_anon",           UINT64_C(1) << 50, inactive_anon, 1) \
	S(X, active_file,    "active_file",             UINT64_C(1) << 50, active_file, 1) \
	S(X, inactive_file,  "inactive_file",           UINT64_C(1) << 50, inactive_file, 1) \
	S(X, restore_anon,   "workingset_restore_anon", UINT64_C(1) << 48,                 \
	  workingset_restore_anon, 0)                                                      \
	S(X, nodereclaim,    "workingset_nodereclaim",  UINT64_C(1) << 48,                 \
	  workingset_nodereclaim, 0)                                                       \
	S(X, pgscan_kswapd,  "pgscan_kswapd",           UINT64_C(1) << 48, pgscan_kswapd, 0) \
	S(X, pgscan_direct,  "pgscan_direct",           UINT64_C(1) << 48, pgscan_direct, 0) \
	S(X, pgsteal_kswapd, "pgsteal_kswapd",          UINT64_C(1) << 48, pgsteal_kswapd, 0) \
	S(X, pgsteal_direct, "pgsteal_direct",          UINT64_C(1) << 48, pgsteal_direct, 0) \
	S(X, pgrefill,       "pgrefill",                UINT64_C(1) << 48, pgrefill, 0)   \
	S(X, pgactivate,     "pgactivate",              UINT64_C(1) << 48, pgactivate, 0) \
	S(X, pgdeactivate,   "pgdeactivate",            UINT64_C(1) << 48, pgdeactivate, 0)

/* Every memory.stat row of a sample, base then LRU: S(X, m, key, max, stat, level). */
/*
 * The sample fields protocol 8 (schema 18) added, nullable columns: the
 * memcg's anonymous transparent hugepages (memory.stat anon_thp, a level in
 * bytes; 0 where the kernel has no THP).
 */
#define PROTO_SAMPLE_THP_FIELDS(X) PROTO_SAMPLE_THP_STATS(PROTO_STAT_FIELD, X)
#define PROTO_SAMPLE_THP_STATS(S, X)                                                       \
	S(X, anon_thp_bytes, "anon_thp",                UINT64_C(1) << 50, anon_thp, 1)
/*
 * Swap (protocol 9, schema 19): the memcg's swap cache and zswap (memory.stat;
 * zswap's absent without CONFIG_ZSWAP), the guest's swap-ins and swap-outs
 * (/proc/vmstat pswpin, pswpout: pages; the workload is all that runs), the
 * memcg's swap in use (memory.swap.current, bytes) and its OOM kills
 * (memory.events oom_kill).
 */
#define PROTO_SAMPLE_SWAP_FIELDS(X)                                            \
	PROTO_SAMPLE_SWAP_STATS(PROTO_STAT_FIELD, X)                           \
	X(pswpin,           "pswpin",                   UINT64_C(1) << 48)     \
	X(pswpout,          "pswpout",                  UINT64_C(1) << 48)     \
	X(swap_current,     "swap_current",             UINT64_C(1) << 50)     \
	X(oom_kill,         "oom_kill",                 UINT64_C(1) << 32)
#define PROTO_SAMPLE_SWAP_STATS(S, X)                                                      \
	S(X, swapcached,  "swapcached",                 UINT64_C(1) << 50, swapcached, 1)  \
	S(X, zswap_bytes, "zswap",                      UINT64_C(1) << 50, zswap, 1)       \
	S(X, zswpin,      "zswpin",                     UINT64_C(1) << 48, zswpin, 0)      \
	S(X, zswpout,     "zswpout",                    UINT64_C(1) << 48, zswpout, 0)
/*
 * Monitors (protocol 10, schema 21): memory pressure stalls over the interval,
 * microseconds, of the memcg (memory.pressure) and of the whole guest
 * (/proc/pressure/memory), some and full; 0 without PSI. And kswapd's CPU
 * time, its threads' utime + stime, milliseconds.
 */
#define PROTO_SAMPLE_MONITOR_FIELDS(X)                                         \
	X(memcg_psi_some_us, "memcg_psi_some_us",       UINT64_C(1) << 40)     \
	X(memcg_psi_full_us, "memcg_psi_full_us",       UINT64_C(1) << 40)     \
	X(psi_some_us,      "psi_mem_some_us",          UINT64_C(1) << 40)     \
	X(psi_full_us,      "psi_mem_full_us",          UINT64_C(1) << 40)     \
	X(kswapd_ms,        "kswapd_ms",                UINT64_C(1) << 32)
/*
 * The memcg's events and reclaim stalls (protocol 11, schema 22): over the
 * interval, memory.events' high, max and oom (times the memcg went over
 * memory.high, reached memory.max, and found nothing to reclaim at it); and
 * the reclaim stalls that ended in it, direct and the memcg's (the vmscan
 * tracepoints' begin/end pairs, guest/stalls.c): how many and their total
 * length, µs. 0 with the stall tracing off (setup's stalls says why).
 */
#define PROTO_SAMPLE_STALL_FIELDS(X)                                           \
	X(memcg_high,       "memcg_high",               UINT64_C(1) << 48)     \
	X(memcg_max,        "memcg_max",                UINT64_C(1) << 48)     \
	X(memcg_oom,        "memcg_oom",                UINT64_C(1) << 32)     \
	X(stalls,           "reclaim_stalls",           UINT64_C(1) << 40)     \
	X(stall_us,         "reclaim_stall_us",         UINT64_C(1) << 48)
#define PROTO_SAMPLE_STATS(S, X) \
	PROTO_SAMPLE_BASE_STATS(S, X) PROTO_SAMPLE_LRU_STATS(S, X) PROTO_SAMPLE_THP_STATS(S, X) \
	PROTO_SAMPLE_SWAP_STATS(S, X)

/*
 * PROTO_LRU: one node of the memcg's multi-gen LRU at the end of interval
 * seq, sent after the interval's sample, nodes in nid order (node: 0, 1, ...
 * up to the sample's lru_gen_nodes). One message per node keeps the line
 * bounded (8 nodes of 4 generations of tiers would not fit PROTO_LINE_MAX).
 * Per generation, oldest first (arrays of ngens, ngens >= 1): its seq
 * (strictly increasing), age and pages as lru_gen prints them, and rep: bit
 * LRUGEN_ANON / LRUGEN_FILE set where lru_gen_full printed that type's "rep"
 * columns (LRUGEN_HIST). Per generation and tier (arrays of ngens x 4,
 * generation-major, from lru_gen_full only; empty from lru_gen): the rep
 * columns, 0 where rep's bit is clear; protected is 0 at tier 0.
 */
#define PROTO_LRU_TIER_MAX  (LRUGEN_FULL_GENS * LRUGEN_TIERS)
#define PROTO_LRU_HEAD_FIELDS(X)                                               \
	X(seq,              "seq",                      UINT64_C(1) << 32)     \
	X(node,             "node",                     LRUGEN_MAX_NODES - 1)  \
	X(nid,              "nid",                      1023)
#define PROTO_LRU_GEN_FIELDS(X)                                                \
	X(gen,              "gen",                      UINT64_C(1) << 62)     \
	X(age_ms,           "age_ms",                   UINT32_MAX)            \
	X(anon,             "anon",                     UINT64_C(1) << 40)     \
	X(file,             "file",                     UINT64_C(1) << 40)     \
	X(rep,              "rep",                      3)
#define PROTO_LRU_TIER_FIELDS(X)                                               \
	X(anon_refaulted,   "anon_refaulted",           UINT64_C(1) << 48)     \
	X(anon_evicted,     "anon_evicted",             UINT64_C(1) << 48)     \
	X(anon_protected,   "anon_protected",           UINT64_C(1) << 48)     \
	X(file_refaulted,   "file_refaulted",           UINT64_C(1) << 48)     \
	X(file_evicted,     "file_evicted",             UINT64_C(1) << 48)     \
	X(file_protected,   "file_protected",           UINT64_C(1) << 48)

/* One interval of one stream: ops and latency as the stream measured them. */
#define PROTO_STREAM_FIELDS(X)                                                 \
	X(seq,              "seq",                      UINT64_C(1) << 32)     \
	X(stream,           "stream",                   PROTO_MAX_STREAMS - 1) \
	X(active,           "active",                   1)                     \
	X(read_ops,         "read_ops",                 UINT64_C(1) << 48)     \
	X(write_ops,        "write_ops",                UINT64_C(1) << 48)     \
	X(read_bytes,       "read_bytes",               UINT64_C(1) << 60)     \
	X(write_bytes,      "write_bytes",              UINT64_C(1) << 60)     \
	X(lat_p50_ns,       "lat_p50_ns",               UINT64_C(1) << 48)     \
	X(lat_p99_ns,       "lat_p99_ns",               UINT64_C(1) << 48)     \
	X(lat_max_ns,       "lat_max_ns",               UINT64_C(1) << 48)     \
	X(misses,           "misses",                   UINT64_C(1) << 48)

/*
 * What a stream counts by operation when one stream does several kinds of
 * work (YCSB's operations, a reclaim request): op names as sent and stored.
 */
#define PROTO_OP_NAMES(X) \
	X(OP_READ, "read") X(OP_UPDATE, "update") X(OP_INSERT, "insert") \
	X(OP_SCAN, "scan") X(OP_RMW, "rmw") X(OP_RECLAIM, "reclaim")

enum proto_op {
#define X(e, s) e,
	PROTO_OP_NAMES(X)
#undef X
	OP_COUNT
};

extern const char *const proto_op_names[];

/*
 * One operation of one stream over an interval (total 0) or over the whole
 * measured run, ramp excluded (total 1, seq then counts the intervals).
 * ops: every operation that completed, failed ones too (YCSB's throughput,
 * seed 002's requests); of those, eagain failed with EAGAIN and errors with
 * anything else. records: what scans returned, or bytes reclaim requests
 * asked for. Latency covers every completed operation.
 */
#define PROTO_OP_FIELDS(X)                                                     \
	X(seq,              "seq",                      UINT64_C(1) << 32)     \
	X(stream,           "stream",                   PROTO_MAX_STREAMS - 1) \
	X(total,            "total",                    1)                     \
	X(span_ms,          "span_ms",                  UINT64_C(1) << 40)     \
	X(ops,              "ops",                      UINT64_C(1) << 48)     \
	X(errors,           "errors",                   UINT64_C(1) << 48)     \
	X(eagain,           "eagain",                   UINT64_C(1) << 48)     \
	X(records,          "records",                  UINT64_C(1) << 60)     \
	X(lat_mean_ns,      "lat_mean_ns",              UINT64_C(1) << 48)     \
	X(lat_p50_ns,       "lat_p50_ns",               UINT64_C(1) << 48)     \
	X(lat_p99_ns,       "lat_p99_ns",               UINT64_C(1) << 48)     \
	X(lat_max_ns,       "lat_max_ns",               UINT64_C(1) << 48)

/* A bounded list of values: per file (residency in 4 KiB pages, file sizes),
 * per generation or per generation and tier (PROTO_LRU, fewer allowed). */
struct proto_u64s {
	uint64_t n;
	uint64_t v[PROTO_MAX_FILES];
};
_Static_assert(PROTO_LRU_TIER_MAX <= PROTO_MAX_FILES && LRUGEN_MAX_GENS <= PROTO_MAX_FILES,
	       "PROTO_LRU's arrays fit a proto_u64s");

struct proto_sample {
#define X(m, key, max) uint64_t m;
	PROTO_SAMPLE_FIELDS(X)
#undef X
	struct proto_u64s resident;   /* per declared file, 4 KiB pages */
};

struct proto_stream_sample {
#define X(m, key, max) uint64_t m;
	PROTO_STREAM_FIELDS(X)
#undef X
};

struct proto_lru {
#define X(m, key, max) uint64_t m;
	PROTO_LRU_HEAD_FIELDS(X)
#undef X
#define X(m, key, max) struct proto_u64s m;
	PROTO_LRU_GEN_FIELDS(X)
	PROTO_LRU_TIER_FIELDS(X)
#undef X
};

/*
 * PROTO_TRACE: the sampled folios' events the guest drained from its trace
 * buffer at the end of interval seq (tracing on: at least one message an
 * interval, possibly with no events; at most PROTO_TRACE_MAX a message, in
 * the kernel's order). lost: events the kernel could not keep so far
 * (overruns and drops, cumulative); refused: lines the guest did not
 * understand or folios whose generation did not decode (cumulative; none
 * of those is sent). Per event: its kind, ms since the workload's start,
 * the folio's inode and page index; for an add, where it went: under MGLRU
 * its generation's seq and the file window (min_seq..max_seq) it joined,
 * or the classic LRU's list (place).
 */
#define PROTO_TRACE_MAX 16
#define PROTO_TRACE_KINDS(X) \
	X(TR_LOAD, "load") X(TR_ADD, "add") X(TR_ACCESS, "access") \
	X(TR_PROMOTE, "promote") X(TR_ACTIVATE, "activate") X(TR_REMOVE, "remove")

enum proto_trace_kind {
#define X(e, s) e,
	PROTO_TRACE_KINDS(X)
#undef X
	TR_COUNT
};

/* Where an add put the folio; names as stored. */
#define PROTO_PLACES(X) \
	X(PL_NONE, "") X(PL_OLDEST, "oldest") X(PL_SECOND, "second-oldest") \
	X(PL_YOUNGER, "younger") X(PL_INACTIVE, "inactive") X(PL_ACTIVE, "active")

enum proto_place {
#define X(e, s) e,
	PROTO_PLACES(X)
#undef X
	PL_COUNT
};

extern const char *const proto_trace_kind_names[];
extern const char *const proto_place_names[];

#define PROTO_TRACE_HEAD_FIELDS(X)                                             \
	X(seq,              "seq",                      UINT64_C(1) << 32)     \
	X(lost,             "lost",                     UINT64_C(1) << 48)     \
	X(refused,          "refused",                  UINT64_C(1) << 48)
#define PROTO_TRACE_EVENT_FIELDS(X)                                            \
	X(kind,             "kind",                     TR_COUNT - 1)          \
	X(t_ms,             "t_ms",                     UINT64_C(1) << 40)     \
	X(ino,              "ino",                      UINT64_C(1) << 62)     \
	X(page,             "page",                     UINT64_C(1) << 52)     \
	X(place,            "place",                    PL_COUNT - 1)          \
	X(gen,              "gen",                      UINT64_C(1) << 62)     \
	X(min_seq,          "min_seq",                  UINT64_C(1) << 62)     \
	X(max_seq,          "max_seq",                  UINT64_C(1) << 62)

struct proto_trace {
#define X(m, key, max) uint64_t m;
	PROTO_TRACE_HEAD_FIELDS(X)
#undef X
#define X(m, key, max) struct proto_u64s m;
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
};
_Static_assert(PROTO_TRACE_MAX <= PROTO_MAX_FILES, "PROTO_TRACE's arrays fit a proto_u64s");

struct proto_op_sample {
#define X(m, key, max) uint64_t m;
	PROTO_OP_FIELDS(X)
#undef X
	char op[16];                  /* proto_op_names[] */
};

/* ---- the job: files and streams, described by option tables ---- */

enum proto_opt_type { OPT_UINT, OPT_DOUBLE, OPT_ENUM, OPT_STR, OPT_TEXT /* multi-line */ };

/*
 * Every stream kind, the one list of them: X(ENUM, id). A kind is a
 * descriptor here (common/kind_<id>.c: its options, checks, threads) and a
 * run function in the guest (guest/stream_<id>.c: stream_<id>_run); adding
 * one is those two files and a row here.
 */
#define PROTO_STREAM_KINDS(X) \
	X(RANDOM, random)     \
	X(SCAN, scan)         \
	X(FIO, fio)           \
	X(YCSB, ycsb)         \
	X(RECLAIM, reclaim)   \
	X(ANON, anon)

enum stream_kind {
#define X(e, id) KIND_##e,
	PROTO_STREAM_KINDS(X)
#undef X
	KIND_COUNT
};

struct proto_opt {
	const char *name;            /* key in the matrix and in the job */
	enum proto_opt_type type;
	size_t off;                  /* offsetof() into the struct it fills */
	double min, max;             /* inclusive range (numbers); max length (OPT_STR) */
	const char *const *choices;  /* NULL-terminated (OPT_ENUM) */
	const char *def;             /* default as text; NULL: required or empty */
	const char *help;
};

enum st_access  { ACC_PREAD, ACC_READ, ACC_MMAP, ACC_WRITE };   /* write: anon's */
enum st_dist    { DIST_UNIFORM, DIST_ZIPF, DIST_SEQUENTIAL };
enum st_advice  { ADV_NORMAL, ADV_RANDOM, ADV_SEQUENTIAL };
enum st_mode    { MODE_NORMAL, MODE_DONTCACHE, MODE_DONTNEED, MODE_FADV_RANDOM };
enum file_content { CONTENT_RANDOM, CONTENT_ZERO };
enum anon_backing { BACK_PRIVATE, BACK_SHMEM };
enum anon_fill  { FILL_ZERO, FILL_RANDOM, FILL_COMPRESSIBLE };
enum anon_madv  { MADV_AS_NORMAL, MADV_AS_RANDOM, MADV_AS_SEQUENTIAL, MADV_AS_HUGEPAGE,
		  MADV_AS_NOHUGEPAGE, MADV_AS_COLD, MADV_AS_PAGEOUT };
enum ycsb_dist  { YDIST_UNIFORM, YDIST_ZIPFIAN, YDIST_LATEST };
enum ycsb_order { YORDER_HASHED, YORDER_ORDERED };

/* A YCSB record set, loaded once on the host into a LevelDB on the data disk. */
struct proto_db {
	char name[PROTO_NAME_MAX];   /* its directory on the data disk */
	uint64_t recordcount, fieldcount, fieldlength;
	unsigned insertorder;        /* enum ycsb_order */
};
enum rc_cgroup  { RECLAIM_ROOT, RECLAIM_PARENT };
enum rc_fallback { FALLBACK_REFUSE, FALLBACK_OMIT };

struct proto_file {
	char name[PROTO_NAME_MAX];
	uint64_t mib;
	unsigned content;            /* enum file_content */
};

struct proto_stream {
	unsigned kind;               /* enum stream_kind */
	char name[PROTO_NAME_MAX];
	char file[PROTO_NAME_MAX];   /* a declared file (random, scan) */
	double start_s, duration_s;  /* duration 0: until the workload ends */
	/* random */
	uint64_t threads;
	unsigned access;             /* enum st_access; random: pread|mmap, scan: read|mmap */
	unsigned dist;               /* enum st_dist */
	double theta;
	double rate;                 /* ops/s over all threads, 0: flat out */
	unsigned advice;             /* enum st_advice */
	double miss_us;              /* a read slower than this missed; 0: calibrate */
	double miss_factor;          /* calibrated threshold = factor x cached median */
	/* scan */
	uint64_t chunk_kib, passes;
	double gap_s, rate_mibs;     /* rate_mibs 0: full speed */
	unsigned mode;               /* enum st_mode */
	/* reclaim */
	uint64_t memcgs, charge_mib, workers, request_mib;
	char swappiness[8];          /* "" to send none */
	unsigned cgroup;             /* enum rc_cgroup: whose memory.reclaim */
	unsigned fallback;           /* enum rc_fallback */
	uint64_t trace_sample;       /* trace: {sample: N}, this stream's file; 0: off */
	/* anon (threads, access, dist, theta, rate, miss_us, miss_factor as random's) */
	uint64_t mib;                /* anonymous memory mapped in the memcg */
	unsigned backing;            /* enum anon_backing */
	unsigned fill;               /* enum anon_fill */
	double ratio;                /* fill compressible: a page compresses about this much */
	unsigned madv;               /* enum anon_madv: the option "madvise" */
	double madvise_at_s;         /* cold and pageout: when, in the stream's time */
	/* ycsb: YCSB's own property names */
	char db[PROTO_NAME_MAX];     /* a declared database; "" the only one */
	uint64_t operationcount, threadcount, minscanlength, maxscanlength, cache_mib;
	double ops_target;           /* target: ops/s over all threads, 0: flat out */
	double readproportion, updateproportion, insertproportion, scanproportion,
	       readmodifywriteproportion;
	unsigned requestdistribution, scanlengthdistribution;   /* enum ycsb_dist */
	unsigned readallfields, writeallfields;                 /* 0 false, 1 true */
	/* fio */
	char args[PROTO_FIO_MAX];
	char jobfile[PROTO_FIO_MAX];
	uint64_t set;                /* bit i: option i of the table was given */
};

/*
 * A cell's swap device, its "swap" object. The kinds, one row each:
 * X(ENUM, name, flags). SWK_FILE: a swap file on the data disk (ext4 on
 * virtio-blk, the disk the files are on: a one-disk machine's swap); SWK_RAM:
 * what it holds takes guest memory outside the memcg (zram's and zswap's
 * pools); SWK_COMP: takes a compressor; SWK_POOL: takes zswap's pool options.
 */
#define SWK_FILE 1u
#define SWK_RAM  2u
#define SWK_COMP 4u
#define SWK_POOL 8u
#define PROTO_SWAP_KINDS(X)                                 \
	X(NONE, none, 0)                                    \
	X(DISK, disk, SWK_FILE)                             \
	X(ZRAM, zram, SWK_RAM | SWK_COMP)                   \
	X(ZSWAP, zswap, SWK_FILE | SWK_RAM | SWK_COMP | SWK_POOL)

enum swap_kind {
#define X(e, id, fl) SWAP_##e,
	PROTO_SWAP_KINDS(X)
#undef X
	SWAP_COUNT
};

extern const char *const proto_swap_kind_names[];
extern const unsigned proto_swap_kind_flags[];
/* "default" (the kernel's) first, then the compressors zram and zswap know */
extern const char *const proto_swap_compressors[];
extern const char *const proto_swap_zpools[];        /* "default" first */

#define PROTO_SWAPPINESS_KERNEL UINT64_MAX   /* swappiness not given: the kernel's */

struct proto_swap {
	unsigned kind;               /* enum swap_kind; SWAP_NONE: no swap object */
	uint64_t mib;                /* the device's (or file's) size */
	unsigned compressor;         /* index in proto_swap_compressors */
	unsigned zpool;              /* index in proto_swap_zpools (zswap) */
	uint64_t max_pool_percent;   /* zswap's, of guest memory */
};

extern const struct proto_opt proto_swap_opts[];

/* The host's entropy in a job: 32 bytes as hex. */
#define PROTO_SEED_HEX 64

struct proto_job {
	uint64_t run;
	char lru_gen[8];             /* "y", "n" or "" to leave the kernel default */
	/* transparent_hugepage's enabled and defrag to write ("" leaves the kernel's) */
	char thp_enabled[16], thp_defrag[16];
	/* multi-size THP's per-size enabled to write, "64K:always 2048K:inherit"
	 * (common/mthp.h; "" leaves every size the kernel's) */
	char mthp[MTHP_TEXT_MAX];
	/* what makes a guest restored from a save as fresh as a booted one: the
	 * host's entropy, credited and reseeding the kernel's CRNG, and the host's
	 * wall clock (ms since the epoch) as it sent the job, which the guest's
	 * clock is stepped to */
	char seed[PROTO_SEED_HEX + 1];
	uint64_t host_ms;
	uint64_t memcg_mib;          /* memory.max of the workload's cgroup */
	uint64_t duration_s;         /* the workload's length; streams end by then */
	uint64_t interval_ms;        /* sampling interval */
	uint64_t ramp_s;             /* samples before this are flagged ramp */
	uint64_t disk_mib;           /* the data disk's size; 0: what it holds needs */
	uint64_t trace_sample;       /* trace: {sample: N}, every file of the data disk; 0: off */
	struct proto_swap swap;      /* kind SWAP_NONE: none */
	uint64_t swap_max_mib;       /* memory.swap.max of the workload's memcg */
	uint64_t swappiness;         /* vm.swappiness; PROTO_SWAPPINESS_KERNEL leaves it */
	unsigned nfiles, nstreams, ndbs;
	struct proto_file files[PROTO_MAX_FILES];
	struct proto_db dbs[PROTO_MAX_DBS];
	struct proto_stream streams[PROTO_MAX_STREAMS];
};

extern const struct proto_opt proto_job_opts[];
extern const struct proto_opt proto_file_opts[];
extern const struct proto_opt proto_db_opts[];
extern const struct proto_opt proto_stream_opts[];   /* every kind's: kind, name, file... */
extern const char *const proto_kind_names[];
extern const char *const proto_access_names[];       /* enum st_access: random's and scan's */

/* A proto_stream option row's offset, and a string option's longest value. */
#define PROTO_SOFF(m) offsetof(struct proto_stream, m)
#define PROTO_SLEN(m) (sizeof(((struct proto_stream *)0)->m) - 1)
#define PROTO_OPT_END { NULL, 0, 0, 0, 0, NULL, NULL, NULL }

/* What a kind is, beside its options: the rules of struct proto_kind's flags. */
#define PK_FILE   1u    /* reads a declared file ('file', required) */
#define PK_TRACE  2u    /* may trace that file (a stream's "trace") */
#define PK_STATUS 4u    /* its program writes its own status documents, which the agent
			 * reads each interval: its intervals may be told late */
#define PK_MEMORY 8u    /* needs nothing of the data disk: a job of such streams only
			 * may declare no files */

/*
 * A stream kind: its options (beside proto_stream_opts), what the option
 * tables cannot say, and what the host and the agent need to know of it.
 */
struct proto_kind {
	const char *name;
	const struct proto_opt *opts;
	unsigned flags;              /* PK_* */
	const char *binary;          /* the program it runs from the image; NULL: none */
	/* the stream's rules across options and the job; 0, or -1 with "w...: why" */
	int (*check)(const struct proto_job *job, struct proto_stream *s, const char *w,
		     char *err, size_t errlen);
	/* the operations it reports one by one (bit i: enum proto_op i); NULL: none */
	unsigned (*ops)(const struct proto_stream *s);
	/* how many threads count its operations; NULL: one */
	unsigned (*threads)(const struct proto_stream *s);
	/* MiB of page cache it charges outside the workload's memcg; NULL: none */
	uint64_t (*charge_mib)(const struct proto_stream *s);
};

#define X(e, id) extern const struct proto_kind proto_kind_##id;
PROTO_STREAM_KINDS(X)
#undef X
extern const struct proto_kind *const proto_kinds[KIND_COUNT];

/* A stream's threads (struct proto_kind's threads, or 1) and outside charge. */
unsigned proto_stream_threads(const struct proto_stream *st);
uint64_t proto_stream_charge_mib(const struct proto_stream *st);

/*
 * The workload part of a job (every key but run and lru_gen) from a JSON
 * object: options checked against their tables, defaults applied, file
 * references resolved. The host checks a matrix with it, the guest its job.
 * Returns 0, or -1 with "where.key: what was expected" in err.
 */
int proto_job_from_json(json_t *obj, struct proto_job *job, const char *where,
			char *err, size_t errlen);

/* The same workload as JSON (every option, defaults included). */
json_t *proto_job_to_json(const struct proto_job *job);

/*
 * What a job traces: 0 when nothing, else the sample (a power of two: one
 * page index in N of each traced file) and, in files (bit i: declared file
 * i), the files; all (1) when the cell traces the whole data disk.
 */
uint64_t proto_job_trace(const struct proto_job *job, unsigned *files, int *all);

/* Index of the declared file called name, or -1. */
int proto_job_file(const struct proto_job *job, const char *name);
/* Index of the database a ycsb stream uses (its db, or the only one), or -1. */
int proto_job_db(const struct proto_job *job, const struct proto_stream *st);

/* Set one option of a table from JSON (string, number); "where" prefixes errors. */
int proto_opt_set_json(const struct proto_opt *table, void *obj, const char *key, json_t *v,
		       const char *where, char *err, size_t errlen);

/* The operations (bit i: enum proto_op i) a stream reports on its own; 0: none. */
unsigned proto_stream_ops(const struct proto_stream *st);

/* Name of an enum option's value, for tables and logs. */
const char *proto_enum_name(const struct proto_opt *table, const void *obj, const char *opt);


/* 1 if s holds printable ASCII only (no line breaks): string options and fields. */
int proto_text_ok(const char *s);

/* n bytes at p as 2n lowercase hex digits and a NUL into out (a job's seed, its probe). */
void proto_hex(const void *p, size_t n, char *out);

/* Exactly 2n lowercase hex digits s into the n bytes at p: 0, or -1 if s is not that. */
int proto_unhex(const char *s, void *p, size_t n);

/*
 * PROTO_COUNTERS: named counters of one source, as many as the source has
 * (every /proc/vmstat key, zram's mm_stat, zswap's debugfs files, the
 * reclaim stall histogram's buckets), too many and too varied for sample
 * columns. at: what the values are (enum proto_counters_at): the values read
 * as the workload started (seq 0, sent after the first sample, before its
 * changes); what changed over interval seq (sent after its sample, keys that
 * did not change left out; a level's change may be negative); the values as
 * the workload ended (seq the last interval, sent before the summary: every
 * key's start plus its changes must give them). A source's keys may take
 * several messages; a key comes once per source, interval and kind. Stored
 * as they come (store: counters): a key's value at an interval's end is the
 * sum of its start's and changes' rows up to it.
 */
enum proto_counters_at { CA_CHANGE, CA_START, CA_END };
#define PROTO_COUNTERS_MAX     64                   /* keys a message */
#define PROTO_COUNTER_KEY_MAX  48                   /* a key and its NUL */
#define PROTO_COUNTER_ABS_MAX  (INT64_C(1) << 62)   /* |value| below this */
/*
 * The sources: X(ENUM, name, keys), keys the most distinct keys a run may
 * send of it (the host's budget; the guest reads no more): /proc/vmstat's
 * (6.12 has about 180), zram's mm_stat columns, zswap's debugfs files, the
 * stall histogram's buckets with its lost and refused counts.
 */
#define PROTO_COUNTER_SRCS(X) \
	X(CS_VMSTAT, "vmstat", 512) X(CS_ZRAM, "zram", 9) X(CS_ZSWAP, "zswap", 32) \
	X(CS_STALL, "stall", 27)

enum proto_counter_src {
#define X(e, s, keys) e,
	PROTO_COUNTER_SRCS(X)
#undef X
	CS_COUNT
};

extern const char *const proto_counter_src_names[];
extern const unsigned proto_counter_src_keys[];   /* each source's keys, as above */
/* CS_VMSTAT_KEYS...: each source's keys as constants; every source's in all */
enum {
#define X(e, s, keys) e##_KEYS = (keys),
	PROTO_COUNTER_SRCS(X)
#undef X
#define X(e, s, keys) + (keys)
	PROTO_COUNTER_KEYS_ALL = 0 PROTO_COUNTER_SRCS(X)
#undef X
};

/* Keys [a-z0-9_] and their values, in the order sent. */
struct proto_kv {
	uint64_t n;
	char key[PROTO_COUNTERS_MAX][PROTO_COUNTER_KEY_MAX];
	int64_t value[PROTO_COUNTERS_MAX];
};

struct proto_counters {
	uint64_t seq, at;              /* enum proto_counters_at */
	char src[16];                  /* proto_counter_src_names[] */
	struct proto_kv values;
};

/* 1 if key is a counter's name: 1 to PROTO_COUNTER_KEY_MAX - 1 of [a-z0-9_]. */
int proto_counter_key_ok(const char *key);

/* ---- messages ---- */

enum proto_type {
	PROTO_HELLO = 1,  /* guest: agent is up, what the kernel is */
	PROTO_JOB,        /* host: what to run */
	PROTO_SETUP,      /* guest: lru_gen read back, memcg made, files checked */
	PROTO_SAMPLE,     /* guest: one interval of the memcg and the files */
	PROTO_STREAM,     /* guest: one interval of one stream (fio's may come later) */
	PROTO_EVENT,      /* guest: a stream started, ended, finished a pass... */
	PROTO_SUMMARY,    /* guest: workload ended */
	PROTO_ERROR,      /* guest: the job cannot run; msg says why */
	PROTO_OP,         /* guest: one interval (or the total) of one operation of a stream */
	PROTO_LRU,        /* guest: one node's generations (and tiers) at an interval's end */
	PROTO_TRACE,      /* guest: sampled folios' events drained at an interval's end */
	PROTO_COUNTERS,   /* guest: one source's counters at the start or over an interval */
};

struct proto_hello {
	uint64_t proto;
	char release[PROTO_STR_MAX];   /* uname -r */
	char arch[32];                 /* uname -m */
	uint64_t page_size;
	uint64_t mem_total_kib;
	char lru_gen_caps[32];         /* /sys/kernel/mm/lru_gen/enabled, "" if absent */
	uint64_t cachestat;            /* 1 if cachestat(2) works */
	uint64_t dontcache;            /* 1 if preadv2(RWF_DONTCACHE) works */
	char fio[32];                  /* fio --version, "" if the image has none */
	/* the guest's clock (CLOCK_BOOTTIME, ms) as PID 1 started, as its
	 * modules and data disk were ready, and as it sent this; 0 when the
	 * agent is not PID 1 */
	uint64_t up_init_ms, up_ready_ms, up_hello_ms;
};

struct proto_setup {
	char lru_gen[32];              /* value read back after writing */
	/* transparent_hugepage's enabled and defrag read back (the bracketed
	 * value); "" where the kernel has no THP */
	char thp_enabled[16], thp_defrag[16];
	char residency[16];            /* "cachestat" or "mincore" */
	struct proto_u64s file_pages;  /* per declared file */
	struct proto_u64s file_ino;    /* per declared file, its inode (trace events name it) */
	char trace[PROTO_STR_MAX];     /* "" untraced; "on: ..." or "off: why" */
	/* how far the guest's wall clock was from the job's host_ms as it came
	 * (one of the two is 0), before it was stepped to it */
	uint64_t clock_behind_ms, clock_ahead_ms;
	char rng[17];                  /* 8 bytes of getrandom(2) after the reseed, hex */
	/* the swap the guest has as the workload starts, from /proc/swaps and
	 * the device ("zram lz4 96 MiB"; "" none), and vm.swappiness read back */
	char swap[64];
	uint64_t swappiness;
	/* the reclaim stall tracing: "on: ..." or "off: why" */
	char stalls[PROTO_STR_MAX];
	/* every size's multi-size THP enabled read back after writing the job's,
	 * "16K:never 32K:never 64K:always ..." (common/mthp.h); "" where the
	 * kernel has no hugepages-<N>kB (before 6.8, or without THP) */
	char mthp[MTHP_TEXT_MAX];
};

/* What an event marks; names as stored. */
#define PROTO_EVENT_KINDS(X) \
	X(EV_START, "start") X(EV_END, "end") X(EV_PASS_START, "pass_start") \
	X(EV_PASS_END, "pass_end") X(EV_CALIBRATED, "calibrated") X(EV_TOTAL, "total") \
	X(EV_READY, "ready") X(EV_FALLBACK, "fallback") X(EV_MADVISE, "madvise")

enum proto_event_kind {
#define X(e, s) e,
	PROTO_EVENT_KINDS(X)
#undef X
	EV_COUNT
};

extern const char *const proto_event_names[];

struct proto_event {
	uint64_t t_ms;
	uint64_t stream;
	char kind[16];                 /* proto_event_names[] */
	uint64_t pass;                 /* pass number, from 1 (scan) */
	uint64_t value;                /* calibrated: the miss threshold in ns;
	                                  total: fio's own final count of I/Os;
	                                  ready: what the set-up made (a reclaim
	                                  storm: KiB charged to its memcgs);
	                                  fallback: 0 (an option the kernel lacks
	                                  was left out) */
	struct proto_u64s resident;    /* per declared file at that moment */
};

struct proto_summary {
	uint64_t duration_ms;
	uint64_t samples;
	/* multi-size THP's counters over the workload, per size the setup read
	 * back as other than never and whose kernel counts it (6.10+: hugepages-
	 * <N>kB/stats): its size in KiB, ascending, its anonymous faults that got
	 * a folio of that size (anon_fault_alloc) and its folios swapped out
	 * whole (swpout); empty arrays where there are none */
	struct proto_u64s mthp_kib, mthp_anon_fault_alloc, mthp_swpout;
};
_Static_assert(MTHP_MAX <= PROTO_MAX_FILES, "a summary's multi-size THP arrays fit a proto_u64s");

struct proto_msg {
	enum proto_type type;
	union {
		struct proto_hello hello;
		struct proto_job job;
		struct proto_setup setup;
		struct proto_sample sample;
		struct proto_stream_sample stream;
		struct proto_event event;
		struct proto_summary summary;
		struct proto_op_sample op;
		struct proto_lru lru;
		struct proto_trace trace;
		struct proto_counters counters;
		char error[PROTO_ERR_MAX];
	} u;
};

/*
 * Parse one line (without its newline). Strict: the object must have exactly
 * the fields of its type, each of the right JSON type and in range; strings
 * must fit and hold printable ASCII only. Returns 0, or -1 with a reason in err.
 */
int proto_parse(const char *line, size_t len, struct proto_msg *out,
		char *err, size_t errlen);

/*
 * Format a message as one line ending in '\n' into buf. Returns the length,
 * or -1 if it does not fit in buflen or PROTO_LINE_MAX.
 */
int proto_format(const struct proto_msg *m, char *buf, size_t buflen);

#endif
