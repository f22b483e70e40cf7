/* test_fio.c -- unit tests for fio support: fiostat on real recorded fio json+
 * status output and on garbage, fioargs' rules, and fiocheck with the real fio. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "slurp.h"
#include <jansson.h>

#include "base/err.h"
#include "base/proc.h"
#include "common/fioargs.h"
#include "guest/fiostat.h"
#include "spec/fiocheck.h"
#include "spec/preset.h"
#include "testlib.h"

#define FIO_BIN    "images/out/x86_64/fio"
#define DATA_PLAIN "tests/data/fio-status-json+.txt"
#define DATA_RAMP  "tests/data/fio-status-ramp-json+.txt"
#define DATA_GAP   "tests/data/fio-status-gap-json+.txt"
#define PRESETS    "workloads/presets"
#define EXAMPLES   "workloads/examples"

static const char *const line_004 =
	"--name=fg --numjobs=16 --nrfiles=1 --filename_format=realdk.$jobnum.img "
	"--size=2560M --rw=randread --bs=4k --time_based --random_distribution=zipf:1.1 "
	"--ramp_time=120s --runtime=600s --group_reporting --buffered=1 --ioengine=sync";

static char *slurp(const char *path, size_t *ret_len)
{
	return test_slurp(path, ret_len);
}

static struct fiostat *new_stat(int64_t epoch_ms)
{
	struct fiostat *s = malloc(sizeof(*s));

	assert_non_null(s);
	fiostat_init(s, epoch_ms);
	return s;
}

static void free_stat(struct fiostat *s)
{
	fiostat_release(s);
	free(s);
}

/* What the recording says, read independently with jansson. */
struct expect {
	int docs;
	uint64_t ios, bytes;   /* sum of every segment's last value (resets split) */
	uint64_t final_ios;
	int64_t first_ms;      /* the first document's timestamp_ms */
	json_t *last;          /* the final document */
};

static uint64_t doc_sum(json_t *doc, const char *key)
{
	json_t *job;
	size_t i;
	uint64_t sum = 0;

	json_array_foreach(json_object_get(doc, "jobs"), i, job)
		sum += (uint64_t)json_integer_value(json_object_get(json_object_get(job, "read"), key));
	return sum;
}

/* The document starting at or after *off: its end (into *off) and timestamp; NULL at the end. */
static json_t *next_doc(const char *buf, size_t len, size_t *off, int64_t *ret_ms)
{
	json_error_t jerr;
	json_t *doc;

	while (*off < len && buf[*off] != '{')
		(*off)++;
	if (*off == len)
		return NULL;
	doc = json_loadb(buf + *off, len - *off, JSON_DISABLE_EOF_CHECK, &jerr);
	assert_non_null(doc);
	*off += (size_t)jerr.position;
	*ret_ms = (int64_t)json_integer_value(json_object_get(doc, "timestamp_ms"));
	assert_true(*ret_ms > 0);
	return doc;
}

static void read_expect(const char *buf, size_t len, struct expect *e)
{
	uint64_t prev_ios = 0, prev_bytes = 0;
	size_t off = 0;
	int64_t ms;
	json_t *doc;

	memset(e, 0, sizeof(*e));
	while ((doc = next_doc(buf, len, &off, &ms))) {
		if (doc_sum(doc, "total_ios") < prev_ios) {   /* ramp_time reset */
			e->ios += prev_ios;
			e->bytes += prev_bytes;
		}
		prev_ios = doc_sum(doc, "total_ios");
		prev_bytes = doc_sum(doc, "io_bytes");
		if (!e->docs++)
			e->first_ms = ms;
		json_decref(e->last);
		e->last = doc;
	}
	e->ios += prev_ios;
	e->bytes += prev_bytes;
	e->final_ios = prev_ios;
}

/* The intervals an agent would store from a recording. */
#define REPLAY_MAX 64
struct replay {
	struct fio_interval iv[REPLAY_MAX];
	unsigned n;
	uint64_t ios, bytes;
};

/* Tell every interval of [told, ticks) that fiostat can tell by now. */
static void tell(struct fiostat *s, struct replay *r, unsigned ticks)
{
	while (r->n < ticks && fiostat_slice(s, r->n * 1000, (r->n + 1) * 1000, &r->iv[r->n])) {
		r->ios += r->iv[r->n].read_ios + r->iv[r->n].write_ios;
		r->bytes += r->iv[r->n].read_bytes + r->iv[r->n].write_bytes;
		r->n++;
	}
}

/*
 * An agent's view of a recorded fio run that started at workload time 0
 * (epoch_ms on fio's clock): an interval ends every 1000 ms, each document is
 * read late_ms after fio dated it, a byte at a time, and each interval is told
 * as soon as fiostat can; once fio's last document is read, fio exits.
 */
static struct fiostat *replay(const char *buf, size_t len, int64_t epoch_ms, int64_t late_ms,
			      struct replay *r)
{
	struct fiostat *s = new_stat(epoch_ms);
	size_t off = 0, end = 0;
	unsigned ticks = 0;
	char err[256];
	json_t *doc;
	int64_t ms;

	memset(r, 0, sizeof(*r));
	fiostat_start(s, 0);
	doc = next_doc(buf, len, &end, &ms);
	while (ticks < REPLAY_MAX) {
		ticks++;
		while (doc && ms - epoch_ms + late_ms <= ticks * 1000) {
			for (; off < end; off++)
				assert_int_equal(fiostat_feed(s, buf + off, 1, err, sizeof(err)), 0);
			json_decref(doc);
			doc = next_doc(buf, len, &end, &ms);
		}
		if (!doc) {
			assert_int_equal(fiostat_feed(s, buf + off, len - off, err, sizeof(err)), 0);
			assert_int_equal(fiostat_finish(s, err, sizeof(err)), 0);
			fiostat_end(s);
		}
		tell(s, r, ticks);
		assert_true(doc || r->n == ticks);   /* fio exited: everything can be told */
		if (!doc)
			break;
	}
	return s;
}

