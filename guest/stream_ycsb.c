/* stream_ycsb.c -- YCSB's core workload against LevelDB (its C API): client
 * threads choose operations and keys as YCSB does and time each operation. */
#include "stream.h"
#include "ycsb.h"
#include "common/fmt.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <leveldb/c.h>

/* One declared database, opened once for every stream of the process that uses it. */
struct ydb {
	int refs;
	leveldb_t *db;
	leveldb_options_t *opt;
	leveldb_cache_t *cache;
	leveldb_readoptions_t *ropt;
	leveldb_writeoptions_t *wopt;
	struct ycsb_keyseq *seq;        /* shared by every stream on it, as in one YCSB client */
};

static struct ydb ydbs[PROTO_MAX_DBS];
static pthread_mutex_t ydbs_lock = PTHREAD_MUTEX_INITIALIZER;

/* What one stream's threads share. */
struct ys {
	struct stream_ctx *c;
	const struct proto_db *d;
	struct ydb *db;
	struct ycsb_mix mix;
	size_t rec_bytes;
	double period_ns;               /* between one thread's ops; 0: flat out */
	uint64_t t_start, end_ns;
	_Atomic uint64_t issued;        /* operations started, for operationcount */
	_Atomic int quit;               /* a thread could not start: the others end */
};

struct ys_thread {
	struct ys *y;
	unsigned idx;
	pthread_t tid;
	struct ycsb_gen gen;
	char *rec;                      /* rec_bytes */
};

/* A database's LevelDB handle and options closed, its state cleared. */
static void ydb_close(struct ydb *y)
{
	if (y->db)
		leveldb_close(y->db);
	if (y->opt)
		leveldb_options_destroy(y->opt);
	if (y->cache)
		leveldb_cache_destroy(y->cache);
	if (y->ropt)
		leveldb_readoptions_destroy(y->ropt);
	if (y->wopt)
		leveldb_writeoptions_destroy(y->wopt);
	free(y->seq);
	memset(y, 0, sizeof(*y));
}

/* Open database i (data_dir/<name>) unless a stream already did. */
static int ydb_open(struct stream_ctx *c, unsigned i, struct ydb **ret)
{
	const struct proto_db *d = &c->job->dbs[i];
	struct ydb *y = &ydbs[i];
	char path[PATH_MAX], *err = NULL;
	int rc = 0;

	fmtcut(path, sizeof(path), "%s/%s", c->data_dir, d->name);
	pthread_mutex_lock(&ydbs_lock);
	if (!y->refs) {
		y->opt = leveldb_options_create();
		y->cache = leveldb_cache_create_lru((size_t)c->st->cache_mib << 20);
		y->ropt = leveldb_readoptions_create();
		y->wopt = leveldb_writeoptions_create();
		y->seq = malloc(sizeof(*y->seq));
		if (y->seq)
			ycsb_keyseq_init(y->seq, d->recordcount);
		leveldb_options_set_cache(y->opt, y->cache);
		leveldb_options_set_compression(y->opt, leveldb_no_compression);
		y->db = y->seq ? leveldb_open(y->opt, path, &err) : NULL;
		if (!y->db) {
			rc = stream_fail(c, "stream '%s': database '%s' (%s): %s", c->st->name, d->name,
					 path, err ? err : "out of memory");
			leveldb_free(err);
			ydb_close(y);
		}
	}
	if (!rc) {
		y->refs++;
		*ret = y;
	}
	pthread_mutex_unlock(&ydbs_lock);
	return rc;
}

/* One stream's hold on its database let go; the last one closes it. */
static void ydb_release(struct ydb *y)
{
	pthread_mutex_lock(&ydbs_lock);
	if (--y->refs == 0)
		ydb_close(y);
	pthread_mutex_unlock(&ydbs_lock);
}

/* ---- the operations: 0, ENOENT (no such record), EIO (LevelDB's error) ---- */

static int db_get(struct ys_thread *t, const char *key, size_t klen)
{
	struct ydb *db = t->y->db;
	char *err = NULL, *v;
	size_t vlen;
	int rc = 0;

	v = leveldb_get(db->db, db->ropt, key, klen, &vlen, &err);
	if (err)
		rc = EIO;
	else if (!v)
		rc = ENOENT;
	else if (vlen > t->y->rec_bytes || ycsb_record_fields(v, vlen) < 0)
		rc = EIO;       /* not a record this loader wrote */
	else
		memcpy(t->rec, v, vlen);
	leveldb_free(err);
	leveldb_free(v);
	return rc;
}

