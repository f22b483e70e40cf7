/* test_proto.c -- unit tests for common/proto.c and proto_job.c (the v2 channel protocol and
 * the job's option tables, both sides share them) and channel_take_line()
 * from harness/vm/channel.c: every message round-trips through proto_format /
 * proto_parse field for field, the strict parser refuses every malformed,
 * oversized or out-of-range line, and a job's files and streams are checked
 * against their tables and the kind-specific rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/types.h>

#include <cmocka.h>
#include <jansson.h>

#include "vm/channel.h"
#include "common/fmt.h"
#include "common/proto.h"
#include "testlib.h"

static char err[PROTO_ERR_MAX];

/* ---- helpers ---- */

/* A job message line around a workload object (written with '). */
static const char *job_line(const char *workload)
{
	static char buf[PROTO_LINE_MAX * 2];
	int n = snprintf(buf, sizeof(buf), "{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\","
			 "\"thp_enabled\":\"\",\"thp_defrag\":\"\",\"mthp\":\"\",\"seed\":\"%064d\","
			 "\"host_ms\":1,"
			 "\"workload\":%s}", 0, jq(workload));

	assert_true(n > 0 && (size_t)n < sizeof(buf));
	return buf;
}

/* Parse a NUL-terminated line; on success err is cleared. */
static int parse(const char *line, struct proto_msg *m)
{
	err[0] = '\0';
	return proto_parse(line, strlen(line), m, err, sizeof(err));
}

static struct proto_msg *new_msg(void)
{
	struct proto_msg *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	return m;
}

/* The line must be refused with a reason containing want. */
static void refuse(const char *line, const char *want)
{
	struct proto_msg *m = new_msg();
	int rc = parse(line, m);

	free(m);
	if (rc == 0)
		fail_msg("accepted: %s", line);
	if (!strstr(err, want))
		fail_msg("line %s: error '%s' lacks '%s'", line, err, want);
}

/* A workload object (written with ') must be refused in a job message with want. */
static void refuse_job(const char *workload, const char *want)
{
	refuse(job_line(workload), want);
}

/* Parse a workload object (written with ') with proto_job_from_json. */
static int job_from_text(const char *text, struct proto_job *job)
{
	json_error_t jerr;
	json_t *obj = json_loads(jq(text), JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	if (!obj)
		fail_msg("test JSON does not load: %s: %s", text, jerr.text);
	err[0] = '\0';
	rc = proto_job_from_json(obj, job, "wl", err, sizeof(err));
	json_decref(obj);
	return rc;
}

/* Format m, check the line shape, parse it back into out; returns the line. */
static char *round_trip(const struct proto_msg *m, struct proto_msg *out)
{
	static char line[PROTO_LINE_MAX];
	char *again = malloc(PROTO_LINE_MAX);
	int n, n2;

	assert_non_null(again);
	n = proto_format(m, line, sizeof(line));
	assert_true(n > 1);
	assert_int_equal((size_t)n, strlen(line));
	assert_true(n < PROTO_LINE_MAX);
	assert_int_equal(line[n - 1], '\n');
	assert_null(memchr(line, '\n', (size_t)n - 1));   /* exactly one line */
	memset(out, 0x5a, sizeof(*out));
	if (proto_parse(line, (size_t)n - 1, out, err, sizeof(err)) < 0)
		fail_msg("own line refused: %s: %s", line, err);
	assert_int_equal(out->type, m->type);
	/* formatting the parsed message gives the same bytes */
	n2 = proto_format(out, again, PROTO_LINE_MAX);
	assert_int_equal(n2, n);
	assert_string_equal(again, line);
	free(again);
	line[n - 1] = '\0';
	return line;
}

/* line (a JSON object) with key set to v (stolen), or removed if v is NULL. */
static char *mutate(const char *line, const char *key, json_t *v)
{
	json_t *root = json_loads(line, 0, NULL);
	char *s;

	assert_non_null(root);
	if (v)
		json_object_set_new(root, key, v);
	else
		assert_int_equal(json_object_del(root, key), 0);
	s = json_dumps(root, JSON_COMPACT);
	assert_non_null(s);
	json_decref(root);
	return s;
}

static void refuse_mutated(const char *line, const char *key, json_t *v, const char *want)
{
	char *s = mutate(line, key, v);

	refuse(s, want);
	free(s);
}

static void assert_u64s_equal(const struct proto_u64s *a, const struct proto_u64s *b)
{
	uint64_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++)
		assert_int_equal(a->v[i], b->v[i]);
}

/* Every field of two jobs but the streams' "given" bits. */
static void assert_job_equal(const struct proto_job *a, const struct proto_job *b)
{
	unsigned i;

	assert_int_equal(a->run, b->run);
	assert_string_equal(a->lru_gen, b->lru_gen);
	assert_int_equal(a->memcg_mib, b->memcg_mib);
	assert_int_equal(a->duration_s, b->duration_s);
	assert_int_equal(a->interval_ms, b->interval_ms);
	assert_int_equal(a->ramp_s, b->ramp_s);
	assert_int_equal(a->trace_sample, b->trace_sample);
	assert_memory_equal(&a->swap, &b->swap, sizeof(a->swap));
	assert_int_equal(a->swap_max_mib, b->swap_max_mib);
	assert_int_equal(a->swappiness, b->swappiness);
	assert_int_equal(a->nfiles, b->nfiles);
	assert_int_equal(a->nstreams, b->nstreams);
	for (i = 0; i < a->nfiles; i++) {
		assert_string_equal(a->files[i].name, b->files[i].name);
		assert_int_equal(a->files[i].mib, b->files[i].mib);
		assert_int_equal(a->files[i].content, b->files[i].content);
	}
	for (i = 0; i < a->nstreams; i++) {
		const struct proto_stream *x = &a->streams[i], *y = &b->streams[i];

		assert_int_equal(x->kind, y->kind);
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->file, y->file);
		assert_true(x->start_s == y->start_s);
		assert_true(x->duration_s == y->duration_s);
		assert_int_equal(x->threads, y->threads);
		assert_int_equal(x->access, y->access);
		assert_int_equal(x->dist, y->dist);
		assert_true(x->theta == y->theta);
		assert_true(x->rate == y->rate);
		assert_int_equal(x->advice, y->advice);
		assert_true(x->miss_us == y->miss_us);
		assert_true(x->miss_factor == y->miss_factor);
		assert_int_equal(x->chunk_kib, y->chunk_kib);
		assert_int_equal(x->passes, y->passes);
		assert_true(x->gap_s == y->gap_s);
		assert_true(x->rate_mibs == y->rate_mibs);
		assert_int_equal(x->mode, y->mode);
		assert_int_equal(x->trace_sample, y->trace_sample);
		assert_string_equal(x->args, y->args);
		assert_string_equal(x->jobfile, y->jobfile);
	}
}

/* Two files, one stream of each kind, every option away from its default. */
#define JOB_FULL                                                                        \
	"{'memcg_mib':96,'duration_s':120,'interval_ms':250,'ramp_s':5,"                \
	"'files':[{'name':'data','mib':192,'content':'zero'},"                          \
	"{'name':'scan.bin','mib':512,'content':'random'}],"                            \
	"'streams':["                                                                   \
	"{'kind':'random','name':'hot','file':'data','start_s':1.5,'duration_s':60,"    \
	"'threads':4,'access':'mmap','distribution':'zipf','theta':1.1,'rate':5000,"    \
	"'advice':'random','miss_us':50.5,'miss_factor':8},"                            \
	"{'kind':'scan','name':'cold','file':'scan.bin','start_s':10,"                  \
	"'duration_s':30.25,'access':'mmap','chunk_kib':256,'passes':3,'gap_s':2.5,"    \
	"'rate_mibs':100,'mode':'fadv_random'},"                                        \
	"{'kind':'fio','name':'fio1','start_s':20,'duration_s':45,"                     \
	"'args':'--name=x --rw=randread --bs=4k --size=8M','jobfile':'[g]'}]}"

/* The values JOB_FULL spells out. */
static void assert_job_full(const struct proto_job *j)
{
	const struct proto_stream *r = &j->streams[0], *s = &j->streams[1], *f = &j->streams[2];

	assert_int_equal(j->memcg_mib, 96);
	assert_int_equal(j->duration_s, 120);
	assert_int_equal(j->interval_ms, 250);
	assert_int_equal(j->ramp_s, 5);
	assert_int_equal(j->nfiles, 2);
	assert_int_equal(j->nstreams, 3);
	assert_string_equal(j->files[0].name, "data");
	assert_int_equal(j->files[0].mib, 192);
	assert_int_equal(j->files[0].content, CONTENT_ZERO);
	assert_string_equal(j->files[1].name, "scan.bin");
	assert_int_equal(j->files[1].mib, 512);
	assert_int_equal(j->files[1].content, CONTENT_RANDOM);

	assert_int_equal(r->kind, KIND_RANDOM);
	assert_string_equal(r->name, "hot");
	assert_string_equal(r->file, "data");
	assert_true(r->start_s == 1.5);
	assert_true(r->duration_s == 60);
	assert_int_equal(r->threads, 4);
	assert_int_equal(r->access, ACC_MMAP);
	assert_int_equal(r->dist, DIST_ZIPF);
	assert_true(r->theta == 1.1);
	assert_true(r->rate == 5000);
	assert_int_equal(r->advice, ADV_RANDOM);
	assert_true(r->miss_us == 50.5);
	assert_true(r->miss_factor == 8);

	assert_int_equal(s->kind, KIND_SCAN);
	assert_string_equal(s->name, "cold");
	assert_string_equal(s->file, "scan.bin");
	assert_true(s->start_s == 10);
	assert_true(s->duration_s == 30.25);
	assert_int_equal(s->access, ACC_MMAP);
	assert_int_equal(s->chunk_kib, 256);
	assert_int_equal(s->passes, 3);
	assert_true(s->gap_s == 2.5);
	assert_true(s->rate_mibs == 100);
	assert_int_equal(s->mode, MODE_FADV_RANDOM);

	assert_int_equal(f->kind, KIND_FIO);
	assert_string_equal(f->name, "fio1");
	assert_string_equal(f->file, "");
	assert_true(f->start_s == 20);
	assert_true(f->duration_s == 45);
	assert_string_equal(f->args, "--name=x --rw=randread --bs=4k --size=8M");
	assert_string_equal(f->jobfile, "[g]");

	assert_int_equal(proto_job_file(j, "data"), 0);
	assert_int_equal(proto_job_file(j, "scan.bin"), 1);
	assert_int_equal(proto_job_file(j, "nope"), -1);
	assert_string_equal(proto_enum_name(proto_kind_random.opts, r, "access"), "mmap");
	assert_string_equal(proto_enum_name(proto_kind_random.opts, r, "distribution"), "zipf");
	assert_string_equal(proto_enum_name(proto_kind_scan.opts, s, "mode"), "fadv_random");
	assert_string_equal(proto_enum_name(proto_stream_opts, f, "kind"), "fio");
	assert_string_equal(proto_enum_name(proto_file_opts, &j->files[0], "content"), "zero");
}

/* ---- round trips ---- */

static void test_rt_hello(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg();

	(void)state;
	m->type = PROTO_HELLO;
	m->u.hello.proto = PROTO_VERSION;
	strcpy(m->u.hello.release, "6.12.99-test");
	strcpy(m->u.hello.arch, "x86_64");
	m->u.hello.page_size = 4096;
	m->u.hello.mem_total_kib = 412345;
	strcpy(m->u.hello.lru_gen_caps, "0x0007");
	m->u.hello.cachestat = 1;
	m->u.hello.dontcache = 1;
	strcpy(m->u.hello.fio, "fio-3.38");
	round_trip(m, o);
	assert_int_equal(o->u.hello.proto, PROTO_VERSION);
	assert_string_equal(o->u.hello.release, "6.12.99-test");
	assert_string_equal(o->u.hello.arch, "x86_64");
	assert_int_equal(o->u.hello.page_size, 4096);
	assert_int_equal(o->u.hello.mem_total_kib, 412345);
	assert_string_equal(o->u.hello.lru_gen_caps, "0x0007");
	assert_int_equal(o->u.hello.cachestat, 1);
	assert_int_equal(o->u.hello.dontcache, 1);
	assert_string_equal(o->u.hello.fio, "fio-3.38");

	/* empty strings, zeros and the largest values in range survive too */
	m->u.hello.lru_gen_caps[0] = '\0';
	m->u.hello.fio[0] = '\0';
	m->u.hello.cachestat = 0;
	m->u.hello.dontcache = 0;
	m->u.hello.page_size = UINT64_C(1) << 20;
	m->u.hello.mem_total_kib = UINT64_C(1) << 40;
	memset(m->u.hello.release, 'r', PROTO_STR_MAX - 1);
	m->u.hello.release[PROTO_STR_MAX - 1] = '\0';
	memset(m->u.hello.fio, 'f', sizeof(m->u.hello.fio) - 1);
	m->u.hello.fio[sizeof(m->u.hello.fio) - 1] = '\0';
	round_trip(m, o);
	assert_string_equal(o->u.hello.lru_gen_caps, "");
	assert_int_equal(o->u.hello.cachestat, 0);
	assert_int_equal(o->u.hello.dontcache, 0);
	assert_int_equal(o->u.hello.page_size, UINT64_C(1) << 20);
	assert_int_equal(o->u.hello.mem_total_kib, UINT64_C(1) << 40);
	assert_int_equal(strlen(o->u.hello.release), PROTO_STR_MAX - 1);
	assert_string_equal(o->u.hello.fio, m->u.hello.fio);
	free(m);
	free(o);
}

