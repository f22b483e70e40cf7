/* workload.c -- fork the workload process into the memcg, start each stream
 * on its own thread there, and sample everything from outside every interval. */
#define _GNU_SOURCE
#include "workload.h"
#include "fault.h"
#include "hugepages.h"
#include "oom.h"
#include "counters.h"
#include "sampler.h"
#include "stream.h"
#include "tracer.h"
#include "fdio.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READY_WAIT_MS 30000
#define STOP_WAIT_MS  30000

/* A stream's cumulative counters as of the previous sample. */
struct stream_acc {
	uint64_t ops, bytes, misses;
	uint64_t hist[LAT_BUCKETS];
};

/* One operation of one stream: cumulative as of the previous sample, and the
 * sum of the measured (non-ramp) intervals. */
struct op_acc {
	uint64_t ops, errors, eagain, records, sum_ns;
	uint64_t hist[LAT_BUCKETS];
};

struct op_accs {
	struct op_acc prev[PROTO_MAX_STREAMS][OP_COUNT];
	struct op_acc total[PROTO_MAX_STREAMS][OP_COUNT];
	uint64_t total_ms, total_intervals;
};

struct wl {
	const struct workload_env *env;
	const struct proto_job *job;
	struct stream_region *reg;
	size_t reg_len;
	struct sampler smp;
	struct sampler_reading prev;
	struct counters *ctr;           /* every source's named counters (counters.h) */
	struct stream_acc acc[PROTO_MAX_STREAMS];
	struct fio_watch *fio[PROTO_MAX_STREAMS];
	struct op_accs *opa;            /* NULL when no stream reports operations */
	char path[PROTO_MAX_FILES][512];
	int ev_rd, ev_wr, tfd;
	pid_t pid;
	uint64_t seq, t_ms;
	uint64_t oom0;                  /* the memcg's oom_kill at the start */
	struct proto_summary mthp0;     /* multi-size THP's counters at the start */
	char *err;
	size_t errlen;
};

