/* kind_scan.c -- the sequential scanner: its options and rules, as one stream
 * kind. Its run in the guest is guest/stream_scan.c. */
#include "common/proto.h"

static const char *const mode_names[] = { "normal", "dontcache", "dontneed", "fadv_random", NULL };

static const struct proto_opt scan_opts[] = {
	{ "access", OPT_ENUM, PROTO_SOFF(access), 0, 0, proto_access_names, "read",
	  "read or mmap" },
	{ "chunk_kib", OPT_UINT, PROTO_SOFF(chunk_kib), 4, 1 << 20, NULL, "1024",
	  "read size, KiB" },
	{ "passes", OPT_UINT, PROTO_SOFF(passes), 1, 100000, NULL, "1", "passes over the file" },
	{ "gap_s", OPT_DOUBLE, PROTO_SOFF(gap_s), 0, 86400, NULL, "0",
	  "pause between passes, seconds" },
	{ "rate_mibs", OPT_DOUBLE, PROTO_SOFF(rate_mibs), 0, 1e6, NULL, "0",
	  "throttle, MiB/s; 0: full speed" },
	{ "mode", OPT_ENUM, PROTO_SOFF(mode), 0, 0, mode_names, "normal",
	  "dontcache: preadv2(RWF_DONTCACHE); dontneed: POSIX_FADV_DONTNEED per chunk;"
	  " fadv_random: POSIX_FADV_RANDOM on the file" },
	PROTO_OPT_END,
};

/* An mmap scan has no reads to pass flags or advice per chunk to. */
static int scan_check(const struct proto_job *job, struct proto_stream *s, const char *w,
		      char *err, size_t errlen)
{
	(void)job;
	if (s->access == ACC_PREAD)
		return errorfn(err, errlen, "%s.access: a scan reads by read or mmap", w);
	if (s->access == ACC_MMAP && s->mode != MODE_NORMAL && s->mode != MODE_FADV_RANDOM)
		return errorfn(err, errlen, "%s.mode: %s needs access read", w,
				  mode_names[s->mode]);
	return 0;
}

const struct proto_kind proto_kind_scan = {
	.name = "scan",
	.opts = scan_opts,
	.flags = PK_FILE | PK_TRACE,
	.check = scan_check,
};
