/* hosts.c -- each host's connection and state: connect on demand, down with
 * backoff, back when it answers, drained by the operator; listed as JSON. */
#include "daemon/hosts.h"
#include "base/err.h"
#include "base/proc.h"
#include "daemon/log.h"
#include "daemon/queue.h"
#include "run/runner.h"
#include "store/store_hosts.h"
#include "common/fmt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BACKOFF_MIN_S 1
#define BACKOFF_MAX_S 60

enum host_state { HOST_NEW, HOST_UP, HOST_DOWN };

static const char *const state_names[] = { "unknown", "up", "down" };

struct host {
	struct conf_host conf;
	const struct conf *c;
	const char *log_path;
	pthread_mutex_t lock;        /* everything below */
	struct vm_conn *vm;
	enum host_state state;
	int drained;
	int connecting;              /* a slot is connecting: the others wait */
	unsigned busy;               /* slots in a block here */
	unsigned backoff_s;
	int64_t retry_at_ms;
	char error[ERR_MAX];         /* the last failure, "" if none since it came up */
	char accel[8];
	char accel_why[ERR_MAX];
	char threading_for[SPEC_NAME_MAX];   /* the matrix the TCG threading was last logged for */
};

struct hosts {
	unsigned n;
	struct host h[CONF_HOSTS_MAX];
};

static void note(void *arg, const char *msg)
{
	(void)arg;
	hlog("%s", msg);
}

int hosts_open(const struct conf *c, const char *log_path, struct store *s, struct hosts **ret,
	       char *err)
{
	struct hosts *hs = calloc(1, sizeof(*hs));
	const struct conf_host *list;
	struct conf_host one;
	unsigned i;

	if (!hs)
		return errorf(err, "out of memory");
	hs->n = conf_hosts(c, &one, &list);
	for (i = 0; i < hs->n; i++) {
		hs->h[i].conf = list[i];
		hs->h[i].c = c;
		hs->h[i].log_path = log_path;
		pthread_mutex_init(&hs->h[i].lock, NULL);
		if (store_host_drained(s, list[i].name, &hs->h[i].drained, err) < 0) {
			hosts_close(hs);
			return -1;
		}
	}
	*ret = hs;
	return 0;
}

void hosts_close(struct hosts *hs)
{
	unsigned i;

	if (!hs)
		return;
	for (i = 0; i < hs->n; i++) {
		vm_disconnect(hs->h[i].vm);
		pthread_mutex_destroy(&hs->h[i].lock);
	}
	free(hs);
}

unsigned hosts_count(const struct hosts *hs)
{
	return hs->n;
}

struct host *hosts_at(struct hosts *hs, unsigned i)
{
	return i < hs->n ? &hs->h[i] : NULL;
}

const char *host_name(const struct host *h)
{
	return h->conf.name;
}

unsigned host_slots(const struct host *h, const struct conf *c)
{
	return h->conf.slots ? (unsigned)h->conf.slots : queue_guests(c);
}

/* Down: retried after the backoff, which doubles each time up to a minute. */
static void set_down(struct host *h, const char *why)
{
	int was_down = h->state == HOST_DOWN;

	h->backoff_s = !was_down ? BACKOFF_MIN_S :
		h->backoff_s * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : h->backoff_s * 2;
	h->retry_at_ms = now_ms() + (int64_t)h->backoff_s * 1000;
	if (!was_down || strcmp(h->error, why))
		hlog("host %s: down: %s; asking again in %u s", h->conf.name, why, h->backoff_s);
	fmtcut(h->error, sizeof(h->error), "%s", why);
	h->state = HOST_DOWN;
}

/* The host up: said in the log when it was not, its backoff and error reset. */
static void set_up(struct host *h)
{
	if (h->state != HOST_UP)
		hlog("host %s: %s (%s, %s guests)", h->conf.name,
		     h->state == HOST_DOWN ? "back: takes work again" : "up",
		     h->conf.uri[0] ? h->conf.uri : "embedded", vm_conn_arch(h->vm));
	h->state = HOST_UP;
	h->backoff_s = 0;
	h->error[0] = '\0';
}

/* First connection: guests a killed daemon left there go first. */
static int connect_host(struct host *h, const struct conf *c, struct vm_conn **ret, char *err)
{
	char uri[PATH_MAX];
	int n;

	if (conf_host_uri(c, &h->conf, uri, sizeof(uri), err) < 0 ||
	    vm_connect(uri, h->log_path, ret, err) < 0)
		return -1;
	vm_set_storage(*ret, h->conf.name, h->conf.storage, note, NULL);
	n = vm_destroy_leftovers(*ret, "harness-", err);
	if (n > 0)
		hlog("host %s: destroyed %d guest%s the last daemon left running", h->conf.name, n,
		     n == 1 ? "" : "s");
	return 0;
}

