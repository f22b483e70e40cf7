/* stream_random.c -- the random reader: threads reading 4 KiB pages of one file
 * (uniform or scrambled zipf) by pread() or through a shared mapping, flat out or
 * at a fixed rate, timing every read and counting the slow ones as misses. */
#include "stream.h"
#include "zipf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE            4096
#define CALIBRATE_READS 2000
#define CALIBRATE_NS    1000000000.0   /* a paced calibration lasts at most this */
#define CALIBRATE_PAGES 256   /* 1 MiB of the file made resident to time cached reads */
#define STOP_EVERY      64      /* ops between stop checks when nothing sleeps */

/* What the reader threads share; read-only once they run, but for quit. */
struct rnd {
	struct stream_ctx *c;
	int fd;
	const volatile char *map;    /* access mmap, else NULL */
	uint64_t pages;
	struct zipf zipf;            /* distribution zipf, else zeroed */
	uint64_t miss_ns;
	double period_ns;            /* between one thread's ops; 0: flat out */
	uint64_t t_start;            /* CLOCK_MONOTONIC when the threads start */
	uint64_t end_ns;             /* the stream's end, UINT64_MAX if none */
	_Atomic int quit;            /* a thread failed: the others stop too */
};


static int should_stop(struct rnd *r)
{
	return atomic_load_explicit(&r->quit, memory_order_relaxed) || stream_should_stop(r->c);
}

/*
 * Read one page: pread into buf, or a volatile load through the mapping.
 * Returns 0; -1 with errno set (EIO for a short read).
 */
