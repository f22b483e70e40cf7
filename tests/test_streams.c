/* test_streams.c -- unit tests for the native streams, run on the host: the
 * latency histogram, the random reader (rate, counters, calibration, stop) and
 * the scanner (passes, gaps, throttle, modes), against a 32 MiB scratch file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"
#include "guest/stream.h"
#include "guest/zipf.h"

#define FILE_MIB   32
#define FILE_BYTES ((uint64_t)FILE_MIB << 20)
#define MAX_EVENTS 256

static char dir[64];
static char data_path[512];

/* One stream of a one-stream job, as the workload process would hold it. */
struct fix {
	struct proto_job job;
	struct stream_region *reg;
	struct stream_thread *th;
	struct stream_ctx ctx;
	int pipe[2];
	struct stream_event ev[MAX_EVENTS];
	unsigned nev;
};

static int group_setup(void **state)
{
	static char buf[1 << 20];
	struct rng r;
	unsigned i, j;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_streams.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(data_path, sizeof(data_path), "%s/data", dir);
	fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	rng_seed(&r, 42, 0);
	for (i = 0; i < FILE_MIB; i++) {
		for (j = 0; j < sizeof(buf); j += 8) {
			uint64_t x = rng_next(&r);

			memcpy(buf + j, &x, 8);
		}
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			close(fd);
			return -1;
		}
	}
	return close(fd);
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(data_path);
	rmdir(dir);
	return 0;
}

/* A stream as the option table's defaults make it; tests change what they need. */
static struct proto_stream stream_of(unsigned kind, const char *name)
{
	struct proto_stream st = {
		.kind = kind, .threads = 1, .access = kind == KIND_SCAN ? ACC_READ : ACC_PREAD,
		.dist = DIST_UNIFORM, .theta = 0.9, .advice = ADV_NORMAL, .miss_factor = 4,
		.chunk_kib = 1024, .passes = 1, .mode = MODE_NORMAL,
	};

	snprintf(st.name, sizeof(st.name), "%s", name);
	snprintf(st.file, sizeof(st.file), "data");
	return st;
}

/* A fixture for one stream of a 60 s job over the file "data". */
static struct fix *fix_new(const struct proto_stream *st)
{
	struct fix *f = calloc(1, sizeof(*f));
	unsigned n;

	assert_non_null(f);
	f->job = (struct proto_job){
		.run = 7, .memcg_mib = 256, .duration_s = 60, .interval_ms = 1000,
		.nfiles = 1, .nstreams = 1,
	};
	snprintf(f->job.files[0].name, sizeof(f->job.files[0].name), "data");
	f->job.files[0].mib = FILE_MIB;
	f->job.streams[0] = *st;

	n = proto_stream_threads(&f->job.streams[0]);
	f->reg = calloc(1, sizeof(*f->reg));
	f->th = aligned_alloc(64, n * sizeof(*f->th));
	assert_non_null(f->reg);
	assert_non_null(f->th);
	memset(f->th, 0, n * sizeof(*f->th));
	f->reg->nstreams = 1;
	f->reg->s[0].nthreads = n;
	f->reg->s[0].th = f->th;
	assert_int_equal(pipe2(f->pipe, O_CLOEXEC), 0);
	assert_int_equal(fcntl(f->pipe[0], F_SETFL, O_NONBLOCK), 0);

	f->ctx = (struct stream_ctx){
		.job = &f->job, .st = &f->job.streams[0], .index = 0, .data_dir = dir,
		.file_bytes = FILE_BYTES, .reg = f->reg, .sh = &f->reg->s[0],
		.event_fd = f->pipe[1], .interval_ms = 1000,
	};
	snprintf(f->ctx.path, sizeof(f->ctx.path), "%s", data_path);
	f->reg->t0_ns = stream_now_ns();
	return f;
}

static void fix_free(struct fix *f)
{
	close(f->pipe[0]);
	close(f->pipe[1]);
	free(f->th);
	free(f->reg);
	free(f);
}

/* Everything posted so far, appended to f->ev. */
static void drain_events(struct fix *f)
{
	ssize_t n;

	while (f->nev < MAX_EVENTS) {
		n = read(f->pipe[0], &f->ev[f->nev], sizeof(f->ev[0]));
		if (n < 0 && errno == EAGAIN)
			return;
		assert_int_equal(n, sizeof(f->ev[0]));
		f->nev++;
	}
}

static const struct stream_event *find_event(const struct fix *f, unsigned kind)
{
	unsigned i;

	for (i = 0; i < f->nev; i++)
		if (f->ev[i].kind == kind)
			return &f->ev[i];
	return NULL;
}

