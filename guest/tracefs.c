/* tracefs.c -- tracefs for the agent's tracers (tracer.c's sampled folios, stalls.c's
 * reclaim stalls): its mount, an instance each, lost events, and trace_pipe's line heads. */
#define _GNU_SOURCE
#include "tracefs.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int tracefs_write(const char *path, const char *text, int append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* tracefs mounted unless its instances directory is writable already; 0 once it is. */
static int mount_tracefs(void)
{
	if (access(TRACEFS "/instances", W_OK) == 0)
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -1;
	return access(TRACEFS "/instances", W_OK);
}

int tracefs_instance(const char *name, const char *kb, char *path, size_t len)
{
	char file[256];

	if (mount_tracefs() < 0)
		return -1;
	if (fmtbuf(path, len, TRACEFS "/instances/%s", name) < 0)
		return errno = ENAMETOOLONG, -1;
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	fmtcut(file, sizeof(file), "%s/buffer_size_kb", path);
	if (tracefs_write(file, kb, 0) < 0)
		return -1;
	fmtcut(file, sizeof(file), "%s/trace_clock", path);
	return tracefs_write(file, "mono", 0);
}

uint64_t tracefs_lost(const char *instance_path)
{
	char path[256], buf[1024];
	uint64_t total = 0, v;
	const char *p;
	ssize_t n;
	int cpu, fd;

	for (cpu = 0; cpu < 1024; cpu++) {
		fmtcut(path, sizeof(path), "%s/per_cpu/cpu%d/stats", instance_path, cpu);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if ((p = strstr(buf, "overrun: ")) && sscanf(p + 9, "%" SCNu64, &v) == 1)
			total += v;
		if ((p = strstr(buf, "dropped events: ")) && sscanf(p + 16, "%" SCNu64, &v) == 1)
			total += v;
	}
	return total;
}

int tracefs_number(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	int base = 10;
	uint64_t v = 0, d;

	if (end - s > 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		s += 2;
	}
	if (s >= end || *s == ' ')
		return -1;
	for (; s < end && *s != ' '; s++) {
		if (*s >= '0' && *s <= '9')
			d = (uint64_t)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (uint64_t)(*s - 'a' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + d;
	}
	*p = s;
	*out = v;
	return 0;
}

/* "SECS.USECS: " as the trace clock prints it; *p moves past it. */
static int timestamp(const char **p, const char *end, uint64_t *ns)
{
	const char *s = *p, *dot = memchr(s, '.', (size_t)(end - s));
	uint64_t sec, usec;

	if (!dot || dot - s > 12 || end - dot < 9 || dot[7] != ':' || dot[8] != ' ')
		return -1;
	if (tracefs_number(&s, dot, &sec) < 0 || s != dot)
		return -1;
	s = dot + 1;
	if (tracefs_number(&s, dot + 7, &usec) < 0 || s != dot + 7)
		return -1;
	*ns = sec * 1000000000u + usec * 1000u;
	*p = dot + 9;
	return 0;
}

/*
 * After "TASK-PID [CPU] FLAGS ": the first " [digits] " ends the task's name
 * (which may hold anything); its '[' into *bracket.
 */
static const char *after_cpu(const char *s, const char *end, const char **bracket)
{
	const char *b;

	for (b = s; (b = memchr(b, '[', (size_t)(end - b))); b++) {
		const char *q = b + 1;

		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > b + 1 && q + 1 < end && q[0] == ']' && q[1] == ' ' && b > s && b[-1] == ' ') {
			*bracket = b;
			return q + 2;
		}
	}
	return NULL;
}

/* The PID that ends "TASK-PID" before the spaces ahead of bracket; -1 if none. */
static int task_pid(const char *s, const char *bracket, uint64_t *pid)
{
	const char *e = bracket, *d;

	while (e > s && e[-1] == ' ')
		e--;
	for (d = e; d > s && d[-1] >= '0' && d[-1] <= '9'; d--)
		;
	if (d == e || e - d > 10 || d == s || d[-1] != '-')
		return -1;
	return tracefs_number(&d, e, pid) < 0 || d != e ? -1 : 0;
}

int tracefs_line_head(const char *line, size_t len, struct tracefs_head *h)
{
	const char *end = line + len, *bracket = NULL, *p = after_cpu(line, end, &bracket), *colon;

	if (len && line[0] == '#')
		return 1;
	if (!p || !(p = memchr(p, ' ', (size_t)(end - p))))
		return 1;                        /* not an event line: CPU lost-events notes */
	while (p < end && *p == ' ')
		p++;
	if (timestamp(&p, end, &h->ts_ns) < 0 || task_pid(line, bracket, &h->pid) < 0)
		return -1;
	if (!(colon = memchr(p, ':', (size_t)(end - p))))
		return 1;                        /* no event name: nothing says it is an event */
	h->name = p;
	h->name_len = (size_t)(colon - p);
	h->rest = colon;
	return 0;
}

int tracefs_lines(char *buf, size_t *have, size_t cap, tracefs_line_fn *fn, void *arg,
		  uint64_t *refused)
{
	char *s = buf, *nl;

	while ((nl = memchr(s, '\n', *have - (size_t)(s - buf)))) {
		if (fn(arg, s, (size_t)(nl - s)) < 0)
			return -1;
		s = nl + 1;
	}
	*have -= (size_t)(s - buf);
	memmove(buf, s, *have);
	if (*have == cap) {     /* a line longer than the buffer: not ours */
		(*refused)++;
		*have = 0;
	}
	return 0;
}
