/* stream_reclaim.c -- seed 002's memory.reclaim storm: make K memcgs beside the
 * workload's, charge each with its own page cache, then W workers ask back to back. */
#define _GNU_SOURCE
#include "stream.h"
#include "fdio.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

struct storm {
	struct stream_ctx *c;
	char root[512];                /* the cgroup2 mount: the workload memcg's parent */
	char parent[600];              /* root/harness-storm-<stream>: the K memcgs' parent */
	char reclaim[640];             /* the memory.reclaim the workers write */
	char request[64];              /* "<n>M swappiness=<s>" */
	size_t request_len;
	_Atomic int quit;
};

struct worker {
	struct storm *s;
	unsigned idx;
	pthread_t tid;
	_Atomic int done;
};

/* The storm's parent memcg (memory controller on) and its memcgs under it. */
static int make_memcgs(struct storm *s)
{
	const struct proto_stream *st = s->c->st;
	char path[700];
	uint64_t i;
	int e;

	if (mkdir(s->parent, 0755) < 0 && errno != EEXIST)
		return stream_fail(s->c, "stream '%s': mkdir %s: %s", st->name, s->parent,
				   strerror(errno));
	fmtcut(path, sizeof(path), "%s/cgroup.subtree_control", s->parent);
	if ((e = write_text(path, "+memory")))
		return stream_fail(s->c, "stream '%s': %s: +memory: %s", st->name, path, strerror(e));
	for (i = 0; i < st->memcgs; i++) {
		fmtcut(path, sizeof(path), "%s/m%llu", s->parent, (unsigned long long)i);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return stream_fail(s->c, "stream '%s': made %llu of %llu memcgs: %s", st->name,
					   (unsigned long long)i, (unsigned long long)st->memcgs,
					   strerror(errno));
	}
	return 0;
}

/*
 * In a child process: join each memcg in turn ("0" moves the writer) and read
 * that memcg's slice of the file, so the page cache is charged to it. The
 * buffer is on the stack: no malloc in a child forked from threads.
 */
static void __attribute__((noreturn)) charge_child(struct storm *s, int fd)
{
	char buf[CHUNK];
	const struct proto_stream *st = s->c->st;
	uint64_t slice = ((st->charge_mib << 20) / st->memcgs) & ~(uint64_t)4095, i, off;
	char path[700];
	ssize_t n;

	for (i = 0; i < st->memcgs; i++) {
		fmtcut(path, sizeof(path), "%s/m%llu/cgroup.procs", s->parent,
			 (unsigned long long)i);
		if (write_text(path, "0"))
			_exit(2);
		for (off = 0; off < slice; off += (uint64_t)n) {
			n = pread(fd, buf, slice - off < CHUNK ? slice - off : CHUNK,
				  (off_t)(i * slice + off));
			if (n <= 0)
				_exit(3);
		}
	}
	_exit(0);
}

/*
 * The file read into the storm's memcgs, a slice each, by a child process
 * that moves from one to the next; its page cache dropped first, so no page
 * stays charged to another reader.
 */
