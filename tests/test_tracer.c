/* test_tracer.c -- unit tests for guest/tracer.c on real trace_pipe text of Debian's 6.12
 * (tests/data/trace-6.12-*.txt, tests/capture_trace.sh): lines, places, drains, hostile text. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "slurp.h"

#include "common/proto.h"
#include "guest/tracer.h"

#define DATA    "tests/data/"
#define MGLRU   "trace-6.12-mglru.txt"
#define CLASSIC "trace-6.12-classic.txt"
#define RELEASE "6.12.117+deb12-cloud-amd64"
#define DEV     UINT64_C(266338304)   /* tests/data/trace-6.12.meta: "dev 266338304 ino 12" */
#define INO     12
#define PAGES   4096                  /* the 16 MiB file */
#define SAMPLE  16                    /* the capture's filter: !(index & 15) */
#define MAXLINES 512

/*
 * Lines per kind, counted once with grep on the files as committed:
 *   for k in load add access promote activate remove; do
 *       grep -c ": $k: " tests/data/trace-6.12-mglru.txt; done
 * and the same for -classic; both have 400 lines (wc -l), and
 *   grep -vcE ': (load|add|access|promote|activate|remove): ' FILE
 * is 0 for both: every line is one of the six probes' events.
 */
struct counts {
	unsigned kind[TR_COUNT], other, refused;
};

static const struct counts mglru_lines = {
	.kind = { [TR_LOAD] = 132, [TR_ADD] = 132, [TR_ACCESS] = 128, [TR_PROMOTE] = 0,
		  [TR_ACTIVATE] = 0, [TR_REMOVE] = 8 },
};
static const struct counts classic_lines = {
	.kind = { [TR_LOAD] = 93, [TR_ADD] = 93, [TR_ACCESS] = 90, [TR_PROMOTE] = 0,
		  [TR_ACTIVATE] = 0, [TR_REMOVE] = 124 },
};

/* A capture split into lines (without their newlines). */
struct capture {
	char *buf;
	size_t len, n;
	const char *line[MAXLINES];
	size_t llen[MAXLINES];
};

static struct capture *load(const char *name)
{
	struct capture *c = calloc(1, sizeof(*c));
	char path[256], *s, *nl;

	assert_non_null(c);
	snprintf(path, sizeof(path), DATA "%s", name);
	c->buf = test_slurp(path, &c->len);
	assert_true(c->len > 0 && c->buf[c->len - 1] == '\n');
	for (s = c->buf; (nl = memchr(s, '\n', c->len - (size_t)(s - c->buf))); s = nl + 1) {
		assert_true(c->n < MAXLINES);
		c->line[c->n] = s;
		c->llen[c->n++] = (size_t)(nl - s);
	}
	return c;
}

static void unload(struct capture *c)
{
	free(c->buf);
	free(c);
}

/* The capture's file, traced as the guest would: layout of RELEASE unless no_layout. */
static struct tracer_conf conf(int no_layout)
{
	struct tracer_conf c = { .sample = SAMPLE, .dev = DEV, .nfiles = 1, .ino = { INO },
				 .pages = { PAGES }, .traced = 1 };

	c.layout = no_layout ? NULL : tracer_layout_find(RELEASE, "x86_64");
	return c;
}

static int parse_str(const char *s, struct tracer_line *l)
{
	memset(l, 0x5a, sizeof(*l));
	return tracer_parse_line(s, strlen(s), l);
}

/* ---- every line of the captures ---- */

static void count_lines(const char *name, const struct counts *want)
{
	struct capture *c = load(name);
	struct counts got = { { 0 }, 0, 0 };
	struct tracer_line l;
	uint64_t last_ns = 0;
	size_t i;
	unsigned k;

	assert_int_equal(c->n, 400);
	for (i = 0; i < c->n; i++) {
		int rc = tracer_parse_line(c->line[i], c->llen[i], &l);

		if (rc < 0)
			fail_msg("%s:%zu refused: %.*s", name, i + 1, (int)c->llen[i], c->line[i]);
		if (rc > 0) {
			got.other++;
			continue;
		}
		assert_true(l.kind < TR_COUNT);
		got.kind[l.kind]++;
		assert_int_equal(l.dev, DEV);
		assert_int_equal(l.ino, INO);
		assert_true(l.ts_ns >= last_ns);         /* one CPU: the buffer's order is time's */
		last_ns = l.ts_ns;
		if (l.kind != TR_ADD)
			assert_true(l.flags == 0 && l.max_seq == 0 && l.min_seq == 0);
		else
			assert_int_equal(l.max_seq, 3);
	}
	for (k = 0; k < TR_COUNT; k++)
		if (got.kind[k] != want->kind[k])
			fail_msg("%s: %u %s lines, grep counts %u", name, got.kind[k],
				 proto_trace_kind_names[k], want->kind[k]);
	assert_int_equal(got.other, 0);
	unload(c);
}