static int fail(struct wl *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The workload's error into the caller's buffer; -1. */
static int fail(struct wl *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmtcut(w->err, w->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t elapsed_ms(const struct wl *w)
{
	return (stream_now_ns() - w->reg->t0_ns) / 1000000u;
}

/* ---- the shared region ---- */

/* Bytes of shared counters stream st needs: per thread, and per operation. */
static size_t stream_bytes(const struct proto_stream *st)
{
	size_t n = proto_stream_threads(st);

	return n * sizeof(struct stream_thread) +
	       (proto_stream_ops(st) ? n * OP_COUNT * sizeof(struct stream_opc) : 0);
}

/*
 * The counters the workload process shares with the sampler: a region of
 * its header, then per stream its threads' counters and its operations'.
 */
static int region_new(struct wl *w)
{
	size_t len = sizeof(struct stream_region), off;
	struct stream_shared *sh;
	unsigned i;
	char *base;

	len = (len + 63) & ~(size_t)63;
	off = len;
	for (i = 0; i < w->job->nstreams; i++)
		len += stream_bytes(&w->job->streams[i]);
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return fail(w, "shared counters (%zu bytes): %s", len, strerror(errno));
	w->reg = (struct stream_region *)base;
	w->reg_len = len;
	w->reg->nstreams = w->job->nstreams;
	for (i = 0; i < w->job->nstreams; i++) {
		sh = &w->reg->s[i];
		sh->nthreads = proto_stream_threads(&w->job->streams[i]);
		sh->ops = proto_stream_ops(&w->job->streams[i]);
		sh->th = (struct stream_thread *)(base + off);
		if (sh->ops)
			sh->opc = (struct stream_opc *)(base + off + sh->nthreads *
							 sizeof(struct stream_thread));
		off += stream_bytes(&w->job->streams[i]);
		if (sh->ops && !w->opa && !(w->opa = calloc(1, sizeof(*w->opa))))
			return fail(w, "operation counters: out of memory");
	}
	return 0;
}

/* ---- the workload process ---- */

struct thread_arg {
	struct stream_ctx ctx;
};

static int (*const kind_run[KIND_COUNT])(struct stream_ctx *) = {
#define X(e, id) [KIND_##e] = stream_##id##_run,
	PROTO_STREAM_KINDS(X)
#undef X
};

/*
 * A stream's thread in the workload process: its kind's run, then the
 * stream marked done whatever state it reached.
 */
static void *stream_main(void *p)
{
	struct stream_ctx *c = &((struct thread_arg *)p)->ctx;
	int expected = ST_WAITING;

	kind_run[c->st->kind](c);
	if (!atomic_compare_exchange_strong(&c->sh->state, &expected, ST_DONE)) {
		expected = ST_RUNNING;
		atomic_compare_exchange_strong(&c->sh->state, &expected, ST_DONE);
	}
	return NULL;
}

/*
 * Stream i's context: its job, region, event pipe, interval, and its file's
 * path and size when it reads one.
 */
static void ctx_init(struct wl *w, unsigned i, struct stream_ctx *c)
{
	const struct proto_stream *st = &w->job->streams[i];
	int f = proto_job_file(w->job, st->file);

	memset(c, 0, sizeof(*c));
	c->job = w->job;
	c->st = st;
	c->index = i;
	c->data_dir = w->env->data_dir;
	c->memcg = w->env->memcg;
	c->reg = w->reg;
	c->sh = &w->reg->s[i];
	c->event_fd = w->ev_wr;
	c->interval_ms = (unsigned)w->job->interval_ms;
	if (f >= 0) {
		fmtcut(c->path, sizeof(c->path), "%s", w->path[f]);
		c->file_bytes = w->job->files[f].mib << 20;
	}
}

/* Join the memcg before anything else, then run every stream to its end. */
static void __attribute__((noreturn)) child_main(struct wl *w, int ready_fd)
{
	struct thread_arg args[PROTO_MAX_STREAMS];     /* live until _exit: never returns */
	pthread_t tid[PROTO_MAX_STREAMS];
	char path[600], pid[32];
	unsigned i;

	fmtcut(pid, sizeof(pid), "%d", (int)getpid());
	/* its own name, not init's: the OOM killer's log line names its victim by it */
	prctl(PR_SET_NAME, "workload", 0, 0, 0);
	/* outside the memcg nothing it measures holds: a path that does not fit is a failure */
	if (fmtbuf(path, sizeof(path), "%s/cgroup.procs", w->env->memcg) < 0 ||
	    write_text(path, pid))
		_exit(3);
	for (i = 0; i < w->job->nstreams; i++) {
		ctx_init(w, i, &args[i].ctx);
		if (pthread_create(&tid[i], NULL, stream_main, &args[i]) != 0)
			_exit(4);
	}
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	close(ready_fd);
	for (i = 0; i < w->job->nstreams; i++)
		pthread_join(tid[i], NULL);
	_exit(0);
}

/* A child's wait status in words. */
static void describe_status(int st, char *buf, size_t len)
{
	if (WIFSIGNALED(st))
		fmtcut(buf, len, "killed by signal %d", WTERMSIG(st));
	else
		fmtcut(buf, len, "exit status %d", WEXITSTATUS(st));
}

/*
 * The workload process's "ready" (in its memcg, its streams started) within
 * READY_WAIT_MS; -1 with why.
 */
static int wait_ready(struct wl *w, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;
	int rc;

	do
		rc = poll(&p, 1, READY_WAIT_MS);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0)
		return fail(w, "workload process not ready within %d s", READY_WAIT_MS / 1000);
	if (read(fd, &c, 1) == 1)
		return 0;
	return fail(w, "workload process could not join the memcg or start its streams");
}

/*
 * The workload process forked (it joins the memcg, then runs the streams)
 * and awaited until it is ready.
 */
static int start_process(struct wl *w)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return fail(w, "pipe: %s", strerror(errno));
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		close(p[0]);
		close(p[1]);
		return fail(w, "fork: %s", strerror(errno));
	}
	if (w->pid == 0) {
		close(p[0]);
		close(w->env->chan_fd);
		close(w->ev_rd);
		child_main(w, p[1]);
	}
	close(p[1]);
	if (wait_ready(w, p[0]) < 0) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return 0;
}

