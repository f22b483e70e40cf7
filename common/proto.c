/* proto.c -- encode and strictly decode channel messages (the wire codec).
 * Each message type is a table of fields; one parser serves all. */
#include "common/proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const proto_trace_kind_names[] = {
#define X(e, s) s,
	PROTO_TRACE_KINDS(X)
#undef X
	NULL
};

const char *const proto_place_names[] = {
#define X(e, s) s,
	PROTO_PLACES(X)
#undef X
	NULL
};

const char *const proto_event_names[] = {
#define X(e, s) s,
	PROTO_EVENT_KINDS(X)
#undef X
	NULL
};

const char *const proto_counter_src_names[] = {
#define X(e, s, keys) s,
	PROTO_COUNTER_SRCS(X)
#undef X
	NULL
};

const unsigned proto_counter_src_keys[] = {
#define X(e, s, keys) keys,
	PROTO_COUNTER_SRCS(X)
#undef X
};

const char *const proto_op_names[] = {
#define X(e, s) s,
	PROTO_OP_NAMES(X)
#undef X
	NULL
};

/* ---- message field tables ---- */

enum fkind { F_U64, F_STR, F_U64S, F_JOB, F_KV };

struct field {
	const char *key;
	enum fkind kind;
	size_t off;      /* into the union member */
	uint64_t max;    /* F_U64, F_U64S: upper bound; F_STR: buffer size */
	size_t cap;      /* F_U64S: most values (<= PROTO_MAX_FILES) */
};

struct msg_desc {
	enum proto_type type;
	const char *name;
	const struct field *fields;
	/* what the fields must say together, after each was parsed; NULL: nothing */
	int (*check)(const void *msg, char *err, size_t errlen);
};

#define U64(s, m, k, mx) { k, F_U64, offsetof(struct s, m), mx, 0 }
#define STR(s, m, k)     { k, F_STR, offsetof(struct s, m), sizeof(((struct s *)0)->m), 0 }
#define U64A(s, m, k, mx, n) { k, F_U64S, offsetof(struct s, m), mx, n }
#define U64S(s, m, k, mx) U64A(s, m, k, mx, PROTO_MAX_FILES)
#define END              { NULL, 0, 0, 0, 0 }

static const struct field hello_fields[] = {
	U64(proto_hello, proto, "proto", 1000),
	STR(proto_hello, release, "release"),
	STR(proto_hello, arch, "arch"),
	U64(proto_hello, page_size, "page_size", 1 << 20),
	U64(proto_hello, mem_total_kib, "mem_total_kib", UINT64_C(1) << 40),
	STR(proto_hello, lru_gen_caps, "lru_gen_caps"),
	U64(proto_hello, cachestat, "cachestat", 1),
	U64(proto_hello, dontcache, "dontcache", 1),
	STR(proto_hello, fio, "fio"),
	U64(proto_hello, up_init_ms, "up_init_ms", UINT64_C(1) << 40),
	U64(proto_hello, up_ready_ms, "up_ready_ms", UINT64_C(1) << 40),
	U64(proto_hello, up_hello_ms, "up_hello_ms", UINT64_C(1) << 40),
	END,
};

static const struct field job_fields[] = {
	U64(proto_job, run, "run", UINT64_C(1) << 53),
	STR(proto_job, lru_gen, "lru_gen"),
	STR(proto_job, thp_enabled, "thp_enabled"),
	STR(proto_job, thp_defrag, "thp_defrag"),
	STR(proto_job, mthp, "mthp"),
	STR(proto_job, seed, "seed"),
	U64(proto_job, host_ms, "host_ms", UINT64_C(1) << 53),
	{ "workload", F_JOB, 0, 0, 0 },
	END,
};

