/* fault.c -- test-only fault injection in the agent, chosen on the kernel
 * command line; proves the host survives a guest that misbehaves. */
#define _GNU_SOURCE
#include "fault.h"
#include "fdio.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CMDLINE_MAX   4096
#define LONGLINE_MIB  10
#define GARBAGE_BYTES 4096

static const char *const kind_names[] = {
	[FAULT_NONE] = "none", [FAULT_PANIC] = "panic", [FAULT_SILENCE] = "silence",
	[FAULT_GARBAGE] = "garbage", [FAULT_BADUTF8] = "badutf8",
	[FAULT_LONGLINE] = "longline", [FAULT_BADJSON] = "badjson",
	[FAULT_FIOSTALL] = "fiostall", [FAULT_LRUGAP] = "lrugap", [FAULT_NOHELLO] = "nohello",
	[FAULT_NOPORT] = "noport", [FAULT_COUNTERSPLIT] = "countersplit",
	[FAULT_COUNTERFLOOD] = "counterflood",
};

/* A number of seconds (0..86400) given to option key, into *ms. */
static int seconds(const char *text, const char *key, uint64_t *ms, char *err, size_t errlen)
{
	unsigned long long s;
	char *end;

	errno = 0;
	s = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || s > 86400)
		return errorfn(err, errlen, "/proc/cmdline: %s: expected seconds (0..86400), "
				  "got '%.32s'", key, text);
	*ms = s * 1000;
	return 0;
}

