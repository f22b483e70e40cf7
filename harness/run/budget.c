/* budget.c -- what one run's guest may send, derived from its job, checked message
 * by message before anything of it is stored; a guest over a budget fails its run. */
#include "run/budget.h"
#include "base/err.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

/* The key table: open addressing over a power of two well above every source's keys. */
#define KEY_SLOTS 1024
_Static_assert(PROTO_COUNTER_KEYS_ALL * 3 / 2 < KEY_SLOTS, "the key table stays sparse");

struct budget_key {
	int used;
	unsigned src;
	char key[PROTO_COUNTER_KEY_MAX];
	int64_t value;               /* start plus changes so far */
};

int budget_init(struct budget *b, const struct proto_job *job, unsigned vcpus, int traced,
		char *err)
{
	uint64_t ms = job->duration_s * 1000, events = 0;
	unsigned i;

	memset(b, 0, sizeof(*b));
	b->samples = (ms + job->interval_ms - 1) / job->interval_ms;
	for (i = 0; i < job->nstreams && i < PROTO_MAX_STREAMS; i++)
		events += b->events[i] = BUDGET_STREAM_EVENTS + 2 * job->streams[i].passes;
	b->trace = traced ? (uint64_t)BUDGET_TRACE_VCPU * vcpus : 0;
	b->bytes = BUDGET_BYTES_BASE + events * BUDGET_BYTES_EVENT +
		   b->samples * (BUDGET_BYTES_INTERVAL + b->trace * BUDGET_BYTES_TRACE);
	b->console = BUDGET_CONSOLE_BASE + b->samples * BUDGET_CONSOLE_INTERVAL;
	b->trace_seq = UINT64_MAX;
	if (!(b->keys = calloc(KEY_SLOTS, sizeof(*b->keys))))
		return errorf(err, "out of memory for the run's counter keys");
	return 0;
}

void budget_release(struct budget *b)
{
	free(b->keys);
	b->keys = NULL;
}

int budget_sample(const struct budget *b, uint64_t seq, char *err)
{
	if (seq < b->samples)
		return 0;
	return errorf(err, "sample %llu is over its budget of %llu samples (one per interval "
		      "of its job)", (unsigned long long)seq, (unsigned long long)b->samples);
}

int budget_event(struct budget *b, uint64_t stream, char *err)
{
	if (stream < PROTO_MAX_STREAMS && b->events_seen[stream] < b->events[stream]) {
		b->events_seen[stream]++;
		return 0;
	}
	return errorf(err, "events of stream %llu are over its budget of %llu (%d and two a "
		      "pass)", (unsigned long long)stream,
		      (unsigned long long)(stream < PROTO_MAX_STREAMS ? b->events[stream] : 0),
		      BUDGET_STREAM_EVENTS);
}

int budget_trace(struct budget *b, uint64_t seq, uint64_t events, char *err)
{
	if (seq != b->trace_seq) {
		b->trace_seq = seq;
		b->trace_seen = 0;
	}
	b->trace_seen += events;
	if (b->trace_seen <= b->trace)
		return 0;
	return errorf(err, "trace events of interval %llu are over its budget of %llu "
		      "(%d a vCPU)", (unsigned long long)seq, (unsigned long long)b->trace,
		      BUDGET_TRACE_VCPU);
}

int budget_bytes(const struct budget *b, uint64_t bytes, char *err)
{
	if (bytes <= b->bytes)
		return 0;
	return errorf(err, "%llu bytes are over the run's budget of %llu bytes",
		      (unsigned long long)bytes, (unsigned long long)b->bytes);
}

int budget_console(const struct budget *b, uint64_t bytes, char *err)
{
	if (bytes <= b->console)
		return 0;
	return errorf(err, "its console's %llu bytes are over the run's budget of %llu bytes",
		      (unsigned long long)bytes, (unsigned long long)b->console);
}

/* The slot of src's key: where it is, or the free one it goes in. */
static struct budget_key *key_slot(struct budget *b, unsigned src, const char *key)
{
	unsigned char s = (unsigned char)src;
	uint64_t h = hash_fnv1a(hash_fnv1a(HASH_FNV1A_INIT, &s, 1), key, strlen(key));
	struct budget_key *k;

	for (;; h++) {
		k = &b->keys[h & (KEY_SLOTS - 1)];
		if (!k->used || (k->src == src && !strcmp(k->key, key)))
			return k;
	}
}

/*
 * One key of source src at k: a new key within the source's budget, and
 * (add: a start's or a change's) its running value plus v within
 * PROTO_COUNTER_ABS_MAX. Both |values| are below it, so the sum cannot
 * overflow.
 */
static int take_key(struct budget *b, unsigned src, const char *key, int64_t v, int add,
		    char *err)
{
	struct budget_key *k = key_slot(b, src, key);
	int64_t sum;

	if (!k->used) {
		if (b->keys_seen[src] == proto_counter_src_keys[src])
			return errorf(err, "%s counter '%s' is over its budget of %u %s keys",
				      proto_counter_src_names[src], key, proto_counter_src_keys[src],
				      proto_counter_src_names[src]);
		b->keys_seen[src]++;
		*k = (struct budget_key){ .used = 1, .src = src };
		memcpy(k->key, key, sizeof(k->key));
	}
	sum = k->value + (add ? v : 0);
	if (sum >= PROTO_COUNTER_ABS_MAX || sum <= -PROTO_COUNTER_ABS_MAX)
		return errorf(err, "%s counter '%s' sums to %lld, not below 2^62 (its start plus "
			      "its changes)", proto_counter_src_names[src], key, (long long)sum);
	k->value = sum;
	return 0;
}

int budget_counters(struct budget *b, const struct proto_counters *k, char *err)
{
	unsigned src;
	uint64_t i;

	for (src = 0; src < CS_COUNT && strcmp(proto_counter_src_names[src], k->src); src++)
		;
	if (src == CS_COUNT)
		return errorf(err, "counters of unknown source '%s'", k->src);
	for (i = 0; i < k->values.n && i < PROTO_COUNTERS_MAX; i++)
		if (take_key(b, src, k->values.key[i], k->values.value[i], k->at != CA_END,
			     err) < 0)
			return -1;
	return 0;
}