static const struct field setup_fields[] = {
	STR(proto_setup, lru_gen, "lru_gen"),
	STR(proto_setup, thp_enabled, "thp_enabled"),
	STR(proto_setup, thp_defrag, "thp_defrag"),
	STR(proto_setup, residency, "residency"),
	U64S(proto_setup, file_pages, "file_pages", UINT64_C(1) << 40),
	U64S(proto_setup, file_ino, "file_ino", UINT64_C(1) << 62),
	STR(proto_setup, trace, "trace"),
	U64(proto_setup, clock_behind_ms, "clock_behind_ms", UINT64_C(1) << 53),
	U64(proto_setup, clock_ahead_ms, "clock_ahead_ms", UINT64_C(1) << 53),
	STR(proto_setup, rng, "rng"),
	STR(proto_setup, swap, "swap"),
	U64(proto_setup, swappiness, "swappiness", 200),
	STR(proto_setup, stalls, "stalls"),
	STR(proto_setup, mthp, "mthp"),
	END,
};

static const struct field sample_fields[] = {
#define X(m, key, mx) U64(proto_sample, m, key, mx),
	PROTO_SAMPLE_FIELDS(X)
#undef X
	U64S(proto_sample, resident, "resident", UINT64_C(1) << 40),
	END,
};

static const struct field stream_fields[] = {
#define X(m, key, mx) U64(proto_stream_sample, m, key, mx),
	PROTO_STREAM_FIELDS(X)
#undef X
	END,
};

static const struct field op_fields[] = {
#define X(m, key, mx) U64(proto_op_sample, m, key, mx),
	PROTO_OP_FIELDS(X)
#undef X
	STR(proto_op_sample, op, "op"),
	END,
};

static const struct field event_fields[] = {
	U64(proto_event, t_ms, "t_ms", UINT64_C(1) << 40),
	U64(proto_event, stream, "stream", PROTO_MAX_STREAMS - 1),
	STR(proto_event, kind, "kind"),
	U64(proto_event, pass, "pass", UINT64_C(1) << 32),
	U64(proto_event, value, "value", UINT64_C(1) << 48),
	U64S(proto_event, resident, "resident", UINT64_C(1) << 40),
	END,
};

static const struct field summary_fields[] = {
	U64(proto_summary, duration_ms, "duration_ms", UINT64_C(1) << 40),
	U64(proto_summary, samples, "samples", UINT64_C(1) << 32),
	U64A(proto_summary, mthp_kib, "mthp_kib", MTHP_KIB_MAX, MTHP_MAX),
	U64A(proto_summary, mthp_anon_fault_alloc, "mthp_anon_fault_alloc", UINT64_C(1) << 48,
	     MTHP_MAX),
	U64A(proto_summary, mthp_swpout, "mthp_swpout", UINT64_C(1) << 48, MTHP_MAX),
	END,
};

/*
 * A summary's multi-size THP counters: as many of each as sizes, the sizes
 * powers of two from 4 KiB, strictly ascending.
 */
static int summary_check(const void *msg, char *err, size_t errlen)
{
	const struct proto_summary *s = msg;
	uint64_t n = s->mthp_kib.n, i, kib;

	if (s->mthp_anon_fault_alloc.n != n || s->mthp_swpout.n != n)
		return errorfn(err, errlen, "summary: %llu and %llu mthp counters for %llu sizes",
			       (unsigned long long)s->mthp_anon_fault_alloc.n,
			       (unsigned long long)s->mthp_swpout.n, (unsigned long long)n);
	for (i = 0; i < n; i++) {
		kib = s->mthp_kib.v[i];
		if (kib < 4 || (kib & (kib - 1)) || (i && kib <= s->mthp_kib.v[i - 1]))
			return errorfn(err, errlen, "summary: mthp size %llu KiB is not a power of "
				       "two above the one before", (unsigned long long)kib);
	}
	return 0;
}

static const struct field error_fields[] = {
	{ "msg", F_STR, 0, PROTO_ERR_MAX, 0 },
	END,
};

static const struct field lru_fields[] = {
#define X(m, key, mx) U64(proto_lru, m, key, mx),
	PROTO_LRU_HEAD_FIELDS(X)
#undef X
#define X(m, key, mx) U64A(proto_lru, m, key, mx, LRUGEN_MAX_GENS),
	PROTO_LRU_GEN_FIELDS(X)
#undef X
#define X(m, key, mx) U64A(proto_lru, m, key, mx, PROTO_LRU_TIER_MAX),
	PROTO_LRU_TIER_FIELDS(X)
#undef X
	END,
};