static void test_lines_mglru(void **state)
{
	(void)state;
	count_lines(MGLRU, &mglru_lines);
}

static void test_lines_classic(void **state)
{
	(void)state;
	count_lines(CLASSIC, &classic_lines);
}

/* The first and last lines, field for field: the clock is seconds.microseconds. */
static void test_line_fields(void **state)
{
	struct capture *m = load(MGLRU), *c = load(CLASSIC);
	struct tracer_line l;

	(void)state;
	assert_int_equal(tracer_parse_line(m->line[0], m->llen[0], &l), 0);
	assert_int_equal(l.kind, TR_LOAD);
	assert_int_equal(l.ts_ns, UINT64_C(3147282000));
	assert_int_equal(l.index, 0);
	/* line 3: the first add */
	assert_int_equal(tracer_parse_line(m->line[2], m->llen[2], &l), 0);
	assert_int_equal(l.kind, TR_ADD);
	assert_int_equal(l.ts_ns, UINT64_C(3152725000));
	assert_int_equal(l.flags, UINT64_C(0xfffffd0000001));
	assert_int_equal(l.max_seq, 3);
	assert_int_equal(l.min_seq, 0);
	/* line 7: the anonymous folio */
	assert_int_equal(tracer_parse_line(m->line[6], m->llen[6], &l), 0);
	assert_int_equal(l.index, UINT64_C(34310052976));
	assert_int_equal(l.flags, UINT64_C(0xfffffe0020808));
	assert_int_equal(tracer_parse_line(m->line[399], m->llen[399], &l), 0);
	assert_int_equal(l.kind, TR_LOAD);
	assert_int_equal(l.ts_ns, UINT64_C(3254339000));
	assert_int_equal(l.index, 2096);
	/* the classic capture starts with drop_caches' removes, by init */
	assert_int_equal(tracer_parse_line(c->line[0], c->llen[0], &l), 0);
	assert_int_equal(l.kind, TR_REMOVE);
	assert_int_equal(l.ts_ns, UINT64_C(4626269000));
	assert_int_equal(l.index, 2112);
	assert_int_equal(tracer_parse_line(c->line[399], c->llen[399], &l), 0);
	assert_int_equal(l.kind, TR_ADD);
	assert_int_equal(l.ts_ns, UINT64_C(4760705000));
	unload(m);
	unload(c);
}

/* ---- the adds' places ---- */

struct places {
	unsigned place[PL_COUNT], refused;
};

/* Decode every line of a capture; the places of its adds, and the refusals by kind. */
static void decode_capture(const char *name, struct places *adds, unsigned *refused_other)
{
	struct tracer_conf cf = conf(0);
	struct capture *c = load(name);
	struct proto_trace *o = calloc(1, sizeof(*o));
	struct tracer_line l;
	size_t i;

	assert_non_null(o);
	assert_non_null(cf.layout);
	memset(adds, 0, sizeof(*adds));
	*refused_other = 0;
	for (i = 0; i < c->n; i++) {
		assert_int_equal(tracer_parse_line(c->line[i], c->llen[i], &l), 0);
		if (tracer_decode(&cf, &l, 7, o, 3) < 0) {
			if (l.kind == TR_ADD)
				adds->refused++;
			else
				(*refused_other)++;
			continue;
		}
		assert_int_equal(o->kind.v[3], l.kind);
		assert_int_equal(o->t_ms.v[3], 7);
		assert_int_equal(o->ino.v[3], INO);
		assert_int_equal(o->page.v[3], l.index);
		assert_true(o->page.v[3] < PAGES && o->page.v[3] % SAMPLE == 0);
		assert_true(o->min_seq.v[3] <= o->gen.v[3] && o->gen.v[3] <= o->max_seq.v[3]);
		if (l.kind != TR_ADD) {
			assert_int_equal(o->place.v[3], PL_NONE);
			assert_true(!o->gen.v[3] && !o->max_seq.v[3]);
			continue;
		}
		assert_true(o->place.v[3] > PL_NONE && o->place.v[3] < PL_COUNT);
		adds->place[o->place.v[3]]++;
	}
	unload(c);
	free(o);
}

