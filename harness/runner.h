/* runner.h -- one run from queued to done or failed: fresh overlay, fresh
 * boot, job over the channel, samples into the store as they arrive. */
#ifndef RUNNER_H
#define RUNNER_H

#include <limits.h>

#include "conf.h"
#include "err.h"
#include "spec.h"
#include "store.h"
#include "vm.h"

struct runner {
	const struct conf *conf;
	struct store *store;
	struct vm_conn *vm;
	const char *accel;           /* "kvm" or "tcg" */
	char host[64];
	char base[PATH_MAX];         /* base initramfs */
};

struct run_outcome {
	int ok;                      /* 1 done, 0 failed */
	int unsupported;             /* failed because the guest kernel lacks a feature */
	char reason[ERR_MAX];        /* why it failed */
	int64_t agent_ready_ms;
	uint64_t samples;
	double ops_per_s;
};

/*
 * Execute one queued run. A failure of the run itself (guest error, bad
 * message, timeout, wrong kernel) is stored with its reason and returns 0;
 * -1 means the harness cannot go on (e.g. the database refused a write).
 */
int runner_run(struct runner *r, const struct matrix *m, const struct run_ref *ref,
	       struct run_outcome *out, char *err);

#endif
