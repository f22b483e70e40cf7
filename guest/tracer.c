/* tracer.c -- sampled folio events through tracefs: the probes described once in a
 * table, their filter, the harness instance's bounded buffer, and trace_pipe's lines. */
#define _GNU_SOURCE
#include "tracer.h"
#include "tracefs.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INSTANCE     TRACEFS "/instances/harness"
#define BUFFER_KB    "2048"   /* per CPU: an interval of sampled events, many times over */
#define GROUP        "harness"

/* tests/flag_layout.sh against Debian's linux-headers of each kernel. */
static const struct tracer_layout layouts[] = {
	{ "6.12.", "+deb12-cloud-amd64", "x86_64", 27, 3, 8, 152 },
};

/* The folio every probe names, from BTF: its file's device and inode, its page index. */
#define FOLIO_ARGS "dev=folio->mapping->host->i_sb->s_dev:u32 " \
	"ino=folio->mapping->host->i_ino:u64 index=folio->index:u64"

/*
 * One probe an event kind: its name in the group, its definition, and
 * whether it needs the layout (then min_seq, at the layout's offset into
 * the lruvec, ends it). fprobes (f:) on functions, tprobes (t:) on tracepoints: 6.12 has
 * both; a kernel that refuses one traces without it.
 */
static const struct {
	unsigned kind;
	const char *name, *def;
	int layout;
} probes[] = {
	{ TR_LOAD, "load", "t:" GROUP "/load mm_filemap_add_to_page_cache " FOLIO_ARGS, 0 },
	{ TR_ADD, "add", "f:" GROUP "/add lru_add%return " FOLIO_ARGS " flags=folio->flags:x64 "
	  "max_seq=lruvec->lrugen.max_seq:u64", 1 },
	{ TR_ACCESS, "access", "f:" GROUP "/access folio_mark_accessed " FOLIO_ARGS, 0 },
	{ TR_PROMOTE, "promote", "f:" GROUP "/promote folio_update_gen " FOLIO_ARGS, 0 },
	{ TR_ACTIVATE, "activate", "t:" GROUP "/activate mm_lru_activate " FOLIO_ARGS, 0 },
	{ TR_REMOVE, "remove", "t:" GROUP "/remove mm_filemap_delete_from_page_cache " FOLIO_ARGS, 0 },
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

const struct tracer_layout *tracer_layout_find(const char *release, const char *arch)
{
	size_t i, n = strlen(release), ls;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		ls = strlen(layouts[i].suffix);
		if (!strncmp(release, layouts[i].prefix, strlen(layouts[i].prefix)) && n >= ls &&
		    !strcmp(release + n - ls, layouts[i].suffix) && !strcmp(arch, layouts[i].arch))
			return &layouts[i];
	}
	return NULL;
}

/*
 * Probe i's definition for dynamic_events, with this kernel's min_seq offset
 * where it reads one; its length, or -1 when it does not fit buf.
 */
static int probe_def(size_t i, const struct tracer_layout *l, char *buf, size_t len)
{
	int n = probes[i].layout ? snprintf(buf, len, "%s min_seq=+%u($arg1):u64", probes[i].def,
					    l->min_seq_file_off)
				 : snprintf(buf, len, "%s", probes[i].def);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

int tracer_probe_text(const struct tracer_layout *l, char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	for (i = 0; i < NPROBES; i++) {
		if (probes[i].layout && !l)
			continue;
		if ((n = probe_def(i, l, buf + used, len - used)) < 0 || used + (size_t)n + 1 >= len)
			return -1;
		used += (size_t)n;
		buf[used++] = '\n';
		buf[used] = '\0';
	}
	return (int)used;
}

/* ---- parsing trace_pipe ---- */

/* The value of " key=" after p, once; -1 if missing, twice or not a number. */
static int field(const char *p, const char *end, const char *key, uint64_t *out)
{
	char pat[24];
	const char *hit = NULL, *s;
	size_t n = (size_t)snprintf(pat, sizeof(pat), " %s=", key);

	for (s = p; (s = memmem(s, (size_t)(end - s), pat, n)); s += n) {
		if (hit)
			return -1;
		hit = s + n;
	}
	return hit ? tracefs_number(&hit, end, out) : -1;
}

/* The event kind of the probe called name (n bytes), or -1. */
static int line_kind(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < NPROBES; i++)
		if (strlen(probes[i].name) == n && !memcmp(name, probes[i].name, n))
			return (int)probes[i].kind;
	return -1;
}