struct totals {
	uint64_t ops, bytes, misses, hist;
};

/* Sum every thread's counters; each thread's histogram must count its ops. */
static struct totals totals(const struct fix *f)
{
	struct totals t = { 0 };
	unsigned i, b;

	for (i = 0; i < f->reg->s[0].nthreads; i++) {
		uint64_t h = 0;

		for (b = 0; b < LAT_BUCKETS; b++)
			h += f->th[i].hist[b];
		assert_int_equal(h, f->th[i].ops);
		t.ops += f->th[i].ops;
		t.bytes += f->th[i].bytes;
		t.misses += f->th[i].misses;
		t.hist += h;
	}
	return t;
}

static double secs_since(uint64_t t_ns)
{
	return (double)(stream_now_ns() - t_ns) / 1e9;
}

/* ---- latency histogram ---- */

static void check_bucket(uint64_t x)
{
	unsigned b = lat_bucket(x);

	assert_true(b < LAT_BUCKETS);
	assert_true(lat_bucket_floor(b) <= x);
	/* buckets past UINT64_MAX's are never used, and their floors overflow */
	if (b < lat_bucket(UINT64_MAX))
		assert_true(lat_bucket_floor(b + 1) > x);
	/* a bucket is at most 1/8 of its floor wide */
	if (x >= 8)
		assert_true((double)(x - lat_bucket_floor(b)) <= (double)lat_bucket_floor(b) / 8.0);
}

static void test_lat_bucket(void **state)
{
	struct rng r;
	uint64_t x;
	unsigned b, i;

	(void)state;
	for (x = 0; x < 200000; x++)
		check_bucket(x);
	for (i = 0; i < 64; i++) {
		check_bucket(UINT64_C(1) << i);
		check_bucket((UINT64_C(1) << i) - 1);
		check_bucket((UINT64_C(1) << i) + 1);
	}
	check_bucket(UINT64_MAX);
	rng_seed(&r, 1, 2);
	for (i = 0; i < 1000000; i++)
		check_bucket(rng_next(&r) >> (i % 64));
	for (b = 0; b <= lat_bucket(UINT64_MAX); b++)
		assert_int_equal(lat_bucket(lat_bucket_floor(b)), b);
}

static void test_lat_percentile(void **state)
{
	uint64_t hist[LAT_BUCKETS] = { 0 };
	uint64_t fl1000 = lat_bucket_floor(lat_bucket(1000));

	(void)state;
	assert_int_equal(lat_percentile(hist, 50), 0);
	assert_int_equal(lat_max(hist), 0);
	hist[lat_bucket(1000)] = 50;       /* 50 reads of 1 us */
	hist[lat_bucket(2000)] = 49;       /* 49 of 2 us */
	hist[lat_bucket(1000000)] = 1;     /* one of 1 ms */
	assert_int_equal(fl1000, 960);
	assert_int_equal(lat_percentile(hist, 1), fl1000);
	assert_int_equal(lat_percentile(hist, 50), fl1000);
	assert_int_equal(lat_percentile(hist, 51), lat_bucket_floor(lat_bucket(2000)));
	assert_int_equal(lat_percentile(hist, 99), lat_bucket_floor(lat_bucket(2000)));
	assert_int_equal(lat_percentile(hist, 100), lat_bucket_floor(lat_bucket(1000000)));
	assert_true(lat_percentile(hist, 100) <= 1000000);
	assert_true(lat_percentile(hist, 100) >= 1000000 - 1000000 / 8);
	/* the max is the top of the slowest read's bucket: at or above it */
	assert_int_equal(lat_max(hist), lat_bucket_floor(lat_bucket(1000000) + 1));
	assert_true(lat_max(hist) > 1000000);
	memset(hist, 0, sizeof(hist));
	hist[lat_bucket(5)] = 3;           /* exact below 8 ns */
	assert_int_equal(lat_percentile(hist, 50), 5);
}

/* ---- random reader ---- */

