/* tracefs.h -- what the agent's tracing shares: tracefs mounted, an instance of its
 * own (bounded buffer, monotonic clock), its lost events, and a trace_pipe line's head. */
#ifndef TRACEFS_H
#define TRACEFS_H

#include <stddef.h>
#include <stdint.h>

#define TRACEFS "/sys/kernel/tracing"

/* Write text to a tracefs file (appended, or replacing it): 0, or -1 with errno. */
int tracefs_write(const char *path, const char *text, int append);

/*
 * tracefs mounted if it is not, and instance name made (or kept) with a
 * buffer of kb KiB per CPU and the monotonic clock: 0, or -1 with errno.
 * Its path into path.
 */
int tracefs_instance(const char *name, const char *kb, char *path, size_t len);

/* The instance's count of events it could not keep: every CPU's overrun and drops. */
uint64_t tracefs_lost(const char *instance_path);

/* A decimal or 0x number ending at a space or at end; *p moves past it. */
int tracefs_number(const char **p, const char *end, uint64_t *out);

/* What begins every event line of trace_pipe: "TASK-PID [CPU] FLAGS SECS.USECS: NAME: ". */
struct tracefs_head {
	uint64_t pid, ts_ns;
	const char *name;          /* the event's name, name_len bytes */
	size_t name_len;
	const char *rest;          /* from the ':' after the name to the line's end */
};

/*
 * A trace_pipe line's head (no newline): 0, 1 when it is not an event line
 * (a comment, a CPU's lost-events note), -1 when it looks like one and is
 * malformed.
 */
int tracefs_line_head(const char *line, size_t len, struct tracefs_head *h);

/* Called with each complete line (no newline): 0, or -1 to stop. */
typedef int tracefs_line_fn(void *arg, const char *line, size_t len);

/*
 * The complete lines in buf[0, *have) through fn; what is left is a line's
 * start, moved to buf's front. A buffer of cap bytes with no newline (a
 * line longer than any event's) is dropped and counted in *refused.
 * 0, or fn's -1.
 */
int tracefs_lines(char *buf, size_t *have, size_t cap, tracefs_line_fn *fn, void *arg,
		  uint64_t *refused);

#endif