/* The tier counters of generation g, type t (0 anon, 1 file), tier k. */
static int lru_tier_ok(const struct proto_lru *l, unsigned g, unsigned t, unsigned k)
{
	const struct proto_u64s *c[2][3] = {
		{ &l->anon_refaulted, &l->anon_evicted, &l->anon_protected },
		{ &l->file_refaulted, &l->file_evicted, &l->file_protected },
	};
	size_t i = g * LRUGEN_TIERS + k;
	int rep = (int)(l->rep.v[g] >> t) & 1;

	if (!rep && (c[t][0]->v[i] || c[t][1]->v[i] || c[t][2]->v[i]))
		return 0;
	return k > 0 || !c[t][2]->v[i];
}

/*
 * A node's generations: every per-generation array as long as gen (1 to
 * LRUGEN_MAX_GENS), seqs strictly increasing; the tier arrays all empty, or
 * all ngens x LRUGEN_TIERS (then at most LRUGEN_FULL_GENS generations), with
 * counters only where rep says the kernel printed them, none protected at tier 0.
 */
static int lru_check(const void *msg, char *err, size_t errlen)
{
	const struct proto_lru *l = msg;
	uint64_t n = l->gen.n, ntiers = l->anon_refaulted.n, g, t, k;

	if (n == 0)
		return errorfn(err, errlen, "lru: no generations");
#define X(m, key, mx) \
	if (l->m.n != n) \
		return errorfn(err, errlen, "lru: %llu values of '" key "' for %llu generations", \
				  (unsigned long long)l->m.n, (unsigned long long)n);
	PROTO_LRU_GEN_FIELDS(X)
#undef X
	if (ntiers && (n > LRUGEN_FULL_GENS || ntiers != n * LRUGEN_TIERS))
		return errorfn(err, errlen, "lru: %llu tier values for %llu generations",
				  (unsigned long long)ntiers, (unsigned long long)n);
#define X(m, key, mx) \
	if (l->m.n != ntiers) \
		return errorfn(err, errlen, "lru: '" key "' has %llu values, not %llu", \
				  (unsigned long long)l->m.n, (unsigned long long)ntiers);
	PROTO_LRU_TIER_FIELDS(X)
#undef X
	for (g = 1; g < n; g++)
		if (l->gen.v[g] <= l->gen.v[g - 1])
			return errorfn(err, errlen, "lru: generation %llu after %llu",
					  (unsigned long long)l->gen.v[g],
					  (unsigned long long)l->gen.v[g - 1]);
	for (g = 0; ntiers && g < n; g++)
		for (t = 0; t < LRUGEN_NTYPES; t++)
			for (k = 0; k < LRUGEN_TIERS; k++)
				if (!lru_tier_ok(l, (unsigned)g, (unsigned)t, (unsigned)k))
					return errorfn(err, errlen, "lru: generation %llu "
							  "tier %llu: counters the kernel "
							  "does not print",
							  (unsigned long long)l->gen.v[g],
							  (unsigned long long)k);
	return 0;
}

static const struct field trace_fields[] = {
#define X(m, key, mx) U64(proto_trace, m, key, mx),
	PROTO_TRACE_HEAD_FIELDS(X)
#undef X
#define X(m, key, mx) U64A(proto_trace, m, key, mx, PROTO_TRACE_MAX),
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
	END,
};

/*
 * Sampled folios' events: every array as long as kind; times in order; an
 * add's place from the table, with MGLRU's min_seq <= gen <= max_seq, every
 * other event without a place or generation.
 */
