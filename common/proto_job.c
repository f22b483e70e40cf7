/* proto_job.c -- the job's option tables (files, databases, every stream kind) and
 * their strict checks: a job from JSON, validated, and back to JSON. */
#include "common/fmt.h"
#include "common/proto.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proto_text_ok(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

const char *const proto_kind_names[] = {
#define X(e, id) #id,
	PROTO_STREAM_KINDS(X)
#undef X
	NULL
};

const struct proto_kind *const proto_kinds[KIND_COUNT] = {
#define X(e, id) [KIND_##e] = &proto_kind_##id,
	PROTO_STREAM_KINDS(X)
#undef X
};

const char *const proto_access_names[] = { "pread", "read", "mmap", NULL };

static const char *const content_names[] = { "random", "zero", NULL };
static const char *const yorder_names[]  = { "hashed", "ordered", NULL };

#define JOFF(m) offsetof(struct proto_job, m)
#define FOFF(m) offsetof(struct proto_file, m)
#define DOFF(m) offsetof(struct proto_db, m)

const struct proto_opt proto_job_opts[] = {
	{ "memcg_mib", OPT_UINT, JOFF(memcg_mib), 16, 1 << 24, NULL, "256",
	  "memory.max of the workload's cgroup, MiB; below 16 MiB the workload process"
	  " itself would not fit" },
	{ "swap_max_mib", OPT_UINT, JOFF(swap_max_mib), 0, 1 << 24, NULL, NULL,
	  "memory.swap.max of the workload's cgroup, MiB; default: the swap's size (0 without)" },
	{ "swappiness", OPT_UINT, JOFF(swappiness), 0, 200, NULL, NULL,
	  "vm.swappiness for the run; default: the kernel's (60)" },
	{ "duration_s", OPT_UINT, JOFF(duration_s), 1, 7 * 86400, NULL, "10",
	  "length of the workload, seconds" },
	{ "interval_ms", OPT_UINT, JOFF(interval_ms), 100, 60000, NULL, "1000",
	  "sampling interval, milliseconds" },
	{ "ramp_s", OPT_UINT, JOFF(ramp_s), 0, 7 * 86400, NULL, "0",
	  "intervals that begin before this are stored flagged as ramp and left out of summaries" },
	{ "disk_mib", OPT_UINT, JOFF(disk_mib), 0, 1 << 24, NULL, "0",
	  "size of the data disk, MiB; 0: what its files and databases need" },
	PROTO_OPT_END,
};

const char *const proto_swap_kind_names[] = {
#define X(e, id, fl) #id,
	PROTO_SWAP_KINDS(X)
#undef X
	NULL
};

const unsigned proto_swap_kind_flags[] = {
#define X(e, id, fl) fl,
	PROTO_SWAP_KINDS(X)
#undef X
};

const char *const proto_swap_compressors[] = { "default", "lzo", "lzo-rle", "lz4", "lz4hc",
					       "zstd", "deflate", "842", NULL };
const char *const proto_swap_zpools[] = { "default", "zsmalloc", "zbud", "z3fold", NULL };

#define WOFF(m) offsetof(struct proto_swap, m)

/* swap: {...}, on a cell; "none" is what a cell without one has, not a choice. */
const struct proto_opt proto_swap_opts[] = {
	{ "kind", OPT_ENUM, WOFF(kind), 0, 0, proto_swap_kind_names, NULL,
	  "disk (a swap file on the data disk), zram, or zswap (in front of such a file)" },
	{ "mib", OPT_UINT, WOFF(mib), 1, 1 << 20, NULL, NULL,
	  "size of the swap file or zram device, MiB" },
	{ "compressor", OPT_ENUM, WOFF(compressor), 0, 0, proto_swap_compressors, "default",
	  "zram's comp_algorithm or zswap's compressor; default: the kernel's" },
	{ "zswap_pool", OPT_ENUM, WOFF(zpool), 0, 0, proto_swap_zpools, "default",
	  "zswap's zpool; default: the kernel's" },
	{ "max_pool_percent", OPT_UINT, WOFF(max_pool_percent), 1, 100, NULL, "20",
	  "zswap's pool limit, percent of guest memory" },
	PROTO_OPT_END,
};

