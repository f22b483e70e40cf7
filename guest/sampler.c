/* sampler.c -- read the memcg's memory.stat strictly, the declared files'
 * page-cache residency (cachestat(2), else windowed mincore(2)), the memcg's
 * generations from lru_gen_full or lru_gen (common/lrugen.c), swap traffic,
 * OOM kills, memory pressure and kswapd's CPU time. */
#define _GNU_SOURCE
#include "sampler.h"
#include "fdio.h"
#include "common/fmt.h"
#include "common/psi.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451   /* same number on x86_64 and aarch64 */
#endif

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

/*
 * The memory.stat keys a sample carries (common/proto.h's PROTO_SAMPLE_STATS
 * rows), in the order of sampler_reading.stat[]: where each is in the parsed
 * struct, where it lands in a sample, whether a level.
 */
static const struct {
	const char *key;
	size_t from, off;
	int level;
} stat_keys[SAMPLER_NKEYS] = {
#define K(X_, m, json, max, key, lvl) { #key, offsetof(struct lrugen_stat, key), \
					offsetof(struct proto_sample, m), lvl },
	PROTO_SAMPLE_STATS(K, _)
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

int sampler_parse_stat(const char *buf, size_t len, struct sampler_reading *out,
		       char *err, size_t errlen)
{
	struct lrugen_stat st;
	size_t i;

	if (lrugen_parse_memory_stat(buf, len, &st, err, errlen) < 0)
		return -1;
	for (i = 0; i < NKEYS; i++)
		out->stat[i] = *(const uint64_t *)((const char *)&st + stat_keys[i].from);
	return 0;
}

/* The whole of fd (what names it) into buf of max + 1 bytes, from offset 0, bounded. */
static int read_all(int fd, const char *what, char *buf, size_t max, size_t *ret_len,
		    char *err, size_t errlen)
{
	int e;

	if (read_whole(fd, buf, max, ret_len) == 0)
		return 0;
	e = errno;
	if (e == EFBIG)
		errorfn(err, errlen, "%s larger than %zu bytes", what, max);
	else
		errorfn(err, errlen, "read %s: %s", what, strerror(e));
	errno = e;
	return -1;
}

