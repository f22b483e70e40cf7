/* stream.c -- what every stream kind shares: the latency histogram, events,
 * failure reporting and the stream's clock against the agent's stop flag. */
#include "stream.h"
#include "common/fmt.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

unsigned lat_bucket(uint64_t ns)
{
	unsigned msb, sub;

	if (ns < (1u << LAT_SUB_BITS))
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	sub = (unsigned)(ns >> (msb - LAT_SUB_BITS)) & ((1u << LAT_SUB_BITS) - 1);
	return ((msb - LAT_SUB_BITS + 1) << LAT_SUB_BITS) + sub;
}

uint64_t lat_bucket_floor(unsigned b)
{
	unsigned exp = b >> LAT_SUB_BITS, sub = b & ((1u << LAT_SUB_BITS) - 1);

	if (exp == 0)
		return sub;
	return (uint64_t)((1u << LAT_SUB_BITS) + sub) << (exp - 1);
}

uint64_t lat_percentile(const uint64_t *hist, double p)
{
	uint64_t total = 0, want, seen = 0;
	unsigned b;

	for (b = 0; b < LAT_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return 0;
	want = (uint64_t)((double)total * p / 100.0 + 0.5);
	if (want < 1)
		want = 1;
	for (b = 0; b < LAT_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= want)
			return lat_bucket_floor(b);
	}
	return lat_bucket_floor(LAT_BUCKETS - 1);
}

uint64_t lat_max(const uint64_t *hist)
{
	unsigned b;

	for (b = LAT_BUCKETS; b > 0; b--)
		if (hist[b - 1])
			return lat_bucket_floor(b);
	return 0;
}

uint64_t stream_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t stream_start_ns(const struct stream_ctx *c)
{
	return c->reg->t0_ns + (uint64_t)(c->st->start_s * 1e9);
}

uint64_t stream_end_ns(const struct stream_ctx *c)
{
	if (c->st->duration_s <= 0)
		return UINT64_MAX;
	return c->reg->t0_ns + (uint64_t)((c->st->start_s + c->st->duration_s) * 1e9);
}

double stream_elapsed_s(const struct stream_ctx *c)
{
	return (double)(stream_now_ns() - c->reg->t0_ns) / 1e9;
}

int stream_should_stop(const struct stream_ctx *c)
{
	const struct proto_stream *st = c->st;

	if (atomic_load_explicit(&c->reg->stop, memory_order_acquire))
		return 1;
	return st->duration_s > 0 && stream_elapsed_s(c) >= st->start_s + st->duration_s;
}

/* Sleep in slices of at most 100 ms so a stop is seen promptly. */
void stream_sleep_until(const struct stream_ctx *c, uint64_t t_ns)
{
	struct timespec ts;
	uint64_t now, until;

	while (!atomic_load_explicit(&c->reg->stop, memory_order_acquire)) {
		now = stream_now_ns();
		if (now >= t_ns)
			return;
		until = t_ns - now > 100000000u ? now + 100000000u : t_ns;
		ts.tv_sec = (time_t)(until / 1000000000u);
		ts.tv_nsec = (long)(until % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

void stream_event(struct stream_ctx *c, unsigned kind, unsigned pass, uint64_t value)
{
	struct stream_event ev = {
		.stream = c->index, .kind = kind, .pass = pass, .value = value,
		.t_ns = stream_now_ns(),
	};
	ssize_t n;

	/* smaller than PIPE_BUF: one write is atomic among the stream threads */
	do
		n = write(c->event_fd, &ev, sizeof(ev));
	while (n < 0 && errno == EINTR);
}

int stream_fail(struct stream_ctx *c, const char *fmt, ...)
{
	int expected = ST_RUNNING;
	va_list ap;

	if (atomic_compare_exchange_strong(&c->sh->state, &expected, ST_FAILED) ||
	    (expected = ST_WAITING,
	     atomic_compare_exchange_strong(&c->sh->state, &expected, ST_FAILED))) {
		va_start(ap, fmt);
		vfmtcut(c->sh->err, sizeof(c->sh->err), fmt, ap);
		va_end(ap);
		atomic_store_explicit(&c->sh->err_set, 1, memory_order_release);
	}
	return -1;
}

void stream_op_done(struct stream_ctx *c, unsigned t, unsigned op, uint64_t ns, int err,
		    uint64_t records)
{
	struct stream_opc *o;
	struct stream_thread *th;
	unsigned b = lat_bucket(ns);

	if (t >= c->sh->nthreads || op >= OP_COUNT || !c->sh->opc)
		return;
	o = &c->sh->opc[t * OP_COUNT + op];
	atomic_fetch_add_explicit(&o->ops, 1, memory_order_relaxed);
	if (err)
		atomic_fetch_add_explicit(err == EAGAIN ? &o->eagain : &o->errors, 1,
					  memory_order_relaxed);
	atomic_fetch_add_explicit(&o->records, records, memory_order_relaxed);
	atomic_fetch_add_explicit(&o->sum_ns, ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&o->hist[b], 1, memory_order_relaxed);
	th = &c->sh->th[t];
	atomic_fetch_add_explicit(&th->ops, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&th->hist[b], 1, memory_order_relaxed);
}

/* One of stream_threads()'s threads: its function, its argument, its index. */
struct stream_thr {
	void (*fn)(void *arg, unsigned idx);
	void *arg;
	unsigned idx;
	pthread_t tid;
};

static void *thr_main(void *p)
{
	struct stream_thr *t = p;

	t->fn(t->arg, t->idx);
	return NULL;
}

int stream_threads(struct stream_ctx *c, unsigned n, void (*fn)(void *arg, unsigned idx),
		   void *arg, _Atomic int *quit)
{
	struct stream_thr *t = calloc(n, sizeof(*t));
	unsigned i, started;
	int err = 0;

	if (!t)
		return stream_fail(c, "stream '%s': %u threads: %s", c->st->name, n,
				   strerror(errno));
	stream_event(c, EV_START, 0, 0);
	for (started = 0; started < n; started++) {
		t[started] = (struct stream_thr){ .fn = fn, .arg = arg, .idx = started };
		if ((err = pthread_create(&t[started].tid, NULL, thr_main, &t[started]))) {
			atomic_store(quit, 1);
			break;
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i].tid, NULL);
	stream_event(c, EV_END, 0, 0);
	free(t);
	if (err)
		return stream_fail(c, "stream '%s': pthread_create: %s", c->st->name,
				   strerror(err));
	return atomic_load(quit) ? -1 : 0;
}