/*
 * MGLRU: (flags >> 27) & 7 is 2 for every add of the file (its flags all start
 * 0xfffffd), so generation 1, the second-oldest of min_seq 0 .. max_seq 3 and
 * the oldest once min_seq is 1. Counted with grep on the adds:
 *   grep ': add: ' tests/data/trace-6.12-mglru.txt |
 *       grep -c 'flags=0xfffffd[0-9a-f]* max_seq=3 min_seq=0$'   -> 125 (second-oldest)
 *   ... 'flags=0xfffffd[0-9a-f]* max_seq=3 min_seq=1$'           -> 6 (oldest)
 *   grep ': add: ' ... | grep -vc 'flags=0xfffffd'                -> 1 (the anonymous folio)
 */
static void test_decode_mglru(void **state)
{
	struct tracer_conf cf = conf(0);
	struct capture *m = load(MGLRU);
	struct proto_trace *o = calloc(1, sizeof(*o));
	struct tracer_line l;
	struct places adds;
	unsigned other;

	(void)state;
	assert_non_null(o);
	/* the first add: flags=0xfffffd0000001 max_seq=3 min_seq=0: gen field 2, seq 1 */
	assert_int_equal(tracer_parse_line(m->line[2], m->llen[2], &l), 0);
	assert_int_equal((l.flags >> 27) & 7, 2);
	assert_int_equal(tracer_decode(&cf, &l, 5, o, 0), 0);
	assert_int_equal(o->kind.v[0], TR_ADD);
	assert_int_equal(o->place.v[0], PL_SECOND);
	assert_int_equal(o->gen.v[0], 1);
	assert_int_equal(o->min_seq.v[0], 0);
	assert_int_equal(o->max_seq.v[0], 3);
	assert_int_equal(o->page.v[0], 0);
	/* index=34310052976: an anonymous folio the kernel's filter let through */
	assert_int_equal(tracer_parse_line(m->line[6], m->llen[6], &l), 0);
	assert_int_equal(l.index, UINT64_C(34310052976));
	assert_int_equal(l.index % SAMPLE, 0);
	assert_int_equal(tracer_decode(&cf, &l, 5, o, 1), -1);
	/* traced as the whole disk it is still beyond the declared file */
	cf.traced = 0;
	assert_int_equal(tracer_decode(&cf, &l, 5, o, 1), -1);
	unload(m);
	free(o);

	decode_capture(MGLRU, &adds, &other);
	assert_int_equal(adds.place[PL_SECOND], 125);
	assert_int_equal(adds.place[PL_OLDEST], 6);
	assert_int_equal(adds.place[PL_YOUNGER], 0);
	assert_int_equal(adds.place[PL_INACTIVE] + adds.place[PL_ACTIVE], 0);
	assert_int_equal(adds.refused, 1);
	assert_int_equal(other, 0);
}

/*
 * The classic LRU: the generation field is 0 (flags all start 0xfffffc), and
 * PG_active (bit 8, 0x100) is clear in every one of the four flags values
 *   grep ': add: ' tests/data/trace-6.12-classic.txt | grep -o 'flags=0x[0-9a-f]*' | sort | uniq -c
 * shows (..0001, ..0808, ..10001, ..20808): 92 inactive and one anonymous
 * folio (index=34256860208) beyond the file.
 */
static void test_decode_classic(void **state)
{
	struct places adds;
	unsigned other;

	(void)state;
	decode_capture(CLASSIC, &adds, &other);
	assert_int_equal(adds.place[PL_INACTIVE], 92);
	assert_int_equal(adds.place[PL_ACTIVE], 0);
	assert_int_equal(adds.place[PL_OLDEST] + adds.place[PL_SECOND] + adds.place[PL_YOUNGER], 0);
	assert_int_equal(adds.refused, 1);
	assert_int_equal(other, 0);
}

/* ---- a drain over the captures, through the host's parser ---- */

struct sink {
	unsigned msgs, events, kind[TR_COUNT], place[PL_COUNT];
	uint64_t refused, last_ms, seq;
};

