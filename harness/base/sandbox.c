/* sandbox.c -- a program run on untrusted input in a jail of its own: private
 * namespaces, a read-only tmpfs root with only the files or host directories it is given, no privileges. */
#define _GNU_SOURCE
#include "base/sandbox.h"
#include "base/cgroup.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Mounted over in the jail's own mount namespace only; the host's /tmp is untouched. */
#define JAIL_MNT "/tmp"
#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | \
		  CLONE_NEWCGROUP)

/* What the child was doing when it gave up: it reports {step, errno} and exits. */
enum step {
	STEP_FDS, STEP_UNSHARE, STEP_IDMAP, STEP_FORK, STEP_MOUNT, STEP_COPY, STEP_PIVOT,
	STEP_READONLY, STEP_USER, STEP_LIMITS, STEP_EXEC, STEP_BIND, STEP_SYSTEM, STEP_CWD,
	STEP_CGROUP,
};

static const char *const step_what[] = {
	[STEP_FDS]      = "set up its standard files",
	[STEP_UNSHARE]  = ("create its namespaces (as root this needs CAP_SYS_ADMIN; as another "
			   "user, unprivileged user namespaces: sysctl user.max_user_namespaces)"),
	[STEP_IDMAP]    = "map uid and gid 65534 in its user namespace",
	[STEP_FORK]     = "fork into its pid namespace",
	[STEP_MOUNT]    = "mount its tmpfs root",
	[STEP_COPY]     = "copy its files in",
	[STEP_PIVOT]    = "pivot_root into it",
	[STEP_READONLY] = "make its root read-only",
	[STEP_USER]     = "drop to uid and gid 65534",
	[STEP_LIMITS]   = "set its resource limits",
	[STEP_EXEC]     = "exec the program",
	[STEP_BIND]     = "show a directory it is given",
	[STEP_SYSTEM]   = "show the toolchain (/usr, /dev, /proc, /tmp)",
	[STEP_CWD]      = "enter its working directory",
	[STEP_CGROUP]   = "join its memory cgroup",
};

struct report {
	int step;
	int err;
	int bind;       /* STEP_BIND: which of the view's binds */
};

/*
 * What every build jail shows of the host besides its binds: the toolchain
 * read-only, and the few devices a compiler opens. A path the host has not
 * got is left out.
 */
static const struct { const char *path; int dev; } toolchain[] = {
	{ "/usr", 0 },
	{ "/etc/alternatives", 0 },     /* Debian's awk, cc, ... are links through it */
	{ "/etc/ld.so.cache", 0 },
	{ "/dev/null", 1 }, { "/dev/zero", 1 }, { "/dev/full", 1 },
	{ "/dev/random", 1 }, { "/dev/urandom", 1 },
};

/* Merged /usr: these are links into it, made again in the jail's root. */
static const char *const usr_links[] = { "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32" };

#define LINK_MAX_LEN 64
#define VIEW_NOFILE     1024    /* a view's open files when it names none */
#define VIEW_TMP_INODES 65536   /* ... and the files of its /tmp */

/* Everything the child needs, made before fork: the child only makes system calls. */
struct jail {
	char *const *argv;
	const struct sandbox_file *files;
	size_t nfiles;
	const struct sandbox_limits *lim;
	int userns;                      /* not root: a user namespace maps 65534 to us */
	int src_fd[SANDBOX_FILES_MAX];   /* -1 for data files */
	char dst[SANDBOX_FILES_MAX][sizeof(JAIL_MNT) + SANDBOX_NAME_MAX + 1];
	char exe[SANDBOX_NAME_MAX + 2];  /* "/argv[0]" */
	char tmpfs_opts[96];
	char uid_map[48], gid_map[48];
	int null_fd, out_fd, report_fd;
	const struct sandbox_view *view;             /* a build jail, or NULL */
	const struct cgroup_jail *cg;                /* its memory cgroup, or NULL */
	char tmp_opts[96];                           /* a build jail's /tmp */
	char links[ARRAY_SIZE(usr_links)][LINK_MAX_LEN];   /* "" where the host has none */
};

static __attribute__((noreturn)) void fail_bind(const struct jail *j, enum step s, int bind)
{
	struct report r = { s, errno, bind };

	if (write(j->report_fd, &r, sizeof(r)) < 0)
		_exit(125);
	_exit(126);
}