int hosts_connect_local(struct hosts *hs, char *err)
{
	unsigned i;

	for (i = 0; i < hs->n; i++) {
		if (hs->h[i].conf.uri[0])
			continue;
		if (connect_host(&hs->h[i], hs->h[i].c, &hs->h[i].vm, err) < 0)
			return -1;
		set_up(&hs->h[i]);
	}
	return 0;
}

/* Back after a loss: this daemon's guests still running there (its own were lost with it) go. */
static void destroy_ours(struct host *h)
{
	char prefix[32], err[ERR_MAX];
	int n;

	/* a cut prefix would take other daemons' guests too: none then (an int fits) */
	if (fmtbuf(prefix, sizeof(prefix), "harness-%d-", (int)getpid()) < 0)
		return;
	n = vm_destroy_leftovers(h->vm, prefix, err);
	if (n > 0)
		hlog("host %s: destroyed %d guest%s left from before the loss", h->conf.name, n,
		     n == 1 ? "" : "s");
}

struct vm_conn *host_acquire(struct host *h)
{
	struct vm_conn *vm = NULL;
	char err[ERR_MAX] = "";
	int rc;

	pthread_mutex_lock(&h->lock);
	if (h->drained || h->connecting ||
	    (h->state == HOST_DOWN && now_ms() < h->retry_at_ms)) {
		pthread_mutex_unlock(&h->lock);
		return NULL;
	}
	if (h->state == HOST_UP) {
		vm = h->vm;
		pthread_mutex_unlock(&h->lock);
		return vm;
	}
	h->connecting = 1;
	vm = h->vm;
	pthread_mutex_unlock(&h->lock);
	/* not under the lock: an unreachable host can take a while to say so */
	rc = vm ? vm_check(vm, err) : connect_host(h, h->c, &vm, err);
	pthread_mutex_lock(&h->lock);
	h->connecting = 0;
	if (rc == 0 && h->vm && h->state == HOST_DOWN)
		destroy_ours(h);
	if (rc == 0) {
		h->vm = vm;
		set_up(h);
	} else {
		set_down(h, err);
		vm = NULL;
	}
	pthread_mutex_unlock(&h->lock);
	return vm;
}

void host_archs(struct host *h, char *buf, size_t len)
{
	int rc;

	if (h->conf.archs[0])
		rc = fmtbuf(buf, len, "%s", h->conf.archs);
	else
		rc = fmtbuf(buf, len, "%s", h->vm ? vm_conn_arch(h->vm) : vm_host_arch());
	if (rc < 0)
		buf[0] = '\0';         /* matches no block's arch */
}

void host_lost(struct host *h, const char *why)
{
	pthread_mutex_lock(&h->lock);
	if (h->state != HOST_DOWN)
		set_down(h, why);
	pthread_mutex_unlock(&h->lock);
}

void host_busy(struct host *h, int delta)
{
	pthread_mutex_lock(&h->lock);
	h->busy = (unsigned)((int)h->busy + delta);
	pthread_mutex_unlock(&h->lock);
}

int hosts_drain(struct hosts *hs, struct store *s, const char *name, int on, char *err)
{
	unsigned i;

	for (i = 0; i < hs->n && strcmp(hs->h[i].conf.name, name); i++)
		;
	if (i == hs->n)
		return errorf(err, "no host '%.64s' in harness.conf", name);
	if (store_set_host_drained(s, name, on, err) < 0)
		return -1;
	pthread_mutex_lock(&hs->h[i].lock);
	hs->h[i].drained = on;
	pthread_mutex_unlock(&hs->h[i].lock);
	hlog("host %s: %s", name, on ? "drained: its blocks finish, it claims nothing new" :
	     "resumed: claims blocks again");
	return 0;
}

/*
 * The TCG threading the host's guests of m get, logged with why when a block
 * of another matrix than the last one logged comes to the host.
 */
