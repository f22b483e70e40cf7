/* counters.c -- every interval's named counters (PROTO_COUNTERS): /proc/vmstat whole
 * (the sampler's read of it),
 * zram's mm_stat, zswap's debugfs files, the reclaim stall histogram; the start's
 * values once, then only what changed. */
#define _GNU_SOURCE
#include "counters.h"
#include "fdio.h"
#include "common/fmt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* mm_stat's columns as Documentation/admin-guide/blockdev/zram.rst names them. */
static const char *const mm_stat_keys[] = {
	"orig_data_size", "compr_data_size", "mem_used_total", "mem_limit", "mem_used_max",
	"same_pages", "pages_compacted", "huge_pages", "huge_pages_since",
};
#define MM_STAT_MIN  7
#define MM_STAT_MAX  (sizeof(mm_stat_keys) / sizeof(mm_stat_keys[0]))

/* a source's keys read here fit the host's budget of them (common/proto.h) */
_Static_assert(MM_STAT_MAX <= CS_ZRAM_KEYS && STALL_BUCKETS + 2 <= CS_STALL_KEYS,
	       "zram's and the stalls' keys within PROTO_COUNTER_SRCS' budgets");

void counters_init(struct counters *c)
{
	unsigned i;

	memset(c, 0, offsetof(struct counters, prev));
	c->zram_fd = -1;
	for (i = 0; i < CS_COUNT; i++)
		c->prev[i].n = c->now[i].n = 0;
}

/* One key and value into the set; -1 when it is full. */
static int set_add(struct counter_set *out, const char *key, size_t klen, uint64_t v)
{
	if (out->n == COUNTERS_KEYS_MAX || klen >= PROTO_COUNTER_KEY_MAX)
		return -1;
	memcpy(out->key[out->n], key, klen);
	out->key[out->n][klen] = '\0';
	out->v[out->n++] = v;
	return 0;
}

struct lines_arg {
	const char *what;
	struct counter_set *out;
};

/* A line's key and value into the set: names and values the protocol can carry. */
static int line_keep(void *arg, const char *key, size_t klen, uint64_t v, unsigned lineno,
		     char *err, size_t errlen)
{
	struct lines_arg *a = arg;

	if (klen >= PROTO_COUNTER_KEY_MAX || v >= (uint64_t)PROTO_COUNTER_ABS_MAX)
		return errorfn(err, errlen, "%s line %u: a key over %d bytes or a value over 2^62",
			       a->what, lineno, PROTO_COUNTER_KEY_MAX - 1);
	if (set_add(a->out, key, klen, v) < 0)
		return errorfn(err, errlen, "%s: more than %d keys", a->what, COUNTERS_KEYS_MAX);
	return 0;
}

int counters_parse_lines(const char *what, const char *text, size_t len, struct counter_set *out,
			 char *err, size_t errlen)
{
	struct lines_arg a = { what, out };

	out->n = 0;
	return lrugen_kv_lines(what, text, len, line_keep, &a, err, errlen);
}

int counters_parse_mm_stat(const char *text, size_t len, struct counter_set *out, char *err,
			   size_t errlen)
{
	const char *p = text, *end = text + len;
	unsigned n = 0;
	uint64_t v;

	out->n = 0;
	if (!len || text[len - 1] != '\n' || (len > 1 && text[len - 2] == ' '))
		return errorfn(err, errlen, "zram mm_stat: not one line of numbers");
	for (end--; p < end; n++) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		for (v = 0; p < end && *p >= '0' && *p <= '9'; p++) {
			if (v > ((uint64_t)PROTO_COUNTER_ABS_MAX - 1 - (uint64_t)(*p - '0')) / 10)
				return errorfn(err, errlen, "zram mm_stat: column %u over 2^62", n + 1);
			v = v * 10 + (uint64_t)(*p - '0');
		}
		if ((p < end && *p != ' ') || (p > text && p[-1] == ' ') || n == MM_STAT_MAX)
			return errorfn(err, errlen, "zram mm_stat: expected %d to %zu numbers",
				       MM_STAT_MIN, MM_STAT_MAX);
		set_add(out, mm_stat_keys[n], strlen(mm_stat_keys[n]), v);
	}
	if (n < MM_STAT_MIN)
		return errorfn(err, errlen, "zram mm_stat: %u numbers, expected %d to %zu", n,
			       MM_STAT_MIN, MM_STAT_MAX);
	return 0;
}

