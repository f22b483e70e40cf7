/* proto_job.c -- the job's option tables (files, databases, every stream kind) and
 * their strict checks: a job from JSON, validated, and back to JSON. */
#include "common/proto.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proto_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int proto_text_ok(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

const char *const proto_kind_names[] = { "random", "scan", "fio", "ycsb", "reclaim", NULL };

static const char *const access_names[]  = { "pread", "read", "mmap", NULL };
static const char *const dist_names[]    = { "uniform", "zipf", NULL };
static const char *const advice_names[]  = { "normal", "random", "sequential", NULL };
static const char *const mode_names[]    = { "normal", "dontcache", "dontneed", "fadv_random", NULL };
static const char *const content_names[] = { "random", "zero", NULL };
static const char *const ydist_names[]   = { "uniform", "zipfian", "latest", NULL };
static const char *const yscan_names[]   = { "uniform", "zipfian", NULL };
static const char *const yorder_names[]  = { "hashed", "ordered", NULL };
static const char *const bool_names[]    = { "false", "true", NULL };
static const char *const cgroup_names[]  = { "root", "parent", NULL };
static const char *const fallback_names[] = { "refuse", "omit", NULL };

#define JOFF(m) offsetof(struct proto_job, m)
#define FOFF(m) offsetof(struct proto_file, m)
#define DOFF(m) offsetof(struct proto_db, m)
#define SOFF(m) offsetof(struct proto_stream, m)
#define SSZ(m)  (sizeof(((struct proto_stream *)0)->m) - 1)

const struct proto_opt proto_job_opts[] = {
	{ "memcg_mib", OPT_UINT, JOFF(memcg_mib), 16, 1 << 24, NULL, "256", 0,
	  "memory.max of the workload's cgroup, MiB (memory.swap.max is 0); below 16 MiB"
	  " the workload process itself would not fit" },
	{ "duration_s", OPT_UINT, JOFF(duration_s), 1, 7 * 86400, NULL, "10", 0,
	  "length of the workload, seconds" },
	{ "interval_ms", OPT_UINT, JOFF(interval_ms), 100, 60000, NULL, "1000", 0,
	  "sampling interval, milliseconds" },
	{ "ramp_s", OPT_UINT, JOFF(ramp_s), 0, 7 * 86400, NULL, "0", 0,
	  "intervals that begin before this are stored flagged as ramp and left out of summaries" },
	{ "disk_mib", OPT_UINT, JOFF(disk_mib), 0, 1 << 24, NULL, "0", 0,
	  "size of the data disk, MiB; 0: what its files and databases need" },
	{ NULL, 0, 0, 0, 0, NULL, NULL, 0, NULL },
};

/* trace: {...}, on a cell or on a stream that names its file. */
struct trace_opts {
	uint64_t sample;
};

static const struct proto_opt trace_opts[] = {
	{ "sample", OPT_UINT, offsetof(struct trace_opts, sample), 0, 1 << 20, NULL, "0", 0,
	  "one page index in this many (a power of two) of each traced file; 0: off" },
	{ NULL, 0, 0, 0, 0, NULL, NULL, 0, NULL },
};

const struct proto_opt proto_file_opts[] = {
	{ "name", OPT_STR, FOFF(name), 1, PROTO_NAME_MAX - 1, NULL, NULL, 0,
	  "file name on the data disk" },
	{ "mib", OPT_UINT, FOFF(mib), 1, 1 << 24, NULL, NULL, 0, "size, MiB" },
	{ "content", OPT_ENUM, FOFF(content), 0, 0, content_names, "random", 0,
	  "random bytes (incompressible) or zeros" },
	{ NULL, 0, 0, 0, 0, NULL, NULL, 0, NULL },
};

/* A database: YCSB's load-phase properties (fieldlengthdistribution constant). */
const struct proto_opt proto_db_opts[] = {
	{ "name", OPT_STR, DOFF(name), 1, PROTO_NAME_MAX - 1, NULL, "ycsb", 0,
	  "the database's directory on the data disk" },
	{ "recordcount", OPT_UINT, DOFF(recordcount), 10, 1e12, NULL, NULL, 0,
	  "records loaded (YCSB recordcount)" },
	{ "fieldcount", OPT_UINT, DOFF(fieldcount), 1, 1000, NULL, "10", 0, "fields per record" },
	{ "fieldlength", OPT_UINT, DOFF(fieldlength), 1, 1 << 20, NULL, "100", 0,
	  "bytes per field" },
	{ "insertorder", OPT_ENUM, DOFF(insertorder), 0, 0, yorder_names, "hashed", 0,
	  "hashed: keys are user + FNV hash of the key number; ordered: user + the number" },
	{ NULL, 0, 0, 0, 0, NULL, NULL, 0, NULL },
};

