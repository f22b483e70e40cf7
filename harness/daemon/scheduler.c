/* scheduler.c -- guest slots: claim a block, run its runs back to back, re-queue
 * what was interrupted or failed for the harness's own reasons, report. */
#include "daemon/scheduler.h"
#include "base/err.h"
#include "daemon/buildgate.h"
#include "daemon/hosts.h"
#include "daemon/log.h"
#include "daemon/notify.h"
#include "base/proc.h"
#include "daemon/queue.h"
#include "daemon/wake.h"
#include "run/runner.h"
#include "spec/spec.h"
#include "store/store.h"
#include "common/fmt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define MAX_SLOTS 64
#define IDLE_MS   1000
#define RETRY_S   5              /* a paused queue tries the database this often */

struct sched;

struct slot {
	struct sched *sc;
	struct host *h;
	unsigned index;              /* across all hosts: the runs' slot column */
	unsigned nth;                /* within its host: which cores it pins to */
	pthread_t th;
	struct store *store;
	int64_t matrix;              /* the matrix of the block in hand */
	int64_t stuck;               /* a run left booting/running by a refused write */
	struct buildlock gate_lock;  /* its place in the build gate across processes */
};

struct sched {
	const struct conf *c;
	struct hosts *hosts;
	struct buildgate *gate;
	atomic_int stop;
	unsigned nslots;
	struct slot slots[MAX_SLOTS];
	pthread_mutex_t lock;        /* the finished-matrix check */
	pthread_mutex_t pause_lock;  /* pause_why */
	char pause_why[ERR_MAX + 64];  /* "" while the queue runs: else why it is paused */
};

/* The runner asks this every second and after every message. */
static int should_stop(void *arg)
{
	struct slot *sl = arg;
	char state[16], err[ERR_MAX];

	if (atomic_load(&sl->sc->stop))
		return 1;
	return store_matrix_state(sl->store, sl->matrix, state, err) == 0 &&
	       !strcmp(state, "cancelled");
}

/*
 * Post body to harness.conf's webhook, if one is set (a failure is logged);
 * body is consumed.
 */
static void webhook(struct sched *sc, json_t *body)
{
	char err[ERR_MAX];

	if (sc->c->webhook[0] && body && notify_post(sc->c->webhook, body, err) < 0)
		hlog("%s", err);
	json_decref(body);
}

/* Matrices with nothing left to run are finished: say so, once. */
static void finish_matrices(struct slot *sl)
{
	int64_t ids[64];
	size_t n = 0, i;
	char err[ERR_MAX];
	json_t *mx;

	pthread_mutex_lock(&sl->sc->lock);
	if (store_finish_matrices(sl->store, ids, 64, &n, err) < 0)
		hlog("%s", err);
	pthread_mutex_unlock(&sl->sc->lock);
	for (i = 0; i < n; i++) {
		char key[32];

		hlog("matrix %lld finished", (long long)ids[i]);
		if (fmtbuf(key, sizeof(key), "%lld", (long long)ids[i]) < 0) {
			hlog("matrix %lld: its key over %zu bytes", (long long)ids[i],
			     sizeof(key) - 1);
			continue;
		}
		if (queue_matrix(sl->store, sl->sc->c, key, &mx, err) < 0) {
			hlog("%s", err);
			continue;
		}
		json_object_del(mx, "runs_list");
		webhook(sl->sc, json_pack("{s:s, s:o}", "event", "matrix_finished", "matrix", mx));
	}
}

/* A run's end in the log; a crash posted to the webhook too. */
static void report(struct slot *sl, const struct matrix *m, const struct run_ref *ref,
		   const struct run_outcome *out)
{
	hlog("slot %u: run %lld (matrix %lld '%s', %s / %s, block %u pos %u): %s%s%s",
	     sl->index, (long long)ref->id, (long long)sl->matrix, m->name,
	     m->arms[ref->arm].name, m->cells[ref->cell].name, ref->block, ref->position,
	     out->status, out->ok ? "" : ": ", out->ok ? "" : out->reason);
	if (strcmp(out->status, "crashed"))
		return;
	webhook(sl->sc, json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:s}", "event", "run_crashed",
				  "run", (json_int_t)ref->id, "matrix", (json_int_t)sl->matrix,
				  "name", m->name, "arm", m->arms[ref->arm].name,
				  "cell", m->cells[ref->cell].name, "crash", out->crash));
}

