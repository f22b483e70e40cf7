/* workload.h -- one job's streams run in a process inside the memcg while the
 * agent, outside it, samples every interval and forwards events. */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stddef.h>

#include "common/proto.h"

struct fault;
struct mthp_list;
struct tracer;
struct stalls;

struct workload_env {
	const struct proto_job *job;
	const char *data_dir;        /* the declared files are data_dir/<name> */
	const char *memcg;           /* the memcg's directory */
	const char *memcg_path;      /* its path as lru_gen's debugfs prints it */
	int cachestat;               /* residency by cachestat(2), else mincore */
	int lru_gen_on;              /* MGLRU enabled: its generations are sampled */
	/* multi-size THP's sizes as the setup read them back: the summary counts
	 * the workload's faults and swap-outs of those not never; NULL: none */
	const struct mthp_list *mthp;
	int chan_fd;                 /* closed in the workload process */
	/* send one message to the host; returns 0 or -1 */
	int (*send)(void *arg, const struct proto_msg *m);
	void *send_arg;
	struct fault *fault;         /* test-only fault hooks (fault.h), never NULL */
	struct tracer *tracer;       /* drained after every sample (tracer.h), never NULL */
	struct stalls *stalls;       /* reclaim stalls (stalls.h), never NULL, maybe off */
};

/*
 * Run the job to its end: streams on their timeline, one PROTO_SAMPLE, its
 * PROTO_LRU per node with generations, and one PROTO_STREAM per stream every interval (a fio stream's once its documents
 * reach the interval's end, so possibly some intervals later; one given up
 * is not sent at all), events as they happen, then the PROTO_SUMMARY (with
 * the multi-size THP counters since the workload began). Returns 0, or -1 with the reason in err (the caller sends it).
 */
int workload_run(const struct workload_env *env, char *err, size_t errlen);

#endif
