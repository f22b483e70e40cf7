/* kind_anon.c -- anonymous memory touched by threads (usemem-like): its options and
 * rules, as one stream kind. Its run in the guest is guest/stream_anon.c. */
#include "common/proto.h"

static const char *const backing_names[] = { "private", "shmem", NULL };
static const char *const fill_names[]    = { "zero", "random", "compressible", NULL };
/* enum st_access's names: anon takes read and write */
static const char *const access_names[]  = { "pread", "read", "mmap", "write", NULL };
static const char *const dist_names[]    = { "uniform", "zipf", "sequential", NULL };
static const char *const madv_names[]    = { "normal", "random", "sequential", "hugepage",
					     "nohugepage", "cold", "pageout", NULL };

static const struct proto_opt anon_opts[] = {
	{ "mib", OPT_UINT, PROTO_SOFF(mib), 1, 1 << 20, NULL, NULL,
	  "MiB of anonymous memory, mapped and filled in the workload's memcg" },
	{ "backing", OPT_ENUM, PROTO_SOFF(backing), 0, 0, backing_names, "private",
	  "private (MAP_PRIVATE|MAP_ANONYMOUS) or shmem (a memfd, shared)" },
	{ "fill", OPT_ENUM, PROTO_SOFF(fill), 0, 0, fill_names, "random",
	  "what every page holds once filled: zram and zswap compress by content" },
	{ "ratio", OPT_DOUBLE, PROTO_SOFF(ratio), 1, 64, NULL, "2",
	  "fill compressible: a page compresses about this many times (1/ratio random)" },
	{ "threads", OPT_UINT, PROTO_SOFF(threads), 1, 256, NULL, "1", "toucher threads" },
	{ "access", OPT_ENUM, PROTO_SOFF(access), 0, 0, access_names, "read",
	  "read (a load) or write (a store: the page is dirtied) per touch" },
	{ "distribution", OPT_ENUM, PROTO_SOFF(dist), 0, 0, dist_names, "uniform",
	  "which page each touch picks" },
	{ "theta", OPT_DOUBLE, PROTO_SOFF(theta), 0, 5, NULL, "0.9",
	  "zipf exponent (distribution zipf)" },
	{ "rate", OPT_DOUBLE, PROTO_SOFF(rate), 0, 1e9, NULL, "0",
	  "touches per second over all threads; 0: as fast as possible" },
	{ "madvise", OPT_ENUM, PROTO_SOFF(madv), 0, 0, madv_names, "normal",
	  "advice on the mapping: before the fill, or cold and pageout at madvise_at_s" },
	{ "madvise_at_s", OPT_DOUBLE, PROTO_SOFF(madvise_at_s), 0, 86400, NULL, "0",
	  "madvise cold or pageout: seconds into the stream (after its fill)" },
	{ "miss_us", OPT_DOUBLE, PROTO_SOFF(miss_us), 0, 1e6, NULL, "0",
	  "a touch slower than this counts as a miss; 0: calibrate" },
	{ "miss_factor", OPT_DOUBLE, PROTO_SOFF(miss_factor), 1, 1000, NULL, "4",
	  "calibrated threshold: this many times the median touch of a resident page" },
	PROTO_OPT_END,
};

/* What the table cannot say: its size is required, it touches by read or write, and
 * only cold and pageout come late. */
static int anon_check(const struct proto_job *job, struct proto_stream *s, const char *w,
		      char *err, size_t errlen)
{
	(void)job;
	if (!s->mib)
		return errorfn(err, errlen, "%s.mib: required: MiB of anonymous memory, 1 or more", w);
	if (s->access != ACC_READ && s->access != ACC_WRITE)
		return errorfn(err, errlen, "%s.access: an anon stream touches by read or write", w);
	if (s->madvise_at_s > 0 && s->madv != MADV_AS_COLD && s->madv != MADV_AS_PAGEOUT)
		return errorfn(err, errlen, "%s.madvise_at_s: only with madvise cold or pageout", w);
	return 0;
}

static unsigned anon_threads(const struct proto_stream *s)
{
	return (unsigned)s->threads;
}

const struct proto_kind proto_kind_anon = {
	.name = "anon",
	.opts = anon_opts,
	.flags = PK_MEMORY,
	.check = anon_check,
	.threads = anon_threads,
};