/* trace: {...}, on a cell or on a stream that names its file. */
struct trace_opts {
	uint64_t sample;
};

static const struct proto_opt trace_opts[] = {
	{ "sample", OPT_UINT, offsetof(struct trace_opts, sample), 0, 1 << 20, NULL, "0",
	  "one page index in this many (a power of two) of each traced file; 0: off" },
	PROTO_OPT_END,
};

const struct proto_opt proto_file_opts[] = {
	{ "name", OPT_STR, FOFF(name), 1, PROTO_NAME_MAX - 1, NULL, NULL,
	  "file name on the data disk" },
	{ "mib", OPT_UINT, FOFF(mib), 1, 1 << 24, NULL, NULL, "size, MiB" },
	{ "content", OPT_ENUM, FOFF(content), 0, 0, content_names, "random",
	  "random bytes (incompressible) or zeros" },
	PROTO_OPT_END,
};

/* A database: YCSB's load-phase properties (fieldlengthdistribution constant). */
const struct proto_opt proto_db_opts[] = {
	{ "name", OPT_STR, DOFF(name), 1, PROTO_NAME_MAX - 1, NULL, "ycsb",
	  "the database's directory on the data disk" },
	{ "recordcount", OPT_UINT, DOFF(recordcount), 10, 1e12, NULL, NULL,
	  "records loaded (YCSB recordcount)" },
	{ "fieldcount", OPT_UINT, DOFF(fieldcount), 1, 1000, NULL, "10", "fields per record" },
	{ "fieldlength", OPT_UINT, DOFF(fieldlength), 1, 1 << 20, NULL, "100",
	  "bytes per field" },
	{ "insertorder", OPT_ENUM, DOFF(insertorder), 0, 0, yorder_names, "hashed",
	  "hashed: keys are user + FNV hash of the key number; ordered: user + the number" },
	PROTO_OPT_END,
};

/* What every kind's stream says; each kind's own options are in its descriptor. */
const struct proto_opt proto_stream_opts[] = {
	{ "kind", OPT_ENUM, PROTO_SOFF(kind), 0, 0, proto_kind_names, NULL,
	  "what the stream is: a random reader, a sequential scanner, fio as users write it,"
	  " a YCSB client, a memory.reclaim storm" },
	{ "name", OPT_STR, PROTO_SOFF(name), 1, PROTO_SLEN(name), NULL, NULL, "stream name" },
	{ "file", OPT_STR, PROTO_SOFF(file), 1, PROTO_SLEN(file), NULL, NULL,
	  "the declared file it reads (the kinds that read one)" },
	{ "start_s", OPT_DOUBLE, PROTO_SOFF(start_s), 0, 7 * 86400, NULL, "0",
	  "start, seconds after the workload starts" },
	{ "duration_s", OPT_DOUBLE, PROTO_SOFF(duration_s), 0, 7 * 86400, NULL, "0",
	  "how long it runs; 0 until the workload ends (a scan also ends after its passes)" },
	PROTO_OPT_END,
};

/* Bit of proto_stream.set for a kind's own option i (the common ones come first). */
#define KIND_OPT_BIT 16

