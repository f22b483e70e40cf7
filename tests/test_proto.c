/* test_proto.c -- unit tests for guest/proto.c (the channel protocol both
 * sides share) and channel_take_line() from harness/channel.c: every message
 * round-trips through proto_format/proto_parse, and the strict parser refuses
 * every malformed, oversized or out-of-range line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "channel.h"
#include "proto.h"

#define WL_FULL                                                                   \
	"{\"access\":\"mmap\",\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":4," \
	"\"duration_s\":30,\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64}"

#define HELLO_OK                                                                  \
	"{\"type\":\"hello\",\"proto\":1,\"release\":\"6.12.0\",\"arch\":\"x86_64\"," \
	"\"page_size\":4096,\"mem_total_kib\":400000,\"lru_gen_caps\":\"0x0007\","    \
	"\"cachestat\":1}"

static char err[PROTO_ERR_MAX];

/* Parse a NUL-terminated line; on success err is cleared. */
static int parse(const char *line, struct proto_msg *m)
{
	err[0] = '\0';
	return proto_parse(line, strlen(line), m, err, sizeof(err));
}

/* The line must be refused with a reason containing want. */
static void refuse(const char *line, const char *want)
{
	struct proto_msg m;

	if (parse(line, &m) == 0)
		fail_msg("accepted: %s", line);
	if (!strstr(err, want))
		fail_msg("line %s: error '%s' lacks '%s'", line, err, want);
}

/* Format m, check the line shape, parse it back into out. */
static void round_trip(const struct proto_msg *m, struct proto_msg *out)
{
	char line[PROTO_LINE_MAX], again[PROTO_LINE_MAX];
	int n, n2;

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
	n2 = proto_format(out, again, sizeof(again));
	assert_int_equal(n2, n);
	assert_string_equal(again, line);
}

static void full_workload(struct proto_workload *w)
{
	proto_workload_defaults(w);
	w->access = WL_MMAP;
	w->dist = WL_ZIPF;
	w->theta = 1.1;
	w->threads = 4;
	w->duration_s = 30;
	w->interval_ms = 500;
	w->file_mib = 128;
	w->memcg_mib = 64;
}

static void assert_workload_equal(const struct proto_workload *a, const struct proto_workload *b)
{
	assert_int_equal(a->access, b->access);
	assert_int_equal(a->dist, b->dist);
	assert_true(a->theta == b->theta);
	assert_int_equal(a->threads, b->threads);
	assert_int_equal(a->duration_s, b->duration_s);
	assert_int_equal(a->interval_ms, b->interval_ms);
	assert_int_equal(a->file_mib, b->file_mib);
	assert_int_equal(a->memcg_mib, b->memcg_mib);
}

/* ---- round trips ---- */

static void test_rt_hello(void **state)
{
	struct proto_msg m, o;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PROTO_HELLO;
	m.u.hello.proto = PROTO_VERSION;
	strcpy(m.u.hello.release, "6.12.99-test");
	strcpy(m.u.hello.arch, "x86_64");
	m.u.hello.page_size = 4096;
	m.u.hello.mem_total_kib = 412345;
	strcpy(m.u.hello.lru_gen_caps, "0x0007");
	m.u.hello.cachestat = 1;
	round_trip(&m, &o);
	assert_int_equal(o.u.hello.proto, PROTO_VERSION);
	assert_string_equal(o.u.hello.release, "6.12.99-test");
	assert_string_equal(o.u.hello.arch, "x86_64");
	assert_int_equal(o.u.hello.page_size, 4096);
	assert_int_equal(o.u.hello.mem_total_kib, 412345);
	assert_string_equal(o.u.hello.lru_gen_caps, "0x0007");
	assert_int_equal(o.u.hello.cachestat, 1);

	/* an empty string and the largest values in range survive too */
	m.u.hello.lru_gen_caps[0] = '\0';
	m.u.hello.cachestat = 0;
	m.u.hello.page_size = UINT64_C(1) << 20;
	m.u.hello.mem_total_kib = UINT64_C(1) << 40;
	memset(m.u.hello.release, 'r', PROTO_STR_MAX - 1);
	m.u.hello.release[PROTO_STR_MAX - 1] = '\0';
	round_trip(&m, &o);
	assert_string_equal(o.u.hello.lru_gen_caps, "");
	assert_int_equal(o.u.hello.cachestat, 0);
	assert_int_equal(o.u.hello.page_size, UINT64_C(1) << 20);
	assert_int_equal(o.u.hello.mem_total_kib, UINT64_C(1) << 40);
	assert_int_equal(strlen(o.u.hello.release), PROTO_STR_MAX - 1);
}

