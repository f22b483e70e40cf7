/* stream_fio.c -- fio as users write it: run in the workload process (inside the
 * memcg) with forced json+ status output, read back by the agent each interval. */
#define _GNU_SOURCE
#include "stream.h"
#include "common/fioargs.h"
#include "fiostat.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIO_BIN       "/bin/fio"
#define FIO_KILL_NS   (10ull * 1000000000ull)   /* SIGTERM, then SIGKILL after this */

/* An interval over, not told yet: fio's documents do not reach its end. */
struct fio_pending {
	uint64_t seq;
	int64_t t0_ms, t1_ms;
};

struct fio_watch {
	unsigned index;
	char path[64];
	int fd;
	uint64_t t0_ns;                 /* the workload's start */
	struct fio_pending pend[FIO_PENDING_MAX];   /* oldest first */
	unsigned npend;
	struct fiostat fs;
};

void stream_fio_output(unsigned index, char *buf, size_t len)
{
	fmtcut(buf, len, "/tmp/fio-%u.json", index);
}

static void fio_stderr_path(unsigned index, char *buf, size_t len)
{
	fmtcut(buf, len, "/tmp/fio-%u.err", index);
}

static void fio_jobfile_path(unsigned index, char *buf, size_t len)
{
	fmtcut(buf, len, "/tmp/fio-%u.job", index);
}

/* This guest's vCPUs, which bound fio's numjobs (1 if unknown). */
static unsigned guest_vcpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

/* The user's part of fio's argv: split args, or one job file written out. */
static int user_argv(struct stream_ctx *c, char ***ret)
{
	const struct proto_stream *st = c->st;
	char err[PROTO_ERR_MAX], path[64];
	char **argv = NULL;
	int argc, fd;

	if (st->jobfile[0]) {
		if (fioargs_check_jobfile(st->jobfile, err, sizeof(err)) < 0)
			return stream_fail(c, "stream '%s': job file: %s", st->name, err);
		fio_jobfile_path(c->index, path, sizeof(path));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, st->jobfile, strlen(st->jobfile)) < 0) {
			if (fd >= 0)
				close(fd);
			return stream_fail(c, "stream '%s': %s: %s", st->name, path, strerror(errno));
		}
		close(fd);
	}
	if (fioargs_split(st->args[0] ? st->args : "", &argv, &argc, err, sizeof(err)) < 0 ||
	    fioargs_check(argv, err, sizeof(err)) < 0 ||
	    fioargs_check_numjobs(argv, st->jobfile, guest_vcpus(), err, sizeof(err)) < 0) {
		fioargs_free(argv);
		return stream_fail(c, "stream '%s': %s", st->name, err);
	}
	if (st->jobfile[0]) {
		char **nv = realloc(argv, (size_t)(argc + 2) * sizeof(*argv));
		if (!nv || !(nv[argc] = strdup(path))) {
			fioargs_free(nv ? nv : argv);
			return stream_fail(c, "stream '%s': out of memory", st->name);
		}
		nv[argc + 1] = NULL;
		argv = nv;
	}
	*ret = argv;
	return 0;
}

/* fio in the data directory: relative file names in a job file resolve there too. */
static pid_t spawn(char *const argv[], const char *dir, const char *err_path)
{
	pid_t pid = fork();
	int fd;

	if (pid != 0)
		return pid;
	if (chdir(dir) < 0)
		_exit(126);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execv(FIO_BIN, argv);
	_exit(127);
}

/* fio's first lines of complaint, for the host to show verbatim. */
static void fio_complaint(unsigned index, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fio_stderr_path(index, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
}

/* Until fio exits; a stop (or the stream's end) asks it to finish, then insists. */
static int reap(struct stream_ctx *c, pid_t pid, int *status)
{
	uint64_t term_at = 0;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return term_at != 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (!term_at && stream_should_stop(c)) {
			kill(pid, SIGTERM);
			term_at = stream_now_ns();
		} else if (term_at && stream_now_ns() - term_at > FIO_KILL_NS) {
			kill(pid, SIGKILL);
		}
		usleep(20000);
	}
}

int stream_fio_run(struct stream_ctx *c)
{
	const struct proto_stream *st = c->st;
	char out[64], errp[64], complaint[PROTO_ERR_MAX - 64];
	char **user = NULL, **argv = NULL;
	int status = 0, stopped;
	pid_t pid;

	stream_sleep_until(c, stream_start_ns(c));
	if (atomic_load(&c->reg->stop))
		return 0;
	stream_fio_output(c->index, out, sizeof(out));
	fio_stderr_path(c->index, errp, sizeof(errp));
	if (user_argv(c, &user) < 0)
		return -1;
	if (fioargs_build(user, c->data_dir, out, c->interval_ms, &argv) < 0) {
		fioargs_free(user);
		return stream_fail(c, "stream '%s': fio arguments too long", st->name);
	}
	fioargs_free(user);
	atomic_store(&c->sh->started_ns, stream_now_ns());
	atomic_store(&c->sh->state, ST_RUNNING);
	stream_event(c, EV_START, 0, 0);
	pid = spawn(argv, c->data_dir, errp);
	fioargs_free(argv);
	if (pid < 0)
		return stream_fail(c, "stream '%s': fork: %s", st->name, strerror(errno));
	atomic_store(&c->sh->fio_pid, (int)pid);
	stopped = reap(c, pid, &status);
	stream_event(c, EV_END, 0, 0);
	if (stopped < 0)
		return stream_fail(c, "stream '%s': waitpid: %s", st->name, strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (stopped && WIFSIGNALED(status) == 0)
		return 0;   /* asked to stop: fio's exit code says so, not a failure */
	fio_complaint(c->index, complaint, sizeof(complaint));
	return stream_fail(c, "stream '%s': fio failed (%s %d): %s", st->name,
			   WIFEXITED(status) ? "exit" : "signal",
			   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), complaint);
}

