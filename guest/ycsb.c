/* ycsb.c -- YCSB's core workload generators, written from its documented
 * behaviour: key names, records, zipfian/latest/uniform keys, operation choice. */
#include "ycsb.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FNV_OFFSET UINT64_C(0xCBF29CE484222325)
#define FNV_PRIME  UINT64_C(1099511628211)

uint64_t ycsb_fnvhash64(uint64_t v)
{
	uint64_t h = FNV_OFFSET;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= v & 0xff;
		h *= FNV_PRIME;
		v >>= 8;
	}
	/* Java's Math.abs on a long: Long.MIN_VALUE stays itself */
	return (int64_t)h < 0 && h != UINT64_C(1) << 63 ? (uint64_t)(-(int64_t)h) : h;
}

size_t ycsb_key(uint64_t keynum, int ordered, char *buf, size_t len)
{
	int n = snprintf(buf, len, "user%llu",
			 (unsigned long long)(ordered ? keynum : ycsb_fnvhash64(keynum)));

	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* v as 4 bytes, most significant first (a record's field lengths). */
static void put_be32(char *p, uint32_t v)
{
	p[0] = (char)(v >> 24);
	p[1] = (char)(v >> 16);
	p[2] = (char)(v >> 8);
	p[3] = (char)v;
}

static uint32_t get_be32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static unsigned field_name(unsigned f, char *buf)
{
	return (unsigned)snprintf(buf, YCSB_FIELD_MAX, "field%u", f);
}

size_t ycsb_record_bytes(unsigned fieldcount, unsigned fieldlength)
{
	char name[YCSB_FIELD_MAX];
	size_t n = 0;
	unsigned f;

	for (f = 0; f < fieldcount; f++)
		n += 8 + field_name(f, name) + fieldlength;
	return n;
}

/*
 * n printable bytes from r, 5 bits each (12 to a 64-bit draw), as YCSB's
 * RandomByteIterator makes field values.
 */
static void random_bytes(struct rng *r, char *p, unsigned n)
{
	uint64_t x = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (i % 12 == 0)
			x = rng_next(r);
		p[i] = (char)(' ' + (x & 31));
		x >>= 5;
	}
}

size_t ycsb_record(struct rng *r, unsigned fieldcount, unsigned fieldlength, char *buf)
{
	char name[YCSB_FIELD_MAX];
	size_t n = 0;
	unsigned f, k;

	for (f = 0; f < fieldcount; f++) {
		k = field_name(f, name);
		put_be32(buf + n, k);
		memcpy(buf + n + 4, name, k);
		n += 4 + k;
		put_be32(buf + n, fieldlength);
		random_bytes(r, buf + n + 4, fieldlength);
		n += 4 + fieldlength;
	}
	return n;
}

/*
 * The field at off (off <= len): its key's length in *k, its value's in *v.
 * Returns 0, or -1 if it does not fit in the record's len bytes.
 */
static int field_at(const char *rec, size_t len, size_t off, uint32_t *k, uint32_t *v)
{
	if (len - off < 4)
		return -1;
	*k = get_be32(rec + off);
	if (*k > len - off - 4 || len - off - 4 - *k < 4)
		return -1;
	*v = get_be32(rec + off + 4 + *k);
	if (*v > len - off - 8 - *k)
		return -1;
	return 0;
}

/* Offset of field f's value (its length word), or -1. */
static long field_offset(const char *rec, size_t len, unsigned f, uint32_t *vlen)
{
	size_t off = 0;
	uint32_t k, v;
	unsigned i;

	for (i = 0; off < len; i++) {
		if (field_at(rec, len, off, &k, &v) < 0)
			return -1;
		if (i == f) {
			*vlen = v;
			return (long)(off + 4 + k);
		}
		off += 8 + k + v;
	}
	return -1;
}

int ycsb_record_set(struct rng *r, char *rec, size_t len, unsigned f, unsigned fieldlength)
{
	uint32_t vlen;
	long off = field_offset(rec, len, f, &vlen);

	if (off < 0 || vlen != fieldlength)
		return -1;
	random_bytes(r, rec + off + 4, fieldlength);
	return 0;
}

int ycsb_record_fields(const char *rec, size_t len)
{
	size_t off = 0;
	uint32_t k, v;
	int n = 0;

	while (off < len) {
		if (field_at(rec, len, off, &k, &v) < 0)
			return -1;
		off += 8 + k + v;
		n++;
	}
	return n;
}

/* ---- ZipfianGenerator ---- */

double ycsb_zeta(uint64_t from, uint64_t to, double theta, double initial)
{
	double sum = initial;
	uint64_t i;

	for (i = from; i < to; i++)
		sum += 1.0 / pow((double)(i + 1), theta);
	return sum;
}

static double eta_of(const struct ycsb_zipf *z)
{
	return (1.0 - pow(2.0 / (double)z->items, 1.0 - z->theta)) / (1.0 - z->zeta2 / z->zetan);
}

void ycsb_zipf_init(struct ycsb_zipf *z, uint64_t base, uint64_t items, double theta,
		    double zetan)
{
	z->base = base;
	z->items = items;
	z->theta = theta;
	z->zeta2 = ycsb_zeta(0, 2, theta, 0);
	z->alpha = 1.0 / (1.0 - theta);
	z->zetan = zetan > 0 ? zetan : ycsb_zeta(0, items, theta, 0);
	z->countforzeta = items;
	z->eta = eta_of(z);
}

uint64_t ycsb_zipf_next(struct ycsb_zipf *z, struct rng *r, uint64_t itemcount)
{
	double u, uz;

	if (itemcount > z->countforzeta) {
		z->zetan = ycsb_zeta(z->countforzeta, itemcount, z->theta, z->zetan);
		z->countforzeta = itemcount;
		z->eta = eta_of(z);
	}
	u = rng_double(r);
	uz = u * z->zetan;
	if (uz < 1.0)
		return z->base;
	if (uz < 1.0 + pow(0.5, z->theta))
		return z->base + 1;
	return z->base + (uint64_t)((double)itemcount * pow(z->eta * u - z->eta + 1, z->alpha));
}

void ycsb_scrambled_init(struct ycsb_zipf *z)
{
	/* new ZipfianGenerator(0, ITEM_COUNT, 0.99, ZETAN): ITEM_COUNT + 1 items */
	ycsb_zipf_init(z, 0, YCSB_SCRAMBLED_ITEMS + 1, YCSB_ZIPF_CONSTANT, YCSB_SCRAMBLED_ZETAN);
}

uint64_t ycsb_scrambled_next(struct ycsb_zipf *z, struct rng *r, uint64_t min, uint64_t itemcount)
{
	return min + ycsb_fnvhash64(ycsb_zipf_next(z, r, z->items)) % itemcount;
}

/* ---- the insert key sequence ---- */

void ycsb_keyseq_init(struct ycsb_keyseq *k, uint64_t recordcount)
{
	atomic_init(&k->next, recordcount);
	atomic_init(&k->limit, recordcount - 1);
	pthread_mutex_init(&k->lock, NULL);
	memset(k->acked, 0, sizeof(k->acked));
}

uint64_t ycsb_keyseq_take(struct ycsb_keyseq *k)
{
	return atomic_fetch_add(&k->next, 1);
}

int ycsb_keyseq_ack(struct ycsb_keyseq *k, uint64_t keynum)
{
	uint64_t lim;

	pthread_mutex_lock(&k->lock);
	lim = atomic_load(&k->limit);
	if (keynum <= lim || keynum - lim > YCSB_ACK_WINDOW) {
		pthread_mutex_unlock(&k->lock);
		return keynum <= lim ? 0 : -1;
	}
	k->acked[keynum % YCSB_ACK_WINDOW] = 1;
	while (k->acked[(lim + 1) % YCSB_ACK_WINDOW]) {
		k->acked[(lim + 1) % YCSB_ACK_WINDOW] = 0;
		lim++;
	}
	atomic_store(&k->limit, lim);
	pthread_mutex_unlock(&k->lock);
	return 0;
}

uint64_t ycsb_keyseq_last(struct ycsb_keyseq *k)
{
	return atomic_load(&k->limit);
}

/* ---- operation choice ---- */

void ycsb_proportions(const struct proto_stream *st, double *p)
{
	memset(p, 0, OP_COUNT * sizeof(*p));
	p[OP_READ] = st->readproportion;
	p[OP_UPDATE] = st->updateproportion;
	p[OP_INSERT] = st->insertproportion;
	p[OP_SCAN] = st->scanproportion;
	p[OP_RMW] = st->readmodifywriteproportion;
}

void ycsb_mix_init(struct ycsb_mix *m, const struct proto_stream *st, uint64_t recordcount)
{
	double p[OP_COUNT], sum = 0;
	uint64_t expected;
	unsigned op;

	memset(m, 0, sizeof(*m));
	ycsb_proportions(st, p);
	for (op = 0; op < OP_COUNT; op++) {
		sum += p[op];
		m->cum[op] = sum;
	}
	for (op = 0; op < OP_COUNT; op++)
		m->cum[op] = sum > 0 ? m->cum[op] / sum : 0;
	m->dist = st->requestdistribution;
	m->recordcount = recordcount;
	/* CoreWorkload: the zipfian key space counts twice the inserts expected */
	expected = (uint64_t)((double)st->operationcount * st->insertproportion * 2.0);
	m->zipf_items = recordcount + expected + 1;
	m->minscan = st->minscanlength;
	m->maxscan = st->maxscanlength;
	m->scandist = st->scanlengthdistribution;
}

unsigned ycsb_pick_op(const struct ycsb_mix *m, struct rng *r)
{
	double u = rng_double(r);
	unsigned op, last = OP_READ;

	for (op = 0; op < OP_COUNT; op++) {
		if (m->cum[op] <= (op ? m->cum[op - 1] : 0))
			continue;               /* proportion 0: never chosen */
		last = op;
		if (u < m->cum[op])
			return op;
	}
	return last;
}

void ycsb_gen_init(struct ycsb_gen *g, const struct ycsb_mix *m, struct ycsb_keyseq *seq,
		   uint64_t run, uint64_t thread)
{
	memset(g, 0, sizeof(*g));
	g->mix = m;
	g->seq = seq;
	rng_seed(&g->rng, run, thread);
	if (m->dist == YDIST_ZIPFIAN)
		ycsb_scrambled_init(&g->zipf);
	else if (m->dist == YDIST_LATEST)   /* recordcount >= 10: at least 9 items */
		ycsb_zipf_init(&g->zipf, 0, ycsb_keyseq_last(seq), YCSB_ZIPF_CONSTANT, 0);
	if (m->scandist == YDIST_ZIPFIAN && m->maxscan > m->minscan)
		ycsb_zipf_init(&g->scanzipf, m->minscan, m->maxscan - m->minscan + 1,
			       YCSB_ZIPF_CONSTANT, 0);
}

/*
 * The next key number by the request distribution, before the keys not yet
 * inserted are skipped: zipfian (scrambled), latest (the newest hottest),
 * or uniform.
 */
static uint64_t key_candidate(struct ycsb_gen *g)
{
	const struct ycsb_mix *m = g->mix;
	uint64_t max;

	switch (m->dist) {
	case YDIST_ZIPFIAN:
		return ycsb_scrambled_next(&g->zipf, &g->rng, 0, m->zipf_items);
	case YDIST_LATEST:      /* SkewedLatestGenerator: the newest keys are the hottest */
		max = ycsb_keyseq_last(g->seq);
		return max - ycsb_zipf_next(&g->zipf, &g->rng, max);
	default:
		return rng_below(&g->rng, m->recordcount);
	}
}

uint64_t ycsb_next_keynum(struct ycsb_gen *g)
{
	uint64_t k;

	do
		k = key_candidate(g);
	while (k > ycsb_keyseq_last(g->seq));
	return k;
}

uint64_t ycsb_scan_length(struct ycsb_gen *g)
{
	const struct ycsb_mix *m = g->mix;

	if (m->maxscan <= m->minscan)
		return m->minscan;
	if (m->scandist == YDIST_ZIPFIAN) {
		uint64_t n = ycsb_zipf_next(&g->scanzipf, &g->rng, g->scanzipf.items);
		return n < m->maxscan ? n : m->maxscan;
	}
	return m->minscan + rng_below(&g->rng, m->maxscan - m->minscan + 1);
}
