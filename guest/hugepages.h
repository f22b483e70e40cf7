/* hugepages.h -- multi-size transparent hugepages in the guest (Linux 6.8 and
 * later): the job's per-size knobs written, every size's read back, and the
 * per-size counters a run's summary carries. */
#ifndef HUGEPAGES_H
#define HUGEPAGES_H

#include "common/mthp.h"
#include "common/proto.h"

#include <stddef.h>

#define HUGEPAGES_DIR "/sys/kernel/mm/transparent_hugepage"

/* The word a THP knob's text shows in brackets ("always [madvise] never") into out; "" if none. */
void hugepages_active(const char *text, char *out, size_t len);

/*
 * Every size under dir (HUGEPAGES_DIR; another in tests) whose
 * hugepages-<N>kB has an enabled knob, with the policy it shows, into
 * *ret; none where dir or the sizes are missing. -1 with err.
 */
int hugepages_read(const char *dir, struct mthp_list *ret, char *err, size_t errlen);

/*
 * The knobs of want (a list's text, common/mthp.h) written under dir, each
 * size's hugepages-<N>kB/enabled, then every size's read back into *ret_read
 * and as a list's text into out (len bytes; "" where the kernel has no sizes).
 * -1 with err: one beginning "unsupported: " where want names a size the
 * kernel lacks, or the kernel has none; nothing is written then.
 */
int hugepages_apply(const char *dir, const char *want, struct mthp_list *ret_read, char *out,
		    size_t len, char *err, size_t errlen);

/*
 * Each size of sizes but those that are never, whose kernel counts it per
 * size (hugepages-<N>kB/stats, 6.10 and later): its size in KiB and its
 * anon_fault_alloc and swpout now, into ret's mthp arrays (the rest of ret
 * untouched). -1 with err.
 */
int hugepages_counters(const char *dir, const struct mthp_list *sizes, struct proto_summary *ret,
		       char *err, size_t errlen);

/*
 * now's mthp counters made the counts since base's, the same sizes: 0, or -1
 * with err if the sizes differ or a counter went back.
 */
int hugepages_since(const struct proto_summary *base, struct proto_summary *now, char *err,
		    size_t errlen);

#endif
