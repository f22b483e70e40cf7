/* vm.c -- libvirt connection, event loop thread, domain XML and lifecycle,
 * and the KVM probe. The embedded QEMU driver needs no system libvirtd. */
#include "vm/vm.h"
#include "vm/bridge.h"
#include "vm/channel.h"
#include "vm/image.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <sys/utsname.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#define VM_WATCH_MAX 64
#define VM_DROPS_MAX 64          /* run volumes left to delete once a host is back */
#define VM_KEEPALIVE_S     5     /* a silent remote connection is closed after 3 of these */
#define VM_KEEPALIVE_COUNT 3

struct vm_domain {
	virDomainPtr dom;
	struct vm_conn *conn;
	char name[128];
	atomic_int stopped;   /* enum vm_stop, set from libvirt's lifecycle events */
	pid_t pid;            /* QEMU, when it is this process's child to reap; else 0 */
	int remote;           /* on a pool of another host: volumes, channel stream */
	unsigned gen;         /* the connection it was started on (vm_conn.gen) */
	struct vm_bridge *bridge;
	int chan_fd;          /* the bridge's socket until vm_open_channel() hands it out */
	char channel[PATH_MAX];   /* QEMU's channel socket (embedded) */
	char console[PATH_MAX];   /* where a remote guest's console log comes home to */
};

struct vm_conn {
	virConnectPtr conn;
	int embedded;    /* domains die with the connection already */
	int subreaper;   /* QEMU (daemonized by libvirt) is reparented to this process */
	char uri[PATH_MAX];
	int event_id;    /* lifecycle callback, -1 if none */
	pthread_mutex_t lock;   /* conn (reconnect), watch[], drops[], arch */
	struct vm_domain *watch[VM_WATCH_MAX];   /* running domains, for their events */
	atomic_int lost;        /* libvirt closed the connection (keepalive, EOF) */
	unsigned gen;           /* connections opened so far: a domain's is its own */
	struct vm_pool *pool;   /* another host's storage pool; NULL for the embedded driver */
	char host[64];
	char arch[16];          /* the host's own guest arch, "" until asked */
	char drops[VM_DROPS_MAX][128];
	unsigned ndrops;
};

static pthread_t loop_thread;
static atomic_int loop_started;

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		virEventRunDefaultImpl();
	return NULL;
}

static void quiet_errors(void *data, virErrorPtr e)
{
	(void)data;
	(void)e;
}

static int start_event_loop(char *err)
{
	if (atomic_exchange(&loop_started, 1))
		return 0;
	virSetErrorFunc(NULL, quiet_errors);
	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0)
		return errorf(err, "libvirt: cannot initialise its event loop");
	if (pthread_create(&loop_thread, NULL, event_loop, NULL) != 0)
		return errorf(err, "cannot start the libvirt event thread");
	pthread_detach(loop_thread);
	return 0;
}

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

static int user_exists(const char *name)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	return getpwnam_r(name, &pw, buf, sizeof(buf), &found) == 0 && found;
}

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

static int write_embed_conf(const char *path, char *err)
{
	char text[sizeof(embed_conf_root) + sizeof(embed_conf)];

	snprintf(text, sizeof(text), "%s%s", geteuid() == 0 ? embed_conf_root : "", embed_conf);
	return write_file(path, text, strlen(text), err);
}

static const char embed_prefix[] = "qemu:///embed?root=";

static int is_embedded(const char *uri)
{
	return !strncmp(uri, embed_prefix, sizeof(embed_prefix) - 1);
}