static int trace_msg_check(const void *msg, char *err, size_t errlen)
{
	const struct proto_trace *t = msg;
	uint64_t n = t->kind.n, i;

#define X(m, key, mx) \
	if (t->m.n != n) \
		return errorfn(err, errlen, "trace: %llu values of '" key "' for %llu events", \
				  (unsigned long long)t->m.n, (unsigned long long)n);
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
	for (i = 0; i < n; i++) {
		uint64_t pl = t->place.v[i], g = t->gen.v[i];
		int mglru = pl == PL_OLDEST || pl == PL_SECOND || pl == PL_YOUNGER;

		if (i && t->t_ms.v[i] < t->t_ms.v[i - 1])
			return errorfn(err, errlen, "trace: event %llu goes back in time",
					  (unsigned long long)i);
		if ((t->kind.v[i] == TR_ADD) != (pl != PL_NONE))
			return errorfn(err, errlen, "trace: event %llu: a place only on an add",
					  (unsigned long long)i);
		if (mglru ? t->min_seq.v[i] > g || g > t->max_seq.v[i] ||
			    (pl == PL_OLDEST) != (g == t->min_seq.v[i]) ||
			    (pl == PL_SECOND) != (g == t->min_seq.v[i] + 1)
			  : g || t->min_seq.v[i] || t->max_seq.v[i])
			return errorfn(err, errlen, "trace: event %llu: generation %llu is not "
					  "its place in %llu..%llu", (unsigned long long)i,
					  (unsigned long long)g, (unsigned long long)t->min_seq.v[i],
					  (unsigned long long)t->max_seq.v[i]);
	}
	return 0;
}

static const struct field counters_fields[] = {
	U64(proto_counters, seq, "seq", UINT64_C(1) << 32),
	U64(proto_counters, at, "at", CA_END),
	STR(proto_counters, src, "src"),
	{ "values", F_KV, offsetof(struct proto_counters, values), 0, PROTO_COUNTERS_MAX },
	END,
};

int proto_counter_key_ok(const char *key)
{
	size_t n = strlen(key);

	return n > 0 && n < PROTO_COUNTER_KEY_MAX &&
	       strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/*
 * A source's counters: the source from the list; the values at the start
 * (interval 0) or the end, none negative.
 */
static int counters_check(const void *msg, char *err, size_t errlen)
{
	const struct proto_counters *c = msg;
	uint64_t i;
	int k;

	for (k = 0; proto_counter_src_names[k] && strcmp(proto_counter_src_names[k], c->src); k++)
		;
	if (!proto_counter_src_names[k])
		return errorfn(err, errlen, "counters: unknown source '%s'", c->src);
	if (c->at == CA_START && c->seq)
		return errorfn(err, errlen, "counters: the start's values at interval %llu, not 0",
			       (unsigned long long)c->seq);
	for (i = 0; c->at != CA_CHANGE && i < c->values.n; i++)
		if (c->values.value[i] < 0)
			return errorfn(err, errlen, "counters: '%s' is negative, not a change",
				       c->values.key[i]);
	return 0;
}

static const struct msg_desc msgs[] = {
	{ PROTO_HELLO,   "hello",   hello_fields, NULL },
	{ PROTO_JOB,     "job",     job_fields, NULL },
	{ PROTO_SETUP,   "setup",   setup_fields, NULL },
	{ PROTO_SAMPLE,  "sample",  sample_fields, NULL },
	{ PROTO_STREAM,  "stream",  stream_fields, NULL },
	{ PROTO_EVENT,   "event",   event_fields, NULL },
	{ PROTO_SUMMARY, "summary", summary_fields, summary_check },
	{ PROTO_ERROR,   "error",   error_fields, NULL },
	{ PROTO_OP,      "op",      op_fields, NULL },
	{ PROTO_LRU,     "lru",     lru_fields, lru_check },
	{ PROTO_TRACE,   "trace",   trace_fields, trace_msg_check },
	{ PROTO_COUNTERS, "counters", counters_fields, counters_check },
};

/* The message description whose type is name on the wire, or NULL. */
static const struct msg_desc *desc_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		if (!strcmp(msgs[i].name, name))
			return &msgs[i];
	return NULL;
}

/* The message description of type t, or NULL. */
static const struct msg_desc *desc_by_type(enum proto_type t)
{
	size_t i;

	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		if (msgs[i].type == t)
			return &msgs[i];
	return NULL;
}

/*
 * A wire field's value: a whole number from 0 to max into *dst; -1 with err
 * naming the key.
 */
