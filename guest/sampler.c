/* sampler.c -- read the memcg's memory.stat strictly and the data file's
 * page-cache residency (cachestat(2), else mincore(2) over bounded windows). */
#include "sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451   /* same number on x86_64 and aarch64 */
#endif

#define STAT_KEY_MAX 64

/* The uapi structs (linux/mman.h, >= 6.5), named ours to avoid clashes. */
struct sampler_cachestat_range {
	uint64_t off;
	uint64_t len;
};

struct sampler_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

static const struct {
	const char *key;
	size_t off;
} stat_keys[] = {
	{ "pgmajfault", offsetof(struct sampler_counts, pgmajfault) },
	{ "workingset_refault_file", offsetof(struct sampler_counts, refault_file) },
	{ "workingset_activate_file", offsetof(struct sampler_counts, activate_file) },
};
#define NKEYS (sizeof(stat_keys) / sizeof(stat_keys[0]))

static int errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static long do_cachestat(int fd, uint64_t off, uint64_t len, struct sampler_cachestat *cs)
{
	struct sampler_cachestat_range r = { off, len };

	return syscall(__NR_cachestat, (unsigned)fd, &r, cs, 0U);
}

int sampler_cachestat_works(int fd)
{
	struct sampler_cachestat cs;

	return fd >= 0 && do_cachestat(fd, 0, 0, &cs) == 0;
}

static uint64_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

/* Parse one "key value" line [p, end); fills key and value. */
static int parse_line(const char *p, const char *end, char *key, uint64_t *val,
		      char *err, size_t errlen, unsigned lineno)
{
	size_t k = 0;
	uint64_t v = 0;
	unsigned d;

	while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) {
		if (k + 1 >= STAT_KEY_MAX)
			return errf(err, errlen, "memory.stat line %u: key too long", lineno);
		key[k++] = *p++;
	}
	key[k] = '\0';
	if (k == 0 || p >= end || *p++ != ' ' || p >= end)
		return errf(err, errlen, "memory.stat line %u: not 'key value'", lineno);
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return errf(err, errlen, "memory.stat line %u ('%s'): value not a decimal",
				    lineno, key);
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return errf(err, errlen, "memory.stat line %u ('%s'): value overflows",
				    lineno, key);
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

int sampler_parse_stat(const char *buf, size_t len, struct sampler_counts *out,
		       char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *nl;
	char key[STAT_KEY_MAX];
	unsigned seen[NKEYS] = { 0 }, lineno = 0;
	uint64_t val = 0;
	size_t i;

	if (len == 0 || buf[len - 1] != '\n')
		return errf(err, errlen, "memory.stat: empty or not newline-terminated");
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (parse_line(p, nl, key, &val, err, errlen, ++lineno) < 0)
			return -1;
		for (i = 0; i < NKEYS; i++) {
			if (strcmp(key, stat_keys[i].key))
				continue;
			if (seen[i]++)
				return errf(err, errlen, "memory.stat: '%s' appears twice", key);
			*(uint64_t *)((char *)out + stat_keys[i].off) = val;
		}
	}
	for (i = 0; i < NKEYS; i++)
		if (!seen[i])
			return errf(err, errlen, "memory.stat: '%s' missing", stat_keys[i].key);
	return 0;
}

/* The whole file into s->buf, from offset 0, bounded. */
static int read_stat(struct sampler *s, size_t *ret_len, char *err, size_t errlen)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = pread(s->stat_fd, s->buf + len, SAMPLER_STAT_MAX + 1 - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errf(err, errlen, "read memory.stat: %s", strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > SAMPLER_STAT_MAX)
			return errf(err, errlen, "memory.stat larger than %d bytes", SAMPLER_STAT_MAX);
	}
	*ret_len = len;
	return 0;
}

static int residency_cachestat(struct sampler *s, uint64_t *ret, char *err, size_t errlen)
{
	struct sampler_cachestat cs;

	if (do_cachestat(s->file_fd, 0, s->file_size, &cs) < 0)
		return errf(err, errlen, "cachestat on the data file: %s", strerror(errno));
	*ret = cs.nr_cache;
	return 0;
}

/* Map, mincore, unmap one window at a time: never more than SAMPLER_WINDOW mapped. */
static int residency_mincore(struct sampler *s, uint64_t *ret, char *err, size_t errlen)
{
	uint64_t ps = page_size(), off, len, pages, i, n = 0;
	void *map;
	int rc;

	for (off = 0; off < s->file_size; off += SAMPLER_WINDOW) {
		len = s->file_size - off < SAMPLER_WINDOW ? s->file_size - off : SAMPLER_WINDOW;
		map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, s->file_fd, (off_t)off);
		if (map == MAP_FAILED)
			return errf(err, errlen, "mmap data file for mincore at %llu: %s",
				    (unsigned long long)off, strerror(errno));
		rc = mincore(map, (size_t)len, s->vec);
		if (rc < 0)
			errf(err, errlen, "mincore on the data file at %llu: %s",
			     (unsigned long long)off, strerror(errno));
		munmap(map, (size_t)len);
		if (rc < 0)
			return -1;
		pages = (len + ps - 1) / ps;
		for (i = 0; i < pages; i++)
			n += s->vec[i] & 1;
	}
	*ret = n;
	return 0;
}

int sampler_open(struct sampler *s, const char *memcg_dir, const char *file,
		 int use_cachestat, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;

	*s = (struct sampler){ .stat_fd = -1, .file_fd = -1, .use_cachestat = use_cachestat };
	snprintf(path, sizeof(path), "%s/memory.stat", memcg_dir);
	s->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->stat_fd < 0)
		return errf(err, errlen, "open '%s': %s", path, strerror(errno));
	s->file_fd = open(file, O_RDONLY | O_CLOEXEC);
	if (s->file_fd < 0 || fstat(s->file_fd, &st) < 0)
		return errf(err, errlen, "open '%s': %s", file, strerror(errno));
	s->file_size = (uint64_t)st.st_size;
	s->buf = malloc(SAMPLER_STAT_MAX + 1);
	s->vec = malloc(SAMPLER_WINDOW / page_size());
	if (!s->buf || !s->vec)
		return errf(err, errlen, "sampler buffers: %s", strerror(ENOMEM));
	return 0;
}

int sampler_read(struct sampler *s, struct sampler_counts *out, char *err, size_t errlen)
{
	uint64_t resident = 0;
	size_t len = 0;
	int rc;

	if (read_stat(s, &len, err, errlen) < 0 ||
	    sampler_parse_stat(s->buf, len, out, err, errlen) < 0)
		return -1;
	rc = s->use_cachestat ? residency_cachestat(s, &resident, err, errlen)
			      : residency_mincore(s, &resident, err, errlen);
	if (rc < 0)
		return -1;
	out->resident_pages = resident * page_size() / 4096;
	return 0;
}

void sampler_close(struct sampler *s)
{
	if (s->stat_fd >= 0)
		close(s->stat_fd);
	if (s->file_fd >= 0)
		close(s->file_fd);
	free(s->buf);
	free(s->vec);
	*s = (struct sampler){ .stat_fd = -1, .file_fd = -1 };
}
