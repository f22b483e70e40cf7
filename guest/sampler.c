/* sampler.c -- read the memcg's memory.stat strictly, the declared files'
 * page-cache residency (cachestat(2), else windowed mincore(2)), and lru_gen. */
#include "sampler.h"

#include <errno.h>
#include <fcntl.h>
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

/* memory.stat keys, where each lands in a sample, and whether it is a level. */
static const struct {
	const char *key;
	size_t off;
	int level;
} stat_keys[SAMPLER_NKEYS] = {
#define K(key, m, lvl) { key, offsetof(struct proto_sample, m), lvl }
	K("pgmajfault", pgmajfault, 0),
	K("workingset_refault_file", refault_file, 0),
	K("workingset_refault_anon", refault_anon, 0),
	K("workingset_activate_file", activate_file, 0),
	K("workingset_activate_anon", activate_anon, 0),
	K("workingset_restore_file", restore_file, 0),
	K("pgscan", pgscan, 0),
	K("pgsteal", pgsteal, 0),
	K("file", file_bytes, 1),
	K("anon", anon_bytes, 1),
#undef K
};
#define NKEYS SAMPLER_NKEYS

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
			return proto_errf(err, errlen, "memory.stat line %u: key too long", lineno);
		key[k++] = *p++;
	}
	key[k] = '\0';
	if (k == 0 || p >= end || *p++ != ' ' || p >= end)
		return proto_errf(err, errlen, "memory.stat line %u: not 'key value'", lineno);
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return proto_errf(err, errlen,
					  "memory.stat line %u ('%s'): value not a decimal",
					  lineno, key);
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return proto_errf(err, errlen,
					  "memory.stat line %u ('%s'): value overflows",
					  lineno, key);
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

int sampler_parse_stat(const char *buf, size_t len, struct sampler_reading *out,
		       char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *nl;
	char key[STAT_KEY_MAX];
	unsigned seen[NKEYS] = { 0 }, lineno = 0;
	uint64_t val = 0;
	size_t i;

	if (len == 0 || buf[len - 1] != '\n')
		return proto_errf(err, errlen, "memory.stat: empty or not newline-terminated");
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (parse_line(p, nl, key, &val, err, errlen, ++lineno) < 0)
			return -1;
		for (i = 0; i < NKEYS; i++) {
			if (strcmp(key, stat_keys[i].key))
				continue;
			if (seen[i]++)
				return proto_errf(err, errlen,
						  "memory.stat: '%s' appears twice", key);
			out->stat[i] = val;
		}
	}
	for (i = 0; i < NKEYS; i++)
		if (!seen[i])
			return proto_errf(err, errlen,
					  "memory.stat: '%s' missing", stat_keys[i].key);
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
			return proto_errf(err, errlen, "read memory.stat: %s", strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > SAMPLER_STAT_MAX)
			return proto_errf(err, errlen,
					  "memory.stat larger than %d bytes", SAMPLER_STAT_MAX);
	}
	*ret_len = len;
	return 0;
}

static int residency_cachestat(struct sampler *s, unsigned f, uint64_t *ret, char *err,
			       size_t errlen)
{
	struct sampler_cachestat cs;

	if (do_cachestat(s->file_fd[f], 0, s->file_size[f], &cs) < 0)
		return proto_errf(err, errlen,
				  "cachestat on '%s': %s", s->file_name[f], strerror(errno));
	*ret = cs.nr_cache;
	return 0;
}

