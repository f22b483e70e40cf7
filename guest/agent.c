/* agent.c -- the in-guest agent: finds the harness channel, says hello, applies
 * one job (lru_gen, memcg, files) and hands it to the workload; main() only.
 *
 * Folder guest/: the static in-guest agent: sampler, workload, one stream_*.c per
 * stream kind, fault hooks; it shares only common/ with the host.
 * It may call: common/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "fault.h"
#include "fresh.h"
#include "fdio.h"
#include "hugepages.h"
#include "swap.h"
#include "common/fmt.h"
#include "common/proto.h"
#include "sampler.h"
#include "stream.h"
#include "stalls.h"
#include "tracer.h"
#include "workload.h"

#define LRU_GEN_PATH      "/sys/kernel/mm/lru_gen/enabled"
#define VIRTIO_PORTS      "/sys/class/virtio-ports"
#define MEMCG_NAME        "harness"
#define PORT_WAIT_MS      15000
#define JOB_WAIT_MS       60000
#define FIO_BIN           "/bin/fio"
#define CGROUP2_MAGIC     0x63677270

struct agent {
	const char *port_path;      /* -p: a pty, fifo-like device or unix socket */
	const char *data_dir;       /* -d */
	const char *cg_dir;         /* -c: cgroup2 mount point */
	int fd;                     /* the channel */
	char memcg[PATH_MAX];
	int cachestat;
	int lru_gen_on;             /* lru_gen enabled reads back neither "" nor 0x0000 */
	struct proto_job job;
	struct mthp_list mthp;       /* multi-size THP's sizes as the setup read them back */
	struct fault fault;          /* harness.fault=KIND: tests only */
	struct boot_times boot;      /* as PID 1; zero otherwise */
	struct tracer tracer;        /* trace: {sample: N}; off otherwise */
	struct stalls stalls;        /* reclaim stalls: on where the kernel has the events */
	uint64_t data_dev;           /* the data disk's st_dev */
	uint64_t file_ino[PROTO_MAX_FILES];
	char err[PROTO_ERR_MAX];     /* the last error: what the host and the console see */
};