/* Ask every stream to end, wait for the process (kill it if it will not). */
static int stop_process(struct wl *w, int abandon)
{
	int64_t deadline = (int64_t)elapsed_ms(w) + STOP_WAIT_MS;
	char how[64];
	int st;
	pid_t r;

	if (w->pid <= 0)
		return 0;
	atomic_store_explicit(&w->reg->stop, 1, memory_order_release);
	if (abandon)
		kill(w->pid, SIGKILL);
	while ((r = waitpid(w->pid, &st, WNOHANG)) == 0) {
		if ((int64_t)elapsed_ms(w) >= deadline) {
			kill(w->pid, SIGKILL);
			deadline += STOP_WAIT_MS;
		}
		usleep(10000);
	}
	w->pid = 0;
	if (r < 0 || abandon)
		return 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		describe_status(st, how, sizeof(how));
		return fail(w, "workload process failed: %s", how);
	}
	return 0;
}

/* ---- sampling ---- */

/* A failed stream or a dead process ends the run with its reason. */
static int check_streams(struct wl *w)
{
	struct stream_shared *sh;
	char how[64];
	unsigned i;
	int st;

	for (i = 0; i < w->job->nstreams; i++) {
		sh = &w->reg->s[i];
		if (atomic_load(&sh->state) != ST_FAILED)
			continue;
		if (!atomic_load_explicit(&sh->err_set, memory_order_acquire))
			return fail(w, "stream '%s' failed", w->job->streams[i].name);
		if (strstr(sh->err, "not supported"))
			return fail(w, "unsupported: %s", sh->err);
		return fail(w, "%s", sh->err);
	}
	if (w->pid > 0 && waitpid(w->pid, &st, WNOHANG) == w->pid) {
		w->pid = 0;
		describe_status(st, how, sizeof(how));
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			return fail(w, "workload process killed by SIGKILL");
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return fail(w, "workload process ended early: %s", how);
	}
	return 0;
}

/* A native stream's interval from its threads' counters. */
static void native_sample(struct wl *w, unsigned i, struct proto_stream_sample *out)
{
	struct stream_shared *sh = &w->reg->s[i];
	struct stream_acc now = { 0 }, *prev = &w->acc[i];
	uint64_t delta[LAT_BUCKETS];
	unsigned t, b;

	for (t = 0; t < sh->nthreads; t++) {
		now.ops += atomic_load_explicit(&sh->th[t].ops, memory_order_relaxed);
		now.bytes += atomic_load_explicit(&sh->th[t].bytes, memory_order_relaxed);
		now.misses += atomic_load_explicit(&sh->th[t].misses, memory_order_relaxed);
		for (b = 0; b < LAT_BUCKETS; b++)
			now.hist[b] += atomic_load_explicit(&sh->th[t].hist[b], memory_order_relaxed);
	}
	for (b = 0; b < LAT_BUCKETS; b++)
		delta[b] = now.hist[b] >= prev->hist[b] ? now.hist[b] - prev->hist[b] : 0;
	/* a stream whose touches store (anon's access write) counts them as writes */
	if (w->job->streams[i].access == ACC_WRITE) {
		out->write_ops = now.ops - prev->ops;
		out->write_bytes = now.bytes - prev->bytes;
	} else {
		out->read_ops = now.ops - prev->ops;
		out->read_bytes = now.bytes - prev->bytes;
	}
	out->misses = now.misses - prev->misses;
	out->lat_p50_ns = lat_percentile(delta, 50);
	out->lat_p99_ns = lat_percentile(delta, 99);
	out->lat_max_ns = lat_max(delta);
	*prev = now;
}

static int send_stream(struct wl *w, struct proto_msg *m)
{
	if (w->env->send(w->env->send_arg, m) < 0)
		return fail(w, "channel: cannot send a stream sample");
	return 0;
}

/* Every interval of fio stream i that its documents can tell by now. */
static int send_fio(struct wl *w, unsigned i, uint64_t t0_ms)
{
	struct proto_msg m = { .type = PROTO_STREAM };
	int rc;

	stream_fio_interval(w->fio[i], w->seq, t0_ms, w->t_ms);
	while ((rc = stream_fio_next(w->fio[i], &w->reg->s[i], &m.u.stream, w->err,
				     w->errlen)) == 1)
		if (send_stream(w, &m) < 0)
			return -1;
	return rc;
}