void sched_pause_reason(struct sched *sc, char *buf, size_t len)
{
	pthread_mutex_lock(&sc->pause_lock);
	fmtcut(buf, len, "%s", sc->pause_why);
	pthread_mutex_unlock(&sc->pause_lock);
}

/* 1 while the scheduler holds the queue (pause_why set). */
static int queue_paused(struct sched *sc)
{
	int paused;

	pthread_mutex_lock(&sc->pause_lock);
	paused = sc->pause_why[0] != '\0';
	pthread_mutex_unlock(&sc->pause_lock);
	return paused;
}

/* A refused write: run stays in flight in the database, nothing new starts. */
static void pause_queue(struct slot *sl, int64_t run, const char *why)
{
	pthread_mutex_lock(&sl->sc->pause_lock);
	fmtcut(sl->sc->pause_why, sizeof(sl->sc->pause_why), "the database refused a write (%s)",
		 why);
	pthread_mutex_unlock(&sl->sc->pause_lock);
	sl->stuck = run;
	hlog("slot %u: %s; queue paused until it takes writes again", sl->index, why);
}

/*
 * A paused slot's run goes back to the queue as soon as the database takes
 * writes again; then the queue resumes. -1 while it still refuses.
 */
static int unpause(struct slot *sl)
{
	char err[ERR_MAX];

	if (store_requeue(sl->store, sl->stuck, "interrupted", "the database refused a write "
			  "during this run; re-queued as a fresh boot", 0, NULL, err) < 0 ||
	    store_unclaim(sl->store, (int)sl->index, err) < 0)
		return -1;
	hlog("slot %u: the database takes writes again: run %lld re-queued, queue resumed",
	     sl->index, (long long)sl->stuck);
	sl->stuck = 0;
	pthread_mutex_lock(&sl->sc->pause_lock);
	sl->sc->pause_why[0] = '\0';
	pthread_mutex_unlock(&sl->sc->pause_lock);
	return 0;
}

/*
 * One queued run; again (a fresh attempt, same slot) after a failure of the
 * harness's own, up to conf retries. Interrupted runs go back to the queue.
 * Returns -1 only when the database refused a write (why in err; *ret_run is
 * the run left in flight), 1 when the host was lost under it (why in err).
 */
static int run_one(struct slot *sl, struct runner *r, const struct matrix *m,
		   struct run_ref ref, int64_t *ret_run, char *err)
{
	struct run_outcome out;
	uint64_t tries = 0;
	int rc;

	for (;;) {
		*ret_run = ref.id;
		if (runner_run(r, m, &ref, &out, err) < 0)
			return -1;
		report(sl, m, &ref, &out);
		if (!strcmp(out.status, "interrupted"))
			return store_requeue(sl->store, ref.id, out.status, out.reason, 0, NULL, err);
		if (out.infra && vm_check(r->vm, err) < 0)
			return 1;
		rc = runner_retry(r, &ref, &out, &tries, err);
		if (rc <= 0)
			return rc;
		hlog("slot %u: retrying as run %lld", sl->index, (long long)ref.id);
	}
}

/*
 * The slot's matrix from its stored spec, with the kernels its source arms
 * were built to when it was resolved (never a new build), resolved again.
 */
static int load_matrix(struct slot *sl, struct matrix *m, char *err)
{
	_cleanup_free_ char *text = NULL;
	char base_dir[PATH_MAX], label[64];

	fmtcut(label, sizeof(label), "matrix %lld", (long long)sl->matrix);
	if (store_matrix_spec(sl->store, sl->matrix, &text, base_dir, err) < 0 ||
	    spec_parse(m, text, label, base_dir, sl->sc->c, err) < 0)
		return -1;
	/* the kernels its source arms were built to when it was resolved, never a new build */
	if (store_arm_builds(sl->store, sl->matrix, m, NULL, err) < 0 ||
	    spec_resolve(m, sl->sc->c, NULL, NULL, err) < 0) {
		spec_release(m);
		return -1;
	}
	return 0;
}

/*
 * A runner for the slot's block: its store, host, accel, and vCPUs pinned
 * from the slot's own first CPU when pinning is on and this host has them.
 */
