/* fiostat.c -- an incremental reader of fio's concatenated json+ status
 * documents, keeping cumulative totals and handing out per-interval deltas. */
#include "fiostat.h"
#include "common/fmt.h"
#include "common/proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define PLAT_BITS 6
#define PLAT_VAL  (1u << PLAT_BITS)

enum { ST_BETWEEN, ST_DOC, ST_TEXT };

static const char *const dir_key[2] = { "read", "write" };


void fiostat_init(struct fiostat *s, int64_t epoch_ms)
{
	memset(s, 0, sizeof(*s));
	s->state = ST_BETWEEN;
	s->epoch_ms = epoch_ms;
	s->told_ms = INT64_MIN;
}

static int64_t clamp_ms(int64_t t)
{
	return t > FIOSTAT_T_MAX ? FIOSTAT_T_MAX : t < -FIOSTAT_T_MAX ? -FIOSTAT_T_MAX : t;
}

void fiostat_start(struct fiostat *s, int64_t t_ms)
{
	if (s->started)
		return;
	s->started = true;
	s->start_ms = s->last_ms = clamp_ms(t_ms);
}

void fiostat_end(struct fiostat *s)
{
	s->ended = true;
}

void fiostat_release(struct fiostat *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

/* fio's plat_val_to_idx (stat.c): 64 exact buckets, then 64 per power of two. */
unsigned fiostat_bin_index(uint64_t ns)
{
	unsigned msb = ns ? 63 - (unsigned)__builtin_clzll(ns) : 0, error_bits;
	uint64_t idx;

	if (msb <= PLAT_BITS)
		return (unsigned)ns;
	error_bits = msb - PLAT_BITS;
	idx = ((uint64_t)(error_bits + 1) << PLAT_BITS) + ((PLAT_VAL - 1) & (ns >> error_bits));
	return idx < FIOSTAT_BINS - 1 ? (unsigned)idx : FIOSTAT_BINS - 1;
}

/* fio's plat_idx_to_val: the middle of the bucket, the key json+ prints. */
uint64_t fiostat_bin_value(unsigned idx)
{
	unsigned error_bits;
	uint64_t base;

	if (idx >= FIOSTAT_BINS)
		idx = FIOSTAT_BINS - 1;
	if (idx < (PLAT_VAL << 1))
		return idx;
	error_bits = (idx >> PLAT_BITS) - 1;
	base = UINT64_C(1) << (error_bits + PLAT_BITS);
	return base + (uint64_t)((idx % PLAT_VAL + 0.5) * (double)(UINT64_C(1) << error_bits));
}

uint64_t fiostat_percentile(const double bins[FIOSTAT_BINS], unsigned permille)
{
	double total = 0, sum = 0;

	for (unsigned i = 0; i < FIOSTAT_BINS; i++)
		total += bins[i];
	if (!(total > 0))
		return 0;
	for (unsigned i = 0; i < FIOSTAT_BINS; i++) {
		sum += bins[i];
		if (bins[i] > 0 && sum * 1000 >= total * permille)
			return fiostat_bin_value(i);
	}
	return 0;
}

/* A required (or, if OPTIONAL, absent-means-0) non-negative integer member. */
static int get_count(json_t *obj, const char *key, bool optional, uint64_t *ret,
		     const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(obj, key);

	if (!v && optional) {
		*ret = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return errorfn(err, errlen, "fio output: %s.%s: a non-negative integer is expected",
			    where, key);
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

static int add(uint64_t *sum, uint64_t v, const char *what, char *err, size_t errlen)
{
	if (__builtin_add_overflow(*sum, v, sum))
		return errorfn(err, errlen, "fio output: %s overflows 64 bits", what);
	return 0;
}

/* clat_ns.bins: {"<ns>": count, ...}, optional (fio prints none during ramp_time). */
static int add_bins(struct fiostat_dir *d, json_t *ddir, const char *where,
		    char *err, size_t errlen)
{
	json_t *clat = json_object_get(ddir, "clat_ns"), *bins, *v;
	const char *key;

	if (!clat)
		return 0;
	if (!json_is_object(clat))
		return errorfn(err, errlen, "fio output: %s.clat_ns: an object is expected", where);
	bins = json_object_get(clat, "bins");
	if (!bins)
		return 0;
	if (!json_is_object(bins))
		return errorfn(err, errlen, "fio output: %s.clat_ns.bins: an object is expected", where);
	json_object_foreach(bins, key, v) {
		char *end;
		unsigned long long ns;
		uint64_t n;

		if (key[0] < '0' || key[0] > '9' || strlen(key) > 20)
			return errorfn(err, errlen, "fio output: %s.clat_ns.bins: key '%.32s' is not "
				    "a latency in ns", where, key);
		ns = strtoull(key, &end, 10);
		if (*end)
			return errorfn(err, errlen, "fio output: %s.clat_ns.bins: key '%.32s' is not "
				    "a latency in ns", where, key);
		if (get_count(bins, key, false, &n, "clat_ns.bins", err, errlen) < 0 ||
		    add(&d->bins[fiostat_bin_index(ns)], n, "clat_ns.bins", err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* Add one job's "read" or "write" object to D; its "runtime" (ms doing that I/O) to *io_ms. */
static int add_dir(struct fiostat_dir *d, uint64_t *io_ms, json_t *job, int dir, char *err,
		   size_t errlen)
{
	json_t *ddir = json_object_get(job, dir_key[dir]);
	char where[32];
	uint64_t ios, bytes, ms;

	fmtcut(where, sizeof(where), "jobs[].%s", dir_key[dir]);
	if (!json_is_object(ddir))
		return errorfn(err, errlen, "fio output: %s: an object is expected", where);
	if (get_count(ddir, "total_ios", false, &ios, where, err, errlen) < 0 ||
	    get_count(ddir, "io_bytes", false, &bytes, where, err, errlen) < 0 ||
	    get_count(ddir, "runtime", true, &ms, where, err, errlen) < 0 ||
	    add(&d->ios, ios, "total_ios", err, errlen) < 0 ||
	    add(&d->bytes, bytes, "io_bytes", err, errlen) < 0)
		return -1;
	if (ms > *io_ms)
		*io_ms = ms;
	return add_bins(d, ddir, where, err, errlen);
}

/* Sum the document's jobs into s->doc. */
static int sum_doc(struct fiostat *s, json_t *root, char *err, size_t errlen)
{
	json_t *jobs = json_object_get(root, "jobs"), *job;
	uint64_t ms;
	size_t i;

	if (!json_is_object(root))
		return errorfn(err, errlen, "fio output: a JSON object is expected");
	if (!json_is_array(jobs))
		return errorfn(err, errlen, "fio output: \"jobs\": an array is expected");
	if (get_count(root, "timestamp_ms", false, &ms, "document", err, errlen) < 0)
		return -1;
	if (ms > INT64_MAX)
		return errorfn(err, errlen, "fio output: document.timestamp_ms out of range");
	if (__builtin_sub_overflow((int64_t)ms, s->epoch_ms, &s->doc_ms))
		s->doc_ms = FIOSTAT_T_MAX;
	s->doc_ms = clamp_ms(s->doc_ms);
	memset(s->doc, 0, sizeof(s->doc));
	s->doc_io_ms = 0;
	json_array_foreach(jobs, i, job) {
		if (!json_is_object(job))
			return errorfn(err, errlen, "fio output: jobs[%zu]: an object is expected", i);
		for (int d = 0; d < 2; d++)
			if (add_dir(&s->doc[d], &s->doc_io_ms, job, d, err, errlen) < 0)
				return -1;
	}
	return 0;
}

/*
 * 1 if a direction's counters are lower than in the document before (fio's
 * counts only grow: such a document is not trusted).
 */
static bool went_back(const struct fiostat_dir *now, const struct fiostat_dir *before)
{
	if (now->ios < before->ios || now->bytes < before->bytes)
		return true;
	for (unsigned i = 0; i < FIOSTAT_BINS; i++)
		if (now->bins[i] < before->bins[i])
			return true;
	return false;
}

/* Room for one more span: when all are taken, the two oldest become one. */
static struct fiostat_seg *new_seg(struct fiostat *s)
{
	struct fiostat_seg *a = &s->seg[0], *b = &s->seg[1];

	if (s->nseg == FIOSTAT_SEGS) {
		a->t1_ms = b->t1_ms;
		memcpy(a->v1, b->v1, sizeof(a->v1));
		a->docs += b->docs;
		for (unsigned i = 0; i < FIOSTAT_BINS; i++)
			a->bins[i] += b->bins[i];
		memmove(b, b + 1, (FIOSTAT_SEGS - 2) * sizeof(*b));
		s->nseg--;
	}
	return &s->seg[s->nseg++];
}

/*
 * Make s->doc the latest totals, as a span from the document before (or
 * fio's start). fio resets a job's counters when its ramp_time ends, so a
 * counter can go backwards: then the new cumulative value is what the span
 * did (what fio discarded at the reset is lost, nothing else), and the
 * summed counters never go back. A span whose counts started from zero
 * (fio's first, one after a reset) starts when the jobs' I/O did, as fio's
 * "runtime" says, if that is later: fio setting up did no I/O.
 */
static void commit_doc(struct fiostat *s)
{
	static const struct fiostat_dir zero;
	struct fiostat_seg *g;
	uint64_t d[FS_NVAL];
	bool fresh = s->docs == 0;
	int64_t io_ms;

	if (!s->started)
		fiostat_start(s, s->doc_ms);
	g = new_seg(s);
	g->t0_ms = s->last_ms;
	g->t1_ms = s->doc_ms > s->last_ms ? s->doc_ms : s->last_ms;
	if (g->t1_ms <= s->told_ms)   /* what was told stays told: this comes after */
		g->t1_ms = s->told_ms + 1;
	g->docs = 1;
	memset(g->bins, 0, sizeof(g->bins));
	memcpy(g->v0, s->v, sizeof(s->v));
	for (int k = 0; k < 2; k++) {
		const struct fiostat_dir *now = &s->doc[k], *base = &s->last[k];

		if (went_back(now, base)) {
			s->resets++;
			base = &zero;
			fresh = true;
		}
		d[FS_RIOS + k] = now->ios - base->ios;
		d[FS_RBYTES + k] = now->bytes - base->bytes;
		for (unsigned i = 0; i < FIOSTAT_BINS; i++)
			g->bins[i] += now->bins[i] - base->bins[i];
		s->last[k] = *now;
	}
	for (int k = 0; k < FS_NVAL; k++)
		s->v[k] += d[k];
	memcpy(g->v1, s->v, sizeof(s->v));
	io_ms = s->doc_io_ms < (uint64_t)FIOSTAT_T_MAX ? (int64_t)s->doc_io_ms : FIOSTAT_T_MAX;
	if (fresh && io_ms && g->t1_ms - io_ms > g->t0_ms)
		g->t0_ms = g->t1_ms - io_ms;
	s->last_ms = g->t1_ms;
	s->docs++;
}

/* The buffered document parsed and summed; committed only when whole. */
static int parse_doc(struct fiostat *s, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loadb(s->buf, s->len, 0, &jerr);
	int r;

	if (!root)
		return errorfn(err, errlen, "fio output: invalid JSON at line %d column %d: %s",
			    jerr.line, jerr.column, jerr.text);
	r = sum_doc(s, root, err, errlen);
	json_decref(root);
	if (r == 0)
		commit_doc(s);
	return r;
}

/* One byte onto the document being read (the buffer doubling from 64 KiB). */
static int append(struct fiostat *s, char c)
{
	if (s->len == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64 * 1024;
		char *p = realloc(s->buf, cap);

		if (!p)
			return -1;
		s->buf = p;
		s->cap = cap;
	}
	s->buf[s->len++] = c;
	return 0;
}

/* Track strings and nesting; true when C closes the document. */
static bool scan(struct fiostat *s, char c)
{
	if (s->in_str) {
		if (s->esc)
			s->esc = false;
		else if (c == '\\')
			s->esc = true;
		else if (c == '"')
			s->in_str = false;
		return false;
	}
	if (c == '"')
		s->in_str = true;
	else if (c == '{' || c == '[')
		s->depth++;
	else if (c == '}' || c == ']')
		return --s->depth == 0;
	return false;
}

/* One byte inside a document; -1 with a message if the document is refused. */
static int doc_byte(struct fiostat *s, char c, char *err, size_t errlen)
{
	bool done;

	if (!s->oversize && s->len == FIOSTAT_DOC_MAX) {
		s->oversize = true;   /* the rest is scanned to its end, not kept */
		s->len = 0;
		if (scan(s, c))
			s->state = ST_BETWEEN;
		return errorfn(err, errlen, "fio output: document larger than %u bytes refused",
			    FIOSTAT_DOC_MAX);
	}
	if (!s->oversize && append(s, c) < 0)
		return errorfn(err, errlen, "fio output: out of memory");
	done = scan(s, c);
	if (!done)
		return 0;
	s->state = ST_BETWEEN;
	if (s->oversize)
		return 0;
	return parse_doc(s, err, errlen);
}

/* One byte between documents or in a skipped text line. */
static void other_byte(struct fiostat *s, char c)
{
	size_t n;

	if (s->state == ST_TEXT) {
		n = strlen(s->last_text);
		if (c == '\n')
			s->state = ST_BETWEEN;
		else if (n + 1 < FIOSTAT_TEXT_MAX && c >= 0x20 && c < 0x7f)
			s->last_text[n] = c, s->last_text[n + 1] = '\0';
		return;
	}
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		return;
	s->state = ST_TEXT;
	s->text_lines++;
	s->last_text[0] = '\0';
	other_byte(s, c);
}

int fiostat_feed(struct fiostat *s, const char *buf, size_t len, char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (s->state == ST_BETWEEN && c == '{') {
			s->state = ST_DOC;
			s->len = 0;
			s->depth = 0;
			s->in_str = s->esc = s->oversize = false;
		}
		if (s->state != ST_DOC) {
			other_byte(s, c);
			continue;
		}
		/* keep the first problem; later documents still count */
		if (doc_byte(s, c, ret ? NULL : err, errlen) < 0)
			ret = -1;
	}
	return ret;
}

int fiostat_finish(const struct fiostat *s, char *err, size_t errlen)
{
	if (s->state == ST_DOC)
		return errorfn(err, errlen, "fio output: truncated document (%zu bytes)", s->len);
	return 0;
}

/* The summed counters at time t: exact at a document, linear between two. */
static void value_at(const struct fiostat *s, int64_t t, uint64_t out[FS_NVAL])
{
	const struct fiostat_seg *g;

	memcpy(out, s->v, sizeof(s->v));
	for (unsigned i = 0; i < s->nseg && t < s->last_ms; i++) {
		g = &s->seg[i];
		if (t >= g->t1_ms)
			continue;
		if (t <= g->t0_ms) {
			memcpy(out, g->v0, sizeof(g->v0));
			return;
		}
		for (int k = 0; k < FS_NVAL; k++)
			out[k] = g->v0[k] + (uint64_t)((unsigned __int128)(g->v1[k] - g->v0[k]) *
				 (uint64_t)(t - g->t0_ms) / (uint64_t)(g->t1_ms - g->t0_ms));
		return;
	}
}

/* How much of span g lies in (t0, t1]: a share of its length, or all of an instant. */
static double overlap(const struct fiostat_seg *g, int64_t t0, int64_t t1)
{
	int64_t a = g->t0_ms > t0 ? g->t0_ms : t0, b = g->t1_ms < t1 ? g->t1_ms : t1;

	if (g->t1_ms == g->t0_ms)
		return g->t0_ms > t0 && g->t0_ms <= t1;
	return b > a ? (double)(b - a) / (double)(g->t1_ms - g->t0_ms) : 0;
}

/* Latency of the spans in (t0, t1], each weighted by its share; documents dated there. */
static void slice_latency(struct fiostat *s, int64_t t0, int64_t t1, struct fio_interval *out)
{
	double w;

	memset(s->work, 0, sizeof(s->work));
	for (unsigned i = 0; i < s->nseg; i++) {
		const struct fiostat_seg *g = &s->seg[i];

		if (g->t1_ms > t0 && g->t1_ms <= t1)
			out->docs += g->docs;
		if (!((w = overlap(g, t0, t1)) > 0))
			continue;
		for (unsigned k = 0; k < FIOSTAT_BINS; k++)
			s->work[k] += w * (double)g->bins[k];
	}
	for (unsigned k = 0; k < FIOSTAT_BINS; k++)
		if (s->work[k] > 0)
			out->lat_max_ns = fiostat_bin_value(k);
	out->lat_p50_ns = fiostat_percentile(s->work, 500);
	out->lat_p99_ns = fiostat_percentile(s->work, 990);
}

/* Spans that end by t are done with: later slices start there. */
static void forget(struct fiostat *s, int64_t t)
{
	unsigned n = 0;

	while (n < s->nseg && s->seg[n].t1_ms <= t)
		n++;
	memmove(s->seg, s->seg + n, (s->nseg - n) * sizeof(s->seg[0]));
	s->nseg -= n;
}

int fiostat_slice(struct fiostat *s, int64_t t0_ms, int64_t t1_ms, struct fio_interval *out)
{
	uint64_t a[FS_NVAL], b[FS_NVAL];

	memset(out, 0, sizeof(*out));
	if (!s->ended && !(s->started && (t1_ms <= s->start_ms || s->last_ms >= t1_ms)))
		return 0;
	if (!s->started || t1_ms <= t0_ms)
		return 1;
	value_at(s, t0_ms, a);
	value_at(s, t1_ms, b);
	out->read_ios = b[FS_RIOS] - a[FS_RIOS];
	out->write_ios = b[FS_WIOS] - a[FS_WIOS];
	out->read_bytes = b[FS_RBYTES] - a[FS_RBYTES];
	out->write_bytes = b[FS_WBYTES] - a[FS_WBYTES];
	out->running = t1_ms > s->start_ms && !(s->ended && t0_ms >= s->last_ms);
	slice_latency(s, t0_ms, t1_ms, out);
	forget(s, t1_ms);
	s->told_ms = t1_ms > s->told_ms ? clamp_ms(t1_ms) : s->told_ms;
	return 1;
}

uint64_t fiostat_total_ios(const struct fiostat *s)
{
	return s->last[0].ios + s->last[1].ios;
}
