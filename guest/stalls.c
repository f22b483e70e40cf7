/* stalls.c -- reclaim stalls as the kernel's vmscan tracepoints mark them: a task's
 * direct (mm_vmscan_direct_reclaim_*) or memcg (mm_vmscan_memcg_reclaim_*) reclaim
 * from begin to end, per task, into a log2 histogram of µs. */
#define _GNU_SOURCE
#include "stalls.h"
#include "tracefs.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define BUFFER_KB "512"   /* per CPU: many intervals of a squeezed memcg's reclaims */

/*
 * The events, begin then end of each kind. A memcg at its limit reclaims in
 * the charging task (memcg_reclaim); the page allocator short of free pages
 * does so too (direct_reclaim). kswapd's reclaim is neither: no task waits.
 */
static const char *const events[] = {
	"mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end",
	"mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end",
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

void stalls_init(struct stalls *s)
{
	memset(s, 0, sizeof(*s));
	s->pipe_fd = -1;
	fmtcut(s->status, sizeof(s->status), "off: not started");
}

/* Event i enabled in the instance: 0, or -1 with errno. */
static int event_on(struct stalls *s, size_t i)
{
	char path[256];

	fmtcut(path, sizeof(path), "%s/events/vmscan/%s/enable", s->path, events[i]);
	return tracefs_write(path, "1", 0);
}

void stalls_open(struct stalls *s)
{
	char path[256];
	size_t i;

	if (tracefs_instance("stalls", BUFFER_KB, s->path, sizeof(s->path)) < 0) {
		fmtcut(s->status, sizeof(s->status), "off: no tracefs instance (%s)", strerror(errno));
		return;
	}
	for (i = 0; i < NEVENTS; i++)
		if (event_on(s, i) < 0) {
			fmtcut(s->status, sizeof(s->status), "off: no event vmscan/%s (%s)", events[i],
			       strerror(errno));
			return;
		}
	fmtcut(path, sizeof(path), "%s/trace_pipe", s->path);
	if ((s->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		fmtcut(s->status, sizeof(s->status), "off: %s: %s", path, strerror(errno));
		return;
	}
	s->lost0 = tracefs_lost(s->path);   /* what was lost before is not ours */
	fmtcut(s->status, sizeof(s->status), "on: direct and memcg reclaim, begin to end");
}

void stalls_bucket_key(unsigned k, char *out, size_t len)
{
	fmtcut(out, len, "le_%lluus", 1ULL << k);
}

/* The histogram's bucket of a stall of us µs: the least k with us <= 2^k. */
static unsigned bucket_of(uint64_t us)
{
	unsigned k = 0;

	while (k + 1 < STALL_BUCKETS && us > (1ULL << k))
		k++;
	return k;
}

/* The open begin of pid, or -1. */
static int find_open(const struct stalls *s, uint64_t pid)
{
	unsigned i;

	for (i = 0; i < s->nopen; i++)
		if (s->open[i].pid == pid)
			return (int)i;
	return -1;
}

/* A begin: pid's stall starts (a begin twice: the first's end was lost). */
static void begin(struct stalls *s, uint64_t pid, uint64_t ts)
{
	int i = find_open(s, pid);

	if (i >= 0) {
		s->refused++;
		s->open[i].ts_ns = ts;
	} else if (s->nopen < STALL_OPEN_MAX) {
		s->open[s->nopen].pid = pid;
		s->open[s->nopen++].ts_ns = ts;
	} else {
		s->refused++;
	}
}

/* An end: pid's stall, if its begin was seen (one that began before we looked was not). */
static void end(struct stalls *s, uint64_t pid, uint64_t ts)
{
	int i = find_open(s, pid);
	uint64_t us;

	if (i < 0)
		return;
	if (ts < s->open[i].ts_ns) {
		s->refused++;
	} else {
		us = (ts - s->open[i].ts_ns + 999) / 1000;
		s->hist[bucket_of(us)]++;
		s->count++;
		s->sum_us += us;
	}
	s->open[i] = s->open[--s->nopen];
}

void stalls_line(struct stalls *s, const char *line, size_t len)
{
	struct tracefs_head h;
	size_t i;
	int rc = tracefs_line_head(line, len, &h);

	if (rc) {
		s->refused += rc < 0;
		return;
	}
	for (i = 0; i < NEVENTS; i++)
		if (strlen(events[i]) == h.name_len && !memcmp(h.name, events[i], h.name_len))
			break;
	if (i == NEVENTS)
		s->refused++;
	else if (i % 2 == 0)
		begin(s, h.pid, h.ts_ns);
	else
		end(s, h.pid, h.ts_ns);
}

/* stalls_line as a tracefs_line_fn. */
static int take_line(void *arg, const char *line, size_t len)
{
	stalls_line(arg, line, len);
	return 0;
}

int stalls_drain(struct stalls *s, char *err, size_t errlen)
{
	ssize_t n;

	if (s->pipe_fd < 0)
		return 0;
	while ((n = read(s->pipe_fd, s->buf + s->have, sizeof(s->buf) - s->have)) > 0) {
		s->have += (size_t)n;
		tracefs_lines(s->buf, &s->have, sizeof(s->buf), take_line, s, &s->refused);
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return errorfn(err, errlen, "stalls: trace_pipe: %s", strerror(errno));
	n = (ssize_t)tracefs_lost(s->path);
	s->lost = (uint64_t)n > s->lost0 ? (uint64_t)n - s->lost0 : 0;
	return 0;
}

void stalls_close(struct stalls *s)
{
	char path[256];
	size_t i;

	if (s->pipe_fd < 0)
		return;
	close(s->pipe_fd);
	s->pipe_fd = -1;
	for (i = 0; i < NEVENTS; i++) {
		fmtcut(path, sizeof(path), "%s/events/vmscan/%s/enable", s->path, events[i]);
		tracefs_write(path, "0", 0);
	}
}