/* The interval [t0_ms, w->t_ms) of every stream: native ones now, fio's when known. */
static int send_streams(struct wl *w, uint64_t t0_ms)
{
	struct proto_msg m = { .type = PROTO_STREAM };
	struct proto_stream_sample *s = &m.u.stream;
	int state;
	unsigned i;

	for (i = 0; i < w->job->nstreams; i++) {
		if (proto_kinds[w->job->streams[i].kind]->flags & PK_STATUS) {
			if (send_fio(w, i, t0_ms) < 0)
				return -1;
			continue;
		}
		memset(s, 0, sizeof(*s));
		native_sample(w, i, s);
		state = atomic_load(&w->reg->s[i].state);
		s->seq = w->seq;
		s->stream = i;
		s->active = state == ST_RUNNING || s->read_ops || s->write_ops;
		if (send_stream(w, &m) < 0)
			return -1;
	}
	return 0;
}

/* The sum of every thread's counters for operation op of stream i. */
static void op_now(const struct stream_shared *sh, unsigned op, struct op_acc *now)
{
	const struct stream_opc *o;
	unsigned t, b;

	memset(now, 0, sizeof(*now));
	for (t = 0; t < sh->nthreads; t++) {
		o = &sh->opc[t * OP_COUNT + op];
		now->ops += atomic_load_explicit(&o->ops, memory_order_relaxed);
		now->errors += atomic_load_explicit(&o->errors, memory_order_relaxed);
		now->eagain += atomic_load_explicit(&o->eagain, memory_order_relaxed);
		now->records += atomic_load_explicit(&o->records, memory_order_relaxed);
		now->sum_ns += atomic_load_explicit(&o->sum_ns, memory_order_relaxed);
		for (b = 0; b < LAT_BUCKETS; b++)
			now->hist[b] += atomic_load_explicit(&o->hist[b], memory_order_relaxed);
	}
}

/* d = now - prev, field by field (counters only grow; a torn read gives 0). */
static void op_delta(const struct op_acc *now, const struct op_acc *prev, struct op_acc *d)
{
	unsigned b;

#define SUB(f) d->f = now->f >= prev->f ? now->f - prev->f : 0
	SUB(ops); SUB(errors); SUB(eagain); SUB(records); SUB(sum_ns);
	for (b = 0; b < LAT_BUCKETS; b++)
		SUB(hist[b]);
#undef SUB
}

/* Operation counters d added into to. */
static void op_add(struct op_acc *to, const struct op_acc *d)
{
	unsigned b;

	to->ops += d->ops; to->errors += d->errors; to->eagain += d->eagain;
	to->records += d->records; to->sum_ns += d->sum_ns;
	for (b = 0; b < LAT_BUCKETS; b++)
		to->hist[b] += d->hist[b];
}

/* An operation's counters as a message: counts, mean, p50, p99 and max latency. */
static void op_fill(const struct op_acc *d, struct proto_op_sample *o)
{
	uint64_t n = d->ops;

	o->ops = d->ops;
	o->errors = d->errors;
	o->eagain = d->eagain;
	o->records = d->records;
	o->lat_mean_ns = n ? d->sum_ns / n : 0;
	o->lat_p50_ns = lat_percentile(d->hist, 50);
	o->lat_p99_ns = lat_percentile(d->hist, 99);
	o->lat_max_ns = lat_max(d->hist);
}

/* One operation's sample of stream i (its interval's, or the run's total). */
static int send_op(struct wl *w, unsigned i, unsigned op, const struct op_acc *d,
		   uint64_t seq, uint64_t span_ms, int total)
{
	struct proto_msg m = { .type = PROTO_OP };

	op_fill(d, &m.u.op);
	m.u.op.seq = seq;
	m.u.op.stream = i;
	m.u.op.total = (uint64_t)total;
	m.u.op.span_ms = span_ms;
	fmtcut(m.u.op.op, sizeof(m.u.op.op), "%s", proto_op_names[op]);
	if (w->env->send(w->env->send_arg, &m) < 0)
		return fail(w, "channel: cannot send an operation sample");
	return 0;
}

/* Every reported operation of every stream over the interval just ended. */
static int send_ops(struct wl *w, uint64_t span_ms, int ramp)
{
	struct op_acc now, d;
	unsigned i, op;

	for (i = 0; w->opa && i < w->job->nstreams; i++)
		for (op = 0; op < OP_COUNT; op++) {
			if (!(w->reg->s[i].ops & (1u << op)))
				continue;
			op_now(&w->reg->s[i], op, &now);
			op_delta(&now, &w->opa->prev[i][op], &d);
			w->opa->prev[i][op] = now;
			if (!ramp)
				op_add(&w->opa->total[i][op], &d);
			if (send_op(w, i, op, &d, w->seq, span_ms, 0) < 0)
				return -1;
		}
	if (w->opa && !ramp) {
		w->opa->total_ms += span_ms;
		w->opa->total_intervals++;
	}
	return 0;
}

