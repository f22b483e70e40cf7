/* hugepages.c -- multi-size THP in the guest: the sizes the kernel has (its
 * hugepages-<N>kB directories), their enabled knobs written and read back,
 * and their per-size counters (guest/hugepages.h). */
#define _GNU_SOURCE
#include "hugepages.h"
#include "fdio.h"
#include "common/err.h"
#include "common/fmt.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_PREFIX "hugepages-"

void hugepages_active(const char *text, char *out, size_t len)
{
	const char *lb = strchr(text, '['), *rb = lb ? strchr(lb, ']') : NULL;
	size_t n = rb ? (size_t)(rb - lb - 1) : 0;

	if (!rb || n + 1 > len)
		n = 0;
	memcpy(out, lb ? lb + 1 : "", n);
	out[n] = '\0';
}

/*
 * The size a directory's name "hugepages-<N>kB" gives, in KiB, into
 * *ret_kib: 0, or -1 for any other name.
 */
static int size_of_name(const char *name, uint64_t *ret_kib)
{
	size_t plen = strlen(SIZE_PREFIX), n;
	char size[16];

	if (strncmp(name, SIZE_PREFIX, plen))
		return -1;
	name += plen;
	n = strspn(name, "0123456789");
	if (!n || n + 2 > sizeof(size) || strcmp(name + n, "kB"))
		return -1;
	memcpy(size, name, n);
	memcpy(size + n, "K", 2);
	return mthp_size_parse(size, ret_kib);
}

/* Size kib's file name (enabled, stats/swpout) under dir into path; -1 with err if too long. */
static int size_path(char *path, size_t len, const char *dir, uint64_t kib, const char *name,
		     char *err, size_t errlen)
{
	if (fmtbuf(path, len, "%s/" SIZE_PREFIX "%" PRIu64 "kB/%s", dir, kib, name) < 0)
		return errorfn(err, errlen, "mthp: the path of %s under '%s' is too long", name,
			       dir);
	return 0;
}

/*
 * Size kib's enabled knob under dir read into *ret (its policy), 1; 0 if
 * the size has no enabled knob (a size only files use); -1 with err.
 */
static int read_policy(const char *dir, uint64_t kib, unsigned *ret, char *err, size_t errlen)
{
	char path[512], text[128], word[32];
	int e, policy;

	if (size_path(path, sizeof(path), dir, kib, "enabled", err, errlen) < 0)
		return -1;
	e = read_text(path, text, sizeof(text));
	if (e == ENOENT)
		return 0;
	if (e)
		return errorfn(err, errlen, "read '%s': %s", path, strerror(e));
	hugepages_active(text, word, sizeof(word));
	policy = mthp_policy_parse(word);
	if (policy < 0)
		return errorfn(err, errlen, "'%s' reads '%.60s': no policy in brackets", path, text);
	*ret = (unsigned)policy;
	return 1;
}

int hugepages_read(const char *dir, struct mthp_list *ret, char *err, size_t errlen)
{
	struct mthp_list l = { 0 };
	struct dirent *de;
	unsigned policy = 0;
	uint64_t kib;
	int rc = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			return errorfn(err, errlen, "opendir '%s': %s", dir, strerror(errno));
		*ret = l;
		return 0;
	}
	while (rc == 0 && (de = readdir(d))) {
		if (size_of_name(de->d_name, &kib) < 0)
			continue;
		rc = read_policy(dir, kib, &policy, err, errlen);
		if (rc == 1 && mthp_list_add(&l, kib, policy) < 0)
			rc = errorfn(err, errlen, "mthp: more than %d sizes under '%s'", MTHP_MAX, dir);
		rc = rc < 0 ? -1 : 0;
	}
	closedir(d);
	if (rc == 0)
		*ret = l;
	return rc;
}

/* The sizes of l as "16K 32K ..." into out (cut to fit). */
static void sizes_text(const struct mthp_list *l, char *out, size_t len)
{
	size_t o = 0;
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < l->n && o + 1 < len; i++) {
		fmtcut(out + o, len - o, "%s%" PRIu64 "K", i ? " " : "", l->k[i].kib);
		o += strlen(out + o);
	}
}

/*
 * Every size of want is one the kernel has (have): 0, or -1 with err
 * beginning "unsupported: ".
 */
static int check_sizes(const char *dir, const struct mthp_list *want, const struct mthp_list *have,
		       char *err, size_t errlen)
{
	char sizes[128];
	unsigned i;

	if (!have->n)
		return errorfn(err, errlen, "unsupported: mthp requested but '%s' has no "
			       SIZE_PREFIX "<N>kB sizes (multi-size THP is Linux 6.8 and later)", dir);
	for (i = 0; i < want->n; i++)
		if (mthp_list_find(have, want->k[i].kib) < 0) {
			sizes_text(have, sizes, sizeof(sizes));
			return errorfn(err, errlen, "unsupported: mthp %" PRIu64 "K requested but '%s/"
				       SIZE_PREFIX "%" PRIu64 "kB/enabled' is missing (this kernel's "
				       "sizes: %s)", want->k[i].kib, dir, want->k[i].kib, sizes);
		}
	return 0;
}