static void test_rt_job(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg(), *o2 = new_msg();

	(void)state;
	m->type = PROTO_JOB;
	assert_int_equal(job_from_text(JOB_FULL, &m->u.job), 0);
	m->u.job.run = 123456789;
	strcpy(m->u.job.lru_gen, "y");
	strcpy(m->u.job.mthp, "64K:always 2048K:inherit");
	assert_job_full(&m->u.job);
	round_trip(m, o);
	assert_int_equal(o->u.job.run, 123456789);
	assert_string_equal(o->u.job.lru_gen, "y");
	assert_string_equal(o->u.job.mthp, "64K:always 2048K:inherit");
	assert_job_full(&o->u.job);
	assert_job_equal(&o->u.job, &m->u.job);
	/* parsed from its own line twice: byte for byte the same job */
	round_trip(o, o2);
	assert_memory_equal(&o->u.job, &o2->u.job, sizeof(o->u.job));

	/* an empty lru_gen, the largest run */
	m->u.job.lru_gen[0] = '\0';
	m->u.job.run = UINT64_C(1) << 53;
	round_trip(m, o);
	assert_string_equal(o->u.job.lru_gen, "");
	assert_int_equal(o->u.job.run, UINT64_C(1) << 53);
	assert_job_equal(&o->u.job, &m->u.job);
	free(m);
	free(o);
	free(o2);
}

static void test_rt_setup(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg();

	(void)state;
	m->type = PROTO_SETUP;
	strcpy(m->u.setup.lru_gen, "0x0007");
	strcpy(m->u.setup.thp_enabled, "madvise");
	strcpy(m->u.setup.thp_defrag, "defer+madvise");
	strcpy(m->u.setup.mthp, "16K:never 32K:never 64K:always 128K:never 256K:never 512K:never "
	       "1024K:never 2048K:inherit");
	strcpy(m->u.setup.residency, "cachestat");
	m->u.setup.file_pages.n = 3;
	m->u.setup.file_pages.v[0] = 49152;
	m->u.setup.file_pages.v[1] = 0;
	m->u.setup.file_pages.v[2] = UINT64_C(1) << 40;
	round_trip(m, o);
	assert_string_equal(o->u.setup.lru_gen, "0x0007");
	assert_string_equal(o->u.setup.thp_enabled, "madvise");
	assert_string_equal(o->u.setup.thp_defrag, "defer+madvise");
	assert_string_equal(o->u.setup.mthp, m->u.setup.mthp);
	assert_string_equal(o->u.setup.residency, "cachestat");
	assert_u64s_equal(&o->u.setup.file_pages, &m->u.setup.file_pages);

	/* no files, and all PROTO_MAX_FILES */
	m->u.setup.file_pages.n = 0;
	strcpy(m->u.setup.residency, "mincore");
	round_trip(m, o);
	assert_int_equal(o->u.setup.file_pages.n, 0);
	assert_string_equal(o->u.setup.residency, "mincore");
	m->u.setup.file_pages.n = PROTO_MAX_FILES;
	for (unsigned i = 0; i < PROTO_MAX_FILES; i++)
		m->u.setup.file_pages.v[i] = 1000 + i;
	round_trip(m, o);
	assert_u64s_equal(&o->u.setup.file_pages, &m->u.setup.file_pages);
	free(m);
	free(o);
}

static void test_rt_sample(void **state)
{
	struct proto_msg *msg = new_msg(), *o = new_msg();
	uint64_t k;

	(void)state;
	msg->type = PROTO_SAMPLE;
	/* every field at its bound */
#define X(m, key, max) msg->u.sample.m = (max);
	PROTO_SAMPLE_FIELDS(X)
#undef X
	msg->u.sample.resident.n = 2;
	msg->u.sample.resident.v[0] = 12345;
	msg->u.sample.resident.v[1] = UINT64_C(1) << 40;
	round_trip(msg, o);
#define X(m, key, max) assert_int_equal(o->u.sample.m, (max));
	PROTO_SAMPLE_FIELDS(X)
#undef X
	assert_u64s_equal(&o->u.sample.resident, &msg->u.sample.resident);

	/* distinct small values land in their own fields */
	k = 0;
#define X(m, key, max) msg->u.sample.m = ++k % ((max) + 1);
	PROTO_SAMPLE_FIELDS(X)
#undef X
	msg->u.sample.resident.n = 0;
	round_trip(msg, o);
	k = 0;
#define X(m, key, max) assert_int_equal(o->u.sample.m, ++k % ((max) + 1));
	PROTO_SAMPLE_FIELDS(X)
#undef X
	assert_int_equal(o->u.sample.resident.n, 0);
	free(msg);
	free(o);
}

static void test_rt_stream(void **state)
{
	struct proto_msg *msg = new_msg(), *o = new_msg();
	uint64_t k;

	(void)state;
	msg->type = PROTO_STREAM;
#define X(m, key, max) msg->u.stream.m = (max);
	PROTO_STREAM_FIELDS(X)
#undef X
	round_trip(msg, o);
#define X(m, key, max) assert_int_equal(o->u.stream.m, (max));
	PROTO_STREAM_FIELDS(X)
#undef X
	assert_int_equal(o->u.stream.stream, PROTO_MAX_STREAMS - 1);

	k = 0;
#define X(m, key, max) msg->u.stream.m = ++k % ((max) + 1);
	PROTO_STREAM_FIELDS(X)
#undef X
	round_trip(msg, o);
	k = 0;
#define X(m, key, max) assert_int_equal(o->u.stream.m, ++k % ((max) + 1));
	PROTO_STREAM_FIELDS(X)
#undef X
	free(msg);
	free(o);
}

static void test_rt_op(void **state)
{
	struct proto_msg *msg = new_msg(), *o = new_msg();
	char *s;

	(void)state;
	msg->type = PROTO_OP;
#define X(m, key, max) msg->u.op.m = (max);
	PROTO_OP_FIELDS(X)
#undef X
	strcpy(msg->u.op.op, "rmw");
	s = round_trip(msg, o);
#define X(m, key, max) assert_int_equal(o->u.op.m, (max));
	PROTO_OP_FIELDS(X)
#undef X
	assert_string_equal(o->u.op.op, "rmw");
	/* every counter: max accepted above, max + 1 refused; the name is bounded text */
#define X(mm, key, max)                                                                    \
	refuse_mutated(s, key, json_integer((json_int_t)(max) + 1), "out of range");
	PROTO_OP_FIELDS(X)
#undef X
	refuse_mutated(s, "op", json_string("readmodifywrite-and-more"), "too long");
	refuse_mutated(s, "op", json_integer(1), "must be a string");
	assert_string_equal(proto_op_names[OP_RECLAIM], "reclaim");
	assert_null(proto_op_names[OP_COUNT]);
	free(msg);
	free(o);
}

static void test_rt_event(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg();
	unsigned i;

	(void)state;
	m->type = PROTO_EVENT;
	m->u.event.t_ms = 31415;
	m->u.event.stream = 2;
	strcpy(m->u.event.kind, "pass_end");
	m->u.event.pass = 3;
	m->u.event.value = 0;
	m->u.event.resident.n = PROTO_MAX_FILES;
	for (i = 0; i < PROTO_MAX_FILES; i++)
		m->u.event.resident.v[i] = (uint64_t)i * 4096;
	round_trip(m, o);
	assert_int_equal(o->u.event.t_ms, 31415);
	assert_int_equal(o->u.event.stream, 2);
	assert_string_equal(o->u.event.kind, "pass_end");
	assert_int_equal(o->u.event.pass, 3);
	assert_int_equal(o->u.event.value, 0);
	assert_u64s_equal(&o->u.event.resident, &m->u.event.resident);

	/* every event kind name fits its buffer and survives */
	for (i = 0; i < EV_COUNT; i++) {
		assert_non_null(proto_event_names[i]);
		assert_true(strlen(proto_event_names[i]) < sizeof(m->u.event.kind));
		strcpy(m->u.event.kind, proto_event_names[i]);
		m->u.event.value = UINT64_C(1) << 48;
		m->u.event.resident.n = 1;
		round_trip(m, o);
		assert_string_equal(o->u.event.kind, proto_event_names[i]);
		assert_int_equal(o->u.event.value, UINT64_C(1) << 48);
		assert_int_equal(o->u.event.resident.n, 1);
	}
	assert_null(proto_event_names[EV_COUNT]);
	assert_string_equal(proto_event_names[EV_CALIBRATED], "calibrated");
	free(m);
	free(o);
}

static void test_rt_summary(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg();

	(void)state;
	m->type = PROTO_SUMMARY;
	m->u.summary.duration_ms = 10003;
	m->u.summary.samples = UINT64_C(1) << 32;
	round_trip(m, o);
	assert_int_equal(o->u.summary.duration_ms, 10003);
	assert_int_equal(o->u.summary.samples, UINT64_C(1) << 32);
	assert_int_equal(o->u.summary.mthp_kib.n, 0);
	/* multi-size THP's counters, per size */
	m->u.summary.mthp_kib.n = m->u.summary.mthp_anon_fault_alloc.n = m->u.summary.mthp_swpout.n = 2;
	m->u.summary.mthp_kib.v[0] = 64;
	m->u.summary.mthp_kib.v[1] = 2048;
	m->u.summary.mthp_anon_fault_alloc.v[0] = 512;
	m->u.summary.mthp_anon_fault_alloc.v[1] = UINT64_C(1) << 48;
	m->u.summary.mthp_swpout.v[0] = 7;
	m->u.summary.mthp_swpout.v[1] = 0;
	round_trip(m, o);
	assert_u64s_equal(&o->u.summary.mthp_kib, &m->u.summary.mthp_kib);
	assert_u64s_equal(&o->u.summary.mthp_anon_fault_alloc, &m->u.summary.mthp_anon_fault_alloc);
	assert_u64s_equal(&o->u.summary.mthp_swpout, &m->u.summary.mthp_swpout);
	free(m);
	free(o);
}