static void test_rt_job(void **state)
{
	struct proto_msg m, o;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PROTO_JOB;
	m.u.job.run = 123456789;
	strcpy(m.u.job.lru_gen, "y");
	full_workload(&m.u.job.wl);
	round_trip(&m, &o);
	assert_int_equal(o.u.job.run, 123456789);
	assert_string_equal(o.u.job.lru_gen, "y");
	assert_workload_equal(&o.u.job.wl, &m.u.job.wl);
	assert_string_equal(proto_workload_enum_name(&o.u.job.wl, "access"), "mmap");
	assert_string_equal(proto_workload_enum_name(&o.u.job.wl, "distribution"), "zipf");

	/* the other enum values, an empty lru_gen and a non-trivial double */
	m.u.job.lru_gen[0] = '\0';
	m.u.job.wl.access = WL_PREAD;
	m.u.job.wl.dist = WL_UNIFORM;
	m.u.job.wl.theta = 0.123456789012345;
	m.u.job.wl.threads = 256;
	m.u.job.wl.file_mib = 1 << 20;
	round_trip(&m, &o);
	assert_string_equal(o.u.job.lru_gen, "");
	assert_workload_equal(&o.u.job.wl, &m.u.job.wl);
}

static void test_rt_setup(void **state)
{
	struct proto_msg m, o;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PROTO_SETUP;
	strcpy(m.u.setup.lru_gen, "0x0007");
	m.u.setup.file_pages = 32768;
	strcpy(m.u.setup.residency, "cachestat");
	round_trip(&m, &o);
	assert_string_equal(o.u.setup.lru_gen, "0x0007");
	assert_int_equal(o.u.setup.file_pages, 32768);
	assert_string_equal(o.u.setup.residency, "cachestat");
}

static void test_rt_sample(void **state)
{
	struct proto_msg m, o;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PROTO_SAMPLE;
	m.u.sample.seq = 17;
	m.u.sample.t_ms = 17000;
	m.u.sample.ops = 98765;
	m.u.sample.pgmajfault = 321;
	m.u.sample.refault_file = 55;
	m.u.sample.activate_file = 44;
	m.u.sample.resident_pages = 8000;
	round_trip(&m, &o);
	assert_int_equal(o.u.sample.seq, 17);
	assert_int_equal(o.u.sample.t_ms, 17000);
	assert_int_equal(o.u.sample.ops, 98765);
	assert_int_equal(o.u.sample.pgmajfault, 321);
	assert_int_equal(o.u.sample.refault_file, 55);
	assert_int_equal(o.u.sample.activate_file, 44);
	assert_int_equal(o.u.sample.resident_pages, 8000);
}

static void test_rt_summary(void **state)
{
	struct proto_msg m, o;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PROTO_SUMMARY;
	m.u.summary.ops = UINT64_C(1) << 50;
	m.u.summary.duration_ms = 10003;
	m.u.summary.samples = 10;
	round_trip(&m, &o);
	assert_int_equal(o.u.summary.ops, UINT64_C(1) << 50);
	assert_int_equal(o.u.summary.duration_ms, 10003);
	assert_int_equal(o.u.summary.samples, 10);
}

static void test_rt_error(void **state)
{
	struct proto_msg m, o;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PROTO_ERROR;
	strcpy(m.u.error, "cannot open /data/data0: No such file or directory");
	round_trip(&m, &o);
	assert_string_equal(o.u.error, m.u.error);

	/* the longest message that fits its buffer */
	memset(m.u.error, 'e', PROTO_ERR_MAX - 1);
	m.u.error[PROTO_ERR_MAX - 1] = '\0';
	round_trip(&m, &o);
	assert_int_equal(strlen(o.u.error), PROTO_ERR_MAX - 1);
}