static void test_random_rate(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "hot");
	struct totals t;
	struct fix *f;

	(void)state;
	st.threads = 2;
	st.rate = 2000;
	st.duration_s = 3;
	st.miss_us = 50;
	f = fix_new(&st);
	assert_int_equal(stream_random_run(&f->ctx), 0);
	assert_int_equal(f->reg->s[0].state, ST_DONE);
	t = totals(f);
	print_message("random rate 2000/s x 3 s over 2 threads: %llu ops (%+.2f %%)\n",
		      (unsigned long long)t.ops, ((double)t.ops - 6000.0) / 60.0);
	assert_in_range(t.ops, 5880, 6120);
	/* each thread did its half */
	assert_in_range(f->th[0].ops, 2940, 3060);
	assert_in_range(f->th[1].ops, 2940, 3060);
	assert_int_equal(t.bytes, t.ops * 4096);
	assert_int_equal(t.hist, t.ops);
	assert_true(t.misses <= t.ops);
	assert_int_equal(f->reg->s[0].miss_ns, 50000);
	drain_events(f);
	assert_int_equal(f->nev, 2);
	assert_int_equal(f->ev[0].kind, EV_START);
	assert_int_equal(f->ev[1].kind, EV_END);
	assert_null(find_event(f, EV_CALIBRATED));
	fix_free(f);
}

static void check_calibrated(struct fix *f, const char *what)
{
	const struct stream_event *ev;
	struct totals t;

	assert_int_equal(stream_random_run(&f->ctx), 0);
	t = totals(f);
	drain_events(f);
	ev = find_event(f, EV_CALIBRATED);
	assert_non_null(ev);
	assert_true(f->reg->s[0].miss_ns > 0);
	assert_int_equal(ev->value, f->reg->s[0].miss_ns);
	assert_int_equal(ev->stream, 0);
	/* calibrated before the threads start: START comes after it */
	assert_true(ev < find_event(f, EV_START));
	assert_true(t.ops > 0);
	assert_int_equal(t.bytes, t.ops * 4096);
	print_message("%s: threshold %llu ns (median cached read ~%llu ns), %llu ops in 0.5 s,"
		      " %llu misses, p50 %llu ns, p99 %llu ns\n", what,
		      (unsigned long long)f->reg->s[0].miss_ns,
		      (unsigned long long)(f->reg->s[0].miss_ns / 4), (unsigned long long)t.ops,
		      (unsigned long long)t.misses,
		      (unsigned long long)lat_percentile((const uint64_t *)f->th[0].hist, 50),
		      (unsigned long long)lat_percentile((const uint64_t *)f->th[0].hist, 99));
}

static void test_random_calibrate_pread(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "hot");
	struct fix *f;

	(void)state;
	st.duration_s = 0.5;
	st.advice = ADV_RANDOM;
	f = fix_new(&st);
	check_calibrated(f, "pread uniform");
	fix_free(f);
}

static void test_random_calibrate_mmap_zipf(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "hot");
	struct fix *f;

	(void)state;
	st.duration_s = 0.5;
	st.access = ACC_MMAP;
	st.advice = ADV_RANDOM;
	st.dist = DIST_ZIPF;
	st.theta = 0.8;
	st.threads = 2;
	f = fix_new(&st);
	check_calibrated(f, "mmap zipf(0.8)");
	fix_free(f);
}

struct running {
	struct fix *f;
	int (*run)(struct stream_ctx *);
	int rc;
};

static void *run_thread(void *arg)
{
	struct running *r = arg;

	r->rc = r->run(&r->f->ctx);
	return NULL;
}

/*
 * Run f's stream in a thread for 0.3 s, then stop it and wait for it; its
 * return in *ret_rc (if not NULL). Returns the seconds the stop took.
 */
static double run_then_stop(struct fix *f, int (*run)(struct stream_ctx *), int *ret_rc)
{
	struct running r = { f, run, -1 };
	struct timespec pause = { 0, 300000000 };
	uint64_t t_stop;
	pthread_t tid;

	assert_int_equal(pthread_create(&tid, NULL, run_thread, &r), 0);
	nanosleep(&pause, NULL);
	t_stop = stream_now_ns();
	atomic_store(&f->reg->stop, 1);
	assert_int_equal(pthread_join(tid, NULL), 0);
	if (ret_rc)
		*ret_rc = r.rc;
	return secs_since(t_stop);
}

static void test_random_stop(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "hot");
	struct fix *f;
	double took;
	int rc;

	(void)state;
	st.threads = 2;
	st.miss_us = 100;
	f = fix_new(&st);
	took = run_then_stop(f, stream_random_run, &rc);
	assert_int_equal(rc, 0);
	assert_true(took < 1.0);
	assert_true(totals(f).ops > 0);
	assert_int_equal(f->reg->s[0].state, ST_DONE);
	fix_free(f);
}

/* A slow fixed rate: the stop interrupts a long sleep between ops; one op done. */
static void test_random_stop_while_sleeping(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "hot");
	struct fix *f;

	(void)state;
	st.rate = 0.2;
	st.miss_us = 1000;      /* a fixed threshold: no calibration before the first op */
	f = fix_new(&st);
	assert_true(run_then_stop(f, stream_random_run, NULL) < 1.0);
	assert_int_equal(totals(f).ops, 1);
	fix_free(f);
}