/* A summary's multi-size THP counters: one of each per size, sizes powers of two, ascending. */
static void test_summary_mthp_refused(void **state)
{
#define SUM(kib, alloc, swpout) "{\"type\":\"summary\",\"duration_ms\":1,\"samples\":1," \
	"\"mthp_kib\":[" kib "],\"mthp_anon_fault_alloc\":[" alloc "],\"mthp_swpout\":[" swpout "]}"
	struct proto_msg *m = new_msg();

	(void)state;
	if (parse(SUM("16,64,2048", "0,9,1", "0,0,3"), m) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(m->u.summary.mthp_kib.n, 3);
	assert_int_equal(m->u.summary.mthp_swpout.v[2], 3);
	free(m);
	refuse(SUM("64", "1,2", "0"), "2 and 1 mthp counters for 1 sizes");
	refuse(SUM("64,32", "1,2", "0,0"), "mthp size 32 KiB is not a power of two above");
	refuse(SUM("64,64", "1,2", "0,0"), "mthp size 64 KiB");
	refuse(SUM("48", "1", "0"), "mthp size 48 KiB");
	refuse(SUM("2", "1", "0"), "mthp size 2 KiB");
	refuse(SUM("2097152", "1", "0"), "'mthp_kib' out of range");
	refuse("{\"type\":\"summary\",\"duration_ms\":1,\"samples\":1}", "field 'mthp_kib' missing");
#undef SUM
}

/* Multi-size THP lists (common/mthp.h): what parses, what is refused, one spelling back. */
static void test_mthp_list(void **state)
{
	struct mthp_list l;
	char out[MTHP_TEXT_MAX];
	uint64_t kib = 77;

	(void)state;
	assert_int_equal(mthp_list_parse("", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(mthp_list_parse("16K:never 64K:always 2048K:inherit", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.k[1].kib, 64);
	assert_int_equal(l.k[1].policy, MTHP_ALWAYS);
	assert_int_equal(mthp_list_find(&l, 2048), MTHP_INHERIT);
	assert_int_equal(mthp_list_find(&l, 32), -1);
	assert_int_equal(mthp_list_format(&l, out, sizeof(out)), 0);
	assert_string_equal(out, "16K:never 64K:always 2048K:inherit");
	/* too small for it: refused, not cut */
	assert_int_equal(mthp_list_format(&l, out, 20), -1);
	/* added out of order, kept ascending, each size once */
	memset(&l, 0, sizeof(l));
	assert_int_equal(mthp_list_add(&l, 2048, MTHP_NEVER), 0);
	assert_int_equal(mthp_list_add(&l, 8, MTHP_MADVISE), 0);
	assert_int_equal(mthp_list_add(&l, 8, MTHP_ALWAYS), -1);
	assert_int_equal(mthp_list_format(&l, out, sizeof(out)), 0);
	assert_string_equal(out, "8K:madvise 2048K:never");
	/* sizes: "<digits>K", a power of two, no other spelling */
	assert_int_equal(mthp_size_parse("1048576K", &kib), 0);
	assert_int_equal(kib, 1048576);
	for (const char *const *bad = (const char *const[]){ "64k", "3K", "064K", "64", "K", "",
			"64KB", "64K ", "+64K", "-64K", "2097152K", "2K", "../x", "99999999999K", NULL };
	     *bad; bad++) {
		kib = 77;
		if (mthp_size_parse(*bad, &kib) == 0)
			fail_msg("size '%s' accepted", *bad);
		assert_int_equal(kib, 77);
	}
	assert_int_equal(mthp_policy_parse("sometimes"), -1);
	assert_int_equal(mthp_policy_parse("inherit"), MTHP_INHERIT);
	/* lists: every entry SIZE:POLICY, one space apart, sizes strictly ascending */
	for (const char *const *bad = (const char *const[]){ "64K:always ", " 64K:always",
			"64K:always  128K:never", "64K", "64K:", ":always", "64K:sometimes",
			"128K:never 64K:always", "64K:never 64K:always", "64K:always,128K:never",
			"64K:alwaysalwaysalwaysalwaysalways", "3K:never", NULL };
	     *bad; bad++)
		if (mthp_list_parse(*bad, &l, err, sizeof(err)) == 0)
			fail_msg("list '%s' accepted", *bad);
	assert_int_equal(mthp_list_parse("128K:never 64K:always", &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'64K:always': sizes must ascend"));
}

static void test_rt_error(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg();

	(void)state;
	m->type = PROTO_ERROR;
	strcpy(m->u.error, "cannot open /data/data0: No such file or directory");
	round_trip(m, o);
	assert_string_equal(o->u.error, m->u.error);

	/* the longest message that fits its buffer */
	memset(m->u.error, 'e', PROTO_ERR_MAX - 1);
	m->u.error[PROTO_ERR_MAX - 1] = '\0';
	round_trip(m, o);
	assert_int_equal(strlen(o->u.error), PROTO_ERR_MAX - 1);
	free(m);
	free(o);
}

static void test_format_limits(void **state)
{
	struct proto_msg *m = new_msg();
	char small[16];

	(void)state;
	m->type = PROTO_SUMMARY;
	assert_int_equal(proto_format(m, small, sizeof(small)), -1);
	m->type = (enum proto_type)99;
	assert_int_equal(proto_format(m, small, sizeof(small)), -1);
	free(m);
}

/* A hand-written job line (keys in any order) parses field for field. */
static void test_parse_job_line(void **state)
{
	struct proto_msg *m = new_msg();
	char line[PROTO_LINE_MAX];

	(void)state;
	snprintf(line, sizeof(line), "{\"thp_enabled\":\"never\",\"mthp\":\"64K:always\","
		 "\"workload\":%s,\"lru_gen\":\"n\","
		 "\"run\":5,\"thp_defrag\":\"defer+madvise\",\"seed\":\"%s\","
		 "\"host_ms\":1796400000123,\"type\":\"job\"}", jq(JOB_FULL),
		 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	if (parse(line, m) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(m->type, PROTO_JOB);
	assert_int_equal(m->u.job.run, 5);
	assert_string_equal(m->u.job.lru_gen, "n");
	assert_string_equal(m->u.job.thp_enabled, "never");
	assert_string_equal(m->u.job.thp_defrag, "defer+madvise");
	/* parsed before the workload, kept through it */
	assert_string_equal(m->u.job.mthp, "64K:always");
	assert_string_equal(m->u.job.seed,
			    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	assert_true(m->u.job.host_ms == UINT64_C(1796400000123));
	assert_job_full(&m->u.job);
	free(m);
}

/* A job's seed: bytes to lowercase hex and back; anything else refused. */
static void test_hex(void **state)
{
	const unsigned char in[4] = { 0x00, 0x9f, 0xa0, 0xff };
	unsigned char out[4];
	char hex[9];

	(void)state;
	proto_hex(in, sizeof(in), hex);
	assert_string_equal(hex, "009fa0ff");
	assert_int_equal(proto_unhex(hex, out, sizeof(out)), 0);
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(proto_unhex("009FA0FF", out, sizeof(out)), -1);   /* upper case */
	assert_int_equal(proto_unhex("009fa0f", out, sizeof(out)), -1);    /* one short */
	assert_int_equal(proto_unhex("009fa0ff00", out, sizeof(out)), -1); /* one long */
	assert_int_equal(proto_unhex("009fa0fg", out, sizeof(out)), -1);
}

/* ---- the job: defaults, to_json/from_json ---- */

static void test_job_defaults(void **state)
{
	struct proto_job *j = calloc(1, sizeof(*j));
	const struct proto_stream *r, *s, *f;

	(void)state;
	assert_non_null(j);
	memset(j, 0xff, sizeof(*j));
	if (job_from_text("{'files':[{'name':'a','mib':8}],'streams':["
			  "{'kind':'random','file':'a'},{'kind':'scan','file':'a'},"
			  "{'kind':'fio','args':'--name=x'}]}", j) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(j->run, 0);
	assert_string_equal(j->lru_gen, "");
	assert_int_equal(j->memcg_mib, 256);
	assert_int_equal(j->duration_s, 10);
	assert_int_equal(j->interval_ms, 1000);
	assert_int_equal(j->ramp_s, 0);
	assert_int_equal(j->nfiles, 1);
	assert_int_equal(j->files[0].content, CONTENT_RANDOM);
	assert_int_equal(j->nstreams, 3);
	r = &j->streams[0];
	s = &j->streams[1];
	f = &j->streams[2];
	/* names s<index> */
	assert_string_equal(r->name, "s0");
	assert_string_equal(s->name, "s1");
	assert_string_equal(f->name, "s2");
	/* random */
	assert_true(r->start_s == 0 && r->duration_s == 0);
	assert_int_equal(r->threads, 1);
	assert_int_equal(r->access, ACC_PREAD);
	assert_int_equal(r->dist, DIST_UNIFORM);
	assert_true(r->theta == 0.9);
	assert_true(r->rate == 0);
	assert_int_equal(r->advice, ADV_NORMAL);
	assert_true(r->miss_us == 0);
	assert_true(r->miss_factor == 4);
	assert_int_equal(r->chunk_kib, 0);     /* a scan's options stay unset */
	assert_int_equal(r->passes, 0);
	/* scan */
	assert_int_equal(s->access, ACC_READ);
	assert_int_equal(s->chunk_kib, 1024);
	assert_int_equal(s->passes, 1);
	assert_true(s->gap_s == 0 && s->rate_mibs == 0);
	assert_int_equal(s->mode, MODE_NORMAL);
	assert_int_equal(s->threads, 0);       /* a random stream's options stay unset */
	assert_true(s->theta == 0);
	/* fio */
	assert_string_equal(f->args, "--name=x");
	assert_string_equal(f->jobfile, "");
	assert_string_equal(f->file, "");
	assert_int_equal(f->threads, 0);
	assert_int_equal(f->chunk_kib, 0);
	free(j);
}

/* to_json then from_json: the same job; and a job parsed from to_json is a fixed point. */
static void check_json_round_trip(const char *text)
{
	struct proto_job *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct proto_job *c = calloc(1, sizeof(*c));
	json_t *ja, *jb;
	char *sa, *sb;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	if (job_from_text(text, a) < 0)
		fail_msg("refused: %s", err);
	ja = proto_job_to_json(a);
	assert_non_null(ja);
	if (proto_job_from_json(ja, b, "again", err, sizeof(err)) < 0)
		fail_msg("own JSON refused: %s", err);
	assert_job_equal(a, b);
	/* everything given before is still given (to_json writes every option) */
	for (unsigned i = 0; i < a->nstreams; i++)
		assert_int_equal(a->streams[i].set & ~b->streams[i].set, 0);
	jb = proto_job_to_json(b);
	assert_non_null(jb);
	assert_int_equal(proto_job_from_json(jb, c, "again", err, sizeof(err)), 0);
	assert_memory_equal(b, c, sizeof(*b));
	/* and the JSON of both is the same text */
	sa = json_dumps(ja, JSON_COMPACT | JSON_SORT_KEYS);
	sb = json_dumps(jb, JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(sa);
	assert_non_null(sb);
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	json_decref(ja);
	json_decref(jb);
	free(a);
	free(b);
	free(c);
}

static void test_job_json_round_trip(void **state)
{
	struct proto_job *j = calloc(1, sizeof(*j));
	json_t *o, *st;

	(void)state;
	check_json_round_trip(JOB_FULL);
	check_json_round_trip("{'files':[{'name':'a','mib':8}],'streams':["
			      "{'kind':'random','file':'a'},{'kind':'scan','file':'a'},"
			      "{'kind':'fio','args':'--name=x'}]}");
	/* anonymous memory: every option, and a job of it alone declares no files */
	check_json_round_trip("{'streams':[{'kind':'anon','mib':64,'backing':'shmem',"
			      "'fill':'compressible','ratio':3.5,'threads':2,'access':'write',"
			      "'distribution':'zipf','theta':1.1,'rate':5000,'madvise':'pageout',"
			      "'madvise_at_s':2,'miss_us':50,'miss_factor':8}]}");
	check_json_round_trip("{'streams':[{'kind':'anon','mib':1,'distribution':'sequential',"
			      "'madvise':'hugepage','fill':'zero'}]}");
	check_json_round_trip("{'duration_s':600,'files':[{'name':'a','mib':8},{'name':'b','mib':9}],"
			      "'streams':[{'kind':'scan','file':'b','mode':'dontcache'},"
			      "{'kind':'random','file':'a','theta':0.123456789012345,"
			      "'distribution':'zipf','rate':0.1}]}");

	/* to_json writes a stream's own options only, defaults included */
	assert_int_equal(job_from_text("{'files':[{'name':'a','mib':8}],'streams':["
				       "{'kind':'random','file':'a'},{'kind':'fio','args':'--name=x'}]}",
				       j), 0);
	o = proto_job_to_json(j);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "memcg_mib")), 256);
	st = json_array_get(json_object_get(o, "streams"), 0);
	assert_string_equal(json_string_value(json_object_get(st, "kind")), "random");
	assert_string_equal(json_string_value(json_object_get(st, "access")), "pread");
	assert_true(json_number_value(json_object_get(st, "theta")) == 0.9);
	assert_null(json_object_get(st, "passes"));
	assert_null(json_object_get(st, "args"));
	st = json_array_get(json_object_get(o, "streams"), 1);
	assert_string_equal(json_string_value(json_object_get(st, "args")), "--name=x");
	assert_null(json_object_get(st, "file"));
	assert_null(json_object_get(st, "jobfile"));   /* empty strings are left out */
	assert_null(json_object_get(st, "threads"));
	assert_null(json_object_get(o, "run"));
	assert_null(json_object_get(o, "lru_gen"));
	json_decref(o);
	free(j);
}

/* ---- refusals: the line and its fields ---- */

static void test_refuse_shape(void **state)
{
	(void)state;
	refuse("", "not JSON");
	refuse("hello", "not JSON");
	refuse("{\"type\":\"error\",\"msg\":\"x\"", "not JSON");
	refuse("{\"type\":\"error\",\"msg\":\"x\"} trailing", "not JSON");
	refuse("[\"error\",\"x\"]", "not a JSON object");
	/* a bare scalar: jansson itself wants an object or array at top level */
	refuse("42", "not JSON");
	refuse("[]", "not a JSON object");
	refuse("{\"type\":\"goodbye\"}", "unknown message type");
	refuse("{\"type\":1,\"msg\":\"x\"}", "unknown message type");
	refuse("{\"msg\":\"x\"}", "unknown message type");
	refuse("{\"type\":\"ERROR\",\"msg\":\"x\"}", "unknown message type");
}

/* One valid line of each type, as the sides format them. */
static char **valid_lines(void)
{
	static char *lines[8];
	struct proto_msg *m = new_msg(), *o = new_msg();
	int i = 0;

	if (lines[0]) {
		free(m);
		free(o);
		return lines;
	}
	m->type = PROTO_HELLO;
	strcpy(m->u.hello.release, "6.12.0");
	lines[i++] = strdup(round_trip(m, o));
	memset(m, 0, sizeof(*m));
	m->type = PROTO_JOB;
	assert_int_equal(job_from_text(JOB_FULL, &m->u.job), 0);
	lines[i++] = strdup(round_trip(m, o));
	memset(m, 0, sizeof(*m));
	m->type = PROTO_SETUP;
	m->u.setup.file_pages.n = 2;
	lines[i++] = strdup(round_trip(m, o));
	memset(m, 0, sizeof(*m));
	m->type = PROTO_SAMPLE;
	m->u.sample.resident.n = 2;
	lines[i++] = strdup(round_trip(m, o));
	memset(m, 0, sizeof(*m));
	m->type = PROTO_STREAM;
	lines[i++] = strdup(round_trip(m, o));
	memset(m, 0, sizeof(*m));
	m->type = PROTO_EVENT;
	strcpy(m->u.event.kind, "start");
	m->u.event.resident.n = 1;
	lines[i++] = strdup(round_trip(m, o));
	memset(m, 0, sizeof(*m));
	m->type = PROTO_SUMMARY;
	lines[i++] = strdup(round_trip(m, o));
	memset(m, 0, sizeof(*m));
	m->type = PROTO_ERROR;
	strcpy(m->u.error, "x");
	lines[i++] = strdup(round_trip(m, o));
	for (i = 0; i < 8; i++)
		assert_non_null(lines[i]);
	free(m);
	free(o);
	return lines;
}

/* Every field of every type: missing is refused by name; an extra one too. */
static void test_refuse_missing_extra(void **state)
{
	char **lines = valid_lines(), want[96];
	const char *key;
	json_t *root, *v;
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		root = json_loads(lines[i], 0, NULL);
		assert_non_null(root);
		json_object_foreach(root, key, v) {
			if (!strcmp(key, "type"))
				continue;
			snprintf(want, sizeof(want), "field '%s' missing", key);
			refuse_mutated(lines[i], key, NULL, want);
		}
		refuse_mutated(lines[i], "extra", json_integer(0), "unexpected fields");
		refuse_mutated(lines[i], "Type", json_string("x"), "unexpected fields");
		json_decref(root);
	}
	refuse("{\"type\":\"error\"}", "error: field 'msg' missing");
}

static void test_refuse_types(void **state)
{
	char **lines = valid_lines();
	const char *sample = lines[3], *error = lines[7], *hello = lines[0];

	(void)state;
	/* integers: a string, a real, a boolean, null, an array */
	refuse_mutated(sample, "pgscan", json_string("1"), "'pgscan' must be an integer");
	refuse_mutated(sample, "pgscan", json_real(1.0), "'pgscan' must be an integer");
	refuse_mutated(sample, "pgscan", json_true(), "'pgscan' must be an integer");
	refuse_mutated(sample, "pgscan", json_null(), "'pgscan' must be an integer");
	refuse_mutated(sample, "pgscan", json_pack("[i]", 1), "'pgscan' must be an integer");
	/* strings */
	refuse_mutated(error, "msg", json_integer(7), "'msg' must be a string");
	refuse_mutated(error, "msg", json_null(), "'msg' must be a string");
	refuse_mutated(hello, "fio", json_false(), "'fio' must be a string");
	/* arrays */
	refuse_mutated(sample, "resident", json_integer(3), "'resident' must be an array");
	refuse_mutated(sample, "resident", json_object(), "'resident' must be an array");
	refuse_mutated(lines[2], "file_pages", json_string("1,2"), "'file_pages' must be an array");
	/* the workload */
	refuse_mutated(lines[1], "workload", json_array(), "job: expected an object");
	refuse_mutated(lines[1], "workload", json_string("{}"), "job: expected an object");
	refuse_mutated(lines[1], "run", json_real(1.5), "'run' must be an integer");
}

static void test_refuse_ranges(void **state)
{
	char **lines = valid_lines(), want[96];
	const char *hello = lines[0];
	struct proto_msg *m = new_msg();
	char *s;

	(void)state;
	/* negative */
	refuse_mutated(lines[6], "samples", json_integer(-1), "'samples' out of range: -1");
	refuse_mutated(lines[1], "run", json_integer(-5), "'run' out of range");
	/* every sample and stream field: max accepted above, max + 1 refused */
#define X(mm, key, max)                                                                    \
	snprintf(want, sizeof(want), "field '%s' out of range", key);                      \
	refuse_mutated(lines[3], key, json_integer((json_int_t)(max) + 1), want);
	PROTO_SAMPLE_FIELDS(X)
#undef X
#define X(mm, key, max)                                                                    \
	snprintf(want, sizeof(want), "field '%s' out of range", key);                      \
	refuse_mutated(lines[4], key, json_integer((json_int_t)(max) + 1), want);
	PROTO_STREAM_FIELDS(X)
#undef X
	/* page_size bound is 2^20: 2^21 refused, 2^20 accepted */
	refuse_mutated(hello, "page_size", json_integer(2097152), "'page_size' out of range");
	s = mutate(hello, "page_size", json_integer(1048576));
	assert_int_equal(parse(s, m), 0);
	assert_int_equal(m->u.hello.page_size, 1048576);
	free(s);
	refuse_mutated(hello, "cachestat", json_integer(2), "'cachestat' out of range");
	refuse_mutated(hello, "dontcache", json_integer(2), "'dontcache' out of range");
	refuse_mutated(hello, "proto", json_integer(1001), "'proto' out of range");
	refuse_mutated(lines[5], "stream", json_integer(PROTO_MAX_STREAMS),
		       "'stream' out of range");
	refuse_mutated(lines[6], "samples", json_integer((json_int_t)(UINT64_C(1) << 32) + 1),
		       "'samples' out of range");
	refuse_mutated(lines[1], "run", json_integer((json_int_t)(UINT64_C(1) << 53) + 1),
		       "'run' out of range");
	/* beyond what json_int_t holds: refused as JSON */
	refuse("{\"type\":\"summary\",\"duration_ms\":99999999999999999999,\"samples\":3}",
	       "not JSON");
	free(m);
}

static void test_refuse_u64_arrays(void **state)
{
	char **lines = valid_lines();
	struct proto_msg *m = new_msg();
	json_t *a;
	char *s;
	int i;

	(void)state;
	/* PROTO_MAX_FILES entries fit, one more does not */
	a = json_array();
	for (i = 0; i < PROTO_MAX_FILES; i++)
		json_array_append_new(a, json_integer(i));
	s = mutate(lines[3], "resident", json_deep_copy(a));
	if (parse(s, m) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(m->u.sample.resident.n, PROTO_MAX_FILES);
	assert_int_equal(m->u.sample.resident.v[PROTO_MAX_FILES - 1], PROTO_MAX_FILES - 1);
	free(s);
	json_array_append_new(a, json_integer(0));
	refuse_mutated(lines[3], "resident", json_deep_copy(a),
		       "'resident' must be an array of at most 16");
	refuse_mutated(lines[5], "resident", json_deep_copy(a), "'resident' must be an array");
	refuse_mutated(lines[2], "file_pages", a, "'file_pages' must be an array of at most 16");
	/* an empty array is fine */
	s = mutate(lines[2], "file_pages", json_array());
	assert_int_equal(parse(s, m), 0);
	assert_int_equal(m->u.setup.file_pages.n, 0);
	free(s);
	/* entries: a string, a real, null, negative, above the bound, nested */
	refuse_mutated(lines[3], "resident", json_pack("[i, s]", 1, "2"),
		       "'resident' must be an integer");
	refuse_mutated(lines[3], "resident", json_pack("[f]", 1.5), "'resident' must be an integer");
	refuse_mutated(lines[3], "resident", json_pack("[n]"), "'resident' must be an integer");
	refuse_mutated(lines[3], "resident", json_pack("[[i]]", 1), "'resident' must be an integer");
	refuse_mutated(lines[3], "resident", json_pack("[i, i]", 4, -1), "'resident' out of range");
	refuse_mutated(lines[2], "file_pages",
		       json_pack("[I]", (json_int_t)(UINT64_C(1) << 40) + 1),
		       "'file_pages' out of range");
	s = mutate(lines[2], "file_pages", json_pack("[I]", (json_int_t)(UINT64_C(1) << 40)));
	assert_int_equal(parse(s, m), 0);
	free(s);
	free(m);
}

static void test_refuse_strings(void **state)
{
	char **lines = valid_lines();
	char big[PROTO_STR_MAX + 2];
	struct proto_msg *m = new_msg();
	char *s;

	(void)state;
	/* arch buffer is 32: 31 characters fit, 32 do not */
	s = mutate(lines[0], "arch", json_string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_int_equal(parse(s, m), 0);
	assert_int_equal(strlen(m->u.hello.arch), 31);
	free(s);
	refuse_mutated(lines[0], "arch", json_string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
		       "'arch' too long");
	memset(big, 'r', PROTO_STR_MAX);
	big[PROTO_STR_MAX] = '\0';
	refuse_mutated(lines[0], "release", json_string(big), "'release' too long");
	/* lru_gen in a job is an 8-byte buffer; an event's kind 16 */
	refuse_mutated(lines[1], "lru_gen", json_string("12345678"), "'lru_gen' too long");
	refuse_mutated(lines[5], "kind", json_string("calibrated_twice"), "'kind' too long");

	/* control characters, escaped and raw, and DEL */
	refuse("{\"type\":\"error\",\"msg\":\"a\\u0001b\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"a\\nb\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"a\\u007fb\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"a\tb\"}", "not JSON");
	/* an escaped NUL is refused (jansson without JSON_ALLOW_NUL) */
	refuse("{\"type\":\"error\",\"msg\":\"a\\u0000b\"}", "not JSON");
	/* non-ASCII, valid UTF-8: raw and escaped */
	refuse("{\"type\":\"error\",\"msg\":\"caf\xc3\xa9\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"caf\\u00e9\"}", "'msg' has non-printable");
	refuse_mutated(lines[0], "fio", json_string("fio-3.38\xe2\x80\x94"),
		       "'fio' has non-printable");
	/* invalid UTF-8 */
	refuse("{\"type\":\"error\",\"msg\":\"a\xff" "b\"}", "not JSON");
	refuse("{\"type\":\"error\",\"msg\":\"a\xc3\x28" "b\"}", "not JSON");
	refuse("{\"type\":\"error\",\"msg\":\"a\xed\xa0\x80" "b\"}", "not JSON");
	/* the same inside a job's options */
	refuse_job("{'files':[{'name':'a','mib':8}],'streams':[{'kind':'fio',"
		   "'args':'--name=x\\u0001'}]}", "job.streams[0].args: expected printable ASCII");
	refuse_job("{'files':[{'name':'a','mib':8}],'streams':[{'kind':'random','file':'a',"
		   "'name':'caf\\u00e9'}]}", "job.streams[0].name: expected printable ASCII");
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"files\":[{\"name\":"
	       "\"a\xff\",\"mib\":8}],\"streams\":[{\"kind\":\"fio\",\"args\":\"--name=x\"}]}}",
	       "not JSON");
	free(m);
}

static void test_refuse_nul_in_line(void **state)
{
	static const char line[] = "{\"type\":\"error\",\"msg\":\"a\0b\"}";
	struct proto_msg *m = new_msg();

	(void)state;
	assert_int_equal(proto_parse(line, sizeof(line) - 1, m, err, sizeof(err)), -1);
	free(m);
}

static void test_refuse_duplicates(void **state)
{
	(void)state;
	refuse("{\"type\":\"summary\",\"samples\":1,\"samples\":1,\"duration_ms\":2}",
	       "duplicate");
	refuse("{\"type\":\"error\",\"type\":\"error\",\"msg\":\"x\"}", "not JSON");
	/* inside the workload, a file and a stream */
	refuse(job_line("{'memcg_mib':64,'memcg_mib':64,'files':[{'name':'a','mib':8}],"
			"'streams':[{'kind':'random','file':'a'}]}"), "not JSON");
	refuse(job_line("{'files':[{'name':'a','mib':8,'mib':9}],"
			"'streams':[{'kind':'random','file':'a'}]}"), "duplicate");
	refuse(job_line("{'files':[{'name':'a','mib':8}],"
			"'streams':[{'kind':'random','file':'a','access':'mmap','access':'pread'}]}"),
	       "not JSON");
}

/* Pad a valid error message with trailing spaces to exactly len bytes. */
static char *padded(size_t len)
{
	static const char head[] = "{\"type\":\"error\",\"msg\":\"x\"}";
	char *s = malloc(len + 1);

	assert_non_null(s);
	memcpy(s, head, sizeof(head) - 1);
	memset(s + sizeof(head) - 1, ' ', len - (sizeof(head) - 1));
	s[len] = '\0';
	return s;
}

static void test_line_length(void **state)
{
	struct proto_msg *m = new_msg();
	char want[64];
	char *s;

	(void)state;
	s = padded(PROTO_LINE_MAX - 1);
	assert_int_equal(proto_parse(s, PROTO_LINE_MAX - 1, m, err, sizeof(err)), 0);
	assert_string_equal(m->u.error, "x");
	free(s);

	snprintf(want, sizeof(want), "exceeds %d", PROTO_LINE_MAX);
	s = padded(PROTO_LINE_MAX);
	assert_int_equal(proto_parse(s, PROTO_LINE_MAX, m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, want));
	free(s);

	s = padded(PROTO_LINE_MAX * 4);
	assert_int_equal(proto_parse(s, PROTO_LINE_MAX * 4, m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exceeds"));
	free(s);
	free(m);
}

/* ---- refusals: the job's files and streams ---- */

#define F1  "'files':[{'name':'a','mib':8}]"
#define F2  "'files':[{'name':'a','mib':8},{'name':'b','mib':16}]"
#define RND "{'kind':'random','file':'a'}"

static void test_refuse_job_options(void **state)
{
	(void)state;
	/* unknown options at each level */
	refuse_job("{'bogus':1," F1 ",'streams':[" RND "]}", "job: unknown key 'bogus'");
	refuse_job("{'files':[{'name':'a','mib':8,'size':1}],'streams':[" RND "]}",
		   "job.files[0]: unknown key 'size'");
	refuse_job("{" F1 ",'streams':[" RND ",{'kind':'scan','file':'a','speed':2}]}",
		   "job.streams[1]: unknown key 'speed'");
	/* v1's flat keys are gone */
	refuse_job("{'access':'mmap'," F1 ",'streams':[" RND "]}", "job: unknown key 'access'");
	refuse_job("{'file_mib':64," F1 ",'streams':[" RND "]}", "job: unknown key 'file_mib'");
	/* an option of another kind of stream */
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','passes':2}]}",
		   "job.streams[0]: 'passes' is not an option of a random stream");
	refuse_job("{" F1 ",'streams':[{'kind':'scan','file':'a','theta':1.0}]}",
		   "'theta' is not an option of a scan stream");
	refuse_job("{" F1 ",'streams':[{'kind':'fio','args':'--name=x','file':'a'}]}",
		   "'file' is not an option of a fio stream");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','args':'--name=x'}]}",
		   "'args' is not an option of a random stream");
	/* kind: required, one of three, a string */
	refuse_job("{" F1 ",'streams':[{'file':'a'}]}", "job.streams[0]: 'kind' is required");
	refuse_job("{" F1 ",'streams':[{'kind':'sequential','file':'a'}]}",
		   "job.streams[0].kind: expected one of random, scan, fio, ycsb, reclaim, anon, got 'sequential'");
	refuse_job("{" F1 ",'streams':[{'kind':0,'file':'a'}]}",
		   "job.streams[0].kind: expected a string");
	/* types, ranges, whole numbers, enum values */
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','threads':0}]}",
		   "job.streams[0].threads: expected 1..256, got 0");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','threads':257}]}",
		   "threads: expected 1..256");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','threads':2.5}]}",
		   "threads: expected a whole number");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','threads':'4'}]}",
		   "threads: expected a number");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','threads':true}]}",
		   "threads: expected a number");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','theta':5.5}]}",
		   "theta: expected 0..5");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','theta':-0.1}]}", "theta");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','miss_factor':0.5}]}",
		   "miss_factor: expected 1..1000");
	refuse_job("{" F1 ",'streams':[{'kind':'scan','file':'a','chunk_kib':2}]}",
		   "chunk_kib: expected 4..");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','access':'mmapx'}]}",
		   "access: expected one of pread, read, mmap, got 'mmapx'");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','distribution':1}]}",
		   "distribution: expected a string");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','start_s':-1}]}",
		   "start_s: expected 0..");
	refuse_job("{'memcg_mib':15," F1 ",'streams':[" RND "]}", "job.memcg_mib: expected 16..");
	refuse_job("{'interval_ms':99," F1 ",'streams':[" RND "]}",
		   "job.interval_ms: expected 100..60000, got 99");
	refuse_job("{'duration_s':0," F1 ",'streams':[" RND "]}", "job.duration_s: expected 1..");
	refuse_job("{'duration_s':1.5," F1 ",'streams':[" RND "]}",
		   "job.duration_s: expected a whole number");
	refuse_job("{'ramp_s':'5'," F1 ",'streams':[" RND "]}", "job.ramp_s: expected a number");
	/* #27: a range's bounds print as whole numbers, not 1.67772e+07 */
	refuse_job("{'memcg_mib':100000000," F1 ",'streams':[" RND "]}",
		   "job.memcg_mib: expected 16..16777216, got 100000000");
	refuse_job("{'disk_mib':16777217," F1 ",'streams':[" RND "]}",
		   "job.disk_mib: expected 0..16777216, got 16777217");
	/* #27: the ramp ends before the workload does, else every interval is ramp */
	refuse_job("{'duration_s':10,'ramp_s':10," F1 ",'streams':[" RND "]}",
		   "job.ramp_s: expected less than duration_s (10), got 10");
	refuse_job("{'duration_s':10,'ramp_s':600," F1 ",'streams':[" RND "]}",
		   "job.ramp_s: expected less than duration_s (10), got 600");
	refuse_job("{'ramp_s':10," F1 ",'streams':[" RND "]}",   /* duration_s's default, 10 */
		   "job.ramp_s: expected less than duration_s (10), got 10");
	refuse_job("{'memcg_mib':null," F1 ",'streams':[" RND "]}", "job.memcg_mib: expected a number");
	/* files: required keys, sizes, content */
	refuse_job("{'files':[{'name':'a'}],'streams':[" RND "]}",
		   "job.files[0]: 'name' and 'mib' are required");
	refuse_job("{'files':[{'mib':8}],'streams':[" RND "]}", "'name' and 'mib' are required");
	refuse_job("{'files':[{'name':'a','mib':0}],'streams':[" RND "]}", "job.files[0].mib");
	refuse_job("{'files':[{'name':'a','mib':8,'content':'ones'}],'streams':[" RND "]}",
		   "job.files[0].content: expected one of random, zero");
	refuse_job("{'files':['a'],'streams':[" RND "]}", "job.files[0]: expected an object");
	refuse_job("{" F1 ",'streams':['random']}", "job.streams[0]: expected an object");
}


