/* vm_embed.c -- libvirt's embedded QEMU driver, which needs no system libvirtd, set up
 * (qemu.conf, user, cache), and the reaper of the QEMUs it daemonizes, as child subreaper. */
#include "vm/vm.h"
#include "vm/vm_priv.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * As root the driver is "privileged": QEMU would run as libvirt-qemu, so
 * user and group are set to root, and that user must exist because the
 * driver looks it up at start-up anyway. Any other user runs the driver
 * unprivileged: QEMU runs as that user, and neither is needed.
 */
static const char embed_conf_root[] =
	"user = \"root\"\n"
	"group = \"root\"\n";
static const char embed_conf[] =
	"# written by mglru-harness for libvirt's embedded QEMU driver\n"
	"# QEMU's output to a file: no virtlogd\n"
	"stdio_handler = \"file\"\n"
	"# the harness's own files: no relabelling, no chown\n"
	"security_driver = \"none\"\n"
	"dynamic_ownership = 0\n";

/* 1 if the system has a user called name. */
static int user_exists(const char *name)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	return getpwnam_r(name, &pw, buf, sizeof(buf), &found) == 0 && found;
}

/*
 * As root, the libvirt-qemu user the embedded driver runs QEMU as, made
 * when missing (a minimal Debian has none); nothing to do otherwise.
 */
static int ensure_qemu_user(char *err)
{
	char *argv[] = { "useradd", "--system", "--no-create-home", "--shell",
			 "/usr/sbin/nologin", "libvirt-qemu", NULL };
	int status;

	if (geteuid() != 0 || user_exists("libvirt-qemu"))
		return 0;
	if (proc_run(argv, NULL, 30000, &status, err) < 0)
		return -1;
	if (status != 0 && !user_exists("libvirt-qemu"))
		return errorf(err, "cannot create the libvirt-qemu user (useradd exit %d)", status);
	return 0;
}

/*
 * Unprivileged, libvirt keeps some state of its own (an identity token, the
 * host device manager's) in the user's cache directory, $HOME/.cache; a
 * system user has no home, and under systemd's ProtectHome none is visible.
 * Keep it under the embedded root with the rest. Called before libvirt
 * (glib) first reads the variable.
 */
static int unprivileged_cache(const char *root, char *err)
{
	char cache[PATH_MAX];

	if (geteuid() == 0)
		return 0;
	if (pathf(cache, err, "%s/cache", root) < 0 || mkdir_p(cache, err) < 0)
		return -1;
	if (setenv("XDG_CACHE_HOME", cache, 1) < 0)
		return errorf(err, "cannot set XDG_CACHE_HOME: %s", strerror(errno));
	return 0;
}

/*
 * The embedded driver's qemu.conf: root's lines (the QEMU user) as root,
 * then what every user's needs.
 */
static int write_embed_conf(const char *path, char *err)
{
	char text[sizeof(embed_conf_root) + sizeof(embed_conf)];

	/* sized for both texts */
	if (fmtbuf(text, sizeof(text), "%s%s", geteuid() == 0 ? embed_conf_root : "",
		   embed_conf) < 0)
		return errorf(err, "%s: over %zu bytes", path, sizeof(text) - 1);
	return write_file(path, text, strlen(text), err);
}

static const char embed_prefix[] = "qemu:///embed?root=";

/*
 * 1 if the status file (libvirt's run/qemu/NAME.xml) is of a domain whose
 * QEMU never started: "<domstatus ... pid='0'>", what a daemon killed while
 * libvirt started or restored a guest leaves. The next driver loads it as
 * active, paused "starting up", with an async start job nobody will end:
 * destroy, start and restore of that name then fail (seen: every run of one
 * saved guest failed "already active" after harnessd was killed -9).
 */
static int never_started(const char *path)
{
	char buf[8192], *tag;
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!(tag = strstr(buf, "<domstatus ")))
		return 0;
	tag[strcspn(tag, ">")] = '\0';
	return strstr(tag, " pid='0'") != NULL;
}

/*
 * Any QEMU still running as domain name (its command line says "guest=NAME,"):
 * killed. One that libvirt had not yet recorded would wait for its
 * incoming state forever.
 */