static int read_page(const struct rnd *r, char *buf, uint64_t page)
{
	ssize_t n;

	if (r->map) {
		(void)r->map[page * PAGE];
		return 0;
	}
	do
		n = pread(r->fd, buf, PAGE, (off_t)(page * PAGE));
	while (n < 0 && errno == EINTR);
	if (n == PAGE)
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

static uint64_t pick_page(const struct rnd *r, struct rng *rng)
{
	if (r->zipf.cdf)
		return zipf_scramble(zipf_next(&r->zipf, rng), r->pages);
	return rng_below(rng, r->pages);
}

/*
 * One read counted in the thread's counters: ops, bytes, its latency's
 * bucket, and a miss when slower than the threshold.
 */
static void count_op(struct stream_thread *th, uint64_t lat_ns, uint64_t miss_ns)
{
	atomic_fetch_add_explicit(&th->ops, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&th->bytes, PAGE, memory_order_relaxed);
	atomic_fetch_add_explicit(&th->hist[lat_bucket(lat_ns)], 1, memory_order_relaxed);
	if (lat_ns > miss_ns)
		atomic_fetch_add_explicit(&th->misses, 1, memory_order_relaxed);
}

/*
 * A reader thread: pages picked (uniform or zipf) and read at the stream's
 * rate on an absolute schedule (a late thread does not sleep, so the mean
 * rate holds), the threads a fraction of a period apart, until the end.
 */
static void rnd_thread(void *arg, unsigned idx)
{
	struct rnd *r = arg;
	struct stream_ctx *c = r->c;
	struct stream_thread *th = &c->sh->th[idx];
	/* threads interleave: thread i runs i/threads of a period behind thread 0 */
	double phase = (double)idx / (double)c->st->threads;
	char buf[PAGE] __attribute__((aligned(PAGE)));
	uint64_t k, due, t0, t1, page;
	struct rng rng;

	rng_seed(&rng, c->job->run, (uint64_t)c->index << 16 | idx);
	for (k = 0;; k++) {
		if (r->period_ns > 0) {
			/* absolute schedule: when behind, no sleep, so the mean rate holds */
			due = r->t_start + (uint64_t)(((double)k + phase) * r->period_ns);
			if (stream_now_ns() < due) {
				stream_sleep_until(c, due < r->end_ns ? due : r->end_ns);
				if (should_stop(r))
					break;
			}
		}
		if (k % STOP_EVERY == 0 && should_stop(r))
			break;
		page = pick_page(r, &rng);
		t0 = stream_now_ns();
		if (read_page(r, buf, page) < 0) {
			stream_fail(c, "stream '%s': pread '%s' at %llu: %s", c->st->name, c->path,
				    (unsigned long long)(page * PAGE), strerror(errno));
			atomic_store(&r->quit, 1);
			break;
		}
		t1 = stream_now_ns();
		count_op(th, t1 - t0, r->miss_ns);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The median of CALIBRATE_READS pread()s of cached pages: CALIBRATE_PAGES
 * random pages are read once, then read again at random. Random pages, not
 * one page again and again: under TCG a read that misses the emulated TLB
 * costs several times one that hits, and the workload's reads do miss it.
 * pread is used for mmap streams too: a touch that finds its page cached but
 * unmapped (a minor fault) costs about what a cached pread does, while a touch
 * of a mapped page costs nearly nothing, so factor x this median separates
 * page-cache hits from reads that went to the disk for both. A paced stream
 * is calibrated at its own pace (for at most CALIBRATE_NS): a read after a
 * sleep costs more than one in a tight loop, under TCG several times more.
 * Returns 0, or -1 with errno set.
 */
static int calibrate(const struct rnd *r, uint64_t *ret_median)
{
	char buf[PAGE] __attribute__((aligned(PAGE)));
	uint64_t lat[CALIBRATE_READS], pages[CALIBRATE_PAGES], t0, off;
	unsigned i, n = CALIBRATE_READS;
	struct rng rng;

	rng_seed(&rng, r->c->job->run, UINT64_C(0xca11b) << 16 | r->c->index);
	for (i = 0; i < CALIBRATE_PAGES; i++) {
		pages[i] = rng_below(&rng, r->pages);
		if (pread(r->fd, buf, PAGE, (off_t)(pages[i] * PAGE)) != PAGE)
			return -1;
	}
	if (r->period_ns > 0 && n * r->period_ns > CALIBRATE_NS)
		n = (unsigned)(CALIBRATE_NS / r->period_ns) + 1;
	for (i = 0; i < n; i++) {
		off = pages[rng_below(&rng, CALIBRATE_PAGES)] * PAGE;
		if (r->period_ns > 0)
			stream_sleep_until(r->c, stream_now_ns() + (uint64_t)r->period_ns);
		t0 = stream_now_ns();
		if (pread(r->fd, buf, PAGE, (off_t)off) != PAGE)
			return -1;
		lat[i] = stream_now_ns() - t0;
	}
	qsort(lat, n, sizeof(lat[0]), cmp_u64);
	*ret_median = lat[n / 2];
	return 0;
}

/*
 * The stream's file opened (and mapped for mmap access), checked to be at
 * least as big as declared.
 */
static int open_file(struct rnd *r)
{
	struct stream_ctx *c = r->c;
	const char *name = c->st->name;
	struct stat sb;
	void *map;

	r->fd = open(c->path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &sb) < 0)
		return stream_fail(c, "stream '%s': open '%s': %s", name, c->path, strerror(errno));
	if ((uint64_t)sb.st_size < c->file_bytes)
		return stream_fail(c, "stream '%s': '%s' has %lld bytes, expected %llu", name,
				   c->path, (long long)sb.st_size, (unsigned long long)c->file_bytes);
	r->pages = c->file_bytes / PAGE;
	if (!r->pages)
		return stream_fail(c, "stream '%s': '%s' is smaller than a page", name, c->path);
	if (c->st->access != ACC_MMAP)
		return 0;
	map = mmap(NULL, r->pages * PAGE, PROT_READ, MAP_SHARED, r->fd, 0);
	if (map == MAP_FAILED)
		return stream_fail(c, "stream '%s': mmap '%s': %s", name, c->path, strerror(errno));
	r->map = map;
	return 0;
}

/*
 * The stream's advice on its file: posix_fadvise for pread, madvise for a
 * mapping; nothing for normal.
 */
static int advise(struct rnd *r)
{
	static const int fadv[] = {
		[ADV_NORMAL] = POSIX_FADV_NORMAL, [ADV_RANDOM] = POSIX_FADV_RANDOM,
		[ADV_SEQUENTIAL] = POSIX_FADV_SEQUENTIAL,
	};
	static const int madv[] = {
		[ADV_NORMAL] = MADV_NORMAL, [ADV_RANDOM] = MADV_RANDOM,
		[ADV_SEQUENTIAL] = MADV_SEQUENTIAL,
	};
	struct stream_ctx *c = r->c;
	unsigned adv = c->st->advice;
	int err;

	if (adv == ADV_NORMAL)
		return 0;
	if (adv >= sizeof(fadv) / sizeof(fadv[0]))
		return stream_fail(c, "stream '%s': unknown advice %u", c->st->name, adv);
	if (r->map) {
		if (madvise((void *)r->map, r->pages * PAGE, madv[adv]) < 0)
			return stream_fail(c, "stream '%s': madvise '%s': %s", c->st->name,
					   c->path, strerror(errno));
		return 0;
	}
	err = posix_fadvise(r->fd, 0, 0, fadv[adv]);
	if (err)
		return stream_fail(c, "stream '%s': posix_fadvise '%s': %s", c->st->name,
				   c->path, strerror(err));
	return 0;
}

/* The miss threshold: miss_us as given, or miss_factor x the cached median. */
static int miss_threshold(struct rnd *r)
{
	struct stream_ctx *c = r->c;
	uint64_t median;

	if (c->st->miss_us > 0) {
		r->miss_ns = (uint64_t)(c->st->miss_us * 1000.0);
		atomic_store(&c->sh->miss_ns, r->miss_ns);
		return 0;
	}
	if (calibrate(r, &median) < 0)
		return stream_fail(c, "stream '%s': calibrating on '%s': %s", c->st->name,
				   c->path, strerror(errno));
	r->miss_ns = (uint64_t)(c->st->miss_factor * (double)median);
	if (r->miss_ns < 1)
		r->miss_ns = 1;
	atomic_store(&c->sh->miss_ns, r->miss_ns);
	stream_event(c, EV_CALIBRATED, 0, r->miss_ns);
	return 0;
}

/*
 * Everything before the readers start: its threads checked, its rate as a
 * period, the file opened and advised, the miss threshold, the zipf table.
 */
static int setup(struct rnd *r)
{
	struct stream_ctx *c = r->c;
	const struct proto_stream *st = c->st;

	if (st->threads < 1 || st->threads > c->sh->nthreads || st->threads > STREAM_MAX_THREADS)
		return stream_fail(c, "stream '%s': %llu threads, counters for %u", st->name,
				   (unsigned long long)st->threads, c->sh->nthreads);
	r->period_ns = st->rate > 0 ? 1e9 * (double)st->threads / st->rate : 0;
	if (open_file(r) < 0 || advise(r) < 0 || miss_threshold(r) < 0)
		return -1;
	if (st->dist == DIST_ZIPF && zipf_init(&r->zipf, r->pages, st->theta) < 0)
		return stream_fail(c, "stream '%s': zipf(%g) over the %llu pages of '%s': %s",
				   st->name, st->theta, (unsigned long long)r->pages, c->path,
				   strerror(errno));
	r->end_ns = stream_end_ns(c);
	return 0;
}

/* The readers, on their clock, to the end; 0, or -1 after stream_fail(). */
static int run_threads(struct rnd *r)
{
	r->t_start = stream_now_ns();
	return stream_threads(r->c, (unsigned)r->c->st->threads, rnd_thread, r, &r->quit);
}

int stream_random_run(struct stream_ctx *c)
{
	struct rnd r = { .c = c, .fd = -1 };
	int ret = -1, running = ST_RUNNING;

	/* set up and calibrated before start_s, so the reads begin on time:
	 * calibrating after it made them begin 1.4 to 2.7 s late under TCG,
	 * after the scan seed 003's scaled example starts 1 s later */
	if (setup(&r) < 0)
		goto out;
	stream_sleep_until(c, stream_start_ns(c));
	if (stream_should_stop(c)) {
		atomic_store(&c->sh->state, ST_DONE);
		ret = 0;
		goto out;
	}
	atomic_store(&c->sh->state, ST_RUNNING);
	ret = run_threads(&r);
	if (!ret)
		atomic_compare_exchange_strong(&c->sh->state, &running, ST_DONE);
out:
	zipf_release(&r.zipf);
	if (r.map)
		munmap((void *)r.map, r.pages * PAGE);
	if (r.fd >= 0)
		close(r.fd);
	return ret;
}
