/* quiet.h -- the quiet-host gate: before a measured run starts, wait until
 * the host's CPU and I/O pressure are under harness.conf's thresholds. */
#ifndef QUIET_H
#define QUIET_H

#include <stdint.h>
#include <stdio.h>

#include "conf/conf.h"

#define QUIET_WINDOW_MS 1000   /* the pressure the gate judges: over the last second */

/* What the gate did for one run. */
struct quiet_outcome {
	int64_t waited_ms;           /* from the first look to the run's start */
	int busy;                    /* still busy after quiet_wait_s: started anyway, flagged */
	int psi;                     /* judged by PSI; 0: by the load average */
	int stopped;                 /* should_stop said so while it waited */
};

/*
 * Look at the host's pressure over QUIET_WINDOW_MS; while it is over the
 * thresholds, say so on say once ("host busy: ...: waiting up to N s before
 * run ID") and look again, up to quiet_wait_s, then start anyway (busy 1,
 * said too). *said_no_psi: whether "no PSI" was said (said once, then set).
 * should_stop (may be NULL) is asked every look. Does nothing when both
 * thresholds are 100. Returns 0, or -1 with err if a pressure file is unreadable.
 */
int quiet_gate(const struct conf *c, int64_t run, FILE *say, int *said_no_psi,
	       int (*should_stop)(void *), void *stop_arg, struct quiet_outcome *out, char *err);

#endif
