/* cgroup.h -- a memory cgroup of a jail's own, made below the harness's own
 * cgroup (cgroup v2's memory.max, or the v1 memory controller's limit), removed after. */
#ifndef CGROUP_H
#define CGROUP_H

#include <limits.h>
#include <stdint.h>

struct cgroup_jail {
	char dir[PATH_MAX];   /* the cgroup's directory, "" when none was made */
	int procs_fd;         /* its cgroup.procs, open for writing (O_CLOEXEC); -1 */
	int v2;
};

/*
 * A new cgroup below the memory hierarchy's cgroup of this process, its
 * memory limited to max_bytes (and its swap to none where the file exists),
 * named after this thread. 0, or -1 with one line naming the file that
 * could not be made or written; nothing is left made then.
 */
int cgroup_jail_make(struct cgroup_jail *cg, uint64_t max_bytes, char *err);

/* In a child about to become the jail: move itself into cg (async-signal-safe). -1 with errno. */
int cgroup_jail_enter(const struct cgroup_jail *cg);

/* Processes its limit killed so far (the oom_kill count of memory.events or memory.oom_control). */
long cgroup_jail_oom_kills(const struct cgroup_jail *cg);

/* Remove cg once its processes are gone (best effort, retried while they exit). */
void cgroup_jail_remove(struct cgroup_jail *cg);

#endif