/* A cell's swap: its kinds and options by allow-list, memory.swap.max and swappiness. */
static void test_job_swap(void **state)
{
	struct proto_job *j = calloc(1, sizeof(*j));
#define ANON "'streams':[{'kind':'anon','mib':32}]"

	(void)state;
	assert_non_null(j);
	/* none: no swap, memory.swap.max 0, the kernel's swappiness */
	assert_int_equal(job_from_text("{" ANON "}", j), 0);
	assert_int_equal(j->swap.kind, SWAP_NONE);
	assert_int_equal(j->swap_max_mib, 0);
	assert_true(j->swappiness == PROTO_SWAPPINESS_KERNEL);
	/* zram: memory.swap.max defaults to the device's size */
	if (job_from_text("{'swap':{'kind':'zram','mib':96,'compressor':'zstd'},'swappiness':0,"
			  ANON "}", j) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(j->swap.kind, SWAP_ZRAM);
	assert_int_equal(j->swap.mib, 96);
	assert_string_equal(proto_swap_compressors[j->swap.compressor], "zstd");
	assert_int_equal(j->swap_max_mib, 96);
	assert_int_equal(j->swappiness, 0);
	/* zswap with its pool options; a smaller swap_max_mib kept */
	if (job_from_text("{'swap':{'kind':'zswap','mib':64,'zswap_pool':'zsmalloc',"
			  "'max_pool_percent':30},'swap_max_mib':16," ANON "}", j) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(j->swap.max_pool_percent, 30);
	assert_int_equal(j->swap_max_mib, 16);
	/* round trips: with and without swap */
	check_json_round_trip("{'swap':{'kind':'zswap','mib':64,'compressor':'lz4',"
			      "'zswap_pool':'zsmalloc','max_pool_percent':30},'swap_max_mib':16,"
			      "'swappiness':200," ANON "}");
	check_json_round_trip("{'swap':{'kind':'disk','mib':8}," ANON "}");
	check_json_round_trip("{'swap_max_mib':0," ANON "}");
	/* refused: by allow-list, and what a kind does not take */
	refuse_job("{'swap':{'kind':'nfs','mib':8}," ANON "}",
		   "job.swap.kind: expected one of none, disk, zram, zswap, got 'nfs'");
	refuse_job("{'swap':{'kind':'none','mib':8}," ANON "}", "leave out \"swap\" for none");
	refuse_job("{'swap':{'kind':'zram'}," ANON "}", "job.swap: 'kind' and 'mib' are required");
	refuse_job("{'swap':{'kind':'zram','mib':8,'compressor':'lzma'}," ANON "}",
		   "job.swap.compressor: expected one of default, lzo, lzo-rle, lz4");
	refuse_job("{'swap':{'kind':'disk','mib':8,'compressor':'lz4'}," ANON "}",
		   "job.swap.compressor: a disk swap compresses nothing");
	refuse_job("{'swap':{'kind':'zram','mib':8,'zswap_pool':'zbud'}," ANON "}",
		   "zswap_pool and max_pool_percent are zswap's");
	refuse_job("{'swap':{'kind':'zram','mib':8,'path':'/etc/shadow'}," ANON "}",
		   "job.swap: unknown key 'path'");
	refuse_job("{'swap':'zram'," ANON "}", "job.swap: expected an object");
	refuse_job("{'swap':{'kind':'zram','mib':8},'swap_max_mib':9," ANON "}",
		   "job.swap_max_mib: 9 MiB, but the cell has less swap (swap.mib)");
	refuse_job("{'swap_max_mib':1," ANON "}", "but the cell has no swap");
	refuse_job("{'swappiness':201," ANON "}", "job.swappiness: expected 0..200, got 201");
	refuse_job("{'swap':{'kind':'zram','mib':0}," ANON "}", "job.swap.mib: expected 1..");
#undef ANON
	free(j);
}

static void test_refuse_job_rules(void **state)
{
	char text[4096], *p;
	int i;

	(void)state;
	/* files and streams: present, non-empty arrays */
	refuse_job("{'streams':[" RND "]}", "job.files: expected a non-empty array");
	refuse_job("{'files':[],'streams':[" RND "]}", "job.files: expected a non-empty array");
	refuse_job("{" F1 "}", "job.streams: expected a non-empty array");
	refuse_job("{" F1 ",'streams':{}}", "job.streams: expected a non-empty array");
	refuse_job("{}", "non-empty array");
	/* a stream naming an undeclared file, or none */
	refuse_job("{" F2 ",'streams':[{'kind':'scan','file':'c'}]}",
		   "job.streams[0].file: 'c' is not a declared file");
	refuse_job("{" F1 ",'streams':[" RND ",{'kind':'random'}]}",
		   "job.streams[1]: 'file' is required for a random stream");
	refuse_job("{" F1 ",'streams':[{'kind':'scan'}]}", "'file' is required for a scan stream");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':''}]}", "job.streams[0].file");
	/* anon: options that only some values of others use; files only for the disk's kinds */
	refuse_job("{'streams':[{'kind':'anon','mib':8,'madvise':'hugepage','madvise_at_s':3}]}",
		   "job.streams[0].madvise_at_s: only with madvise cold or pageout");
	refuse_job("{'streams':[{'kind':'anon'}]}", "job.streams[0].mib: required");
	refuse_job("{'streams':[{'kind':'anon','mib':8,'access':'pread'}]}",
		   "job.streams[0].access: an anon stream touches by read or write");
	refuse_job("{'streams':[{'kind':'anon','mib':8,'access':'mmap'}]}",
		   "job.streams[0].access: an anon stream touches by read or write");
	refuse_job("{'streams':[{'kind':'anon','mib':8,'file':'a'}]}",
		   "job.streams[0]: 'file' is not an option of a anon stream");
	refuse_job("{'streams':[{'kind':'anon','mib':8}," RND "]}",
		   "job.files: expected a non-empty array");
	/* random and scan refuse anon's write */
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','access':'write'}]}",
		   "job.streams[0].access: expected one of pread, read, mmap");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','distribution':'sequential'}]}",
		   "job.streams[0].distribution: expected one of uniform, zipf");
	/* access per kind */
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','access':'read'}]}",
		   "job.streams[0].access: a random stream reads by pread or mmap");
	refuse_job("{" F1 ",'streams':[{'kind':'scan','file':'a','access':'pread'}]}",
		   "job.streams[0].access: a scan reads by read or mmap");
	/* dontcache and dontneed need read */
	refuse_job("{" F1 ",'streams':[{'kind':'scan','file':'a','access':'mmap',"
		   "'mode':'dontcache'}]}", "job.streams[0].mode: dontcache needs access read");
	refuse_job("{" F1 ",'streams':[{'kind':'scan','file':'a','access':'mmap',"
		   "'mode':'dontneed'}]}", "mode: dontneed needs access read");
	/* a fio stream without args or jobfile */
	refuse_job("{" F1 ",'streams':[{'kind':'fio'}]}",
		   "job.streams[0]: a fio stream needs 'args' or 'jobfile'");
	refuse_job("{" F1 ",'streams':[{'kind':'fio','args':'','jobfile':''}]}",
		   "a fio stream needs 'args' or 'jobfile'");
	/* start_s must be before the workload's end */
	refuse_job("{'duration_s':30," F1 ",'streams':[{'kind':'random','file':'a','start_s':30}]}",
		   "job.streams[0].start_s: 30 is not before the workload's end (30 s)");
	refuse_job("{" F1 ",'streams':[{'kind':'fio','args':'--name=x','start_s':10.5}]}",
		   "start_s: 10.5 is not before the workload's end (10 s)");
	/* duplicate names */
	refuse_job("{'files':[{'name':'a','mib':8},{'name':'a','mib':16}],'streams':[" RND "]}",
		   "job.files[1].name: 'a' is declared twice");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','name':'x'},"
		   "{'kind':'scan','file':'a','name':'x'}]}",
		   "job.streams[1].name: 'x' is used by streams[0] too");
	/* a given name that clashes with a default one */
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a','name':'s1'}," RND "]}",
		   "job.streams[1].name: 's1' is used by streams[0] too");
	/* file names: no '/', no leading '.', not empty, not too long */
	refuse_job("{'files':[{'name':'d/a','mib':8}],'streams':[" RND "]}",
		   "job.files[0].name: expected letters, digits");
	refuse_job("{'files':[{'name':'../a','mib':8}],'streams':[" RND "]}", "job.files[0].name");
	refuse_job("{'files':[{'name':'.a','mib':8}],'streams':[" RND "]}", "job.files[0].name");
	refuse_job("{'files':[{'name':'a b','mib':8}],'streams':[" RND "]}", "job.files[0].name");
	refuse_job("{'files':[{'name':'','mib':8}],'streams':[" RND "]}", "job.files[0].name");
	refuse_job("{'files':[{'name':'abcdefghijklmnopqrstuvwxyz012345','mib':8}],"
		   "'streams':[" RND "]}", "job.files[0].name: expected 1 to 31 characters");
	refuse_job("{" F1 ",'streams':[{'kind':'random','file':'a',"
		   "'name':'abcdefghijklmnopqrstuvwxyz012345'}]}",
		   "job.streams[0].name: expected 1 to 31 characters");

	/* more than PROTO_MAX_STREAMS streams, more than PROTO_MAX_FILES files */
	p = text + sprintf(text, "{" F1 ",'streams':[");
	for (i = 0; i <= PROTO_MAX_STREAMS; i++)
		p += sprintf(p, "%s" RND, i ? "," : "");
	sprintf(p, "]}");
	refuse_job(text, "job.streams: at most 8 entries");
	p = text + sprintf(text, "{'files':[");
	for (i = 0; i <= PROTO_MAX_FILES; i++)
		p += sprintf(p, "%s{'name':'f%d','mib':1}", i ? "," : "", i);
	sprintf(p, "],'streams':[{'kind':'random','file':'f0'}]}");
	refuse_job(text, "job.files: at most 16 entries");
}

