/* kind_reclaim.c -- a memory.reclaim storm over many memcgs: its options and
 * rules, as one stream kind. Its run in the guest is guest/stream_reclaim.c. */
#include "common/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const cgroup_names[]   = { "root", "parent", NULL };
static const char *const fallback_names[] = { "refuse", "omit", NULL };

static const struct proto_opt reclaim_opts[] = {
	{ "memcgs", OPT_UINT, PROTO_SOFF(memcgs), 1, 65535, NULL, "1500",
	  "memcgs made beside the workload's, each charged with its own slice of 'file'" },
	{ "charge_mib", OPT_UINT, PROTO_SOFF(charge_mib), 1, 1 << 24, NULL, "375",
	  "page cache read into the memcgs before the storm, in all: split evenly, whole pages"
	  " each (the first charge_mib of 'file')" },
	{ "workers", OPT_UINT, PROTO_SOFF(workers), 1, 256, NULL, "8",
	  "threads writing to memory.reclaim, each its next request when the last returns" },
	{ "request_mib", OPT_UINT, PROTO_SOFF(request_mib), 1, 1 << 24, NULL, "1024",
	  "the size each request asks memory.reclaim for, MiB" },
	{ "swappiness", OPT_STR, PROTO_SOFF(swappiness), 0, PROTO_SLEN(swappiness), NULL, "0",
	  "swappiness= argument of each request (0..200, or max); \"\" sends none" },
	{ "fallback", OPT_ENUM, PROTO_SOFF(fallback), 0, 0, fallback_names, "refuse",
	  "a kernel without swappiness= in memory.reclaim: refuse (the run is unsupported)"
	  " or omit the argument (and say so in an event)" },
	{ "cgroup", OPT_ENUM, PROTO_SOFF(cgroup), 0, 0, cgroup_names, "root",
	  "whose memory.reclaim: the root cgroup's, or the parent of the storm's memcgs" },
	PROTO_OPT_END,
};

/* Every memcg gets its own slice of the (declared) file; swappiness is a number. */
static int reclaim_check(const struct proto_job *job, struct proto_stream *s, const char *w,
			 char *err, size_t errlen)
{
	const struct proto_file *f = &job->files[proto_job_file(job, s->file)];
	const char *p = s->swappiness;
	char *end;
	long v;

	if (s->charge_mib > f->mib)
		return errorfn(err, errlen, "%s.charge_mib: %llu MiB is more than file '%s' "
				  "(%llu MiB): each memcg charges a slice of its own", w,
				  (unsigned long long)s->charge_mib, f->name, (unsigned long long)f->mib);
	if (s->charge_mib * 256 < s->memcgs)
		return errorfn(err, errlen, "%s.charge_mib: %llu MiB is less than a 4 KiB page "
				  "for each of %llu memcgs", w, (unsigned long long)s->charge_mib,
				  (unsigned long long)s->memcgs);
	if (!*p || !strcmp(p, "max"))
		return 0;
	errno = 0;
	v = strtol(p, &end, 10);
	if (*end || errno || v < 0 || v > 200)
		return errorfn(err, errlen, "%s.swappiness: expected 0..200, max or \"\", got '%s'",
				  w, p);
	return 0;
}

/* A reclaim storm reports its requests. */
static unsigned reclaim_ops(const struct proto_stream *s)
{
	(void)s;
	return 1u << OP_RECLAIM;
}

static unsigned reclaim_threads(const struct proto_stream *s)
{
	return (unsigned)s->workers;
}

/* The storm's memcgs hold their charge beside the workload's memory.max. */
static uint64_t reclaim_charge_mib(const struct proto_stream *s)
{
	return s->charge_mib;
}

const struct proto_kind proto_kind_reclaim = {
	.name = "reclaim",
	.opts = reclaim_opts,
	.flags = PK_FILE,
	.check = reclaim_check,
	.ops = reclaim_ops,
	.threads = reclaim_threads,
	.charge_mib = reclaim_charge_mib,
};
