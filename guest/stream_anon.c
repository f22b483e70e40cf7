/* stream_anon.c -- anonymous memory in the workload's memcg (usemem-like): mapped
 * private or as a memfd, filled once by content, then touched (a load or a store) by
 * threads, uniform, zipf or sequential, each touch timed and a slow one a miss. */
#define _GNU_SOURCE             /* memfd_create */
#include "stream.h"
#include "zipf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLD
#define MADV_COLD 20            /* Linux 5.4 */
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1u
#endif

#define CALIBRATE_TOUCHES 2000
#define CALIBRATE_PAGES   256
#define STOP_EVERY        64    /* touches between stop checks when nothing sleeps */

/* What the toucher threads share; read-only once they run, but for quit and advised. */
struct anon {
	struct stream_ctx *c;
	volatile unsigned char *map;
	size_t bytes, page;
	uint64_t pages;
	int memfd;                   /* backing shmem, else -1 */
	struct zipf zipf;            /* distribution zipf, else zeroed */
	uint64_t miss_ns;
	double period_ns;            /* between one thread's touches; 0: flat out */
	uint64_t t_start, end_ns;
	uint64_t advise_ns;          /* when madvise cold or pageout is due; 0: none */
	_Atomic int advised;
	_Atomic int quit;
};

static int should_stop(struct anon *a)
{
	return atomic_load_explicit(&a->quit, memory_order_relaxed) || stream_should_stop(a->c);
}

/* Thread idx's k-th page: uniform, zipf (scrambled over the pages) or in turn. */
static uint64_t pick_page(const struct anon *a, struct rng *rng, unsigned idx, uint64_t k)
{
	switch (a->c->st->dist) {
	case DIST_ZIPF:
		return zipf_scramble(zipf_next(&a->zipf, rng), a->pages);
	case DIST_SEQUENTIAL:
		return (k * a->c->st->threads + idx) % a->pages;
	default:
		return rng_below(rng, a->pages);
	}
}

/* One touch of page p: a load, or a store that dirties it. */
static void touch(const struct anon *a, uint64_t p)
{
	volatile unsigned char *b = a->map + p * a->page;

	if (a->c->st->access == ACC_WRITE)
		*b = (unsigned char)(*b + 1);
	else
		(void)*b;
}

/* The mapping's advice now (cold or pageout), once, by whichever thread finds it due. */
static void advise_late(struct anon *a)
{
	int expect = 0;
	int adv = a->c->st->madv == MADV_AS_COLD ? MADV_COLD : MADV_PAGEOUT;

	if (!atomic_compare_exchange_strong(&a->advised, &expect, 1))
		return;
	if (madvise((void *)a->map, a->bytes, adv) < 0) {
		stream_fail(a->c, "stream '%s': madvise %s: %s", a->c->st->name,
			    adv == MADV_COLD ? "cold" : "pageout", strerror(errno));
		atomic_store(&a->quit, 1);
		return;
	}
	stream_event(a->c, EV_MADVISE, 0, a->bytes);
}

/* One touch counted in the thread's counters, a miss when slower than the threshold. */
static void count_touch(struct stream_thread *th, uint64_t lat_ns, uint64_t miss_ns,
			size_t page)
{
	atomic_fetch_add_explicit(&th->ops, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&th->bytes, page, memory_order_relaxed);
	atomic_fetch_add_explicit(&th->hist[lat_bucket(lat_ns)], 1, memory_order_relaxed);
	if (lat_ns > miss_ns)
		atomic_fetch_add_explicit(&th->misses, 1, memory_order_relaxed);
}

/*
 * A toucher thread: pages picked and touched at the stream's rate on an
 * absolute schedule, the threads a fraction of a period apart, until the end.
 */