/* One "key=value" word of the command line. */
static int fault_option(struct fault *f, const char *word, char *err, size_t errlen)
{
	size_t k;

	if (!strncmp(word, "harness.fault=", 14)) {
		for (k = 1; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
			if (!strcmp(word + 14, kind_names[k])) {
				f->kind = (enum fault_kind)k;
				return 0;
			}
		return errorfn(err, errlen, "/proc/cmdline: harness.fault: unknown kind '%.32s'",
				  word + 14);
	}
	if (!strncmp(word, "harness.fault_after=", 20))
		return seconds(word + 20, "harness.fault_after", &f->after_ms, err, errlen);
	if (!strncmp(word, "harness.fault_for=", 18))
		return seconds(word + 18, "harness.fault_for", &f->for_ms, err, errlen);
	return 0;
}

int fault_load(struct fault *f, const char *path, char *err, size_t errlen)
{
	char buf[CMDLINE_MAX], *word, *save = NULL;
	ssize_t n;
	int fd;

	memset(f, 0, sizeof(*f));
	f->after_ms = 2000;
	f->for_ms = 3000;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;   /* no /proc: no fault */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errorfn(err, errlen, "read '%s': %s", path, strerror(errno));
	buf[n] = '\0';
	for (word = strtok_r(buf, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save))
		if (fault_option(f, word, err, errlen) < 0)
			return -1;
	return 0;
}

/* GARBAGE_BYTES of noise (newlines included), then a newline. */
static int send_garbage(int fd)
{
	char buf[GARBAGE_BYTES + 1];
	uint64_t x = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1;
	size_t i;

	for (i = 0; i < GARBAGE_BYTES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (char)(x >> 24);
	}
	buf[GARBAGE_BYTES] = '\n';
	return write_all(fd, buf, sizeof(buf));
}

/* The sample with two bytes of invalid UTF-8 at the start of its first key. */
static int send_badutf8(int fd, const char *line, size_t len)
{
	static const char bad[] = "{\"\xc3\x28";

	if (len < 2 || write_all(fd, bad, sizeof(bad) - 1) < 0)
		return -1;
	return write_all(fd, line + 2, len - 2);
}

/* A line of LONGLINE_MIB MiB: blocks once the host stops reading, as it should. */
static int send_longline(int fd)
{
	char chunk[65536];
	size_t i;

	memset(chunk, 'x', sizeof(chunk));
	for (i = 0; i < (LONGLINE_MIB << 20) / sizeof(chunk); i++)
		if (write_all(fd, chunk, sizeof(chunk)) < 0)
			return -1;
	return write_all(fd, "\n", 1);
}

/* The sample with pgmajfault made negative: well-formed JSON, absurd value. */
static int send_badjson(int fd, const char *line, size_t len)
{
	static const char key[] = "\"pgmajfault\":";
	const char *at = memmem(line, len, key, sizeof(key) - 1), *rest;

	if (!at)
		return -1;
	rest = at + sizeof(key) - 1;
	while (*rest >= '0' && *rest <= '9')
		rest++;
	if (write_all(fd, line, (size_t)(at - line)) < 0 ||
	    write_all(fd, "\"pgmajfault\":-1", 15) < 0)
		return -1;
	return write_all(fd, rest, len - (size_t)(rest - line));
}

#define SPLIT_KEYS 2

/*
 * countersplit: m's keys as messages of SPLIT_KEYS each, in order; a message
 * of SPLIT_KEYS or fewer (an empty start or end among them) goes as it is.
 * Returns 1 when it sent the parts, 0 when m is the caller's to write.
 */
static int send_split(int fd, const struct proto_msg *m)
{
	const struct proto_kv *all = &m->u.counters.values;
	struct proto_msg *part;
	char line[PROTO_LINE_MAX];
	size_t i, j;
	int n, rc = 1;

	if (m->type != PROTO_COUNTERS || all->n <= SPLIT_KEYS)
		return 0;
	if (!(part = malloc(sizeof(*part))))
		return -1;
	*part = *m;
	for (i = 0; i < all->n && rc == 1; i += SPLIT_KEYS) {
		for (j = 0; j < SPLIT_KEYS && i + j < all->n; j++) {
			memcpy(part->u.counters.values.key[j], all->key[i + j], PROTO_COUNTER_KEY_MAX);
			part->u.counters.values.value[j] = all->value[i + j];
		}
		part->u.counters.values.n = j;
		n = proto_format(part, line, sizeof(line));
		if (n < 0 || write_all(fd, line, (size_t)n) < 0)
			rc = -1;
	}
	free(part);
	return rc;
}

#define FLOOD_MESSAGES 20

/*
 * counterflood: before the counters message c (line), FLOOD_MESSAGES of its
 * interval and kind, each of PROTO_COUNTERS_MAX vmstat keys never sent
 * before (flood_N): 1280, as the flood stored, over the host's
 * budget of 512 a source; then c itself.
 */
static int send_flood(int fd, const struct proto_msg *c, const char *line, size_t len)
{
	struct proto_msg *m = calloc(1, sizeof(*m));
	char out[PROTO_LINE_MAX];
	unsigned i, k;
	int n, rc = 0;

	if (!m)
		return -1;
	*m = *c;
	fmtcut(m->u.counters.src, sizeof(m->u.counters.src), "vmstat");
	m->u.counters.values.n = PROTO_COUNTERS_MAX;
	for (i = 0; i < FLOOD_MESSAGES && rc == 0; i++) {
		for (k = 0; k < PROTO_COUNTERS_MAX; k++) {
			fmtcut(m->u.counters.values.key[k], PROTO_COUNTER_KEY_MAX, "flood_%u",
			       i * PROTO_COUNTERS_MAX + k);
			m->u.counters.values.value[k] = 1;
		}
		n = proto_format(m, out, sizeof(out));
		rc = n < 0 ? -1 : write_all(fd, out, (size_t)n);
	}
	free(m);
	return rc < 0 ? -1 : write_all(fd, line, len);
}

/*
 * The test-only fault of the kernel command line, at its moment (m, formatted
 * as line): a panic by sysrq, silence, garbage, bad UTF-8, an overlong or
 * broken JSON line, a flood of counter keys, an agent stopped before its
 * hello; the rest are the caller's (the line not written, fio stalled).
 */
static int fire(struct fault *f, int fd, const struct proto_msg *m, const char *line,
		size_t len)
{
	int fd2;

	fprintf(stderr, "harness: fault %s\n", kind_names[f->kind]);
	switch (f->kind) {
	case FAULT_PANIC:
		sync();
		fd2 = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
		if (fd2 < 0)
			return -1;
		if (write(fd2, "c", 1) == 1)
			errno = ENOSYS;   /* still here: the kernel did not crash */
		close(fd2);
		return -1;
	case FAULT_SILENCE:
		return 0;
	case FAULT_GARBAGE:
		return send_garbage(fd);
	case FAULT_BADUTF8:
		return send_badutf8(fd, line, len);
	case FAULT_LONGLINE:
		return send_longline(fd);
	case FAULT_BADJSON:
		return send_badjson(fd, line, len);
	case FAULT_COUNTERFLOOD:
		return send_flood(fd, m, line, len);
	case FAULT_NOHELLO:    /* PID 1 must not exit: that would be a panic */
		for (;;)
			pause();
	case FAULT_LRUGAP:     /* the line is simply not written */
	case FAULT_NOPORT:     /* the agent's own, before any message */
	case FAULT_FIOSTALL:
	case FAULT_COUNTERSPLIT:   /* fault_filter's, every counters message */
	case FAULT_NONE:
		break;
	}
	return 0;
}

/*
 * Is m the message the fault takes the place of? nohello: the hello; lrugap
 * and counterflood: the first lru or counters line after a sample after_ms
 * into the workload; the rest: that sample.
 */
static int fires_now(struct fault *f, const struct proto_msg *m)
{
	if (f->kind == FAULT_NOHELLO)
		return m->type == PROTO_HELLO;
	if (f->kind != FAULT_LRUGAP && f->kind != FAULT_COUNTERFLOOD)
		return m->type == PROTO_SAMPLE && m->u.sample.t_ms >= f->after_ms;
	if (m->type == PROTO_SAMPLE && m->u.sample.t_ms >= f->after_ms)
		f->armed = 1;
	return f->armed && m->type == (f->kind == FAULT_LRUGAP ? PROTO_LRU : PROTO_COUNTERS);
}

int fault_filter(struct fault *f, int fd, const struct proto_msg *m, const char *line,
		 size_t len, char *err, size_t errlen)
{
	int rc;

	if (f->kind == FAULT_NONE || f->kind == FAULT_FIOSTALL || f->kind == FAULT_NOPORT)
		return 0;
	if (f->kind == FAULT_COUNTERSPLIT) {   /* every counters message, not once */
		if ((rc = send_split(fd, m)) < 0)
			return errorfn(err, errlen, "fault countersplit: could not send: %s",
				       strerror(errno));
		return rc;
	}
	if (f->fired)
		return f->kind == FAULT_SILENCE;
	if (!fires_now(f, m))
		return 0;
	f->fired = 1;
	if (fire(f, fd, m, line, len) < 0)
		return errorfn(err, errlen,
				  "fault %s: could not inject it: %s", kind_names[f->kind],
				  strerror(errno));
	return 1;
}

int fault_stall(struct fault *f, uint64_t t_ms, int pid)
{
	if (f->kind != FAULT_FIOSTALL)
		return 0;
	if (!f->fired && pid > 0 && t_ms >= f->after_ms && kill(pid, SIGSTOP) == 0) {
		f->fired = 1;
		f->stopped_pid = pid;
		fprintf(stderr, "harness: fault fiostall: fio %d stopped at %llu ms\n", pid,
			(unsigned long long)t_ms);
		return 1;
	}
	if (f->stopped_pid && t_ms >= f->after_ms + f->for_ms) {
		fault_unstall(f);
		fprintf(stderr, "harness: fault fiostall: fio continued at %llu ms\n",
			(unsigned long long)t_ms);
		return 1;
	}
	return 0;
}

void fault_unstall(struct fault *f)
{
	if (f->stopped_pid)
		kill(f->stopped_pid, SIGCONT);
	f->stopped_pid = 0;
}