static int setup_embedded(const char *uri, char *err)
{
	const char *prefix = embed_prefix;
	char root[PATH_MAX], etc[PATH_MAX], conf[PATH_MAX];

	if (!is_embedded(uri))
		return 0;
	snprintf(root, sizeof(root), "%s", uri + strlen(prefix));
	if (root[0] != '/')
		return errorf(err, "embedded libvirt root must be an absolute path: '%s'", root);
	if (strlen(root) > 60)
		return errorf(err, "embedded libvirt root '%s' is longer than 60 characters: "
			      "its sockets would not fit a unix socket path", root);
	if (pathf(etc, err, "%s/etc", root) < 0 || pathf(conf, err, "%s/qemu.conf", etc) < 0 ||
	    mkdir_p(etc, err) < 0 || write_embed_conf(conf, err) < 0 ||
	    unprivileged_cache(root, err) < 0)
		return -1;
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

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
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

static int become_subreaper(void)
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
static pid_t emulator_child(const struct vm_conn *c, const char *name)
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
static void stop_emulator(struct vm_domain *d)
{
	if (our_child(d->pid))
		kill(d->pid, SIGTERM);
	if (!reaped_within(d->pid, 5000) && our_child(d->pid)) {
		kill(d->pid, SIGKILL);
		reaped_within(d->pid, 5000);
	}
	d->pid = 0;
}

/* Which of our domains an event is about; called with c->lock held. */
static struct vm_domain *watched(struct vm_conn *c, const char *name)
{
	size_t i;

	for (i = 0; name && i < VM_WATCH_MAX; i++)
		if (c->watch[i] && !strcmp(c->watch[i]->name, name))
			return c->watch[i];
	return NULL;
}

/* STOPPED_FAILED: QEMU itself went away (killed, crashed), not the guest's doing. */
static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *arg)
{
	struct vm_conn *c = arg;
	struct vm_domain *d;

	(void)conn;
	if (event != VIR_DOMAIN_EVENT_STOPPED)
		return 0;
	pthread_mutex_lock(&c->lock);
	d = watched(c, virDomainGetName(dom));
	if (d)
		atomic_store(&d->stopped, detail == VIR_DOMAIN_EVENT_STOPPED_FAILED ?
			     VM_STOP_EMULATOR_DIED : VM_STOP_NORMAL);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static void on_close(virConnectPtr conn, int reason, void *arg)
{
	struct vm_conn *c = arg;

	(void)conn;
	(void)reason;
	atomic_store(&c->lost, 1);
}

/*
 * virConnectOpen has no deadline, and no keepalive runs before it returns: a
 * host whose libvirtd hangs (or a network that drops packets) would hold the
 * caller for good. Another thread opens; the caller waits VM_OPEN_MS, then
 * leaves it to close what it gets, whenever that is.
 */
#define VM_OPEN_MS 30000

struct opener {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char uri[PATH_MAX];
	virConnectPtr conn;
	char err[ERR_MAX];
	int done, abandoned;
};

static void opener_free(struct opener *o)
{
	pthread_mutex_destroy(&o->lock);
	pthread_cond_destroy(&o->cond);
	free(o);
}

static void *opener_main(void *arg)
{
	struct opener *o = arg;
	virConnectPtr conn = virConnectOpen(o->uri);
	int abandoned;

	pthread_mutex_lock(&o->lock);
	if (!conn)
		snprintf(o->err, sizeof(o->err), "%s", virGetLastErrorMessage());
	o->conn = conn;
	o->done = 1;
	abandoned = o->abandoned;
	pthread_cond_signal(&o->cond);
	pthread_mutex_unlock(&o->lock);
	if (abandoned) {
		if (conn)
			virConnectClose(conn);
		opener_free(o);
	}
	return NULL;
}

static virConnectPtr open_bounded(const char *uri, char *err)
{
	struct opener *o = calloc(1, sizeof(*o));
	struct timespec until;
	virConnectPtr conn;
	pthread_t th;

	if (!o) {
		errorf(err, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cond, NULL);
	snprintf(o->uri, sizeof(o->uri), "%s", uri);
	if (pthread_create(&th, NULL, opener_main, o) != 0) {
		opener_free(o);
		errorf(err, "cannot start a thread to connect");
		return NULL;
	}
	pthread_detach(th);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += VM_OPEN_MS / 1000;
	pthread_mutex_lock(&o->lock);
	while (!o->done && pthread_cond_timedwait(&o->cond, &o->lock, &until) == 0)
		;
	if (!o->done) {
		o->abandoned = 1;
		pthread_mutex_unlock(&o->lock);
		errorf(err, "libvirt: '%s' did not answer within %d s", uri, VM_OPEN_MS / 1000);
		return NULL;
	}
	pthread_mutex_unlock(&o->lock);
	conn = o->conn;
	if (!conn)
		errorf(err, "libvirt: cannot connect to '%s': %s", uri, o->err);
	opener_free(o);
	return conn;
}

/* Open c->uri into c->conn with its lifecycle callback; called with c->lock held. */
static int open_conn(struct vm_conn *c, char *err)
{
	if (c->embedded) {
		c->conn = virConnectOpen(c->uri);
		if (!c->conn)
			return errorf(err, "libvirt: cannot connect to '%s': %s", c->uri,
				      virGetLastErrorMessage());
	} else if (!(c->conn = open_bounded(c->uri, err))) {
		return -1;
	}
	atomic_store(&c->lost, 0);
	c->gen++;
	if (!c->embedded) {
		/* a host gone silent (network down) ends its connection, not a run's wait */
		virConnectSetKeepAlive(c->conn, VM_KEEPALIVE_S, VM_KEEPALIVE_COUNT);
		virConnectRegisterCloseCallback(c->conn, on_close, c, NULL);
	}
	c->event_id = virConnectDomainEventRegisterAny(c->conn, NULL,
						       VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						       VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), c,
						       NULL);
	return 0;
}

static void close_conn(struct vm_conn *c)
{
	if (!c->conn)
		return;
	if (c->event_id >= 0)
		virConnectDomainEventDeregisterAny(c->conn, c->event_id);
	if (!c->embedded)
		virConnectUnregisterCloseCallback(c->conn, on_close);
	virConnectClose(c->conn);
	c->conn = NULL;
	c->event_id = -1;
}

/*
 * A connection that died (a remote libvirtd restarted, the link dropped) is
 * opened again before the next guest; the runs it took down were failures of
 * the harness's own and are retried. Called with c->lock held.
 */
static void drop_pending(struct vm_conn *c);

static int ensure_alive(struct vm_conn *c, char *err)
{
	if (c->conn && !atomic_load(&c->lost) && virConnectIsAlive(c->conn) == 1)
		return 0;
	close_conn(c);
	if (c->pool)
		vm_pool_forget(c->pool);
	if (open_conn(c, err) < 0)
		return -1;
	drop_pending(c);
	return 1;
}

/* Run volumes a lost connection left on the host, deleted now it is back. */
static void drop_pending(struct vm_conn *c)
{
	unsigned i;

	for (i = 0; c->pool && i < c->ndrops; i++)
		vm_pool_drop_run(c->pool, c->conn, c->drops[i]);
	c->ndrops = 0;
}

int vm_check(struct vm_conn *c, char *err)
{
	int rc;

	pthread_mutex_lock(&c->lock);
	rc = ensure_alive(c, err);
	pthread_mutex_unlock(&c->lock);
	return rc < 0 ? -1 : 0;
}

int vm_is_local(const struct vm_conn *c)
{
	return c->embedded;
}

void vm_set_storage(struct vm_conn *c, const char *host, const char *dir, vm_note_fn note,
		    void *arg)
{
	snprintf(c->host, sizeof(c->host), "%s", host);
	if (!c->embedded && !c->pool)
		c->pool = vm_pool_new(host, dir, note, arg);
}

int vm_connect(const char *uri, const char *log_path, struct vm_conn **ret, char *err)
{
	char outputs[PATH_MAX + 16];
	struct vm_conn *c;

	/* libvirt logs to stderr unless told otherwise; keep our output clean */
	if (log_path && !getenv("LIBVIRT_LOG_OUTPUTS")) {
		snprintf(outputs, sizeof(outputs), "3:file:%s", log_path);
		setenv("LIBVIRT_LOG_OUTPUTS", outputs, 1);
	}
	if (setup_embedded(uri, err) < 0 || start_event_loop(err) < 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (!c)
		return errorf(err, "out of memory");
	c->embedded = is_embedded(uri);
	c->subreaper = c->embedded && become_subreaper();
	c->event_id = -1;
	snprintf(c->uri, sizeof(c->uri), "%s", uri);
	pthread_mutex_init(&c->lock, NULL);
	if (open_conn(c, err) < 0) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return -1;
	}
	*ret = c;
	return 0;
}

int vm_destroy_leftovers(struct vm_conn *c, const char *prefix, char *err)
{
	virDomainPtr *doms = NULL;
	const char *name;
	int n, i, killed = 0;

	n = virConnectListAllDomains(c->conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0)
		return errorf(err, "libvirt: cannot list domains: %s", virGetLastErrorMessage());
	for (i = 0; i < n; i++) {
		name = virDomainGetName(doms[i]);
		if (name && !strncmp(name, prefix, strlen(prefix)) && virDomainDestroy(doms[i]) == 0)
			killed++;
		virDomainFree(doms[i]);
	}
	free(doms);
	return killed;
}

void vm_disconnect(struct vm_conn *c)
{
	if (!c)
		return;
	close_conn(c);
	vm_pool_free(c->pool);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Paths reach the XML escaped; matrix text is already free of markup. */
static int xml_escape(const char *s, char *out, size_t len)
{
	size_t n = 0;
	const char *rep;

	for (; *s; s++) {
		switch (*s) {
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '&': rep = "&amp;"; break;
		case '\'': rep = "&apos;"; break;
		case '"': rep = "&quot;"; break;
		default: rep = NULL; break;
		}
		if (n + (rep ? strlen(rep) : 1) >= len)
			return -1;
		if (rep) {
			memcpy(out + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	return 0;
}

/* The guest is to run TCG single-threaded: its <emulator> is the wrapper. */
static int tcg_single(const struct vm_config *cfg)
{
	return cfg->tcg_thread && !strcmp(cfg->tcg_thread, "single");
}

/*
 * <cputune> pinning vCPU i (and QEMU's own threads) to first_cpu + i. Under
 * single-threaded TCG one thread runs every vCPU and QEMU reports no thread
 * of a vCPU's own, so libvirt refuses <vcpupin> ("cpu affinity is not
 * supported"): QEMU's threads, that one among them, are pinned to the same
 * CPUs as a whole.
 */
static void cputune(const struct vm_config *cfg, char *buf, size_t len)
{
	size_t n = 0;
	uint64_t i;

	buf[0] = '\0';
	if (cfg->first_cpu < 0)
		return;
	n += (size_t)snprintf(buf + n, len - n, "  <cputune>\n");
	for (i = 0; i < cfg->vcpus && n < len && !tcg_single(cfg); i++)
		n += (size_t)snprintf(buf + n, len - n, "    <vcpupin vcpu='%llu' cpuset='%llu'/>\n",
				      (unsigned long long)i,
				      (unsigned long long)(cfg->first_cpu + (int)i));
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "    <emulatorpin cpuset='%d-%llu'/>\n",
				      cfg->first_cpu,
				      (unsigned long long)(cfg->first_cpu + (int)cfg->vcpus - 1));
	if (n < len)
		snprintf(buf + n, len - n, "  </cputune>\n");
}

/*
 * What differs between the guest architectures. aarch64: the virt machine
 * (GICv3, PL011 serial as ttyAMA0, virtio over PCIe), no ACPI (libvirt ties
 * it to UEFI there; direct kernel boot needs neither, and poweroff goes
 * through PSCI), and under TCG QEMU's "max" CPU, which has every feature.
 */
static const struct vm_arch {
	const char *arch, *machine, *emulator, *console;
	const char *features;   /* <features> for the domain */
	const char *tcg_cpu;    /* <cpu> under TCG, "" for QEMU's default */
	const char *probe_machine, *probe_cpu_kvm, *probe_cpu_tcg;
} vm_archs[] = {
	{ "x86_64", "pc", "/usr/bin/qemu-system-x86_64", "ttyS0",
	  "  <features><acpi/></features>\n", "",
	  "pc", "host", "qemu64" },
	{ "aarch64", "virt", "/usr/bin/qemu-system-aarch64", "ttyAMA0",
	  "  <features><gic version='3'/></features>\n",
	  "  <cpu mode='custom' match='exact'><model fallback='forbid'>max</model></cpu>\n",
	  "virt,gic-version=3", "host", "max" },
};

static const struct vm_arch *arch_of(const char *arch)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vm_archs); i++)
		if (!strcmp(vm_archs[i].arch, arch))
			return &vm_archs[i];
	return NULL;
}

/* uname -m, once for every thread (each slot and API connection asks). */
static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static char host_machine[sizeof(((struct utsname *)0)->machine)];

static void read_host_arch(void)
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(host_machine, sizeof(host_machine), "%s", u.machine);
}