/* The option called name in table, or NULL. */
static const struct proto_opt *opt_find(const struct proto_opt *table, const char *name)
{
	const struct proto_opt *o;

	for (o = table; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* The index of val among the NULL-ended choices, or -1. */
static int enum_index(const char *const *choices, const char *val)
{
	int i;

	for (i = 0; choices[i]; i++)
		if (!strcmp(choices[i], val))
			return i;
	return -1;
}

/* The choices as "a, b, c" into buf (cut to fit: a message's). */
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
		fmtcut(buf, len, "%.0f", d);
	else
		fmtcut(buf, len, "%g", d);
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
			return errorfn(err, errlen, "%s.%s: expected one of %s, got '%.64s'", where,
				    o->name, buf, val);
		}
		*(unsigned *)dst = (unsigned)idx;
		return 0;
	case OPT_STR:
	case OPT_TEXT:
		if (strlen(val) < (size_t)o->min || strlen(val) > (size_t)o->max)
			return errorfn(err, errlen, "%s.%s: expected %s to %s characters", where,
				    o->name, num_text(o->min, lo, sizeof(lo)),
				    num_text(o->max, hi, sizeof(hi)));
		if (o->type == OPT_STR ? !proto_text_ok(val) : !lines_ok(val))
			return errorfn(err, errlen, "%s.%s: expected printable ASCII%s", where, o->name,
				    o->type == OPT_TEXT ? " lines" : "");
		memcpy(dst, val, strlen(val) + 1);
		return 0;
	case OPT_UINT:
	case OPT_DOUBLE:
		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(d))
			return errorfn(err, errlen, "%s.%s: expected a number, got '%.64s'", where,
				    o->name, val);
		if (d < o->min || d > o->max)
			return errorfn(err, errlen, "%s.%s: expected %s..%s, got %s", where, o->name,
				    num_text(o->min, lo, sizeof(lo)), num_text(o->max, hi, sizeof(hi)),
				    val);
		if (o->type == OPT_DOUBLE) {
			*(double *)dst = d;
			return 0;
		}
		if (d != floor(d))
			return errorfn(err, errlen, "%s.%s: expected a whole number, got %s", where,
				    o->name, val);
		*(uint64_t *)dst = (uint64_t)d;
		return 0;
	}
	return errorfn(err, errlen, "%s.%s: option has no type", where, o->name);
}

int proto_opt_set_json(const struct proto_opt *table, void *obj, const char *key, json_t *v,
		       const char *where, char *err, size_t errlen)
{
	const struct proto_opt *o = opt_find(table, key);
	char num[64];

	if (!o)
		return errorfn(err, errlen, "%s: unknown key '%s'", where, key);
	if (json_is_string(v)) {
		if (o->type == OPT_UINT || o->type == OPT_DOUBLE)
			return errorfn(err, errlen, "%s.%s: expected a number", where, key);
		return opt_set_text(o, obj, json_string_value(v), where, err, errlen);
	}
	if (json_is_number(v)) {
		if (o->type != OPT_UINT && o->type != OPT_DOUBLE)
			return errorfn(err, errlen, "%s.%s: expected a string", where, key);
		fmtcut(num, sizeof(num), "%.17g", json_number_value(v));
		return opt_set_text(o, obj, num, where, err, errlen);
	}
	return errorfn(err, errlen, "%s.%s: expected a %s", where, key,
		    o->type == OPT_UINT || o->type == OPT_DOUBLE ? "number" : "string");
}

const char *proto_enum_name(const struct proto_opt *table, const void *obj, const char *opt)
{
	const struct proto_opt *o = opt_find(table, opt);

	if (!o || o->type != OPT_ENUM)
		return "?";
	return o->choices[*(const unsigned *)((const char *)obj + o->off)];
}

/* Fill every option of a table that has a default. */
static void opts_defaults(const struct proto_opt *table, void *obj)
{
	const struct proto_opt *o;

	for (o = table; o->name; o++)
		if (o->def)
			opt_set_text(o, obj, o->def, "", NULL, 0);
}

/* Set every key of obj from table. */
static int opts_from_json(const struct proto_opt *table, json_t *in, void *obj,
			  const char *where, char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(in))
		return errorfn(err, errlen, "%s: expected an object", where);
	json_object_foreach(in, key, v)
		if (proto_opt_set_json(table, obj, key, v, where, err, errlen) < 0)
			return -1;
	return 0;
}

/* A "trace" object into *sample: a power of two, or 0. */
static int trace_from_json(json_t *in, uint64_t *sample, const char *where, char *err,
			   size_t errlen)
{
	struct trace_opts t;
	char w[80];

	fmtcut(w, sizeof(w), "%s.trace", where);
	opts_defaults(trace_opts, &t);
	if (opts_from_json(trace_opts, in, &t, w, err, errlen) < 0)
		return -1;
	if (t.sample & (t.sample - 1))
		return errorfn(err, errlen, "%s.sample: %llu is not a power of two (1, 2, 4 ... %u)",
				  w, (unsigned long long)t.sample, 1u << 20);
	*sample = t.sample;
	return 0;
}