const struct proto_opt proto_stream_opts[] = {
	{ "kind", OPT_ENUM, SOFF(kind), 0, 0, proto_kind_names, NULL, K_ALL,
	  "random reader, sequential scanner, or fio as users write it" },
	{ "name", OPT_STR, SOFF(name), 1, SSZ(name), NULL, NULL, K_ALL, "stream name" },
	{ "file", OPT_STR, SOFF(file), 1, SSZ(file), NULL, NULL, K_RANDOM | K_SCAN | K_RECLAIM,
	  "the declared file it reads" },
	{ "start_s", OPT_DOUBLE, SOFF(start_s), 0, 7 * 86400, NULL, "0", K_ALL,
	  "start, seconds after the workload starts" },
	{ "duration_s", OPT_DOUBLE, SOFF(duration_s), 0, 7 * 86400, NULL, "0", K_ALL,
	  "how long it runs; 0 until the workload ends (a scan also ends after its passes)" },
	{ "threads", OPT_UINT, SOFF(threads), 1, 256, NULL, "1", K_RANDOM, "reader threads" },
	{ "access", OPT_ENUM, SOFF(access), 0, 0, access_names, NULL, K_RANDOM | K_SCAN,
	  "random: pread or mmap (default pread); scan: read or mmap (default read)" },
	{ "distribution", OPT_ENUM, SOFF(dist), 0, 0, dist_names, "uniform", K_RANDOM,
	  "which page each read picks" },
	{ "theta", OPT_DOUBLE, SOFF(theta), 0, 5, NULL, "0.9", K_RANDOM,
	  "zipf exponent (distribution zipf)" },
	{ "rate", OPT_DOUBLE, SOFF(rate), 0, 1e9, NULL, "0", K_RANDOM,
	  "reads per second over all threads; 0: as fast as possible" },
	{ "advice", OPT_ENUM, SOFF(advice), 0, 0, advice_names, "normal", K_RANDOM,
	  "madvise (mmap) or posix_fadvise (pread) on the file" },
	{ "miss_us", OPT_DOUBLE, SOFF(miss_us), 0, 1e6, NULL, "0", K_RANDOM,
	  "a read slower than this counts as a miss; 0: calibrate" },
	{ "miss_factor", OPT_DOUBLE, SOFF(miss_factor), 1, 1000, NULL, "4", K_RANDOM,
	  "calibrated threshold: this many times the median cached read" },
	{ "chunk_kib", OPT_UINT, SOFF(chunk_kib), 4, 1 << 20, NULL, "1024", K_SCAN,
	  "read size, KiB" },
	{ "passes", OPT_UINT, SOFF(passes), 1, 100000, NULL, "1", K_SCAN, "passes over the file" },
	{ "gap_s", OPT_DOUBLE, SOFF(gap_s), 0, 86400, NULL, "0", K_SCAN,
	  "pause between passes, seconds" },
	{ "rate_mibs", OPT_DOUBLE, SOFF(rate_mibs), 0, 1e6, NULL, "0", K_SCAN,
	  "throttle, MiB/s; 0: full speed" },
	{ "mode", OPT_ENUM, SOFF(mode), 0, 0, mode_names, "normal", K_SCAN,
	  "dontcache: preadv2(RWF_DONTCACHE); dontneed: POSIX_FADV_DONTNEED per chunk;"
	  " fadv_random: POSIX_FADV_RANDOM on the file" },
	{ "memcgs", OPT_UINT, SOFF(memcgs), 1, 65535, NULL, "1500", K_RECLAIM,
	  "memcgs made beside the workload's, each charged with its own slice of 'file'" },
	{ "charge_mib", OPT_UINT, SOFF(charge_mib), 1, 1 << 24, NULL, "375", K_RECLAIM,
	  "page cache read into the memcgs before the storm, in all: split evenly, whole pages"
	  " each (the first charge_mib of 'file')" },
	{ "workers", OPT_UINT, SOFF(workers), 1, 256, NULL, "8", K_RECLAIM,
	  "threads writing to memory.reclaim, each its next request when the last returns" },
	{ "request_mib", OPT_UINT, SOFF(request_mib), 1, 1 << 24, NULL, "1024", K_RECLAIM,
	  "the size each request asks memory.reclaim for, MiB" },
	{ "swappiness", OPT_STR, SOFF(swappiness), 0, SSZ(swappiness), NULL, "0", K_RECLAIM,
	  "swappiness= argument of each request (0..200, or max); \"\" sends none" },
	{ "fallback", OPT_ENUM, SOFF(fallback), 0, 0, fallback_names, "refuse", K_RECLAIM,
	  "a kernel without swappiness= in memory.reclaim: refuse (the run is unsupported)"
	  " or omit the argument (and say so in an event)" },
	{ "cgroup", OPT_ENUM, SOFF(cgroup), 0, 0, cgroup_names, "root", K_RECLAIM,
	  "whose memory.reclaim: the root cgroup's, or the parent of the storm's memcgs" },
	{ "db", OPT_STR, SOFF(db), 1, SSZ(db), NULL, NULL, K_YCSB,
	  "the declared database it runs on (default: the only one)" },
	{ "operationcount", OPT_UINT, SOFF(operationcount), 0, 1e15, NULL, "0", K_YCSB,
	  "operations over all threads, then the stream ends; 0: run for its duration" },
	{ "threadcount", OPT_UINT, SOFF(threadcount), 1, 256, NULL, "1", K_YCSB,
	  "client threads" },
	{ "target", OPT_DOUBLE, SOFF(ops_target), 0, 1e9, NULL, "0", K_YCSB,
	  "operations per second over all threads; 0: as fast as possible" },
	{ "readproportion", OPT_DOUBLE, SOFF(readproportion), 0, 1, NULL, "0.95", K_YCSB,
	  "share of reads" },
	{ "updateproportion", OPT_DOUBLE, SOFF(updateproportion), 0, 1, NULL, "0.05", K_YCSB,
	  "share of updates" },
	{ "insertproportion", OPT_DOUBLE, SOFF(insertproportion), 0, 1, NULL, "0", K_YCSB,
	  "share of inserts" },
	{ "scanproportion", OPT_DOUBLE, SOFF(scanproportion), 0, 1, NULL, "0", K_YCSB,
	  "share of scans" },
	{ "readmodifywriteproportion", OPT_DOUBLE, SOFF(readmodifywriteproportion), 0, 1, NULL,
	  "0", K_YCSB, "share of read-modify-writes" },
	{ "requestdistribution", OPT_ENUM, SOFF(requestdistribution), 0, 0, ydist_names,
	  "uniform", K_YCSB, "which keys: uniform, zipfian (scrambled, 0.99) or latest" },
	{ "minscanlength", OPT_UINT, SOFF(minscanlength), 1, 1e9, NULL, "1", K_YCSB,
	  "fewest records a scan asks for" },
	{ "maxscanlength", OPT_UINT, SOFF(maxscanlength), 1, 1e9, NULL, "1000", K_YCSB,
	  "most records a scan asks for" },
	{ "scanlengthdistribution", OPT_ENUM, SOFF(scanlengthdistribution), 0, 0, yscan_names,
	  "uniform", K_YCSB, "scan lengths between min and max: uniform or zipfian" },
	{ "readallfields", OPT_ENUM, SOFF(readallfields), 0, 0, bool_names, "true", K_YCSB,
	  "reads return every field (else one, chosen uniformly)" },
	{ "writeallfields", OPT_ENUM, SOFF(writeallfields), 0, 0, bool_names, "false", K_YCSB,
	  "updates write every field (else one, chosen uniformly)" },
	{ "leveldb_cache_mib", OPT_UINT, SOFF(cache_mib), 0, 1 << 20, NULL, "8", K_YCSB,
	  "LevelDB's block cache, MiB (not a YCSB property): small, so the page cache holds"
	  " the working set" },
	{ "args", OPT_STR, SOFF(args), 0, SSZ(args), NULL, NULL, K_FIO,
	  "fio options as on its command line (--name=x --rw=randread ...)" },
	{ "jobfile", OPT_TEXT, SOFF(jobfile), 0, SSZ(jobfile), NULL, NULL, K_FIO,
	  "a fio job file's text" },
	{ NULL, 0, 0, 0, 0, NULL, NULL, 0, NULL },
};