const char *vm_host_arch(void)
{
	pthread_once(&host_once, read_host_arch);
	return host_machine[0] ? host_machine : "x86_64";
}

const char *vm_console_device(const char *arch)
{
	const struct vm_arch *va = arch_of(arch);

	return va ? va->console : "ttyS0";
}

const char *vm_accel_for(const char *arch, const char *own_arch, const char *host_accel)
{
	return strcmp(arch, own_arch) ? "tcg" : host_accel;
}

int vm_domain_xml(const struct vm_config *cfg, char *buf, size_t len, char *err)
{
	const struct vm_arch *va = arch_of(cfg->arch);
	int kvm = !strcmp(cfg->accel, "kvm");
	char tune[2048], chan[PATH_MAX + 32];
	char e[7][PATH_MAX];
	const char *src[7] = { cfg->name, cfg->kernel, cfg->initrd, cfg->cmdline, cfg->disk,
			       cfg->console, cfg->channel ? cfg->channel : "" };
	struct sockaddr_un sun;
	int i, n;

	if (!va)
		return errorf(err, "no domain XML for arch '%s' (x86_64 or aarch64)", cfg->arch);
	if (cfg->channel && strlen(cfg->channel) >= sizeof(sun.sun_path))
		return errorf(err, "channel socket path '%s' is longer than %zu bytes", cfg->channel,
			      sizeof(sun.sun_path) - 1);
	cputune(cfg, tune, sizeof(tune));
	for (i = 0; i < 7; i++)
		if (xml_escape(src[i], e[i], sizeof(e[i])) < 0)
			return errorf(err, "path too long for the domain XML: '%.64s'", src[i]);
	/* no path: libvirt makes the socket where it keeps its own (another host's) */
	snprintf(chan, sizeof(chan), "%s%s%s", e[6][0] ? " path='" : "", e[6], e[6][0] ? "'" : "");
	n = snprintf(buf, len,
		"<domain type='%s'>\n"
		"  <name>%s</name>\n"
		"  <memory unit='MiB'>%llu</memory>\n"
		"  <vcpu>%llu</vcpu>\n"
		"%s"
		"  <os>\n"
		"    <type arch='%s' machine='%s'>hvm</type>\n"
		"    <kernel>%s</kernel>\n"
		"    <initrd>%s</initrd>\n"
		"    <cmdline>%s</cmdline>\n"
		"  </os>\n"
		"%s"
		"%s"
		"  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>destroy</on_crash>\n"
		"  <devices>\n"
		"    <emulator>%s</emulator>\n"
		"    <disk type='file' device='disk'>\n"
		"      <driver name='qemu' type='qcow2' cache='none'/>\n"
		"      <source file='%s'/>\n"
		"      <target dev='vda' bus='virtio'/>\n"
		"    </disk>\n"
		"    <serial type='file'><source path='%s'/><target port='0'/></serial>\n"
		"    <console type='file'><source path='%s'/><target type='serial' port='0'/></console>\n"
		"    <channel type='unix'>\n"
		"      <source mode='bind'%s/>\n"
		"      <target type='virtio' name='harness.0'/>\n"
		"    </channel>\n"
		"    <memballoon model='none'/>\n"
		/* no USB (libvirt's default controller costs its firmware and the
		 * kernel a probe each, 0.3 s under TCG), and a virtio-serial of 2
		 * ports, not 31: the kernel sets up two queues a port */
		"    <controller type='usb' model='none'/>\n"
		"    <controller type='virtio-serial' index='0' ports='2'/>\n"
		"  </devices>\n"
		"</domain>\n",
		kvm ? "kvm" : "qemu", e[0],
		(unsigned long long)cfg->memory_mib, (unsigned long long)cfg->vcpus, tune,
		va->arch, va->machine, e[1], e[2], e[3], va->features,
		kvm ? "  <cpu mode='host-passthrough'/>\n" : va->tcg_cpu,
		cfg->emulator ? cfg->emulator : va->emulator, e[4], e[5], e[5], chan);
	if (n < 0 || (size_t)n >= len)
		return errorf(err, "domain XML does not fit %zu bytes", len);
	return 0;
}