static json_t *trace_to_json(uint64_t sample)
{
	return json_pack("{sI}", "sample", (json_int_t)sample);
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

/*
 * 1 if s names a file or database: letters, digits and ._-, not starting
 * with '.'.
 */
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

/*
 * files[i]: its options, a name and size given, the name unique; -1 with
 * err naming the field.
 */
static int file_from_json(json_t *in, struct proto_job *job, unsigned i, const char *where,
			  char *err, size_t errlen)
{
	struct proto_file *f = &job->files[i];
	char w[64];

	fmtcut(w, sizeof(w), "%s.files[%u]", where, i);
	opts_defaults(proto_file_opts, f);
	if (opts_from_json(proto_file_opts, in, f, w, err, errlen) < 0)
		return -1;
	if (!json_object_get(in, "name") || !json_object_get(in, "mib"))
		return errorfn(err, errlen, "%s: 'name' and 'mib' are required", w);
	if (!name_ok(f->name))
		return errorfn(err, errlen, "%s.name: expected letters, digits, '.', '_' or '-'", w);
	if (proto_job_file(job, f->name) >= 0)   /* job->nfiles counts files before this one */
		return errorfn(err, errlen, "%s.name: '%s' is declared twice", w, f->name);
	return 0;
}

/*
 * databases[i]: its options, a record count given, a name no file or other
 * database has; -1 with err naming the field.
 */
static int db_from_json(json_t *in, struct proto_job *job, unsigned i, const char *where,
			char *err, size_t errlen)
{
	struct proto_db *d = &job->dbs[i];
	char w[64];
	unsigned j;

	fmtcut(w, sizeof(w), "%s.databases[%u]", where, i);
	opts_defaults(proto_db_opts, d);
	if (opts_from_json(proto_db_opts, in, d, w, err, errlen) < 0)
		return -1;
	if (!json_object_get(in, "recordcount"))
		return errorfn(err, errlen, "%s: 'recordcount' is required", w);
	if (!name_ok(d->name))
		return errorfn(err, errlen, "%s.name: expected letters, digits, '.', '_' or '-'", w);
	if (proto_job_file(job, d->name) >= 0)
		return errorfn(err, errlen, "%s.name: '%s' is a declared file too", w, d->name);
	for (j = 0; j < i; j++)
		if (!strcmp(job->dbs[j].name, d->name))
			return errorfn(err, errlen, "%s.name: '%s' is declared twice", w, d->name);
	return 0;
}

/* What every stream must say, then its kind's own rules. */
static int stream_check(const struct proto_job *job, struct proto_stream *s, const char *w,
			char *err, size_t errlen)
{
	const struct proto_kind *k = proto_kinds[s->kind];

	if (k->flags & PK_FILE) {
		if (!s->file[0])
			return errorfn(err, errlen, "%s: 'file' is required for a %s stream", w,
					  k->name);
		if (proto_job_file(job, s->file) < 0)
			return errorfn(err, errlen, "%s.file: '%s' is not a declared file", w, s->file);
	}
	if (k->check && k->check(job, s, w, err, errlen) < 0)
		return -1;
	if (s->start_s >= (double)job->duration_s)
		return errorfn(err, errlen, "%s.start_s: %g is not before the workload's end (%llu s)",
			    w, s->start_s, (unsigned long long)job->duration_s);
	return 0;
}

/* Is key an option of some kind's own table? */
static int any_kind_has(const char *key)
{
	for (unsigned i = 0; i < KIND_COUNT; i++)
		if (opt_find(proto_kinds[i]->opts, key))
			return 1;
	return 0;
}

/*
 * One key of a stream: a common option (bit i of set), its kind's own option i
 * (bit KIND_OPT_BIT + i), or refused: another kind's option, or nobody's.
 */
static int stream_key(struct proto_stream *s, const char *key, json_t *v, const char *w,
		      char *err, size_t errlen)
{
	const struct proto_kind *k = proto_kinds[s->kind];
	const struct proto_opt *table = proto_stream_opts, *o = opt_find(table, key);
	unsigned bit = 0;

	if (!o || (!strcmp(key, "file") && !(k->flags & PK_FILE))) {
		table = k->opts;
		bit = KIND_OPT_BIT;
		o = opt_find(table, key);
	}
	if (!o && (!strcmp(key, "file") || any_kind_has(key)))
		return errorfn(err, errlen, "%s: '%s' is not an option of a %s stream", w, key,
				  k->name);
	if (proto_opt_set_json(table, s, key, v, w, err, errlen) < 0)
		return -1;
	s->set |= UINT64_C(1) << (bit + (unsigned)(o - table));
	return 0;
}

/* A stream's options from its kind's tables, and its "trace" object. */
static int stream_opts_from_json(json_t *in, struct proto_stream *s, const char *w, char *err,
				 size_t errlen)
{
	json_t *tr = json_object_get(in, "trace"), *v;
	const char *key;

	json_object_foreach(in, key, v)
		if (strcmp(key, "trace") && stream_key(s, key, v, w, err, errlen) < 0)
			return -1;
	if (!tr)
		return 0;
	if (!(proto_kinds[s->kind]->flags & PK_TRACE))
		return errorfn(err, errlen, "%s.trace: a %s stream names no file to trace; a "
				  "cell's trace traces every file", w, proto_kinds[s->kind]->name);
	return trace_from_json(tr, &s->trace_sample, w, err, errlen);
}

/*
 * streams[i]: its kind first (its defaults and its options then apply), a
 * name of its own (s<i> by default), then its kind's checks; -1 with err.
 */
static int stream_from_json(json_t *in, struct proto_job *job, unsigned i, const char *where,
			    char *err, size_t errlen)
{
	struct proto_stream *s = &job->streams[i];
	const struct proto_opt *ko = opt_find(proto_stream_opts, "kind");
	json_t *kind = json_object_get(in, "kind");
	char w[64], kinds[128];
	unsigned j;

	fmtcut(w, sizeof(w), "%s.streams[%u]", where, i);
	if (!json_is_object(in))
		return errorfn(err, errlen, "%s: expected an object", w);
	if (!kind) {
		choices_text(proto_kind_names, kinds, sizeof(kinds));
		return errorfn(err, errlen, "%s: 'kind' is required (%s)", w, kinds);
	}
	if (proto_opt_set_json(proto_stream_opts, s, "kind", kind, w, err, errlen) < 0)
		return -1;
	opts_defaults(proto_stream_opts, s);
	opts_defaults(proto_kinds[s->kind]->opts, s);
	fmtcut(s->name, sizeof(s->name), "s%u", i);
	s->set = UINT64_C(1) << (ko - proto_stream_opts);
	if (stream_opts_from_json(in, s, w, err, errlen) < 0)
		return -1;
	for (j = 0; j < i; j++)
		if (!strcmp(job->streams[j].name, s->name))
			return errorfn(err, errlen, "%s.name: '%s' is used by streams[%u] too", w,
				    s->name, j);
	return stream_check(job, s, w, err, errlen);
}

/*
 * Does any of the streams (a job's "streams", as given) use the data disk
 * (its kind not PK_MEMORY)? 1 also when it cannot be told (not an array, a
 * kind unknown): the checks that follow say what is wrong.
 */
static int streams_use_disk(json_t *streams)
{
	const char *kind;
	json_t *st;
	size_t i;
	unsigned k;

	if (!json_is_array(streams) || !json_array_size(streams))
		return 1;
	json_array_foreach(streams, i, st) {
		kind = json_string_value(json_object_get(st, "kind"));
		for (k = 0; kind && k < KIND_COUNT && strcmp(proto_kinds[k]->name, kind); k++)
			;
		if (!kind || k == KIND_COUNT || !(proto_kinds[k]->flags & PK_MEMORY))
			return 1;
	}
	return 0;
}

/* in's key as a non-empty array of at most max entries into *ret; -1 with err. */
static int array_of(json_t *in, const char *key, size_t max, const char *where, char *err,
		    size_t errlen, json_t **ret)
{
	json_t *a = json_object_get(in, key);

	if (!json_is_array(a) || json_array_size(a) == 0)
		return errorfn(err, errlen, "%s.%s: expected a non-empty array", where, key);
	if (json_array_size(a) > max)
		return errorfn(err, errlen, "%s.%s: at most %zu entries", where, key, max);
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
			return errorfn(err, errlen, "%s.streams[%u].trace.sample: %llu, but %llu is "
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

/*
 * A "swap" object into job->swap: a kind and a size given, and only the
 * options its kind takes; -1 with err naming the field.
 */
static int swap_from_json(json_t *in, struct proto_job *job, const char *where, char *err,
			  size_t errlen)
{
	struct proto_swap *w = &job->swap;
	unsigned fl;
	char at[80];

	fmtcut(at, sizeof(at), "%s.swap", where);
	opts_defaults(proto_swap_opts, w);
	if (opts_from_json(proto_swap_opts, in, w, at, err, errlen) < 0)
		return -1;
	if (!json_object_get(in, "kind") || !json_object_get(in, "mib"))
		return errorfn(err, errlen, "%s: 'kind' and 'mib' are required", at);
	if (w->kind == SWAP_NONE)
		return errorfn(err, errlen, "%s.kind: expected disk, zram or zswap (leave out "
				  "\"swap\" for none)", at);
	fl = proto_swap_kind_flags[w->kind];
	if (!(fl & SWK_COMP) && json_object_get(in, "compressor"))
		return errorfn(err, errlen, "%s.compressor: a %s swap compresses nothing", at,
				  proto_swap_kind_names[w->kind]);
	if (!(fl & SWK_POOL) && (json_object_get(in, "zswap_pool") ||
				 json_object_get(in, "max_pool_percent")))
		return errorfn(err, errlen, "%s: zswap_pool and max_pool_percent are zswap's", at);
	return 0;
}

static json_t *swap_to_json(const struct proto_swap *w)
{
	unsigned fl = proto_swap_kind_flags[w->kind];
	json_t *o = json_pack("{sssI}", "kind", proto_swap_kind_names[w->kind], "mib",
			      (json_int_t)w->mib);

	if (o && (fl & SWK_COMP))
		json_object_set_new(o, "compressor", json_string(proto_swap_compressors[w->compressor]));
	if (o && (fl & SWK_POOL)) {
		json_object_set_new(o, "zswap_pool", json_string(proto_swap_zpools[w->zpool]));
		json_object_set_new(o, "max_pool_percent", json_integer((json_int_t)w->max_pool_percent));
	}
	return o;
}

/* memory.swap.max: the swap's size unless given, and never more than it. */
static int swap_max_check(struct proto_job *job, const char *where, char *err, size_t errlen)
{
	uint64_t size = job->swap.kind == SWAP_NONE ? 0 : job->swap.mib;

	if (job->swap_max_mib == UINT64_MAX)
		job->swap_max_mib = size;
	if (job->swap_max_mib > size)
		return errorfn(err, errlen, "%s.swap_max_mib: %llu MiB, but the cell has %s", where,
				  (unsigned long long)job->swap_max_mib,
				  size ? "less swap (swap.mib)" : "no swap (a \"swap\" object)");
	return 0;
}

/* The ramp ends before the workload does: else every interval would be ramp. */
static int ramp_check(const struct proto_job *job, const char *where, char *err, size_t errlen)
{
	if (job->ramp_s < job->duration_s)
		return 0;
	return errorfn(err, errlen, "%s.ramp_s: expected less than duration_s (%llu), got %llu",
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
		return errorfn(err, errlen, "%s: expected an object", where);
	opts_defaults(proto_job_opts, job);
	top = json_deep_copy(obj);
	if (!top)
		return errorfn(err, errlen, "%s: out of memory", where);
	if (json_object_get(top, "databases") &&
	    array_of(top, "databases", PROTO_MAX_DBS, where, err, errlen, &dbs) < 0)
		goto out;
	if ((dbs || !streams_use_disk(json_object_get(top, "streams"))) &&
	    !json_object_get(top, "files"))
		json_object_set_new(top, "files", json_array());   /* databases or memory only */
	files = json_object_get(top, "files");
	if ((!json_is_array(files) || json_array_size(files) ||
	     (!dbs && streams_use_disk(json_object_get(top, "streams")))) &&
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
	if ((v = json_object_get(top, "swap")) && swap_from_json(v, job, where, err, errlen) < 0)
		goto out_arrays;
	json_object_del(top, "swap");
	job->swap_max_mib = UINT64_MAX;
	job->swappiness = PROTO_SWAPPINESS_KERNEL;
	json_object_foreach(top, key, v)
		if (proto_opt_set_json(proto_job_opts, job, key, v, where, err, errlen) < 0)
			goto out_arrays;
	if (ramp_check(job, where, err, errlen) < 0 || swap_max_check(job, where, err, errlen) < 0)
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

/* One option's value in obj as JSON, by its type. */
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

/* Every option of table that has a value worth sending, into out (a new object if NULL). */
static json_t *opts_to_json(const struct proto_opt *table, const void *obj, json_t *out)
{
	const struct proto_opt *o;

	if (!out)
		out = json_object();
	for (o = table; out && o->name; o++) {
		if ((o->type == OPT_STR || o->type == OPT_TEXT) && !((const char *)obj + o->off)[0])
			continue;
		if (o->type == OPT_UINT && *(const uint64_t *)((const char *)obj + o->off) ==
		    UINT64_MAX)
			continue;   /* never set, nor defaulted: the kernel's own */
		json_object_set_new(out, o->name, opt_to_json(o, obj));
	}
	return out;
}

json_t *proto_job_to_json(const struct proto_job *job)
{
	json_t *out = opts_to_json(proto_job_opts, job, NULL);
	json_t *files = json_array(), *streams = json_array();
	unsigned i;

	if (!out || !files || !streams) {
		json_decref(out);
		json_decref(files);
		json_decref(streams);
		return NULL;
	}
	for (i = 0; i < job->nfiles; i++)
		json_array_append_new(files, opts_to_json(proto_file_opts, &job->files[i], NULL));
	for (i = 0; i < job->nstreams; i++) {
		const struct proto_stream *st = &job->streams[i];

		json_array_append_new(streams, opts_to_json(proto_kinds[st->kind]->opts, st,
							    opts_to_json(proto_stream_opts, st, NULL)));
	}
	for (i = 0; i < job->nstreams; i++)
		if (job->streams[i].trace_sample)
			json_object_set_new(json_array_get(streams, i), "trace",
					    trace_to_json(job->streams[i].trace_sample));
	if (job->trace_sample)
		json_object_set_new(out, "trace", trace_to_json(job->trace_sample));
	if (job->swap.kind != SWAP_NONE)
		json_object_set_new(out, "swap", swap_to_json(&job->swap));
	json_object_set_new(out, "files", files);
	json_object_set_new(out, "streams", streams);
	if (job->ndbs) {
		json_t *dbs = json_array();

		for (i = 0; dbs && i < job->ndbs; i++)
			json_array_append_new(dbs, opts_to_json(proto_db_opts, &job->dbs[i], NULL));
		json_object_set_new(out, "databases", dbs);
	}
	return out;
}

/* A stream's descriptor; NULL for a kind out of range (never parsed from JSON). */
static const struct proto_kind *kind_of(const struct proto_stream *st)
{
	return st->kind < KIND_COUNT ? proto_kinds[st->kind] : NULL;
}

unsigned proto_stream_ops(const struct proto_stream *st)
{
	const struct proto_kind *k = kind_of(st);

	return k && k->ops ? k->ops(st) : 0;
}

unsigned proto_stream_threads(const struct proto_stream *st)
{
	const struct proto_kind *k = kind_of(st);

	return k && k->threads ? k->threads(st) : 1;
}

uint64_t proto_stream_charge_mib(const struct proto_stream *st)
{
	const struct proto_kind *k = kind_of(st);

	return k && k->charge_mib ? k->charge_mib(st) : 0;
}