static void test_format_limits(void **state)
{
	struct proto_msg m;
	char small[16];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PROTO_SUMMARY;
	assert_int_equal(proto_format(&m, small, sizeof(small)), -1);
	m.type = (enum proto_type)99;
	assert_int_equal(proto_format(&m, small, sizeof(small)), -1);
}

/* A hand-written job line (keys in any order) parses field for field. */
static void test_parse_job_line(void **state)
{
	struct proto_msg m;

	(void)state;
	assert_int_equal(parse("{\"workload\":" WL_FULL ",\"lru_gen\":\"n\",\"run\":5,"
			       "\"type\":\"job\"}", &m), 0);
	assert_int_equal(m.type, PROTO_JOB);
	assert_int_equal(m.u.job.run, 5);
	assert_string_equal(m.u.job.lru_gen, "n");
	assert_int_equal(m.u.job.wl.access, WL_MMAP);
	assert_int_equal(m.u.job.wl.dist, WL_ZIPF);
	assert_true(m.u.job.wl.theta == 1.1);
	assert_int_equal(m.u.job.wl.threads, 4);
	assert_int_equal(m.u.job.wl.duration_s, 30);
	assert_int_equal(m.u.job.wl.interval_ms, 500);
	assert_int_equal(m.u.job.wl.file_mib, 128);
	assert_int_equal(m.u.job.wl.memcg_mib, 64);
	assert_int_equal(parse(HELLO_OK, &m), 0);
	assert_int_equal(m.type, PROTO_HELLO);
}

/* ---- refusals ---- */

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

static void test_refuse_fields(void **state)
{
	(void)state;
	/* missing field */
	refuse("{\"type\":\"summary\",\"ops\":1,\"duration_ms\":2}", "'samples' missing");
	refuse("{\"type\":\"error\"}", "'msg' missing");
	/* extra field */
	refuse("{\"type\":\"summary\",\"ops\":1,\"duration_ms\":2,\"samples\":3,\"x\":0}",
	       "unexpected fields");
	refuse("{\"type\":\"error\",\"msg\":\"x\",\"msg2\":\"y\"}", "unexpected fields");
	/* wrong JSON type */
	refuse("{\"type\":\"summary\",\"ops\":\"1\",\"duration_ms\":2,\"samples\":3}",
	       "'ops' must be an integer");
	refuse("{\"type\":\"summary\",\"ops\":1.0,\"duration_ms\":2,\"samples\":3}",
	       "'ops' must be an integer");
	refuse("{\"type\":\"summary\",\"ops\":true,\"duration_ms\":2,\"samples\":3}",
	       "'ops' must be an integer");
	refuse("{\"type\":\"error\",\"msg\":7}", "'msg' must be a string");
	refuse("{\"type\":\"error\",\"msg\":null}", "'msg' must be a string");
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":[]}",
	       "'workload' must be an object");
}

static void test_refuse_ranges(void **state)
{
	(void)state;
	/* negative */
	refuse("{\"type\":\"summary\",\"ops\":-1,\"duration_ms\":2,\"samples\":3}",
	       "'ops' out of range");
	/* page_size bound is 2^20: 2^21 refused, 2^20 accepted */
	refuse("{\"type\":\"hello\",\"proto\":1,\"release\":\"r\",\"arch\":\"a\","
	       "\"page_size\":2097152,\"mem_total_kib\":1,\"lru_gen_caps\":\"\",\"cachestat\":0}",
	       "'page_size' out of range");
	{
		struct proto_msg m;

		assert_int_equal(parse("{\"type\":\"hello\",\"proto\":1,\"release\":\"r\","
				       "\"arch\":\"a\",\"page_size\":1048576,\"mem_total_kib\":1,"
				       "\"lru_gen_caps\":\"\",\"cachestat\":0}", &m), 0);
		assert_int_equal(m.u.hello.page_size, 1048576);
	}
	refuse("{\"type\":\"hello\",\"proto\":1,\"release\":\"r\",\"arch\":\"a\","
	       "\"page_size\":4096,\"mem_total_kib\":1,\"lru_gen_caps\":\"\",\"cachestat\":2}",
	       "'cachestat' out of range");
	refuse("{\"type\":\"sample\",\"seq\":4294967297,\"t_ms\":0,\"ops\":0,\"pgmajfault\":0,"
	       "\"workingset_refault_file\":0,\"workingset_activate_file\":0,"
	       "\"resident_pages\":0}", "'seq' out of range");
	/* beyond what json_int_t holds: refused as JSON */
	refuse("{\"type\":\"summary\",\"ops\":99999999999999999999,\"duration_ms\":2,\"samples\":3}",
	       "");
}