int tracer_parse_line(const char *line, size_t len, struct tracer_line *out)
{
	const char *end = line + len, *colon;
	struct tracefs_head h;
	int kind, rc = tracefs_line_head(line, len, &h);

	if (rc)
		return rc;
	if ((kind = line_kind(h.name, h.name_len)) < 0)
		return 1;
	colon = h.rest;
	out->ts_ns = h.ts_ns;
	memset(out, 0, offsetof(struct tracer_line, ts_ns));
	out->kind = (unsigned)kind;
	if (field(colon, end, "dev", &out->dev) < 0 || field(colon, end, "ino", &out->ino) < 0 ||
	    field(colon, end, "index", &out->index) < 0)
		return -1;
	out->flags = out->max_seq = out->min_seq = 0;
	if (kind == TR_ADD && (field(colon, end, "flags", &out->flags) < 0 ||
			       field(colon, end, "max_seq", &out->max_seq) < 0 ||
			       field(colon, end, "min_seq", &out->min_seq) < 0))
		return -1;
	return 0;
}

/* ---- decoding an event ---- */

/*
 * The kernel filtered by these; a line that says otherwise is not believed,
 * nor a page beyond a declared file's end (an anonymous folio's "mapping"
 * read as a file's can pass the filter: seen in tests/data's capture).
 */
static int traced(const struct tracer_conf *c, const struct tracer_line *l)
{
	unsigned i;

	if (l->dev != c->dev || (l->index & (c->sample - 1)))
		return 0;
	for (i = 0; i < c->nfiles; i++)
		if (l->ino == c->ino[i])
			return l->index < c->pages[i] && (!c->traced || (c->traced & (1u << i)));
	return c->traced == 0;
}

/* MGLRU's place: gen is seq % 4 (MAX_NR_GENS), the window at most 4 wide. */
static int mglru_place(struct proto_trace *o, size_t i, uint64_t gen)
{
	uint64_t max = o->max_seq.v[i], min = o->min_seq.v[i], seq;

	if (gen >= 4 || min > max || max - min >= 4)
		return -1;
	seq = (max + 4 - gen) % 4;          /* how far below max_seq */
	if (seq > max || max - seq < min)
		return -1;
	seq = max - seq;
	o->gen.v[i] = seq;
	o->place.v[i] = seq == min ? PL_OLDEST : seq == min + 1 ? PL_SECOND : PL_YOUNGER;
	return 0;
}

int tracer_decode(const struct tracer_conf *c, const struct tracer_line *l, uint64_t t_ms,
		  struct proto_trace *out, size_t i)
{
	uint64_t field;

	if (!traced(c, l) || (l->kind == TR_ADD && !c->layout))
		return -1;
	out->kind.v[i] = l->kind;
	out->t_ms.v[i] = t_ms;
	out->ino.v[i] = l->ino;
	out->page.v[i] = l->index;
	out->place.v[i] = PL_NONE;
	out->gen.v[i] = out->min_seq.v[i] = out->max_seq.v[i] = 0;
	if (l->kind != TR_ADD)
		return 0;
	field = (l->flags >> c->layout->gen_pgoff) & ((UINT64_C(1) << c->layout->gen_width) - 1);
	if (!field) {                        /* the classic LRU's lists */
		out->place.v[i] = (l->flags >> c->layout->pg_active) & 1 ? PL_ACTIVE : PL_INACTIVE;
		return 0;
	}
	out->min_seq.v[i] = l->min_seq;
	out->max_seq.v[i] = l->max_seq;
	return mglru_place(out, i, field - 1);
}

/* ---- tracefs ---- */

/* "dev == D && !(index & M) && (ino == A || ...)", the inodes of the traced files */
static int filter_text(const struct tracer_conf *c, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "dev == %" PRIu64 " && !(index & %" PRIu64 ")",
				    c->dev, c->sample - 1);
	unsigned i, first = 1;

	for (i = 0; c->traced && i < c->nfiles && n < len; i++) {
		if (!(c->traced & (1u << i)))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s ino == %" PRIu64, first ? " && (" : " ||",
				      c->ino[i]);
		first = 0;
	}
	if (c->traced && n < len)
		n += (size_t)snprintf(buf + n, len - n, ")");
	return n < len ? 0 : -1;
}

/* Define, filter and enable probe i in the instance; 0, or -1 (the kernel refused). */
static int probe_start(const struct tracer_conf *c, size_t i, const char *filter)
{
	char def[512], path[256];

	if (probe_def(i, c->layout, def, sizeof(def)) < 0 ||
	    tracefs_write(TRACEFS "/dynamic_events", def, 1) < 0)
		return -1;
	fmtcut(path, sizeof(path), INSTANCE "/events/" GROUP "/%s/filter", probes[i].name);
	if (tracefs_write(path, filter, 0) < 0)
		return -1;
	fmtcut(path, sizeof(path), INSTANCE "/events/" GROUP "/%s/enable", probes[i].name);
	return tracefs_write(path, "1", 0);
}