/* The intervals add up to fio's totals exactly, however late it is read. */
static void check_intervals(const char *path, int want_resets)
{
	struct replay r;
	struct expect e;
	size_t len;
	char *buf = slurp(path, &len);
	struct fiostat *s;

	read_expect(buf, len, &e);
	s = replay(buf, len, e.first_ms - 1000, 0, &r);
	assert_int_equal(s->docs, e.docs);
	assert_int_equal(r.ios, e.ios);
	assert_int_equal(r.bytes, e.bytes);
	/* fio's total_ios and io_bytes disagree by a few I/Os during ramp_time */
	if (!want_resets)
		assert_int_equal(r.bytes, r.ios * 4096);
	assert_true(want_resets ? s->resets > 0 : s->resets == 0);
	assert_int_equal(s->text_lines, 0);
	assert_int_equal(fiostat_total_ios(s), e.final_ios);
	for (unsigned i = 0; i + 1 < r.n; i++)
		assert_true(r.iv[i].running && r.iv[i].read_ios > 0 && r.iv[i].write_ios == 0);
	json_decref(e.last);
	free(buf);
	free_stat(s);
}

static void test_intervals_sum_to_total(void **state)
{
	(void)state;
	check_intervals(DATA_PLAIN, 0);
}

/* With --ramp_time fio resets its counters: the sum is the final total plus
 * what was counted during the ramp before the reset. */
static void test_intervals_ramp_reset(void **state)
{
	(void)state;
	check_intervals(DATA_RAMP, 1);
}

/*
 * DATA_GAP: the images' fio (3.33), two jobs paced at 2000 reads/s each
 * (--rw=randread --bs=4k --numjobs=2 --time_based --runtime=8
 * --rate_iops=2000 --status-interval=1000ms --output-format=json+), its main
 * process stopped (SIGSTOP) from 2.5 s to 5.7 s: no status document for 3.6 s
 * while the jobs read on. Every whole second of it read 4000 times.
 */
static void test_late_document_spread(void **state)
{
	struct replay r, later;
	struct expect e;
	size_t len;
	char *buf = slurp(DATA_GAP, &len);
	struct fiostat *s;
	unsigned nodoc = 0;
	int64_t epoch;

	(void)state;
	read_expect(buf, len, &e);
	/* fio started 100 ms before its jobs' first read (job_runtime: 877 ms at the first) */
	epoch = e.first_ms - 977;
	free_stat(replay(buf, len, epoch, 0, &r));
	assert_int_equal(r.ios, e.ios);
	assert_true(r.n >= 8);
	/* every second but the first (fio starting) and the last (fio ending) */
	for (unsigned i = 1; i + 1 < r.n; i++) {
		assert_true(r.iv[i].running);
		assert_in_range(r.iv[i].read_ios, 3600, 4400);
		assert_true(r.iv[i].lat_p50_ns > 0 && r.iv[i].lat_p50_ns <= r.iv[i].lat_p99_ns);
		nodoc += r.iv[i].docs == 0;
	}
	assert_true(nodoc >= 2);   /* the seconds of the stall: no document of their own */
	/* read late, the same intervals: fio's own clock says where its work goes */
	for (int64_t late = 300; late <= 3000; late += 1350) {
		s = replay(buf, len, epoch, late, &later);
		assert_true(later.n >= r.n);
		for (unsigned i = 0; i < r.n; i++)
			assert_memory_equal(&later.iv[i], &r.iv[i], sizeof(r.iv[i]));
		for (unsigned i = r.n; i < later.n; i++)   /* fio's exit seen later */
			assert_false(later.iv[i].running || later.iv[i].read_ios);
		free_stat(s);
	}
	json_decref(e.last);
	free(buf);
}

/* One slice over the whole file, fed in a given chunk pattern. */
static void take_all(const char *buf, size_t len, unsigned seed, struct fio_interval *iv)
{
	struct fiostat *s = new_stat(0);
	char err[256];

	srand(seed);
	for (size_t off = 0, n; off < len; off += n) {
		n = seed ? 1 + (size_t)rand() % 9000 : len;
		if (n > len - off)
			n = len - off;
		assert_int_equal(fiostat_feed(s, buf + off, n, err, sizeof(err)), 0);
	}
	fiostat_end(s);
	assert_int_equal(fiostat_slice(s, 0, INT64_MAX / 2, iv), 1);
	free_stat(s);
}

static void test_random_chunks_same_as_whole(void **state)
{
	const char *paths[] = { DATA_PLAIN, DATA_RAMP, DATA_GAP };
	struct fio_interval whole, chunked;

	(void)state;
	for (size_t p = 0; p < ARRAY_SIZE(paths); p++) {
		size_t len;
		char *buf = slurp(paths[p], &len);

		take_all(buf, len, 0, &whole);
		for (unsigned seed = 1; seed <= 20; seed++) {
			take_all(buf, len, seed, &chunked);
			assert_memory_equal(&whole, &chunked, sizeof(whole));
		}
		assert_true(whole.lat_p50_ns > 0);
		assert_true(whole.lat_p50_ns <= whole.lat_p99_ns);
		assert_true(whole.lat_p99_ns <= whole.lat_max_ns);
		free(buf);
	}
}

/* The single (group_reporting) job's histogram is all post-ramp: our
 * percentiles of it must be fio's own. */
static void test_percentiles_match_fio(void **state)
{
	struct fio_interval iv;
	struct expect e;
	json_t *pct;
	size_t len;
	char *buf = slurp(DATA_RAMP, &len);

	(void)state;
	read_expect(buf, len, &e);
	pct = json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(e.last, "jobs"), 0), "read"), "clat_ns"), "percentile");
	assert_non_null(pct);
	take_all(buf, len, 0, &iv);
	assert_int_equal(iv.lat_p50_ns, json_integer_value(json_object_get(pct, "50.000000")));
	assert_int_equal(iv.lat_p99_ns, json_integer_value(json_object_get(pct, "99.000000")));
	json_decref(e.last);
	free(buf);
}

/* A document dated ms with one read histogram {key: count, ...}, total_ios = ios. */
static void feed_doc(struct fiostat *s, int64_t ms, uint64_t ios, const char *bins)
{
	char doc[512], err[256];

	snprintf(doc, sizeof(doc),
		 "{\"timestamp_ms\": %lld, \"jobs\": [{\"read\": {\"io_bytes\": %llu, "
		 "\"total_ios\": %llu, \"clat_ns\": {\"bins\": {%s}}}, \"write\": {\"io_bytes\": 0, "
		 "\"total_ios\": 0}}]}\n", (long long)ms, (unsigned long long)ios * 4096,
		 (unsigned long long)ios, bins);
	assert_int_equal(fiostat_feed(s, doc, strlen(doc), err, sizeof(err)), 0);
}

static void slice(struct fiostat *s, int64_t t0, int64_t t1, struct fio_interval *iv)
{
	assert_int_equal(fiostat_slice(s, t0, t1, iv), 1);
}