static int u64_from_json(const char *key, json_t *v, uint64_t max, uint64_t *dst,
			 char *err, size_t errlen)
{
	json_int_t i;

	if (!json_is_integer(v))
		return errorfn(err, errlen, "field '%s' must be an integer", key);
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i > max)
		return errorfn(err, errlen, "field '%s' out of range: %lld", key, (long long)i);
	*dst = (uint64_t)i;
	return 0;
}

/*
 * The workload of a job message; the job's own fields, which the message may
 * give before it (run, lru_gen, thp_*, mthp, seed, host_ms), are kept.
 */
static int job_field_from_json(json_t *v, struct proto_job *job, char *err, size_t errlen)
{
	uint64_t run = job->run, host_ms = job->host_ms;
	char lru[sizeof(job->lru_gen)], seed[sizeof(job->seed)];
	char thp_e[sizeof(job->thp_enabled)], thp_d[sizeof(job->thp_defrag)];
	char mthp[sizeof(job->mthp)];

	memcpy(lru, job->lru_gen, sizeof(lru));
	memcpy(thp_e, job->thp_enabled, sizeof(thp_e));
	memcpy(thp_d, job->thp_defrag, sizeof(thp_d));
	memcpy(mthp, job->mthp, sizeof(mthp));
	memcpy(seed, job->seed, sizeof(seed));
	if (proto_job_from_json(v, job, "job", err, errlen) < 0)
		return -1;
	job->run = run;
	job->host_ms = host_ms;
	memcpy(job->lru_gen, lru, sizeof(lru));
	memcpy(job->thp_enabled, thp_e, sizeof(thp_e));
	memcpy(job->thp_defrag, thp_d, sizeof(thp_d));
	memcpy(job->mthp, mthp, sizeof(mthp));
	memcpy(job->seed, seed, sizeof(seed));
	return 0;
}

/*
 * Named counters: an object of at most cap keys (proto_counter_key_ok),
 * each a whole number below PROTO_COUNTER_ABS_MAX either way.
 */
static int kv_from_json(const struct field *f, json_t *v, struct proto_kv *kv, char *err,
			size_t errlen)
{
	const char *key;
	json_t *val;
	json_int_t i;

	if (!json_is_object(v) || json_object_size(v) > f->cap)
		return errorfn(err, errlen, "field '%s' must be an object of at most %zu", f->key,
			       f->cap);
	kv->n = 0;
	json_object_foreach(v, key, val) {
		if (!proto_counter_key_ok(key))
			return errorfn(err, errlen, "field '%s': a key of other than [a-z0-9_] "
				       "or over %d bytes", f->key, PROTO_COUNTER_KEY_MAX - 1);
		if (!json_is_integer(val) || (i = json_integer_value(val)) <= -PROTO_COUNTER_ABS_MAX ||
		    i >= PROTO_COUNTER_ABS_MAX)
			return errorfn(err, errlen, "field '%s': '%s' must be an integer below 2^62 "
				       "either way", f->key, key);
		memcpy(kv->key[kv->n], key, strlen(key) + 1);
		kv->value[kv->n++] = (int64_t)i;
	}
	return 0;
}

/*
 * One wire field into the message at base by its kind: a number, an array
 * of at most cap numbers, a printable string shorter than max, or the job.
 */