/* Follow d's lifecycle events; called with c->lock held. */
static int watch_add(struct vm_conn *c, struct vm_domain *d, char *err)
{
	size_t i;

	for (i = 0; i < VM_WATCH_MAX; i++)
		if (!c->watch[i]) {
			c->watch[i] = d;
			return 0;
		}
	return errorf(err, "more than %d guests at once", VM_WATCH_MAX);
}

static void watch_del(struct vm_conn *c, struct vm_domain *d)
{
	size_t i;

	for (i = 0; i < VM_WATCH_MAX; i++)
		if (c->watch[i] == d)
			c->watch[i] = NULL;
}

static int lverr(char *err, const char *what, const char *name)
{
	return errorf(err, "libvirt: %s '%s': %s", what, name, virGetLastErrorMessage());
}

/* The wrapper built beside this program (harness/build/qemu-tcg-single-ARCH); -1 if not there. */
static int local_wrapper(const char *arch, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	snprintf(buf, len, "qemu-tcg-single-%s", arch);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')))
		*slash = '\0';
	if (snprintf(buf, len, "%s/qemu-tcg-single-%s", self, arch) >= (int)len)
		return -1;
	return access(buf, X_OK);
}

/* The embedded driver: the overlay made here, QEMU's socket for the channel. */
static int start_local(struct vm_conn *c, struct vm_domain *d, const struct vm_config *cfg,
		       virConnectPtr conn, char *err)
{
	char xml[16384], wrapper[PATH_MAX];
	struct vm_config lc = *cfg;

	if (tcg_single(cfg) && local_wrapper(cfg->arch, wrapper, sizeof(wrapper)) < 0)
		return errorf(err, "no %s to run TCG single-threaded (make builds it)", wrapper);
	lc.emulator = tcg_single(cfg) ? wrapper : cfg->emulator;
	if (image_overlay(cfg->backing, cfg->disk, err) < 0 ||
	    vm_domain_xml(&lc, xml, sizeof(xml), err) < 0)
		return -1;
	snprintf(d->channel, sizeof(d->channel), "%s", cfg->channel);
	/* libvirt 9 refuses AUTODESTROY on the embedded driver, whose domains
	 * die with the connection anyway */
	d->dom = virDomainCreateXML(conn, xml, 0);
	if (!d->dom)
		return lverr(err, "cannot start domain", cfg->name);
	if (c->subreaper)
		d->pid = emulator_child(c, d->name);
	return 0;
}

