/* mthp.h -- multi-size transparent hugepages (Linux 6.8 and later): the
 * per-size knobs /sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/enabled
 * as one list, "64K:always 2048K:inherit", which a matrix arm, the job and
 * the guest's read-back all spell the same way; host and guest share it. */
#ifndef COMMON_MTHP_H
#define COMMON_MTHP_H

#include <stddef.h>
#include <stdint.h>

/* Sizes in a list: 9 from 8K to 2048K under 4 KiB pages, more with larger pages. */
#define MTHP_MAX       16
/* A list as text, with its NUL: MTHP_MAX entries of "1048576K:madvise " fit. */
#define MTHP_TEXT_MAX  288
/* The largest size a list may name, KiB: 1 GiB (a 64 KiB-page arm64's PMD is 512 MiB). */
#define MTHP_KIB_MAX   (UINT64_C(1) << 20)

/* A size's policy, as the kernel names it: X(ENUM, name). */
#define MTHP_POLICIES(X) \
	X(MTHP_ALWAYS, "always") X(MTHP_INHERIT, "inherit") X(MTHP_MADVISE, "madvise") \
	X(MTHP_NEVER, "never")

enum mthp_policy {
#define X(e, s) e,
	MTHP_POLICIES(X)
#undef X
	MTHP_NPOLICIES
};

extern const char *const mthp_policy_names[];   /* NULL-terminated */

struct mthp_knob {
	uint64_t kib;          /* a power of two, from 4 to MTHP_KIB_MAX */
	unsigned policy;       /* enum mthp_policy */
};

/* Knobs by size, ascending, each size once. */
struct mthp_list {
	unsigned n;
	struct mthp_knob k[MTHP_MAX];
};

/*
 * A size as a list spells it, "<digits>K" (no sign, no leading zero, capital
 * K), a power of two from 4 to MTHP_KIB_MAX, into *ret_kib: 0, or -1 (and
 * *ret_kib untouched) if s is anything else.
 */
int mthp_size_parse(const char *s, uint64_t *ret_kib);

/* The enum mthp_policy named by s, or -1. */
int mthp_policy_parse(const char *s);

/*
 * kib's knob into l at its place by size: 0, or -1 if l has the size already
 * or is full.
 */
int mthp_list_add(struct mthp_list *l, uint64_t kib, unsigned policy);

/* The policy l gives kib, or -1 if l has no such size. */
int mthp_list_find(const struct mthp_list *l, uint64_t kib);

/*
 * A list's text into l: "" (none), or "SIZE:POLICY" entries one space apart,
 * sizes strictly ascending; -1 with err naming the first entry that is not.
 */
int mthp_list_parse(const char *text, struct mthp_list *l, char *err, size_t errlen);

/* l as a list's text into out (len bytes): 0, or -1 if it does not fit. */
int mthp_list_format(const struct mthp_list *l, char *out, size_t len);

#endif