/* The head and the first n of every event array (a batch keeps older values beyond n). */
static void assert_trace_equal(const struct proto_trace *a, const struct proto_trace *b)
{
	uint64_t i;

#define X(m, key, mx) assert_int_equal(a->m, b->m);
	PROTO_TRACE_HEAD_FIELDS(X)
#undef X
#define X(m, key, mx) \
	assert_int_equal(a->m.n, b->m.n); \
	for (i = 0; i < a->m.n; i++) \
		assert_int_equal(a->m.v[i], b->m.v[i]);
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
}

/* What the agent sends, formatted and parsed back as the host does. */
static int sink_send(void *arg, const struct proto_msg *m)
{
	struct sink *s = arg;
	struct proto_msg *back = calloc(1, sizeof(*back));
	char line[PROTO_LINE_MAX], err[PROTO_ERR_MAX];
	int n = proto_format(m, line, sizeof(line));
	uint64_t i;

	assert_non_null(back);
	assert_true(n > 1);
	if (proto_parse(line, (size_t)n - 1, back, err, sizeof(err)) < 0)
		fail_msg("host refused %s: %s", line, err);
	assert_int_equal(back->type, PROTO_TRACE);
	assert_trace_equal(&back->u.trace, &m->u.trace);
	assert_true(back->u.trace.kind.n <= PROTO_TRACE_MAX);
	assert_int_equal(back->u.trace.seq, s->seq);
	assert_true(back->u.trace.refused >= s->refused);
	s->refused = back->u.trace.refused;
	for (i = 0; i < back->u.trace.kind.n; i++) {
		assert_true(back->u.trace.t_ms.v[i] >= s->last_ms);
		s->last_ms = back->u.trace.t_ms.v[i];
		s->kind[back->u.trace.kind.v[i]]++;
		s->place[back->u.trace.place.v[i]]++;
		s->events++;
	}
	s->msgs++;
	free(back);
	return 0;
}

static struct tracer *tracer_on_fd(int fd)
{
	struct tracer *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->conf = conf(0);
	t->pipe_fd = fd;
	snprintf(t->status, sizeof(t->status), "on: test");
	assert_true(tracer_on(t));
	return t;
}

/* t0: the capture's first line, so t_ms counts from it. */
static uint64_t first_ns(const char *name)
{
	struct capture *c = load(name);
	struct tracer_line l;

	assert_int_equal(tracer_parse_line(c->line[0], c->llen[0], &l), 0);
	unload(c);
	return l.ts_ns;
}

static void check_drained(const struct sink *s, const struct counts *lines, unsigned refused,
			  uint64_t span_ms)
{
	unsigned k;

	assert_int_equal(s->refused, refused);
	for (k = 0; k < TR_COUNT; k++)
		assert_int_equal(s->kind[k], lines->kind[k] - (k == TR_ADD ? refused : 0));
	assert_int_equal(s->events, 400 - refused);
	assert_int_equal(s->last_ms, span_ms);
}

/* The whole file in one drain: more than tracer's 64 KiB buffer, so a line is split. */
static void drain_file(const char *name, const struct counts *lines, uint64_t span_ms,
		       struct sink *s)
{
	char path[256], err[PROTO_ERR_MAX];
	struct tracer *t;
	int fd;

	snprintf(path, sizeof(path), DATA "%s", name);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	t = tracer_on_fd(fd);
	memset(s, 0, sizeof(*s));
	s->seq = 9;
	assert_int_equal(tracer_drain(t, 9, first_ns(name), sink_send, s, err, sizeof(err)), 0);
	/* 399 events: 24 full messages and a last one of 15 */
	assert_int_equal(s->msgs, (400 - 1) / PROTO_TRACE_MAX + 1);
	check_drained(s, lines, 1, span_ms);
	assert_int_equal(t->have, 0);
	close(fd);                    /* not tracer_close: it would write the host's tracefs */
	free(t);
}

static void test_drain_files(void **state)
{
	struct sink s;

	(void)state;
	/* 3.147282 .. 3.254339 s: 107 ms; 4.626269 .. 4.760705 s: 134 ms */
	drain_file(MGLRU, &mglru_lines, 107, &s);
	assert_int_equal(s.place[PL_SECOND], 125);
	assert_int_equal(s.place[PL_OLDEST], 6);
	drain_file(CLASSIC, &classic_lines, 134, &s);
	assert_int_equal(s.place[PL_INACTIVE], 92);
}