/*
 * Another host: files staged into its pool, the overlay and console file
 * volumes there, started paused so the channel's stream is open before the
 * guest can say anything, then resumed.
 */
static int start_remote(struct vm_conn *c, struct vm_domain *d, const struct vm_config *cfg,
			virConnectPtr conn, char *err)
{
	char kernel[PATH_MAX], initrd[PATH_MAX], backing[PATH_MAX], disk[PATH_MAX];
	char console[PATH_MAX], xml[16384], wrapper[PATH_MAX];
	struct vm_config rc = *cfg;
	virStreamPtr st;

	d->remote = 1;
	snprintf(d->console, sizeof(d->console), "%s", cfg->console);
	if (!c->pool)
		return errorf(err, "host %s: no storage pool set for it", c->host);
	if (vm_pool_stage(c->pool, conn, cfg->kernel, "kernel", kernel, err) < 0 ||
	    vm_pool_stage(c->pool, conn, cfg->initrd, "initrd", initrd, err) < 0 ||
	    vm_pool_stage(c->pool, conn, cfg->backing, "disk", backing, err) < 0 ||
	    vm_pool_overlay(c->pool, conn, cfg->name, backing, disk, err) < 0 ||
	    vm_pool_console(c->pool, conn, cfg->name, console, err) < 0)
		return -1;
	rc.kernel = kernel;
	rc.initrd = initrd;
	rc.disk = disk;
	rc.console = console;
	rc.channel = NULL;
	rc.first_cpu = -1;      /* its cores are not this machine's */
	snprintf(wrapper, sizeof(wrapper), "%s%s", VM_REMOTE_TCG_SINGLE, cfg->arch);
	rc.emulator = tcg_single(cfg) ? wrapper : cfg->emulator;
	if (vm_domain_xml(&rc, xml, sizeof(xml), err) < 0)
		return -1;
	d->dom = virDomainCreateXML(conn, xml, VIR_DOMAIN_START_AUTODESTROY |
				    VIR_DOMAIN_START_PAUSED);
	if (!d->dom)
		return lverr(err, "cannot start domain", cfg->name);
	st = virStreamNew(conn, VIR_STREAM_NONBLOCK);
	if (!st)
		return lverr(err, "no stream for the channel of", cfg->name);
	if (virDomainOpenChannel(d->dom, "harness.0", st, 0) < 0) {
		lverr(err, "cannot open the channel of", cfg->name);
		virStreamFree(st);
		return -1;
	}
	if (vm_bridge_open(st, &d->bridge, &d->chan_fd, err) < 0)
		return -1;
	if (virDomainResume(d->dom) < 0)
		return lverr(err, "cannot resume", cfg->name);
	return 0;
}

int vm_start(struct vm_conn *c, const struct vm_config *cfg, struct vm_domain **ret, char *err)
{
	struct vm_domain *d;
	virConnectPtr conn;
	int rc;

	d = calloc(1, sizeof(*d));
	if (!d)
		return errorf(err, "out of memory");
	d->conn = c;
	d->chan_fd = -1;
	snprintf(d->name, sizeof(d->name), "%s", cfg->name);
	pthread_mutex_lock(&c->lock);
	if (watch_add(c, d, err) < 0 || ensure_alive(c, err) < 0) {
		watch_del(c, d);
		pthread_mutex_unlock(&c->lock);
		free(d);
		return -1;
	}
	/* not under the lock: starting QEMU needs the event thread, whose
	 * lifecycle callback takes it */
	conn = c->conn;
	virConnectRef(conn);
	d->gen = c->gen;
	pthread_mutex_unlock(&c->lock);
	rc = c->embedded ? start_local(c, d, cfg, conn, err) : start_remote(c, d, cfg, conn, err);
	virConnectClose(conn);
	if (rc < 0) {
		vm_destroy(d);
		return -1;
	}
	*ret = d;
	return 0;
}

