/* stream_scan.c -- the sequential scanner: passes over one file in chunks, by
 * read() or through a mapping, full speed or throttled, with gaps between passes
 * and optionally telling the kernel not to keep what it read. */
#define _GNU_SOURCE
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

#define PAGE 4096
#define MIB  1048576.0

struct scan {
	struct stream_ctx *c;
	int fd;
	const volatile char *map;     /* access mmap, else NULL */
	char *buf;                    /* access read: one chunk */
	size_t chunk;
	uint64_t len;                 /* bytes per pass: the declared size */
	uint64_t end_ns;              /* the stream's end, UINT64_MAX if none */
	struct stream_thread *th;
};


/* Sleep until t_ns, but not past the stream's end; 1 if the stream should stop. */
static int sleep_until(const struct scan *s, uint64_t t_ns)
{
	stream_sleep_until(s->c, t_ns < s->end_ns ? t_ns : s->end_ns);
	return stream_should_stop(s->c);
}

/*
 * A failed read said with its offset (a short read too), and the scan asked
 * to quit.
 */
static int read_fail(struct scan *s, uint64_t off, int err)
{
	const struct stream_ctx *c = s->c;

	if (c->st->mode == MODE_DONTCACHE && (err == EOPNOTSUPP || err == EINVAL))
		return stream_fail(s->c, "stream '%s': RWF_DONTCACHE is not supported by this "
				   "kernel (%s)", c->st->name, strerror(err));
	return stream_fail(s->c, "stream '%s': read '%s' at %llu: %s", c->st->name, c->path,
			   (unsigned long long)off, strerror(err));
}