/*
 * A paced stream is calibrated at its own pace: at 0.2 reads/s it sleeps 5 s
 * before its calibration read. The stop interrupts that sleep too, and the
 * calibration reads never count as ops.
 */
static void test_random_stop_while_calibrating(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "hot");
	struct fix *f;

	(void)state;
	st.rate = 0.2;
	f = fix_new(&st);
	assert_true(run_then_stop(f, stream_random_run, NULL) < 1.0);
	assert_int_equal(totals(f).ops, 0);
	fix_free(f);
}

/*
 * A paced stream with a later start_s is calibrated before it and reads from
 * start_s on: at 1000 reads/s its calibration takes about 1 s, which pushed
 * the reads of seed 003's hot reader (start 2 s) past the scan (3 s).
 */
static void test_random_starts_on_time(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "hot");
	const struct stream_event *cal, *start;
	struct fix *f;

	(void)state;
	st.rate = 1000;
	st.start_s = 1.5;
	st.duration_s = 0.3;
	f = fix_new(&st);
	assert_int_equal(stream_random_run(&f->ctx), 0);
	drain_events(f);
	cal = find_event(f, EV_CALIBRATED);
	start = find_event(f, EV_START);
	assert_non_null(cal);
	assert_non_null(start);
	print_message("calibrated at %.3f s, started at %.3f s (start_s 1.5)\n",
		      (double)(cal->t_ns - f->reg->t0_ns) / 1e9,
		      (double)(start->t_ns - f->reg->t0_ns) / 1e9);
	assert_true(cal->t_ns - f->reg->t0_ns < 1500000000u);
	assert_in_range(start->t_ns - f->reg->t0_ns, 1500000000u, 1700000000u);
	assert_true(totals(f).ops > 0);
	fix_free(f);
}

static void check_missing(struct fix *f, int (*run)(struct stream_ctx *))
{
	snprintf(f->ctx.path, sizeof(f->ctx.path), "%s/absent", dir);
	assert_int_equal(run(&f->ctx), -1);
	assert_int_equal(f->reg->s[0].state, ST_FAILED);
	assert_int_equal(f->reg->s[0].err_set, 1);
	assert_non_null(strstr(f->reg->s[0].err, f->ctx.path));
	assert_non_null(strstr(f->reg->s[0].err, "stream 'x'"));
	assert_non_null(strstr(f->reg->s[0].err, strerror(ENOENT)));
	drain_events(f);
	assert_int_equal(f->nev, 0);
}

static void test_missing_file(void **state)
{
	struct proto_stream st = stream_of(KIND_RANDOM, "x");
	struct fix *f = fix_new(&st);

	(void)state;
	check_missing(f, stream_random_run);
	fix_free(f);
	st = stream_of(KIND_SCAN, "x");
	f = fix_new(&st);
	check_missing(f, stream_scan_run);
	fix_free(f);
}

/* ---- scanner ---- */

/* Events in order: START, (PASS_START p, PASS_END p) for p = 1..passes, END. */
static void check_pass_events(struct fix *f, unsigned passes, double gap_s)
{
	unsigned p;

	drain_events(f);
	assert_int_equal(f->nev, 2 + 2 * passes);
	assert_int_equal(f->ev[0].kind, EV_START);
	for (p = 1; p <= passes; p++) {
		const struct stream_event *s = &f->ev[2 * p - 1], *e = &f->ev[2 * p];

		assert_int_equal(s->kind, EV_PASS_START);
		assert_int_equal(s->pass, p);
		assert_int_equal(e->kind, EV_PASS_END);
		assert_int_equal(e->pass, p);
		assert_int_equal(e->value, FILE_BYTES);
		assert_true(e->t_ns >= s->t_ns);
		if (p > 1)
			assert_true(s->t_ns - f->ev[2 * p - 2].t_ns >= (uint64_t)(gap_s * 1e9));
	}
	assert_int_equal(f->ev[f->nev - 1].kind, EV_END);
}