/* The capture through a pipe in 997-byte pieces, a drain (an interval) after each. */
static void test_drain_pieces(void **state)
{
	struct capture *c = load(MGLRU);
	char err[PROTO_ERR_MAX];
	struct tracer *t;
	struct sink s = { .seq = 0 };
	size_t off, piece = 997;
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
	t = tracer_on_fd(fds[0]);
	for (off = 0; off < c->len; off += piece) {
		size_t n = c->len - off < piece ? c->len - off : piece;
		unsigned before = s.msgs;

		assert_int_equal(write(fds[1], c->buf + off, n), (ssize_t)n);
		s.seq = off / piece;
		assert_int_equal(tracer_drain(t, s.seq, first_ns(MGLRU), sink_send, &s, err,
					      sizeof(err)), 0);
		assert_true(s.msgs > before);         /* at least one message an interval */
		assert_true(t->have < piece);         /* only a line's start is kept */
	}
	assert_int_equal(t->have, 0);
	check_drained(&s, &mglru_lines, 1, 107);
	close(fds[0]);
	close(fds[1]);
	free(t);
	unload(c);
}

/* ---- hostile and truncated lines ---- */

#define HEAD "              dd-150     [000] d..3.     3.152725: "
#define ADD  HEAD "add: (folio_batch_move_lru+0x9a/0x140 <- lru_add)"
#define LOAD HEAD "load: (__probestub_mm_filemap_add_to_page_cache+0x4/0x10)"
#define FOLIO " dev=266338304 ino=12 index=0"

/* An add line of the capture's shape with these values. */
static const char *add_line(uint64_t index, uint64_t flags, uint64_t max_seq, uint64_t min_seq)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), ADD " dev=266338304 ino=12 index=%llu flags=0x%llx "
		 "max_seq=%llu min_seq=%llu", (unsigned long long)index, (unsigned long long)flags,
		 (unsigned long long)max_seq, (unsigned long long)min_seq);
	return buf;
}

/* Parse (must succeed) and decode; the decode's result, the event in o[0]. */
static int decode_str(const struct tracer_conf *cf, const char *s, struct proto_trace *o)
{
	struct tracer_line l;

	if (parse_str(s, &l) != 0)
		fail_msg("not parsed: %s", s);
	return tracer_decode(cf, &l, 0, o, 0);
}

/* The generation field (LRU_GEN_PGOFF 27, 3 bits): gen + 1, 0 for none. */
#define GEN(g) ((uint64_t)((g) + 1) << 27 | 1)