/* The thread's record written under key; 0 or EIO. */
static int db_put(struct ys_thread *t, const char *key, size_t klen)
{
	struct ydb *db = t->y->db;
	char *err = NULL;

	leveldb_put(db->db, db->wopt, key, klen, t->rec, t->y->rec_bytes, &err);
	if (!err)
		return 0;
	leveldb_free(err);
	return EIO;
}

/* YCSB's update as its RocksDB binding does it: read the record, replace fields, write. */
static int op_update(struct ys_thread *t, const char *key, size_t klen)
{
	const struct proto_db *d = t->y->d;
	int rc = db_get(t, key, klen);

	if (rc)
		return rc;
	if (t->y->c->st->writeallfields)
		ycsb_record(&t->gen.rng, (unsigned)d->fieldcount, (unsigned)d->fieldlength, t->rec);
	else if (ycsb_record_set(&t->gen.rng, t->rec, t->y->rec_bytes,
				 (unsigned)rng_below(&t->gen.rng, d->fieldcount),
				 (unsigned)d->fieldlength) < 0)
		return EIO;
	return db_put(t, key, klen);
}

/* YCSB's insert: the next key of the sequence, a new record written under it. */
static int op_insert(struct ys_thread *t)
{
	const struct proto_db *d = t->y->d;
	uint64_t k = ycsb_keyseq_take(t->y->db->seq);
	char key[YCSB_KEY_MAX];
	size_t klen = ycsb_key(k, d->insertorder == YORDER_ORDERED, key, sizeof(key));
	int rc;

	ycsb_record(&t->gen.rng, (unsigned)d->fieldcount, (unsigned)d->fieldlength, t->rec);
	rc = db_put(t, key, klen);
	if (!rc && ycsb_keyseq_ack(t->y->db->seq, k) < 0)
		rc = EAGAIN;    /* acknowledged too far ahead: YCSB gives up on it too */
	return rc;
}

/* Records from key on, at most len of them: an iterator, as YCSB's bindings scan. */
static int op_scan(struct ys_thread *t, const char *key, size_t klen, uint64_t len,
		   uint64_t *records)
{
	leveldb_iterator_t *it = leveldb_create_iterator(t->y->db->db, t->y->db->ropt);
	char *err = NULL;
	size_t vlen;
	uint64_t n = 0;
	int rc = 0;

	for (leveldb_iter_seek(it, key, klen); n < len && leveldb_iter_valid(it);
	     leveldb_iter_next(it)) {
		if (ycsb_record_fields(leveldb_iter_value(it, &vlen), vlen) < 0) {
			rc = EIO;
			break;
		}
		n++;
	}
	leveldb_iter_get_error(it, &err);
	if (err) {
		rc = EIO;
		leveldb_free(err);
	}
	leveldb_iter_destroy(it);
	*records = n;
	return rc;
}

/* One operation of kind op; its result and what it returned (records). */
static int do_op(struct ys_thread *t, unsigned op, uint64_t *records)
{
	const struct proto_db *d = t->y->d;
	char key[YCSB_KEY_MAX];
	size_t klen;
	int rc;

	*records = 0;
	if (op == OP_INSERT) {
		rc = op_insert(t);
		*records = !rc;
		return rc;
	}
	klen = ycsb_key(ycsb_next_keynum(&t->gen), d->insertorder == YORDER_ORDERED, key,
			sizeof(key));
	switch (op) {
	case OP_READ:
		rc = db_get(t, key, klen);
		break;
	case OP_SCAN:
		return op_scan(t, key, klen, ycsb_scan_length(&t->gen), records);
	case OP_UPDATE:
	case OP_RMW:    /* the read is the update's own read, as in YCSB's RMW */
		rc = op_update(t, key, klen);
		break;
	default:
		rc = EINVAL;
	}
	*records = !rc;
	return rc;
}

