/* stream.h -- what a workload stream is to the agent: a run() in the workload
 * process (inside the memcg), counters in shared memory, events down a pipe. */
#ifndef STREAM_H
#define STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

#define STREAM_MAX_THREADS 256

/*
 * Latency histogram: log-linear buckets, 2^LAT_SUB_BITS per power of two, so a
 * percentile is within 1/8 (12.5 %) of the truth; covers every uint64 of ns.
 */
#define LAT_SUB_BITS 3
#define LAT_BUCKETS  ((64 - LAT_SUB_BITS + 1) << LAT_SUB_BITS)   /* 496: all of uint64 */

/* The bucket of a latency of ns. */
unsigned lat_bucket(uint64_t ns);
/* The lower bound of bucket b, in ns. */
uint64_t lat_bucket_floor(unsigned b);
/* The p-th percentile (0 < p <= 100) of a histogram; 0 if it is empty. */
uint64_t lat_percentile(const uint64_t *hist, double p);
/* The upper bound of the highest non-empty bucket, in ns; 0 if it is empty. */
uint64_t lat_max(const uint64_t *hist);

/* One thread's counters, alone on its cache lines; written by that thread only. */
struct stream_thread {
	_Atomic uint64_t ops, bytes, misses;
	_Atomic uint64_t hist[LAT_BUCKETS];
} __attribute__((aligned(64)));

/*
 * One thread's counters for one operation, for streams that report their
 * operations one by one (proto_stream_ops() != 0); written by that thread only.
 */
struct stream_opc {
	_Atomic uint64_t ops, errors, eagain, records, sum_ns;
	_Atomic uint64_t hist[LAT_BUCKETS];
} __attribute__((aligned(64)));

enum stream_state { ST_WAITING, ST_RUNNING, ST_DONE, ST_FAILED };

/* One stream's part of the shared region. */
struct stream_shared {
	_Atomic int state;              /* enum stream_state */
	_Atomic int err_set;            /* err is complete (release/acquire) */
	_Atomic uint64_t miss_ns;       /* threshold in use (random streams) */
	_Atomic int fio_pid;            /* fio streams: the fio process */
	_Atomic uint64_t started_ns;    /* fio streams: when fio was started (before ST_RUNNING) */
	char err[PROTO_ERR_MAX];
	unsigned nthreads;
	struct stream_thread *th;       /* nthreads entries, in the shared region */
	unsigned ops;                   /* proto_stream_ops() of the stream */
	struct stream_opc *opc;         /* nthreads x OP_COUNT entries, or NULL */
};

/*
 * The shared region: made MAP_SHARED|MAP_ANONYMOUS by the agent before it
 * forks the workload process, so both see the same counters.
 */
struct stream_region {
	_Atomic int stop;               /* the agent says: end every stream now */
	uint64_t t0_ns;                 /* CLOCK_MONOTONIC start of the workload */
	unsigned nstreams;
	struct stream_shared s[PROTO_MAX_STREAMS];
};

/* An event as it goes down the pipe from the workload process to the agent. */
struct stream_event {
	uint32_t stream;
	uint32_t kind;                  /* enum proto_event_kind */
	uint32_t pass;
	uint32_t pad;
	uint64_t value;
	uint64_t t_ns;                  /* CLOCK_MONOTONIC when it happened */
};

/* What a stream's run() gets, in the workload process. */
struct stream_ctx {
	const struct proto_job *job;
	const struct proto_stream *st;
	unsigned index;                 /* into job->streams */
	const char *data_dir;           /* where the declared files are */
	const char *memcg;              /* the workload's memcg directory */
	char path[512];                 /* data_dir/<st->file>, "" for fio */
	uint64_t file_bytes;            /* size of that file as declared */
	struct stream_region *reg;
	struct stream_shared *sh;       /* &reg->s[index] */
	int event_fd;                   /* write end of the event pipe */
	unsigned interval_ms;
};

/* Post an event (never blocks for long: events are rare and small). */
void stream_event(struct stream_ctx *c, unsigned kind, unsigned pass, uint64_t value);

/* Record why the stream failed (first reason wins), mark it failed. Returns -1. */
int stream_fail(struct stream_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Count one operation of thread t: how long it took, how it ended (0, EAGAIN,
 * or another errno), and what it returned (records, bytes). Also counted in
 * the thread's totals (ops, latency histogram), failed or not.
 */
void stream_op_done(struct stream_ctx *c, unsigned t, unsigned op, uint64_t ns, int err,
		    uint64_t records);

/*
 * The stream's n threads, each fn(arg, index), started between its start
 * and end events and all joined; a thread that cannot start sets *quit so
 * the others stop. 0, or -1 after stream_fail() (or with *quit set by a
 * thread, which said why).
 */
int stream_threads(struct stream_ctx *c, unsigned n, void (*fn)(void *arg, unsigned idx),
		   void *arg, _Atomic int *quit);

/* 1 once the agent asked every stream to stop, or this stream's time is up. */
int stream_should_stop(const struct stream_ctx *c);

/* CLOCK_MONOTONIC now, ns; and sleep until an absolute time (ns), waking on stop. */
uint64_t stream_now_ns(void);
void stream_sleep_until(const struct stream_ctx *c, uint64_t t_ns);

/* When the stream is due to start, and to end (UINT64_MAX: with the workload). */
uint64_t stream_start_ns(const struct stream_ctx *c);
uint64_t stream_end_ns(const struct stream_ctx *c);

/* Seconds since the workload's start, as a stream's own clock. */
double stream_elapsed_s(const struct stream_ctx *c);

/*
 * Each kind, in the workload process: run the stream from its start to its
 * end (its duration, its passes, or the agent's stop). Counters go to
 * c->sh->th[...]; returns 0, or -1 after stream_fail().
 */
#define X(e, id) int stream_##id##_run(struct stream_ctx *c);
PROTO_STREAM_KINDS(X)
#undef X

/*
 * fio streams, in the agent: fio writes its cumulative status documents to a
 * file that the agent reads each interval. An interval is told once fio's
 * documents, by their own timestamps, reach its end: fio's work between two
 * documents is spread over the time between them, so a late document gives
 * no empty interval followed by a double one. An interval may thus be told
 * some intervals late; one still untold FIO_PENDING_MAX intervals later is
 * given up (missing, never sent as 0).
 */
#define FIO_PENDING_MAX 64
struct fio_watch;
/* t0_ns: the workload's start (CLOCK_MONOTONIC), the origin of interval times. */
int stream_fio_watch(const struct proto_job *job, unsigned index, uint64_t t0_ns,
		     struct fio_watch **ret, char *err, size_t errlen);
/* Interval seq, [t0_ms, t1_ms) of workload time, is over: to be told. */
void stream_fio_interval(struct fio_watch *fw, uint64_t seq, uint64_t t0_ms, uint64_t t1_ms);
/*
 * The oldest interval that can be told now into out (seq, stream, counts):
 * 1; 0 when none can be yet; -1 with a reason in err when fio's output is
 * not valid. sh: the stream's shared state (fio started, fio done).
 */
int stream_fio_next(struct fio_watch *fw, const struct stream_shared *sh,
		    struct proto_stream_sample *out, char *err, size_t errlen);
void stream_fio_unwatch(struct fio_watch *fw);
/* fio's own cumulative count of I/Os (read + write) in its last document. */
uint64_t stream_fio_total(const struct fio_watch *fw);
/* The status file of stream index (the workload process writes, the agent reads). */
void stream_fio_output(unsigned index, char *buf, size_t len);

#endif
