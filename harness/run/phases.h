/* phases.h -- where a run's time goes, phase by phase: the table of phases,
 * the guest's boot clock turned into host times, and the durations reported. */
#ifndef PHASES_H
#define PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

/*
 * In order; each is stored as the host's wall clock (ms since the epoch) at
 * which the phase ended, so a phase lasts from the one before it to its own.
 * firmware, kernel and modules come from the guest's clock in its hello
 * (proto_hello.up_*_ms), placed on the host's by the hello's arrival. A run
 * restored from a saved guest has restore in place of define to agent; the
 * run that made the save has both.
 */
#define RUN_PHASES(X) \
	X(PH_PICKED,   "picked",   "the run taken from the queue: the phases below count from here") \
	X(PH_PREPARE,  "prepare",  "data disk, overlay and initramfs ready") \
	X(PH_DEFINE,   "define",   "libvirt defined and started the domain") \
	X(PH_FIRMWARE, "firmware", "QEMU and its firmware, to the guest kernel's first clock tick") \
	X(PH_KERNEL,   "kernel",   "the kernel's boot, to /init") \
	X(PH_MODULES,  "modules",  "virtio modules loaded, data disk mounted") \
	X(PH_AGENT,    "agent",    "the agent started, to its hello on the host") \
	X(PH_SAVE,     "save",     "the booted guest saved for the arm's later runs (start: restore)") \
	X(PH_RESTORE,  "restore",  "QEMU started from the saved guest, its channel connected") \
	X(PH_SETUP,    "setup",    "the job sent and set up: lru_gen, memcg, files") \
	X(PH_WORKLOAD, "workload", "the workload, to its summary") \
	X(PH_TEARDOWN, "teardown", "the domain destroyed, the run's files removed") \
	X(PH_STORE,    "store",    "the console scanned, the run's end written")

#define X(id, name, desc) id,
enum run_phase { RUN_PHASES(X) PH_COUNT };
#undef X

extern const char *const phase_names[PH_COUNT];
extern const char *const phase_descs[PH_COUNT];

/* One run's phase ends: wall-clock ms, 0 where not reached or not known. */
struct run_phases {
	int64_t at[PH_COUNT];
};

/* The host's wall clock in ms since the epoch. */
int64_t phases_now(void);

/* Mark phase ph as ended now. */
void phases_mark(struct run_phases *p, enum run_phase ph);

/*
 * firmware, kernel and modules from the hello that arrived at hello_at
 * (PH_AGENT's end): the guest's clock read back from it. The guest is not
 * trusted: values out of order, or outside define .. hello, are left unknown.
 */
void phases_from_hello(struct run_phases *p, const struct proto_hello *h, int64_t hello_at);

/* Index of the phase called name, or -1. */
int phases_find(const char *name);

#endif