static void test_hostile_parse(void **state)
{
	struct tracer_line l;
	char buf[512];

	(void)state;
	/* the reference lines */
	assert_int_equal(parse_str(ADD FOLIO " flags=0xfffffd0000001 max_seq=3 min_seq=0", &l), 0);
	assert_int_equal(parse_str(LOAD FOLIO, &l), 0);
	assert_int_equal(l.kind, TR_LOAD);
	/* cut mid-number before a required field: the later fields are missing */
	assert_int_equal(parse_str(ADD FOLIO " flags=0xfffffd00", &l), -1);
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=1", &l), -1);
	assert_int_equal(parse_str(LOAD " dev=2663", &l), -1);
	assert_int_equal(parse_str(ADD FOLIO " flags=0xfffffd0000001 max_seq=3 min_seq=", &l), -1);
	assert_int_equal(parse_str(ADD FOLIO " flags=0x max_seq=3 min_seq=0", &l), -1);
	/* cut in the clock, or before the event's name ends: nothing says it is ours */
	assert_int_equal(parse_str("              dd-150     [000] d..3.     3.1527", &l), -1);
	assert_int_equal(parse_str("              dd-150     [000] d..3.     3.152725:", &l), -1);
	assert_int_equal(parse_str(HEAD, &l), 1);
	assert_int_equal(parse_str(HEAD "load", &l), 1);
	/* a key twice, a key glued to another word, garbage after a number */
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=12 ino=13 index=0", &l), -1);
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=12 ino=12 index=0", &l), -1);
	assert_int_equal(parse_str(LOAD " dev=266338304 xino=12 index=0", &l), -1);
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=12x index=0", &l), -1);
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=-12 index=0", &l), -1);
	/* numbers past 64 bits: hex and decimal; the largest is taken */
	assert_int_equal(parse_str(ADD FOLIO " flags=0x10000000000000000 max_seq=3 min_seq=0", &l),
			 -1);
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=12 index=18446744073709551616", &l), -1);
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=12 index=99999999999999999999", &l), -1);
	assert_int_equal(parse_str(ADD FOLIO " flags=0xffffffffffffffff max_seq=3 min_seq=0", &l), 0);
	assert_true(l.flags == UINT64_MAX);
	assert_int_equal(parse_str(LOAD " dev=266338304 ino=12 index=18446744073709551615", &l), 0);
	assert_true(l.index == UINT64_MAX);
	/* the clock: exactly six digits of microseconds, then ": " */
	assert_int_equal(parse_str("   dd-150 [000] d..3.   3.15272: load: (x)" FOLIO, &l), -1);
	assert_int_equal(parse_str("   dd-150 [000] d..3.   3.1527250: load: (x)" FOLIO, &l), -1);
	assert_int_equal(parse_str("   dd-150 [000] d..3.   3: load: (x)" FOLIO, &l), -1);
	assert_int_equal(parse_str("   dd-150 [000] d..3.   .152725: load: (x)" FOLIO, &l), -1);
	assert_int_equal(parse_str("   dd-150 [000] d..3.   3.152725 load: (x)" FOLIO, &l), -1);
	assert_int_equal(parse_str("   dd-150 [000] d..3.   3.15a725: load: (x)" FOLIO, &l), -1);
	assert_int_equal(parse_str("   dd-150 [000] d..3.   3.152725: load: (x)" FOLIO, &l), 0);
	assert_int_equal(l.ts_ns, UINT64_C(3152725000));
	/* an event not ours, the trace file's header, the lost-events note, nothing */
	assert_int_equal(parse_str(HEAD "sched_switch: prev_comm=dd prev_pid=150", &l), 1);
	assert_int_equal(parse_str(HEAD "loads: (x)" FOLIO, &l), 1);
	assert_int_equal(parse_str(HEAD "lo: (x)" FOLIO, &l), 1);
	assert_int_equal(parse_str("# tracer: nop", &l), 1);
	assert_int_equal(parse_str("#                                _-----=> irqs-off/BH-disabled",
				   &l), 1);
	assert_int_equal(parse_str("CPU:0 [LOST 12 EVENTS]", &l), 1);
	assert_int_equal(parse_str("", &l), 1);
	assert_int_equal(tracer_parse_line("", 0, &l), 1);
	/* an add without its flags, window or either end of it */
	assert_int_equal(parse_str(ADD FOLIO, &l), -1);
	assert_int_equal(parse_str(ADD FOLIO " flags=0x1 max_seq=3", &l), -1);
	assert_int_equal(parse_str(ADD FOLIO " flags=0x1 min_seq=0", &l), -1);
	/* a load needs none of them, and ignores them */
	assert_int_equal(parse_str(LOAD FOLIO " flags=0x1", &l), 0);
	assert_int_equal(l.flags, 0);
	/* a NUL inside the line is not a number's end */
	memcpy(buf, LOAD FOLIO, sizeof(LOAD FOLIO));
	buf[sizeof(LOAD FOLIO) - 2] = '\0';
	assert_int_equal(tracer_parse_line(buf, sizeof(LOAD FOLIO) - 1, &l), -1);
	/* a task name with spaces is fine; the first " [N] " is the CPU */
	assert_int_equal(parse_str("   my task-150     [000] d..3.     3.152725: load: (x)" FOLIO,
				   &l), 0);
	assert_int_equal(l.kind, TR_LOAD);
}