/* Read len bytes at off (the fd is there already unless dontcache); 0 or -1 after stream_fail. */
static int read_chunk(struct scan *s, uint64_t off, size_t len)
{
	struct iovec iov;
	size_t got = 0;
	ssize_t n;

	if (s->map) {
		for (; got < len; got += PAGE)
			(void)s->map[off + got];
		return 0;
	}
	while (got < len) {
		if (s->c->st->mode == MODE_DONTCACHE) {
			iov = (struct iovec){ .iov_base = s->buf + got, .iov_len = len - got };
			n = preadv2(s->fd, &iov, 1, (off_t)(off + got), RWF_DONTCACHE);
		} else {
			n = read(s->fd, s->buf + got, len - got);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return read_fail(s, off + got, errno);
		if (n == 0)
			return stream_fail(s->c, "stream '%s': '%s' ended at %llu, expected %llu bytes",
					   s->c->st->name, s->c->path,
					   (unsigned long long)(off + got), (unsigned long long)s->len);
		got += (size_t)n;
	}
	if (s->c->st->mode == MODE_DONTNEED) {
		int err = posix_fadvise(s->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);

		if (err)
			return stream_fail(s->c, "stream '%s': posix_fadvise DONTNEED '%s': %s",
					   s->c->st->name, s->c->path, strerror(err));
	}
	return 0;
}

/*
 * One pass over the file, chunk by chunk; chunk k is due at t_pass + k x chunk /
 * rate when throttled. Bytes read go to *ret_bytes. Returns 1 if the stream
 * should stop, 0 at the pass's end, -1 after stream_fail().
 */
static int one_pass(struct scan *s, uint64_t *ret_bytes)
{
	const struct proto_stream *st = s->c->st;
	uint64_t t_pass = stream_now_ns(), off, t0, lat;
	size_t len;

	*ret_bytes = 0;
	if (!s->map && st->mode != MODE_DONTCACHE && lseek(s->fd, 0, SEEK_SET) < 0)
		return read_fail(s, 0, errno);
	for (off = 0; off < s->len; off += len) {
		len = s->len - off < s->chunk ? (size_t)(s->len - off) : s->chunk;
		if (st->rate_mibs > 0 &&
		    sleep_until(s, t_pass + (uint64_t)((double)off / (st->rate_mibs * MIB) * 1e9)))
			return 1;
		t0 = stream_now_ns();
		if (read_chunk(s, off, len) < 0)
			return -1;
		lat = stream_now_ns() - t0;
		atomic_fetch_add_explicit(&s->th->ops, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->th->bytes, len, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->th->hist[lat_bucket(lat)], 1, memory_order_relaxed);
		*ret_bytes += len;
		if (stream_should_stop(s->c))
			return 1;
	}
	return 0;
}

/* Every pass with its events and the gaps between; 0 or -1 after stream_fail(). */
static int passes(struct scan *s)
{
	const struct proto_stream *st = s->c->st;
	uint64_t p, bytes;
	int r = 0;

	for (p = 1; p <= st->passes && !r; p++) {
		stream_event(s->c, EV_PASS_START, (unsigned)p, 0);
		r = one_pass(s, &bytes);
		/* a pass cut short still ends, its value short of the file's size */
		stream_event(s->c, EV_PASS_END, (unsigned)p, bytes);
		if (!r && p < st->passes)
			r = sleep_until(s, stream_now_ns() + (uint64_t)(st->gap_s * 1e9));
	}
	return r < 0 ? -1 : 0;
}

/*
 * Everything before the passes: its threads, its buffer (aligned for
 * O_DIRECT), and its file opened by its access, cache mode and advice.
 */
static int setup(struct scan *s)
{
	struct stream_ctx *c = s->c;
	const struct proto_stream *st = c->st;
	struct stat sb;
	void *map;
	int err;

	if (c->sh->nthreads < 1)
		return stream_fail(c, "stream '%s': no counters", st->name);
	if (st->access == ACC_MMAP && st->mode != MODE_NORMAL && st->mode != MODE_FADV_RANDOM)
		return stream_fail(c, "stream '%s': this mode needs access read", st->name);
	s->th = &c->sh->th[0];
	s->chunk = (size_t)st->chunk_kib * 1024;
	s->len = c->file_bytes;
	if (!s->chunk)
		return stream_fail(c, "stream '%s': chunk_kib is 0", st->name);
	s->fd = open(c->path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0 || fstat(s->fd, &sb) < 0)
		return stream_fail(c, "stream '%s': open '%s': %s", st->name, c->path, strerror(errno));
	if ((uint64_t)sb.st_size < s->len)
		return stream_fail(c, "stream '%s': '%s' has %lld bytes, expected %llu", st->name,
				   c->path, (long long)sb.st_size, (unsigned long long)s->len);
	if (st->mode == MODE_FADV_RANDOM) {
		err = posix_fadvise(s->fd, 0, 0, POSIX_FADV_RANDOM);
		if (err)
			return stream_fail(c, "stream '%s': posix_fadvise RANDOM '%s': %s",
					   st->name, c->path, strerror(err));
	}
	if (st->access == ACC_MMAP) {
		if (!s->len)
			return 0;
		map = mmap(NULL, s->len, PROT_READ, MAP_SHARED, s->fd, 0);
		if (map == MAP_FAILED)
			return stream_fail(c, "stream '%s': mmap '%s': %s", st->name, c->path,
					   strerror(errno));
		s->map = map;
		return 0;
	}
	s->buf = aligned_alloc(PAGE, (s->chunk + PAGE - 1) / PAGE * PAGE);
	if (!s->buf)
		return stream_fail(c, "stream '%s': %zu-byte buffer: %s", st->name, s->chunk,
				   strerror(errno));
	return 0;
}

int stream_scan_run(struct stream_ctx *c)
{
	struct scan s = { .c = c, .fd = -1, .end_ns = stream_end_ns(c) };
	int ret = -1, running = ST_RUNNING;

	stream_sleep_until(c, stream_start_ns(c));
	if (stream_should_stop(c)) {
		atomic_store(&c->sh->state, ST_DONE);
		return 0;
	}
	if (setup(&s) < 0)
		goto out;
	atomic_store(&c->sh->state, ST_RUNNING);
	stream_event(c, EV_START, 0, 0);
	ret = passes(&s);
	stream_event(c, EV_END, 0, 0);
	if (!ret)
		atomic_compare_exchange_strong(&c->sh->state, &running, ST_DONE);
out:
	free(s.buf);
	if (s.map)
		munmap((void *)s.map, s.len);
	if (s.fd >= 0)
		close(s.fd);
	return ret;
}