static void test_percentiles_of_delta(void **state)
{
	uint64_t v1 = fiostat_bin_value(100), v2 = fiostat_bin_value(500),
		 v3 = fiostat_bin_value(700);
	struct fiostat *s = new_stat(5000);
	struct fio_interval iv;
	char bins[256];

	(void)state;
	assert_int_equal(fiostat_bin_index(v2), 500);
	fiostat_start(s, 0);
	snprintf(bins, sizeof(bins), "\"%llu\": 1000", (unsigned long long)v1);
	feed_doc(s, 6000, 1000, bins);
	slice(s, 0, 1000, &iv);
	assert_int_equal(iv.read_ios, 1000);
	assert_int_equal(iv.lat_p50_ns, v1);
	assert_int_equal(iv.lat_max_ns, v1);
	/* delta: 98 completions at v2, 2 at v3; the v1 bin did not move */
	snprintf(bins, sizeof(bins), "\"%llu\": 1000, \"%llu\": 98, \"%llu\": 2",
		 (unsigned long long)v1, (unsigned long long)v2, (unsigned long long)v3);
	feed_doc(s, 8000, 1100, bins);
	/* the document two seconds later covers both: half each, the same latency */
	for (int64_t t = 1000; t < 3000; t += 1000) {
		slice(s, t, t + 1000, &iv);
		assert_int_equal(iv.read_ios, 50);
		assert_int_equal(iv.read_bytes, 50 * 4096);
		assert_int_equal(iv.lat_p50_ns, v2);
		assert_int_equal(iv.lat_p99_ns, v3);     /* 98 % < 99 % */
		assert_int_equal(iv.lat_max_ns, v3);
		assert_int_equal(iv.docs, t == 2000);
	}
	free_stat(s);
}

static void test_percentile_rule(void **state)
{
	static double bins[FIOSTAT_BINS];

	(void)state;
	assert_int_equal(fiostat_percentile(bins, 500), 0);
	bins[10] = 50;
	bins[20] = 49;
	bins[30] = 1;
	assert_int_equal(fiostat_percentile(bins, 500), 10);   /* 50 of 100 reached */
	assert_int_equal(fiostat_percentile(bins, 990), 20);
	assert_int_equal(fiostat_percentile(bins, 1000), 30);
	bins[30] = 0.5;                                        /* a weighted share */
	assert_int_equal(fiostat_percentile(bins, 995), 30);
	for (unsigned i = 0; i < FIOSTAT_BINS; i++)
		assert_int_equal(fiostat_bin_index(fiostat_bin_value(i)), i);
}

/* A counter going backwards (ramp_time) counts from the reset. */
static void test_reset(void **state)
{
	struct fiostat *s = new_stat(0);
	struct fio_interval iv;

	(void)state;
	fiostat_start(s, 0);
	feed_doc(s, 1000, 100, "");
	feed_doc(s, 2000, 150, "");
	feed_doc(s, 3000, 30, "");       /* reset: what came after it */
	feed_doc(s, 4000, 20, "");       /* and again */
	slice(s, 0, 1000, &iv);
	assert_int_equal(iv.read_ios, 100);
	slice(s, 1000, 3000, &iv);
	assert_int_equal(iv.read_ios, 80);
	assert_int_equal(iv.docs, 2);
	slice(s, 3000, 4000, &iv);
	assert_int_equal(iv.read_ios, 20);
	assert_int_equal(s->resets, 2);
	assert_int_equal(fiostat_total_ios(s), 20);
	free_stat(s);
}

static int feed_str(struct fiostat *s, const char *text, char *err)
{
	return fiostat_feed(s, text, strlen(text), err, 256);
}

/* fio's first document counts from when its jobs began I/O ("runtime"), not from fio's start. */
static void test_first_document_from_runtime(void **state)
{
	static const char doc[] =
		"{\"timestamp_ms\": 2000, \"jobs\": [{\"read\": {\"io_bytes\": 4096000, "
		"\"total_ios\": 1000, \"runtime\": 250}, \"write\": {\"io_bytes\": 0, "
		"\"total_ios\": 0, \"runtime\": 0}}, {\"read\": {\"io_bytes\": 0, \"total_ios\": 0, "
		"\"runtime\": 500}, \"write\": {\"io_bytes\": 0, \"total_ios\": 0}}]}";
	struct fiostat *s = new_stat(0);
	struct fio_interval iv;
	char err[256];

	(void)state;
	fiostat_start(s, 0);
	assert_int_equal(feed_str(s, doc, err), 0);
	slice(s, 0, 1000, &iv);                   /* fio setting up: running, no I/O */
	assert_true(iv.running);
	assert_int_equal(iv.read_ios, 0);
	slice(s, 1000, 1750, &iv);               /* the longest "runtime": from 1500 */
	assert_int_equal(iv.read_ios, 500);
	slice(s, 1750, 2000, &iv);
	assert_int_equal(iv.read_ios, 500);
	free_stat(s);
}

/* An interval is told once a document reaches its end, or once fio has exited. */
static void test_slice_waits_for_documents(void **state)
{
	struct fiostat *s = new_stat(-100);
	struct fio_interval iv;
	uint64_t sum;

	(void)state;
	assert_int_equal(fiostat_slice(s, 0, 1000, &iv), 0);   /* fio not started */
	fiostat_start(s, 2000);
	slice(s, 0, 1000, &iv);                                 /* before fio: nothing */
	assert_false(iv.running);
	assert_int_equal(iv.read_ios, 0);
	assert_int_equal(fiostat_slice(s, 1000, 3000, &iv), 0);
	feed_doc(s, 2900, 10, "");                               /* workload time 3000 */
	slice(s, 1000, 3000, &iv);
	assert_true(iv.running);
	assert_int_equal(iv.read_ios, 10);
	assert_int_equal(fiostat_slice(s, 3000, 4000, &iv), 0);
	feed_doc(s, 2800, 30, "");               /* dated before, in what was told: just after */
	assert_int_equal(fiostat_slice(s, 3000, 4000, &iv), 0);
	feed_doc(s, 4900, 50, "");                               /* 5000: 20 over 2 s */
	slice(s, 3000, 4000, &iv);
	assert_in_range(iv.read_ios, 20 + 9, 20 + 10);
	sum = iv.read_ios;
	fiostat_end(s);
	slice(s, 4000, 6000, &iv);                               /* up to fio's exit at 5000 */
	assert_true(iv.running);
	assert_int_equal(sum + iv.read_ios, 40);
	slice(s, 6000, 7000, &iv);                               /* after it */
	assert_false(iv.running);
	assert_int_equal(iv.read_ios, 0);
	free_stat(s);
}