/* Absolute pacing: when behind, no sleep, so the target rate holds on average. */
static int pace(struct ys_thread *t, uint64_t k)
{
	struct ys *y = t->y;
	double phase = (double)t->idx / (double)y->c->st->threadcount;
	uint64_t due;

	if (y->period_ns <= 0)
		return 0;
	due = y->t_start + (uint64_t)(((double)k + phase) * y->period_ns);
	if (stream_now_ns() < due)
		stream_sleep_until(y->c, due < y->end_ns ? due : y->end_ns);
	return 0;
}

/*
 * A YCSB client thread: paced operations picked by the workload's mix, each
 * timed and counted, until the stop, a failure or operationcount.
 */
static void *ys_thread_main(void *arg)
{
	struct ys_thread *t = arg;
	struct ys *y = t->y;
	const struct proto_stream *st = y->c->st;
	uint64_t k, t0, records;
	unsigned op;
	int rc;

	for (k = 0;; k++) {
		pace(t, k);
		if (stream_should_stop(y->c) || atomic_load_explicit(&y->quit, memory_order_relaxed))
			break;
		if (st->operationcount && atomic_fetch_add(&y->issued, 1) >= st->operationcount)
			break;
		op = ycsb_pick_op(&y->mix, &t->gen.rng);
		t0 = stream_now_ns();
		rc = do_op(t, op, &records);
		stream_op_done(y->c, t->idx, op, stream_now_ns() - t0, rc, records);
	}
	return NULL;
}

/*
 * threadcount client threads between the stream's start and end events;
 * one that cannot start ends the rest, and is said.
 */
static int run_threads(struct ys *y)
{
	struct stream_ctx *c = y->c;
	unsigned n = (unsigned)c->st->threadcount, i, started;
	struct ys_thread *t = calloc(n, sizeof(*t));
	int err = 0;

	if (!t)
		return stream_fail(c, "stream '%s': %u threads: out of memory", c->st->name, n);
	for (i = 0; i < n; i++) {
		t[i] = (struct ys_thread){ .y = y, .idx = i, .rec = malloc(y->rec_bytes) };
		ycsb_gen_init(&t[i].gen, &y->mix, y->db->seq, c->job->run,
			      (uint64_t)c->index << 16 | i);
		if (!t[i].rec)
			err = ENOMEM;
	}
	y->t_start = stream_now_ns();
	stream_event(c, EV_START, 0, 0);
	for (started = 0; !err && started < n; started++)
		err = pthread_create(&t[started].tid, NULL, ys_thread_main, &t[started]);
	if (err) {
		atomic_store(&y->quit, 1);        /* the ones started end too */
		started -= started > 0;           /* the one that failed did not start */
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i].tid, NULL);
	stream_event(c, EV_END, 0, 0);
	for (i = 0; i < n; i++)
		free(t[i].rec);
	free(t);
	if (err)
		return stream_fail(c, "stream '%s': starting its threads: %s", c->st->name,
				   strerror(err));
	return 0;
}

int stream_ycsb_run(struct stream_ctx *c)
{
	const struct proto_stream *st = c->st;
	struct ys y = { .c = c };
	int di = proto_job_db(c->job, st), ret, running = ST_RUNNING;

	stream_sleep_until(c, stream_start_ns(c));
	if (stream_should_stop(c)) {
		atomic_store(&c->sh->state, ST_DONE);
		return 0;
	}
	if (di < 0)
		return stream_fail(c, "stream '%s': no database to run on", st->name);
	if (st->threadcount < 1 || st->threadcount > c->sh->nthreads)
		return stream_fail(c, "stream '%s': %llu threads, counters for %u", st->name,
				   (unsigned long long)st->threadcount, c->sh->nthreads);
	y.d = &c->job->dbs[di];
	y.rec_bytes = ycsb_record_bytes((unsigned)y.d->fieldcount, (unsigned)y.d->fieldlength);
	y.period_ns = st->ops_target > 0 ? 1e9 * (double)st->threadcount / st->ops_target : 0;
	y.end_ns = stream_end_ns(c);
	ycsb_mix_init(&y.mix, st, y.d->recordcount);
	if (ydb_open(c, (unsigned)di, &y.db) < 0)
		return -1;
	atomic_store(&c->sh->state, ST_RUNNING);
	ret = run_threads(&y);
	ydb_release(y.db);
	if (!ret)
		atomic_compare_exchange_strong(&c->sh->state, &running, ST_DONE);
	return ret;
}