/* Every probe the kernel takes; the status names the ones it refused. */
static void probes_start(struct tracer *t, const char *filter)
{
	char refused[64] = "";
	size_t i, n = 0, took = 0;

	for (i = 0; i < NPROBES; i++) {
		if (probes[i].layout && !t->conf.layout) {
			n += (size_t)snprintf(refused + n, sizeof(refused) - n, " %s(no layout)",
					      probes[i].name);
		} else if (probe_start(&t->conf, i, filter) < 0) {
			n += (size_t)snprintf(refused + n, sizeof(refused) - n, " %s", probes[i].name);
		} else {
			took++;
		}
		if (n >= sizeof(refused))
			n = sizeof(refused) - 1;
	}
	if (!took)
		fmtcut(t->status, sizeof(t->status), "off: the kernel took none of the probes "
			 "(needs fprobe, tprobe, BTF)");
	else
		fmtcut(t->status, sizeof(t->status), "on: 1/%" PRIu64 ", %zu probes%s%s",
			 t->conf.sample, took, refused[0] ? "; without" : "", refused);
}

int tracer_open(struct tracer *t, const struct tracer_conf *c, char *err, size_t errlen)
{
	char filter[1024], path[128];

	memset(t, 0, sizeof(*t));
	t->conf = *c;
	t->pipe_fd = -1;
	if (filter_text(c, filter, sizeof(filter)) < 0)
		return snprintf(err, errlen, "trace: filter too long"), -1;
	if (tracefs_instance("harness", BUFFER_KB, path, sizeof(path)) < 0 ||
	    access(TRACEFS "/dynamic_events", W_OK) < 0) {
		fmtcut(t->status, sizeof(t->status), "off: no tracefs instance (%s)", strerror(errno));
		return 0;
	}
	probes_start(t, filter);
	if (!tracer_on(t))
		return 0;
	t->pipe_fd = open(INSTANCE "/trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->pipe_fd < 0)
		return snprintf(err, errlen, "trace: %s/trace_pipe: %s", INSTANCE, strerror(errno)), -1;
	return 0;
}

int tracer_on(const struct tracer *t)
{
	return !strncmp(t->status, "on:", 3);
}

struct batch {
	struct tracer *t;
	struct proto_msg m;
	int (*send)(void *arg, const struct proto_msg *m);
	void *arg;
};

/*
 * The batch of trace events sent with the lost and refused counts, then
 * emptied.
 */
static int batch_flush(struct batch *b)
{
	int rc;

	b->m.u.trace.lost = b->t->lost;
	b->m.u.trace.refused = b->t->refused;
	rc = b->send(b->arg, &b->m);

#define X(f, key, mx) b->m.u.trace.f.n = 0;
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
	return rc;
}

/* One complete line into the batch (sent when full). */
static int take_line(struct tracer *t, struct batch *b, const char *line, size_t len,
		     uint64_t t0_ns)
{
	struct proto_trace *o = &b->m.u.trace;
	struct tracer_line l;
	size_t i = o->kind.n;
	uint64_t ms;
	int rc = tracer_parse_line(line, len, &l);

	if (rc > 0)
		return 0;
	ms = rc == 0 && l.ts_ns > t0_ns ? (l.ts_ns - t0_ns) / 1000000u : 0;
	if (ms < t->last_ms)
		ms = t->last_ms;             /* the buffer merges CPUs in order; ms ties stay */
	if (rc < 0 || tracer_decode(&t->conf, &l, ms, o, i) < 0) {
		t->refused++;
		return 0;
	}
	t->last_ms = ms;
#define X(m, key, mx) o->m.n = i + 1;
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
	return o->kind.n == PROTO_TRACE_MAX ? batch_flush(b) : 0;
}

struct line_arg {
	struct tracer *t;
	struct batch *b;
	uint64_t t0_ns;
};

/* take_line as a tracefs_line_fn. */
static int line_cb(void *arg, const char *line, size_t len)
{
	struct line_arg *a = arg;

	return take_line(a->t, a->b, line, len, a->t0_ns);
}

int tracer_drain(struct tracer *t, uint64_t seq, uint64_t t0_ns,
		 int (*send)(void *arg, const struct proto_msg *m), void *arg,
		 char *err, size_t errlen)
{
	struct batch b = { .t = t, .m = { .type = PROTO_TRACE }, .send = send, .arg = arg };
	struct line_arg la = { t, &b, t0_ns };
	ssize_t n;

	if (!tracer_on(t))
		return 0;
	b.m.u.trace.seq = seq;
	while ((n = read(t->pipe_fd, t->buf + t->have, sizeof(t->buf) - t->have)) > 0) {
		t->have += (size_t)n;
		if (tracefs_lines(t->buf, &t->have, sizeof(t->buf), line_cb, &la, &t->refused) < 0)
			return snprintf(err, errlen, "channel: cannot send trace events"), -1;
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return snprintf(err, errlen, "trace: trace_pipe: %s", strerror(errno)), -1;
	t->lost = tracefs_lost(INSTANCE);
	if (batch_flush(&b) < 0)
		return snprintf(err, errlen, "channel: cannot send trace events"), -1;
	return 0;
}

void tracer_close(struct tracer *t)
{
	if (t->pipe_fd >= 0)
		close(t->pipe_fd);
	t->pipe_fd = -1;
	if (tracer_on(t))
		tracefs_write(INSTANCE "/tracing_on", "0", 0);
}
