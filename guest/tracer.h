/* tracer.h -- sampled folio events through tracefs (trace: {sample: N}): dynamic
 * events on the LRU and page-cache paths, filtered in the kernel, drained every interval. */
#ifndef TRACER_H
#define TRACER_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

/*
 * Where a kernel keeps a folio's generation, measured, never guessed: the
 * folio->flags bits of LRU_GEN_PGOFF/WIDTH, PG_active, and the offset of the
 * file type's min_seq in struct lruvec (tests/flag_layout.sh prints them
 * from a kernel's headers). A kernel none matches traces without adds.
 */
struct tracer_layout {
	const char *prefix, *suffix, *arch;   /* release starts, ends with; uname -m */
	unsigned gen_pgoff, gen_width, pg_active;
	unsigned min_seq_file_off;
};

/* The struct offsets the probes need for this kernel release and arch; NULL if it is not known. */
const struct tracer_layout *tracer_layout_find(const char *release, const char *arch);

/* One line of trace_pipe, as parsed: kind, the trace clock, the folio. */
struct tracer_line {
	unsigned kind;                        /* enum proto_trace_kind */
	uint64_t ts_ns, dev, ino, index;
	uint64_t flags, max_seq, min_seq;     /* add only */
};

/*
 * Parse one line (no newline) the tracer's probes print: 0, 1 when it is
 * not one of ours (a comment, a lost-events note), -1 when it claims to be
 * and is malformed (counted as refused, never sent).
 */
int tracer_parse_line(const char *line, size_t len, struct tracer_line *out);

/* What to trace, resolved in the guest. */
struct tracer_conf {
	uint64_t sample;                      /* power of two */
	uint64_t dev;                         /* the data disk's s_dev, kernel encoding */
	unsigned nfiles;                      /* the declared files: inode, size in pages */
	uint64_t ino[PROTO_MAX_FILES], pages[PROTO_MAX_FILES];
	unsigned traced;                      /* bit i: file i is traced; 0: every file of dev */
	const struct tracer_layout *layout;   /* NULL: no add probe */
};

/*
 * An add's place from its flags: 0 with place, gen and window set in out
 * (kind, t_ms, ino and page too), -1 when the generation does not decode.
 */
int tracer_decode(const struct tracer_conf *c, const struct tracer_line *l, uint64_t t_ms,
		  struct proto_trace *out, size_t i);

/* The probes' dynamic_events lines for a layout (NULL: without the add probe). */
int tracer_probe_text(const struct tracer_layout *l, char *buf, size_t len);

struct tracer {
	struct tracer_conf conf;
	int pipe_fd;
	char status[PROTO_STR_MAX];
	char buf[65536];
	size_t have;
	uint64_t refused, lost, last_ms;
};

/*
 * Define the probes, make the harness instance (its own bounded buffer,
 * the monotonic clock), filter and enable every probe the kernel took.
 * Returns 0 with t->status "on: ..." or "off: why" (off is not an error:
 * the run goes on untraced), -1 with err only for what must stop the run.
 */
int tracer_open(struct tracer *t, const struct tracer_conf *c, char *err, size_t errlen);

/* Whether tracer_open left it tracing. */
int tracer_on(const struct tracer *t);

/*
 * Everything in the buffer now, as PROTO_TRACE messages for interval seq
 * (at least one), t_ms from t0_ns on CLOCK_MONOTONIC. Returns 0 or -1.
 */
int tracer_drain(struct tracer *t, uint64_t seq, uint64_t t0_ns,
		 int (*send)(void *arg, const struct proto_msg *m), void *arg,
		 char *err, size_t errlen);

/* Stop reading the trace pipe and turn the instance's tracing off. */
void tracer_close(struct tracer *t);

#endif