static void runner_init(struct slot *sl, struct runner *r, struct vm_conn *vm,
			const struct matrix *m)
{
	const struct conf *c = sl->sc->c;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t first = (uint64_t)sl->nth * m->vcpus;
	char err[ERR_MAX];

	memset(r, 0, sizeof(*r));
	r->conf = c;
	r->store = sl->store;
	r->vm = vm;
	r->accel = host_accel(sl->h, c, m);
	if (fmtbuf(r->host, sizeof(r->host), "%s", host_name(sl->h)) < 0)
		r->host[0] = '\0';     /* cannot be: the assertion below */
	/* this machine's cores only: another host's are not ours to count */
	r->first_cpu = c->pin && vm_is_local(vm) && cpus > 0 && first + m->vcpus <= (uint64_t)cpus ?
		(int)first : -1;
	r->slot = (int)sl->nth;
	r->should_stop = should_stop;
	r->stop_arg = sl;
	if (runner_check_images(c, m, err) < 0)
		hlog("slot %u: %s", sl->index, err);
}
/* a host's name (under CONF_HOST_NAME_MAX bytes) fits its runs' records */
_Static_assert(sizeof(((struct runner *)0)->host) >= CONF_HOST_NAME_MAX,
	       "a run's host holds a host's name");

/*
 * The host went away during a block: the runs it did and was doing end
 * interrupted and go back to the queue, the block to be run whole by a host
 * that is there (its pairs never mix hosts); this one is down until it answers.
 */
static void block_lost(struct slot *sl, const struct run_ref *ref, const char *why)
{
	char err[ERR_MAX], reason[ERR_MAX + 96];
	unsigned n = 0;

	fmtcut(reason, sizeof(reason), "host %s lost during its block (%s); the block runs "
		 "again whole", host_name(sl->h), why);
	host_lost(sl->h, why);
	if (store_requeue_block(sl->store, ref->id, host_name(sl->h), reason, &n, err) < 0) {
		hlog("slot %u: %s", sl->index, err);
		return;
	}
	hlog("slot %u: host %s lost during block %u of matrix %lld: %u run%s queued again",
	     sl->index, host_name(sl->h), ref->block, (long long)sl->matrix, n, n == 1 ? "" : "s");
}

/* Run a claimed block back to back, as long as its matrix stays active. */
static void run_block(struct slot *sl, struct vm_conn *vm, struct run_ref *refs, size_t n)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	struct runner r;
	char err[ERR_MAX], state[16];
	int64_t run;
	size_t i;
	int rc;

	if (!m || load_matrix(sl, m, err) < 0) {
		hlog("slot %u: %s; its block is given back and the matrix paused",
		     sl->index, m ? err : "out of memory");
		store_set_matrix_state(sl->store, sl->matrix, "paused", err);
		return;
	}
	runner_init(sl, &r, vm, m);
	for (i = 0; i < n && !atomic_load(&sl->sc->stop) && !queue_paused(sl->sc); i++) {
		if (store_matrix_state(sl->store, sl->matrix, state, err) < 0 ||
		    strcmp(state, "active"))
			break;
		rc = run_one(sl, &r, m, refs[i], &run, err);
		if (rc == 1) {
			block_lost(sl, &refs[i], err);
			break;
		}
		if (rc < 0) {
			pause_queue(sl, run, err);
			break;
		}
	}
	spec_release(m);
}

/* The build gate's word to a slot (it waits for a compile elsewhere): logged. */
static void slot_tell(void *arg, const char *line)
{
	struct slot *sl = arg;

	hlog("slot %u: %s", sl->index, line);
}

/*
 * A slot's thread: until stop, claim a block of this host's archs (unless
 * the queue is paused or the host drained or down), run it between the
 * build gate's begin and end, then release the claim.
 */
