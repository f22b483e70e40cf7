/* proto.c -- encode and strictly decode channel messages and workload options.
 * Each message type is a table of fields; one parser and one formatter serve all. */
#include "proto.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static const char *const access_names[] = { "pread", "mmap", NULL };
static const char *const dist_names[]   = { "uniform", "zipf", NULL };

#define WOFF(m) offsetof(struct proto_workload, m)

const struct proto_opt proto_workload_opts[] = {
	{ "access", OPT_ENUM, WOFF(access), 0, 0, access_names, "pread",
	  "how a read reaches the page: pread() or a touch through mmap" },
	{ "distribution", OPT_ENUM, WOFF(dist), 0, 0, dist_names, "uniform",
	  "which page each read picks" },
	{ "theta", OPT_DOUBLE, WOFF(theta), 0.0, 5.0, NULL, "0.9",
	  "zipf exponent (only with distribution zipf)" },
	{ "threads", OPT_UINT, WOFF(threads), 1, 256, NULL, "1",
	  "reader threads" },
	{ "duration_s", OPT_UINT, WOFF(duration_s), 1, 86400, NULL, "10",
	  "how long the readers run, seconds" },
	{ "interval_ms", OPT_UINT, WOFF(interval_ms), 100, 60000, NULL, "1000",
	  "sampling interval, milliseconds" },
	{ "file_mib", OPT_UINT, WOFF(file_mib), 1, 1 << 20, NULL, "64",
	  "size of the file read, MiB" },
	{ "memcg_mib", OPT_UINT, WOFF(memcg_mib), 8, 1 << 20, NULL, "32",
	  "memory.max of the workload's cgroup, MiB" },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL },
};

static int errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static const struct proto_opt *opt_find(const char *name)
{
	const struct proto_opt *o;

	for (o = proto_workload_opts; o->name; o++)
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
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", choices[i]);
}

int proto_workload_set(struct proto_workload *w, const char *name, const char *val,
		       char *err, size_t errlen)
{
	const struct proto_opt *o = opt_find(name);
	char *end, buf[128];
	double d;
	int idx;

	if (!o)
		return errf(err, errlen, "unknown workload option '%s'", name);
	switch (o->type) {
	case OPT_ENUM:
		idx = enum_index(o->choices, val);
		if (idx < 0) {
			choices_text(o->choices, buf, sizeof(buf));
			return errf(err, errlen, "'%s' must be one of %s, not '%s'", name, buf, val);
		}
		*(unsigned *)((char *)w + o->off) = (unsigned)idx;
		return 0;
	case OPT_UINT:
	case OPT_DOUBLE:
		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(d))
			return errf(err, errlen, "'%s' must be a number, not '%s'", name, val);
		if (d < o->min || d > o->max)
			return errf(err, errlen, "'%s' must be between %g and %g, not %s",
				    name, o->min, o->max, val);
		if (o->type == OPT_DOUBLE) {
			*(double *)((char *)w + o->off) = d;
			return 0;
		}
		if (d != (double)(uint64_t)d)
			return errf(err, errlen, "'%s' must be a whole number, not %s", name, val);
		*(uint64_t *)((char *)w + o->off) = (uint64_t)d;
		return 0;
	}
	return errf(err, errlen, "option '%s' has no type", name);
}

int proto_workload_defaults(struct proto_workload *w)
{
	const struct proto_opt *o;

	memset(w, 0, sizeof(*w));
	for (o = proto_workload_opts; o->name; o++)
		if (o->def && proto_workload_set(w, o->name, o->def, NULL, 0) < 0)
			return -1;
	return 0;
}

const char *proto_workload_enum_name(const struct proto_workload *w, const char *opt)
{
	const struct proto_opt *o = opt_find(opt);

	if (!o || o->type != OPT_ENUM)
		return "?";
	return o->choices[*(const unsigned *)((const char *)w + o->off)];
}

/* ---- message field tables ---- */

enum fkind { F_U64, F_STR, F_WORKLOAD };

struct field {
	const char *key;
	enum fkind kind;
	size_t off;      /* into the union member */
	uint64_t max;    /* F_U64: upper bound; F_STR: buffer size */
};

struct msg_desc {
	enum proto_type type;
	const char *name;
	const struct field *fields;
};