void counters_stall_set(const struct stalls *s, struct counter_set *out)
{
	char key[PROTO_COUNTER_KEY_MAX];
	unsigned k;

	out->n = 0;
	for (k = 0; k < STALL_BUCKETS; k++) {
		stalls_bucket_key(k, key, sizeof(key));
		set_add(out, key, strlen(key), s->hist[k]);
	}
	set_add(out, "lost", 4, s->lost);
	set_add(out, "refused", 7, s->refused);
}

/* zswap's debugfs files, each a number, found once (none: no zswap). */
static void find_zswap(struct counters *c)
{
	struct dirent *de;
	DIR *d = opendir(COUNTERS_ZSWAP);

	if (!d)
		return;
	while ((de = readdir(d)) && c->nzswap < COUNTERS_ZSWAP_MAX)
		if (de->d_name[0] != '.' && proto_counter_key_ok(de->d_name))
			fmtcut(c->zswap_key[c->nzswap++], PROTO_COUNTER_KEY_MAX, "%s", de->d_name);
	closedir(d);
}

/*
 * One zswap file's number ("123\n") into the set. debugfs's attribute files
 * cannot seek (pread fails): each is opened for every read.
 */
static int read_zswap_file(struct counters *c, unsigned i, struct counter_set *out, char *err,
			   size_t errlen)
{
	char path[128];
	uint64_t v;
	int rc;

	fmtcut(path, sizeof(path), COUNTERS_ZSWAP "/%s", c->zswap_key[i]);
	if ((rc = read_count(path, &v)) || v >= (uint64_t)PROTO_COUNTER_ABS_MAX)
		return errorfn(err, errlen, "read %s: %s", path,
			       rc && rc != EINVAL ? strerror(rc) : "not a count below 2^62");
	set_add(out, c->zswap_key[i], strlen(c->zswap_key[i]), v);
	return 0;
}

/* Every source now into sets, /proc/vmstat's from its text vm. */
static int read_sets(struct counters *c, const char *vm, size_t vlen, struct counter_set *sets,
		     char *err, size_t errlen)
{
	size_t len;
	unsigned i;

	if (counters_parse_lines("/proc/vmstat", vm, vlen, &sets[CS_VMSTAT], err, errlen) < 0)
		return -1;
	sets[CS_ZRAM].n = sets[CS_ZSWAP].n = 0;
	if (c->zram_fd >= 0) {
		if (read_whole(c->zram_fd, c->text, COUNTERS_TEXT_MAX, &len) < 0)
			return errorfn(err, errlen, "read " COUNTERS_ZRAM ": %s", strerror(errno));
		if (counters_parse_mm_stat(c->text, len, &sets[CS_ZRAM], err, errlen) < 0)
			return -1;
	}
	for (i = 0; i < c->nzswap; i++)
		if (read_zswap_file(c, i, &sets[CS_ZSWAP], err, errlen) < 0)
			return -1;
	if (stalls_drain(c->stalls, err, errlen) < 0)
		return -1;
	counters_stall_set(c->stalls, &sets[CS_STALL]);
	return 0;
}

int counters_open(struct counters *c, struct stalls *stalls, const char *vm, size_t vlen,
		  char *err, size_t errlen)
{
	counters_init(c);
	c->stalls = stalls;
	c->zram_fd = open(COUNTERS_ZRAM, O_RDONLY | O_CLOEXEC);
	if (c->zram_fd < 0 && errno != ENOENT)
		return errorfn(err, errlen, "open " COUNTERS_ZRAM ": %s", strerror(errno));
	find_zswap(c);
	return read_sets(c, vm, vlen, c->prev, err, errlen);
}

