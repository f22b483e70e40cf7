/* reader.c -- the native workload's reader threads: each picks a page (uniform or
 * scrambled zipf), reads 4 KiB of it by pread() or touches it through mmap, counts. */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct reader_thread {
	const struct reader_job *job;
	struct reader_shared *sh;
	int fd;
	const volatile char *map;
	unsigned idx;
	pthread_t tid;
};

static size_t shared_len(unsigned threads)
{
	return sizeof(struct reader_shared) + (size_t)threads * sizeof(struct reader_slot);
}

struct reader_shared *reader_shared_new(unsigned threads)
{
	struct reader_shared *sh;

	sh = mmap(NULL, shared_len(threads), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return NULL;
	sh->threads = threads;   /* the rest is zero: anonymous memory */
	return sh;
}

void reader_shared_free(struct reader_shared *sh)
{
	if (sh)
		munmap(sh, shared_len(sh->threads));
}

uint64_t reader_ops(const struct reader_shared *sh)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < sh->threads; i++)
		sum += atomic_load_explicit(&sh->slot[i].ops, memory_order_relaxed);
	return sum;
}

void reader_fail(struct reader_shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&sh->failed, 1) == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->err, sizeof(sh->err), fmt, ap);
		va_end(ap);
		atomic_store_explicit(&sh->err_set, 1, memory_order_release);
	}
	atomic_store(&sh->stop, 1);
}

const char *reader_error(struct reader_shared *sh)
{
	return atomic_load_explicit(&sh->err_set, memory_order_acquire) ? sh->err : NULL;
}

static uint64_t pick_page(const struct reader_job *job, struct rng *r)
{
	if (job->dist == WL_ZIPF)
		return zipf_scramble(zipf_next(job->zipf, r), job->pages);
	return rng_below(r, job->pages);
}

/* One pread of a whole page; 0, or -1 with the reason recorded. */
static int read_page(struct reader_thread *t, char *buf, uint64_t page)
{
	off_t off = (off_t)(page * READER_PAGE);
	ssize_t n;

	do
		n = pread(t->fd, buf, READER_PAGE, off);
	while (n < 0 && errno == EINTR);
	if (n == READER_PAGE)
		return 0;
	if (n < 0)
		reader_fail(t->sh, "pread '%s' at %lld: %s", t->job->path,
			    (long long)off, strerror(errno));
	else
		reader_fail(t->sh, "pread '%s' at %lld: short read of %zd bytes",
			    t->job->path, (long long)off, n);
	return -1;
}

static void *reader_thread_main(void *arg)
{
	struct reader_thread *t = arg;
	const struct reader_job *job = t->job;
	struct reader_slot *slot = &t->sh->slot[t->idx];
	char buf[READER_PAGE] __attribute__((aligned(READER_PAGE)));
	uint64_t ops = 0, page;
	struct rng r;
	char sink = 0;

	rng_seed(&r, job->run, t->idx);
	while (!atomic_load_explicit(&t->sh->stop, memory_order_relaxed)) {
		page = pick_page(job, &r);
		if (job->access == WL_MMAP)
			sink ^= t->map[page * READER_PAGE];
		else if (read_page(t, buf, page) < 0)
			break;
		atomic_store_explicit(&slot->ops, ++ops, memory_order_relaxed);
	}
	(void)sink;
	return NULL;
}

static int open_file(const struct reader_job *job, struct reader_shared *sh,
		     int *ret_fd, const volatile char **ret_map)
{
	size_t len = (size_t)(job->pages * READER_PAGE);
	struct stat st;
	void *map;
	int fd;

	fd = open(job->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		reader_fail(sh, "open '%s': %s", job->path, strerror(errno));
		goto fail;
	}
	if ((uint64_t)st.st_size < job->pages * READER_PAGE) {
		reader_fail(sh, "'%s' has %lld bytes, reads need %llu", job->path,
			    (long long)st.st_size, (unsigned long long)(job->pages * READER_PAGE));
		goto fail;
	}
	*ret_map = NULL;
	if (job->access == WL_MMAP) {
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			reader_fail(sh, "mmap '%s': %s", job->path, strerror(errno));
			goto fail;
		}
		*ret_map = map;
	}
	*ret_fd = fd;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static int write_ready(int fd, struct reader_shared *sh)
{
	ssize_t n;

	do
		n = write(fd, "r", 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		return 0;
	reader_fail(sh, "workload ready pipe: %s", n < 0 ? strerror(errno) : "short write");
	return -1;
}

int reader_run(const struct reader_job *job, struct reader_shared *sh, int ready_fd)
{
	struct reader_thread *t;
	const volatile char *map = NULL;
	unsigned i, started = 0;
	int fd = -1, err;

	if (job->pages == 0 || (job->dist == WL_ZIPF && (!job->zipf || job->zipf->n != job->pages))) {
		reader_fail(sh, "reader job inconsistent: %llu pages", (unsigned long long)job->pages);
		return -1;
	}
	t = calloc(sh->threads, sizeof(*t));
	if (!t) {
		reader_fail(sh, "reader threads: %s", strerror(errno));
		return -1;
	}
	if (open_file(job, sh, &fd, &map) < 0)
		goto out;
	for (i = 0; i < sh->threads; i++, started++) {
		t[i] = (struct reader_thread){ job, sh, fd, map, i, 0 };
		err = pthread_create(&t[i].tid, NULL, reader_thread_main, &t[i]);
		if (err) {
			reader_fail(sh, "pthread_create for reader %u: %s", i, strerror(err));
			break;
		}
	}
	if (started == sh->threads)
		write_ready(ready_fd, sh);
	for (i = 0; i < started; i++)
		pthread_join(t[i].tid, NULL);
out:
	if (map)
		munmap((void *)map, (size_t)(job->pages * READER_PAGE));
	if (fd >= 0)
		close(fd);
	free(t);
	return reader_error(sh) ? -1 : 0;
}