static __attribute__((noreturn)) void fail(const struct jail *j, enum step s)
{
	struct report r = { s, errno, -1 };

	if (write(j->report_fd, &r, sizeof(r)) < 0)
		_exit(125);
	_exit(126);
}

/* text written whole to a /proc file; -1 otherwise. */
static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * Not root: the user namespace's only ids, 65534, are ours outside. A process
 * that changed its uid without an exec is not dumpable, and its /proc files
 * are then root's: dumpable, they are ours to write.
 */
static int map_ids(const struct jail *j)
{
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 ||
	    write_proc("/proc/self/setgroups", "deny") < 0 ||
	    write_proc("/proc/self/uid_map", j->uid_map) < 0 ||
	    write_proc("/proc/self/gid_map", j->gid_map) < 0)
		return -1;
	return 0;
}

/*
 * The jail's file i into its tmpfs at its mode (from its descriptor, or its
 * bytes); -1 when any step fails.
 */
static int copy_in(const struct jail *j, size_t i)
{
	const struct sandbox_file *f = &j->files[i];
	mode_t mode = f->exec ? 0555 : 0444;
	int fd = open(j->dst[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	size_t done = 0, len = f->len;
	off_t off = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	/* the mode itself, not as the harness's umask (077) would cut it for uid 65534 */
	if (fchmod(fd, mode) < 0) {
		close(fd);
		return -1;
	}
	while (done < len) {
		n = j->src_fd[i] >= 0 ? sendfile(fd, j->src_fd[i], &off, len - done)
				      : write(fd, f->data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}

/* Into JAIL_MNT's tmpfs as the root, the host's tree detached, the root made read-only. */
static void pivot(const struct jail *j)
{
	if (chdir(JAIL_MNT) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		fail(j, STEP_PIVOT);
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		  NULL) < 0)
		fail(j, STEP_READONLY);
}

/* The empty root: a tmpfs of the files only, pivoted into, the host's tree detached. */
static void enter_root(const struct jail *j)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", JAIL_MNT, "tmpfs", MS_NOSUID | MS_NODEV, j->tmpfs_opts) < 0)
		fail(j, STEP_MOUNT);
	for (size_t i = 0; i < j->nfiles; i++)
		if (copy_in(j, i) < 0)
			fail(j, STEP_COPY);
	pivot(j);
}

/* uid and gid 65534 (already so in a user namespace), no groups, no new privileges. */
static int drop_user(const struct jail *j)
{
	if (!j->userns && (setgroups(0, NULL) < 0 ||
			   setresgid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) < 0 ||
			   setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) < 0))
		return -1;
	if (getuid() == 0 || geteuid() == 0 || getgid() == 0 || getegid() == 0)
		return errno = EPERM, -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

struct limit {
	int res;
	rlim_t val;
};

/* Each limit as both its soft and hard value; -1 at the first refused. */
static int apply_limits(const struct limit *limits, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rlimit rl = { limits[i].val, limits[i].val };

		if (setrlimit(limits[i].res, &rl) < 0)
			return -1;
	}
	return 0;
}

/* After drop_user: RLIMIT_NPROC 0 then forbids any new process or thread. */
static int set_limits(const struct sandbox_limits *lim)
{
	const struct limit limits[] = {
		{ RLIMIT_CPU,    lim->cpu_s },
		{ RLIMIT_AS,     (rlim_t)lim->as_mib << 20 },
		{ RLIMIT_FSIZE,  (rlim_t)lim->out_kib << 10 },
		{ RLIMIT_NOFILE, lim->nofile },
		{ RLIMIT_NPROC,  0 },
		{ RLIMIT_CORE,   0 },
	};

	return apply_limits(limits, ARRAY_SIZE(limits));
}

/* ---- a build jail's view: host directories at their own paths ---- */

/*
 * mkdir -p of path in the jail's tmpfs, before pivoting: every component
 * 0555, so the program (without the setup's capabilities) cannot write in the
 * directories leading to a bind, even below the jail's own /tmp.
 */
static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0555) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0555) < 0 && errno != EEXIST ? -1 : 0;
}