int counters_read(struct counters *c, const char *vm, size_t vlen, struct proto_sample *smp,
		  char *err, size_t errlen)
{
	if (read_sets(c, vm, vlen, c->now, err, errlen) < 0)
		return -1;
	smp->stalls = c->stalls->count - c->stall_count;
	smp->stall_us = c->stalls->sum_us - c->stall_us;
	c->stall_count = c->stalls->count;
	c->stall_us = c->stalls->sum_us;
	return 0;
}

/* Key i of now's value before: where it was last time, else searched; 0 if new. */
static uint64_t before(const struct counter_set *prev, const struct counter_set *now, unsigned i)
{
	unsigned j;

	if (i < prev->n && !strcmp(prev->key[i], now->key[i]))
		return prev->v[i];
	for (j = 0; j < prev->n; j++)
		if (!strcmp(prev->key[j], now->key[i]))
			return prev->v[j];
	return 0;
}

struct batch {
	struct proto_msg m;
	int (*send)(void *arg, const struct proto_msg *m);
	void *arg;
};

/* The batch sent if it holds anything (or must be: a source's base, even empty), then emptied. */
static int flush(struct batch *b, int always)
{
	int rc = b->m.u.counters.values.n || always ? b->send(b->arg, &b->m) : 0;

	b->m.u.counters.values.n = 0;
	return rc;
}

/* A key's value into the batch, sent when full (counted in *sent); 0 is not sent. */
static int put(struct batch *b, const char *key, int64_t v, unsigned *sent)
{
	struct proto_kv *kv = &b->m.u.counters.values;

	if (!v)
		return 0;
	fmtcut(kv->key[kv->n], PROTO_COUNTER_KEY_MAX, "%s", key);
	kv->value[kv->n++] = v;
	if (kv->n == PROTO_COUNTERS_MAX)
		(*sent)++;
	return kv->n == PROTO_COUNTERS_MAX ? flush(b, 0) : 0;
}

/*
 * One source's values (prev NULL: at least one message, so the host knows
 * the source's start or end came) or their change from prev, in batches.
 */
static int send_set(struct batch *b, unsigned src, const struct counter_set *now,
		    const struct counter_set *prev)
{
	unsigned i, sent = 0;

	fmtcut(b->m.u.counters.src, sizeof(b->m.u.counters.src), "%s", proto_counter_src_names[src]);
	for (i = 0; i < now->n; i++)
		if (put(b, now->key[i], prev ? (int64_t)(now->v[i] - before(prev, now, i))
					     : (int64_t)now->v[i], &sent) < 0)
			return -1;
	return flush(b, !prev && !sent);
}

int counters_send(struct counters *c, uint64_t seq,
		  int (*send)(void *arg, const struct proto_msg *m), void *arg,
		  char *err, size_t errlen)
{
	struct batch b = { .m = { .type = PROTO_COUNTERS }, .send = send, .arg = arg };
	unsigned src;

	for (src = 0; src < CS_COUNT && !c->based; src++) {
		b.m.u.counters.seq = 0;
		b.m.u.counters.at = CA_START;
		if (send_set(&b, src, &c->prev[src], NULL) < 0)
			return errorfn(err, errlen, "channel: cannot send counters");
	}
	c->based = 1;
	for (src = 0; src < CS_COUNT; src++) {
		b.m.u.counters.seq = seq;
		b.m.u.counters.at = CA_CHANGE;
		if (send_set(&b, src, &c->now[src], &c->prev[src]) < 0)
			return errorfn(err, errlen, "channel: cannot send counters");
		c->prev[src] = c->now[src];
	}
	return 0;
}

int counters_send_end(struct counters *c, uint64_t seq,
		      int (*send)(void *arg, const struct proto_msg *m), void *arg,
		      char *err, size_t errlen)
{
	struct batch b = { .m = { .type = PROTO_COUNTERS }, .send = send, .arg = arg };
	unsigned src;

	for (src = 0; src < CS_COUNT && c->based; src++) {
		b.m.u.counters.seq = seq;
		b.m.u.counters.at = CA_END;
		if (send_set(&b, src, &c->prev[src], NULL) < 0)
			return errorfn(err, errlen, "channel: cannot send counters");
	}
	return 0;
}

void counters_close(struct counters *c)
{

	if (c->zram_fd >= 0)
		close(c->zram_fd);
	counters_init(c);
}