#define U64(s, m, k, mx) { k, F_U64, offsetof(struct s, m), mx }
#define STR(s, m, k)     { k, F_STR, offsetof(struct s, m), sizeof(((struct s *)0)->m) }

static const struct field hello_fields[] = {
	U64(proto_hello, proto, "proto", 1000),
	STR(proto_hello, release, "release"),
	STR(proto_hello, arch, "arch"),
	U64(proto_hello, page_size, "page_size", 1 << 20),
	U64(proto_hello, mem_total_kib, "mem_total_kib", UINT64_C(1) << 40),
	STR(proto_hello, lru_gen_caps, "lru_gen_caps"),
	U64(proto_hello, cachestat, "cachestat", 1),
	{ NULL, 0, 0, 0 },
};

static const struct field job_fields[] = {
	U64(proto_job, run, "run", UINT64_C(1) << 53),
	STR(proto_job, lru_gen, "lru_gen"),
	{ "workload", F_WORKLOAD, offsetof(struct proto_job, wl), 0 },
	{ NULL, 0, 0, 0 },
};

static const struct field setup_fields[] = {
	STR(proto_setup, lru_gen, "lru_gen"),
	U64(proto_setup, file_pages, "file_pages", UINT64_C(1) << 40),
	STR(proto_setup, residency, "residency"),
	{ NULL, 0, 0, 0 },
};

static const struct field sample_fields[] = {
#define X(m, key, mx) U64(proto_sample, m, key, mx),
	PROTO_SAMPLE_FIELDS(X)
#undef X
	{ NULL, 0, 0, 0 },
};

static const struct field summary_fields[] = {
	U64(proto_summary, ops, "ops", UINT64_C(1) << 50),
	U64(proto_summary, duration_ms, "duration_ms", UINT64_C(1) << 40),
	U64(proto_summary, samples, "samples", UINT64_C(1) << 32),
	{ NULL, 0, 0, 0 },
};

static const struct field error_fields[] = {
	{ "msg", F_STR, 0, PROTO_ERR_MAX },
	{ NULL, 0, 0, 0 },
};

static const struct msg_desc msgs[] = {
	{ PROTO_HELLO,   "hello",   hello_fields },
	{ PROTO_JOB,     "job",     job_fields },
	{ PROTO_SETUP,   "setup",   setup_fields },
	{ PROTO_SAMPLE,  "sample",  sample_fields },
	{ PROTO_SUMMARY, "summary", summary_fields },
	{ PROTO_ERROR,   "error",   error_fields },
};

static const struct msg_desc *desc_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		if (!strcmp(msgs[i].name, name))
			return &msgs[i];
	return NULL;
}

static const struct msg_desc *desc_by_type(enum proto_type t)
{
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		if (msgs[i].type == t)
			return &msgs[i];
	return NULL;
}