static void *slot_main(void *arg)
{
	struct slot *sl = arg;
	struct run_ref *refs;
	struct vm_conn *vm;
	char err[ERR_MAX], archs[64];
	size_t n;

	if (store_open_results(sl->sc->c->results, &sl->store, err) < 0) {
		hlog("slot %u: %s", sl->index, err);
		return NULL;
	}
	unsigned seen;

	while (!atomic_load(&sl->sc->stop)) {
		seen = wake_seen();
		if (sl->stuck && unpause(sl) < 0) {
			for (n = 0; n < RETRY_S && !atomic_load(&sl->sc->stop); n++)
				sleep(1);
			continue;
		}
		if (queue_paused(sl->sc)) {
			wake_wait(&seen, IDLE_MS);
			continue;
		}
		finish_matrices(sl);
		/* a drained host, or one that is down until its next retry, claims nothing */
		if (!(vm = host_acquire(sl->h))) {
			wake_wait(&seen, IDLE_MS);
			continue;
		}
		host_archs(sl->h, archs, sizeof(archs));
		if (store_claim_block(sl->store, (int)sl->index, archs, &sl->matrix, &refs, &n,
				      err) < 0) {
			hlog("slot %u: %s", sl->index, err);
			n = 0;
		}
		if (n && buildgate_block_begin(sl->sc->gate, &sl->gate_lock, &sl->sc->stop,
					       slot_tell, sl) == 0) {
			hlog("slot %u: block of matrix %lld begins on %s (%zu runs)", sl->index,
			     (long long)sl->matrix, host_name(sl->h), n);
			host_busy(sl->h, 1);
			run_block(sl, vm, refs, n);
			host_busy(sl->h, -1);
			hlog("slot %u: block of matrix %lld ends", sl->index, (long long)sl->matrix);
			buildgate_block_end(sl->sc->gate, &sl->gate_lock);
		} else if (!atomic_load(&sl->sc->stop)) {
			/* nothing to claim, or the gate refused (it said why): wait, not spin */
			wake_wait(&seen, IDLE_MS);
		}
		free(n ? refs : NULL);
		if (store_unclaim(sl->store, (int)sl->index, err) < 0)
			hlog("slot %u: %s", sl->index, err);
	}
	store_close(sl->store);
	return NULL;
}

/* The slots of every host, numbered across them; each host's from 0 for pinning. */
static int start_slots(struct sched *sc, char *err)
{
	unsigned i, k, n;
	struct host *h;

	for (i = 0; i < hosts_count(sc->hosts); i++) {
		h = hosts_at(sc->hosts, i);
		n = host_slots(h, sc->c);
		for (k = 0; k < n && sc->nslots < MAX_SLOTS; k++) {
			struct slot *sl = &sc->slots[sc->nslots];

			sl->sc = sc;
			sl->h = h;
			sl->index = sc->nslots;
			sl->nth = k;
			if (buildlock_open(&sl->gate_lock, sc->c->results, "harnessd", err) < 0)
				return -1;
			if (pthread_create(&sl->th, NULL, slot_main, sl) != 0) {
				buildlock_close(&sl->gate_lock);
				return errorf(err, "cannot start guest slot %u", sc->nslots);
			}
			sc->nslots++;
		}
		hlog("host %s: %u guest slot%s", host_name(h), n, n == 1 ? "" : "s");
	}
	return 0;
}

int sched_start(const struct conf *c, const char *log_path, struct buildgate *gate,
		struct sched **ret, char *err)
{
	struct sched *sc = calloc(1, sizeof(*sc));
	struct store *s = NULL;

	if (!sc)
		return errorf(err, "out of memory");
	sc->c = c;
	sc->gate = gate;
	pthread_mutex_init(&sc->lock, NULL);
	pthread_mutex_init(&sc->pause_lock, NULL);
	if (store_open_results(c->results, &s, err) < 0 ||
	    hosts_open(c, log_path, s, &sc->hosts, err) < 0 || hosts_connect_local(sc->hosts, err) < 0 ||
	    start_slots(sc, err) < 0) {
		store_close(s);
		sched_stop(sc);
		return -1;
	}
	store_close(s);
	hlog("%u guest slot%s, %llu vCPUs and %llu MiB each unless a matrix says otherwise",
	     sc->nslots, sc->nslots == 1 ? "" : "s", (unsigned long long)c->vcpus,
	     (unsigned long long)c->memory_mib);
	*ret = sc;
	return 0;
}

void sched_stop(struct sched *sc)
{
	unsigned i;

	if (!sc)
		return;
	atomic_store(&sc->stop, 1);
	for (i = 0; i < sc->nslots; i++) {
		pthread_join(sc->slots[i].th, NULL);
		buildlock_close(&sc->slots[i].gate_lock);
	}
	hosts_close(sc->hosts);
	pthread_mutex_destroy(&sc->lock);
	pthread_mutex_destroy(&sc->pause_lock);
	free(sc);
}

json_t *sched_hosts_json(struct sched *sc, struct store *s)
{
	return hosts_json(sc->hosts, s, sc->c);
}

int sched_host_drain(struct sched *sc, struct store *s, const char *name, int on, char *err)
{
	int rc = hosts_drain(sc->hosts, s, name, on, err);

	wake_all();
	return rc;
}