static void kill_named_qemu(const char *name)
{
	char path[64], cmd[4096], want[300];
	struct dirent *de;
	size_t n, i;
	DIR *d = opendir("/proc");
	FILE *f;

	if (!d || fmtbuf(want, sizeof(want), "guest=%s,", name) < 0) {
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name) ||
		    fmtbuf(path, sizeof(path), "/proc/%s/cmdline", de->d_name) < 0 ||
		    !(f = fopen(path, "re")))
			continue;
		n = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
		for (i = 0; i < n; i++)          /* the arguments, NUL-separated, as one text */
			cmd[i] = cmd[i] ? cmd[i] : ' ';
		cmd[n] = '\0';
		if (strstr(cmd, "qemu-system") && strstr(cmd, want))
			kill((pid_t)atol(de->d_name), SIGKILL);
	}
	closedir(d);
}

int vm_drop_unstarted(const char *root)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct dirent *de;
	DIR *d;
	int fd, n = 0;

	if (fmtbuf(dir, sizeof(dir), "%s/run/qemu", root) < 0 ||
	    fmtbuf(path, sizeof(path), "%s/driver.pid", dir) < 0)
		return 0;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fcntl(fd, F_SETLK, &fl) < 0) {
		close(fd);
		return 0;       /* a driver runs on this root */
	}
	if ((d = opendir(dir))) {
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);

			if (strncmp(de->d_name, "harness-", 8) || len < 5 || len > 200 ||
			    strcmp(de->d_name + len - 4, ".xml") ||
			    fmtbuf(path, sizeof(path), "%s/%s", dir, de->d_name) < 0 ||
			    !never_started(path))
				continue;
			de->d_name[len - 4] = '\0';
			kill_named_qemu(de->d_name);
			if (unlink(path) == 0 && ++n)
				fprintf(stderr, "harness: %s: a guest a killed harness left starting "
					"(it never ran): dropped\n", path);
		}
		closedir(d);
	}
	if (fd >= 0)
		close(fd);      /* the lock goes with it */
	return n;
}

int vm_is_embedded(const char *uri)
{
	return !strncmp(uri, embed_prefix, sizeof(embed_prefix) - 1);
}

int vm_setup_embedded(const char *uri, char *err)
{
	const char *prefix = embed_prefix;
	char root[PATH_MAX], etc[PATH_MAX], conf[PATH_MAX];

	if (!vm_is_embedded(uri))
		return 0;
	if (fmtbuf(root, sizeof(root), "%s", uri + strlen(prefix)) < 0)
		return errorf(err, "embedded libvirt root '%.64s...' too long",
			      uri + strlen(prefix));
	if (root[0] != '/')
		return errorf(err, "embedded libvirt root must be an absolute path: '%s'", root);
	if (strlen(root) > 60)
		return errorf(err, "embedded libvirt root '%s' is longer than 60 characters: "
			      "its sockets would not fit a unix socket path", root);
	if (pathf(etc, err, "%s/etc", root) < 0 || pathf(conf, err, "%s/qemu.conf", etc) < 0 ||
	    mkdir_p(etc, err) < 0 || write_embed_conf(conf, err) < 0 ||
	    unprivileged_cache(root, err) < 0)
		return -1;
	vm_drop_unstarted(root);
	return ensure_qemu_user(err);
}

/*
 * libvirt daemonizes QEMU (its guests and its capability probes), so a QEMU
 * that exits is a zombie of whoever reaps orphans: PID 1, which in some
 * sandboxes (this project's CI machines) reaps only about once a second,
 * while libvirt polls every 200 ms for the pid to vanish before a domain
 * counts as stopped: a second and more of every run's teardown. As a child
 * subreaper the harness gets those QEMUs as children, and a thread reaps
 * them within 20 ms of their exit. It reaps nothing else: only a zombie
 * child that runs qemu-system-* in a session of its own (daemonized); the
 * harness's own children and libvirt's stay in this session, for their
 * waiters.
 */
static pthread_once_t reaper_once = PTHREAD_ONCE_INIT;
static atomic_int reaper_on;

/* /proc/PID/stat's state, parent, session and whether its command is QEMU; -1 if gone. */
static int proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *sid, int *qemu)
{
	char path[64], buf[512] = "", *p;
	long pp = -1, sd = -1;
	FILE *f;
	int n = 0;

	if (fmtbuf(path, sizeof(path), "/proc/%ld/stat", (long)pid) < 0)
		return -1;      /* cannot be: a long is 20 digits at most */
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		n = sscanf(p + 1, " %c %ld %*d %ld", state, &pp, &sd);
	fclose(f);
	*ppid = (pid_t)pp;
	*sid = (pid_t)sd;
	*qemu = !strncmp(buf + strcspn(buf, "(") + 1, "qemu-system", 11);
	return n == 3 ? 0 : -1;
}

