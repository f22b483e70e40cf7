/* runner.h -- one run from queued to done or failed: fresh overlay, fresh
 * boot, job over the channel, samples into the store as they arrive.
 *
 * Folder run/: the life of one run: boot, job, samples into the store, verdict.
 * It may call: base/ common/ conf/ vm/ spec/ store/ analysis/.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <limits.h>

#include "conf/conf.h"
#include "base/err.h"
#include "spec/spec.h"
#include "store/store.h"
#include "vm/vm.h"

struct runner {
	const struct conf *conf;
	struct store *store;
	struct vm_conn *vm;
	const char *accel;           /* "kvm" or "tcg" */
	char host[64];
	int first_cpu;               /* pin vCPUs from this host CPU on; -1: no pinning */
	int slot;                    /* its guest slot on the host: saved guests are per slot */
	/* asked to stop (daemon shutdown, matrix cancelled): the run ends interrupted */
	int (*should_stop)(void *arg);
	void *stop_arg;
	int said_no_psi;             /* "the host has no PSI" said (once per runner) */
};

/*
 * How a run ended, as stored: done, failed, unsupported (the guest kernel
 * lacks a feature), crashed (panic, oops or BUG in its console), timeout
 * (no hello, no sample, or past its deadline), interrupted (stopped).
 */
struct run_outcome {
	int ok;                      /* status is done */
	char status[16];
	int infra;                   /* the harness's fault, not the kernel's: worth a retry */
	int warnings;                /* WARNING lines in the console */
	char crash[1024];            /* the first lines of a panic, oops or BUG */
	char reason[ERR_MAX];        /* why it did not end done */
	int64_t agent_ready_ms;
	uint64_t samples;
	double ops_per_s;
	double host_load;            /* the host's 1-minute load average as it ended */
	int64_t quiet_wait_ms;       /* the quiet-host gate's wait before it booted */
	int started_busy;            /* the host was still busy after quiet_wait_s */
	int contended;               /* its measured window's pressure was over the limits */
	char contended_why[160];     /* "cpu some 37.2% > 25%" */
	uint64_t oom_kills;          /* status oom: the tasks the memcg's OOM killer killed */
};

/* Every arch the matrix runs on has its base initramfs (IMAGES/ARCH/base.cpio). */
int runner_check_images(const struct conf *conf, const struct matrix *m, char *err);

/*
 * The accelerator for the matrix's guests of vm's host's own arch: conf's, or
 * probed there with the first arm's kernel; "tcg" if no cell runs on that arch.
 * why gets the probe's reason when it said no.
 */
const char *runner_pick_accel(const struct conf *conf, struct vm_conn *vm,
			      const struct matrix *m, char *why, size_t len);

/*
 * Execute one queued run: after the quiet-host gate (run/quiet.h), which
 * may wait up to quiet_wait_s; the host's pressure stored per interval and
 * the measured window judged contended or not. A failure of the run itself (guest error, bad
 * message, timeout, wrong kernel) is stored with its reason and returns 0;
 * -1 means the harness cannot go on (e.g. the database refused a write).
 */
int runner_run(struct runner *r, const struct matrix *m, const struct run_ref *ref,
	       struct run_outcome *out, char *err);

/*
 * runner_run for a guest already at the other end of fd (a socket, which
 * the run takes): its hello, job, setup and workload through the same
 * checks, budgets and stores, then its outcome stored; its console is
 * RESULTS/runs/ID/console.log if the caller writes one. For tests, which
 * drive the message loop without a VM; r->vm may be NULL.
 */
int runner_run_channel(struct runner *r, const struct matrix *m, const struct run_ref *ref,
		       int fd, struct run_outcome *out, char *err);

/*
 * After an attempt that failed for the harness's or the host's reasons
 * (out->infra), while *tries is under conf retries: the attempt kept as
 * failed with its reason and the run queued again as a fresh attempt, whose
 * id goes in ref->id. Returns 1 (run ref again), 0 (not retried) or -1 (the
 * database refused, why in err). harness run and harnessd both retry so.
 */
int runner_retry(struct runner *r, struct run_ref *ref, const struct run_outcome *out,
		 uint64_t *tries, char *err);

#endif
