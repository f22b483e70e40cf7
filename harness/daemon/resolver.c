/* resolver.c -- the daemon's resolver thread: one matrix at a time from
 * "resolving" to "resolved" or "unresolved", progress in the log and store. */
#include "daemon/resolver.h"
#include "base/err.h"
#include "base/proc.h"
#include "daemon/buildgate.h"
#include "daemon/log.h"
#include "daemon/worker.h"
#include "spec/spec.h"
#include "store/store.h"

#include <string.h>

#define IDLE_MS 500              /* the store is asked this often when nothing waits */

struct resolver {
	const struct conf *c;
	struct buildgate *gate;
	struct buildlock gate_lock;  /* its compiles' place in the build gate across processes */
	struct worker w;             /* its thread, and its own store connection */
};

/* The matrix being resolved, for its progress lines. */
struct job {
	struct resolver *r;
	int64_t mid;
};

/* A resolving step's line: to the log and as the matrix's resolve_msg. */
static void progress(void *arg, const char *line)
{
	struct job *j = arg;
	char err[ERR_MAX];

	hlog("matrix %lld: resolving: %s", (long long)j->mid, line);
	if (store_set_resolve(j->r->w.store, j->mid, "resolving", "resolving", line, err) < 0)
		hlog("matrix %lld: %s", (long long)j->mid, err);
}

/* Around a compile: logged, and kept apart from measured runs. */
static int gate(void *arg, int busy, char *err)
{
	struct job *j = arg;

	if (busy)
		hlog("matrix %lld: a kernel compile waits for the blocks in flight; no block "
		     "starts now", (long long)j->mid);
	if (buildgate_build(j->r->gate, &j->r->gate_lock, busy, progress, j, err) < 0)
		return -1;
	hlog(busy ? "matrix %lld: compiling, no block in flight" :
	     "matrix %lld: compile ended, blocks may start", (long long)j->mid);
	return 0;
}

/*
 * Parse the stored spec again and resolve it; -1 with why in err: "field:
 * message", spec's "LABEL: " taken off (the matrix is named already).
 */
static int resolve(struct resolver *r, int64_t mid, struct matrix *m, char *err)
{
	_cleanup_free_ char *text = NULL;
	char base_dir[PATH_MAX], label[64], msg[ERR_MAX];
	struct job j = { r, mid };
	size_t n;

	n = (size_t)snprintf(label, sizeof(label), "matrix %lld", (long long)mid);
	if (store_matrix_spec(r->w.store, mid, &text, base_dir, err) < 0)
		return -1;
	if (spec_parse(m, text, label, base_dir, r->c, msg) == 0 &&
	    spec_resolve_gated(m, r->c, progress, gate, &j, msg) == 0)
		return 0;
	return errorf(err, "%s", strncmp(msg, label, n) || strncmp(msg + n, ": ", 2) ? msg :
		      msg + n + 2);
}

/* One matrix: resolved, or unresolved with the reason; -1 if the store failed. */
static int resolve_one(struct resolver *r, int64_t mid, char *err)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	char why[ERR_MAX];
	int rc;

	if (!m)
		return errorf(err, "out of memory");
	if (resolve(r, mid, m, why) < 0) {
		hlog("matrix %lld: unresolved, none of its runs will start: %s", (long long)mid,
		     why);
		rc = store_set_resolve(r->w.store, mid, "resolving", "unresolved", why, err);
	} else {
		hlog("matrix %lld: resolved; its runs may start", (long long)mid);
		for (unsigned i = 0; i < m->n_arms; i++)
			if (m->arms[i].failed[0])
				hlog("matrix %lld: arm failed, its runs are skipped: %s",
				     (long long)mid, m->arms[i].failed);
		rc = store_resolved(r->w.store, mid, m, err);
	}
	spec_release(m);
	return rc;
}

static int resolve_next(void *arg, int64_t mid, char *err)
{
	return resolve_one(arg, mid, err);
}

int resolver_start(const struct conf *c, struct buildgate *gate, struct resolver **ret,
		   char *err)
{
	struct resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return errorf(err, "out of memory");
	r->c = c;
	r->gate = gate;
	if (buildlock_open(&r->gate_lock, c->results, "harnessd", err) < 0) {
		free(r);
		return -1;
	}
	r->w = (struct worker){ .name = "resolver", .next = store_next_resolving,
				.one = resolve_next, .arg = r, .idle_ms = IDLE_MS };
	if (worker_start(c, &r->w, err) < 0) {
		buildlock_close(&r->gate_lock);
		free(r);
		return -1;
	}
	*ret = r;
	return 0;
}

void resolver_stop(struct resolver *r)
{
	if (!r)
		return;
	worker_stop(&r->w);
	buildlock_close(&r->gate_lock);
	free(r);
}