/* The measured run of every reported operation, after the last sample. */
static int send_op_totals(struct wl *w)
{
	unsigned i, op;

	for (i = 0; w->opa && i < w->job->nstreams; i++)
		for (op = 0; op < OP_COUNT; op++)
			if ((w->reg->s[i].ops & (1u << op)) &&
			    send_op(w, i, op, &w->opa->total[i][op], w->opa->total_intervals,
				    w->opa->total_ms, 1) < 0)
				return -1;
	return 0;
}

/* The first fio stream's process, 0 before one runs (for the fiostall fault). */
static int fio_main_pid(const struct wl *w)
{
	int pid;

	for (unsigned i = 0; i < w->job->nstreams; i++)
		if (w->fio[i] && (pid = atomic_load(&w->reg->s[i].fio_pid)) > 0)
			return pid;
	return 0;
}

/* One PROTO_LRU per node of the memcg's generations as just read. */
static int send_lru(struct wl *w, const struct sampler_reading *now)
{
	struct proto_msg m = { .type = PROTO_LRU };
	unsigned i;

	for (i = 0; i < now->lru_nodes; i++) {
		sampler_lru_msg(w->smp.lru, i, w->seq, &m.u.lru);
		if (w->env->send(w->env->send_arg, &m) < 0)
			return fail(w, "channel: cannot send a node's generations");
	}
	return 0;
}

/*
 * One interval's sample: the memcg and files read, their deltas sent, then
 * its generations, named counters, trace events, streams and operations; the ramp flags the
 * intervals that began inside ramp_s.
 */
static int take_sample(struct wl *w)
{
	struct proto_msg m = { .type = PROTO_SAMPLE };
	struct sampler_reading now;
	const char *vm;
	uint64_t span;
	size_t vlen;

	if (sampler_read(&w->smp, &now, w->err, w->errlen) < 0 ||
	    sampler_fill(&now, &w->prev, &m.u.sample, w->err, w->errlen) < 0)
		return -1;
	vm = sampler_vmstat(&w->smp, &vlen);
	if (counters_read(w->ctr, vm, vlen, &m.u.sample, w->err, w->errlen) < 0)
		return -1;
	span = elapsed_ms(w) - w->t_ms;
	w->t_ms += span;
	fault_stall(w->env->fault, w->t_ms, fio_main_pid(w));
	m.u.sample.seq = w->seq;
	m.u.sample.t_ms = w->t_ms;
	/* an interval that began inside the ramp window is ramp: ramp_s 2 is two 1 s intervals */
	m.u.sample.ramp = w->seq * w->job->interval_ms < w->job->ramp_s * 1000;
	if (w->env->send(w->env->send_arg, &m) < 0)
		return fail(w, "channel: cannot send a sample");
	if (send_lru(w, &now) < 0 ||
	    counters_send(w->ctr, w->seq, w->env->send, w->env->send_arg, w->err, w->errlen) < 0 ||
	    tracer_drain(w->env->tracer, w->seq, w->reg->t0_ns, w->env->send, w->env->send_arg,
			 w->err, w->errlen) < 0 ||
	    send_streams(w, w->t_ms - span) < 0 || send_ops(w, span, (int)m.u.sample.ramp) < 0)
		return -1;
	w->prev = now;
	w->seq++;
	return 0;
}

