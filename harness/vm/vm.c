/* vm.c -- libvirt connections (their event loop thread, opened again when they
 * die) and domains' lifecycle: start, channel, stop events, destroy, here or remote. */
#include "vm/vm.h"
#include "vm/vm_priv.h"
#include "vm/bridge.h"
#include "vm/channel.h"
#include "vm/image.h"
#include "base/err.h"
#include "common/fmt.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#define VM_KEEPALIVE_S     5     /* a silent remote connection is closed after 3 of these */
#define VM_KEEPALIVE_COUNT 3

static pthread_t loop_thread;
static atomic_int loop_started;

/* libvirt's default event loop, run by its own thread for the process's life. */
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

/*
 * libvirt initialised and its event loop thread started, once per process;
 * its errors kept quiet (each call's message is read where it fails).
 */
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

/* A remote connection closed under us (keepalive, network): marked lost. */
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

/*
 * The thread that opens a connection for open_bounded; when its caller gave
 * up waiting, it closes what it opened and frees the opener itself.
 */
static void *opener_main(void *arg)
{
	struct opener *o = arg;
	virConnectPtr conn = virConnectOpen(o->uri);
	int abandoned;

	pthread_mutex_lock(&o->lock);
	if (!conn)
		fmtcut(o->err, sizeof(o->err), "%s", virGetLastErrorMessage());
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

/*
 * A remote connection opened in a thread of its own, waited for VM_OPEN_MS
 * at most (virConnectOpen has no timeout of its own); NULL with err.
 */
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
	if (fmtbuf(o->uri, sizeof(o->uri), "%s", uri) < 0) {
		opener_free(o);
		errorf(err, "libvirt URI %.64s... is too long", uri);
		return NULL;
	}
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

/* c's connection closed, its callbacks deregistered first. */
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

int vm_ensure_alive(struct vm_conn *c, char *err)
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

static void drop_leftover(virConnectPtr conn, const char *name);

/*
 * Run volumes a lost connection left on the host, deleted now it is back,
 * and the restored guests it left running (a restore has no autodestroy)
 * destroyed.
 */
static void drop_pending(struct vm_conn *c)
{
	unsigned i;

	for (i = 0; c->pool && i < c->ndrops; i++)
		vm_pool_drop_run(c->pool, c->conn, c->drops[i], 0);
	c->ndrops = 0;
	for (i = 0; i < c->nstale; i++)
		drop_leftover(c->conn, c->stale[i]);
	c->nstale = 0;
}

int vm_check(struct vm_conn *c, char *err)
{
	int rc;

	pthread_mutex_lock(&c->lock);
	rc = vm_ensure_alive(c, err);
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
	fmtcut(c->host, sizeof(c->host), "%s", host);
	if (!c->embedded && !c->pool)
		c->pool = vm_pool_new(host, dir, note, arg);
}

int vm_connect(const char *uri, const char *log_path, struct vm_conn **ret, char *err)
{
	char outputs[PATH_MAX + 16];
	struct vm_conn *c;

	/* libvirt logs to stderr unless told otherwise; keep our output clean */
	if (log_path && !getenv("LIBVIRT_LOG_OUTPUTS")) {
		if (fmtbuf(outputs, sizeof(outputs), "3:file:%s", log_path) < 0)
			return errorf(err, "libvirt log path %.64s... too long", log_path);
		setenv("LIBVIRT_LOG_OUTPUTS", outputs, 1);
	}
	if (vm_setup_embedded(uri, err) < 0 || start_event_loop(err) < 0)
		return -1;
	c = calloc(1, sizeof(*c));
	if (!c)
		return errorf(err, "out of memory");
	c->embedded = vm_is_embedded(uri);
	c->subreaper = c->embedded && vm_become_subreaper();
	c->event_id = -1;
	if (fmtbuf(c->uri, sizeof(c->uri), "%s", uri) < 0) {
		free(c);
		return errorf(err, "libvirt URI %.64s... is too long", uri);
	}
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

/* d no longer watched for lifecycle events; called with c->lock held. */
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
int vm_local_wrapper(const char *arch, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	fmtcut(buf, len, "qemu-tcg-single-%s", arch);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')))
		*slash = '\0';
	if (snprintf(buf, len, "%s/qemu-tcg-single-%s", self, arch) >= (int)len)
		return -1;
	return access(buf, X_OK);
}

/*
 * A guest called name still running from a process that died (a saved
 * guest's name is its save's, not the process's): the caller holds the
 * save's lock, so no live run has it. Destroyed.
 */
static void drop_leftover(virConnectPtr conn, const char *name)
{
	virDomainPtr old = virDomainLookupByName(conn, name);

	if (!old) {
		virResetLastError();
		return;
	}
	virDomainDestroy(old);
	virDomainFree(old);
}

/*
 * The embedded driver's domain XML for cfg, the TCG wrapper its emulator
 * when asked; its overlay made.
 */
static int local_xml(const struct vm_config *cfg, char *xml, size_t len, char *err)
{
	char wrapper[PATH_MAX];
	struct vm_config lc = *cfg;

	if (vm_tcg_single(cfg) && vm_local_wrapper(cfg->arch, wrapper, sizeof(wrapper)) < 0)
		return errorf(err, "no %s to run TCG single-threaded (make builds it)", wrapper);
	lc.emulator = vm_tcg_single(cfg) ? wrapper : cfg->emulator;
	if (image_overlay(cfg->backing, cfg->backing_fmt ? cfg->backing_fmt : "raw", cfg->disk,
			  err) < 0)
		return -1;
	return vm_domain_xml(&lc, xml, len, err);
}

/* The embedded driver: the overlay made here, QEMU's socket for the channel. */
static int start_local(struct vm_conn *c, struct vm_domain *d, const struct vm_config *cfg,
		       virConnectPtr conn, char *err)
{
	char xml[16384];

	if (local_xml(cfg, xml, sizeof(xml), err) < 0)
		return -1;
	if (fmtbuf(d->channel, sizeof(d->channel), "%s", cfg->channel) < 0)
		return errorf(err, "domain %s: channel path too long", cfg->name);
	if (cfg->uuid)
		drop_leftover(conn, cfg->name);
	/* libvirt 9 refuses AUTODESTROY on the embedded driver, whose domains
	 * die with the connection anyway */
	d->dom = virDomainCreateXML(conn, xml, 0);
	if (!d->dom)
		return lverr(err, "cannot start domain", cfg->name);
	if (c->subreaper)
		d->pid = vm_emulator_child(c, d->name);
	return 0;
}

/* The name of a remote guest's volumes: cfg->vol, else its domain's. */
static int set_vol(struct vm_domain *d, const struct vm_config *cfg, char *err)
{
	if (fmtbuf(d->vol, sizeof(d->vol), "%s", cfg->vol ? cfg->vol : cfg->name) < 0)
		return errorf(err, "domain %s: volume name too long", cfg->name);
	return 0;
}

/*
 * Another host's domain XML for cfg: its files staged into the pool (a
 * saved guest's disk is a volume there already), the overlay and console
 * file volumes made there, the channel libvirt's.
 */
static int remote_xml(struct vm_conn *c, struct vm_domain *d, const struct vm_config *cfg,
		      virConnectPtr conn, char *xml, size_t len, char *err)
{
	char kernel[PATH_MAX], initrd[PATH_MAX], staged[PATH_MAX], console[PATH_MAX];
	char wrapper[PATH_MAX];
	const char *fmt = cfg->backing_fmt ? cfg->backing_fmt : "raw";
	const char *backing = cfg->backing;
	struct vm_config rc = *cfg;

	d->remote = 1;
	if (fmtbuf(d->console, sizeof(d->console), "%s", cfg->console) < 0)
		return errorf(err, "domain %s: console path too long", cfg->name);
	if (!c->pool)
		return errorf(err, "host %s: no storage pool set for it", c->host);
	if (set_vol(d, cfg, err) < 0)
		return -1;
	if (!strcmp(fmt, "raw") &&
	    vm_pool_stage(c->pool, conn, cfg->backing, "disk", staged, err) < 0)
		return -1;
	if (!strcmp(fmt, "raw"))
		backing = staged;
	if (vm_pool_stage(c->pool, conn, cfg->kernel, "kernel", kernel, err) < 0 ||
	    vm_pool_stage(c->pool, conn, cfg->initrd, "initrd", initrd, err) < 0 ||
	    vm_pool_overlay(c->pool, conn, d->vol, backing, fmt, d->disk, err) < 0 ||
	    vm_pool_console(c->pool, conn, d->vol, console, err) < 0)
		return -1;
	rc.kernel = kernel;
	rc.initrd = initrd;
	rc.disk = d->disk;
	rc.console = console;
	rc.channel = NULL;
	rc.first_cpu = -1;      /* its cores are not this machine's */
	if (fmtbuf(wrapper, sizeof(wrapper), "%s%s", VM_REMOTE_TCG_SINGLE, cfg->arch) < 0)
		return errorf(err, "host %s: TCG wrapper path for arch %.32s too long", c->host,
			      cfg->arch);
	rc.emulator = vm_tcg_single(cfg) ? wrapper : cfg->emulator;
	return vm_domain_xml(&rc, xml, len, err);
}

/*
 * A remote guest started paused: its channel's stream opened before the
 * guest can say anything, then resumed.
 */
static int remote_attach(struct vm_domain *d, virConnectPtr conn, char *err)
{
	virStreamPtr st = virStreamNew(conn, VIR_STREAM_NONBLOCK);

	if (!st)
		return lverr(err, "no stream for the channel of", d->name);
	if (virDomainOpenChannel(d->dom, "harness.0", st, 0) < 0) {
		lverr(err, "cannot open the channel of", d->name);
		virStreamFree(st);
		return -1;
	}
	if (vm_bridge_open(st, &d->bridge, &d->chan_fd, err) < 0)
		return -1;
	if (virDomainResume(d->dom) < 0)
		return lverr(err, "cannot resume", d->name);
	return 0;
}

/* Another host: the domain made from what remote_xml staged, started paused, attached. */
static int start_remote(struct vm_conn *c, struct vm_domain *d, const struct vm_config *cfg,
			virConnectPtr conn, char *err)
{
	char xml[16384];

	if (remote_xml(c, d, cfg, conn, xml, sizeof(xml), err) < 0)
		return -1;
	if (cfg->uuid)
		drop_leftover(conn, cfg->name);
	d->dom = virDomainCreateXML(conn, xml, VIR_DOMAIN_START_AUTODESTROY |
				    VIR_DOMAIN_START_PAUSED);
	if (!d->dom)
		return lverr(err, "cannot start domain", cfg->name);
	return remote_attach(d, conn, err);
}

/*
 * A domain called name, watched for its events, and a reference to c's
 * connection (opened again first if it died) in *conn: the caller starts
 * the guest on it, not under c->lock (starting QEMU needs the event
 * thread, whose lifecycle callback takes it), then closes *conn.
 */
static struct vm_domain *domain_new(struct vm_conn *c, const char *name, virConnectPtr *conn,
				    char *err)
{
	struct vm_domain *d = calloc(1, sizeof(*d));

	if (!d) {
		errorf(err, "out of memory");
		return NULL;
	}
	d->conn = c;
	d->chan_fd = -1;
	if (fmtbuf(d->name, sizeof(d->name), "%s", name) < 0) {
		errorf(err, "domain name %.64s... over %zu bytes", name, sizeof(d->name) - 1);
		free(d);
		return NULL;
	}
	pthread_mutex_lock(&c->lock);
	if (watch_add(c, d, err) < 0 || vm_ensure_alive(c, err) < 0) {
		watch_del(c, d);
		pthread_mutex_unlock(&c->lock);
		free(d);
		return NULL;
	}
	*conn = c->conn;
	virConnectRef(*conn);
	d->gen = c->gen;
	pthread_mutex_unlock(&c->lock);
	return d;
}

int vm_start(struct vm_conn *c, const struct vm_config *cfg, struct vm_domain **ret, char *err)
{
	struct vm_domain *d;
	virConnectPtr conn;
	int rc;

	if (!(d = domain_new(c, cfg->name, &conn, err)))
		return -1;
	rc = c->embedded ? start_local(c, d, cfg, conn, err) : start_remote(c, d, cfg, conn, err);
	virConnectClose(conn);
	if (rc < 0) {
		vm_destroy(d);
		return -1;
	}
	*ret = d;
	return 0;
}

/* A reference to c's connection if it is there (the caller closes it), else NULL. */
static virConnectPtr conn_ref(struct vm_conn *c)
{
	virConnectPtr conn;

	pthread_mutex_lock(&c->lock);
	conn = c->conn;
	if (conn)
		virConnectRef(conn);
	pthread_mutex_unlock(&c->lock);
	return conn;
}

/*
 * A remote guest's state saved as VOL.state beside its overlay VOL.qcow2
 * (in the pool's directory, which is read again so the file is a volume);
 * the overlay kept as the save's disk.
 */
static int save_remote(struct vm_domain *d, char *err)
{
	struct vm_conn *c = d->conn;
	char state[PATH_MAX];
	size_t n = strlen(d->disk);
	virConnectPtr conn;
	int rc;

	if (n < 6 || strcmp(d->disk + n - 6, ".qcow2") ||
	    snprintf(state, sizeof(state), "%.*s.state", (int)(n - 6), d->disk) >= (int)sizeof(state))
		return errorf(err, "host %s: overlay '%s' is not VOL.qcow2", c->host, d->disk);
	if (virDomainSaveFlags(d->dom, state, NULL, VIR_DOMAIN_SAVE_RUNNING) < 0)
		return lverr(err, "cannot save domain", d->name);
	d->keep_disk = 1;
	if (!(conn = conn_ref(c)))
		return errorf(err, "host %s: lost as its guest was saved", c->host);
	rc = vm_pool_refresh(c->pool, conn, err);
	virConnectClose(conn);
	return rc;
}

int vm_save(struct vm_domain *d, const char *path, char *err)
{
	int rc = 0;

	if (d->remote)
		rc = save_remote(d, err);
	else if (virDomainSaveFlags(d->dom, path, NULL, VIR_DOMAIN_SAVE_RUNNING) < 0)
		rc = lverr(err, "cannot save domain", d->name);
	/* the domain is gone: its STOPPED event must come before another of
	 * its name (the restore) is watched, or the event would end that one */
	if (rc == 0)
		vm_stopped(d, 5000);
	vm_destroy(d);
	return rc;
}

/* This machine: the overlay made on the save's disk, QEMU's socket for the channel. */
static int restore_local(struct vm_domain *d, const struct vm_config *cfg, const char *save,
			 virConnectPtr conn, char *err)
{
	char xml[16384];

	if (fmtbuf(d->channel, sizeof(d->channel), "%s", cfg->channel) < 0)
		return errorf(err, "domain %s: channel path too long", cfg->name);
	if (local_xml(cfg, xml, sizeof(xml), err) < 0)
		return -1;
	drop_leftover(conn, cfg->name);
	if (virDomainRestoreFlags(conn, save, xml, VIR_DOMAIN_SAVE_RUNNING) < 0)
		return lverr(err, "cannot restore domain", cfg->name);
	return 0;
}

/*
 * Another host: the overlay a volume on the save's disk volume there,
 * restored paused (no autodestroy for a restore: a daemon that dies leaves
 * it, destroyed by name before the next), attached, resumed.
 */
static int restore_remote(struct vm_conn *c, struct vm_domain *d, const struct vm_config *cfg,
			  const char *save, virConnectPtr conn, char *err)
{
	char xml[16384];

	if (remote_xml(c, d, cfg, conn, xml, sizeof(xml), err) < 0)
		return -1;
	drop_leftover(conn, cfg->name);
	if (virDomainRestoreFlags(conn, save, xml, VIR_DOMAIN_SAVE_PAUSED) < 0)
		return lverr(err, "cannot restore domain", cfg->name);
	d->dom = virDomainLookupByName(conn, cfg->name);
	if (!d->dom)
		return lverr(err, "restored domain not found", cfg->name);
	d->restored = 1;
	return remote_attach(d, conn, err);
}

int vm_restore(struct vm_conn *c, const struct vm_config *cfg, const char *save,
	       struct vm_domain **ret, char *err)
{
	struct vm_domain *d;
	virConnectPtr conn;
	int rc = -1;

	if (!(d = domain_new(c, cfg->name, &conn, err)))
		return -1;
	if (!c->embedded) {
		rc = restore_remote(c, d, cfg, save, conn, err);
		goto out;
	}
	if (restore_local(d, cfg, save, conn, err) < 0)
		goto out;
	d->dom = virDomainLookupByName(conn, cfg->name);
	if (!d->dom) {
		lverr(err, "restored domain not found", cfg->name);
		goto out;
	}
	if (c->subreaper)
		d->pid = vm_emulator_child(c, d->name);
	rc = 0;
out:
	virConnectClose(conn);
	if (rc < 0)
		vm_destroy(d);
	else
		*ret = d;
	return rc;
}

int vm_saved_find(struct vm_conn *c, const char *vol, char *state, char *disk, uint64_t *bytes,
		  char *err)
{
	virConnectPtr conn;
	uint64_t a = 0, b = 0;
	int rc;

	if (c->embedded || !c->pool)
		return errorf(err, "saves on this machine are files, not volumes");
	if (!(conn = conn_ref(c)))
		return errorf(err, "host %s: not connected", c->host);
	rc = vm_pool_find(c->pool, conn, vol, "state", state, &a, err);
	if (rc == 1)
		rc = vm_pool_find(c->pool, conn, vol, "qcow2", disk, &b, err);
	virConnectClose(conn);
	if (rc == 1)
		*bytes = a + b;
	return rc;
}

void vm_saved_delete(struct vm_conn *c, const char *vol)
{
	char err[ERR_MAX];
	virConnectPtr conn;

	if (c->embedded || !c->pool || !(conn = conn_ref(c)))
		return;
	/* a state file whose save_remote() could not read the pool again is
	 * no volume yet: read it again, or the file would stay there for good */
	if (vm_pool_refresh(c->pool, conn, err) < 0)
		virResetLastError();
	vm_pool_drop(c->pool, conn, vol, "state");
	vm_pool_drop_run(c->pool, conn, vol, 0);
	virConnectClose(conn);
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

pid_t vm_domain_pid(const struct vm_domain *d)
{
	return d->pid;
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
	} else {
		/* d->vol and d->name are as long as a drop: they fit */
		if (c->ndrops < VM_DROPS_MAX &&
		    fmtbuf(c->drops[c->ndrops], sizeof(c->drops[0]), "%s", d->vol) == 0)
			c->ndrops++;
		if (d->restored && c->nstale < VM_DROPS_MAX &&
		    fmtbuf(c->stale[c->nstale], sizeof(c->stale[0]), "%s", d->name) == 0)
			c->nstale++;
	}
	pthread_mutex_unlock(&c->lock);
	if (!conn)
		return;
	vm_pool_fetch_console(c->pool, conn, d->vol, d->console, err);   /* what came is kept */
	vm_pool_drop_run(c->pool, conn, d->vol, d->keep_disk);
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
		vm_stop_emulator(d);
		vm_stopped(d, 2000);
	} else if (d->dom && vm_running(d) && virDomainDestroy(d->dom) == 0) {
		vm_stopped(d, 2000);   /* its event, before another of its name is watched */
	}
	if (d->remote)
		end_remote(d);
	pthread_mutex_lock(&d->conn->lock);
	watch_del(d->conn, d);
	pthread_mutex_unlock(&d->conn->lock);
	if (d->dom)
		virDomainFree(d->dom);
	free(d);
}