static int error(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int error_errno(struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Fill a->err (what the host and the console will see); returns -1. */
static int error(struct agent *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmtcut(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Same, with ": <strerror(errno)>" appended. */
static int error_errno(struct agent *a, const char *fmt, ...)
{
	char msg[PROTO_ERR_MAX];
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vfmtcut(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error(a, "%s: %s", msg, strerror(e));
}

/* ms of CLOCK_MONOTONIC since t0. */
static uint64_t now_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)((t.tv_sec - t0->tv_sec) * 1000LL + (t.tv_nsec - t0->tv_nsec) / 1000000LL);
}

static uint64_t mono_ms(void)
{
	static const struct timespec zero;

	return now_ms_since(&zero);
}

/* Copy into a protocol string field: truncated to fit, non-printables as '?'. */
static void copy_field(char *dst, size_t cap, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < cap; i++)
		dst[i] = (src[i] < 0x20 || src[i] > 0x7e) ? '?' : src[i];
	dst[i] = '\0';
}

/* ---- files ---- */

/* Read at most len - 1 bytes of path, trailing whitespace trimmed. */
static int read_file_trim(struct agent *a, const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(a, "open '%s'", path);
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		error_errno(a, "read '%s'", path);
		close(fd);
		return -1;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return 0;
}

/* Write text to a sysfs/procfs/cgroupfs file in one write, as the kernel wants. */
static int write_file(struct agent *a, const char *path, const char *text)
{
	int fd, rc;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(a, "open '%s'", path);
	rc = write_all(fd, text, strlen(text));
	if (rc < 0)
		error_errno(a, "write '%s' to '%s'", text, path);
	if (close(fd) < 0 && rc == 0)
		rc = error_errno(a, "write '%s' to '%s'", text, path);
	return rc;
}

/* ---- channel ---- */

/* The /dev node of the virtio port named PROTO_PORT_NAME, if one exists yet. */
static int find_port(struct agent *a, char *path, size_t len)
{
	char name_path[PATH_MAX], name[64];
	struct dirent *de;
	DIR *d;
	int found = -1;

	d = opendir(VIRTIO_PORTS);
	if (!d)
		return -1;
	while (found < 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fmtcut(name_path, sizeof(name_path), VIRTIO_PORTS "/%s/name", de->d_name);
		if (read_file_trim(a, name_path, name, sizeof(name)) == 0 &&
		    !strcmp(name, PROTO_PORT_NAME)) {
			fmtcut(path, len, "/dev/%s", de->d_name);
			found = 0;
		}
	}
	closedir(d);
	return found;
}

/* A connected unix stream socket to path (the tests' channel); -1 with a->err. */
static int connect_unix(struct agent *a, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return error(a, "socket path '%s' too long", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_errno(a, "socket for '%s'", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		error_errno(a, "connect '%s'", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* -p PATH: a unix socket is connected to, anything else opened (a tty made raw). */
static int open_given_port(struct agent *a, const char *path)
{
	struct termios tio;
	struct stat st;
	int fd;

	if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		return connect_unix(a, path);
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return error_errno(a, "open '%s'", path);
	if (isatty(fd) && tcgetattr(fd, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(fd, TCSANOW, &tio);
	}
	return fd;
}

/* Wait up to PORT_WAIT_MS for the port to appear: its module may still be loading. */
static int open_channel(struct agent *a)
{
	uint64_t deadline = mono_ms() + PORT_WAIT_MS;
	char path[PATH_MAX];
	int fd;

	if (a->port_path)
		return open_given_port(a, a->port_path);
	for (;;) {
		if (find_port(a, path, sizeof(path)) == 0) {
			fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
			if (fd >= 0)
				return fd;
			error_errno(a, "open '%s'", path);
		} else {
			error(a, "no virtio port named '%s' under " VIRTIO_PORTS, PROTO_PORT_NAME);
		}
		if (mono_ms() >= deadline)
			return -1;
		usleep(100 * 1000);
	}
}

/*
 * One message on the channel, through the fault filter (tests only), its
 * sample's seq on the console for the tests to compare; before a summary or
 * an error the console is drained, as the host ends the guest on either.
 */
static int send_msg(struct agent *a, const struct proto_msg *m)
{
	char line[PROTO_LINE_MAX];
	int n, rc;

	n = proto_format(m, line, sizeof(line));
	if (n < 0)
		return error(a, "cannot format message of type %d", m->type);
	rc = fault_filter(&a->fault, a->fd, m, line, (size_t)n, a->err, sizeof(a->err));
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	/* the host ends the guest on a summary or an error: what the console
	 * was told before must have left the UART by then, or its last lines
	 * (a sent sample, the error's own) are lost with the guest */
	if (m->type == PROTO_SUMMARY || m->type == PROTO_ERROR)
		tcdrain(STDERR_FILENO);
	if (write_all(a->fd, line, (size_t)n) < 0)
		return error_errno(a, "write to the channel");
	/* the console's own record of what was sent, for tests to compare */
	if (m->type == PROTO_SAMPLE)
		fprintf(stderr, "harness: sent sample seq=%llu\n",
			(unsigned long long)m->u.sample.seq);
	return 0;
}

/* Report a->err to the console and, if the channel is open, to the host. */
static void send_error(struct agent *a)
{
	struct proto_msg m = { .type = PROTO_ERROR };

	fprintf(stderr, "agent: %s\n", a->err);
	if (a->fd < 0)
		return;
	copy_field(m.u.error, sizeof(m.u.error), a->err);
	if (send_msg(a, &m) < 0)
		fprintf(stderr, "agent: %s\n", a->err);
}

/*
 * One line (without its newline) within timeout_ms. A closed channel is waited
 * out: a virtio port reads EOF until the host side connects.
 */
static int read_line(struct agent *a, int fd, char *buf, size_t cap, int timeout_ms, size_t *ret_len)
{
	uint64_t deadline = mono_ms() + (uint64_t)timeout_ms, now;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	char *nl;
	ssize_t n;
	int eof = 0;

	for (;;) {
		nl = memchr(buf, '\n', len);
		if (nl) {
			*ret_len = (size_t)(nl - buf);
			return 0;
		}
		if (len == cap)
			return error(a, "channel: line longer than %zu bytes", cap - 1);
		now = mono_ms();
		if (now >= deadline)
			return error(a, "channel: no job line within %d s%s", timeout_ms / 1000,
				     eof ? " (channel closed)" : "");
		if (eof) {
			usleep(100 * 1000);
			eof = 0;
		}
		if (poll(&p, 1, (int)(deadline - now)) < 0 && errno != EINTR)
			return error_errno(a, "poll on the channel");
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, buf + len, cap - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return error_errno(a, "read from the channel");
		eof = n == 0;
		len += (size_t)n;
	}
}

/* ---- hello and job ---- */

static uint64_t mem_total_kib(void)
{
	unsigned long long kib = 0;
	char line[256];
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* The first regular file on the data disk, to probe what the kernel supports. */
static int open_any_data_file(struct agent *a)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(a->data_dir);
	int fd = -1;

	while (d && fd < 0 && (de = readdir(d))) {
		fmtcut(path, sizeof(path), "%s/%s", a->data_dir, de->d_name);
		if (de->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size > 0)
			fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (d)
		closedir(d);
	return fd;
}

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

/* 1 if this kernel takes RWF_DONTCACHE reads (on fd, a data file). */
static int dontcache_works(int fd)
{
	char buf[4096] __attribute__((aligned(4096)));
	struct iovec iov = { buf, sizeof(buf) };

	return fd >= 0 && preadv2(fd, &iov, 1, 0, RWF_DONTCACHE) >= 0;
}

/* "fio-3.33" from the image's fio, or "" when it has none. */
static void fio_version(char *out, size_t len)
{
	char buf[64] = "";
	int p[2], st;
	ssize_t n = 0;
	pid_t pid;

	out[0] = '\0';
	if (access(FIO_BIN, X_OK) < 0 || pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execl(FIO_BIN, "fio", "--version", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0) {
		n = read(p[0], buf, sizeof(buf) - 1);
		waitpid(pid, &st, 0);
	}
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	copy_field(out, len, buf);
}

/*
 * The hello: the kernel's release and arch, page size, memory, lru_gen's
 * caps, cachestat and dontcache, fio's version, and as PID 1 its boot times.
 */
static int say_hello(struct agent *a)
{
	struct proto_msg m = { .type = PROTO_HELLO };
	struct proto_hello *h = &m.u.hello;
	struct utsname u;
	char caps[64];
	long ps = sysconf(_SC_PAGESIZE);
	int fd;

	if (uname(&u) < 0)
		return error_errno(a, "uname");
	h->proto = PROTO_VERSION;
	copy_field(h->release, sizeof(h->release), u.release);
	copy_field(h->arch, sizeof(h->arch), u.machine);
	h->page_size = ps > 0 ? (uint64_t)ps : 0;
	h->mem_total_kib = mem_total_kib();
	if (read_file_trim(a, LRU_GEN_PATH, caps, sizeof(caps)) < 0)
		caps[0] = '\0';
	copy_field(h->lru_gen_caps, sizeof(h->lru_gen_caps), caps);
	fd = open_any_data_file(a);
	a->cachestat = sampler_cachestat_works(fd);
	h->cachestat = (uint64_t)a->cachestat;
	h->dontcache = (uint64_t)dontcache_works(fd);
	if (fd >= 0)
		close(fd);
	fio_version(h->fio, sizeof(h->fio));
	if (a->boot.init_ms) {
		h->up_init_ms = a->boot.init_ms;
		h->up_ready_ms = a->boot.ready_ms;
		h->up_hello_ms = boot_uptime_ms();
	}
	return send_msg(a, &m);
}

/*
 * The job, the line that follows hello, within JOB_WAIT_MS; -1 with a->err
 * for anything else.
 */
static int recv_job(struct agent *a)
{
	char line[PROTO_LINE_MAX], err[PROTO_ERR_MAX];
	struct proto_msg m;
	size_t len = 0;

	if (read_line(a, a->fd, line, sizeof(line), JOB_WAIT_MS, &len) < 0)
		return -1;
	if (proto_parse(line, len, &m, err, sizeof(err)) < 0)
		return error(a, "channel: bad job line: %s", err);
	if (m.type != PROTO_JOB)
		return error(a, "channel: expected a job, got message type %d", m.type);
	a->job = m.u.job;
	return 0;
}

/* ---- setup ---- */

/* Write job.lru_gen if set; read the file back into out ("" if it is absent). */
static int apply_lru_gen(struct agent *a, char *out, size_t len)
{
	const char *want = a->job.lru_gen;

	if (*want && strcmp(want, "y") && strcmp(want, "n"))
		return error(a, "job: lru_gen must be \"y\", \"n\" or \"\", not '%s'", want);
	if (access(LRU_GEN_PATH, F_OK) < 0) {
		if (errno != ENOENT)
			return error_errno(a, "access '%s'", LRU_GEN_PATH);
		if (*want)
			return error(a, "lru_gen requested but " LRU_GEN_PATH " is missing");
		out[0] = '\0';
		return 0;
	}
	if (*want && write_file(a, LRU_GEN_PATH, want) < 0)
		return -1;
	return read_file_trim(a, LRU_GEN_PATH, out, len);
}

#define THP_DIR HUGEPAGES_DIR

/*
 * transparent_hugepage's file name ("enabled", "defrag"): want written if
 * set (a-z and '+' only: the kernel names the rest), then read back into
 * out; "" where the kernel has no THP, where an ask is unsupported.
 */
static int apply_thp(struct agent *a, const char *name, const char *want, char *out, size_t len)
{
	char path[64], text[128];

	if (strspn(want, "abcdefghijklmnopqrstuvwxyz+") != strlen(want))
		return error(a, "job: thp_%s '%s': expected a word of a-z and '+'", name, want);
	fmtcut(path, sizeof(path), THP_DIR "/%s", name);
	if (access(path, F_OK) < 0) {
		if (errno != ENOENT)
			return error_errno(a, "access '%s'", path);
		if (*want)
			return error(a, "unsupported: thp_%s requested but %s is missing (no "
				     "transparent hugepages in this kernel)", name, path);
		out[0] = '\0';
		return 0;
	}
	if (*want && write_file(a, path, want) < 0)
		return -1;
	if (read_file_trim(a, path, text, sizeof(text)) < 0)
		return -1;
	hugepages_active(text, out, len);
	return 0;
}

/*
 * The job's multi-size THP knobs written, every size read back into s and
 * a->mthp (the sizes the workload counts); "" where the kernel has none.
 */
static int apply_mthp(struct agent *a, struct proto_setup *s)
{
	return hugepages_apply(HUGEPAGES_DIR, a->job.mthp, &a->mthp, s->mthp, sizeof(s->mthp),
			       a->err, sizeof(a->err));
}

/* cgroup2 mounted on dir unless it is already. */
static int mount_cgroup2(struct agent *a, const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return error_errno(a, "statfs '%s'", dir);
	if (sf.f_type == CGROUP2_MAGIC)
		return 0;
	if (mount("cgroup2", dir, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return error_errno(a, "mount cgroup2 on '%s'", dir);
	return 0;
}

/*
 * The workload's memcg: the memory controller on, its directory, memory.max
 * the job's memcg_mib, and memory.swap.max its swap_max_mib where the kernel
 * accounts swap.
 */
static int setup_memcg(struct agent *a)
{
	char path[PATH_MAX + 32], val[32];

	if (mount_cgroup2(a, a->cg_dir) < 0)
		return -1;
	fmtcut(path, sizeof(path), "%s/cgroup.subtree_control", a->cg_dir);
	if (write_file(a, path, "+memory") < 0)
		return -1;
	fmtcut(a->memcg, sizeof(a->memcg), "%s/" MEMCG_NAME, a->cg_dir);
	if (mkdir(a->memcg, 0755) < 0 && errno != EEXIST)
		return error_errno(a, "mkdir '%s'", a->memcg);
	fmtcut(path, sizeof(path), "%s/memory.max", a->memcg);
	fmtcut(val, sizeof(val), "%llu", (unsigned long long)(a->job.memcg_mib << 20));
	if (write_file(a, path, val) < 0)
		return -1;
	fmtcut(path, sizeof(path), "%s/memory.swap.max", a->memcg);
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		if (a->job.swap_max_mib)
			return error(a, "unsupported: swap_max_mib: %s is missing (no swap "
				     "accounting in this kernel)", path);
		return 0;   /* no swap accounting in this kernel, and none asked */
	}
	fmtcut(val, sizeof(val), "%llu", (unsigned long long)(a->job.swap_max_mib << 20));
	return write_file(a, path, val);
}

/* The job's swap made and vm.swappiness set, both read back into s. */
static int setup_swap(struct agent *a, struct proto_setup *s)
{
	if (swap_setup(&a->job, a->data_dir, s->swap, sizeof(s->swap), a->err,
		       sizeof(a->err)) < 0 ||
	    swap_swappiness(a->job.swappiness, &s->swappiness, a->err, sizeof(a->err)) < 0)
		return -1;
	return 0;
}

/* Every declared file on the data disk, at least as big as declared. */
static int check_files(struct agent *a, struct proto_u64s *pages)
{
	const struct proto_file *f;
	char path[PATH_MAX];
	struct stat st;
	unsigned i;

	pages->n = a->job.nfiles;
	for (i = 0; i < a->job.nfiles; i++) {
		f = &a->job.files[i];
		if (fmtbuf(path, sizeof(path), "%s/%s", a->data_dir, f->name) < 0)
			return error(a, "file '%.64s...': its path is too long", f->name);
		if (stat(path, &st) < 0)
			return error_errno(a, "file '%s'", path);
		if (!S_ISREG(st.st_mode))
			return error(a, "file '%s' is not a regular file", path);
		if ((uint64_t)st.st_size < f->mib << 20)
			return error(a, "file '%s' is %lld bytes, the job declares %llu MiB", path,
				     (long long)st.st_size, (unsigned long long)f->mib);
		pages->v[i] = (f->mib << 20) / 4096;
		a->file_ino[i] = (uint64_t)st.st_ino;
		a->data_dev = (uint64_t)st.st_dev;
	}
	return 0;
}

/* What the job traces, and the kernel's layout of the folio's generation. */
static int trace_setup(struct agent *a, struct proto_setup *s)
{
	struct tracer_conf c = { 0 };
	struct utsname u;
	struct stat st;
	unsigned files, i;
	int all;

	s->file_ino.n = a->job.nfiles;
	memcpy(s->file_ino.v, a->file_ino, sizeof(a->file_ino));
	a->tracer.pipe_fd = -1;
	if (!(c.sample = proto_job_trace(&a->job, &files, &all)))
		return 0;
	if (stat(a->data_dir, &st) < 0)
		return error_errno(a, "'%s'", a->data_dir);
	/* the kernel's dev_t (MKDEV: major << 20 | minor), as the probes read s_dev */
	c.dev = ((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev);
	c.nfiles = a->job.nfiles;
	for (i = 0; i < a->job.nfiles; i++) {
		c.ino[i] = a->file_ino[i];
		c.pages[i] = s->file_pages.v[i];
	}
	c.traced = all ? 0 : files;
	if (uname(&u) == 0)
		c.layout = tracer_layout_find(u.release, u.machine);
	if (tracer_open(&a->tracer, &c, a->err, sizeof(a->err)) < 0)
		return -1;
	copy_field(s->trace, sizeof(s->trace), a->tracer.status);
	return 0;
}

/* Databases are written by their runs: the data disk (a per-run overlay) goes read-write. */
static int data_writable(struct agent *a)
{
	if (!a->job.ndbs)
		return 0;
	if (mount(NULL, a->data_dir, NULL, MS_REMOUNT | MS_NOATIME, NULL) < 0)
		return error_errno(a, "remount '%s' read-write for the databases", a->data_dir);
	return 0;
}

/*
 * Everything before the workload, then the setup message: the clock and
 * random state made fresh (a restored guest's are its save's), lru_gen,
 * transparent hugepages and multi-size THP's sizes applied and read back,
 * the memcg, the files checked, caches dropped, the residency method, the
 * trace and the stall tracing.
 */
static int setup(struct agent *a)
{
	struct proto_msg m = { .type = PROTO_SETUP };
	struct proto_setup *s = &m.u.setup;
	char lru[64];

	/* first: a guest restored from a save runs on from its saved clock and
	 * random state, shared by every run restored from that save */
	if (fresh_clock(a->job.host_ms, &s->clock_behind_ms, &s->clock_ahead_ms, a->err,
			sizeof(a->err)) < 0 ||
	    fresh_reseed(a->job.seed, s->rng, sizeof(s->rng), a->err, sizeof(a->err)) < 0)
		return -1;
	if (apply_lru_gen(a, lru, sizeof(lru)) < 0 ||
	    apply_thp(a, "enabled", a->job.thp_enabled, s->thp_enabled, sizeof(s->thp_enabled)) < 0 ||
	    apply_thp(a, "defrag", a->job.thp_defrag, s->thp_defrag, sizeof(s->thp_defrag)) < 0 ||
	    apply_mthp(a, s) < 0 ||
	    setup_memcg(a) < 0 || setup_swap(a, s) < 0 ||
	    check_files(a, &s->file_pages) < 0 || data_writable(a) < 0)
		return -1;
	sync();
	if (write_file(a, "/proc/sys/vm/drop_caches", "3") < 0)
		return -1;
	copy_field(s->lru_gen, sizeof(s->lru_gen), lru);
	a->lru_gen_on = lru[0] && strcmp(lru, "0x0000");
	copy_field(s->residency, sizeof(s->residency), a->cachestat ? "cachestat" : "mincore");
	if (trace_setup(a, s) < 0)
		return -1;
	stalls_open(&a->stalls);
	copy_field(s->stalls, sizeof(s->stalls), a->stalls.status);
	return send_msg(a, &m);
}

static int send_cb(void *arg, const struct proto_msg *m)
{
	return send_msg(arg, m);
}

/* The workload in its memcg, its messages sent as they come; -1 with a->err. */
static int run(struct agent *a)
{
	struct workload_env env = {
		.job = &a->job, .data_dir = a->data_dir, .memcg = a->memcg,
		.memcg_path = "/" MEMCG_NAME, .cachestat = a->cachestat, .chan_fd = a->fd,
		.lru_gen_on = a->lru_gen_on, .mthp = &a->mthp,
		.send = send_cb, .send_arg = a, .fault = &a->fault, .tracer = &a->tracer,
		.stalls = &a->stalls,
	};
	char err[PROTO_ERR_MAX];

	if (workload_run(&env, err, sizeof(err)) < 0)
		return error(a, "%s", err);
	return 0;
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr, "usage: agent [-p PORT] [-d DATADIR] [-c CGROUP2_DIR]\n"
			"       agent -P RELEASE   (the trace probes for that kernel on this arch)\n");
	exit(2);
}

/* agent -P RELEASE: the probes it would define there, for tests/capture_trace.sh. */
static int print_probes(const char *release)
{
	const struct tracer_layout *l;
	struct utsname u;
	char buf[4096];

	if (uname(&u) < 0 || !(l = tracer_layout_find(release, u.machine))) {
		fprintf(stderr, "agent: no folio flag layout for %s\n", release);
		return 1;
	}
	if (tracer_probe_text(l, buf, sizeof(buf)) < 0)
		return 1;
	fputs(buf, stdout);
	return 0;
}

/*
 * The agent's options (-P prints the trace probes and exits), its paths
 * checked against PATH_MAX; usage and exit 2 otherwise.
 */
static void parse_args(struct agent *a, int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "p:d:c:P:")) != -1) {
		switch (c) {
		case 'P': exit(print_probes(optarg));
		case 'p': a->port_path = optarg; break;
		case 'd': a->data_dir = optarg; break;
		case 'c': a->cg_dir = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (strlen(a->data_dir) + PROTO_NAME_MAX + 2 >= PATH_MAX ||
	    strlen(a->cg_dir) + sizeof(MEMCG_NAME) + 1 >= PATH_MAX) {
		fprintf(stderr, "agent: path too long\n");
		exit(2);
	}
}

/* The agent's life once its arguments are taken: 0 or 1, as main returns. */
static int agent_main(struct agent *a)
{
	signal(SIGPIPE, SIG_IGN);
	/* A fixed hash seed: otherwise jansson's first object waits on the
	 * guest's entropy pool, a second or more after boot under TCG. */
	json_object_seed(1);
	if (fault_load(&a->fault, "/proc/cmdline", a->err, sizeof(a->err)) < 0) {
		send_error(a);
		return 1;
	}
	if (a->fault.kind == FAULT_NOPORT) {   /* test-only: as if its port never came */
		error(a, "harness.fault=noport: no channel opened");
		send_error(a);
		return 1;
	}
	a->fd = open_channel(a);
	if (a->fd < 0) {
		send_error(a);
		return 1;
	}
	if (say_hello(a) < 0 || recv_job(a) < 0 || setup(a) < 0 || run(a) < 0) {
		send_error(a);
		return 1;
	}
	tracer_close(&a->tracer);
	stalls_close(&a->stalls);
	close(a->fd);
	return 0;
}

/*
 * As the guest's /init (PID 1) the agent boots the guest itself and its
 * arguments are whatever the kernel passed on: ignored. Anywhere else it
 * takes -p, -d and -c.
 */
int main(int argc, char **argv)
{
	struct agent a = { .data_dir = "/data", .cg_dir = "/sys/fs/cgroup", .fd = -1,
			   .tracer = { .pipe_fd = -1 } };

	stalls_init(&a.stalls);
	if (getpid() == 1) {
		boot_init(&a.boot, a.data_dir);
		boot_poweroff(agent_main(&a));
	}
	parse_args(&a, argc, argv);
	return agent_main(&a);
}