static int str_ok(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

int proto_workload_set_json(struct proto_workload *w, const char *key, json_t *v,
			    char *err, size_t errlen)
{
	char num[64];

	if (json_is_string(v))
		return proto_workload_set(w, key, json_string_value(v), err, errlen);
	if (json_is_number(v)) {
		snprintf(num, sizeof(num), "%.17g", json_number_value(v));
		return proto_workload_set(w, key, num, err, errlen);
	}
	return errf(err, errlen, "workload option '%s' must be a string or number", key);
}

/* Every option present, each set through the option table's own checks. */
static int workload_from_json(json_t *obj, struct proto_workload *w, char *err, size_t errlen)
{
	const struct proto_opt *o;
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return errf(err, errlen, "'workload' must be an object");
	memset(w, 0, sizeof(*w));
	json_object_foreach(obj, key, v) {
		if (proto_workload_set_json(w, key, v, err, errlen) < 0)
			return -1;
	}
	for (o = proto_workload_opts; o->name; o++)
		if (!json_object_get(obj, o->name))
			return errf(err, errlen, "workload option '%s' missing", o->name);
	return 0;
}

static json_t *workload_to_json(const struct proto_workload *w)
{
	const struct proto_opt *o;
	json_t *obj = json_object();
	const char *p;

	if (!obj)
		return NULL;
	for (o = proto_workload_opts; o->name; o++) {
		p = (const char *)w + o->off;
		switch (o->type) {
		case OPT_ENUM:
			json_object_set_new(obj, o->name, json_string(o->choices[*(const unsigned *)p]));
			break;
		case OPT_UINT:
			json_object_set_new(obj, o->name, json_integer((json_int_t)*(const uint64_t *)p));
			break;
		case OPT_DOUBLE:
			json_object_set_new(obj, o->name, json_real(*(const double *)p));
			break;
		}
	}
	return obj;
}

static int field_from_json(const struct field *f, json_t *v, char *base, char *err, size_t errlen)
{
	json_int_t i;
	const char *s;

	switch (f->kind) {
	case F_U64:
		if (!json_is_integer(v))
			return errf(err, errlen, "field '%s' must be an integer", f->key);
		i = json_integer_value(v);
		if (i < 0 || (uint64_t)i > f->max)
			return errf(err, errlen, "field '%s' out of range: %lld", f->key, (long long)i);
		*(uint64_t *)(base + f->off) = (uint64_t)i;
		return 0;
	case F_STR:
		if (!json_is_string(v))
			return errf(err, errlen, "field '%s' must be a string", f->key);
		s = json_string_value(v);
		if (json_string_length(v) >= f->max || strlen(s) != json_string_length(v))
			return errf(err, errlen, "field '%s' too long or has NUL", f->key);
		if (!str_ok(s))
			return errf(err, errlen, "field '%s' has non-printable characters", f->key);
		memcpy(base + f->off, s, strlen(s) + 1);
		return 0;
	case F_WORKLOAD:
		return workload_from_json(v, (struct proto_workload *)(base + f->off), err, errlen);
	}
	return errf(err, errlen, "field '%s' has no kind", f->key);
}

int proto_parse(const char *line, size_t len, struct proto_msg *out, char *err, size_t errlen)
{
	const struct msg_desc *d;
	const struct field *f;
	json_error_t jerr;
	json_t *root, *t, *v;
	size_t nfields = 0;
	int ret = -1;

	if (len >= PROTO_LINE_MAX)
		return errf(err, errlen, "line of %zu bytes exceeds %d", len, PROTO_LINE_MAX);
	root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return errf(err, errlen, "not JSON: %s", jerr.text);
	if (!json_is_object(root)) {
		errf(err, errlen, "not a JSON object");
		goto out;
	}
	t = json_object_get(root, "type");
	if (!json_is_string(t) || !(d = desc_by_name(json_string_value(t)))) {
		errf(err, errlen, "missing or unknown message type");
		goto out;
	}
	memset(out, 0, sizeof(*out));
	out->type = d->type;
	for (f = d->fields; f->key; f++, nfields++) {
		v = json_object_get(root, f->key);
		if (!v) {
			errf(err, errlen, "%s: field '%s' missing", d->name, f->key);
			goto out;
		}
		if (field_from_json(f, v, (char *)&out->u, err, errlen) < 0)
			goto out;
	}
	if (json_object_size(root) != nfields + 1) {
		errf(err, errlen, "%s: unexpected fields", d->name);
		goto out;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

int proto_format(const struct proto_msg *m, char *buf, size_t buflen)
{
	const struct msg_desc *d = desc_by_type(m->type);
	const struct field *f;
	const char *base = (const char *)&m->u;
	json_t *root, *v;
	size_t n;
	int ret = -1;

	if (!d || !(root = json_object()))
		return -1;
	json_object_set_new(root, "type", json_string(d->name));
	for (f = d->fields; f->key; f++) {
		switch (f->kind) {
		case F_U64:
			v = json_integer((json_int_t)*(const uint64_t *)(base + f->off));
			break;
		case F_STR:
			v = json_string(base + f->off);
			break;
		default:
			v = workload_to_json((const struct proto_workload *)(base + f->off));
			break;
		}
		if (!v)
			goto out;
		json_object_set_new(root, f->key, v);
	}
	n = json_dumpb(root, buf, buflen, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (n == 0 || n + 1 >= buflen || n + 1 >= PROTO_LINE_MAX)
		goto out;
	buf[n] = '\n';
	buf[n + 1] = '\0';
	ret = (int)n + 1;
out:
	json_decref(root);
	return ret;
}