static int field_from_json(const struct field *f, json_t *v, char *base, char *err,
			   size_t errlen)
{
	struct proto_u64s *arr;
	const char *s;
	size_t i;

	switch (f->kind) {
	case F_U64:
		return u64_from_json(f->key, v, f->max, (uint64_t *)(base + f->off), err, errlen);
	case F_U64S:
		arr = (struct proto_u64s *)(base + f->off);
		if (!json_is_array(v) || json_array_size(v) > f->cap)
			return errorfn(err, errlen, "field '%s' must be an array of at most %zu",
				    f->key, f->cap);
		arr->n = json_array_size(v);
		for (i = 0; i < arr->n; i++)
			if (u64_from_json(f->key, json_array_get(v, i), f->max, &arr->v[i],
					  err, errlen) < 0)
				return -1;
		return 0;
	case F_STR:
		if (!json_is_string(v))
			return errorfn(err, errlen, "field '%s' must be a string", f->key);
		s = json_string_value(v);
		if (json_string_length(v) >= f->max || strlen(s) != json_string_length(v))
			return errorfn(err, errlen, "field '%s' too long or has NUL", f->key);
		if (!proto_text_ok(s))
			return errorfn(err, errlen, "field '%s' has non-printable characters", f->key);
		memcpy(base + f->off, s, strlen(s) + 1);
		return 0;
	case F_JOB:
		return job_field_from_json(v, (struct proto_job *)base, err, errlen);
	case F_KV:
		return kv_from_json(f, v, (struct proto_kv *)(base + f->off), err, errlen);
	}
	return errorfn(err, errlen, "field '%s' has no kind", f->key);
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
		return errorfn(err, errlen, "line of %zu bytes exceeds %d", len, PROTO_LINE_MAX);
	root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return errorfn(err, errlen, "not JSON: %s", jerr.text);
	if (!json_is_object(root)) {
		errorfn(err, errlen, "not a JSON object");
		goto out;
	}
	t = json_object_get(root, "type");
	if (!json_is_string(t) || !(d = desc_by_name(json_string_value(t)))) {
		errorfn(err, errlen, "missing or unknown message type");
		goto out;
	}
	memset(out, 0, sizeof(*out));
	out->type = d->type;
	for (f = d->fields; f->key; f++, nfields++) {
		v = json_object_get(root, f->key);
		if (!v) {
			errorfn(err, errlen, "%s: field '%s' missing", d->name, f->key);
			goto out;
		}
		if (field_from_json(f, v, (char *)&out->u, err, errlen) < 0)
			goto out;
	}
	if (json_object_size(root) != nfields + 1) {
		errorfn(err, errlen, "%s: unexpected fields", d->name);
		goto out;
	}
	if (d->check && d->check(&out->u, err, errlen) < 0)
		goto out;
	ret = 0;
out:
	json_decref(root);
	return ret;
}

/* Named counters as a JSON object, in their order (at most cap of them). */
static json_t *kv_to_json(const struct proto_kv *kv, size_t cap)
{
	json_t *o = json_object();
	uint64_t i;

	for (i = 0; o && i < kv->n && i < cap; i++)
		if (json_object_set_new(o, kv->key[i], json_integer((json_int_t)kv->value[i])) < 0) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* One field of the message at base as JSON, as field_from_json reads it. */
static json_t *field_to_json(const struct field *f, const char *base)
{
	const struct proto_u64s *arr;
	json_t *a;
	uint64_t i;

	switch (f->kind) {
	case F_U64:
		return json_integer((json_int_t)*(const uint64_t *)(base + f->off));
	case F_STR:
		return json_string(base + f->off);
	case F_U64S:
		arr = (const struct proto_u64s *)(base + f->off);
		a = json_array();
		for (i = 0; a && i < arr->n && i < f->cap; i++)
			json_array_append_new(a, json_integer((json_int_t)arr->v[i]));
		return a;
	case F_JOB:
		return proto_job_to_json((const struct proto_job *)base);
	case F_KV:
		return kv_to_json((const struct proto_kv *)(base + f->off), f->cap);
	}
	return NULL;
}

int proto_format(const struct proto_msg *m, char *buf, size_t buflen)
{
	const struct msg_desc *d = desc_by_type(m->type);
	const struct field *f;
	json_t *root, *v;
	size_t n;
	int ret = -1;

	if (!d || !(root = json_object()))
		return -1;
	json_object_set_new(root, "type", json_string(d->name));
	for (f = d->fields; f->key; f++) {
		v = field_to_json(f, (const char *)&m->u);
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

void proto_hex(const void *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* A lowercase hex digit's value, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int proto_unhex(const char *s, void *p, size_t n)
{
	unsigned char *b = p;
	size_t i;
	int hi, lo;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		hi = hex_digit(s[2 * i]);
		lo = hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}
