/* fault.h -- test-only fault injection in the agent: harness.fault=KIND on the
 * kernel command line makes the agent misbehave once, in one chosen way. */
#ifndef FAULT_H
#define FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

enum fault_kind {
	FAULT_NONE,
	FAULT_PANIC,     /* crash the kernel (sysrq c) */
	FAULT_SILENCE,   /* send nothing more, keep running */
	FAULT_GARBAGE,   /* a line of random bytes */
	FAULT_BADUTF8,   /* a sample line with invalid UTF-8 */
	FAULT_LONGLINE,  /* a 10 MiB line */
	FAULT_BADJSON,   /* a sample with a negative counter */
	FAULT_FIOSTALL,  /* fio's main process (its status output) stopped for a while */
	FAULT_LRUGAP,    /* one node's PROTO_LRU left out (its sample announced it) */
	FAULT_NOHELLO,   /* the agent stops for good before its hello: a silent boot */
	FAULT_NOPORT,    /* the agent gives up before opening its channel: the guest ends */
	FAULT_COUNTERSPLIT, /* every counters message sent as several of 2 keys: a start
			     * or end in several messages, as one over 64 keys is */
	FAULT_COUNTERFLOOD, /* before a counters message, 1280 new vmstat keys of its
			     * interval: over the host's budget of a source's keys */
};

struct fault {
	enum fault_kind kind;
	uint64_t after_ms;   /* fires at the first sample this far into the workload */
	uint64_t for_ms;     /* fiostall: how long fio stays stopped */
	int fired;
	int armed;           /* lrugap, counterflood: a sample after_ms in has gone: the
			      * next lru (counters) line is the fault's */
	int stopped_pid;     /* fiostall: the process stopped, 0 if none */
};

/*
 * Read harness.fault=KIND, harness.fault_after=SECONDS (default 2) and
 * harness.fault_for=SECONDS (default 3, fiostall) from
 * path (/proc/cmdline), at most 4 KiB of it. No option: kind FAULT_NONE.
 * Returns 0, or -1 with a message in err on an unknown kind or a bad number.
 */
int fault_load(struct fault *f, const char *path, char *err, size_t errlen);

/*
 * Called with every formatted message before it is written to fd. Returns 0:
 * write line as usual; 1: the fault took its place (nothing more to write);
 * -1: the fault could not be injected (err says why).
 */
int fault_filter(struct fault *f, int fd, const struct proto_msg *m, const char *line,
		 size_t len, char *err, size_t errlen);

/*
 * fiostall, called at every sample with the workload time and fio's main
 * process (0: none yet): at the first sample after_ms into the workload it
 * stops that process with SIGSTOP (fio's status documents stop coming; its
 * jobs, processes of their own, go on reading), at the first sample for_ms
 * later it sends SIGCONT. Each step is logged on the console. Returns 1 when
 * it acted, else 0.
 */
int fault_stall(struct fault *f, uint64_t t_ms, int pid);

/* A process fault_stall stopped goes on now (the workload is ending). */
void fault_unstall(struct fault *f);

#endif