/* The limits themselves are accepted. */
static void test_job_limits(void **state)
{
	struct proto_job *j = calloc(1, sizeof(*j));
	char text[4096], *p;
	int i;

	(void)state;
	assert_non_null(j);
	p = text + sprintf(text, "{'files':[");
	for (i = 0; i < PROTO_MAX_FILES; i++)
		p += sprintf(p, "%s{'name':'f%d','mib':1}", i ? "," : "", i);
	p += sprintf(p, "],'streams':[");
	for (i = 0; i < PROTO_MAX_STREAMS; i++)
		p += sprintf(p, "%s{'kind':'%s','file':'f%d'}", i ? "," : "",
			     i % 2 ? "scan" : "random", 15 - i);
	sprintf(p, "]}");
	if (job_from_text(text, j) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(j->nfiles, PROTO_MAX_FILES);
	assert_int_equal(j->nstreams, PROTO_MAX_STREAMS);
	assert_string_equal(j->streams[7].file, "f8");
	assert_string_equal(j->streams[7].name, "s7");
	assert_int_equal(j->streams[7].access, ACC_READ);

	/* scan: read with dontcache and dontneed; mmap with fadv_random */
	assert_int_equal(job_from_text("{" F1 ",'streams':[{'kind':'scan','file':'a',"
				       "'mode':'dontcache'},{'kind':'scan','file':'a','access':'read',"
				       "'mode':'dontneed'},{'kind':'scan','file':'a','access':'mmap',"
				       "'mode':'fadv_random'}]}", j), 0);
	assert_int_equal(j->streams[0].mode, MODE_DONTCACHE);
	assert_int_equal(j->streams[1].mode, MODE_DONTNEED);
	assert_int_equal(j->streams[2].access, ACC_MMAP);
	/* a start just before the end, a jobfile alone, the longest names */
	assert_int_equal(job_from_text("{'duration_s':30,'files':[{'name':"
				       "'abcdefghijklmnopqrstuvwxyz01234','mib':16777216}],'streams':["
				       "{'kind':'fio','jobfile':'[g]','start_s':29.999,"
				       "'name':'abcdefghijklmnopqrstuvwxyz01234'}]}", j), 0);
	assert_int_equal(j->files[0].mib, 16777216);
	assert_true(j->streams[0].start_s == 29.999);
	assert_string_equal(j->streams[0].jobfile, "[g]");
	/* the error names the caller's prefix */
	assert_int_equal(job_from_text("{" F1 ",'streams':[{'kind':'fio'}]}", j), -1);
	assert_non_null(strstr(err, "wl.streams[0]"));
	/* not an object at all */
	{
		json_t *a = json_array();

		assert_int_equal(proto_job_from_json(a, j, "wl", err, sizeof(err)), -1);
		assert_non_null(strstr(err, "wl: expected an object"));
		json_decref(a);
	}
	free(j);
}

/* proto_opt_set_json and proto_enum_name directly. */
static void test_opt_set_json(void **state)
{
	const struct proto_opt *ro = proto_kind_random.opts;
	struct proto_stream s;
	char e[PROTO_ERR_MAX];
	json_t *v;

	(void)state;
	memset(&s, 0, sizeof(s));
	v = json_integer(16);
	assert_int_equal(proto_opt_set_json(ro, &s, "threads", v, "x", e, sizeof(e)), 0);
	assert_int_equal(s.threads, 16);
	json_decref(v);
	v = json_real(1.25);
	assert_int_equal(proto_opt_set_json(ro, &s, "theta", v, "x", e, sizeof(e)), 0);
	assert_true(s.theta == 1.25);
	json_decref(v);
	v = json_real(4.0);   /* a whole real is a whole number */
	assert_int_equal(proto_opt_set_json(ro, &s, "threads", v, "x", e, sizeof(e)), 0);
	assert_int_equal(s.threads, 4);
	json_decref(v);
	v = json_string("mmap");
	assert_int_equal(proto_opt_set_json(ro, &s, "access", v, "x", e, sizeof(e)), 0);
	assert_int_equal(s.access, ACC_MMAP);
	json_decref(v);
	v = json_integer(1);   /* an enum wants its name */
	assert_int_equal(proto_opt_set_json(ro, &s, "access", v, "x", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "x.access: expected a string"));
	assert_int_equal(s.access, ACC_MMAP);   /* unchanged on error */
	json_decref(v);
	v = json_integer(0);
	assert_int_equal(proto_opt_set_json(ro, &s, "threads", v, "x", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "x.threads: expected 1..256, got 0"));
	assert_int_equal(s.threads, 4);
	json_decref(v);
	v = json_integer(1);
	assert_int_equal(proto_opt_set_json(ro, &s, "speed", v, "x", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "x: unknown key 'speed'"));
	/* a NULL err is allowed */
	assert_int_equal(proto_opt_set_json(ro, &s, "speed", v, "x", NULL, 0), -1);
	json_decref(v);
	v = json_real(1e300);
	assert_int_equal(proto_opt_set_json(ro, &s, "rate", v, "x", e, sizeof(e)), -1);
	json_decref(v);
	assert_string_equal(proto_enum_name(ro, &s, "access"), "mmap");
	assert_string_equal(proto_enum_name(ro, &s, "threads"), "?");
	assert_string_equal(proto_enum_name(ro, &s, "nope"), "?");

	/* every option has a name, a type, a help text; an enum its choices */
	for (const struct proto_opt *o = proto_stream_opts; o->name; o++) {
		assert_non_null(o->help);
		if (o->type == OPT_ENUM)
			assert_non_null(o->choices);
	}
	/* each kind: its name in the list, its options none of the common ones,
	 * and an option two kinds share is the same field */
	for (unsigned k = 0; k < KIND_COUNT; k++) {
		assert_string_equal(proto_kinds[k]->name, proto_kind_names[k]);
		for (const struct proto_opt *o = proto_kinds[k]->opts; o->name; o++) {
			assert_non_null(o->help);
			assert_true(o->type != OPT_ENUM || o->choices);
			for (const struct proto_opt *c = proto_stream_opts; c->name; c++)
				assert_string_not_equal(o->name, c->name);
			for (unsigned j = 0; j < KIND_COUNT; j++)
				for (const struct proto_opt *p = proto_kinds[j]->opts; p->name; p++)
					assert_true(strcmp(o->name, p->name) || o->off == p->off);
		}
	}
	/* every job option has a default, but for those whose absence is the
	 * kernel's own (swappiness) or follows from another (swap_max_mib) */
	for (const struct proto_opt *o = proto_job_opts; o->name; o++)
		assert_true(o->def || !strcmp(o->name, "swappiness") ||
			    !strcmp(o->name, "swap_max_mib"));
}

/* ---- channel_take_line ---- */

static void test_take_line(void **state)
{
	size_t consumed;

	(void)state;
	consumed = 999;
	assert_int_equal(channel_take_line("abc", 3, &consumed), -1);
	assert_int_equal(consumed, 999);       /* untouched */
	assert_int_equal(channel_take_line("", 0, &consumed), -1);

	assert_int_equal(channel_take_line("a\nb\n", 4, &consumed), 1);
	assert_int_equal(consumed, 2);
	assert_int_equal(channel_take_line("a\nb\n" + 2, 2, &consumed), 1);
	assert_int_equal(consumed, 2);

	/* an empty line */
	assert_int_equal(channel_take_line("\nrest", 5, &consumed), 0);
	assert_int_equal(consumed, 1);

	/* only len bytes are looked at: the newline after them does not count */
	assert_int_equal(channel_take_line("abc\n", 3, &consumed), -1);
	/* a NUL before the newline does not end the search */
	assert_int_equal(channel_take_line("a\0b\n", 4, &consumed), 3);
	assert_int_equal(consumed, 4);
}

/* ---- PROTO_LRU: one node's generations and tiers ---- */

/* A node of lru_gen_full: gens generations from seq 10, every tier counter v. */
static void lru_fill(struct proto_lru *l, unsigned gens, int tiers, uint64_t v)
{
	unsigned g;

	memset(l, 0, sizeof(*l));
	l->seq = 3;
	l->node = 1;
	l->nid = 2;
	for (g = 0; g < gens; g++) {
#define X(m, key, max) l->m.n = gens;
		PROTO_LRU_GEN_FIELDS(X)
#undef X
		l->gen.v[g] = 10 + g;
		l->age_ms.v[g] = 1000 * (gens - g);
		l->anon.v[g] = g;
		l->file.v[g] = 100 + g;
		l->rep.v[g] = tiers ? 3 : 0;
	}
	if (!tiers)
		return;
#define X(m, key, max) \
	l->m.n = gens * LRUGEN_TIERS; \
	for (g = 0; g < gens * LRUGEN_TIERS; g++) \
		l->m.v[g] = (g % LRUGEN_TIERS) ? v : 0;
	PROTO_LRU_TIER_FIELDS(X)
#undef X
	/* only protected must be 0 at tier 0 */
	for (g = 0; g < gens; g++)
		l->anon_refaulted.v[g * LRUGEN_TIERS] = l->file_evicted.v[g * LRUGEN_TIERS] = v;
}

static char *lru_line(unsigned gens, int tiers)
{
	struct proto_msg *m = new_msg(), *o = new_msg();
	char *line;

	m->type = PROTO_LRU;
	lru_fill(&m->u.lru, gens, tiers, 7);
	line = strdup(round_trip(m, o));
	free(m);
	free(o);
	return line;
}

static void test_rt_lru(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg();

	(void)state;
	m->type = PROTO_LRU;
	/* lru_gen_full: four generations of four tiers, every counter at its bound */
	lru_fill(&m->u.lru, LRUGEN_FULL_GENS, 1, UINT64_C(1) << 48);
	m->u.lru.seq = UINT64_C(1) << 32;
	m->u.lru.node = LRUGEN_MAX_NODES - 1;
	m->u.lru.nid = 1023;
	m->u.lru.gen.v[3] = UINT64_C(1) << 62;
	m->u.lru.age_ms.v[0] = UINT32_MAX;
	m->u.lru.file.v[1] = m->u.lru.anon.v[2] = UINT64_C(1) << 40;
	round_trip(m, o);
	assert_memory_equal(&o->u.lru, &m->u.lru, sizeof(m->u.lru));
	/* lru_gen: up to eight generations, no tiers */
	lru_fill(&m->u.lru, LRUGEN_MAX_GENS, 0, 0);
	round_trip(m, o);
	assert_memory_equal(&o->u.lru, &m->u.lru, sizeof(m->u.lru));
	assert_int_equal(o->u.lru.file_protected.n, 0);
	/* one type's rep columns only: the other's counters all 0 */
	lru_fill(&m->u.lru, 2, 1, 0);
	m->u.lru.rep.v[0] = 1u << LRUGEN_FILE;
	m->u.lru.rep.v[1] = 0;
	m->u.lru.file_refaulted.v[1] = 5;
	round_trip(m, o);
	assert_int_equal(o->u.lru.file_refaulted.v[1], 5);
	free(m);
	free(o);
}

static void test_refuse_lru(void **state)
{
	char *full = lru_line(2, 1), *brief = lru_line(3, 0), *s;
	struct proto_msg *m = new_msg();
	json_t *a;
	int i;

	(void)state;
	/* every field, and nothing else */
	refuse_mutated(full, "gen", NULL, "lru: field 'gen' missing");
	refuse_mutated(full, "file_protected", NULL, "lru: field 'file_protected' missing");
	refuse_mutated(full, "nid", NULL, "lru: field 'nid' missing");
	refuse_mutated(full, "full", json_integer(1), "lru: unexpected fields");
	/* bounds of the scalars and of each generation's values */
	refuse_mutated(full, "node", json_integer(LRUGEN_MAX_NODES), "'node' out of range");
	refuse_mutated(full, "nid", json_integer(1024), "'nid' out of range");
	refuse_mutated(full, "seq", json_integer((json_int_t)(UINT64_C(1) << 32) + 1),
		       "'seq' out of range");
	refuse_mutated(full, "age_ms", json_pack("[I, i]", (json_int_t)UINT32_MAX + 1, 0),
		       "'age_ms' out of range");
	refuse_mutated(full, "file", json_pack("[I, i]", (json_int_t)(UINT64_C(1) << 40) + 1, 0),
		       "'file' out of range");
	refuse_mutated(full, "anon", json_pack("[i, i]", -1, 0), "'anon' out of range");
	refuse_mutated(full, "rep", json_pack("[i, i]", 4, 3), "'rep' out of range");
	refuse_mutated(full, "gen", json_pack("[I, i]", (json_int_t)(UINT64_C(1) << 62) + 1, 0),
		       "'gen' out of range");
	refuse_mutated(full, "anon_evicted", json_pack("[I,i,i,i,i,i,i,i]",
		       (json_int_t)(UINT64_C(1) << 48) + 1, 0, 0, 0, 0, 0, 0, 0),
		       "'anon_evicted' out of range");
	refuse_mutated(full, "gen", json_pack("[s, i]", "1", 2), "'gen' must be an integer");
	/* the arrays: at most 8 generations, 16 tier values */
	a = json_array();
	for (i = 0; i <= LRUGEN_MAX_GENS; i++)
		json_array_append_new(a, json_integer(i));
	refuse_mutated(brief, "gen", a, "'gen' must be an array of at most 8");
	a = json_array();
	for (i = 0; i <= PROTO_LRU_TIER_MAX; i++)
		json_array_append_new(a, json_integer(0));
	refuse_mutated(full, "file_evicted", a, "'file_evicted' must be an array of at most 16");
	/* what the fields say together */
	s = mutate(brief, "gen", json_array());
	refuse_mutated(s, "age_ms", json_array(), "lru: no generations");
	free(s);
	refuse_mutated(brief, "age_ms", json_pack("[i, i]", 1, 2),
		       "lru: 2 values of 'age_ms' for 3 generations");
	refuse_mutated(brief, "gen", json_pack("[i, i, i]", 5, 5, 6), "generation 5 after 5");
	refuse_mutated(brief, "gen", json_pack("[i, i, i]", 5, 4, 6), "generation 4 after 5");
	refuse_mutated(full, "file_protected", json_pack("[i,i,i,i]", 0, 0, 0, 0),
		       "'file_protected' has 4 values, not 8");
	/* tiers of lru_gen_full's window only: not of 5 generations */
	{
		struct proto_msg *t = new_msg();
		char line[PROTO_LINE_MAX], *five = lru_line(5, 0), *p = five, *q;

#define X(m, key, max) \
		a = json_array(); \
		for (i = 0; i < PROTO_LRU_TIER_MAX; i++) \
			json_array_append_new(a, json_integer(0)); \
		q = mutate(p, key, a); \
		free(p); \
		p = q;
		PROTO_LRU_TIER_FIELDS(X)
#undef X
		refuse(p, "lru: 16 tier values for 5 generations");
		free(p);
		t->type = PROTO_LRU;
		lru_fill(&t->u.lru, 3, 1, 1);
		t->u.lru.anon_protected.n = t->u.lru.anon_evicted.n = 8;
		assert_true(proto_format(t, line, sizeof(line)) > 0);
		line[strlen(line) - 1] = '\0';
		refuse(line, "'anon_evicted' has 8 values, not 12");
		free(t);
	}
	/* counters where the kernel printed no rep columns, protected pages at tier 0 */
	refuse_mutated(full, "rep", json_pack("[i, i]", 1, 3), "counters the kernel does not print");
	refuse_mutated(full, "anon_protected", json_pack("[i,i,i,i,i,i,i,i]", 1, 0, 0, 0, 0, 0, 0, 0),
		       "generation 10 tier 0: counters the kernel does not print");
	/* zeros where rep is clear are fine */
	s = mutate(brief, "rep", json_pack("[i, i, i]", 0, 0, 0));
	assert_int_equal(parse(s, m), 0);
	free(s);
	free(full);
	free(brief);
	free(m);
}

/* ---- PROTO_TRACE: sampled folios' events ---- */

/* Event i of t: kind, t_ms, page; an add's place, generation and window. */
static void trace_event(struct proto_trace *t, unsigned kind, uint64_t t_ms, uint64_t page,
			unsigned place, uint64_t gen, uint64_t min_seq, uint64_t max_seq)
{
	uint64_t i = t->kind.n;

	assert_true(i < PROTO_TRACE_MAX);
#define X(m, key, mx) t->m.n = i + 1;
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
	t->kind.v[i] = kind;
	t->t_ms.v[i] = t_ms;
	t->ino.v[i] = 12;
	t->page.v[i] = page;
	t->place.v[i] = place;
	t->gen.v[i] = gen;
	t->min_seq.v[i] = min_seq;
	t->max_seq.v[i] = max_seq;
}

/* One folio's life, 16 events: every kind, every place, ms ties and all. */
static void trace_fill(struct proto_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->seq = 7;
	t->lost = 3;
	t->refused = 1;
	trace_event(t, TR_LOAD, 10, 0, PL_NONE, 0, 0, 0);
	trace_event(t, TR_ADD, 10, 0, PL_SECOND, 1, 0, 3);
	trace_event(t, TR_ACCESS, 11, 0, PL_NONE, 0, 0, 0);
	trace_event(t, TR_LOAD, 11, 16, PL_NONE, 0, 0, 0);
	trace_event(t, TR_ADD, 11, 16, PL_OLDEST, 4, 4, 7);
	trace_event(t, TR_ADD, 12, 32, PL_YOUNGER, 7, 4, 7);
	trace_event(t, TR_ADD, 12, 48, PL_YOUNGER, 6, 4, 7);
	trace_event(t, TR_PROMOTE, 13, 16, PL_NONE, 0, 0, 0);
	trace_event(t, TR_ADD, 14, 64, PL_INACTIVE, 0, 0, 0);
	trace_event(t, TR_ADD, 14, 80, PL_ACTIVE, 0, 0, 0);
	trace_event(t, TR_ACTIVATE, 15, 64, PL_NONE, 0, 0, 0);
	trace_event(t, TR_REMOVE, 20, 0, PL_NONE, 0, 0, 0);
	trace_event(t, TR_REMOVE, 20, 16, PL_NONE, 0, 0, 0);
	trace_event(t, TR_LOAD, 21, UINT64_C(1) << 52, PL_NONE, 0, 0, 0);
	trace_event(t, TR_ADD, UINT64_C(1) << 40, UINT64_C(1) << 52, PL_SECOND,
		    (UINT64_C(1) << 62) - 2, (UINT64_C(1) << 62) - 3, UINT64_C(1) << 62);
	trace_event(t, TR_REMOVE, UINT64_C(1) << 40, UINT64_C(1) << 52, PL_NONE, 0, 0, 0);
}

static char *trace_line(void)
{
	struct proto_msg *m = new_msg(), *o = new_msg();
	char *line;

	m->type = PROTO_TRACE;
	trace_fill(&m->u.trace);
	line = strdup(round_trip(m, o));
	assert_non_null(line);
	free(m);
	free(o);
	return line;
}

static void test_rt_trace(void **state)
{
	struct proto_msg *m = new_msg(), *o = new_msg();

	(void)state;
	m->type = PROTO_TRACE;
	trace_fill(&m->u.trace);
	assert_int_equal(m->u.trace.kind.n, PROTO_TRACE_MAX);
	round_trip(m, o);
	assert_memory_equal(&o->u.trace, &m->u.trace, sizeof(m->u.trace));
	assert_int_equal(o->u.trace.place.v[4], PL_OLDEST);
	assert_int_equal(o->u.trace.gen.v[14], (UINT64_C(1) << 62) - 2);
	/* an interval with nothing sampled: still a message, head at its bounds */
	memset(&m->u.trace, 0, sizeof(m->u.trace));
	m->u.trace.seq = UINT64_C(1) << 32;
	m->u.trace.lost = m->u.trace.refused = UINT64_C(1) << 48;
	round_trip(m, o);
	assert_memory_equal(&o->u.trace, &m->u.trace, sizeof(m->u.trace));
	assert_int_equal(o->u.trace.kind.n, 0);
	free(m);
	free(o);
}

/* line with event i's values of key set to v (a JSON array of 16, i replaced). */
static void refuse_trace_at(const char *line, const char *key, unsigned i, json_int_t v,
			    const char *want)
{
	json_t *root = json_loads(line, 0, NULL), *a;

	assert_non_null(root);
	a = json_deep_copy(json_object_get(root, key));
	assert_non_null(a);
	assert_int_equal(json_array_set_new(a, i, json_integer(v)), 0);
	json_decref(root);
	refuse_mutated(line, key, a, want);
}

static void test_refuse_trace(void **state)
{
	char *line = trace_line(), *s;
	json_t *a;
	int i;

	(void)state;
	/* every field, and nothing else */
	refuse_mutated(line, "place", NULL, "trace: field 'place' missing");
	refuse_mutated(line, "lost", NULL, "trace: field 'lost' missing");
	refuse_mutated(line, "dev", json_integer(1), "trace: unexpected fields");
	/* the arrays all as long as kind */
	refuse_mutated(line, "page", json_pack("[i, i, i]", 0, 16, 32),
		       "trace: 3 values of 'page' for 16 events");
	s = mutate(line, "kind", json_pack("[i]", TR_LOAD));
	refuse(s, "trace: 16 values of 't_ms' for 1 events");
	free(s);
	/* at most PROTO_TRACE_MAX events */
	a = json_array();
	for (i = 0; i <= PROTO_TRACE_MAX; i++)
		json_array_append_new(a, json_integer(TR_LOAD));
	refuse_mutated(line, "kind", a, "'kind' must be an array of at most 16");
	/* bounds: kinds, places, the clock, pages, seqs */
	refuse_trace_at(line, "kind", 0, TR_COUNT, "'kind' out of range");
	refuse_trace_at(line, "place", 1, PL_COUNT, "'place' out of range");
	refuse_trace_at(line, "t_ms", 15, (json_int_t)(UINT64_C(1) << 40) + 1, "'t_ms' out of range");
	refuse_trace_at(line, "page", 0, (json_int_t)(UINT64_C(1) << 52) + 1, "'page' out of range");
	refuse_trace_at(line, "gen", 1, -1, "'gen' out of range");
	refuse_mutated(line, "refused", json_integer((json_int_t)(UINT64_C(1) << 48) + 1),
		       "'refused' out of range");
	/* an add without a place, a place on anything else */
	refuse_trace_at(line, "place", 1, PL_NONE, "trace: event 1: a place only on an add");
	refuse_trace_at(line, "place", 8, PL_NONE, "trace: event 8: a place only on an add");
	refuse_trace_at(line, "place", 0, PL_INACTIVE, "trace: event 0: a place only on an add");
	refuse_trace_at(line, "kind", 1, TR_ACCESS, "trace: event 1: a place only on an add");
	/* MGLRU's places agree with the generation: oldest is min_seq, second min_seq + 1 */
	refuse_trace_at(line, "gen", 4, 5, "trace: event 4: generation 5 is not its place in 4..7");
	refuse_trace_at(line, "gen", 1, 0, "trace: event 1: generation 0 is not its place in 0..3");
	refuse_trace_at(line, "place", 4, PL_YOUNGER, "event 4: generation 4 is not its place");
	refuse_trace_at(line, "place", 5, PL_SECOND, "event 5: generation 7 is not its place");
	/* ... and lies in the window */
	refuse_trace_at(line, "gen", 5, 8, "event 5: generation 8 is not its place in 4..7");
	refuse_trace_at(line, "min_seq", 4, 5, "event 4: generation 4 is not its place in 5..7");
	/* the classic LRU's lists have no generation; other events neither */
	refuse_trace_at(line, "gen", 8, 1, "event 8: generation 1 is not its place in 0..0");
	refuse_trace_at(line, "max_seq", 9, 3, "event 9: generation 0 is not its place in 0..3");
	refuse_trace_at(line, "min_seq", 0, 1, "event 0: generation 0 is not its place in 1..0");
	/* time never goes back within a message; ties are fine */
	refuse_trace_at(line, "t_ms", 2, 9, "trace: event 2 goes back in time");
	refuse_trace_at(line, "t_ms", 15, 21, "trace: event 15 goes back in time");
	free(line);
}

#define TR1 "'files':[{'name':'a','mib':8}]"

/* A job (written with ') must parse; proto_job_trace's answer. */
static uint64_t job_trace(const char *text, unsigned *files, int *all)
{
	struct proto_job *j = calloc(1, sizeof(*j));
	uint64_t sample;

	assert_non_null(j);
	if (job_from_text(text, j) < 0)
		fail_msg("refused: %s: %s", text, err);
	sample = proto_job_trace(j, files, all);
	free(j);
	return sample;
}

static void test_job_trace(void **state)
{
	struct proto_job *j = calloc(1, sizeof(*j)), *k = calloc(1, sizeof(*k));
	unsigned files;
	int all;
	json_t *o;

	(void)state;
	assert_non_null(j);
	assert_non_null(k);
	/* untraced: no sample, no files */
	assert_int_equal(job_trace("{" F2 ",'streams':[" RND "]}", &files, &all), 0);
	assert_true(files == 0 && all == 0);
	assert_int_equal(job_trace("{'trace':{'sample':0}," F2 ",'streams':[" RND "]}", &files,
				   &all), 0);
	assert_true(files == 0 && all == 0);
	/* a cell's trace: every file of the data disk */
	assert_int_equal(job_trace("{'trace':{'sample':64}," F2 ",'streams':[" RND "]}", &files,
				   &all), 64);
	assert_true(files == 0 && all == 1);
	/* a random stream's: its file only (b, file 1); a scan's too */
	assert_int_equal(job_trace("{" F2 ",'streams':[{'kind':'random','file':'b',"
				   "'trace':{'sample':64}}," RND "]}", &files, &all), 64);
	assert_true(files == 2 && all == 0);
	assert_int_equal(job_trace("{" F2 ",'streams':[{'kind':'scan','file':'a',"
				   "'trace':{'sample':1}},{'kind':'random','file':'b',"
				   "'trace':{'sample':1}}]}", &files, &all), 1);
	assert_true(files == 3 && all == 0);
	/* both, with the same sample */
	assert_int_equal(job_trace("{'trace':{'sample':1048576}," F2 ",'streams':["
				   "{'kind':'random','file':'b','trace':{'sample':1048576}}]}",
				   &files, &all), 1048576);
	assert_true(files == 2 && all == 1);

	/* to JSON and back, and through a job message: the samples stay */
	assert_int_equal(job_from_text("{'trace':{'sample':64}," F2 ",'streams':[" RND ","
				       "{'kind':'scan','file':'b','trace':{'sample':64}}]}", j), 0);
	assert_int_equal(j->trace_sample, 64);
	assert_int_equal(j->streams[0].trace_sample, 0);
	assert_int_equal(j->streams[1].trace_sample, 64);
	o = proto_job_to_json(j);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "trace"), "sample")),
			 64);
	assert_null(json_object_get(json_array_get(json_object_get(o, "streams"), 0), "trace"));
	assert_int_equal(proto_job_from_json(o, k, "again", err, sizeof(err)), 0);
	json_decref(o);
	assert_int_equal(k->trace_sample, 64);
	assert_int_equal(k->streams[1].trace_sample, 64);
	assert_job_equal(j, k);
	check_json_round_trip("{'trace':{'sample':64}," F2 ",'streams':[" RND ","
			      "{'kind':'scan','file':'b','trace':{'sample':64}}]}");
	check_json_round_trip("{" F1 ",'streams':[{'kind':'random','file':'a',"
			      "'trace':{'sample':4}}]}");
	{
		struct proto_msg *m = new_msg(), *back = new_msg();

		m->type = PROTO_JOB;
		m->u.job = *j;
		m->u.job.run = 5;
		round_trip(m, back);
		assert_int_equal(back->u.job.trace_sample, 64);
		assert_int_equal(back->u.job.streams[1].trace_sample, 64);
		free(m);
		free(back);
	}
	/* an untraced job writes no trace at all */
	assert_int_equal(job_from_text("{" F1 ",'streams':[" RND "]}", j), 0);
	o = proto_job_to_json(j);
	assert_null(json_object_get(o, "trace"));
	assert_null(json_object_get(json_array_get(json_object_get(o, "streams"), 0), "trace"));
	json_decref(o);
	free(j);
	free(k);
}