/* A daemonized QEMU's zombie, ours to reap? */
static int orphaned_qemu(pid_t pid)
{
	pid_t ppid, sid;
	char state;
	int qemu;

	return proc_stat(pid, &state, &ppid, &sid, &qemu) == 0 && state == 'Z' && qemu &&
	       ppid == getpid() && sid != getsid(0);
}

/*
 * The subreaper's thread: every 20 ms, reaps the QEMUs that were daemonized
 * by libvirt and re-parented to us once they exit (their zombies would stay
 * otherwise); other children are left to whoever waits for them.
 */
static void *reaper(void *arg)
{
	siginfo_t si;

	(void)arg;
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid > 0 &&
		    orphaned_qemu(si.si_pid)) {
			waitpid(si.si_pid, NULL, WNOHANG);
			continue;
		}
		usleep(20000);
	}
	return NULL;
}

/*
 * The process made the child subreaper of the QEMUs libvirt daemonizes, and
 * their reaper started; nothing when either cannot be done.
 */
static void start_reaper(void)
{
	pthread_t th;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return;
	if (pthread_create(&th, NULL, reaper, NULL) != 0) {
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		return;
	}
	pthread_detach(th);
	atomic_store(&reaper_on, 1);
}

int vm_become_subreaper(void)
{
	pthread_once(&reaper_once, start_reaper);
	return atomic_load(&reaper_on);
}

/* pid is still this process's child (alive, or a zombie not reaped yet). */
static int our_child(pid_t pid)
{
	pid_t ppid, sid;
	char state;
	int qemu;

	return proc_stat(pid, &state, &ppid, &sid, &qemu) == 0 && ppid == getpid();
}

/* QEMU's pid from the embedded driver's pid file, if it is this process's child. */
pid_t vm_emulator_child(const struct vm_conn *c, const char *name)
{
	char path[PATH_MAX + 160];
	long pid = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/run/qemu/%s.pid", c->uri + strlen(embed_prefix),
		     name) >= (int)sizeof(path))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1 || pid <= 1)
		pid = 0;
	fclose(f);
	return pid && our_child((pid_t)pid) ? (pid_t)pid : 0;
}

static const char qemu_tag[] = "qemu-system-";

/* In a line of QEMU's log, its own message ("qemu-system-ARCH: ..."); NULL if none. */
static const char *qemu_message(const char *line)
{
	const char *at = strstr(line, qemu_tag), *p;

	if (!at)
		return NULL;
	p = at + sizeof(qemu_tag) - 1;
	p += strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
	return strncmp(p, ": ", 2) ? NULL : at;   /* not its command line */
}

int vm_emulator_said(const struct vm_domain *d, char *buf, size_t len)
{
	char path[PATH_MAX + 160], tail[4096], *line, *save;
	const char *said = NULL, *m;
	ssize_t n;
	off_t size;
	int fd;

	if (!len || !vm_is_embedded(d->conn->uri) ||
	    snprintf(path, sizeof(path), "%s/log/qemu/%s.log",
		     d->conn->uri + strlen(embed_prefix), d->name) >= (int)sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	size = lseek(fd, 0, SEEK_END);
	n = size < 0 ? -1 : pread(fd, tail, sizeof(tail) - 1,
				  size > (off_t)sizeof(tail) - 1 ? size - (off_t)sizeof(tail) + 1 : 0);
	close(fd);
	if (n <= 0)
		return 0;
	tail[n] = '\0';
	for (line = strtok_r(tail, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((m = qemu_message(line)))
			said = m;
	if (!said)
		return 0;
	for (n = 0; said[n] && (size_t)n + 1 < len; n++)
		buf[n] = said[n] >= ' ' && said[n] < 127 ? said[n] : '?';
	buf[n] = '\0';
	return 1;
}

/* Wait up to ms for the reaper to take pid; 1 once it has. */
static int reaped_within(pid_t pid, int ms)
{
	for (; ms > 0 && our_child(pid); ms -= 5)
		usleep(5000);
	return !our_child(pid);
}

/*
 * The run is over: SIGTERM, and QEMU gone once the reaper took it; SIGKILL
 * after 5 s. A signal goes only to a pid that is still this process's
 * child, so never to a process that took a reaped QEMU's pid.
 */
void vm_stop_emulator(struct vm_domain *d)
{
	if (our_child(d->pid))
		kill(d->pid, SIGTERM);
	if (!reaped_within(d->pid, 5000) && our_child(d->pid)) {
		kill(d->pid, SIGKILL);
		reaped_within(d->pid, 5000);
	}
	d->pid = 0;
}