static void test_garbage(void **state)
{
	static const char *const bad[] = {
		"[1, 2]\n{\"jobs\": 3}",
		"{\"jobs\": [7]}",
		"{\"jobs\": []}",
		"{\"timestamp_ms\": -5, \"jobs\": []}",
		"{\"timestamp_ms\": \"1\", \"jobs\": []}",
		"{\"timestamp_ms\": 1, \"jobs\": [{\"read\": []}]}",
		"{\"timestamp_ms\": 1, \"jobs\": [{\"read\": {\"io_bytes\": \"1\", \"total_ios\": 1}, \"write\": {}}]}",
		"{\"timestamp_ms\": 1, \"jobs\": [{\"read\": {\"io_bytes\": -1, \"total_ios\": 1}, \"write\": {}}]}",
		"{\"timestamp_ms\": 1, \"jobs\": [{\"read\": {\"io_bytes\": 1.5, \"total_ios\": 1}, \"write\": {}}]}",
		"{\"timestamp_ms\": 1, \"jobs\": [{\"read\": {\"io_bytes\": 1, \"total_ios\": 1, \"clat_ns\": "
		"{\"bins\": {\"x\": 1}}}, \"write\": {\"io_bytes\": 0, \"total_ios\": 0}}]}",
		"{\"timestamp_ms\": 1, \"jobs\": [{\"read\": {\"io_bytes\": 1, \"total_ios\": 1, \"clat_ns\": "
		"{\"bins\": [1]}}, \"write\": {\"io_bytes\": 0, \"total_ios\": 0}}]}",
		"{\"timestamp_ms\": 1, \"jobs\": [{\"read\": {\"io_bytes\": 9223372036854775807, \"total_ios\": 1}, "
		"\"write\": {\"io_bytes\": 0, \"total_ios\": 0}}, {\"read\": {\"io_bytes\": "
		"9223372036854775807, \"total_ios\": 1}, \"write\": {\"io_bytes\": 0, "
		"\"total_ios\": 0}}, {\"read\": {\"io_bytes\": 9223372036854775807, "
		"\"total_ios\": 1}, \"write\": {\"io_bytes\": 0, \"total_ios\": 0}}]}",
		"{\"jobs\": [], ]",
		"{\"a\": \"\\u0000\" \x01}",
	};
	struct fiostat *s = new_stat(0);
	struct fio_interval iv;
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		assert_int_equal(feed_str(s, bad[i], err), -1);
		assert_true(strncmp(err, "fio output: ", 12) == 0);
	}
	assert_int_equal(fiostat_finish(s, err, sizeof(err)), 0);
	assert_int_equal(s->docs, 0);
	fiostat_end(s);
	slice(s, 0, 1000, &iv);
	assert_int_equal(iv.read_ios, 0);
	/* a truncated document is not an error until the end */
	assert_int_equal(feed_str(s, "{\"jobs\": [{\"read\": {\"io_b", err), 0);
	assert_int_equal(fiostat_finish(s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "truncated"));
	free_stat(s);
}

/* fio's own messages between documents are skipped and kept. */
static void test_text_between_docs(void **state)
{
	struct fiostat *s = new_stat(0);
	struct fio_interval iv;
	char err[256];

	(void)state;
	fiostat_start(s, 0);
	feed_doc(s, 500, 10, "");
	assert_int_equal(feed_str(s, "fio: pid=42, got signal=9\n", err), 0);
	feed_doc(s, 1000, 25, "");
	assert_int_equal(feed_str(s, "   \n\n", err), 0);
	slice(s, 0, 1000, &iv);
	assert_int_equal(iv.read_ios, 25);
	assert_int_equal(iv.docs, 2);
	assert_int_equal(s->text_lines, 1);
	assert_string_equal(s->last_text, "fio: pid=42, got signal=9");
	free_stat(s);
}

/* A 9 MiB document is refused without being kept; the next one still counts. */
static void test_oversize_doc(void **state)
{
	size_t pad = 9u << 20, n = 0;
	char *doc = malloc(pad + 64), err[256];
	struct fiostat *s = new_stat(0);
	struct fio_interval iv;

	(void)state;
	assert_non_null(doc);
	n += (size_t)sprintf(doc, "{\"timestamp_ms\": 1, \"jobs\": [], \"pad\": \"");
	memset(doc + n, 'a', pad);
	n += pad;
	n += (size_t)sprintf(doc + n, "\"}\n");
	assert_int_equal(fiostat_feed(s, doc, n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "larger than"));
	assert_true(s->cap <= FIOSTAT_DOC_MAX);
	fiostat_start(s, 0);
	feed_doc(s, 1000, 7, "");
	slice(s, 0, 1000, &iv);
	assert_int_equal(iv.docs, 1);
	assert_int_equal(iv.read_ios, 7);
	free(doc);
	free_stat(s);
}

/* Random bytes and deep nesting: errors or nothing, never a crash. */
static void test_random_bytes(void **state)
{
	struct fiostat *s = new_stat(0);
	char buf[4096], err[256];

	(void)state;
	srand(7);
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)(round % 2 ? "{}[]\":,\\ a1\n"[rand() % 12] : rand());
		fiostat_feed(s, buf, sizeof(buf), err, sizeof(err));
	}
	memset(buf, '[', sizeof(buf));
	buf[0] = '{';
	for (int i = 0; i < 100; i++)
		fiostat_feed(s, buf, sizeof(buf), err, sizeof(err));
	memset(buf, ']', sizeof(buf));
	for (int i = 0; i < 101; i++)
		fiostat_feed(s, buf, sizeof(buf), err, sizeof(err));
	free_stat(s);
}

static int split_check(const char *text, char *err)
{
	char **argv = NULL;
	int argc, r;

	r = fioargs_split(text, &argv, &argc, err, 256);
	if (r == 0)
		r = fioargs_check(argv, err, 256);
	fioargs_free(argv);
	return r;
}