static void anon_thread(void *arg, unsigned idx)
{
	struct anon *a = arg;
	struct stream_ctx *c = a->c;
	struct stream_thread *th = &c->sh->th[idx];
	double phase = (double)idx / (double)c->st->threads;
	uint64_t k, due, t0, page;
	struct rng rng;

	rng_seed(&rng, c->job->run, (uint64_t)c->index << 16 | idx);
	for (k = 0;; k++) {
		if (a->period_ns > 0) {
			due = a->t_start + (uint64_t)(((double)k + phase) * a->period_ns);
			if (stream_now_ns() < due) {
				stream_sleep_until(c, due < a->end_ns ? due : a->end_ns);
				if (should_stop(a))
					break;
			}
		}
		if (k % STOP_EVERY == 0) {
			if (should_stop(a))
				break;
			if (a->advise_ns && stream_now_ns() >= a->advise_ns)
				advise_late(a);
		}
		page = pick_page(a, &rng, idx, k);
		t0 = stream_now_ns();
		touch(a, page);
		count_touch(th, stream_now_ns() - t0, a->miss_ns, a->page);
	}
}

/* The memory: a private anonymous mapping, or a memfd's pages mapped shared. */
static int map_memory(struct anon *a)
{
	struct stream_ctx *c = a->c;
	int shm = c->st->backing == BACK_SHMEM, flags = shm ? MAP_SHARED : MAP_PRIVATE;
	void *m;

	if (shm) {
		a->memfd = memfd_create(c->st->name, MFD_CLOEXEC);
		if (a->memfd < 0 || ftruncate(a->memfd, (off_t)a->bytes) < 0)
			return stream_fail(c, "stream '%s': memfd of %zu bytes: %s", c->st->name,
					   a->bytes, strerror(errno));
	} else {
		flags |= MAP_ANONYMOUS;
	}
	m = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, flags, a->memfd, 0);
	if (m == MAP_FAILED)
		return stream_fail(c, "stream '%s': mmap of %zu bytes: %s", c->st->name, a->bytes,
				   strerror(errno));
	a->map = m;
	return 0;
}

/* Advice that shapes the fill (random, sequential, huge pages or not); nothing for normal. */
static int advise_early(struct anon *a)
{
	static const int adv[] = {
		[MADV_AS_RANDOM] = MADV_RANDOM, [MADV_AS_SEQUENTIAL] = MADV_SEQUENTIAL,
		[MADV_AS_HUGEPAGE] = MADV_HUGEPAGE, [MADV_AS_NOHUGEPAGE] = MADV_NOHUGEPAGE,
	};
	unsigned m = a->c->st->madv;

	if (m == MADV_AS_NORMAL || m == MADV_AS_COLD || m == MADV_AS_PAGEOUT)
		return 0;
	if (m >= sizeof(adv) / sizeof(adv[0]))
		return stream_fail(a->c, "stream '%s': unknown madvise %u", a->c->st->name, m);
	if (madvise((void *)a->map, a->bytes, adv[m]) < 0)
		return stream_fail(a->c, "stream '%s': madvise: %s", a->c->st->name,
				   strerror(errno));
	return 0;
}

/*
 * Every page written once with its content: zero (one store of 0: a real,
 * zero-filled page), random, or compressible (the first 1/ratio of the page
 * random, the rest zero), so a compressing swap sees what the matrix says.
 */