/* The mount flags a bind must keep (a user namespace may not clear them). */
static unsigned long kept_flags(int fd)
{
	static const struct { unsigned long st, ms; } map[] = {
		{ ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV }, { ST_NOEXEC, MS_NOEXEC },
		{ ST_NOATIME, MS_NOATIME }, { ST_NODIRATIME, MS_NODIRATIME },
		{ ST_RELATIME, MS_RELATIME },
	};
	unsigned long f = 0;
	struct statvfs sv;

	if (fstatvfs(fd, &sv) < 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (sv.f_flag & map[i].st)
			f |= map[i].ms;
	return f;
}

/*
 * Host path FD (opened before the tmpfs hid anything) bound at the same path
 * under the jail's root; a device node as it is, anything else nosuid, nodev
 * and read-only unless WRITABLE.
 */
static int bind_at(const char *path, int fd, int dev, int writable)
{
	char dst[PATH_MAX], src[64];
	struct stat st;
	int tfd;

	if (fstat(fd, &st) < 0 ||
	    snprintf(dst, sizeof(dst), "%s%s", JAIL_MNT, path) >= (int)sizeof(dst))
		return -1;
	if (S_ISDIR(st.st_mode)) {
		if (mkdirs(dst) < 0)
			return -1;
	} else {
		*strrchr(dst, '/') = '\0';
		if (mkdirs(dst) < 0)
			return -1;
		dst[strlen(dst)] = '/';
		tfd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
		if (tfd < 0)
			return -1;
		close(tfd);
	}
	if (fmtbuf(src, sizeof(src), "/proc/self/fd/%d", fd) < 0)
		return errno = ENAMETOOLONG, -1;
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	if (dev)
		return 0;
	return mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV |
		     (writable ? 0 : MS_RDONLY) | kept_flags(fd), NULL);
}

