/* phases.c -- the table of a run's phases and the guest's boot clock placed
 * on the host's: the figures `harness phases` and `make bench` report. */
#include "run/phases.h"

#include <string.h>
#include <time.h>

#define X(id, name, desc) name,
const char *const phase_names[PH_COUNT] = { RUN_PHASES(X) };
#undef X
#define X(id, name, desc) desc,
const char *const phase_descs[PH_COUNT] = { RUN_PHASES(X) };
#undef X

int64_t phases_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void phases_mark(struct run_phases *p, enum run_phase ph)
{
	p->at[ph] = phases_now();
}

void phases_from_hello(struct run_phases *p, const struct proto_hello *h, int64_t hello_at)
{
	const uint64_t up[3] = { 0, h->up_init_ms, h->up_ready_ms };
	const enum run_phase ph[3] = { PH_FIRMWARE, PH_KERNEL, PH_MODULES };
	int64_t at, floor = p->at[PH_DEFINE];
	int i;

	/* an agent that is not PID 1, or an older image, says nothing */
	if (!h->up_init_ms || h->up_init_ms > h->up_ready_ms || h->up_ready_ms > h->up_hello_ms || !floor)
		return;
	for (i = 0; i < 3; i++) {
		at = hello_at - (int64_t)(h->up_hello_ms - up[i]);
		if (at < floor || at > hello_at)
			return;
		floor = at;
	}
	for (i = 0; i < 3; i++)
		p->at[ph[i]] = hello_at - (int64_t)(h->up_hello_ms - up[i]);
}

int phases_find(const char *name)
{
	int i;

	for (i = 0; i < PH_COUNT; i++)
		if (!strcmp(phase_names[i], name))
			return i;
	return -1;
}