int hugepages_apply(const char *dir, const char *want, struct mthp_list *ret_read, char *out,
		    size_t len, char *err, size_t errlen)
{
	struct mthp_list w, have;
	char path[512], msg[PROTO_ERR_MAX];
	unsigned i;
	int e;

	if (mthp_list_parse(want, &w, msg, sizeof(msg)) < 0)
		return errorfn(err, errlen, "job: %s", msg);
	if (hugepages_read(dir, &have, err, errlen) < 0 ||
	    (w.n && check_sizes(dir, &w, &have, err, errlen) < 0))
		return -1;
	for (i = 0; i < w.n; i++) {
		if (size_path(path, sizeof(path), dir, w.k[i].kib, "enabled", err, errlen) < 0)
			return -1;
		e = write_text(path, mthp_policy_names[w.k[i].policy]);
		if (e)
			return errorfn(err, errlen, "write '%s' to '%s': %s",
				       mthp_policy_names[w.k[i].policy], path, strerror(e));
	}
	if (hugepages_read(dir, ret_read, err, errlen) < 0)
		return -1;
	if (mthp_list_format(ret_read, out, len) < 0)
		return errorfn(err, errlen, "mthp: %u sizes read back do not fit %zu bytes",
			       ret_read->n, len);
	return 0;
}

/*
 * Size kib's counter name (stats/NAME) under dir into *ret: 1; 0 if the
 * kernel does not count it; -1 with err.
 */
static int read_counter(const char *dir, uint64_t kib, const char *name, uint64_t *ret,
			char *err, size_t errlen)
{
	char path[512], stat[64];
	int e;

	if (fmtbuf(stat, sizeof(stat), "stats/%s", name) < 0)
		return errorfn(err, errlen, "mthp: counter name '%s' is too long", name);
	if (size_path(path, sizeof(path), dir, kib, stat, err, errlen) < 0)
		return -1;
	e = read_count(path, ret);
	if (e == ENOENT)
		return 0;
	if (e == EINVAL)
		return errorfn(err, errlen, "'%s': not a count", path);
	if (e)
		return errorfn(err, errlen, "read '%s': %s", path, strerror(e));
	return 1;
}

int hugepages_counters(const char *dir, const struct mthp_list *sizes, struct proto_summary *ret,
		       char *err, size_t errlen)
{
	uint64_t alloc, swpout, kib, n = 0;
	unsigned i;
	int a, s;

	for (i = 0; i < sizes->n; i++) {
		if (sizes->k[i].policy == MTHP_NEVER)
			continue;
		kib = sizes->k[i].kib;
		a = read_counter(dir, kib, "anon_fault_alloc", &alloc, err, errlen);
		s = a < 0 ? -1 : read_counter(dir, kib, "swpout", &swpout, err, errlen);
		if (a < 0 || s < 0)
			return -1;
		if (!a || !s)
			continue;
		ret->mthp_kib.v[n] = kib;
		ret->mthp_anon_fault_alloc.v[n] = alloc;
		ret->mthp_swpout.v[n++] = swpout;
	}
	ret->mthp_kib.n = ret->mthp_anon_fault_alloc.n = ret->mthp_swpout.n = n;
	return 0;
}

int hugepages_since(const struct proto_summary *base, struct proto_summary *now, char *err,
		    size_t errlen)
{
	uint64_t i;

	if (base->mthp_kib.n != now->mthp_kib.n)
		return errorfn(err, errlen, "mthp: %" PRIu64 " sizes counted at the start, %" PRIu64
			       " at the end", base->mthp_kib.n, now->mthp_kib.n);
	for (i = 0; i < now->mthp_kib.n; i++) {
		if (base->mthp_kib.v[i] != now->mthp_kib.v[i] ||
		    base->mthp_anon_fault_alloc.v[i] > now->mthp_anon_fault_alloc.v[i] ||
		    base->mthp_swpout.v[i] > now->mthp_swpout.v[i])
			return errorfn(err, errlen, "mthp: %" PRIu64 "K's counters went from %" PRIu64
				       " and %" PRIu64 " to %" PRIu64 "K's %" PRIu64 " and %" PRIu64,
				       base->mthp_kib.v[i], base->mthp_anon_fault_alloc.v[i],
				       base->mthp_swpout.v[i], now->mthp_kib.v[i],
				       now->mthp_anon_fault_alloc.v[i], now->mthp_swpout.v[i]);
		now->mthp_anon_fault_alloc.v[i] -= base->mthp_anon_fault_alloc.v[i];
		now->mthp_swpout.v[i] -= base->mthp_swpout.v[i];
	}
	return 0;
}