/* The toolchain's part of the view: its paths (those the host has), and /usr's links. */
static void show_toolchain(const struct jail *j)
{
	int fd[ARRAY_SIZE(toolchain)];
	char dst[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(toolchain); i++)
		fd[i] = open(toolchain[i].path, O_PATH | O_CLOEXEC);
	if (mount("tmpfs", JAIL_MNT, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") < 0)
		fail(j, STEP_MOUNT);
	for (size_t i = 0; i < ARRAY_SIZE(toolchain); i++)
		if (fd[i] >= 0 && bind_at(toolchain[i].path, fd[i], toolchain[i].dev, 0) < 0)
			fail(j, STEP_SYSTEM);
	/* the names below are constants, far under PATH_MAX */
	for (size_t i = 0; i < ARRAY_SIZE(usr_links); i++)
		if (fmtbuf(dst, sizeof(dst), "%s%s", JAIL_MNT, usr_links[i]) < 0 ||
		    (j->links[i][0] && symlink(j->links[i], dst) < 0))
			fail(j, STEP_SYSTEM);
	if (fmtbuf(dst, sizeof(dst), "%s/proc", JAIL_MNT) < 0 || mkdir(dst, 0555) < 0)
		fail(j, STEP_SYSTEM);
	/* mounted now, not after pivoting: a bind below /tmp is then made inside it */
	if (fmtbuf(dst, sizeof(dst), "%s/tmp", JAIL_MNT) < 0 || mkdir(dst, 01777) < 0 ||
	    mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, j->tmp_opts) < 0)
		fail(j, STEP_SYSTEM);
}

/* The view's binds, its hidden directory, then pivot: a build jail's root. */
static void enter_view(const struct jail *j)
{
	const struct sandbox_view *v = j->view;
	int fd[SANDBOX_BINDS_MAX];
	char dst[PATH_MAX];

	umask(0);       /* the modes asked for; the program gets 022 */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fail(j, STEP_MOUNT);
	/* opened in this mount namespace, before JAIL_MNT's tmpfs may hide them */
	for (size_t i = 0; i < v->nbinds; i++)
		if ((fd[i] = open(v->binds[i].path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			fail_bind(j, STEP_BIND, (int)i);
	show_toolchain(j);
	for (size_t i = 0; i < v->nbinds; i++)
		if (bind_at(v->binds[i].path, fd[i], 0, v->binds[i].writable) < 0)
			fail_bind(j, STEP_BIND, (int)i);
	/* a directory to hide whose path does not fit is a failed jail, not a shown one */
	if (v->hide && fmtbuf(dst, sizeof(dst), "%s%s", JAIL_MNT, v->hide) < 0)
		fail(j, STEP_MOUNT);
	if (v->hide && access(dst, F_OK) == 0 &&
	    mount("tmpfs", dst, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k") < 0)
		fail(j, STEP_MOUNT);
	/* before pivoting: in a user namespace, proc mounts only while the host's is visible */
	if (fmtbuf(dst, sizeof(dst), "%s/proc", JAIL_MNT) < 0 ||
	    mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		fail(j, STEP_SYSTEM);
	pivot(j);
}

/* A build jail's limits: processes, file size, open files, no core; after drop_user. */
static int set_view_limits(const struct sandbox_view *v)
{
	const struct limit limits[] = {
		{ RLIMIT_NPROC,  v->nproc },
		{ RLIMIT_FSIZE,  (rlim_t)v->fsize_mib << 20 },
		{ RLIMIT_NOFILE, v->nofile ? v->nofile : VIEW_NOFILE },
		{ RLIMIT_CORE,   0 },
	};

	return apply_limits(limits, ARRAY_SIZE(limits));
}

/* The jail's first process (pid 1 of its namespace) becomes the program. */
static __attribute__((noreturn)) void jail_init(const struct jail *j)
{
	char *const envp[] = { NULL };
	extern char **environ;

	if (j->view)
		enter_view(j);
	else
		enter_root(j);
	/* a uid change clears the parent-death signal: set it after */
	if (drop_user(j) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fail(j, STEP_USER);
	if (j->view ? set_view_limits(j->view) < 0 : set_limits(j->lim) < 0)
		fail(j, STEP_LIMITS);
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		fail(j, STEP_FDS);
	if (!j->view)
		execve(j->exe, j->argv, envp);
	if (j->view->cwd && chdir(j->view->cwd) < 0)
		fail(j, STEP_CWD);
	umask(022);
	environ = (char **)j->view->env;
	execvp(j->argv[0], j->argv);
	fail(j, STEP_EXEC);
}

/* The jail's pid 1 ends as it did: its exit code, or the same signal. */
static __attribute__((noreturn)) void relay(pid_t pid)
{
	struct rlimit none = { 0, 0 };
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			_exit(125);
	if (WIFSIGNALED(st)) {
		setrlimit(RLIMIT_CORE, &none);
		raise(WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

/* Forked: namespaces, then a child that is pid 1 in the new pid namespace. */
static __attribute__((noreturn)) void jail_child(const struct jail *j)
{
	sigset_t none;
	pid_t pid;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);    /* the jail ends with the harness */
	if (dup2(j->null_fd, 0) < 0 || dup2(j->out_fd, 1) < 0 || dup2(j->out_fd, 2) < 0)
		fail(j, STEP_FDS);
	/* before its cgroup namespace: the jail's root cgroup is then its own */
	if (j->cg && cgroup_jail_enter(j->cg) < 0)
		fail(j, STEP_CGROUP);
	if (unshare(NS_FLAGS | (j->userns ? CLONE_NEWUSER : 0)) < 0)
		fail(j, STEP_UNSHARE);
	if (j->userns && map_ids(j) < 0)
		fail(j, STEP_IDMAP);
	pid = fork();
	if (pid < 0)
		fail(j, STEP_FORK);
	if (pid == 0)
		jail_init(j);
	close(j->report_fd);
	relay(pid);
}

/* File I (F, a copy to fill in): its name checked, its source opened and measured. */
static int prepare_file(struct jail *j, size_t i, struct sandbox_file *f, char *err)
{
	struct stat st;

	if (!f->name[0] || strlen(f->name) > SANDBOX_NAME_MAX || strchr(f->name, '/') ||
	    !strcmp(f->name, ".") || !strcmp(f->name, ".."))
		return errorf(err, "sandbox: bad file name '%s'", f->name);
	if (fmtbuf(j->dst[i], sizeof(j->dst[i]), "%s/%s", JAIL_MNT, f->name) < 0)
		return errorf(err, "sandbox: file name '%.64s' too long", f->name);
	if (!f->src)
		return 0;
	j->src_fd[i] = open(f->src, O_RDONLY | O_CLOEXEC);
	if (j->src_fd[i] < 0 || fstat(j->src_fd[i], &st) < 0 || !S_ISREG(st.st_mode))
		return errorf(err, "sandbox: cannot copy '%s' in: %s", f->src,
			      j->src_fd[i] < 0 ? strerror(errno) : "not a regular file");
	f->len = (size_t)st.st_size;
	return 0;
}

static void close_sources(struct jail *j)
{
	for (size_t i = 0; i < SANDBOX_FILES_MAX; i++)
		if (j->src_fd[i] >= 0)
			close(j->src_fd[i]);
}

/* Not root: a user namespace maps the jail's 65534 to the caller's ids. */
static int prepare_ids(struct jail *j, char *err)
{
	j->userns = geteuid() != 0;
	if (fmtbuf(j->uid_map, sizeof(j->uid_map), "%d %u 1\n", SANDBOX_UID,
		   (unsigned)geteuid()) < 0 ||
	    fmtbuf(j->gid_map, sizeof(j->gid_map), "%d %u 1\n", SANDBOX_UID,
		   (unsigned)getegid()) < 0)
		return errorf(err, "sandbox: uid or gid map over %zu bytes",
			      sizeof(j->uid_map) - 1);
	return 0;
}

/* Names checked, sources opened (their lengths into FILES, a copy), strings built. */
static int prepare(struct jail *j, struct sandbox_file *files, char *err)
{
	size_t size = 64 << 10;
	int exe = 0;

	for (size_t i = 0; i < SANDBOX_FILES_MAX; i++)
		j->src_fd[i] = -1;
	for (size_t i = 0; i < j->nfiles; i++) {
		if (prepare_file(j, i, &files[i], err) < 0)
			return -1;
		size += files[i].len;
		exe |= files[i].exec && !strcmp(files[i].name, j->argv[0]);
	}
	if (!exe)
		return errorf(err, "sandbox: '%s' is not one of its executable files", j->argv[0]);
	if (fmtbuf(j->exe, sizeof(j->exe), "/%s", j->argv[0]) < 0)
		return errorf(err, "sandbox: program name '%.64s' too long", j->argv[0]);
	if (fmtbuf(j->tmpfs_opts, sizeof(j->tmpfs_opts), "size=%zuk,nr_inodes=%zu,mode=0755",
		   size >> 10, j->nfiles + 16) < 0)
		return errorf(err, "sandbox: its tmpfs options over %zu bytes",
			      sizeof(j->tmpfs_opts) - 1);
	return prepare_ids(j, err);
}

/* The child's report: 1 and a message if the jail failed, 0 once the program runs. */
static int read_report(int fd, const struct jail *j, char *err)
{
	const struct sandbox_view *v = j->view;
	struct report r;
	ssize_t n;

	do
		n = read(fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(r))
		return 0;
	if (r.step < 0 || r.step > STEP_CGROUP)
		r.step = STEP_FDS;
	if (r.step == STEP_BIND && v && r.bind >= 0 && (size_t)r.bind < v->nbinds)
		errorf(err, "sandbox: cannot show '%s' in its view: %s; '%s' was not run",
		       v->binds[r.bind].path, strerror(r.err), j->argv[0]);
	else
		errorf(err, "sandbox: cannot %s: %s; '%s' was not run", step_what[r.step],
		       strerror(r.err), j->argv[0]);
	return 1;
}

/* Fork the jail; its pid, once the program runs, or -1 with a message. */
static pid_t start_jail(struct jail *j, char *err)
{
	int pipefd[2], st, r;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return errorf(err, "sandbox: pipe: %s", strerror(errno));
	j->report_fd = pipefd[1];
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return errorf(err, "sandbox: cannot fork for '%s': %s", j->argv[0], strerror(errno));
	}
	if (pid == 0)
		jail_child(j);
	close(pipefd[1]);
	r = read_report(pipefd[0], j, err);
	close(pipefd[0]);
	if (r) {
		waitpid(pid, &st, 0);
		return -1;
	}
	return pid;
}

/* Fork the jail and wait for it; RES and OUT from its end. */
static int run_jail(struct jail *j, char *out, size_t outlen, struct sandbox_result *res,
		    char *err)
{
	pid_t pid = start_jail(j, err);
	int st, r;
	ssize_t n;

	if (pid < 0)
		return -1;
	r = proc_wait(pid, j->argv[0], j->lim->timeout_ms, &st, err);
	if (r < 0)
		return -1;
	res->timed_out = r == 1;
	res->code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	res->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	n = pread(j->out_fd, out, outlen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	return 0;
}

int sandbox_run(char *const argv[], const struct sandbox_file *files, size_t nfiles,
		const struct sandbox_limits *lim, char *out, size_t outlen,
		struct sandbox_result *res, char *err)
{
	struct sandbox_file copy[SANDBOX_FILES_MAX];
	struct jail j = { .argv = argv, .files = copy, .nfiles = nfiles, .lim = lim };
	_cleanup_close_ int null_fd = -1, out_fd = -1;
	int r = -1;

	if (nfiles > SANDBOX_FILES_MAX || outlen == 0)
		return errorf(err, "sandbox: at most %d files", SANDBOX_FILES_MAX);
	memcpy(copy, files, nfiles * sizeof(*files));
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	out_fd = memfd_create("sandbox-out", MFD_CLOEXEC);
	if (null_fd < 0 || out_fd < 0)
		return errorf(err, "sandbox: %s: %s", null_fd < 0 ? "/dev/null" : "memfd_create",
			      strerror(errno));
	j.null_fd = null_fd;
	j.out_fd = out_fd;
	if (prepare(&j, copy, err) == 0)
		r = run_jail(&j, out, outlen, res, err);
	close_sources(&j);
	return r;
}

/* A bind's path: absolute, a directory, and no symlink anywhere in it. */
static int check_bind(const struct sandbox_bind *b, char *err)
{
	int fd;

	if (b->path[0] != '/')
		return errorf(err, "sandbox: '%s' is not an absolute path", b->path);
	fd = open_no_symlinks(b->path, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return errorf(err, "sandbox: cannot show '%s': %s", b->path,
			      errno == ELOOP ? "a symlink is in its path" : strerror(errno));
	close(fd);
	return 0;
}

/* What a build jail's output pipe carries into its log, on a thread of its own. */
struct log_copy {
	int from, to;       /* the pipe's read end; the log, or -1 */
	uint64_t left;      /* bytes the log may still take */
	uint64_t cut;       /* bytes dropped past that */
	pthread_t thread;
};

/* Everything the jail prints, into the log until its cap, then drained; ends at EOF. */
static void *copy_log(void *arg)
{
	struct log_copy *c = arg;
	char buf[16384];
	ssize_t n;
	size_t w;

	for (;;) {
		n = read(c->from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		w = (uint64_t)n < c->left ? (size_t)n : (size_t)c->left;
		/* a full disk loses the log's tail, never the build: its result is the exit code */
		if (w && c->to >= 0 && write(c->to, buf, w) < 0)
			c->to = -1;
		c->left -= w;
		c->cut += (size_t)n - w;
	}
	return NULL;
}

/* A line of the harness's own at the log's end (best effort). */
static void log_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(int fd, const char *fmt, ...)
{
	char line[ERR_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vfmtcut(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	if (fd >= 0 && write(fd, line, strlen(line)) < 0)
		return;
}

/* The view's paths checked, /usr's links read, the log opened: J ready to fork. */
static int prepare_view(struct jail *j, const struct sandbox_view *v, int *log_fd, char *err)
{
	ssize_t n;

	if (v->nbinds > SANDBOX_BINDS_MAX)
		return errorf(err, "sandbox: at most %d directories in a view", SANDBOX_BINDS_MAX);
	for (size_t i = 0; i < v->nbinds; i++)
		if (check_bind(&v->binds[i], err) < 0)
			return -1;
	for (size_t i = 0; i < ARRAY_SIZE(usr_links); i++) {
		n = readlink(usr_links[i], j->links[i], LINK_MAX_LEN - 1);
		j->links[i][n > 0 ? n : 0] = '\0';
	}
	/* /tmp's pages are the cgroup's: at most half of them, so a full /tmp is ENOSPC,
	 * not the OOM killer choosing among the build's processes */
	if (fmtbuf(j->tmp_opts, sizeof(j->tmp_opts), "size=%lluk,nr_inodes=%u,mode=1777",
		   (unsigned long long)(v->mem_max && v->mem_max / 2 < (1ULL << 30) ?
					v->mem_max / 2 : 1ULL << 30) >> 10,
		   v->tmp_inodes ? v->tmp_inodes : VIEW_TMP_INODES) < 0)
		return errorf(err, "sandbox: /tmp's options over %zu bytes", sizeof(j->tmp_opts) - 1);
	*log_fd = open(v->log_path ? v->log_path : "/dev/null",
		       O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
	if (*log_fd < 0)
		return errorf(err, "sandbox: cannot open the log '%s': %s", v->log_path,
			      errno == ELOOP ? "it is a symlink" : strerror(errno));
	return prepare_ids(j, err);
}

/*
 * The jail's memory cgroup, limited to V's mem_max: as root one is required
 * (-1 with why); not root, where none can be made, the log says so and the
 * jail runs without (CG->dir stays "").
 */
static int make_cgroup(const struct sandbox_view *v, struct cgroup_jail *cg, int log_fd,
		       char *err)
{
	char why[ERR_MAX];

	cg->dir[0] = '\0';
	cg->procs_fd = -1;
	if (!v->mem_max || cgroup_jail_make(cg, v->mem_max, why) == 0)
		return 0;
	if (geteuid() == 0)
		return errorf(err, "sandbox: the jail's memory limit: %s", why);
	log_line(log_fd, "harness: this build has no memory limit of its own: %s", why);
	return 0;
}

/* Fork the jail (its cgroup and output pipe made) and wait for it. */
static int run_view(struct jail *j, const struct proc_opts *o,
		    int *ret_status, char *err)
{
	int st, r;
	pid_t pid = start_jail(j, err);

	close(j->out_fd);   /* the jail's processes hold the write end now */
	j->out_fd = -1;
	if (pid < 0)
		return -1;
	r = proc_wait_ticking(pid, j->argv[0], o, &st, err);
	if (r < 0)
		return -1;
	*ret_status = r == 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return 0;
}

/* After the jail: its output drained, and what the harness says of it after. */
static void end_view(const struct sandbox_view *v, struct log_copy *lc, struct cgroup_jail *cg,
		     int log_fd)
{
	long kills = cgroup_jail_oom_kills(cg);

	pthread_join(lc->thread, NULL);
	close(lc->from);
	if (lc->cut)
		log_line(log_fd, "harness: the build's output was cut at %u MiB (%llu bytes dropped)",
			 v->fsize_mib, (unsigned long long)lc->cut);
	if (kills > 0)
		log_line(log_fd, "harness: the build's memory limit (%llu MiB) killed %ld of its "
			 "processes", (unsigned long long)(v->mem_max >> 20), kills);
	cgroup_jail_remove(cg);
}

int sandbox_exec(char *const argv[], const struct sandbox_view *v, int *ret_status, char *err)
{
	struct jail j = { .argv = argv, .view = v, .out_fd = -1 };
	struct proc_opts o = { .timeout_ms = v->timeout_ms, .tick = v->tick,
			       .tick_arg = v->tick_arg, .tick_ms = v->tick_ms };
	_cleanup_close_ int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC), log_fd = -1;
	struct log_copy lc = { .left = (uint64_t)v->fsize_mib << 20 };
	struct cgroup_jail cg;
	int pfd[2], r;

	if (null_fd < 0)
		return errorf(err, "sandbox: /dev/null: %s", strerror(errno));
	j.null_fd = null_fd;
	if (prepare_view(&j, v, &log_fd, err) < 0 || make_cgroup(v, &cg, log_fd, err) < 0)
		return -1;
	j.cg = cg.dir[0] ? &cg : NULL;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		cgroup_jail_remove(&cg);
		return errorf(err, "sandbox: pipe: %s", strerror(errno));
	}
	lc.from = pfd[0];
	lc.to = log_fd;
	j.out_fd = pfd[1];
	if ((r = pthread_create(&lc.thread, NULL, copy_log, &lc)) != 0) {
		close(pfd[0]);
		close(pfd[1]);
		cgroup_jail_remove(&cg);
		return errorf(err, "sandbox: a thread for the log: %s", strerror(r));
	}
	r = run_view(&j, &o, ret_status, err);
	end_view(v, &lc, &cg, log_fd);
	return r;
}