/* Map, mincore, unmap one window at a time: never more than SAMPLER_WINDOW mapped. */
static int residency_mincore(struct sampler *s, unsigned f, uint64_t *ret, char *err,
			     size_t errlen)
{
	uint64_t ps = page_size(), off, len, pages, i, n = 0;
	void *map;
	int rc;

	for (off = 0; off < s->file_size[f]; off += SAMPLER_WINDOW) {
		len = s->file_size[f] - off < SAMPLER_WINDOW ? s->file_size[f] - off : SAMPLER_WINDOW;
		map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, s->file_fd[f], (off_t)off);
		if (map == MAP_FAILED)
			return proto_errf(err, errlen, "mmap '%s' for mincore at %llu: %s",
					  s->file_name[f], (unsigned long long)off, strerror(errno));
		rc = mincore(map, (size_t)len, s->vec);
		if (rc < 0)
			proto_errf(err, errlen, "mincore on '%s' at %llu: %s", s->file_name[f],
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

int sampler_open(struct sampler *s, const char *memcg_dir, const char *memcg_path,
		 char *const files[], unsigned nfiles, int use_cachestat, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;
	unsigned f;

	memset(s, 0, sizeof(*s));
	s->stat_fd = -1;
	s->gen_fd = -1;
	s->use_cachestat = use_cachestat;
	for (f = 0; f < PROTO_MAX_FILES; f++)
		s->file_fd[f] = -1;
	if (nfiles > PROTO_MAX_FILES)
		return proto_errf(err, errlen, "%u files, at most %d", nfiles, PROTO_MAX_FILES);
	snprintf(path, sizeof(path), "%s/memory.stat", memcg_dir);
	s->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->stat_fd < 0)
		return proto_errf(err, errlen, "open '%s': %s", path, strerror(errno));
	for (f = 0; f < nfiles; f++) {
		s->file_name[f] = files[f];
		s->file_fd[f] = open(files[f], O_RDONLY | O_CLOEXEC);
		s->nfiles++;
		if (s->file_fd[f] < 0 || fstat(s->file_fd[f], &st) < 0)
			return proto_errf(err, errlen, "open '%s': %s", files[f], strerror(errno));
		s->file_size[f] = (uint64_t)st.st_size;
	}
	snprintf(s->memcg_path, sizeof(s->memcg_path), "%s", memcg_path);
	s->gen_fd = open(SAMPLER_LRU_GEN, O_RDONLY | O_CLOEXEC);   /* optional */
	s->buf = malloc(SAMPLER_STAT_MAX + 1);
	s->vec = malloc(SAMPLER_WINDOW / page_size());
	if (!s->buf || !s->vec)
		return proto_errf(err, errlen, "sampler buffers: %s", strerror(ENOMEM));
	return 0;
}

int sampler_residency(struct sampler *s, struct proto_u64s *out, char *err, size_t errlen)
{
	uint64_t resident = 0;
	unsigned f;
	int rc;

	out->n = s->nfiles;
	for (f = 0; f < s->nfiles; f++) {
		rc = s->use_cachestat ? residency_cachestat(s, f, &resident, err, errlen)
				      : residency_mincore(s, f, &resident, err, errlen);
		if (rc < 0)
			return -1;
		out->v[f] = resident * page_size() / 4096;
	}
	return 0;
}

/* The next line of [*p, end) into line (bounded); 0 at the end. */
static int next_line(const char **p, const char *end, char *line, size_t cap)
{
	const char *nl;
	size_t n;

	if (*p >= end)
		return 0;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	if (!nl)
		nl = end;
	n = (size_t)(nl - *p) < cap - 1 ? (size_t)(nl - *p) : cap - 1;
	memcpy(line, *p, n);
	line[n] = '\0';
	*p = nl + 1;
	return 1;
}

int sampler_parse_lru_gen(const char *buf, size_t len, const char *memcg_path,
			  uint64_t *min_seq, uint64_t *max_seq)
{
	const char *p = buf, *end = buf + len;
	char line[256], path[200];
	unsigned long long seq;
	int in = 0, found = 0, id;

	while (next_line(&p, end, line, sizeof(line))) {
		if (sscanf(line, " memcg %d %199s", &id, path) == 2) {
			in = !strcmp(path, memcg_path);
			continue;
		}
		if (!in || sscanf(line, " %llu", &seq) != 1 || strstr(line, "node"))
			continue;
		if (!found || seq < *min_seq)
			*min_seq = seq;
		if (!found || seq > *max_seq)
			*max_seq = seq;
		found = 1;
	}
	return found ? 0 : -1;
}

/* lru_gen's debugfs view of our memcg: its generation window, if there is one. */
static void read_lru_gen(struct sampler *s, struct sampler_reading *out)
{
	size_t len = 0;
	ssize_t n;

	out->gen_valid = 0;
	if (s->gen_fd < 0)
		return;
	for (;;) {
		n = pread(s->gen_fd, s->buf + len, SAMPLER_STAT_MAX - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) >= SAMPLER_STAT_MAX)
			break;
	}
	out->gen_valid = sampler_parse_lru_gen(s->buf, len, s->memcg_path, &out->min_seq,
					       &out->max_seq) == 0;
}

int sampler_read(struct sampler *s, struct sampler_reading *out, char *err, size_t errlen)
{
	size_t len = 0;

	if (read_stat(s, &len, err, errlen) < 0 ||
	    sampler_parse_stat(s->buf, len, out, err, errlen) < 0 ||
	    sampler_residency(s, &out->resident, err, errlen) < 0)
		return -1;
	read_lru_gen(s, out);
	return 0;
}

int sampler_fill(const struct sampler_reading *now, const struct sampler_reading *prev,
		 struct proto_sample *out, char *err, size_t errlen)
{
	uint64_t *dst;
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		dst = (uint64_t *)((char *)out + stat_keys[i].off);
		if (stat_keys[i].level) {
			*dst = now->stat[i];
			continue;
		}
		if (now->stat[i] < prev->stat[i])
			return proto_errf(err, errlen,
					  "memory.stat '%s' went backwards: %llu after %llu",
					  stat_keys[i].key, (unsigned long long)now->stat[i],
					  (unsigned long long)prev->stat[i]);
		*dst = now->stat[i] - prev->stat[i];
	}
	out->resident = now->resident;
	out->gen_valid = (uint64_t)now->gen_valid;
	out->min_seq = now->gen_valid ? now->min_seq : 0;
	out->max_seq = now->gen_valid ? now->max_seq : 0;
	return 0;
}

void sampler_close(struct sampler *s)
{
	unsigned f;

	if (s->stat_fd >= 0)
		close(s->stat_fd);
	if (s->gen_fd >= 0)
		close(s->gen_fd);
	for (f = 0; f < s->nfiles && f < PROTO_MAX_FILES; f++)
		if (s->file_fd[f] >= 0)
			close(s->file_fd[f]);
	free(s->buf);
	free(s->vec);
	memset(s, 0, sizeof(*s));
	s->stat_fd = s->gen_fd = -1;
	for (f = 0; f < PROTO_MAX_FILES; f++)
		s->file_fd[f] = -1;
}