int vm_open_channel(struct vm_domain *d, int64_t deadline_ms, int *fd, char *err)
{
	if (!d->remote)
		return channel_unix_connect(d->channel, deadline_ms, fd, err);
	if (d->chan_fd < 0)
		return errorf(err, "the channel of '%s' is open already", d->name);
	*fd = d->chan_fd;
	d->chan_fd = -1;
	return 0;
}

int vm_domain_host_lost(struct vm_domain *d)
{
	struct vm_conn *c = d->conn;
	int lost;

	if (c->embedded)
		return 0;
	pthread_mutex_lock(&c->lock);
	lost = c->gen != d->gen || atomic_load(&c->lost) || !c->conn ||
	       virConnectIsAlive(c->conn) != 1;
	pthread_mutex_unlock(&c->lock);
	return lost;
}

enum vm_stop vm_stopped(struct vm_domain *d, int wait_ms)
{
	enum vm_stop st;

	while ((st = atomic_load(&d->stopped)) == VM_STOP_NOT && wait_ms > 0) {
		usleep(5000);
		wait_ms -= 5;
	}
	return st;
}

int vm_running(struct vm_domain *d)
{
	int state, reason;

	if (!d->dom || virDomainGetState(d->dom, &state, &reason, 0) < 0)
		return 0;
	return state == VIR_DOMAIN_RUNNING || state == VIR_DOMAIN_BLOCKED ||
	       state == VIR_DOMAIN_PAUSED;
}

/*
 * A remote guest's end: its console log downloaded, its volumes deleted;
 * with the host gone, they are deleted once it is back.
 */
static void end_remote(struct vm_domain *d)
{
	struct vm_conn *c = d->conn;
	virConnectPtr conn = NULL;
	char err[ERR_MAX];
	int lost;

	vm_bridge_close(d->bridge);
	d->bridge = NULL;
	if (d->chan_fd >= 0)
		close(d->chan_fd);
	lost = vm_domain_host_lost(d);
	pthread_mutex_lock(&c->lock);
	if (c->pool && c->conn && !lost) {
		conn = c->conn;
		virConnectRef(conn);
	} else if (c->ndrops < VM_DROPS_MAX) {
		snprintf(c->drops[c->ndrops++], sizeof(c->drops[0]), "%s", d->name);
	}
	pthread_mutex_unlock(&c->lock);
	if (!conn)
		return;
	if (vm_pool_fetch_console(c->pool, conn, d->name, d->console, err) < 0)
		unlink(d->console);
	vm_pool_drop_run(c->pool, conn, d->name);
	virConnectClose(conn);
}

void vm_destroy(struct vm_domain *d)
{
	if (!d)
		return;
	/* a QEMU reaped here is gone: libvirt cleans up after it on its own, at
	 * the monitor's EOF (its state files, then the STOPPED event), which
	 * is waited for, so the run ends with nothing of its guest left */
	if (d->pid) {
		stop_emulator(d);
		vm_stopped(d, 2000);
	} else if (d->dom && vm_running(d))
		virDomainDestroy(d->dom);
	if (d->remote)
		end_remote(d);
	pthread_mutex_lock(&d->conn->lock);
	watch_del(d->conn, d);
	pthread_mutex_unlock(&d->conn->lock);
	if (d->dom)
		virDomainFree(d->dom);
	free(d);
}

/*
 * The probe boots the arm's real kernel with no root file system and
 * panic=-1: if it reaches its "cannot mount root" panic, QEMU exits on the
 * reboot by itself. A trivial real-mode guest is not proof: on nested hosts
 * KVM runs one fine while a Linux guest hangs after "Booting from ROM".
 */
int vm_probe(const char *accel, const char *arch, const char *kernel, int timeout_ms,
	     char *why, size_t len)
{
	const struct vm_arch *va = arch_of(arch);
	char accel_opt[16], kpath[PATH_MAX], err[ERR_MAX], emu[64], machine[32], cpu[16];
	int64_t t0 = now_ms();
	int status;

	if (!va) {
		snprintf(why, len, "no QEMU for arch '%s'", arch);
		return 0;
	}
	snprintf(accel_opt, sizeof(accel_opt), "%s", accel);
	snprintf(kpath, sizeof(kpath), "%s", kernel);
	snprintf(emu, sizeof(emu), "%s", va->emulator);
	snprintf(machine, sizeof(machine), "%s", va->probe_machine);
	snprintf(cpu, sizeof(cpu), "%s", strcmp(accel, "kvm") ? va->probe_cpu_tcg : va->probe_cpu_kvm);
	char *argv[] = { emu, "-accel", accel_opt, "-M", machine, "-cpu", cpu, "-nodefaults",
			 "-display", "none", "-m", "256", "-kernel", kpath,
			 "-append", "panic=-1 quiet", "-no-reboot", NULL };
	if (proc_run(argv, NULL, timeout_ms, &status, err) < 0) {
		snprintf(why, len, "%s", err);
		return 0;
	}
	if (status == 0)
		return 1;
	if (status == -1 && now_ms() - t0 < timeout_ms)
		snprintf(why, len, "qemu -accel %s died on a signal after %lld ms", accel,
			 (long long)(now_ms() - t0));
	else if (status == -1)
		snprintf(why, len, "a %s guest did not reach its kernel panic within %d ms",
			 accel, timeout_ms);
	else
		snprintf(why, len, "qemu -accel %s exited %d", accel, status);
	return 0;
}

/* path and its identity, or "none" */
static void stat_id(const char *path, char *out, size_t len)
{
	char id[128];

	snprintf(out, len, "%s:%s", path, file_identity(path, id, sizeof(id)) < 0 ? "none" : id);
}