static void test_refuse_strings(void **state)
{
	char line[1024], arch[40];

	(void)state;
	/* arch buffer is 32: 31 characters fit, 32 do not */
	memset(arch, 'a', 31);
	arch[31] = '\0';
	snprintf(line, sizeof(line), "{\"type\":\"hello\",\"proto\":1,\"release\":\"r\","
		 "\"arch\":\"%s\",\"page_size\":4096,\"mem_total_kib\":1,\"lru_gen_caps\":\"\","
		 "\"cachestat\":0}", arch);
	{
		struct proto_msg m;

		assert_int_equal(parse(line, &m), 0);
		assert_string_equal(m.u.hello.arch, arch);
	}
	strcat(arch, "a");
	snprintf(line, sizeof(line), "{\"type\":\"hello\",\"proto\":1,\"release\":\"r\","
		 "\"arch\":\"%s\",\"page_size\":4096,\"mem_total_kib\":1,\"lru_gen_caps\":\"\","
		 "\"cachestat\":0}", arch);
	refuse(line, "'arch' too long");
	/* lru_gen in a job is an 8-byte buffer */
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"12345678\",\"workload\":" WL_FULL "}",
	       "'lru_gen' too long");

	/* control characters, escaped and raw, and DEL */
	refuse("{\"type\":\"error\",\"msg\":\"a\\u0001b\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"a\\nb\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"a\\u007fb\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"a\tb\"}", "not JSON");
	/* an escaped NUL is refused (jansson without JSON_ALLOW_NUL) */
	refuse("{\"type\":\"error\",\"msg\":\"a\\u0000b\"}", "");
	/* non-ASCII, valid UTF-8: raw and escaped */
	refuse("{\"type\":\"error\",\"msg\":\"caf\xc3\xa9\"}", "'msg' has non-printable");
	refuse("{\"type\":\"error\",\"msg\":\"caf\\u00e9\"}", "'msg' has non-printable");
	/* invalid UTF-8 */
	refuse("{\"type\":\"error\",\"msg\":\"a\xff" "b\"}", "not JSON");
	refuse("{\"type\":\"error\",\"msg\":\"a\xc3\x28" "b\"}", "not JSON");
	refuse("{\"type\":\"error\",\"msg\":\"a\xed\xa0\x80" "b\"}", "not JSON");
}

static void test_refuse_nul_in_line(void **state)
{
	static const char line[] = "{\"type\":\"error\",\"msg\":\"a\0b\"}";
	struct proto_msg m;

	(void)state;
	assert_int_equal(proto_parse(line, sizeof(line) - 1, &m, err, sizeof(err)), -1);
}