static void fill(struct anon *a)
{
	const struct proto_stream *st = a->c->st;
	size_t words = a->page / 8, n, i;
	uint64_t p, v;
	struct rng rng;

	n = st->fill == FILL_RANDOM ? words : st->fill == FILL_ZERO ? 0 :
	    (size_t)((double)words / (st->ratio >= 1 ? st->ratio : 1));
	if (st->fill == FILL_COMPRESSIBLE && n < 1)
		n = 1;
	rng_seed(&rng, a->c->job->run, UINT64_C(0xf111) << 16 | a->c->index);
	for (p = 0; p < a->pages; p++) {
		volatile unsigned char *b = a->map + p * a->page;

		if (!n)
			*b = 0;
		for (i = 0; i < n; i++) {
			v = rng_next(&rng);
			memcpy((unsigned char *)b + i * 8, &v, 8);
		}
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/*
 * The miss threshold: miss_us as given, or miss_factor x the median touch
 * of CALIBRATE_PAGES pages just made resident (touched once, then at random).
 */
static int miss_threshold(struct anon *a)
{
	struct stream_ctx *c = a->c;
	uint64_t *lat, pages[CALIBRATE_PAGES], t0;
	unsigned i;
	struct rng rng;

	if (c->st->miss_us > 0) {
		a->miss_ns = (uint64_t)(c->st->miss_us * 1000.0);
		atomic_store(&c->sh->miss_ns, a->miss_ns);
		return 0;
	}
	if (!(lat = malloc(CALIBRATE_TOUCHES * sizeof(*lat))))
		return stream_fail(c, "stream '%s': calibrating: out of memory", c->st->name);
	rng_seed(&rng, c->job->run, UINT64_C(0xca11b) << 16 | c->index);
	for (i = 0; i < CALIBRATE_PAGES; i++) {
		pages[i] = rng_below(&rng, a->pages);
		(void)a->map[pages[i] * a->page];
	}
	for (i = 0; i < CALIBRATE_TOUCHES; i++) {
		t0 = stream_now_ns();
		(void)a->map[pages[rng_below(&rng, CALIBRATE_PAGES)] * a->page];
		lat[i] = stream_now_ns() - t0;
	}
	qsort(lat, CALIBRATE_TOUCHES, sizeof(*lat), cmp_u64);
	a->miss_ns = (uint64_t)(c->st->miss_factor * (double)lat[CALIBRATE_TOUCHES / 2]);
	free(lat);
	if (a->miss_ns < 1)
		a->miss_ns = 1;
	atomic_store(&c->sh->miss_ns, a->miss_ns);
	stream_event(c, EV_CALIBRATED, 0, a->miss_ns);
	return 0;
}

/*
 * Everything before the touches: the threads checked, the memory mapped,
 * advised and filled, the miss threshold, the zipf table, the rate.
 */
static int setup(struct anon *a)
{
	struct stream_ctx *c = a->c;
	const struct proto_stream *st = c->st;
	long page = sysconf(_SC_PAGESIZE);

	if (st->threads < 1 || st->threads > c->sh->nthreads || st->threads > STREAM_MAX_THREADS)
		return stream_fail(c, "stream '%s': %llu threads, counters for %u", st->name,
				   (unsigned long long)st->threads, c->sh->nthreads);
	a->page = page > 0 ? (size_t)page : 4096;
	a->bytes = (size_t)st->mib << 20;
	a->pages = a->bytes / a->page;
	if (!a->pages)
		return stream_fail(c, "stream '%s': %llu MiB is less than a page", st->name,
				   (unsigned long long)st->mib);
	if (map_memory(a) < 0 || advise_early(a) < 0)
		return -1;
	fill(a);
	if (miss_threshold(a) < 0)
		return -1;
	if (st->dist == DIST_ZIPF && zipf_init(&a->zipf, a->pages, st->theta) < 0)
		return stream_fail(c, "stream '%s': zipf(%g) over %llu pages: %s", st->name,
				   st->theta, (unsigned long long)a->pages, strerror(errno));
	a->period_ns = st->rate > 0 ? 1e9 * (double)st->threads / st->rate : 0;
	a->end_ns = stream_end_ns(c);
	return 0;
}

/* The touches: their clock and late advice set, the threads run to the end. */
static int run_threads(struct anon *a)
{
	struct stream_ctx *c = a->c;

	a->t_start = stream_now_ns();
	if (c->st->madv == MADV_AS_COLD || c->st->madv == MADV_AS_PAGEOUT)
		a->advise_ns = a->t_start + (uint64_t)(c->st->madvise_at_s * 1e9) + 1;
	return stream_threads(c, (unsigned)c->st->threads, anon_thread, a, &a->quit);
}

int stream_anon_run(struct stream_ctx *c)
{
	struct anon a = { .c = c, .memfd = -1 };
	int ret = -1, running = ST_RUNNING;

	stream_sleep_until(c, stream_start_ns(c));
	if (stream_should_stop(c)) {
		atomic_store(&c->sh->state, ST_DONE);
		return 0;
	}
	if (setup(&a) < 0)
		goto out;
	atomic_store(&c->sh->state, ST_RUNNING);
	ret = run_threads(&a);
	if (!ret)
		atomic_compare_exchange_strong(&c->sh->state, &running, ST_DONE);
out:
	zipf_release(&a.zipf);
	if (a.map)
		munmap((void *)a.map, a.bytes);
	if (a.memfd >= 0)
		close(a.memfd);
	return ret;
}