/* Forward every event waiting in the pipe, with the residency of now. */
static int drain_events(struct wl *w)
{
	struct proto_msg m = { .type = PROTO_EVENT };
	struct proto_event *e = &m.u.event;
	struct stream_event ev;
	ssize_t n;

	while ((n = read(w->ev_rd, &ev, sizeof(ev))) == (ssize_t)sizeof(ev)) {
		if (ev.stream >= w->job->nstreams || ev.kind >= EV_COUNT)
			continue;
		memset(e, 0, sizeof(*e));
		e->t_ms = ev.t_ns > w->reg->t0_ns ? (ev.t_ns - w->reg->t0_ns) / 1000000u : 0;
		e->stream = ev.stream;
		fmtcut(e->kind, sizeof(e->kind), "%s", proto_event_names[ev.kind]);
		e->pass = ev.pass;
		e->value = ev.value;
		if (sampler_residency(&w->smp, &e->resident, w->err, w->errlen) < 0)
			return -1;
		if (w->env->send(w->env->send_arg, &m) < 0)
			return fail(w, "channel: cannot send an event");
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return fail(w, "event pipe: %s", strerror(errno));
	return 0;
}

/* Each fio stream's own final count, for the host to check the intervals against. */
static int send_fio_totals(struct wl *w)
{
	struct proto_msg m = { .type = PROTO_EVENT };
	unsigned i;

	for (i = 0; i < w->job->nstreams; i++) {
		if (!w->fio[i])
			continue;
		memset(&m.u.event, 0, sizeof(m.u.event));
		m.u.event.t_ms = elapsed_ms(w);
		m.u.event.stream = i;
		fmtcut(m.u.event.kind, sizeof(m.u.event.kind), "%s", proto_event_names[EV_TOTAL]);
		m.u.event.value = stream_fio_total(w->fio[i]);
		if (sampler_residency(&w->smp, &m.u.event.resident, w->err, w->errlen) < 0)
			return -1;
		if (w->env->send(w->env->send_arg, &m) < 0)
			return fail(w, "channel: cannot send an event");
	}
	return 0;
}

/* The interval timer, on CLOCK_MONOTONIC from the workload's start. */
static int start_timer(struct wl *w)
{
	uint64_t iv = w->job->interval_ms * 1000000u, first = w->reg->t0_ns + iv;
	struct itimerspec its = {
		.it_interval = { (time_t)(iv / 1000000000u), (long)(iv % 1000000000u) },
		.it_value = { (time_t)(first / 1000000000u), (long)(first % 1000000000u) },
	};

	w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (w->tfd < 0 || timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return fail(w, "timerfd: %s", strerror(errno));
	return 0;
}

/*
 * One sample per timer tick before the end; then the streams are stopped and
 * the last sample taken, so it holds everything they did (fio's final count).
 */
static int sample_loop(struct wl *w)
{
	uint64_t iv = w->job->interval_ms, end = w->job->duration_s * 1000, ticks = 0, exp;
	struct pollfd p[2] = { { .fd = w->tfd, .events = POLLIN }, { .fd = w->ev_rd, .events = POLLIN } };
	int64_t left;
	int rc;

	while ((ticks + 1) * iv < end) {
		left = (int64_t)((ticks + 1) * iv) - (int64_t)elapsed_ms(w);
		rc = poll(p, 2, left > 0 ? (int)left + 1000 : 1000);
		if (rc < 0 && errno != EINTR)
			return fail(w, "poll: %s", strerror(errno));
		if (p[1].revents && drain_events(w) < 0)
			return -1;
		if (!(p[0].revents & POLLIN) || read(w->tfd, &exp, sizeof(exp)) != sizeof(exp))
			continue;
		ticks += exp;
		if (check_streams(w) < 0 || take_sample(w) < 0)
			return -1;
	}
	while (elapsed_ms(w) < end) {
		if (poll(&p[1], 1, (int)(end - elapsed_ms(w))) > 0 && drain_events(w) < 0)
			return -1;
	}
	fault_unstall(w->env->fault);
	if (check_streams(w) < 0 || stop_process(w, 0) < 0 || check_streams(w) < 0)
		return -1;
	return take_sample(w) < 0 || drain_events(w) < 0 || send_fio_totals(w) < 0 ||
	       send_op_totals(w) < 0 ? -1 : 0;
}

/*
 * The summary: the measured time, how many samples were sent, and the
 * multi-size THP counters since the start.
 */
static int send_summary(struct wl *w)
{
	struct proto_msg m = { .type = PROTO_SUMMARY };

	m.u.summary.duration_ms = w->t_ms;
	m.u.summary.samples = w->seq;
	if (w->seq && counters_send_end(w->ctr, w->seq - 1, w->env->send, w->env->send_arg, w->err,
					w->errlen) < 0)
		return -1;
	if (w->env->mthp &&
	    (hugepages_counters(HUGEPAGES_DIR, w->env->mthp, &m.u.summary, w->err, w->errlen) < 0 ||
	     hugepages_since(&w->mthp0, &m.u.summary, w->err, w->errlen) < 0))
		return -1;
	return w->env->send(w->env->send_arg, &m) < 0 ? fail(w, "channel: cannot send summary") : 0;
}

/* Paths of the declared files, the sampler on them, the baseline at t0. */
static int start_sampling(struct wl *w)
{
	char *paths[PROTO_MAX_FILES];
	const char *vm;
	size_t vlen;
	unsigned f;
	int p[2];

	for (f = 0; f < w->job->nfiles; f++) {
		if (fmtbuf(w->path[f], sizeof(w->path[f]), "%s/%s", w->env->data_dir,
			   w->job->files[f].name) < 0)
			return fail(w, "file '%.64s...': its path is too long", w->job->files[f].name);
		paths[f] = w->path[f];
	}
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return fail(w, "event pipe: %s", strerror(errno));
	w->ev_rd = p[0];
	w->ev_wr = p[1];
	if (sampler_open(&w->smp, w->env->memcg, w->env->memcg_path, paths, w->job->nfiles,
			 w->env->cachestat, w->err, w->errlen) < 0)
		return -1;
	if (!w->env->lru_gen_on)
		sampler_lru_gen_off(&w->smp);
	if (sampler_read(&w->smp, &w->prev, w->err, w->errlen) < 0)
		return -1;
	if (!(w->ctr = malloc(sizeof(*w->ctr))))
		return fail(w, "counters: %s", strerror(ENOMEM));
	vm = sampler_vmstat(&w->smp, &vlen);
	if (counters_open(w->ctr, w->env->stalls, vm, vlen, w->err, w->errlen) < 0)
		return -1;
	w->oom0 = w->prev.oom_kill;
	if (w->env->mthp &&
	    hugepages_counters(HUGEPAGES_DIR, w->env->mthp, &w->mthp0, w->err, w->errlen) < 0)
		return -1;
	w->reg->t0_ns = stream_now_ns();
	return start_timer(w);
}

/* fio's status documents watched, for the streams whose program writes them. */
static int watch_fio(struct wl *w)
{
	unsigned i;

	for (i = 0; i < w->job->nstreams; i++)
		if ((proto_kinds[w->job->streams[i].kind]->flags & PK_STATUS) &&
		    stream_fio_watch(w->job, i, w->reg->t0_ns, &w->fio[i], w->err, w->errlen) < 0)
			return -1;
	return 0;
}

/*
 * A failed workload whose memcg's OOM killer fired during the run failed
 * because of it (a stream's error, a dead process, fio's exit are what that
 * looks like from inside): its error says so (guest/oom.c).
 */
static void explain_oom(struct wl *w)
{
	uint64_t kills;

	if (sampler_oom_kills(&w->smp, &kills) == 0 && kills > w->oom0)
		oom_explain(kills - w->oom0, w->err, w->errlen);
}

int workload_run(const struct workload_env *env, char *err, size_t errlen)
{
	struct wl w = {
		.env = env, .job = env->job, .ev_rd = -1, .ev_wr = -1, .tfd = -1,
		.err = err, .errlen = errlen,
	};
	unsigned i;
	int ret = -1;

	sampler_init(&w.smp);
	if (region_new(&w) < 0 || start_sampling(&w) < 0 || watch_fio(&w) < 0 ||
	    start_process(&w) < 0)
		goto out;
	close(w.ev_wr);
	w.ev_wr = -1;
	if (sample_loop(&w) < 0)
		goto out;
	ret = send_summary(&w);
out:
	fault_unstall(env->fault);
	if (w.reg)
		stop_process(&w, 1);
	if (ret < 0)
		explain_oom(&w);
	for (i = 0; i < PROTO_MAX_STREAMS; i++)
		stream_fio_unwatch(w.fio[i]);
	if (w.tfd >= 0)
		close(w.tfd);
	if (w.ev_rd >= 0)
		close(w.ev_rd);
	if (w.ev_wr >= 0)
		close(w.ev_wr);
	sampler_close(&w.smp);
	if (w.ctr)
		counters_close(w.ctr);
	free(w.ctr);
	if (w.reg)
		munmap(w.reg, w.reg_len);
	free(w.opa);
	return ret;
}
