/* fiostat.h -- fio's --status-interval json+ output (concatenated cumulative
 * documents, each stamped with fio's clock) turned into any interval's ios,
 * bytes and latency percentiles, attributed by the documents' own times. */
#ifndef FIOSTAT_H
#define FIOSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIOSTAT_DOC_MAX   (8u << 20)  /* a bigger document is refused */
#define FIOSTAT_BINS      1856        /* fio's FIO_IO_U_PLAT_NR: 29 groups of 64 */
#define FIOSTAT_TEXT_MAX  256         /* kept of the last non-JSON line */
#define FIOSTAT_SEGS      8           /* spans kept between documents; more are merged */
#define FIOSTAT_T_MAX     (INT64_C(1) << 61)   /* times beyond +-this (ms) are clamped */

/* Cumulative totals of one direction, summed over the document's jobs. */
struct fiostat_dir {
	uint64_t ios;
	uint64_t bytes;
	uint64_t bins[FIOSTAT_BINS];   /* clat_ns.bins, by fio's bucket index */
};

/* The counters fio keeps, as one vector: read ios, write ios, read bytes, write bytes. */
enum { FS_RIOS, FS_WIOS, FS_RBYTES, FS_WBYTES, FS_NVAL };

/*
 * What fio did between two of its documents (or its start and its first):
 * the counters at each end, summed over fio's ramp_time resets, so they only
 * grow; and the completions in between, read and write together.
 */
struct fiostat_seg {
	int64_t t0_ms, t1_ms;          /* workload time */
	uint64_t docs;                 /* documents dated t1_ms (more once spans merged) */
	uint64_t v0[FS_NVAL], v1[FS_NVAL];
	uint64_t bins[FIOSTAT_BINS];
};

/*
 * Parser state. About 200 KB: allocate it, do not put it on a thread's
 * stack. No field is for callers except the counts and the text ones.
 */
struct fiostat {
	char *buf;                     /* the document being received */
	size_t len, cap;
	unsigned state;                /* between documents, in one, in a text line */
	uint32_t depth;                /* open { and [ in the document */
	bool in_str, esc, oversize;
	int64_t epoch_ms;              /* fio's timestamp_ms at workload time 0 */
	bool started, ended;           /* fiostat_start, fiostat_end called */
	int64_t start_ms;              /* when fio was started */
	struct fiostat_dir last[2];    /* latest document: [0] read, [1] write */
	struct fiostat_dir doc[2];     /* the document being parsed */
	int64_t doc_ms;                /* its time */
	uint64_t doc_io_ms;            /* its jobs' longest "runtime": ms of I/O so far */
	int64_t last_ms;               /* the latest document's time (or fio's start) */
	int64_t told_ms;               /* the end of the last slice returned */
	uint64_t v[FS_NVAL];           /* counters at last_ms, resets summed */
	struct fiostat_seg seg[FIOSTAT_SEGS];   /* oldest first, none before the slices */
	unsigned nseg;
	double work[FIOSTAT_BINS];     /* a slice's weighted histogram */
	uint64_t docs;                 /* documents so far */
	uint64_t resets;               /* times a counter went backwards (ramp_time) */
	uint64_t text_lines;           /* non-JSON lines skipped between documents */
	char last_text[FIOSTAT_TEXT_MAX];  /* the last of them (fio's messages) */
};

/* One interval of fio's work. */
struct fio_interval {
	uint64_t read_ios, write_ios;
	uint64_t read_bytes, write_bytes;
	uint64_t lat_p50_ns, lat_p99_ns;   /* of read+write completions, 0 if none */
	uint64_t lat_max_ns;               /* highest bucket with a completion */
	uint64_t docs;                     /* documents stamped inside the interval */
	int running;                       /* fio ran during some of it */
};

/*
 * epoch_ms: the value of fio's clock (gettimeofday, the "timestamp_ms" of its
 * documents) at workload time 0; every time below is workload time, ms,
 * within +-FIOSTAT_T_MAX.
 */
void fiostat_init(struct fiostat *s, int64_t epoch_ms);
void fiostat_release(struct fiostat *s);

/*
 * fio was started at t_ms: it had done nothing before, so its first document
 * counts from here. Documents fed before it are dated no earlier than it.
 */
void fiostat_start(struct fiostat *s, int64_t t_ms);

/*
 * Feed any chunk of fio's output file. Whitespace between documents is skipped;
 * a line that does not start with '{' between documents (fio's own messages)
 * is skipped and kept in last_text. Each complete document must be a JSON
 * object with a non-negative integer "timestamp_ms" and a "jobs" array whose
 * "read" and "write" objects hold non-negative integer io_bytes and total_ios
 * (clat_ns.bins and runtime optional). A document dated before the one before it (or
 * inside a slice already returned) counts just after. Returns 0, or -1 with the first problem in err: a
 * document that is not valid (or larger than FIOSTAT_DOC_MAX) is dropped, and
 * feeding may go on.
 */
int fiostat_feed(struct fiostat *s, const char *buf, size_t len, char *err, size_t errlen);

/* At the end of fio's output: -1 if a document was left unfinished (truncated). */
int fiostat_finish(const struct fiostat *s, char *err, size_t errlen);

/* fio has exited and all its output was fed: after its last document it did nothing. */
void fiostat_end(struct fiostat *s);

/*
 * What fio did in [t0_ms, t1_ms): counters at a time between two documents
 * are interpolated linearly (a late document's work is spread over the
 * intervals it covers), so consecutive slices add up exactly to the
 * documents' totals; percentiles are of the covered spans' histograms,
 * weighted by overlap. Returns 1 with out filled; 0 while fio's documents do
 * not reach t1_ms yet (ask again later). Slices must be asked in time order;
 * what lies before t1_ms is forgotten once one is returned.
 */
int fiostat_slice(struct fiostat *s, int64_t t0_ms, int64_t t1_ms, struct fio_interval *out);

/* fio's own totals in its latest document (read and write ios). */
uint64_t fiostat_total_ios(const struct fiostat *s);

/* fio's latency buckets: the bucket a value (ns) falls in, and its value. */
unsigned fiostat_bin_index(uint64_t ns);
uint64_t fiostat_bin_value(unsigned idx);

/* Value of the first bucket at which at least permille/1000 of the (weighted)
 * count is reached (fio's percentile rule); 0 for an empty histogram. */
uint64_t fiostat_percentile(const double bins[FIOSTAT_BINS], unsigned permille);

#endif