static const struct lrugen_kv vmstat_keys[] = {
	{ "pswpin", offsetof(struct sampler_reading, pswpin), 0 },
	{ "pswpout", offsetof(struct sampler_reading, pswpout), 0 },
};
static const struct lrugen_kv events_keys[] = {
	{ "oom_kill", offsetof(struct sampler_reading, oom_kill), 1 },
	{ "high", offsetof(struct sampler_reading, memcg_high), 0 },
	{ "max", offsetof(struct sampler_reading, memcg_max), 0 },
	{ "oom", offsetof(struct sampler_reading, memcg_oom), 0 },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A one-number file ("123\n": digits, no leading zero, fits 64 bits) into *v. */
static int parse_number(const char *what, const char *text, uint64_t *v, char *err,
			size_t errlen)
{
	size_t n = strlen(text), i;
	uint64_t x = 0;

	if (n < 2 || text[n - 1] != '\n' || (text[0] == '0' && n > 2))
		return errorfn(err, errlen, "%s: expected one number and a newline", what);
	for (i = 0; i + 1 < n; i++) {
		if (text[i] < '0' || text[i] > '9' ||
		    x > (UINT64_MAX - (uint64_t)(text[i] - '0')) / 10)
			return errorfn(err, errlen, "%s: expected one number and a newline", what);
		x = x * 10 + (uint64_t)(text[i] - '0');
	}
	*v = x;
	return 0;
}

int sampler_parse_swap(const char *vmstat, size_t vlen, const char *events, size_t elen,
		       const char *swap_current, struct sampler_reading *out, char *err,
		       size_t errlen)
{
	out->swap_current = out->oom_kill = 0;   /* optional: absent is 0 */
	out->memcg_high = out->memcg_max = out->memcg_oom = 0;
	if (lrugen_parse_kv("/proc/vmstat", vmstat, vlen, vmstat_keys, ARRAY_LEN(vmstat_keys),
			    out, NULL, err, errlen) < 0 ||
	    lrugen_parse_kv("memory.events", events, elen, events_keys, ARRAY_LEN(events_keys),
			    out, NULL, err, errlen) < 0)
		return -1;
	return swap_current ? parse_number("memory.swap.current", swap_current,
					   &out->swap_current, err, errlen) : 0;
}

int sampler_oom_kills(struct sampler *s, uint64_t *kills)
{
	struct sampler_reading r = { .oom_kill = 0 };
	char buf[4096], err[PROTO_ERR_MAX];
	size_t len;

	if (s->events_fd < 0 ||
	    read_all(s->events_fd, "memory.events", buf, sizeof(buf) - 1, &len, err,
		       sizeof(err)) < 0 ||
	    lrugen_parse_kv("memory.events", buf, len, events_keys, ARRAY_LEN(events_keys), &r,
			    NULL, err, sizeof(err)) < 0)
		return -1;
	*kills = r.oom_kill;
	return 0;
}

int sampler_parse_task_stat(const char *text, size_t len, uint64_t *ticks, char *err,
			    size_t errlen)
{
	const char *p = len ? memrchr(text, ')', len) : NULL, *end = text + len;
	uint64_t v[2] = { 0, 0 }, x;
	unsigned field = 2, k;   /* after ')': the 3rd field (state) comes next */

	if (!p)
		return errorfn(err, errlen, "task stat: no ')' after the command name");
	for (p++; p < end && field < 15;) {
		if (*p++ != ' ')
			return errorfn(err, errlen, "task stat: fields not separated by one space");
		field++;
		for (x = 0, k = 0; p < end && *p != ' ' && *p != '\n'; p++, k++) {
			if (field < 14)
				continue;          /* state, ppid ... cstime: only 14 and 15 read */
			if (*p < '0' || *p > '9' || k >= 19)
				return errorfn(err, errlen, "task stat: field %u is not a number", field);
			x = x * 10 + (uint64_t)(*p - '0');
		}
		if (!k)
			return errorfn(err, errlen, "task stat: field %u is empty", field);
		if (field >= 14)
			v[field - 14] = x;
	}
	if (field < 15)
		return errorfn(err, errlen, "task stat: %u fields, utime and stime are 14 and 15", field);
	*ticks = v[0] + v[1];
	return 0;
}

/*
 * A pressure file's some and full totals (µs) into *some, *full; 0 for a file
 * absent, or one the kernel refuses to read (psi=0: EOPNOTSUPP), closed then.
 */
static int read_psi(int *fd, const char *what, uint64_t *some, uint64_t *full, char *err,
		    size_t errlen)
{
	char buf[PSI_TEXT_MAX + 1], msg[PROTO_ERR_MAX];
	struct psi p;
	size_t len;

	*some = *full = 0;
	if (*fd < 0)
		return 0;
	if (read_all(*fd, what, buf, PSI_TEXT_MAX, &len, msg, sizeof(msg)) < 0) {
		if (errno != EOPNOTSUPP)
			return errorfn(err, errlen, "%s", msg);
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (psi_parse(buf, len, &p, msg, sizeof(msg)) < 0)
		return errorfn(err, errlen, "%s: %s", what, msg);
	*some = p.some.total;
	*full = p.full.present ? p.full.total : 0;
	return 0;
}

/* Pressure totals and kswapd's CPU time now. */
static int read_monitors(struct sampler *s, struct sampler_reading *out, char *err,
			 size_t errlen)
{
	uint64_t ticks = 0, t;
	char buf[1024];
	size_t len;
	unsigned i;

	if (read_psi(&s->mpsi_fd, "memory.pressure", &out->memcg_psi_some, &out->memcg_psi_full,
		     err, errlen) < 0 ||
	    read_psi(&s->psi_fd, "/proc/pressure/memory", &out->psi_some, &out->psi_full, err,
		     errlen) < 0)
		return -1;
	for (i = 0; i < s->nkswapd; i++) {
		if (read_all(s->kswapd_fd[i], "kswapd's stat", buf, sizeof(buf) - 1, &len, err,
			       errlen) < 0 ||
		    sampler_parse_task_stat(buf, len, &t, err, errlen) < 0)
			return -1;
		ticks += t;
	}
	out->kswapd_ms = s->clk_tck > 0 ? ticks * 1000 / (uint64_t)s->clk_tck : 0;
	return 0;
}

/* The swap readings, through s->buf: vmstat, then events, then swap.current. */
static int read_swap(struct sampler *s, struct sampler_reading *out, char *err, size_t errlen)
{
	size_t vlen, elen, slen = 0;
	char *events, *cur = NULL;

	if (read_all(s->vmstat_fd, "/proc/vmstat", s->buf, SAMPLER_STAT_MAX / 2, &vlen, err,
		       errlen) < 0)
		return -1;
	s->vmstat_len = vlen;
	events = s->buf + vlen;
	if (read_all(s->events_fd, "memory.events", events, 4095, &elen, err, errlen) < 0)
		return -1;
	if (s->swap_fd >= 0) {
		cur = events + elen;
		if (read_all(s->swap_fd, "memory.swap.current", cur, 63, &slen, err, errlen) < 0)
			return -1;
		cur[slen] = '\0';
	}
	return sampler_parse_swap(s->buf, vlen, events, elen, cur, out, err, errlen);
}

/* File f's pages in the page cache, by cachestat(2) over its whole length. */
static int residency_cachestat(struct sampler *s, unsigned f, uint64_t *ret, char *err,
			       size_t errlen)
{
	struct sampler_cachestat cs;

	if (do_cachestat(s->file_fd[f], 0, s->file_size[f], &cs) < 0)
		return errorfn(err, errlen,
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
			return errorfn(err, errlen, "mmap '%s' for mincore at %llu: %s",
					  s->file_name[f], (unsigned long long)off, strerror(errno));
		rc = mincore(map, (size_t)len, s->vec);
		if (rc < 0)
			errorfn(err, errlen, "mincore on '%s' at %llu: %s", s->file_name[f],
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

static int open_lru_gen(struct sampler *s, char *err, size_t errlen);

void sampler_init(struct sampler *s)
{
	unsigned i;

	memset(s, 0, sizeof(*s));
	s->stat_fd = s->gen_fd = s->vmstat_fd = s->events_fd = s->swap_fd = -1;
	s->mpsi_fd = s->psi_fd = -1;
	for (i = 0; i < PROTO_MAX_FILES; i++)
		s->file_fd[i] = -1;
}

/* A pressure file, or -1 where the kernel has none (no PSI: no such file). */
static int open_psi(const char *path, char *err, size_t errlen, int *ret)
{
	*ret = open(path, O_RDONLY | O_CLOEXEC);
	if (*ret < 0 && errno != ENOENT && errno != EOPNOTSUPP)
		return errorfn(err, errlen, "open '%s': %s", path, strerror(errno));
	return 0;
}

/* 1 if the numbered /proc entry name is a kswapd thread (its comm "kswapdN"). */
static int is_kswapd(const char *name)
{
	char path[64], comm[32];
	ssize_t n;
	int fd;

	if (strspn(name, "0123456789") != strlen(name))
		return 0;
	fmtcut(path, sizeof(path), "/proc/%s/comm", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	return n > 6 && !strncmp(comm, "kswapd", 6);
}

/*
 * The memcg's memory.pressure, the guest's /proc/pressure/memory, and each
 * kswapd thread's stat (found once: they live as long as the kernel).
 */
static int open_monitors(struct sampler *s, const char *memcg_dir, char *err, size_t errlen)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	fmtcut(path, sizeof(path), "%s/memory.pressure", memcg_dir);
	if (open_psi(path, err, errlen, &s->mpsi_fd) < 0 ||
	    open_psi("/proc/pressure/memory", err, errlen, &s->psi_fd) < 0)
		return -1;
	s->clk_tck = sysconf(_SC_CLK_TCK);
	if (!(d = opendir("/proc")))
		return errorfn(err, errlen, "opendir /proc: %s", strerror(errno));
	while ((de = readdir(d)) && s->nkswapd < SAMPLER_KSWAPD_MAX) {
		if (!is_kswapd(de->d_name))
			continue;
		fmtcut(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((s->kswapd_fd[s->nkswapd] = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
			s->nkswapd++;
	}
	closedir(d);
	return 0;
}

/* /proc/vmstat, memory.events and, where the kernel accounts swap, memory.swap.current. */
static int open_swap(struct sampler *s, const char *memcg_dir, char *err, size_t errlen)
{
	char path[4096];

	s->vmstat_fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	if (s->vmstat_fd < 0)
		return errorfn(err, errlen, "open /proc/vmstat: %s", strerror(errno));
	fmtcut(path, sizeof(path), "%s/memory.events", memcg_dir);
	s->events_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->events_fd < 0)
		return errorfn(err, errlen, "open '%s': %s", path, strerror(errno));
	fmtcut(path, sizeof(path), "%s/memory.swap.current", memcg_dir);
	s->swap_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->swap_fd < 0 && errno != ENOENT)
		return errorfn(err, errlen, "open '%s': %s", path, strerror(errno));
	return 0;
}

int sampler_open(struct sampler *s, const char *memcg_dir, const char *memcg_path,
		 char *const files[], unsigned nfiles, int use_cachestat, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;
	unsigned f;

	sampler_init(s);
	s->use_cachestat = use_cachestat;
	if (nfiles > PROTO_MAX_FILES)
		return errorfn(err, errlen, "%u files, at most %d", nfiles, PROTO_MAX_FILES);
	fmtcut(path, sizeof(path), "%s/memory.stat", memcg_dir);
	s->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->stat_fd < 0)
		return errorfn(err, errlen, "open '%s': %s", path, strerror(errno));
	if (open_swap(s, memcg_dir, err, errlen) < 0 || open_monitors(s, memcg_dir, err, errlen) < 0)
		return -1;
	for (f = 0; f < nfiles; f++) {
		s->file_name[f] = files[f];
		s->file_fd[f] = open(files[f], O_RDONLY | O_CLOEXEC);
		s->nfiles++;
		if (s->file_fd[f] < 0 || fstat(s->file_fd[f], &st) < 0)
			return errorfn(err, errlen, "open '%s': %s", files[f], strerror(errno));
		s->file_size[f] = (uint64_t)st.st_size;
	}
	fmtcut(s->memcg_path, sizeof(s->memcg_path), "%s", memcg_path);
	s->buf = malloc(SAMPLER_STAT_MAX + 1);
	s->vec = malloc(SAMPLER_WINDOW / page_size());
	if (!s->buf || !s->vec)
		return errorfn(err, errlen, "sampler buffers: %s", strerror(ENOMEM));
	return open_lru_gen(s, err, errlen);
}

/* lru_gen_full if debugfs has it, else lru_gen, else nothing (all optional). */
static int open_lru_gen(struct sampler *s, char *err, size_t errlen)
{
	s->gen_full = 1;
	s->gen_fd = open(SAMPLER_LRU_FULL, O_RDONLY | O_CLOEXEC);
	if (s->gen_fd < 0) {
		s->gen_full = 0;
		s->gen_fd = open(SAMPLER_LRU_GEN, O_RDONLY | O_CLOEXEC);
	}
	if (s->gen_fd < 0)
		return 0;
	s->gen_buf = malloc(SAMPLER_GEN_MAX + 1);
	s->lru = calloc(1, sizeof(*s->lru));
	if (!s->gen_buf || !s->lru)
		return errorfn(err, errlen, "lru_gen buffers: %s", strerror(ENOMEM));
	return 0;
}

void sampler_lru_gen_off(struct sampler *s)
{
	if (s->gen_fd >= 0)
		close(s->gen_fd);
	s->gen_fd = -1;
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

/* The oldest generation a node has of either type (lru_gen_full shows gone ones too). */
static uint64_t oldest_seq(const struct lrugen_node *nd)
{
	uint64_t lo = nd->min_seq[LRUGEN_ANON] < nd->min_seq[LRUGEN_FILE] ?
		      nd->min_seq[LRUGEN_ANON] : nd->min_seq[LRUGEN_FILE];

	return lo == LRUGEN_SEQ_NONE ? nd->gen[0].seq : lo;
}

int sampler_parse_lru(const char *buf, size_t len, int full, const char *memcg_path,
		      struct lrugen_memcg *m, struct sampler_reading *out,
		      char *err, size_t errlen)
{
	struct lrugen_query q = { .full = full, .path = memcg_path };
	uint64_t lo;
	unsigned i;
	int rc;

	out->gen_valid = out->lru_refused = 0;
	out->lru_nodes = 0;
	out->min_seq = out->max_seq = 0;
	rc = lrugen_parse(buf, len, &q, m, err, errlen);
	if (rc == LRUGEN_ENOMEMCG)
		return 0;
	if (rc < 0) {
		out->lru_refused = 1;
		return -1;
	}
	for (i = 0; i < m->nnodes; i++) {
		lo = oldest_seq(&m->node[i]);
		if (!out->gen_valid || lo < out->min_seq)
			out->min_seq = lo;
		if (!out->gen_valid || m->node[i].max_seq > out->max_seq)
			out->max_seq = m->node[i].max_seq;
		out->gen_valid = 1;
	}
	out->lru_nodes = m->nnodes;
	return 0;
}

/*
 * A generation's tiers into the message, per type: refaulted, evicted and
 * protected where lru_gen_full gave history (0 where it gave averages).
 */
static void lru_tiers(const struct lrugen_gen *g, struct proto_lru *out)
{
	struct proto_u64s *c[LRUGEN_NTYPES][3] = {
		{ &out->anon_refaulted, &out->anon_evicted, &out->anon_protected },
		{ &out->file_refaulted, &out->file_evicted, &out->file_protected },
	};
	const struct lrugen_tier *tr;
	unsigned t, k;
	int rep;

	for (t = 0; t < LRUGEN_NTYPES; t++)
		for (k = 0; k < LRUGEN_TIERS; k++) {
			rep = g->kind[t] == LRUGEN_HIST;
			tr = &g->tier[t][k];
			c[t][0]->v[c[t][0]->n++] = rep ? tr->refaulted : 0;
			c[t][1]->v[c[t][1]->n++] = rep ? tr->evicted : 0;
			c[t][2]->v[c[t][2]->n++] = rep ? tr->protected : 0;
		}
}

void sampler_lru_msg(const struct lrugen_memcg *m, unsigned i, uint64_t seq,
		     struct proto_lru *out)
{
	const struct lrugen_node *nd = &m->node[i];
	const struct lrugen_gen *g;
	int full = m->format != LRUGEN_BRIEF;
	unsigned u, n;

	memset(out, 0, sizeof(*out));
	out->seq = seq;
	out->node = i;
	out->nid = nd->nid;
	for (u = 0; u < nd->ngens; u++) {
		g = &nd->gen[u];
		if (full && g->gone[LRUGEN_ANON] && g->gone[LRUGEN_FILE])
			continue;
		n = (unsigned)out->gen.n++;
		out->gen.v[n] = g->seq;
		out->age_ms.v[n] = g->age_ms;
		out->anon.v[n] = g->pages[LRUGEN_ANON];
		out->file.v[n] = g->pages[LRUGEN_FILE];
		out->rep.v[n] = (uint64_t)(g->kind[LRUGEN_ANON] == LRUGEN_HIST) << LRUGEN_ANON |
				(uint64_t)(g->kind[LRUGEN_FILE] == LRUGEN_HIST) << LRUGEN_FILE;
		if (full)
			lru_tiers(g, out);
	}
	out->age_ms.n = out->anon.n = out->file.n = out->rep.n = out->gen.n;
}

/*
 * lru_gen's debugfs view of our memcg. A text refused (cut at the bound, not
 * of a known kernel) gives no generations this interval, counted in the
 * sample; the first such reason goes to the console.
 */
static void read_lru_gen(struct sampler *s, struct sampler_reading *out)
{
	char why[PROTO_ERR_MAX];
	size_t len = 0;

	memset(why, 0, sizeof(why));
	out->gen_valid = out->lru_refused = 0;
	out->lru_nodes = 0;
	if (s->gen_fd < 0)
		return;
	if (read_whole(s->gen_fd, s->gen_buf, SAMPLER_GEN_MAX, &len) < 0) {
		out->lru_refused = 1;
		fmtcut(why, sizeof(why), "unreadable or larger than %d bytes", SAMPLER_GEN_MAX);
	} else if (sampler_parse_lru(s->gen_buf, len, s->gen_full, s->memcg_path, s->lru, out,
				     why, sizeof(why)) == 0) {
		return;
	}
	if (!s->gen_warned++)
		fprintf(stderr, "agent: %s: %s (no generations sent while so)\n",
			s->gen_full ? SAMPLER_LRU_FULL : SAMPLER_LRU_GEN, why);
}

const char *sampler_vmstat(const struct sampler *s, size_t *len)
{
	*len = s->vmstat_len;
	return s->buf;
}

int sampler_read(struct sampler *s, struct sampler_reading *out, char *err, size_t errlen)
{
	size_t len = 0;

	if (read_all(s->stat_fd, "memory.stat", s->buf, SAMPLER_STAT_MAX, &len, err,
		       errlen) < 0 ||
	    sampler_parse_stat(s->buf, len, out, err, errlen) < 0 ||
	    read_swap(s, out, err, errlen) < 0 || read_monitors(s, out, err, errlen) < 0 ||
	    sampler_residency(s, &out->resident, err, errlen) < 0)
		return -1;
	read_lru_gen(s, out);
	return 0;
}

/*
 * The deltas of the counters read beside memory.stat (swap traffic, OOM
 * kills and the memcg's other events, pressure stalls, kswapd's CPU time): one that went backwards is
 * refused, as memory.stat's are.
 */
static int fill_counters(const struct sampler_reading *now, const struct sampler_reading *prev,
			 struct proto_sample *out, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t from, to;
	} mon[] = {
		{ "pswpin", offsetof(struct sampler_reading, pswpin),
		  offsetof(struct proto_sample, pswpin) },
		{ "pswpout", offsetof(struct sampler_reading, pswpout),
		  offsetof(struct proto_sample, pswpout) },
		{ "oom_kill", offsetof(struct sampler_reading, oom_kill),
		  offsetof(struct proto_sample, oom_kill) },
		{ "memory.events high", offsetof(struct sampler_reading, memcg_high),
		  offsetof(struct proto_sample, memcg_high) },
		{ "memory.events max", offsetof(struct sampler_reading, memcg_max),
		  offsetof(struct proto_sample, memcg_max) },
		{ "memory.events oom", offsetof(struct sampler_reading, memcg_oom),
		  offsetof(struct proto_sample, memcg_oom) },
		{ "memory.pressure some", offsetof(struct sampler_reading, memcg_psi_some),
		  offsetof(struct proto_sample, memcg_psi_some_us) },
		{ "memory.pressure full", offsetof(struct sampler_reading, memcg_psi_full),
		  offsetof(struct proto_sample, memcg_psi_full_us) },
		{ "/proc/pressure/memory some", offsetof(struct sampler_reading, psi_some),
		  offsetof(struct proto_sample, psi_some_us) },
		{ "/proc/pressure/memory full", offsetof(struct sampler_reading, psi_full),
		  offsetof(struct proto_sample, psi_full_us) },
		{ "kswapd's CPU time", offsetof(struct sampler_reading, kswapd_ms),
		  offsetof(struct proto_sample, kswapd_ms) },
	};
	uint64_t a, b;
	size_t i;

	for (i = 0; i < ARRAY_LEN(mon); i++) {
		a = *(const uint64_t *)((const char *)now + mon[i].from);
		b = *(const uint64_t *)((const char *)prev + mon[i].from);
		if (a < b)
			return errorfn(err, errlen, "%s went backwards: %llu after %llu", mon[i].name,
				       (unsigned long long)a, (unsigned long long)b);
		*(uint64_t *)((char *)out + mon[i].to) = a - b;
	}
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
			return errorfn(err, errlen,
					  "memory.stat '%s' went backwards: %llu after %llu",
					  stat_keys[i].key, (unsigned long long)now->stat[i],
					  (unsigned long long)prev->stat[i]);
		*dst = now->stat[i] - prev->stat[i];
	}
	if (fill_counters(now, prev, out, err, errlen) < 0)
		return -1;
	out->swap_current = now->swap_current;
	out->resident = now->resident;
	out->gen_valid = (uint64_t)now->gen_valid;
	out->min_seq = now->gen_valid ? now->min_seq : 0;
	out->max_seq = now->gen_valid ? now->max_seq : 0;
	out->lru_nodes = now->lru_nodes;
	out->lru_refused = (uint64_t)now->lru_refused;
	return 0;
}

void sampler_close(struct sampler *s)
{
	unsigned f;

	if (s->stat_fd >= 0)
		close(s->stat_fd);
	if (s->vmstat_fd >= 0)
		close(s->vmstat_fd);
	if (s->events_fd >= 0)
		close(s->events_fd);
	if (s->swap_fd >= 0)
		close(s->swap_fd);
	if (s->mpsi_fd >= 0)
		close(s->mpsi_fd);
	if (s->psi_fd >= 0)
		close(s->psi_fd);
	for (f = 0; f < s->nkswapd; f++)
		close(s->kswapd_fd[f]);
	if (s->gen_fd >= 0)
		close(s->gen_fd);
	for (f = 0; f < s->nfiles && f < PROTO_MAX_FILES; f++)
		if (s->file_fd[f] >= 0)
			close(s->file_fd[f]);
	free(s->buf);
	free(s->vec);
	free(s->gen_buf);
	free(s->lru);
	sampler_init(s);
}