/* ---- the agent's side ---- */

/* fio's clock (gettimeofday, its documents' timestamp_ms) at the workload's start. */
static int64_t fio_epoch_ms(uint64_t t0_ns)
{
	struct timespec rt;
	uint64_t mono = stream_now_ns();

	clock_gettime(CLOCK_REALTIME, &rt);
	return (int64_t)rt.tv_sec * 1000 + rt.tv_nsec / 1000000 - (int64_t)((mono - t0_ns) / 1000000);
}

int stream_fio_watch(const struct proto_job *job, unsigned index, uint64_t t0_ns,
		     struct fio_watch **ret, char *err, size_t errlen)
{
	struct fio_watch *fw = calloc(1, sizeof(*fw));

	(void)job;
	if (!fw) {
		fmtcut(err, errlen, "fio stream %u: out of memory", index);
		return -1;
	}
	fw->index = index;
	fw->fd = -1;
	fw->t0_ns = t0_ns;
	stream_fio_output(index, fw->path, sizeof(fw->path));
	unlink(fw->path);
	fiostat_init(&fw->fs, fio_epoch_ms(t0_ns));
	*ret = fw;
	return 0;
}

/* Feed whatever fio appended since the last look. */
static int fio_read_new(struct fio_watch *fw, char *err, size_t errlen)
{
	char buf[65536];
	ssize_t n;

	if (fw->fd < 0) {
		fw->fd = open(fw->path, O_RDONLY | O_CLOEXEC);
		if (fw->fd < 0)
			return 0;   /* fio has not started yet */
	}
	while ((n = read(fw->fd, buf, sizeof(buf))) > 0)
		if (fiostat_feed(&fw->fs, buf, (size_t)n, err, errlen) < 0)
			return -1;
	return n < 0 && errno != EINTR ? -1 : 0;
}

void stream_fio_interval(struct fio_watch *fw, uint64_t seq, uint64_t t0_ms, uint64_t t1_ms)
{
	if (fw->npend == FIO_PENDING_MAX) {
		fprintf(stderr, "harness: fio stream %u: interval %llu missing: no status document "
			"reached its end\n", fw->index, (unsigned long long)fw->pend[0].seq);
		memmove(fw->pend, fw->pend + 1, (FIO_PENDING_MAX - 1) * sizeof(fw->pend[0]));
		fw->npend--;
	}
	fw->pend[fw->npend++] = (struct fio_pending){ seq, (int64_t)t0_ms, (int64_t)t1_ms };
}

/* What fio's documents say of the oldest pending interval: 1, or 0 not yet. */
static int fio_told(struct fio_watch *fw, int state, struct fio_interval *iv)
{
	const struct fio_pending *p = &fw->pend[0];

	if (state == ST_WAITING) {   /* fio had not started when the interval ended */
		memset(iv, 0, sizeof(*iv));
		return 1;
	}
	if (!fiostat_slice(&fw->fs, p->t0_ms, p->t1_ms, iv))
		return 0;
	if (iv->running && !iv->docs)
		fprintf(stderr, "harness: fio stream %u: interval %llu has no status document of "
			"its own: fio's work spread over it by the documents' times\n", fw->index,
			(unsigned long long)p->seq);
	return 1;
}

int stream_fio_next(struct fio_watch *fw, const struct stream_shared *sh,
		    struct proto_stream_sample *out, char *err, size_t errlen)
{
	int state = atomic_load(&sh->state);
	uint64_t started = atomic_load(&sh->started_ns);
	char msg[PROTO_ERR_MAX - 32];
	struct fio_interval iv;

	if (started)
		fiostat_start(&fw->fs, (int64_t)((started - fw->t0_ns) / 1000000));
	if (fio_read_new(fw, msg, sizeof(msg)) < 0) {
		fmtcut(err, errlen, "fio stream %u: status output: %s", fw->index, msg);
		return -1;
	}
	if (state == ST_DONE || state == ST_FAILED)
		fiostat_end(&fw->fs);   /* fio has exited: its output is all read */
	if (!fw->npend || !fio_told(fw, state, &iv))
		return 0;
	memset(out, 0, sizeof(*out));
	out->seq = fw->pend[0].seq;
	out->stream = fw->index;
	out->read_ops = iv.read_ios;
	out->write_ops = iv.write_ios;
	out->read_bytes = iv.read_bytes;
	out->write_bytes = iv.write_bytes;
	out->lat_p50_ns = iv.lat_p50_ns;
	out->lat_p99_ns = iv.lat_p99_ns;
	out->lat_max_ns = iv.lat_max_ns;
	out->active = iv.running || iv.read_ios || iv.write_ios;
	memmove(fw->pend, fw->pend + 1, (fw->npend - 1) * sizeof(fw->pend[0]));
	fw->npend--;
	return 1;
}

uint64_t stream_fio_total(const struct fio_watch *fw)
{
	return fiostat_total_ios(&fw->fs);
}

void stream_fio_unwatch(struct fio_watch *fw)
{
	if (!fw)
		return;
	if (fw->fd >= 0)
		close(fw->fd);
	fiostat_release(&fw->fs);
	free(fw);
}