static void test_refuse_job_trace(void **state)
{
	(void)state;
	/* a power of two, within 1 .. 2^20 */
	refuse_job("{'trace':{'sample':48}," TR1 ",'streams':[" RND "]}",
		   "job.trace.sample: 48 is not a power of two");
	refuse_job("{'trace':{'sample':3}," TR1 ",'streams':[" RND "]}", "not a power of two");
	refuse_job("{" TR1 ",'streams':[{'kind':'random','file':'a','trace':{'sample':48}}]}",
		   "job.streams[0].trace.sample: 48 is not a power of two");
	refuse_job("{'trace':{'sample':2097152}," TR1 ",'streams':[" RND "]}",
		   "job.trace.sample: expected 0..");
	refuse_job("{'trace':{'sample':-1}," TR1 ",'streams':[" RND "]}", "job.trace.sample");
	refuse_job("{'trace':{'sample':1.5}," TR1 ",'streams':[" RND "]}",
		   "job.trace.sample: expected a whole number");
	refuse_job("{'trace':{'sample':'64'}," TR1 ",'streams':[" RND "]}",
		   "job.trace.sample: expected a number");
	/* an object of known keys */
	refuse_job("{'trace':{'sample':64,'rate':2}," TR1 ",'streams':[" RND "]}",
		   "job.trace: unknown key 'rate'");
	refuse_job("{" TR1 ",'streams':[{'kind':'scan','file':'a','trace':{'every':2}}]}",
		   "job.streams[0].trace: unknown key 'every'");
	refuse_job("{'trace':64," TR1 ",'streams':[" RND "]}", "job.trace: expected an object");
	refuse_job("{" TR1 ",'streams':[{'kind':'random','file':'a','trace':[64]}]}",
		   "job.streams[0].trace: expected an object");
	/* only streams that name their file */
	refuse_job("{" TR1 ",'streams':[{'kind':'fio','args':'--name=x','trace':{'sample':64}}]}",
		   "job.streams[0].trace: a fio stream names no file to trace");
	/* one sample a cell: the kernel filters by one index mask */
	refuse_job("{'files':[{'name':'a','mib':8},{'name':'b','mib':16}],'streams':["
		   "{'kind':'random','file':'a','trace':{'sample':64}},"
		   "{'kind':'scan','file':'b','trace':{'sample':32}}]}",
		   "job.streams[1].trace.sample: 32, but 64 is traced already (one sample a cell)");
	refuse_job("{'trace':{'sample':16}," TR1 ",'streams':["
		   "{'kind':'random','file':'a','trace':{'sample':64}}]}",
		   "job.streams[0].trace.sample: 64, but 16 is traced already");
}