static const struct proto_opt *opt_find(const struct proto_opt *table, const char *name)
{
	const struct proto_opt *o;

	for (o = table; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int enum_index(const char *const *choices, const char *val)
{
	int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(choices[i], val))
			return i;
	return -1;
}

static void choices_text(const char *const *choices, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; choices[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", choices[i]);
}

/* Printable ASCII, and line breaks and tabs: a job file. */
static int lines_ok(const char *s)
{
	for (; *s; s++)
		if ((*s < 0x20 || *s > 0x7e) && *s != '\n' && *s != '\t')
			return 0;
	return 1;
}

/* A bound as text: a whole number as one ("1048576", not "1.04858e+06"). */
static const char *num_text(double d, char *buf, size_t len)
{
	if (d == floor(d) && fabs(d) < 1e15)
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%g", d);
	return buf;
}

/* Set option o of obj from text; every range and type check lives here. */
static int opt_set_text(const struct proto_opt *o, void *obj, const char *val,
			const char *where, char *err, size_t errlen)
{
	char *end, buf[128], lo[32], hi[32], *dst = (char *)obj + o->off;
	double d;
	int idx;

	switch (o->type) {
	case OPT_ENUM:
		idx = enum_index(o->choices, val);
		if (idx < 0) {
			choices_text(o->choices, buf, sizeof(buf));
			return proto_errf(err, errlen, "%s.%s: expected one of %s, got '%.64s'", where,
				    o->name, buf, val);
		}
		*(unsigned *)dst = (unsigned)idx;
		return 0;
	case OPT_STR:
	case OPT_TEXT:
		if (strlen(val) < (size_t)o->min || strlen(val) > (size_t)o->max)
			return proto_errf(err, errlen, "%s.%s: expected %s to %s characters", where,
				    o->name, num_text(o->min, lo, sizeof(lo)),
				    num_text(o->max, hi, sizeof(hi)));
		if (o->type == OPT_STR ? !proto_text_ok(val) : !lines_ok(val))
			return proto_errf(err, errlen, "%s.%s: expected printable ASCII%s", where, o->name,
				    o->type == OPT_TEXT ? " lines" : "");
		memcpy(dst, val, strlen(val) + 1);
		return 0;
	case OPT_UINT:
	case OPT_DOUBLE:
		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(d))
			return proto_errf(err, errlen, "%s.%s: expected a number, got '%.64s'", where,
				    o->name, val);
		if (d < o->min || d > o->max)
			return proto_errf(err, errlen, "%s.%s: expected %s..%s, got %s", where, o->name,
				    num_text(o->min, lo, sizeof(lo)), num_text(o->max, hi, sizeof(hi)),
				    val);
		if (o->type == OPT_DOUBLE) {
			*(double *)dst = d;
			return 0;
		}
		if (d != floor(d))
			return proto_errf(err, errlen, "%s.%s: expected a whole number, got %s", where,
				    o->name, val);
		*(uint64_t *)dst = (uint64_t)d;
		return 0;
	}
	return proto_errf(err, errlen, "%s.%s: option has no type", where, o->name);
}

int proto_opt_set_json(const struct proto_opt *table, void *obj, const char *key, json_t *v,
		       const char *where, char *err, size_t errlen)
{
	const struct proto_opt *o = opt_find(table, key);
	char num[64];

	if (!o)
		return proto_errf(err, errlen, "%s: unknown key '%s'", where, key);
	if (json_is_string(v)) {
		if (o->type == OPT_UINT || o->type == OPT_DOUBLE)
			return proto_errf(err, errlen, "%s.%s: expected a number", where, key);
		return opt_set_text(o, obj, json_string_value(v), where, err, errlen);
	}
	if (json_is_number(v)) {
		if (o->type != OPT_UINT && o->type != OPT_DOUBLE)
			return proto_errf(err, errlen, "%s.%s: expected a string", where, key);
		snprintf(num, sizeof(num), "%.17g", json_number_value(v));
		return opt_set_text(o, obj, num, where, err, errlen);
	}
	return proto_errf(err, errlen, "%s.%s: expected a %s", where, key,
		    o->type == OPT_UINT || o->type == OPT_DOUBLE ? "number" : "string");
}

const char *proto_enum_name(const struct proto_opt *table, const void *obj, const char *opt)
{
	const struct proto_opt *o = opt_find(table, opt);

	if (!o || o->type != OPT_ENUM)
		return "?";
	return o->choices[*(const unsigned *)((const char *)obj + o->off)];
}

/* Fill every option of a table that has a default (kinds: only those). */
static void opts_defaults(const struct proto_opt *table, void *obj, unsigned kind_mask)
{
	const struct proto_opt *o;

	for (o = table; o->name; o++)
		if (o->def && (!kind_mask || (o->kinds & kind_mask)))
			opt_set_text(o, obj, o->def, "", NULL, 0);
}

/* Set every key of obj from table; kind_mask limits stream options. */
static int opts_from_json(const struct proto_opt *table, json_t *in, void *obj,
			  unsigned kind_mask, uint64_t *set, const char *where,
			  char *err, size_t errlen)
{
	const struct proto_opt *o;
	const char *key;
	json_t *v;

	if (!json_is_object(in))
		return proto_errf(err, errlen, "%s: expected an object", where);
	json_object_foreach(in, key, v) {
		o = opt_find(table, key);
		if (o && kind_mask && !(o->kinds & kind_mask))
			return proto_errf(err, errlen, "%s: '%s' is not an option of a %s stream", where,
				    key, proto_kind_names[__builtin_ctz(kind_mask)]);
		if (proto_opt_set_json(table, obj, key, v, where, err, errlen) < 0)
			return -1;
		if (set)
			*set |= UINT64_C(1) << (o - table);
	}
	return 0;
}

/* A "trace" object into *sample: a power of two, or 0. */
static int trace_from_json(json_t *in, uint64_t *sample, const char *where, char *err,
			   size_t errlen)
{
	struct trace_opts t;
	char w[80];

	snprintf(w, sizeof(w), "%s.trace", where);
	opts_defaults(trace_opts, &t, 0);
	if (opts_from_json(trace_opts, in, &t, 0, NULL, w, err, errlen) < 0)
		return -1;
	if (t.sample & (t.sample - 1))
		return proto_errf(err, errlen, "%s.sample: %llu is not a power of two (1, 2, 4 ... %u)",
				  w, (unsigned long long)t.sample, 1u << 20);
	*sample = t.sample;
	return 0;
}

static json_t *trace_to_json(uint64_t sample)
{
	return json_pack("{sI}", "sample", (json_int_t)sample);
}

static int opt_given(const struct proto_stream *s, const char *name)
{
	const struct proto_opt *o = opt_find(proto_stream_opts, name);

	return o && (s->set & (UINT64_C(1) << (o - proto_stream_opts)));
}

int proto_job_db(const struct proto_job *job, const struct proto_stream *st)
{
	unsigned i;

	if (!st->db[0])
		return job->ndbs == 1 ? 0 : -1;
	for (i = 0; i < job->ndbs; i++)
		if (!strcmp(job->dbs[i].name, st->db))
			return (int)i;
	return -1;
}

int proto_job_file(const struct proto_job *job, const char *name)
{
	unsigned i;

	for (i = 0; i < job->nfiles; i++)
		if (!strcmp(job->files[i].name, name))
			return (int)i;
	return -1;
}

static int name_ok(const char *s)
{
	if (!*s || *s == '.')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-", *s)))
			return 0;
	return 1;
}

static int file_from_json(json_t *in, struct proto_job *job, unsigned i, const char *where,
			  char *err, size_t errlen)
{
	struct proto_file *f = &job->files[i];
	char w[64];

	snprintf(w, sizeof(w), "%s.files[%u]", where, i);
	opts_defaults(proto_file_opts, f, 0);
	if (opts_from_json(proto_file_opts, in, f, 0, NULL, w, err, errlen) < 0)
		return -1;
	if (!json_object_get(in, "name") || !json_object_get(in, "mib"))
		return proto_errf(err, errlen, "%s: 'name' and 'mib' are required", w);
	if (!name_ok(f->name))
		return proto_errf(err, errlen, "%s.name: expected letters, digits, '.', '_' or '-'", w);
	if (proto_job_file(job, f->name) >= 0)   /* job->nfiles counts files before this one */
		return proto_errf(err, errlen, "%s.name: '%s' is declared twice", w, f->name);
	return 0;
}

static int db_from_json(json_t *in, struct proto_job *job, unsigned i, const char *where,
			char *err, size_t errlen)
{
	struct proto_db *d = &job->dbs[i];
	char w[64];
	unsigned j;

	snprintf(w, sizeof(w), "%s.databases[%u]", where, i);
	opts_defaults(proto_db_opts, d, 0);
	if (opts_from_json(proto_db_opts, in, d, 0, NULL, w, err, errlen) < 0)
		return -1;
	if (!json_object_get(in, "recordcount"))
		return proto_errf(err, errlen, "%s: 'recordcount' is required", w);
	if (!name_ok(d->name))
		return proto_errf(err, errlen, "%s.name: expected letters, digits, '.', '_' or '-'", w);
	if (proto_job_file(job, d->name) >= 0)
		return proto_errf(err, errlen, "%s.name: '%s' is a declared file too", w, d->name);
	for (j = 0; j < i; j++)
		if (!strcmp(job->dbs[j].name, d->name))
			return proto_errf(err, errlen, "%s.name: '%s' is declared twice", w, d->name);
	return 0;
}

/*
 * YCSB's rules the option table cannot say: a database to run on, proportions
 * that add up to 1 (YCSB normalises silently; a typo should not), scan lengths.
 */
static int ycsb_check(const struct proto_job *job, const struct proto_stream *s, const char *w,
		      char *err, size_t errlen)
{
	double sum = s->readproportion + s->updateproportion + s->insertproportion +
		     s->scanproportion + s->readmodifywriteproportion;

	if (proto_job_db(job, s) < 0)
		return s->db[0] ? proto_errf(err, errlen, "%s.db: '%s' is not a declared database", w,
					     s->db)
				: proto_errf(err, errlen, "%s.db: the job declares %u databases: name "
					     "one", w, job->ndbs);
	if (fabs(sum - 1.0) > 1e-9)
		return proto_errf(err, errlen, "%s: readproportion + updateproportion + "
				  "insertproportion + scanproportion + readmodifywriteproportion "
				  "is %.10g, expected 1", w, sum);
	if (s->minscanlength > s->maxscanlength)
		return proto_errf(err, errlen, "%s.minscanlength: %llu is above maxscanlength %llu", w,
				  (unsigned long long)s->minscanlength,
				  (unsigned long long)s->maxscanlength);
	return 0;
}

/* A reclaim storm: every memcg gets its own slice of the file; swappiness is a number. */
static int reclaim_check(const struct proto_job *job, const struct proto_stream *s,
			 const char *w, char *err, size_t errlen)
{
	const struct proto_file *f = &job->files[proto_job_file(job, s->file)];
	const char *p = s->swappiness;
	char *end;
	long v;

	if (s->charge_mib > f->mib)
		return proto_errf(err, errlen, "%s.charge_mib: %llu MiB is more than file '%s' "
				  "(%llu MiB): each memcg charges a slice of its own", w,
				  (unsigned long long)s->charge_mib, f->name, (unsigned long long)f->mib);
	if (s->charge_mib * 256 < s->memcgs)
		return proto_errf(err, errlen, "%s.charge_mib: %llu MiB is less than a 4 KiB page "
				  "for each of %llu memcgs", w, (unsigned long long)s->charge_mib,
				  (unsigned long long)s->memcgs);
	if (!*p || !strcmp(p, "max"))
		return 0;
	errno = 0;
	v = strtol(p, &end, 10);
	if (*end || errno || v < 0 || v > 200)
		return proto_errf(err, errlen, "%s.swappiness: expected 0..200, max or \"\", got '%s'",
				  w, p);
	return 0;
}

/* Kind-specific rules the option table cannot say. */
static int stream_check(const struct proto_job *job, struct proto_stream *s, const char *w,
			char *err, size_t errlen)
{
	if (s->kind == KIND_RANDOM || s->kind == KIND_SCAN || s->kind == KIND_RECLAIM) {
		if (!s->file[0])
			return proto_errf(err, errlen, "%s: 'file' is required for a %s stream", w,
				    proto_kind_names[s->kind]);
		if (proto_job_file(job, s->file) < 0)
			return proto_errf(err, errlen, "%s.file: '%s' is not a declared file", w, s->file);
	}
	if (!opt_given(s, "access"))
		s->access = s->kind == KIND_SCAN ? ACC_READ : ACC_PREAD;
	if (s->kind == KIND_RANDOM && s->access == ACC_READ)
		return proto_errf(err, errlen, "%s.access: a random stream reads by pread or mmap", w);
	if (s->kind == KIND_SCAN && s->access == ACC_PREAD)
		return proto_errf(err, errlen, "%s.access: a scan reads by read or mmap", w);
	if (s->kind == KIND_SCAN && s->access == ACC_MMAP && s->mode != MODE_NORMAL &&
	    s->mode != MODE_FADV_RANDOM)
		return proto_errf(err, errlen, "%s.mode: %s needs access read", w, mode_names[s->mode]);
	if (s->kind == KIND_RECLAIM && reclaim_check(job, s, w, err, errlen) < 0)
		return -1;
	if (s->kind == KIND_YCSB && ycsb_check(job, s, w, err, errlen) < 0)
		return -1;
	if (s->kind == KIND_FIO && !s->args[0] && !s->jobfile[0])
		return proto_errf(err, errlen, "%s: a fio stream needs 'args' or 'jobfile'", w);
	if (s->start_s >= (double)job->duration_s)
		return proto_errf(err, errlen, "%s.start_s: %g is not before the workload's end (%llu s)",
			    w, s->start_s, (unsigned long long)job->duration_s);
	return 0;
}

/* A stream's options from its table, and its "trace" object. */
static int stream_opts_from_json(json_t *in, struct proto_stream *s, const char *w, char *err,
				 size_t errlen)
{
	json_t *rest = json_copy(in), *tr = json_object_get(in, "trace");
	int rc;

	if (!rest)
		return proto_errf(err, errlen, "%s: out of memory", w);
	json_object_del(rest, "trace");
	rc = opts_from_json(proto_stream_opts, rest, s, 1u << s->kind, &s->set, w, err, errlen);
	json_decref(rest);
	if (rc < 0 || !tr)
		return rc;
	if (s->kind != KIND_RANDOM && s->kind != KIND_SCAN)
		return proto_errf(err, errlen, "%s.trace: only random and scan streams name their "
				  "file; a cell's trace traces every file", w);
	return trace_from_json(tr, &s->trace_sample, w, err, errlen);
}

static int stream_from_json(json_t *in, struct proto_job *job, unsigned i, const char *where,
			    char *err, size_t errlen)
{
	struct proto_stream *s = &job->streams[i];
	const struct proto_opt *ko = opt_find(proto_stream_opts, "kind");
	json_t *kind = json_object_get(in, "kind");
	char w[64];
	unsigned j;

	snprintf(w, sizeof(w), "%s.streams[%u]", where, i);
	if (!json_is_object(in))
		return proto_errf(err, errlen, "%s: expected an object", w);
	if (!kind)
		return proto_errf(err, errlen, "%s: 'kind' is required (random, scan or fio)", w);
	if (proto_opt_set_json(proto_stream_opts, s, "kind", kind, w, err, errlen) < 0)
		return -1;
	opts_defaults(proto_stream_opts, s, 1u << s->kind);
	snprintf(s->name, sizeof(s->name), "s%u", i);
	s->set = UINT64_C(1) << (ko - proto_stream_opts);
	if (stream_opts_from_json(in, s, w, err, errlen) < 0)
		return -1;
	for (j = 0; j < i; j++)
		if (!strcmp(job->streams[j].name, s->name))
			return proto_errf(err, errlen, "%s.name: '%s' is used by streams[%u] too", w,
				    s->name, j);
	return stream_check(job, s, w, err, errlen);
}

static int array_of(json_t *in, const char *key, size_t max, const char *where, char *err,
		    size_t errlen, json_t **ret)
{
	json_t *a = json_object_get(in, key);

	if (!json_is_array(a) || json_array_size(a) == 0)
		return proto_errf(err, errlen, "%s.%s: expected a non-empty array", where, key);
	if (json_array_size(a) > max)
		return proto_errf(err, errlen, "%s.%s: at most %zu entries", where, key, max);
	*ret = a;
	return 0;
}

/* One sample for everything traced: the kernel filters by one index mask. */
static int trace_check(const struct proto_job *job, const char *where, char *err, size_t errlen)
{
	uint64_t sample = job->trace_sample;
	unsigned i;

	for (i = 0; i < job->nstreams; i++) {
		const struct proto_stream *s = &job->streams[i];

		if (!s->trace_sample)
			continue;
		if (sample && s->trace_sample != sample)
			return proto_errf(err, errlen, "%s.streams[%u].trace.sample: %llu, but %llu is "
					  "traced already (one sample a cell)", where, i,
					  (unsigned long long)s->trace_sample,
					  (unsigned long long)sample);
		sample = s->trace_sample;
	}
	return 0;
}

uint64_t proto_job_trace(const struct proto_job *job, unsigned *files, int *all)
{
	uint64_t sample = job->trace_sample;
	unsigned i;
	int f;

	*files = 0;
	*all = sample != 0;
	for (i = 0; i < job->nstreams; i++) {
		if (!job->streams[i].trace_sample)
			continue;
		sample = job->streams[i].trace_sample;
		if ((f = proto_job_file(job, job->streams[i].file)) >= 0)
			*files |= 1u << f;
	}
	return sample;
}

/* The ramp ends before the workload does: else every interval would be ramp. */
static int ramp_check(const struct proto_job *job, const char *where, char *err, size_t errlen)
{
	if (job->ramp_s < job->duration_s)
		return 0;
	return proto_errf(err, errlen, "%s.ramp_s: expected less than duration_s (%llu), got %llu",
			  where, (unsigned long long)job->duration_s,
			  (unsigned long long)job->ramp_s);
}

int proto_job_from_json(json_t *obj, struct proto_job *job, const char *where,
			char *err, size_t errlen)
{
	json_t *files, *streams, *dbs = NULL, *v, *top;
	const char *key;
	size_t i;
	int ret = -1;

	memset(job, 0, sizeof(*job));
	if (!json_is_object(obj))
		return proto_errf(err, errlen, "%s: expected an object", where);
	opts_defaults(proto_job_opts, job, 0);
	top = json_deep_copy(obj);
	if (!top)
		return proto_errf(err, errlen, "%s: out of memory", where);
	if (json_object_get(top, "databases") &&
	    array_of(top, "databases", PROTO_MAX_DBS, where, err, errlen, &dbs) < 0)
		goto out;
	if (dbs && !json_object_get(top, "files"))
		json_object_set_new(top, "files", json_array());   /* a job of databases only */
	files = json_object_get(top, "files");
	if ((!dbs || !json_is_array(files) || json_array_size(files)) &&
	    array_of(top, "files", PROTO_MAX_FILES, where, err, errlen, &files) < 0)
		goto out;
	if (array_of(top, "streams", PROTO_MAX_STREAMS, where, err, errlen, &streams) < 0)
		goto out;
	json_incref(files);
	json_incref(streams);
	json_incref(dbs);
	json_object_del(top, "files");
	json_object_del(top, "streams");
	json_object_del(top, "databases");
	if ((v = json_object_get(top, "trace")) &&
	    trace_from_json(v, &job->trace_sample, where, err, errlen) < 0)
		goto out_arrays;
	json_object_del(top, "trace");
	json_object_foreach(top, key, v)
		if (proto_opt_set_json(proto_job_opts, job, key, v, where, err, errlen) < 0)
			goto out_arrays;
	if (ramp_check(job, where, err, errlen) < 0)
		goto out_arrays;
	json_array_foreach(files, i, v) {
		if (file_from_json(v, job, (unsigned)i, where, err, errlen) < 0)
			goto out_arrays;
		job->nfiles++;
	}
	json_array_foreach(dbs, i, v) {
		if (db_from_json(v, job, (unsigned)i, where, err, errlen) < 0)
			goto out_arrays;
		job->ndbs++;
	}
	json_array_foreach(streams, i, v) {
		if (stream_from_json(v, job, (unsigned)i, where, err, errlen) < 0)
			goto out_arrays;
		job->nstreams++;
	}
	ret = trace_check(job, where, err, errlen);
out_arrays:
	json_decref(files);
	json_decref(streams);
	json_decref(dbs);
out:
	json_decref(top);
	return ret;
}

static json_t *opt_to_json(const struct proto_opt *o, const void *obj)
{
	const char *p = (const char *)obj + o->off;

	switch (o->type) {
	case OPT_ENUM:
		return json_string(o->choices[*(const unsigned *)p]);
	case OPT_UINT:
		return json_integer((json_int_t)*(const uint64_t *)p);
	case OPT_DOUBLE:
		return json_real(*(const double *)p);
	case OPT_STR:
	case OPT_TEXT:
		return json_string(p);
	}
	return NULL;
}

/* Every option of table (of kind_mask) that has a value worth sending. */
static json_t *opts_to_json(const struct proto_opt *table, const void *obj, unsigned kind_mask)
{
	const struct proto_opt *o;
	json_t *out = json_object();

	for (o = table; out && o->name; o++) {
		if (kind_mask && !(o->kinds & kind_mask))
			continue;
		if ((o->type == OPT_STR || o->type == OPT_TEXT) && !((const char *)obj + o->off)[0])
			continue;
		json_object_set_new(out, o->name, opt_to_json(o, obj));
	}
	return out;
}

json_t *proto_job_to_json(const struct proto_job *job)
{
	json_t *out = opts_to_json(proto_job_opts, job, 0);
	json_t *files = json_array(), *streams = json_array();
	unsigned i;

	if (!out || !files || !streams) {
		json_decref(out);
		json_decref(files);
		json_decref(streams);
		return NULL;
	}
	for (i = 0; i < job->nfiles; i++)
		json_array_append_new(files, opts_to_json(proto_file_opts, &job->files[i], 0));
	for (i = 0; i < job->nstreams; i++)
		json_array_append_new(streams, opts_to_json(proto_stream_opts, &job->streams[i],
							    1u << job->streams[i].kind));
	for (i = 0; i < job->nstreams; i++)
		if (job->streams[i].trace_sample)
			json_object_set_new(json_array_get(streams, i), "trace",
					    trace_to_json(job->streams[i].trace_sample));
	if (job->trace_sample)
		json_object_set_new(out, "trace", trace_to_json(job->trace_sample));
	json_object_set_new(out, "files", files);
	json_object_set_new(out, "streams", streams);
	if (job->ndbs) {
		json_t *dbs = json_array();

		for (i = 0; dbs && i < job->ndbs; i++)
			json_array_append_new(dbs, opts_to_json(proto_db_opts, &job->dbs[i], 0));
		json_object_set_new(out, "databases", dbs);
	}
	return out;
}

/* A reclaim storm reports its requests. */
static unsigned reclaim_ops(const struct proto_stream *st)
{
	(void)st;
	return 1u << OP_RECLAIM;
}

/* A YCSB stream reports every operation its proportions can choose. */
static unsigned ycsb_ops(const struct proto_stream *st)
{
	unsigned mask = 0;

	mask |= st->readproportion > 0 ? 1u << OP_READ : 0;
	mask |= st->updateproportion > 0 ? 1u << OP_UPDATE : 0;
	mask |= st->insertproportion > 0 ? 1u << OP_INSERT : 0;
	mask |= st->scanproportion > 0 ? 1u << OP_SCAN : 0;
	mask |= st->readmodifywriteproportion > 0 ? 1u << OP_RMW : 0;
	return mask;
}

/* Per kind: which operations its streams report one by one (NULL: none). */
static unsigned (*const kind_ops[KIND_COUNT])(const struct proto_stream *) = {
	[KIND_RECLAIM] = reclaim_ops,
	[KIND_YCSB] = ycsb_ops,
};

unsigned proto_stream_ops(const struct proto_stream *st)
{
	if (st->kind >= KIND_COUNT || !kind_ops[st->kind])
		return 0;
	return kind_ops[st->kind](st);
}