static void test_hostile_decode(void **state)
{
	struct tracer_conf cf = conf(0), two = conf(0), none = conf(1);
	struct proto_trace *o = calloc(1, sizeof(*o));

	(void)state;
	assert_non_null(o);
	assert_int_equal(decode_str(&cf, add_line(16, GEN(1), 3, 0), o), 0);
	assert_int_equal(o->place.v[0], PL_SECOND);
	/* a device or an index the kernel's filter would not have let through */
	assert_int_equal(decode_str(&cf, ADD " dev=266338305 ino=12 index=0 flags=0x1 "
				    "max_seq=3 min_seq=0", o), -1);
	assert_int_equal(decode_str(&cf, LOAD " dev=0 ino=12 index=0", o), -1);
	assert_int_equal(decode_str(&cf, LOAD " dev=266338304 ino=12 index=17", o), -1);
	assert_int_equal(decode_str(&cf, LOAD " dev=266338304 ino=12 index=8", o), -1);
	assert_int_equal(decode_str(&cf, add_line(24, GEN(1), 3, 0), o), -1);
	/* the file's last sampled page, and the first beyond it */
	assert_int_equal(decode_str(&cf, LOAD " dev=266338304 ino=12 index=4080", o), 0);
	assert_int_equal(decode_str(&cf, LOAD " dev=266338304 ino=12 index=4096", o), -1);
	/* an inode not traced; with two declared files, the untraced one */
	assert_int_equal(decode_str(&cf, LOAD " dev=266338304 ino=13 index=0", o), -1);
	two.nfiles = 2;
	two.ino[1] = 13;
	two.pages[1] = 32;
	assert_int_equal(decode_str(&two, LOAD " dev=266338304 ino=13 index=16", o), -1);
	two.traced = 2;
	assert_int_equal(decode_str(&two, LOAD " dev=266338304 ino=13 index=16", o), 0);
	assert_int_equal(decode_str(&two, LOAD " dev=266338304 ino=13 index=32", o), -1);
	assert_int_equal(decode_str(&two, LOAD " dev=266338304 ino=12 index=16", o), -1);
	/* the whole disk: any inode of it, the declared ones within their size */
	two.traced = 0;
	assert_int_equal(decode_str(&two, LOAD " dev=266338304 ino=99 index=1024", o), 0);
	assert_int_equal(o->ino.v[0], 99);
	assert_int_equal(decode_str(&two, LOAD " dev=266338304 ino=13 index=32", o), -1);
	/* no layout: no add is believed, the rest are */
	assert_int_equal(decode_str(&none, add_line(0, GEN(1), 3, 0), o), -1);
	assert_int_equal(decode_str(&none, LOAD FOLIO, o), 0);

	/* generations in and out of the window min_seq..max_seq */
	assert_int_equal(decode_str(&cf, add_line(0, GEN(3), 3, 3), o), 0);
	assert_int_equal(o->place.v[0], PL_OLDEST);
	assert_int_equal(o->gen.v[0], 3);
	assert_int_equal(decode_str(&cf, add_line(0, GEN(2), 3, 3), o), -1);    /* seq 2 < 3 */
	assert_int_equal(decode_str(&cf, add_line(0, GEN(0), 3, 3), o), -1);    /* seq 0 */
	assert_int_equal(decode_str(&cf, add_line(0, GEN(2), 6, 3), o), 0);     /* seq 6 */
	assert_int_equal(o->place.v[0], PL_YOUNGER);
	assert_int_equal(o->gen.v[0], 6);
	assert_int_equal(decode_str(&cf, add_line(0, GEN(0), 6, 3), o), 0);     /* seq 4 */
	assert_int_equal(o->place.v[0], PL_SECOND);
	assert_int_equal(decode_str(&cf, add_line(0, GEN(3), 7, 3), o), -1);    /* 5 wide */
	assert_int_equal(decode_str(&cf, add_line(0, GEN(3), 3, 4), o), -1);    /* min > max */
	/* field 5..7 is no generation (MAX_NR_GENS is 4) */
	assert_int_equal(decode_str(&cf, add_line(0, GEN(4), 3, 0), o), -1);
	assert_int_equal(decode_str(&cf, add_line(0, GEN(6), 3, 0), o), -1);
	/* a seq below 0: generation 3 with max_seq 1 would be seq -2 */
	assert_int_equal(decode_str(&cf, add_line(0, GEN(3), 1, 0), o), -1);
	assert_int_equal(decode_str(&cf, add_line(0, GEN(2), 1, 0), o), -1);
	assert_int_equal(decode_str(&cf, add_line(0, GEN(1), 1, 0), o), 0);
	assert_int_equal(o->gen.v[0], 1);
	/* a huge window's seqs, near 2^62 */
	assert_int_equal(decode_str(&cf, add_line(0, GEN(0), (UINT64_C(1) << 62) + 3,
						  UINT64_C(1) << 62), o), 0);
	assert_true(o->gen.v[0] == (UINT64_C(1) << 62) + 0 && o->place.v[0] == PL_OLDEST);
	/* the classic LRU: no generation field; PG_active (bit 8) says which list */
	assert_int_equal(decode_str(&cf, add_line(0, 0x808, 3, 0), o), 0);
	assert_int_equal(o->place.v[0], PL_INACTIVE);
	assert_true(!o->gen.v[0] && !o->min_seq.v[0] && !o->max_seq.v[0]);
	assert_int_equal(decode_str(&cf, add_line(0, 0x100, 3, 0), o), 0);
	assert_int_equal(o->place.v[0], PL_ACTIVE);
	free(o);
}