/* fmtbuf fails on a cut and keeps what fit; fmtcut cuts and marks the cut. */
static void test_fmt(void **state)
{
	char b[8];

	(void)state;
	assert_int_equal(fmtbuf(b, sizeof(b), "%s", "1234567"), 0);
	assert_string_equal(b, "1234567");
	assert_int_equal(fmtbuf(b, sizeof(b), "%s/%d", "run", 12345), -1);
	assert_string_equal(b, "run/123");
	fmtcut(b, sizeof(b), "%s", "short");
	assert_string_equal(b, "short");
	fmtcut(b, sizeof(b), "%s", "12345678");
	assert_string_equal(b, "1234...");
	fmtcut(b, 3, "%s", "abcdef");
	assert_string_equal(b, "..");
	fmtcut(b, 1, "%s", "abcdef");
	assert_string_equal(b, "");
}

/* Every line of path parses: 1 per line, its file and line named on a failure. */
static int corpus_lines_parse(const char *path)
{
	char line[PROTO_LINE_MAX + 2];
	struct proto_msg *m = calloc(1, sizeof(*m));
	FILE *f = fopen(path, "r");
	int n = 0;

	assert_non_null(f);
	assert_non_null(m);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (proto_parse(line, strcspn(line, "\n"), m, err, sizeof(err)) < 0)
			fail_msg("%s: line %d: %s", path, n, err);
	}
	fclose(f);
	free(m);
	return n;
}

