/* mthp.c -- multi-size THP knob lists parsed strictly and written back the
 * one way they are spelled (common/mthp.h). */
#include "common/mthp.h"
#include "common/err.h"
#include "common/fmt.h"

#include <string.h>

const char *const mthp_policy_names[] = {
#define X(e, s) s,
	MTHP_POLICIES(X)
#undef X
	NULL
};

int mthp_size_parse(const char *s, uint64_t *ret_kib)
{
	uint64_t v = 0;
	size_t i;

	if (s[0] < '1' || s[0] > '9')
		return -1;
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i >= 7)
			return -1;   /* more digits than MTHP_KIB_MAX has */
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (s[i] != 'K' || s[i + 1] || v < 4 || v > MTHP_KIB_MAX || (v & (v - 1)))
		return -1;
	*ret_kib = v;
	return 0;
}

int mthp_policy_parse(const char *s)
{
	int i;

	for (i = 0; mthp_policy_names[i]; i++)
		if (!strcmp(s, mthp_policy_names[i]))
			return i;
	return -1;
}

int mthp_list_add(struct mthp_list *l, uint64_t kib, unsigned policy)
{
	unsigned i, at;

	if (l->n >= MTHP_MAX || mthp_list_find(l, kib) >= 0)
		return -1;
	for (at = 0; at < l->n && l->k[at].kib < kib; at++)
		;
	for (i = l->n; i > at; i--)
		l->k[i] = l->k[i - 1];
	l->k[at].kib = kib;
	l->k[at].policy = policy;
	l->n++;
	return 0;
}

int mthp_list_find(const struct mthp_list *l, uint64_t kib)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		if (l->k[i].kib == kib)
			return (int)l->k[i].policy;
	return -1;
}

/*
 * One "SIZE:POLICY" entry of len bytes at s appended to l, after every size
 * l has; -1 with err quoting it.
 */
static int parse_entry(const char *s, size_t len, struct mthp_list *l, char *err, size_t errlen)
{
	char entry[32];
	const char *colon;
	uint64_t kib;
	int policy;

	if (len >= sizeof(entry))
		return errorfn(err, errlen, "mthp entry '%.*s...' is too long", 24, s);
	memcpy(entry, s, len);
	entry[len] = '\0';
	colon = strchr(entry, ':');
	if (!colon)
		return errorfn(err, errlen, "mthp entry '%s': expected SIZE:POLICY", entry);
	entry[colon - entry] = '\0';
	if (mthp_size_parse(entry, &kib) < 0)
		return errorfn(err, errlen, "mthp entry '%s:%s': expected a size like 64K, a power "
			       "of two", entry, colon + 1);
	policy = mthp_policy_parse(colon + 1);
	if (policy < 0)
		return errorfn(err, errlen, "mthp entry '%s:%s': expected always, inherit, madvise "
			       "or never", entry, colon + 1);
	if (l->n && l->k[l->n - 1].kib >= kib)
		return errorfn(err, errlen, "mthp entry '%s:%s': sizes must ascend, each once",
			       entry, colon + 1);
	if (l->n >= MTHP_MAX)
		return errorfn(err, errlen, "mthp: more than %d sizes", MTHP_MAX);
	l->k[l->n].kib = kib;
	l->k[l->n++].policy = (unsigned)policy;
	return 0;
}

int mthp_list_parse(const char *text, struct mthp_list *l, char *err, size_t errlen)
{
	const char *p = text, *sp;
	size_t len;

	memset(l, 0, sizeof(*l));
	if (!*text)
		return 0;
	for (;;) {
		sp = strchr(p, ' ');
		len = sp ? (size_t)(sp - p) : strlen(p);
		if (parse_entry(p, len, l, err, errlen) < 0)
			return -1;
		if (!sp)
			return 0;
		p = sp + 1;
	}
}

int mthp_list_format(const struct mthp_list *l, char *out, size_t len)
{
	size_t o = 0;
	unsigned i;

	if (!len)
		return -1;
	out[0] = '\0';
	for (i = 0; i < l->n; i++) {
		if (l->k[i].policy >= MTHP_NPOLICIES ||
		    fmtbuf(out + o, len - o, "%s%lluK:%s", i ? " " : "",
			   (unsigned long long)l->k[i].kib, mthp_policy_names[l->k[i].policy]) < 0)
			return -1;
		o += strlen(out + o);
	}
	return 0;
}
