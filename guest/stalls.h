/* stalls.h -- reclaim stalls from the vmscan tracepoints: each task's time from a
 * direct or memcg reclaim's begin to its end, counted in a log2 histogram of µs. */
#ifndef STALLS_H
#define STALLS_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

#define STALL_BUCKETS  25    /* bucket k: stalls of at most 2^k µs; the last also longer */
#define STALL_OPEN_MAX 256   /* tasks in reclaim at one time */

struct stalls {
	int pipe_fd;                    /* -1: off */
	char path[128];                 /* the instance */
	char status[PROTO_STR_MAX];     /* "on: ..." or "off: why" */
	struct {
		uint64_t pid, ts_ns;
	} open[STALL_OPEN_MAX];         /* begins not yet ended */
	unsigned nopen;
	/* since the start, cumulative: the histogram, how many ended, their µs; events
	 * the kernel could not keep; lines not understood or pairs that could not be */
	uint64_t hist[STALL_BUCKETS], count, sum_us, lost, refused;
	uint64_t lost0;                 /* the instance's lost count as it opened */
	char buf[16384];
	size_t have;
};

/* s off, nothing open: safe to stalls_close(). */
void stalls_init(struct stalls *s);

/*
 * The agent's "stalls" trace instance with the four vmscan events on; off
 * (with why in s->status) where the kernel has no tracefs or no such
 * events: the run goes on without.
 */
void stalls_open(struct stalls *s);

/* One trace_pipe line (no newline) into the counts. */
void stalls_line(struct stalls *s, const char *line, size_t len);

/* Every line in the trace pipe now into the counts: 0, or -1 with err. */
int stalls_drain(struct stalls *s, char *err, size_t errlen);

/* Bucket k's name as a counter ("le_64us"). */
void stalls_bucket_key(unsigned k, char *out, size_t len);

/* Turn the events off and close the pipe. */
void stalls_close(struct stalls *s);

#endif
