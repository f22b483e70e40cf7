/* fiostat.h -- fio's --status-interval json+ output (concatenated cumulative
 * documents) turned into per-interval deltas: ios, bytes, latency percentiles. */
#ifndef FIOSTAT_H
#define FIOSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIOSTAT_DOC_MAX   (8u << 20)  /* a bigger document is refused */
#define FIOSTAT_BINS      1856        /* fio's FIO_IO_U_PLAT_NR: 29 groups of 64 */
#define FIOSTAT_TEXT_MAX  256         /* kept of the last non-JSON line */

/* Cumulative totals of one direction, summed over the document's jobs. */
struct fiostat_dir {
	uint64_t ios;
	uint64_t bytes;
	uint64_t bins[FIOSTAT_BINS];   /* clat_ns.bins, by fio's bucket index */
};

/*
 * Parser state. About 90 KB: allocate it (or make it static), do not put it on
 * a small thread stack. No field is for callers except the text ones.
 */
struct fiostat {
	char *buf;                     /* the document being received */
	size_t len, cap;
	unsigned state;                /* between documents, in one, in a text line */
	uint32_t depth;                /* open { and [ in the document */
	bool in_str, esc, oversize;
	struct fiostat_dir last[2];    /* latest document: [0] read, [1] write */
	struct fiostat_dir acc[2];     /* pending delta = last + acc (mod 2^64) */
	struct fiostat_dir doc[2];     /* the document being parsed */
	uint64_t work[FIOSTAT_BINS];   /* fiostat_take's delta histogram */
	uint64_t docs;                 /* documents since the last take */
	uint64_t resets;               /* times a counter went backwards (ramp_time) */
	uint64_t text_lines;           /* non-JSON lines skipped between documents */
	char last_text[FIOSTAT_TEXT_MAX];  /* the last of them (fio's messages) */
};

/* One interval: deltas since the previous fiostat_take. */
struct fio_interval {
	uint64_t read_ios, write_ios;
	uint64_t read_bytes, write_bytes;
	uint64_t lat_p50_ns, lat_p99_ns;   /* of read+write completions, 0 if none */
	uint64_t lat_max_ns;               /* highest bucket with a completion */
	uint64_t docs;                     /* 0: fio printed nothing new */
};

void fiostat_init(struct fiostat *s);
void fiostat_release(struct fiostat *s);

/*
 * Feed any chunk of fio's output file. Whitespace between documents is skipped;
 * a line that does not start with '{' between documents (fio's own messages)
 * is skipped and kept in last_text. Each complete document must be a JSON
 * object with a "jobs" array whose "read" and "write" objects hold
 * non-negative integer io_bytes and total_ios (clat_ns.bins optional).
 * Returns 0, or -1 with the first problem in err: a document that is not valid
 * (or larger than FIOSTAT_DOC_MAX) is dropped, and feeding may go on.
 */
int fiostat_feed(struct fiostat *s, const char *buf, size_t len, char *err, size_t errlen);

/* At the end of fio's output: -1 if a document was left unfinished (truncated). */
int fiostat_finish(const struct fiostat *s, char *err, size_t errlen);

/* The deltas since the previous take (or since init). Returns 0. */
int fiostat_take(struct fiostat *s, struct fio_interval *out);

/* fio's latency buckets: the bucket a value (ns) falls in, and its value. */
unsigned fiostat_bin_index(uint64_t ns);
uint64_t fiostat_bin_value(unsigned idx);

/* Value of the first bucket at which at least permille/1000 of the count is
 * reached (fio's percentile rule); 0 for an empty histogram. */
uint64_t fiostat_percentile(const uint64_t bins[FIOSTAT_BINS], unsigned permille);

#endif
