/* kind_ycsb.c -- a YCSB client on LevelDB: its options (YCSB's own property
 * names) and rules, as one stream kind. Its run in the guest is guest/stream_ycsb.c. */
#include "common/proto.h"

#include <math.h>

static const char *const ydist_names[] = { "uniform", "zipfian", "latest", NULL };
static const char *const yscan_names[] = { "uniform", "zipfian", NULL };
static const char *const bool_names[]  = { "false", "true", NULL };

static const struct proto_opt ycsb_opts[] = {
	{ "db", OPT_STR, PROTO_SOFF(db), 1, PROTO_SLEN(db), NULL, NULL,
	  "the declared database it runs on (default: the only one)" },
	{ "operationcount", OPT_UINT, PROTO_SOFF(operationcount), 0, 1e15, NULL, "0",
	  "operations over all threads, then the stream ends; 0: run for its duration" },
	{ "threadcount", OPT_UINT, PROTO_SOFF(threadcount), 1, 256, NULL, "1",
	  "client threads" },
	{ "target", OPT_DOUBLE, PROTO_SOFF(ops_target), 0, 1e9, NULL, "0",
	  "operations per second over all threads; 0: as fast as possible" },
	{ "readproportion", OPT_DOUBLE, PROTO_SOFF(readproportion), 0, 1, NULL, "0.95",
	  "share of reads" },
	{ "updateproportion", OPT_DOUBLE, PROTO_SOFF(updateproportion), 0, 1, NULL, "0.05",
	  "share of updates" },
	{ "insertproportion", OPT_DOUBLE, PROTO_SOFF(insertproportion), 0, 1, NULL, "0",
	  "share of inserts" },
	{ "scanproportion", OPT_DOUBLE, PROTO_SOFF(scanproportion), 0, 1, NULL, "0",
	  "share of scans" },
	{ "readmodifywriteproportion", OPT_DOUBLE, PROTO_SOFF(readmodifywriteproportion), 0, 1,
	  NULL, "0", "share of read-modify-writes" },
	{ "requestdistribution", OPT_ENUM, PROTO_SOFF(requestdistribution), 0, 0, ydist_names,
	  "uniform", "which keys: uniform, zipfian (scrambled, 0.99) or latest" },
	{ "minscanlength", OPT_UINT, PROTO_SOFF(minscanlength), 1, 1e9, NULL, "1",
	  "fewest records a scan asks for" },
	{ "maxscanlength", OPT_UINT, PROTO_SOFF(maxscanlength), 1, 1e9, NULL, "1000",
	  "most records a scan asks for" },
	{ "scanlengthdistribution", OPT_ENUM, PROTO_SOFF(scanlengthdistribution), 0, 0,
	  yscan_names, "uniform", "scan lengths between min and max: uniform or zipfian" },
	{ "readallfields", OPT_ENUM, PROTO_SOFF(readallfields), 0, 0, bool_names, "true",
	  "reads return every field (else one, chosen uniformly)" },
	{ "writeallfields", OPT_ENUM, PROTO_SOFF(writeallfields), 0, 0, bool_names, "false",
	  "updates write every field (else one, chosen uniformly)" },
	{ "leveldb_cache_mib", OPT_UINT, PROTO_SOFF(cache_mib), 0, 1 << 20, NULL, "8",
	  "LevelDB's block cache, MiB (not a YCSB property): small, so the page cache holds"
	  " the working set" },
	PROTO_OPT_END,
};

/*
 * YCSB's rules the option table cannot say: a database to run on, proportions
 * that add up to 1 (YCSB normalises silently; a typo should not), scan lengths.
 */
static int ycsb_check(const struct proto_job *job, struct proto_stream *s, const char *w,
		      char *err, size_t errlen)
{
	double sum = s->readproportion + s->updateproportion + s->insertproportion +
		     s->scanproportion + s->readmodifywriteproportion;

	if (proto_job_db(job, s) < 0)
		return s->db[0] ? errorfn(err, errlen, "%s.db: '%s' is not a declared database", w,
					     s->db)
				: errorfn(err, errlen, "%s.db: the job declares %u databases: name "
					     "one", w, job->ndbs);
	if (fabs(sum - 1.0) > 1e-9)
		return errorfn(err, errlen, "%s: readproportion + updateproportion + "
				  "insertproportion + scanproportion + readmodifywriteproportion "
				  "is %.10g, expected 1", w, sum);
	if (s->minscanlength > s->maxscanlength)
		return errorfn(err, errlen, "%s.minscanlength: %llu is above maxscanlength %llu", w,
				  (unsigned long long)s->minscanlength,
				  (unsigned long long)s->maxscanlength);
	return 0;
}

/* A YCSB stream reports every operation its proportions can choose. */
static unsigned ycsb_ops(const struct proto_stream *s)
{
	unsigned mask = 0;

	mask |= s->readproportion > 0 ? 1u << OP_READ : 0;
	mask |= s->updateproportion > 0 ? 1u << OP_UPDATE : 0;
	mask |= s->insertproportion > 0 ? 1u << OP_INSERT : 0;
	mask |= s->scanproportion > 0 ? 1u << OP_SCAN : 0;
	mask |= s->readmodifywriteproportion > 0 ? 1u << OP_RMW : 0;
	return mask;
}

static unsigned ycsb_threads(const struct proto_stream *s)
{
	return (unsigned)s->threadcount;
}

const struct proto_kind proto_kind_ycsb = {
	.name = "ycsb",
	.opts = ycsb_opts,
	.check = ycsb_check,
	.ops = ycsb_ops,
	.threads = ycsb_threads,
};