static void test_split(void **state)
{
	char **argv, err[256], *big;
	int argc;

	(void)state;
	assert_int_equal(fioargs_split("  --a=1\t--b\n --c  ", &argv, &argc, err, sizeof(err)), 0);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[0], "--a=1");
	assert_string_equal(argv[2], "--c");
	assert_null(argv[3]);
	fioargs_free(argv);
	assert_int_equal(fioargs_split("", &argv, &argc, err, sizeof(err)), 0);
	assert_int_equal(argc, 0);
	fioargs_free(argv);
	assert_int_equal(fioargs_split("--a=\x01", &argv, &argc, err, sizeof(err)), -1);
	assert_int_equal(fioargs_split("--a=\xc3\xa9", &argv, &argc, err, sizeof(err)), -1);
	big = malloc(8192);
	assert_non_null(big);
	memset(big, 'x', 257);
	big[257] = '\0';
	assert_int_equal(fioargs_split(big, &argv, &argc, err, sizeof(err)), -1);
	for (int i = 0; i < 65; i++)
		memcpy(big + 3 * i, "-- ", 3);
	big[195] = '\0';
	assert_int_equal(fioargs_split(big, &argv, &argc, err, sizeof(err)), -1);
	big[192] = '\0';                       /* 64 args */
	assert_int_equal(fioargs_split(big, &argv, &argc, err, sizeof(err)), 0);
	assert_int_equal(argc, 64);
	fioargs_free(argv);
	memset(big, ' ', 4097);
	big[4097] = '\0';
	assert_int_equal(fioargs_split(big, &argv, &argc, err, sizeof(err)), -1);
	free(big);
}

static void test_check_refuses(void **state)
{
	static const char *const bad[] = {
		"--output=x", "--output-format=json", "--status-interval=1",
		"--directory=/tmp", "--exec_prerun=id", "--exec_postrun=id", "--trigger=x",
		"--trigger-file=x", "--trigger-timeout=1", "--trigger-remote=x",
		"--server", "--client=h", "--daemonize=p", "--pidfile=p",
		"--write_bw_log=b", "--write_lat_log=l", "--write_iops_log=i",
		"--write_hist_log=h", "--write_foo_log=f", "--write_iolog=i",
		"--latency-log", "--bandwidth-log", "--aux-path=/x", "--cgroup=x",
		"--directo=/tmp", "--outp=x", "--status-int=1",      /* fio takes abbreviations */
		"--filename=/dev/vda", "--filename=../x", "--filename=a:/etc/passwd",
		"--filename_format=/x.$jobnum", "--filename_format=a/../../b",
		"--opendir=/", "--opendir=x/..", "--filename=${HOME}/x", "--filename",
		"--name=../x", "--name=a/b", "-name=x", "name=x", "--", "--=1",
		/* a path or "external:" engine is dlopen()ed, even by --parse-only */
		"--ioengine=external:/tmp/x.so", "--ioengine=/tmp/x.so", "--ioeng=./x.so",
		"--ioengine=externalx", "--enghelp=/tmp/x.so", "--eng=x", "--enghelp",
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		if (split_check(bad[i], err) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(err[0] != '\0' && !strchr(err, '\n'));
	}
	assert_int_equal(split_check("--name=x --output=/tmp/o", err), -1);
	assert_string_equal(err, "option '--output' is not allowed: the harness sets it");
}

static void test_check_accepts(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(split_check(line_004, err), 0);
	assert_int_equal(split_check("--name=x --direct=1 --filename=a:b/c --opendir=d", err), 0);
	assert_int_equal(split_check("--name=vec --ioengine=mmap --fadvise_hint=0 "
				     "--write_barrier=0 --latency_target=1ms", err), 0);
	/* aliases, flags with and without a value, fio's list syntaxes */
	assert_int_equal(split_check("--name=a --readwrite=randrw --blocksize=4k --rwmixread=70 "
				     "--time_based=1 --group_reporting --norandommap "
				     "--bssplit=4k/50:64k/50 --random_distribution=zoned:60/10:30/90 "
				     "--percentile_list=50:99:99.9 --rate_iops=1000,500 "
				     "--filename_format=f.$jobnum.$filenum --mem=mmap "
				     "--ioengine=io_uring --hipri --fixedbufs --iodepth=16", err), 0);
}

/* Issue 12: options that read, run or load something, and names fio would
 * resolve as abbreviations; each passed the old deny-list. */
static void test_check_refuses_allowlist(void **state)
{
	static const struct {
		const char *args, *want;
	} bad[] = {
		{ "--name=x --ioengine=exec --program=/bin/sh", "'exec' is not one of" },
		{ "--name=x --read_iolog=/etc/passwd", "'--read_iolog' is not allowed" },
		{ "--name=x --replay_redirect=/dev/sda", "'--replay_redirect' is not allowed" },
		{ "--name=x --merge_blktrace_file=/x", "'--merge_blktrace_file' is not allowed" },
		{ "--inflate-log=/etc/passwd", "'--inflate-log' is not allowed" },
		{ "--crctest", "'--crctest' is not allowed: only fio's job, I/O" },
		{ "--name=x --program=/bin/sh", "'--program' is not allowed" },
		{ "--section=x", "'--section' is not allowed" },
		{ "--name=x --verify_state_load=1", "'--verify_state_load' is not allowed" },
		{ "--name=x --verify_dump=1", "'--verify_dump' is not allowed" },
		{ "--name=x --uid=0", "'--uid' is not allowed" },
		{ "--name=x --ioscheduler=none", "'--ioscheduler' is not allowed" },
		/* a file read at parse time ('...' is a file in fio's patterns) */
		{ "--name=x --buffer_pattern='/etc/shadow'", "may hold only letters" },
		{ "--name=x --verify_pattern='/etc/shadow'", "may hold only letters" },
		{ "--name=x --mem=mmap:/etc/passwd", "'mmap:/etc/passwd' is not one of" },
		{ "--name=x --iomem=mmaphuge:/x", "is not one of" },
		{ "--name=x --ioengine=cpuio", "'cpuio' is not one of" },
		{ "--name=x --ioengine=net", "'net' is not one of" },
		{ "--name=x --ioengine=sg", "'sg' is not one of" },
		/* '$': fio's job-file keywords run bc, ${VAR} reads the environment */
		{ "--name=x --filename_format=$ncpus", "'$' only in $jobname" },
		{ "--name=x --size=$mb_memory/2", "may hold only letters" },
		{ "--name=x --description=${HOME}", "'$' is not allowed" },
		/* only full names prove the option: fio would take these as abbreviations */
		{ "--name=x --filen=/etc/passwd", "'--filen' is not allowed" },
		{ "--name=x --ioeng=sync", "'--ioeng' is not allowed" },
		{ "--name=x --direc=1", "'--direc' is not allowed" },
		{ "--nam=x", "'--nam' is not allowed" },
		/* a value-taking option without '=' would take the next argument */
		{ "--name=x --direct --rw=read", "'--direct': '=VALUE' expected" },
		{ "--name --rw=read", "'--name': '=VALUE' expected" },
		{ "--name=x --time_based=yes", "'--time_based': no value or a number" },
		{ "--name=x --lockfile=exclusive:/x", "is not one of" },
		{ "--name=x --verify_state_save=1", "'1' is not one of: 0" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		if (split_check(bad[i].args, err) != -1)
			fail_msg("accepted '%s'", bad[i].args);
		if (!strstr(err, bad[i].want) || strchr(err, '\n'))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].args, err, bad[i].want);
	}
	assert_int_equal(split_check("--crctest", err), -1);
	assert_string_equal(err, "option '--crctest' is not allowed: only fio's job, I/O, file, "
			    "size, engine, timing and reporting options, by their full names "
			    "(see docs/workloads.md)");
}