static void run_scan(const struct proto_stream *st, double *ret_elapsed)
{
	struct fix *f = fix_new(st);
	unsigned passes = (unsigned)st->passes;
	double gap_s = st->gap_s;
	uint64_t chunk;
	uint64_t t0 = stream_now_ns();
	struct totals t;
	int ret;

	ret = stream_scan_run(&f->ctx);
	*ret_elapsed = secs_since(t0);
	if (ret < 0 && f->job.streams[0].mode == MODE_DONTCACHE) {
		/* the host kernel may predate RWF_DONTCACHE: then say so, plainly */
		print_message("dontcache refused here: %s\n", f->reg->s[0].err);
		assert_non_null(strstr(f->reg->s[0].err,
				       "RWF_DONTCACHE is not supported by this kernel"));
		fix_free(f);
		return;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(f->reg->s[0].state, ST_DONE);
	t = totals(f);
	assert_int_equal(t.bytes, passes * FILE_BYTES);
	chunk = st->chunk_kib * 1024;
	assert_int_equal(t.ops, passes * ((FILE_BYTES + chunk - 1) / chunk));   /* last one short */
	check_pass_events(f, passes, gap_s);
	assert_true(*ret_elapsed >= (passes - 1) * gap_s);
	fix_free(f);
}

static void test_scan_passes(void **state)
{
	struct proto_stream st = stream_of(KIND_SCAN, "scan");
	double el;

	(void)state;
	st.passes = 3;
	st.gap_s = 0.2;
	run_scan(&st, &el);
	print_message("scan 3 x 32 MiB, 1 MiB chunks, 0.2 s gaps: %.3f s\n", el);
	st = stream_of(KIND_SCAN, "scan");
	st.passes = 2;
	st.chunk_kib = 4;
	st.access = ACC_MMAP;
	run_scan(&st, &el);
	st.passes = 1;
	st.chunk_kib = 12;
	st.mode = MODE_FADV_RANDOM;
	run_scan(&st, &el);
}

static void test_scan_modes(void **state)
{
	struct proto_stream st = stream_of(KIND_SCAN, "scan");
	double el;

	(void)state;
	st.passes = 2;
	st.mode = MODE_DONTNEED;
	run_scan(&st, &el);
	st.passes = 1;
	st.chunk_kib = 768;
	st.mode = MODE_FADV_RANDOM;
	run_scan(&st, &el);
	st.passes = 2;
	st.chunk_kib = 1024;
	st.mode = MODE_DONTCACHE;
	run_scan(&st, &el);
}

static void test_scan_throttled(void **state)
{
	struct proto_stream st = stream_of(KIND_SCAN, "scan");
	const struct stream_event *ev;
	struct fix *f;
	double el;

	(void)state;
	st.start_s = 0.2;
	st.passes = 2;
	st.rate_mibs = 64;
	f = fix_new(&st);
	assert_int_equal(stream_scan_run(&f->ctx), 0);
	el = secs_since(f->reg->t0_ns);
	print_message("scan 2 x 32 MiB at 64 MiB/s, start 0.2 s: %.3f s\n", el);
	check_pass_events(f, 2, 0);
	ev = find_event(f, EV_START);
	assert_true(ev->t_ns - f->reg->t0_ns >= 200000000u);
	/* 31 of the 32 chunks wait: at least 31/64 s per pass */
	assert_true(f->ev[2].t_ns - f->ev[1].t_ns >= 450000000u);
	assert_true(f->ev[4].t_ns - f->ev[3].t_ns >= 450000000u);
	assert_true(el >= 0.2 + 2 * 0.45);
	fix_free(f);
}

static void test_scan_stop(void **state)
{
	struct proto_stream st = stream_of(KIND_SCAN, "scan");
	struct fix *f;
	double took;
	int rc;

	(void)state;
	st.passes = 1000;
	st.gap_s = 0.05;
	st.rate_mibs = 16;
	f = fix_new(&st);
	took = run_then_stop(f, stream_scan_run, &rc);
	assert_int_equal(rc, 0);
	assert_true(took < 1.0);
	drain_events(f);
	/* START, PASS_START 1, PASS_END 1 cut short, END */
	assert_int_equal(f->nev, 4);
	assert_int_equal(f->ev[2].kind, EV_PASS_END);
	assert_true(f->ev[2].value < FILE_BYTES);
	assert_int_equal(f->ev[2].value, totals(f).bytes);
	fix_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lat_bucket),
		cmocka_unit_test(test_lat_percentile),
		cmocka_unit_test(test_random_rate),
		cmocka_unit_test(test_random_calibrate_pread),
		cmocka_unit_test(test_random_calibrate_mmap_zipf),
		cmocka_unit_test(test_random_stop),
		cmocka_unit_test(test_random_stop_while_sleeping),
		cmocka_unit_test(test_random_stop_while_calibrating),
		cmocka_unit_test(test_random_starts_on_time),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_scan_passes),
		cmocka_unit_test(test_scan_modes),
		cmocka_unit_test(test_scan_throttled),
		cmocka_unit_test(test_scan_stop),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
