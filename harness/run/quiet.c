/* quiet.c -- the quiet-host gate: a run starts when the host's stall share
 * over the last second is under the thresholds, or after quiet_wait_s, flagged. */
#include "run/quiet.h"
#include "run/pressure.h"
#include "base/err.h"

#include <time.h>

/* Sleep ms milliseconds (restarted after a signal). */
static void nap(int64_t ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0)
		;
}

/* One look: the share over the next QUIET_WINDOW_MS into *sh. */
static int look(const struct pressure_limits *lim, struct pressure_share *sh, char *err)
{
	struct pressure_point a, b;

	if (pressure_read("/proc", 0, &a, err) < 0)
		return -1;
	nap(QUIET_WINDOW_MS);
	if (pressure_read("/proc", 0, &b, err) < 0)
		return -1;
	pressure_between(&a, &b, lim, sh);
	return 0;
}

/* "host has no PSI": once per said_no_psi. */
static void say_no_psi(FILE *say, int *said)
{
	if (*said)
		return;
	*said = 1;
	fprintf(say, "harness: the host has no PSI (/proc/pressure): its 1-minute load per core "
		"stands in for the quiet-host gate and the contended flag\n");
	fflush(say);
}

int quiet_gate(const struct conf *c, int64_t run, FILE *say, int *said_no_psi,
	       int (*should_stop)(void *), void *stop_arg, struct quiet_outcome *out, char *err)
{
	struct pressure_limits lim;
	struct pressure_share sh;
	int64_t waited = 0, limit = (int64_t)c->quiet_wait_s * 1000;

	*out = (struct quiet_outcome){ .psi = 1 };
	pressure_limits_of(c, &lim);
	if (pressure_gate_off(&lim))
		return 0;
	for (;;) {
		if (look(&lim, &sh, err) < 0)
			return -1;
		out->psi = sh.psi;
		if (!sh.psi)
			say_no_psi(say, said_no_psi);
		if (!sh.contended)
			break;
		if (!waited)
			fprintf(say, "harness: host busy: %s over the last %d s: waiting up to %llu s "
				"before run %lld\n", sh.why, QUIET_WINDOW_MS / 1000,
				(unsigned long long)c->quiet_wait_s, (long long)run);
		fflush(say);
		if (waited >= limit) {
			out->busy = 1;
			fprintf(say, "harness: host still busy after %llu s (%s): run %lld starts "
				"anyway, flagged\n", (unsigned long long)c->quiet_wait_s, sh.why,
				(long long)run);
			break;
		}
		if (should_stop && should_stop(stop_arg)) {
			out->stopped = 1;
			break;
		}
		waited += QUIET_WINDOW_MS;
	}
	out->waited_ms = waited;
	if (waited && !out->busy && !out->stopped) {
		fprintf(say, "harness: host quiet after %lld s: run %lld starts\n",
			(long long)(waited / 1000), (long long)run);
		fflush(say);
	}
	return 0;
}