/* Issue 12: a job file may include nothing, in any of fio's spellings. */
static void test_jobfile_refuses_allowlist(void **state)
{
	static const char *const bad[] = {
		"[g]\ninclude=/etc/shadow\n",
		"[g]\ninclude:/x\n",
		"[g]\nincludex/x\n",
		"[g]\n  include\t/etc/shadow ; a comment\n",
		"[g]\nread_iolog=/etc/passwd\n",
		"[g]\nioengine=exec\nprogram=/bin/sh\n",
		"[g]\nbuffer_pattern='/etc/shadow'\n",
		"[g]\nsize=$mb_memory/2\n",
		"[g]\nfilename=${HOME}/x\n",
		"[g]\nfilename=a #\nfilename=/etc/passwd\n",
		"rw=read\n[g/x]\n",
		"[g] x\n",
		"[]\n",
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		if (fioargs_check_jobfile(bad[i], err, sizeof(err)) != -1)
			fail_msg("accepted job file '%s'", bad[i]);
		assert_true(!strncmp(err, "job file line ", 14) && !strchr(err, '\n'));
	}
	assert_int_equal(fioargs_check_jobfile("[g]\ninclude=/etc/shadow\n", err, sizeof(err)), -1);
	assert_string_equal(err, "job file line 2: 'include' is not allowed: the job file must be "
			    "self-contained");
	/* fio cuts a line at ';' or '#': what follows is a comment, not a value */
	assert_int_equal(fioargs_check_jobfile("[g]\nbs=4k ; /etc/passwd\nrw=read#x\n"
					       "time_based\n", err, sizeof(err)), 0);
}

static void test_jobfile(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(fioargs_check_jobfile(
		"; seed 004\n[global]\nrw = randread\nbs=4k\n# comment\n\n"
		"[fg]\nnumjobs=16\nfilename_format=realdk.$jobnum.img\ntime_based\n", err,
		sizeof(err)), 0);
	assert_int_equal(fioargs_check_jobfile("[g]\ninclude other.fio\n", err, sizeof(err)), -1);
	assert_int_equal(fioargs_check_jobfile("[g]\ndirectory=/etc\n", err, sizeof(err)), -1);
	assert_string_equal(err, "job file line 2: option '--directory' is not allowed: "
			    "the harness sets it");
	assert_int_equal(fioargs_check_jobfile("[g]\nfilename = /dev/vda\n", err, sizeof(err)), -1);
	assert_int_equal(fioargs_check_jobfile("[../g]\n", err, sizeof(err)), -1);
	assert_int_equal(fioargs_check_jobfile("[g\n", err, sizeof(err)), -1);
	assert_int_equal(fioargs_check_jobfile("[g]\nexec_prerun=rm\n", err, sizeof(err)), -1);
	assert_int_equal(fioargs_check_jobfile("[g]\nioengine = external:/tmp/x.so\n", err,
					       sizeof(err)), -1);
	assert_non_null(strstr(err, "job file line 2: option '--ioengine': 'external:/tmp/x.so' "
			       "is not one of: sync psync"));
	assert_int_equal(fioargs_check_jobfile("[g]\nioengine=psync\n", err, sizeof(err)), 0);
	assert_int_equal(fioargs_check_jobfile("[g]\nrw=\x7f\n", err, sizeof(err)), -1);
}

/* Every fio stream of the cells ENTRY (a workloads[] entry) expands to passes
 * fioargs; returns how many there were. */
static int check_entry(json_t *entry, const char *where)
{
	json_t *cells = NULL, *cell, *st;
	char err[ERR_MAX];
	size_t i, k;
	int n = 0;

	if (preset_expand(entry, PRESETS, where, &cells, err) < 0)
		fail_msg("%s: %s", where, err);
	json_array_foreach(cells, i, cell) {
		json_array_foreach(json_object_get(json_object_get(cell, "job"), "streams"), k, st) {
			const char *args = json_string_value(json_object_get(st, "args"));
			const char *job = json_string_value(json_object_get(st, "jobfile"));

			if (strcmp(json_string_value(json_object_get(st, "kind")), "fio"))
				continue;
			if ((args && split_check(args, err) < 0) ||
			    (job && fioargs_check_jobfile(job, err, sizeof(err)) < 0))
				fail_msg("%s: stream %zu: %s", where, k, err);
			n++;
		}
	}
	json_decref(cells);
	return n;
}

/* The presets and examples under workloads/, expanded with their own params. */
static int check_workloads(void)
{
	struct dirent *d;
	DIR *dir = opendir(PRESETS);
	char path[512];
	int n = 0;

	assert_non_null(dir);
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);
		json_t *entry;

		if (len < 6 || strcmp(d->d_name + len - 5, ".json"))
			continue;
		entry = json_pack("{s:s, s:s#}", "name", "p", "preset", d->d_name, (int)(len - 5));
		n += check_entry(entry, d->d_name);
		json_decref(entry);
	}
	closedir(dir);
	dir = opendir(EXAMPLES);
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		json_t *m, *entry;
		size_t i, len = strlen(d->d_name);

		/* matrices only: patches/ holds the patch-versions example's series */
		if (d->d_name[0] == '.' || len < 6 || strcmp(d->d_name + len - 5, ".json"))
			continue;
		sfmt(path, sizeof(path), "%s/%s", EXAMPLES, d->d_name);
		m = json_load_file(path, 0, NULL);
		assert_non_null(m);
		json_array_foreach(json_object_get(m, "workloads"), i, entry)
			n += check_entry(entry, path);
		json_decref(m);
	}
	closedir(dir);
	return n;
}