static int charge(struct storm *s)
{
	const char *name = s->c->st->name;
	int fd, st = 0;
	pid_t pid;

	fd = open(s->c->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return stream_fail(s->c, "stream '%s': open %s: %s", name, s->c->path, strerror(errno));
	/* pages cached before now would stay charged to whoever read them */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	pid = fork();
	if (pid == 0)
		charge_child(s, fd);
	close(fd);
	if (pid < 0)
		return stream_fail(s->c, "stream '%s': fork: %s", name, strerror(errno));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return stream_fail(s->c, "stream '%s': waitpid: %s", name, strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return stream_fail(s->c, "stream '%s': charging the memcgs failed (%s %d)", name,
				   WIFEXITED(st) ? "step" : "signal",
				   WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return 0;
}

/* KiB charged to the storm's memcgs, as their memory.current says (0 if unreadable). */
static uint64_t charged_kib(const struct storm *s)
{
	char path[700], buf[32];
	uint64_t i, kib = 0;
	ssize_t n;
	int fd;

	for (i = 0; i < s->c->st->memcgs; i++) {
		fmtcut(path, sizeof(path), "%s/m%llu/memory.current", s->parent,
			 (unsigned long long)i);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			kib += strtoull(buf, NULL, 10) >> 10;
		}
	}
	return kib;
}

/*
 * The memory.reclaim request: its size, and swappiness= when asked and this
 * kernel takes it.
 */
static void format_request(struct storm *s, const char *size, int with_swappiness)
{
	const char *sw = s->c->st->swappiness;

	if (with_swappiness && *sw)
		fmtcut(s->request, sizeof(s->request), "%s swappiness=%s", size, sw);
	else
		fmtcut(s->request, sizeof(s->request), "%s", size);
	s->request_len = strlen(s->request);
}

/*
 * A 4 KiB request with the real arguments: EINVAL means this kernel's
 * memory.reclaim lacks swappiness= (6.1 has no arguments at all).
 */
static int probe(struct storm *s)
{
	const struct proto_stream *st = s->c->st;
	char size[32];
	int e;

	format_request(s, "4K", 1);
	e = write_text(s->reclaim, s->request);
	if (e == EINVAL && st->swappiness[0]) {
		if (st->fallback != FALLBACK_OMIT)
			return stream_fail(s->c, "stream '%s': %s: swappiness= not supported by this "
					   "kernel (fallback \"omit\" runs without it)", st->name,
					   s->reclaim);
		stream_event(s->c, EV_FALLBACK, 0, 0);
		format_request(s, "4K", 0);
		e = write_text(s->reclaim, s->request);
	}
	if (e && e != EAGAIN)
		return stream_fail(s->c, "stream '%s': %s: '%s': %s", st->name, s->reclaim,
				   s->request, strerror(e));
	fmtcut(size, sizeof(size), "%lluM", (unsigned long long)st->request_mib);
	format_request(s, size, strstr(s->request, "swappiness=") != NULL);
	return 0;
}

/*
 * A worker: the request written to memory.reclaim again and again until the
 * stop, each counted with its latency and result (EAGAIN: reclaimed less).
 */
static void *worker_main(void *p)
{
	struct worker *wk = p;
	struct storm *s = wk->s;
	uint64_t bytes = s->c->st->request_mib << 20, t0;
	int fd = open(s->reclaim, O_WRONLY | O_CLOEXEC), e;

	if (fd < 0) {
		stream_fail(s->c, "stream '%s': open %s: %s", s->c->st->name, s->reclaim,
			    strerror(errno));
		atomic_store(&s->quit, 1);
	}
	while (fd >= 0 && !atomic_load(&s->quit) && !stream_should_stop(s->c)) {
		t0 = stream_now_ns();
		e = write(fd, s->request, s->request_len) == (ssize_t)s->request_len ? 0 : errno;
		if (e == EINTR)     /* interrupted at the stop: it did not complete */
			continue;
		stream_op_done(s->c, wk->idx, OP_RECLAIM, stream_now_ns() - t0, e, bytes);
	}
	if (fd >= 0)
		close(fd);
	atomic_store(&wk->done, 1);
	return NULL;
}

static void on_interrupt(int sig)
{
	(void)sig;
}

/*
 * A request can take longer than the watchdog allows (seconds, against
 * thousands of memcgs); memory.reclaim gives up on a pending signal, so at the
 * stop each worker is signalled until it has left, the last request unfinished.
 */
static void interrupt_workers(struct worker *w, unsigned n)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	unsigned i, left;

	do {
		for (i = left = 0; i < n; i++)
			if (!atomic_load(&w[i].done)) {
				pthread_kill(w[i].tid, SIGUSR1);
				left++;
			}
		if (left)
			nanosleep(&pause, NULL);
	} while (left);
}

/* Until the stream's end, the agent's stop or a worker's failure. */
static void wait_storm(struct storm *s)
{
	struct timespec slice = { 0, 100 * 1000 * 1000 };

	while (!atomic_load(&s->quit) && !stream_should_stop(s->c))
		nanosleep(&slice, NULL);
}

/*
 * The storm: its workers started, the stream's time waited out, the workers
 * interrupted out of a pending request and joined, between its start and
 * end events; -1 when a worker failed.
 */
static int storm(struct storm *s)
{
	unsigned n = (unsigned)s->c->st->workers, i, started;
	struct worker *w = calloc(n, sizeof(*w));
	struct sigaction sa = { .sa_handler = on_interrupt };   /* no SA_RESTART */
	int err = 0;

	if (!w || n > s->c->sh->nthreads) {
		free(w);
		return stream_fail(s->c, "stream '%s': %u workers, counters for %u",
				   s->c->st->name, n, s->c->sh->nthreads);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	stream_event(s->c, EV_START, 0, 0);
	for (started = 0; started < n && !err; started++) {
		w[started] = (struct worker){ .s = s, .idx = started };
		err = pthread_create(&w[started].tid, NULL, worker_main, &w[started]);
	}
	if (err) {
		started--;
		atomic_store(&s->quit, 1);
	}
	wait_storm(s);
	interrupt_workers(w, started);
	for (i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	stream_event(s->c, EV_END, 0, 0);
	free(w);
	if (err)
		return stream_fail(s->c, "stream '%s': pthread_create: %s", s->c->st->name,
				   strerror(err));
	return atomic_load(&s->quit) ? -1 : 0;
}

/*
 * The storm's cgroup paths: the root above the workload's memcg, its own
 * parent there, and memory.reclaim of the parent or of the root.
 */
static void paths(struct storm *s)
{
	char memcg[sizeof(s->root)];

	fmtcut(memcg, sizeof(memcg), "%s", s->c->memcg);
	fmtcut(s->root, sizeof(s->root), "%s", dirname(memcg));
	fmtcut(s->parent, sizeof(s->parent), "%s/harness-storm-%u", s->root, s->c->index);
	fmtcut(s->reclaim, sizeof(s->reclaim), "%s/memory.reclaim",
		 s->c->st->cgroup == RECLAIM_PARENT ? s->parent : s->root);
}

int stream_reclaim_run(struct stream_ctx *c)
{
	struct storm s = { .c = c };
	int running = ST_RUNNING;

	stream_sleep_until(c, stream_start_ns(c));
	if (stream_should_stop(c)) {
		atomic_store(&c->sh->state, ST_DONE);
		return 0;
	}
	paths(&s);
	atomic_store(&c->sh->state, ST_RUNNING);
	if (make_memcgs(&s) < 0 || charge(&s) < 0 || probe(&s) < 0)
		return -1;
	stream_event(c, EV_READY, 0, charged_kib(&s));
	if (storm(&s) < 0)
		return -1;
	atomic_compare_exchange_strong(&c->sh->state, &running, ST_DONE);
	return 0;
}