/* ---- the layout table and the probes ---- */

static void test_layout_find(void **state)
{
	const struct tracer_layout *l = tracer_layout_find(RELEASE, "x86_64");

	(void)state;
	/* tests/flag_layout.sh on linux-headers-6.12.117+deb12-cloud-amd64 */
	assert_non_null(l);
	assert_int_equal(l->gen_pgoff, 27);
	assert_int_equal(l->gen_width, 3);
	assert_int_equal(l->pg_active, 8);
	assert_int_equal(l->min_seq_file_off, 152);
	assert_ptr_equal(tracer_layout_find("6.12.120+deb12-cloud-amd64", "x86_64"), l);
	assert_null(tracer_layout_find(RELEASE, "aarch64"));
	assert_null(tracer_layout_find("6.1.0-57-cloud-amd64", "x86_64"));
	assert_null(tracer_layout_find("6.12.117+deb12-amd64", "x86_64"));
	assert_null(tracer_layout_find("6.12.117+deb12-cloud-arm64", "aarch64"));
	assert_null(tracer_layout_find("6.12.117+deb12-cloud-amd64-dbg", "x86_64"));
	assert_null(tracer_layout_find("6.120.1+deb12-cloud-amd64x", "x86_64"));
	assert_null(tracer_layout_find("", "x86_64"));
	assert_null(tracer_layout_find("+deb12-cloud-amd64", "x86_64"));
}

static unsigned count_char(const char *s, char c)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static void test_probe_text(void **state)
{
	const struct tracer_layout *l = tracer_layout_find(RELEASE, "x86_64");
	static const char *const names[] = { "load", "add", "access", "promote", "activate",
					     "remove" };
	char buf[4096], small[4096], want[64], *line, *save = NULL;
	int n, m;
	size_t i = 0;

	(void)state;
	n = tracer_probe_text(l, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));
	assert_int_equal(count_char(buf, '\n'), 6);
	assert_int_equal(buf[n - 1], '\n');
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		assert_true(i < 6);
		snprintf(want, sizeof(want), ":harness/%s ", names[i]);
		assert_non_null(strstr(line, want));
		assert_true(line[0] == 'f' || line[0] == 't');
		assert_non_null(strstr(line, " dev=folio->mapping->host->i_sb->s_dev:u32 "
				       "ino=folio->mapping->host->i_ino:u64 index=folio->index:u64"));
		if (!strcmp(names[i], "add")) {
			const char *tail = "min_seq=+152($arg1):u64";

			assert_true(strlen(line) > strlen(tail));
			assert_string_equal(line + strlen(line) - strlen(tail), tail);
			assert_non_null(strstr(line, "f:harness/add lru_add%return "));
		} else {
			assert_null(strstr(line, "min_seq"));
		}
	}
	assert_int_equal(i, 6);

	/* no layout: the add probe is left out */
	m = tracer_probe_text(NULL, buf, sizeof(buf));
	assert_true(m > 0 && m < n);
	assert_int_equal(count_char(buf, '\n'), 5);
	assert_null(strstr(buf, "harness/add "));
	assert_null(strstr(buf, "min_seq"));
	assert_non_null(strstr(buf, "t:harness/load mm_filemap_add_to_page_cache "));
	assert_non_null(strstr(buf, "t:harness/remove mm_filemap_delete_from_page_cache "));

	/* the buffer: its text and NUL exactly, or -1 */
	assert_int_equal(tracer_probe_text(l, small, (size_t)n + 1), n);
	assert_int_equal(strlen(small), (size_t)n);
	assert_int_equal(tracer_probe_text(l, small, (size_t)n), -1);
	assert_int_equal(tracer_probe_text(l, small, 10), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_mglru),
		cmocka_unit_test(test_lines_classic),
		cmocka_unit_test(test_line_fields),
		cmocka_unit_test(test_decode_mglru),
		cmocka_unit_test(test_decode_classic),
		cmocka_unit_test(test_drain_files),
		cmocka_unit_test(test_drain_pieces),
		cmocka_unit_test(test_hostile_parse),
		cmocka_unit_test(test_hostile_decode),
		cmocka_unit_test(test_layout_find),
		cmocka_unit_test(test_probe_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
