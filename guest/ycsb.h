/* ycsb.h -- YCSB's core workload without a database: its key names, record
 * values, request distributions and operation choice, shared by guest and loader. */
#ifndef YCSB_H
#define YCSB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"
#include "zipf.h"

#define YCSB_ZIPF_CONSTANT 0.99                     /* ZipfianGenerator.ZIPFIAN_CONSTANT */
#define YCSB_SCRAMBLED_ITEMS UINT64_C(10000000000000000) /* ScrambledZipfianGenerator.ITEM_COUNT */
#define YCSB_SCRAMBLED_ZETAN 26.46902820178302       /* its precomputed zeta */
#define YCSB_KEY_MAX   32      /* "user" + up to 19 digits */
#define YCSB_FIELD_MAX 16      /* "field" + digits */

/* YCSB's Utils.fnvhash64: FNV-1a over the 8 bytes of v, low first, made non-negative. */
uint64_t ycsb_fnvhash64(uint64_t v);

/* CoreWorkload.buildKeyName: "user" + the keynum (hashed unless ordered). Returns its length. */
size_t ycsb_key(uint64_t keynum, int ordered, char *buf, size_t len);

/*
 * A record as the LevelDB store keeps it (YCSB's RocksDB binding's layout):
 * per field a 4-byte big-endian name length, the name, a 4-byte big-endian
 * value length, the value. Values are random printable bytes (' ' + 5 bits,
 * like YCSB's RandomByteIterator).
 */
size_t ycsb_record_bytes(unsigned fieldcount, unsigned fieldlength);
/* Fill buf (ycsb_record_bytes() long) with every field; returns its length. */
size_t ycsb_record(struct rng *r, unsigned fieldcount, unsigned fieldlength, char *buf);
/* Replace field f's value in a serialized record; 0, or -1 if the record is malformed. */
int ycsb_record_set(struct rng *r, char *rec, size_t len, unsigned f, unsigned fieldlength);
/* Fields in a serialized record, or -1 if it is malformed. */
int ycsb_record_fields(const char *rec, size_t len);

/*
 * ZipfianGenerator (Gray et al., SIGMOD 1994) over [base, base + items), with
 * zeta extended incrementally when the item count grows (as YCSB does; eta
 * keeps the constructor's item count, as YCSB's does).
 */
struct ycsb_zipf {
	uint64_t base, items, countforzeta;
	double theta, alpha, zetan, eta, zeta2;
};

/* YCSB's ZipfianGenerator: initial + the sum of 1/i^theta for i in (from, to]; a generator of
 * items values from base (zetan: their zeta, 0 to compute it). */
double ycsb_zeta(uint64_t from, uint64_t to, double theta, double initial);
void ycsb_zipf_init(struct ycsb_zipf *z, uint64_t base, uint64_t items, double theta,
		    double zetan);
/* The next value for itemcount items (itemcount may only grow). */
uint64_t ycsb_zipf_next(struct ycsb_zipf *z, struct rng *r, uint64_t itemcount);
/* ScrambledZipfianGenerator over [min, min + itemcount): fnvhash64 of a 10^16-item zipf. */
uint64_t ycsb_scrambled_next(struct ycsb_zipf *z, struct rng *r, uint64_t min,
			     uint64_t itemcount);
void ycsb_scrambled_init(struct ycsb_zipf *z);

/*
 * The transaction insert key sequence (AcknowledgedCounterGenerator): inserts
 * take the next keynum; reads see keys up to the highest one acknowledged
 * with every key below it acknowledged too.
 */
#define YCSB_ACK_WINDOW (1u << 16)
struct ycsb_keyseq {
	_Atomic uint64_t next;          /* the next keynum to insert */
	_Atomic uint64_t limit;         /* lastValue(): highest contiguous acknowledged */
	pthread_mutex_t lock;
	uint8_t acked[YCSB_ACK_WINDOW];
};
/* The insert key sequence after recordcount loaded records; take: the next key to insert. */
void ycsb_keyseq_init(struct ycsb_keyseq *k, uint64_t recordcount);
uint64_t ycsb_keyseq_take(struct ycsb_keyseq *k);
/* 0, or -1 if the key is more than the window ahead of the limit (YCSB fails too). */
int ycsb_keyseq_ack(struct ycsb_keyseq *k, uint64_t keynum);
uint64_t ycsb_keyseq_last(struct ycsb_keyseq *k);

/* What a ycsb stream's threads share: the operation mix and the key chooser's range. */
struct ycsb_mix {
	double cum[OP_COUNT];           /* cumulative proportions, in enum proto_op order */
	unsigned dist;                  /* enum ycsb_dist */
	uint64_t recordcount;
	uint64_t zipf_items;            /* scrambled zipfian: recordcount + expected inserts + 1 */
	uint64_t minscan, maxscan;
	unsigned scandist;              /* enum ycsb_dist: uniform or zipfian */
};

/* The proportions of a stream, in enum proto_op order (reclaim: 0). */
void ycsb_proportions(const struct proto_stream *st, double *p);
/* The mix of a stream over a database of recordcount records. */
void ycsb_mix_init(struct ycsb_mix *m, const struct proto_stream *st, uint64_t recordcount);
/* Pick an operation (DiscreteGenerator): the first whose cumulative share exceeds u. */
unsigned ycsb_pick_op(const struct ycsb_mix *m, struct rng *r);

/* One thread's generators. */
struct ycsb_gen {
	const struct ycsb_mix *mix;
	struct ycsb_keyseq *seq;
	struct ycsb_zipf zipf;          /* requests: scrambled (zipfian) or plain (latest) */
	struct ycsb_zipf scanzipf;      /* scan length, scanlengthdistribution zipfian */
	struct rng rng;
};
/* One thread's operation generator for mix m over seq, its random state seeded from run and thread. */
void ycsb_gen_init(struct ycsb_gen *g, const struct ycsb_mix *m, struct ycsb_keyseq *seq,
		   uint64_t run, uint64_t thread);
/* CoreWorkload.nextKeynum: a key already inserted, by the request distribution. */
uint64_t ycsb_next_keynum(struct ycsb_gen *g);
uint64_t ycsb_scan_length(struct ycsb_gen *g);

#endif