/*
 * What decides a probe's answer: this boot of the host (its /dev/kvm, KVM
 * module and settings), the QEMU binary and the kernel. A reboot, another
 * QEMU or another kernel file probes again.
 */
static void probe_key(const struct vm_arch *va, const char *kernel, char out[HASH_FNV1A_HEX])
{
	char boot[64] = "", emu[PATH_MAX + 96], kern[PATH_MAX + 96], dev[160], text[3 * PATH_MAX];
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, boot, sizeof(boot) - 1) : -1;

	if (fd >= 0)
		close(fd);
	boot[n > 0 ? n : 0] = '\0';
	boot[strcspn(boot, "\n")] = '\0';
	stat_id(va->emulator, emu, sizeof(emu));
	stat_id(kernel, kern, sizeof(kern));
	stat_id("/dev/kvm", dev, sizeof(dev));
	snprintf(text, sizeof(text), "%s|%s|%s|%s|%s", va->arch, boot, emu, kern, dev);
	hash_fnv1a_hex(text, out);
}

/* A cached answer: "kvm", or "tcg" and its reason; 1 if there was one. */
static int probe_cached(const char *path, int *kvm, char *why, size_t len)
{
	char buf[ERR_MAX + 8] = "";
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return 0;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (!ok || (strcmp(buf, "kvm") && strncmp(buf, "tcg ", 4)))
		return 0;
	*kvm = !strcmp(buf, "kvm");
	snprintf(why, len, "%s%s", *kvm ? "" : buf + 4, *kvm ? "" : " (cached)");
	return 1;
}

static void probe_store(const char *dir, const char *path, int kvm, const char *why)
{
	char text[ERR_MAX + 8], err[ERR_MAX];

	snprintf(text, sizeof(text), "%s%s\n", kvm ? "kvm" : "tcg ", kvm ? "" : why);
	if (mkdir_p(dir, err) == 0)
		write_file(path, text, strlen(text), err);   /* a cache: unwritten, it probes again */
}

const char *vm_pick_accel(const char *arch, const char *kernel, const char *cache_dir,
			  char *why, size_t len)
{
	const struct vm_arch *va = arch_of(arch);
	char key[HASH_FNV1A_HEX], path[PATH_MAX] = "";
	int kvm;

	if (strcmp(arch, vm_host_arch()) || !va) {
		snprintf(why, len, "an %s guest on an %s host: no KVM", arch, vm_host_arch());
		return "tcg";
	}
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		snprintf(why, len, "no usable /dev/kvm");
		return "tcg";
	}
	probe_key(va, kernel, key);
	if (cache_dir && snprintf(path, sizeof(path), "%s/accel-%s", cache_dir, key) >=
	    (int)sizeof(path))
		path[0] = '\0';
	if (path[0] && probe_cached(path, &kvm, why, len))
		return kvm ? "kvm" : "tcg";
	kvm = vm_probe("kvm", arch, kernel, 2000, why, len);
	if (path[0])
		probe_store(cache_dir, path, kvm, why);
	return kvm ? "kvm" : "tcg";
}

/* <arch> of <host><cpu> in libvirt's capabilities XML, into out. */
static void caps_arch(const char *caps, char *out, size_t len)
{
	const char *h = strstr(caps, "<host>"), *a = h ? strstr(h, "<arch>") : NULL, *e;

	if (!a || !(e = strstr(a, "</arch>")) || (size_t)(e - a - 6) >= len)
		return;
	snprintf(out, len, "%.*s", (int)(e - a - 6), a + 6);
}

const char *vm_conn_arch(struct vm_conn *c)
{
	char *caps;

	if (c->embedded)
		return vm_host_arch();
	pthread_mutex_lock(&c->lock);
	if (!c->arch[0] && c->conn && (caps = virConnectGetCapabilities(c->conn))) {
		caps_arch(caps, c->arch, sizeof(c->arch));
		free(caps);
	}
	pthread_mutex_unlock(&c->lock);
	return c->arch[0] ? c->arch : "x86_64";
}

/* Boot kernel (staged there) under KVM with no root: 1 if it panicked and ended within 3 s. */
static int remote_probe(struct vm_conn *c, virConnectPtr conn, const struct vm_arch *va,
			const char *kernel, char *why, size_t len)
{
	char xml[PATH_MAX + 1024], path[PATH_MAX], err[ERR_MAX];
	virDomainPtr dom;
	int i, gone = 0;

	if (!c->pool || vm_pool_stage(c->pool, conn, kernel, "kernel", path, err) < 0) {
		snprintf(why, len, "%s", c->pool ? err : "no storage pool");
		return 0;
	}
	snprintf(xml, sizeof(xml), "<domain type='kvm'><name>harness-probe-%d</name>"
		 "<memory unit='MiB'>256</memory><vcpu>1</vcpu><os><type arch='%s' machine='%s'>"
		 "hvm</type><kernel>%s</kernel><cmdline>panic=-1 quiet</cmdline></os>%s"
		 "<cpu mode='host-passthrough'/><on_reboot>destroy</on_reboot>"
		 "<on_crash>destroy</on_crash><devices><memballoon model='none'/></devices>"
		 "</domain>", (int)getpid(), va->arch, va->machine, path, va->features);
	dom = virDomainCreateXML(conn, xml, VIR_DOMAIN_START_AUTODESTROY);
	if (!dom) {
		snprintf(why, len, "a kvm guest does not start there: %s", virGetLastErrorMessage());
		return 0;
	}
	for (i = 0; i < 60 && !gone; i++) {
		usleep(50000);
		gone = virDomainIsActive(dom) != 1;
	}
	if (!gone) {
		virDomainDestroy(dom);
		snprintf(why, len, "a kvm guest did not reach its kernel panic within 3 s");
	}
	virDomainFree(dom);
	return gone;
}