static void log_threading(struct host *h, const struct matrix *m, const char *accel)
{
	const char *arch = vm_conn_arch(h->vm);
	struct vm_host_facts f;
	char why[256];
	unsigned i;
	int say;

	pthread_mutex_lock(&h->lock);
	say = strcmp(h->threading_for, m->name) != 0;
	/* as long as a matrix's name: it fits */
	if (fmtbuf(h->threading_for, sizeof(h->threading_for), "%s", m->name) < 0)
		h->threading_for[0] = '\0';
	pthread_mutex_unlock(&h->lock);
	for (i = 0; say && i < m->n_archs; i++)
		if (!strcmp(vm_accel_for(m->archs[i], arch, accel), "tcg")) {
			/* not under the lock: another host's facts are a round trip */
			vm_conn_facts(h->vm, m->archs[i], &f);
			hlog("host %s: matrix '%s': tcg threading: %s (%s)", h->conf.name, m->name,
			     vm_tcg_threading_on(&f, "tcg", m->vcpus, h->c->tcg_thread, why, sizeof(why)), why);
			return;
		}
}

/* The accel the host's guests of m's host arch get, decided once per host. */
static const char *decide_accel(struct host *h, const struct conf *c, const struct matrix *m)
{
	char why[ERR_MAX] = "";
	const char *accel;

	pthread_mutex_lock(&h->lock);
	if (h->accel[0]) {
		pthread_mutex_unlock(&h->lock);
		return h->accel;
	}
	pthread_mutex_unlock(&h->lock);
	accel = runner_pick_accel(c, h->vm, m, why, sizeof(why));
	pthread_mutex_lock(&h->lock);
	/* decided with a host-arch guest in the matrix; else asked again by the next */
	if (!h->accel[0] && (strcmp(c->accel, "auto") ||
			     spec_arch_index(m, vm_conn_arch(h->vm)) >= 0)) {
		/* "kvm" or "tcg"; one that did not fit is decided again */
		if (fmtbuf(h->accel, sizeof(h->accel), "%s", accel) < 0)
			h->accel[0] = '\0';
		fmtcut(h->accel_why, sizeof(h->accel_why), "%s", why);
		hlog("host %s: accel %s%s%s%s", h->conf.name, accel, why[0] ? " (kvm: " : "", why,
		     why[0] ? ")" : "");
	}
	pthread_mutex_unlock(&h->lock);
	return accel;
}

const char *host_accel(struct host *h, const struct conf *c, const struct matrix *m)
{
	const char *accel = decide_accel(h, c, m);

	log_threading(h, m, accel);
	return accel;
}

/*
 * {"x86_64": "kvm", "aarch64": "tcg"}: each arch the host runs, its own as
 * decided ("" until a matrix with such a cell asked), another always TCG.
 */
static json_t *accel_json(struct host *h, const char *archs)
{
	const char *own = h->vm ? vm_conn_arch(h->vm) : "";
	json_t *o = json_object();
	char a[16];
	size_t n;

	for (; o && *archs; archs += n + (archs[n] == ' ')) {
		n = strcspn(archs, " ");
		if (fmtbuf(a, sizeof(a), "%.*s", (int)n, archs) < 0)
			continue;       /* no arch's name is that long: a cut one is none */
		json_object_set_new(o, a, json_string(strcmp(a, own) ? "tcg" : h->accel));
	}
	return o;
}

/*
 * A host as GET /hosts shows it: state, slots and how busy, archs and accel,
 * its runs done and otherwise, its last error.
 */
static json_t *host_json(struct host *h, struct store *s, const struct conf *c)
{
	int64_t done = 0, other = 0;
	char err[ERR_MAX], archs[64];
	json_t *o;

	store_host_runs(s, h->conf.name, &done, &other, err);
	pthread_mutex_lock(&h->lock);
	host_archs(h, archs, sizeof(archs));
	o = json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:s, s:o, s:s, s:I, s:I, s:s}",
		      "name", h->conf.name, "uri", h->conf.uri[0] ? h->conf.uri : "embedded",
		      "state", state_names[h->state], "drained", h->drained,
		      "slots", (int)host_slots(h, c), "busy", (int)h->busy, "archs", archs,
		      "accel", accel_json(h, archs), "accel_why", h->accel_why,
		      "runs_done", (json_int_t)done, "runs_other", (json_int_t)other,
		      "error", h->error);
	pthread_mutex_unlock(&h->lock);
	return o;
}

json_t *hosts_json(struct hosts *hs, struct store *s, const struct conf *c)
{
	json_t *a = json_array();
	unsigned i;

	for (i = 0; a && i < hs->n; i++)
		json_array_append_new(a, host_json(&hs->h[i], s, c));
	return a;
}