static void test_refuse_duplicates(void **state)
{
	(void)state;
	refuse("{\"type\":\"summary\",\"ops\":1,\"ops\":1,\"duration_ms\":2,\"samples\":3}",
	       "not JSON");
	refuse("{\"type\":\"error\",\"type\":\"error\",\"msg\":\"x\"}", "not JSON");
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmap\","
	       "\"access\":\"pread\",\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":4,"
	       "\"duration_s\":30,\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64}}",
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
	struct proto_msg m;
	char *s;

	(void)state;
	s = padded(PROTO_LINE_MAX - 1);
	assert_int_equal(proto_parse(s, PROTO_LINE_MAX - 1, &m, err, sizeof(err)), 0);
	assert_string_equal(m.u.error, "x");
	free(s);

	s = padded(PROTO_LINE_MAX);
	assert_int_equal(proto_parse(s, PROTO_LINE_MAX, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exceeds 4096"));
	free(s);

	s = padded(PROTO_LINE_MAX * 4);
	assert_int_equal(proto_parse(s, PROTO_LINE_MAX * 4, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exceeds"));
	free(s);
}

static void test_refuse_job_workload(void **state)
{
	(void)state;
	/* lacks an option */
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmap\","
	       "\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":4,\"duration_s\":30,"
	       "\"interval_ms\":500,\"file_mib\":128}}", "'memcg_mib' missing");
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{}}", "missing");
	/* unknown option */
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmap\","
	       "\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":4,\"duration_s\":30,"
	       "\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64,\"bogus\":1}}",
	       "unknown workload option 'bogus'");
	/* out of range */
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmap\","
	       "\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":0,\"duration_s\":30,"
	       "\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64}}",
	       "'threads' must be between 1 and 256");
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmap\","
	       "\"distribution\":\"zipf\",\"theta\":9,\"threads\":1,\"duration_s\":30,"
	       "\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64}}", "'theta'");
	/* bad enum, non-whole number, wrong JSON type */
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmapx\","
	       "\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":4,\"duration_s\":30,"
	       "\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64}}", "'access' must be one of");
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmap\","
	       "\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":2.5,\"duration_s\":30,"
	       "\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64}}", "whole number");
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\",\"workload\":{\"access\":\"mmap\","
	       "\"distribution\":\"zipf\",\"theta\":1.1,\"threads\":true,\"duration_s\":30,"
	       "\"interval_ms\":500,\"file_mib\":128,\"memcg_mib\":64}}",
	       "'threads' must be a string or number");
	/* the job's own fields */
	refuse("{\"type\":\"job\",\"run\":1,\"lru_gen\":\"y\"}", "'workload' missing");
	refuse("{\"type\":\"job\",\"run\":-5,\"lru_gen\":\"y\",\"workload\":" WL_FULL "}",
	       "'run' out of range");
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

/* ---- workload options ---- */

static void test_workload_defaults(void **state)
{
	struct proto_workload w;

	(void)state;
	memset(&w, 0xff, sizeof(w));
	assert_int_equal(proto_workload_defaults(&w), 0);
	assert_int_equal(w.access, WL_PREAD);
	assert_int_equal(w.dist, WL_UNIFORM);
	assert_true(w.theta == 0.9);
	assert_int_equal(w.threads, 1);
	assert_int_equal(w.duration_s, 10);
	assert_int_equal(w.interval_ms, 1000);
	assert_int_equal(w.file_mib, 64);
	assert_int_equal(w.memcg_mib, 32);
}

static void test_workload_set(void **state)
{
	struct proto_workload w;
	char e[256];

	(void)state;
	proto_workload_defaults(&w);

	/* enum: accepted values, refused ones list every choice */
	assert_int_equal(proto_workload_set(&w, "access", "mmap", e, sizeof(e)), 0);
	assert_int_equal(w.access, WL_MMAP);
	assert_int_equal(proto_workload_set(&w, "access", "read", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "'access'"));
	assert_non_null(strstr(e, "pread, mmap"));
	assert_non_null(strstr(e, "'read'"));
	assert_int_equal(w.access, WL_MMAP);   /* unchanged on error */
	assert_int_equal(proto_workload_set(&w, "distribution", "normal", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "uniform, zipf"));
	assert_int_equal(proto_workload_set(&w, "distribution", "zipf", e, sizeof(e)), 0);
	assert_int_equal(w.dist, WL_ZIPF);

	/* whole numbers */
	assert_int_equal(proto_workload_set(&w, "threads", "8", e, sizeof(e)), 0);
	assert_int_equal(w.threads, 8);
	assert_int_equal(proto_workload_set(&w, "threads", "2.5", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "'threads' must be a whole number"));
	assert_int_equal(w.threads, 8);
	assert_int_equal(proto_workload_set(&w, "threads", "4.0", e, sizeof(e)), 0);
	assert_int_equal(w.threads, 4);

	/* ranges, inclusive */
	assert_int_equal(proto_workload_set(&w, "threads", "0", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "'threads' must be between 1 and 256"));
	assert_int_equal(proto_workload_set(&w, "threads", "257", e, sizeof(e)), -1);
	assert_int_equal(proto_workload_set(&w, "threads", "256", e, sizeof(e)), 0);
	assert_int_equal(proto_workload_set(&w, "threads", "1", e, sizeof(e)), 0);
	assert_int_equal(proto_workload_set(&w, "interval_ms", "99", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "between 100 and 60000"));
	assert_int_equal(proto_workload_set(&w, "memcg_mib", "7", e, sizeof(e)), -1);
	assert_int_equal(proto_workload_set(&w, "theta", "5.0001", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "'theta' must be between 0 and 5"));
	assert_int_equal(proto_workload_set(&w, "theta", "-0.1", e, sizeof(e)), -1);
	assert_int_equal(proto_workload_set(&w, "theta", "1.25", e, sizeof(e)), 0);
	assert_true(w.theta == 1.25);
	assert_int_equal(proto_workload_set(&w, "theta", "0", e, sizeof(e)), 0);
	assert_true(w.theta == 0.0);

	/* not numbers */
	assert_int_equal(proto_workload_set(&w, "threads", "four", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "'threads' must be a number"));
	assert_int_equal(proto_workload_set(&w, "threads", "", e, sizeof(e)), -1);
	assert_int_equal(proto_workload_set(&w, "threads", "4x", e, sizeof(e)), -1);
	assert_int_equal(proto_workload_set(&w, "theta", "nan", e, sizeof(e)), -1);
	assert_int_equal(proto_workload_set(&w, "theta", "inf", e, sizeof(e)), -1);
	assert_int_equal(proto_workload_set(&w, "file_mib", "1e400", e, sizeof(e)), -1);

	/* unknown option; a NULL err is allowed */
	assert_int_equal(proto_workload_set(&w, "speed", "1", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "unknown workload option 'speed'"));
	assert_int_equal(proto_workload_set(&w, "speed", "1", NULL, 0), -1);
}

