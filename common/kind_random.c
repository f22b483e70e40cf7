/* kind_random.c -- the random reader: its options and rules, as one stream kind.
 * Its run in the guest is guest/stream_random.c. */
#include "common/proto.h"

static const char *const dist_names[]   = { "uniform", "zipf", NULL };
static const char *const advice_names[] = { "normal", "random", "sequential", NULL };

static const struct proto_opt random_opts[] = {
	{ "threads", OPT_UINT, PROTO_SOFF(threads), 1, 256, NULL, "1", "reader threads" },
	{ "access", OPT_ENUM, PROTO_SOFF(access), 0, 0, proto_access_names, "pread",
	  "pread or mmap" },
	{ "distribution", OPT_ENUM, PROTO_SOFF(dist), 0, 0, dist_names, "uniform",
	  "which page each read picks" },
	{ "theta", OPT_DOUBLE, PROTO_SOFF(theta), 0, 5, NULL, "0.9",
	  "zipf exponent (distribution zipf)" },
	{ "rate", OPT_DOUBLE, PROTO_SOFF(rate), 0, 1e9, NULL, "0",
	  "reads per second over all threads; 0: as fast as possible" },
	{ "advice", OPT_ENUM, PROTO_SOFF(advice), 0, 0, advice_names, "normal",
	  "madvise (mmap) or posix_fadvise (pread) on the file" },
	{ "miss_us", OPT_DOUBLE, PROTO_SOFF(miss_us), 0, 1e6, NULL, "0",
	  "a read slower than this counts as a miss; 0: calibrate" },
	{ "miss_factor", OPT_DOUBLE, PROTO_SOFF(miss_factor), 1, 1000, NULL, "4",
	  "calibrated threshold: this many times the median cached read" },
	PROTO_OPT_END,
};

/* A random stream's rule beyond its table: it reads by pread or mmap. */
static int random_check(const struct proto_job *job, struct proto_stream *s, const char *w,
			char *err, size_t errlen)
{
	(void)job;
	if (s->access == ACC_READ)
		return errorfn(err, errlen, "%s.access: a random stream reads by pread or mmap", w);
	return 0;
}

static unsigned random_threads(const struct proto_stream *s)
{
	return (unsigned)s->threads;
}

const struct proto_kind proto_kind_random = {
	.name = "random",
	.opts = random_opts,
	.flags = PK_FILE | PK_TRACE,
	.check = random_check,
	.threads = random_threads,
};