/* The fio command lines of docs/workloads.md (the fio stream's page): the `--name=...` spans. */
static int check_docs(void)
{
	size_t len;
	char *text = slurp("docs/workloads.md", &len), err[256];
	int n = 0;

	for (char *p = strstr(text, "`--name="); p; p = strstr(p + 1, "`--name=")) {
		char *end = strchr(p + 1, '`');

		assert_non_null(end);
		*end = '\0';
		if (split_check(p + 1, err) < 0)
			fail_msg("docs/workloads.md: '%s': %s", p + 1, err);
		*end = '`';
		n++;
	}
	free(text);
	return n;
}

/* What users run today still passes the allow-list. */
static void test_workloads_pass(void **state)
{
	(void)state;
	assert_true(check_workloads() >= 4);    /* madv-random-stall's two, fio-zipf-fd, -mmap */
	assert_true(check_docs() >= 1);
}

/* The real fio's output for one argument (its stdout and stderr). */
static void fio_says(const char *arg, char *out, size_t outlen)
{
	char log[] = "/tmp/test_fio.XXXXXX", err[ERR_MAX];
	char *argv[] = { (char *)FIO_BIN, (char *)arg, NULL };
	int fd = mkstemp(log), status;
	ssize_t n;

	assert_true(fd >= 0);
	if (proc_run(argv, log, 10000, &status, err) < 0)
		fail_msg("%s", err);
	n = pread(fd, out, outlen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(log);
}

/* fio's help for option O (asked for as ASKED) names O, its alias, and a flag's type. */
static void check_help(const struct fioargs_opt *o, const char *asked, const char *help)
{
	const char *line = help + strspn(help, " \n");
	char alias[96];

	if (strncmp(line, o->name, strlen(o->name)) || line[strlen(o->name)] != ':')
		fail_msg("fio does not know '%s' as '%s': %.80s", asked, o->name, help);
	/* a flag takes no argument: fio's getopt must not take the next one as its value */
	if (o->kind == FA_FLAG && !strstr(help, "type: empty or boolean value"))
		fail_msg("'%s' is no flag: %s", o->name, help);
	sfmt(alias, sizeof(alias), "alias: %s\n", o->alias ? o->alias : "");
	if (o->alias && !strstr(help, alias))
		fail_msg("'%s' is no alias of '%s'", o->alias, o->name);
}

/* The next space-separated word of *P into WORD; 0 at the end. */
static int next_word(const char **p, char *word, size_t len)
{
	size_t n;

	*p += strspn(*p, " ");
	n = strcspn(*p, " ");
	if (n == 0)
		return 0;
	assert_true(n < len);
	memcpy(word, *p, n);
	word[n] = '\0';
	*p += n;
	return 1;
}

/* LIST (fio's "name : help" lines) has a line for NAME. */
static int lists(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = list; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		l += strspn(l, " \t");
		if (!strncmp(l, name, n) && strchr(" :\n", l[n]))
			return 1;
	}
	return 0;
}

static int allowed(const char *name, size_t n)
{
	for (size_t i = 0; i < fioargs_nopts; i++)
		if ((strlen(fioargs_opts[i].name) == n && !strncmp(fioargs_opts[i].name, name, n)) ||
		    (fioargs_opts[i].alias && strlen(fioargs_opts[i].alias) == n &&
		     !strncmp(fioargs_opts[i].alias, name, n)))
			return 1;
	return 0;
}

/*
 * An engine's options join fio's getopt table only once --ioengine is read;
 * before that, getopt would take such a name as the abbreviation of the one
 * option it begins. None may begin a name fio lists (LIST, one option per
 * line, "--" optional) that is not allowed too.
 */
static void check_prefixes(const char *list)
{
	for (const char *l = list; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t n;

		l += strspn(l, " \t");
		l += strncmp(l, "--", 2) ? 0 : 2;
		n = strcspn(l, " \t:=[\n");
		for (size_t i = 0; n && i < fioargs_nopts; i++) {
			const char *e = fioargs_opts[i].name;

			if (fioargs_opts[i].engines && strlen(e) < n && !strncmp(l, e, strlen(e)) &&
			    !allowed(l, n))
				fail_msg("engine option '%s' abbreviates '%.*s'", e, (int)n, l);
		}
	}
}

/* Every allow-listed name, alias, engine option and engine is the real fio's. */
static void test_allowlist_is_fio(void **state)
{
	static char all[65536], eng[4096], out[8192];
	char arg[128], word[64];
	const struct fioargs_opt *o;
	const char *p;

	(void)state;
	if (access(FIO_BIN, X_OK) != 0)
		skip();
	fio_says("--cmdhelp=all", all, sizeof(all));
	check_prefixes(all);
	fio_says("--help", out, sizeof(out));
	check_prefixes(out);
	for (size_t i = 0; i < fioargs_nopts; i++) {
		o = &fioargs_opts[i];
		for (p = o->engines ? o->engines : ""; next_word(&p, word, sizeof(word));) {
			sfmt(arg, sizeof(arg), "--enghelp=%s", word);
			fio_says(arg, eng, sizeof(eng));
			if (!lists(eng, o->name))
				fail_msg("fio's engine %s has no option '%s'", word, o->name);
			check_prefixes(eng);
		}
		/* the type and alias where they matter, and names "all" leaves out
		 * (options two levels below another), one option at a time */
		if (o->kind == FA_FLAG || o->alias || (!o->engines && !lists(all, o->name))) {
			if (o->engines)
				sfmt(arg, sizeof(arg), "--enghelp=%.*s,%s",
				     (int)strcspn(o->engines, " "), o->engines, o->name);
			else
				sfmt(arg, sizeof(arg), "--cmdhelp=%s", o->alias ? o->alias : o->name);
			fio_says(arg, out, sizeof(out));
			check_help(o, o->alias ? o->alias : o->name, out);
		}
	}
	o = &fioargs_opts[0];
	while (strcmp(o->name, "ioengine"))
		o++;
	fio_says("--enghelp", eng, sizeof(eng));
	for (p = o->choices; next_word(&p, word, sizeof(word));) {
		/* libaio is fio's own engine, but this static build has no libaio */
		if (!lists(eng, word) && strcmp(word, "libaio"))
			fail_msg("fio has no engine '%s'", word);
	}
}