static void test_workload_set_json(void **state)
{
	struct proto_workload w;
	char e[256];
	json_t *v;

	(void)state;
	proto_workload_defaults(&w);
	v = json_integer(16);
	assert_int_equal(proto_workload_set_json(&w, "threads", v, e, sizeof(e)), 0);
	assert_int_equal(w.threads, 16);
	json_decref(v);
	v = json_real(1.1);
	assert_int_equal(proto_workload_set_json(&w, "theta", v, e, sizeof(e)), 0);
	assert_true(w.theta == 1.1);
	json_decref(v);
	v = json_string("mmap");
	assert_int_equal(proto_workload_set_json(&w, "access", v, e, sizeof(e)), 0);
	assert_int_equal(w.access, WL_MMAP);
	json_decref(v);
	v = json_integer(1);   /* an enum wants its name */
	assert_int_equal(proto_workload_set_json(&w, "access", v, e, sizeof(e)), -1);
	json_decref(v);
	v = json_true();
	assert_int_equal(proto_workload_set_json(&w, "threads", v, e, sizeof(e)), -1);
	assert_non_null(strstr(e, "string or number"));
	json_decref(v);
	v = json_integer(0);
	assert_int_equal(proto_workload_set_json(&w, "threads", v, e, sizeof(e)), -1);
	assert_non_null(strstr(e, "between 1 and 256"));
	json_decref(v);
	assert_string_equal(proto_workload_enum_name(&w, "access"), "mmap");
	assert_string_equal(proto_workload_enum_name(&w, "threads"), "?");
	assert_string_equal(proto_workload_enum_name(&w, "nope"), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rt_hello),
		cmocka_unit_test(test_rt_job),
		cmocka_unit_test(test_rt_setup),
		cmocka_unit_test(test_rt_sample),
		cmocka_unit_test(test_rt_summary),
		cmocka_unit_test(test_rt_error),
		cmocka_unit_test(test_format_limits),
		cmocka_unit_test(test_parse_job_line),
		cmocka_unit_test(test_refuse_shape),
		cmocka_unit_test(test_refuse_fields),
		cmocka_unit_test(test_refuse_ranges),
		cmocka_unit_test(test_refuse_strings),
		cmocka_unit_test(test_refuse_nul_in_line),
		cmocka_unit_test(test_refuse_duplicates),
		cmocka_unit_test(test_line_length),
		cmocka_unit_test(test_refuse_job_workload),
		cmocka_unit_test(test_take_line),
		cmocka_unit_test(test_workload_defaults),
		cmocka_unit_test(test_workload_set),
		cmocka_unit_test(test_workload_set_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
