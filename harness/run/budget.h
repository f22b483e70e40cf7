/* budget.h -- what one run's guest may send, derived from its job: samples, counter
 * keys and their running values, events per stream, trace events per interval, bytes. */
#ifndef BUDGET_H
#define BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

/*
 * The budgets' constants (docs/database.md says why each is what it is):
 * a stream's events beside its passes' two each; trace events drained in
 * one interval, per vCPU (the agent's 2 MiB buffer a CPU holds about 52 000
 * of its 40-byte entries, drained each interval); the channel's bytes over
 * a run: a base, then per stream event, per interval and per trace event
 * an interval allows; the console's file (the guest's kernel and agent
 * write it through QEMU, without end if they like): a base and per interval.
 */
#define BUDGET_STREAM_EVENTS    16
#define BUDGET_TRACE_VCPU       65536
#define BUDGET_BYTES_BASE       (UINT64_C(1) << 20)
#define BUDGET_BYTES_EVENT      1024
#define BUDGET_BYTES_INTERVAL   (UINT64_C(512) << 10)
#define BUDGET_BYTES_TRACE      128
#define BUDGET_CONSOLE_BASE     (UINT64_C(8) << 20)
#define BUDGET_CONSOLE_INTERVAL (UINT64_C(64) << 10)

struct budget_key;

struct budget {
	uint64_t samples;                      /* one per interval of the job */
	uint64_t events[PROTO_MAX_STREAMS];    /* per declared stream */
	uint64_t trace;                        /* events a traced interval, 0: untraced */
	uint64_t bytes;                        /* the channel's lines over the run */
	uint64_t console;                      /* the console file's bytes */
	uint64_t events_seen[PROTO_MAX_STREAMS];
	uint64_t trace_seq, trace_seen;        /* the interval traced last, its events so far */
	unsigned keys_seen[CS_COUNT];          /* distinct keys per source so far */
	struct budget_key *keys;               /* each key's running value (start + changes) */
};

/*
 * The budgets of a run of job on vcpus vCPUs, traced or not, into b (its
 * key table allocated: budget_release). 0, or -1 with err (out of memory).
 */
int budget_init(struct budget *b, const struct proto_job *job, unsigned vcpus, int traced,
		char *err);

/* b's key table freed; b may be released again. */
void budget_release(struct budget *b);

/*
 * Each check of one message against its budget, before anything of it is
 * stored: 0, or -1 with err naming the budget, its figure and where it
 * comes from. budget_counters also refuses a key whose running value
 * (its start plus its changes so far) reaches PROTO_COUNTER_ABS_MAX.
 */
int budget_sample(const struct budget *b, uint64_t seq, char *err);
int budget_event(struct budget *b, uint64_t stream, char *err);
int budget_trace(struct budget *b, uint64_t seq, uint64_t events, char *err);
int budget_bytes(const struct budget *b, uint64_t bytes, char *err);
int budget_console(const struct budget *b, uint64_t bytes, char *err);
int budget_counters(struct budget *b, const struct proto_counters *k, char *err);

#endif