/* KVM on another host: offered by its libvirt for arch, and proven by a boot. */
static const char *remote_accel(struct vm_conn *c, virConnectPtr conn, const char *arch,
				const char *kernel, char *why, size_t len)
{
	const struct vm_arch *va = arch_of(arch);
	char *caps;

	if (!va) {
		snprintf(why, len, "no QEMU for arch '%s'", arch);
		return "tcg";
	}
	caps = virConnectGetDomainCapabilities(conn, NULL, arch, NULL, "kvm", 0);
	if (!caps) {
		snprintf(why, len, "host %s offers no KVM for %s: %s", c->host, arch,
			 virGetLastErrorMessage());
		return "tcg";
	}
	free(caps);
	return remote_probe(c, conn, va, kernel, why, len) ? "kvm" : "tcg";
}

const char *vm_conn_accel(struct vm_conn *c, const char *arch, const char *kernel,
			  const char *cache_dir, char *why, size_t len)
{
	virConnectPtr conn = NULL;
	const char *accel;
	char err[ERR_MAX];

	why[0] = '\0';
	if (c->embedded)
		return vm_pick_accel(arch, kernel, cache_dir, why, len);
	pthread_mutex_lock(&c->lock);
	if (ensure_alive(c, err) >= 0) {
		conn = c->conn;
		virConnectRef(conn);
	}
	pthread_mutex_unlock(&c->lock);
	if (!conn) {
		snprintf(why, len, "%s", err);
		return "tcg";
	}
	/* not under the lock: a guest's start needs the event thread, whose callbacks take it */
	accel = remote_accel(c, conn, arch, kernel, why, len);
	virConnectClose(conn);
	return accel;
}

/* The text of the first <tag>...</tag> after from in xml, or "" into out. */
static void xml_text(const char *xml, const char *from, const char *tag, char *out, size_t len)
{
	char open[32], close[32];
	const char *a = xml ? strstr(xml, from) : NULL, *e;

	out[0] = '\0';
	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	if (!a || !(a = strstr(a, open)) || !(e = strstr(a, close)))
		return;
	a += strlen(open);
	snprintf(out, len, "%.*s", (int)(e - a), a);
}

/* Another host's CPU (vendor and model from its capabilities) and count, its kernel unknown. */
static void remote_facts(struct vm_conn *c, virConnectPtr conn, const char *arch,
			 struct vm_host_facts *f)
{
	char *caps = virConnectGetCapabilities(conn), vendor[64], model[64], path[PATH_MAX];
	virNodeInfo ni;

	xml_text(caps, "<host>", "vendor", vendor, sizeof(vendor));
	xml_text(caps, "<host>", "model", model, sizeof(model));
	free(caps);
	if (model[0])
		snprintf(f->cpu_model, sizeof(f->cpu_model), "%s%s%s", vendor, vendor[0] ? " " : "",
			 model);
	if (virNodeGetInfo(conn, &ni) == 0)
		f->cpus = (int)ni.cpus;
	snprintf(f->kernel, sizeof(f->kernel), "unknown (libvirt does not tell host %.32s's)",
		 c->host);
	snprintf(path, sizeof(path), "%s%s", VM_REMOTE_TCG_SINGLE, arch);
	caps = virConnectGetDomainCapabilities(conn, path, arch, NULL, "qemu", 0);
	f->wrapper = caps != NULL;
	if (!caps)
		snprintf(f->wrapper_why, sizeof(f->wrapper_why), "host %s has no %.80s", c->host,
			 path);
	free(caps);
}

void vm_conn_facts(struct vm_conn *c, const char *arch, struct vm_host_facts *f)
{
	virConnectPtr conn = NULL;
	char err[ERR_MAX], path[PATH_MAX];
	unsigned long v;

	memset(f, 0, sizeof(*f));
	snprintf(f->kernel, sizeof(f->kernel), "unknown");
	snprintf(f->cpu_model, sizeof(f->cpu_model), "unknown");
	pthread_mutex_lock(&c->lock);
	if (ensure_alive(c, err) >= 0) {
		conn = c->conn;
		virConnectRef(conn);
	}
	pthread_mutex_unlock(&c->lock);
	if (conn && virConnectGetVersion(conn, &v) == 0)
		f->qemu_version = v;
	if (conn && virConnectGetLibVersion(conn, &v) == 0)
		f->libvirt_version = v;
	vm_version_str(f->qemu_version, f->qemu, sizeof(f->qemu));
	vm_version_str(f->libvirt_version, f->libvirt, sizeof(f->libvirt));
	if (c->embedded) {
		vm_local_facts(f);
		f->wrapper = local_wrapper(arch, path, sizeof(path)) == 0;
		if (!f->wrapper)
			snprintf(f->wrapper_why, sizeof(f->wrapper_why), "no %.120s (make builds it)",
				 path);
	} else if (conn) {
		remote_facts(c, conn, arch, f);
	} else {
		snprintf(f->wrapper_why, sizeof(f->wrapper_why), "%.150s", err);
	}
	if (conn)
		virConnectClose(conn);
}