/*
 * The fuzzers' seeds are messages as the agent sends them today: a seed the
 * parser refuses (a field added since) only ever fuzzes the refusal. Five of
 * the proto seeds and most of the channel's session had gone stale so.
 */
static void test_fuzz_seeds_parse(void **state)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir("fuzz/corpus/proto");
	int files = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".json"))
			continue;
		snprintf(path, sizeof(path), "fuzz/corpus/proto/%s", e->d_name);
		assert_int_equal(corpus_lines_parse(path), 1);
		files++;
	}
	closedir(d);
	assert_true(files >= 12);   /* every type the agent sends, counters and mthp too */
	assert_true(corpus_lines_parse("fuzz/corpus/channel/session.txt") >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_seeds_parse),
		cmocka_unit_test(test_rt_hello),
		cmocka_unit_test(test_rt_job),
		cmocka_unit_test(test_rt_setup),
		cmocka_unit_test(test_rt_sample),
		cmocka_unit_test(test_rt_stream),
		cmocka_unit_test(test_rt_op),
		cmocka_unit_test(test_rt_event),
		cmocka_unit_test(test_rt_summary),
		cmocka_unit_test(test_summary_mthp_refused),
		cmocka_unit_test(test_mthp_list),
		cmocka_unit_test(test_rt_error),
		cmocka_unit_test(test_format_limits),
		cmocka_unit_test(test_parse_job_line),
		cmocka_unit_test(test_job_defaults),
		cmocka_unit_test(test_job_json_round_trip),
		cmocka_unit_test(test_job_swap),
		cmocka_unit_test(test_refuse_shape),
		cmocka_unit_test(test_refuse_missing_extra),
		cmocka_unit_test(test_refuse_types),
		cmocka_unit_test(test_refuse_ranges),
		cmocka_unit_test(test_refuse_u64_arrays),
		cmocka_unit_test(test_refuse_strings),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_refuse_nul_in_line),
		cmocka_unit_test(test_refuse_duplicates),
		cmocka_unit_test(test_line_length),
		cmocka_unit_test(test_refuse_job_options),
		cmocka_unit_test(test_refuse_job_rules),
		cmocka_unit_test(test_job_limits),
		cmocka_unit_test(test_opt_set_json),
		cmocka_unit_test(test_take_line),
		cmocka_unit_test(test_rt_lru),
		cmocka_unit_test(test_refuse_lru),
		cmocka_unit_test(test_rt_trace),
		cmocka_unit_test(test_refuse_trace),
		cmocka_unit_test(test_job_trace),
		cmocka_unit_test(test_refuse_job_trace),
		cmocka_unit_test(test_fmt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