static void test_build(void **state)
{
	char *user[] = { "--name=x", "--rw=read", NULL };
	char **argv;
	int n = 0;

	(void)state;
	assert_int_equal(fioargs_build(user, "/data", "/tmp/fio.json", 500, &argv), 0);
	while (argv[n])
		n++;
	assert_int_equal(n, 7);
	/* --directory is global: before the first job's options */
	assert_string_equal(argv[0], "fio");
	assert_string_equal(argv[1], "--directory=/data");
	assert_string_equal(argv[2], "--name=x");
	assert_string_equal(argv[3], "--rw=read");
	assert_string_equal(argv[4], "--output-format=json+");
	assert_string_equal(argv[5], "--output=/tmp/fio.json");
	assert_string_equal(argv[6], "--status-interval=500ms");
	fioargs_free(argv);
	assert_int_equal(fioargs_build(user, "/data", "/o", 0, &argv), -1);
}

static void test_fiocheck(void **state)
{
	char err[ERR_MAX];

	(void)state;
	if (access(FIO_BIN, X_OK) != 0)
		skip();
	assert_int_equal(fiocheck_args(FIO_BIN, "--name=x --bogus=1", NULL, 2, "vec", err), -1);
	assert_non_null(strstr(err, "stream 'vec': option '--bogus' is not allowed: only"));
	/* an engine's option before its engine: fio's getopt, as "fio" (sandboxed) */
	assert_int_equal(fiocheck_args(FIO_BIN, "--name=x --hipri --ioengine=io_uring", NULL,
				       2, "vec", err), -1);
	assert_string_equal(err, "stream 'vec': fio: unrecognized option '--hipri'; "
			    "Did you mean prio?");
	assert_int_equal(fiocheck_args(FIO_BIN, line_004, NULL, 2, "fg", err), 0);
	assert_int_equal(fiocheck_args(FIO_BIN, "--name=x --rw=bogus", NULL, 2, "s", err), -1);
	assert_non_null(strstr(err, "stream 's': fio: failed parsing rw=bogus; valid values: read"));
	assert_int_equal(fiocheck_args(FIO_BIN, "--name=x --output=o", NULL, 2, "s", err), -1);
	assert_string_equal(err, "stream 's': option '--output' is not allowed: the harness sets it");
	assert_int_equal(fiocheck_args(FIO_BIN, "", "[g]\nrw=randread\nrwmixread=200\n", 2, "j",
				       err), -1);
	assert_string_equal(err, "stream 'j': rwmixread: max value out of range: 200 (100 max); "
			    "fio: failed parsing rwmixread=200");
	assert_int_equal(fiocheck_args(FIO_BIN, "--size=1G", "[g]\nrw=randread\n"
				       "filename=not/on/this/host\n", 2, "j", err), 0);
	assert_int_equal(fiocheck_args(FIO_BIN, "", NULL, 2, "e", err), -1);
}

/* #27: numjobs=100000000 forked that many fios; at most the guest's vCPUs x 64 in all. */
static void test_numjobs(void **state)
{
	char *ok[] = { "--name=a", "--numjobs=64", "--name=b", "--numjobs=64", NULL };
	char *big[] = { "--name=a", "--numjobs=100000000", NULL };
	char *two[] = { "--name=a", "--numjobs=100", "--name=b", "--numjobs=29", NULL };
	char *bad[] = { "--name=a", "--numjobs=1k", NULL };
	char *zero[] = { "--name=a", "--numjobs=0", NULL };
	char err[ERR_MAX];

	(void)state;
	assert_int_equal(fioargs_check_numjobs(ok, NULL, 2, err, sizeof(err)), 0);
	assert_int_equal(fioargs_check_numjobs(big, NULL, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "numjobs: 100000000 jobs in all, expected at most 128 (the "
			    "guest's 2 vCPUs x 64)");
	assert_int_equal(fioargs_check_numjobs(two, NULL, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "numjobs: 129 jobs in all, expected at most 128 (the guest's 2 "
			    "vCPUs x 64)");
	assert_int_equal(fioargs_check_numjobs(two, NULL, 3, err, sizeof(err)), 0);
	assert_int_equal(fioargs_check_numjobs(bad, NULL, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "numjobs: expected a whole number from 1, got '1k'");
	assert_int_equal(fioargs_check_numjobs(zero, NULL, 2, err, sizeof(err)), -1);
	/* a job file's numjobs lines, spaces and comments as fio reads them, add up too */
	assert_int_equal(fioargs_check_numjobs(NULL, "[a]\nnumjobs = 60 ; sixty\n[b]\n"
					       "numjobs=4#\n", 1, err, sizeof(err)), 0);
	assert_int_equal(fioargs_check_numjobs(ok, "[a]\n numjobs = 1\n", 2, err,
					       sizeof(err)), -1);
	assert_non_null(strstr(err, "129 jobs in all"));
	assert_int_equal(fioargs_check_numjobs(NULL, "[a]\nnumjobs=100000000\n", 2, err,
					       sizeof(err)), -1);
	assert_int_equal(fioargs_check_numjobs(NULL, "[a]\n# numjobs=100000000\n", 2, err,
					       sizeof(err)), 0);
	/* on the host, before fio is looked for: one line naming the stream */
	assert_int_equal(fiocheck_args("/nonexistent/fio", "--name=x --numjobs=100000000", NULL,
				       2, "many", err), -1);
	assert_string_equal(err, "stream 'many': numjobs: 100000000 jobs in all, expected at most "
			    "128 (the guest's 2 vCPUs x 64)");
	assert_int_equal(fiocheck_args("/nonexistent/fio", "", "[x]\nnumjobs=200\n", 2, "job",
				       err), -1);
	assert_string_equal(err, "stream 'job': numjobs: 200 jobs in all, expected at most 128 "
			    "(the guest's 2 vCPUs x 64)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals_sum_to_total),
		cmocka_unit_test(test_intervals_ramp_reset),
		cmocka_unit_test(test_late_document_spread),
		cmocka_unit_test(test_random_chunks_same_as_whole),
		cmocka_unit_test(test_percentiles_match_fio),
		cmocka_unit_test(test_percentiles_of_delta),
		cmocka_unit_test(test_percentile_rule),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_slice_waits_for_documents),
		cmocka_unit_test(test_first_document_from_runtime),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_text_between_docs),
		cmocka_unit_test(test_oversize_doc),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_check_refuses),
		cmocka_unit_test(test_check_accepts),
		cmocka_unit_test(test_check_refuses_allowlist),
		cmocka_unit_test(test_jobfile_refuses_allowlist),
		cmocka_unit_test(test_workloads_pass),
		cmocka_unit_test(test_allowlist_is_fio),
		cmocka_unit_test(test_jobfile),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_fiocheck),
		cmocka_unit_test(test_numjobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
