/* bisector.c -- the daemon's bisection thread: one bisection at a time, its
 * steps queued as matrices and waited for, its progress and result stored. */
#include "daemon/bisector.h"
#include "analysis/bisect_matrix.h"
#include "base/err.h"
#include "daemon/buildgate.h"
#include "daemon/log.h"
#include "daemon/queue.h"
#include "daemon/worker.h"
#include "store/store.h"
#include "store/store_bisect.h"
#include "common/fmt.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IDLE_MS 1000             /* the store is asked this often for a bisection, or a step */

struct bisector {
	const struct conf *c;
	struct buildgate *gate;
	struct buildlock gate_lock;  /* its compiles' place in the build gate across processes */
	struct worker w;             /* its thread, and its own store connection */
};

/* The bisection in hand, for its hooks. */
struct job {
	struct bisector *b;
	int64_t id;
};

/* A bisection's line of progress: to the log and as its stored progress. */
static void tell(void *arg, const char *line)
{
	struct job *j = arg;
	char err[ERR_MAX];

	hlog("bisection %lld: %s", (long long)j->id, line);
	if (store_bisection_progress(j->b->w.store, j->id, line, err) < 0)
		hlog("bisection %lld: %s", (long long)j->id, err);
}

/* A build's line, told as the bisection's progress. */
static void progress(void *arg, const char *line)
{
	struct job *j = arg;
	char msg[ERR_MAX];

	fmtcut(msg, sizeof(msg), "building: %s", line);
	tell(j, msg);
}

/* Around a compile, as the resolver's: no block in flight meanwhile. */
static int gate(void *arg, int busy, char *err)
{
	struct job *j = arg;

	if (buildgate_build(j->b->gate, &j->b->gate_lock, busy, tell, j, err) < 0)
		return -1;
	hlog(busy ? "bisection %lld: compiling, no block in flight" :
	     "bisection %lld: compile ended, blocks may start", (long long)j->id);
	return 0;
}

/* Until matrix mid is finished: 0; -1 if it cannot be (unresolved, cancelled) or we stop. */
static int wait_finished(struct job *j, int64_t mid, const char *label, char *err)
{
	char key[24];
	json_t *m = NULL;
	const char *state, *resolve;
	int rc;

	if (fmtbuf(key, sizeof(key), "%lld", (long long)mid) < 0)
		return errorf(err, "matrix %lld: its key over %zu bytes", (long long)mid,
			      sizeof(key) - 1);
	for (;;) {
		if (atomic_load(&j->b->w.stop))
			return errorf(err, "harnessd is stopping");
		if (queue_matrix(j->b->w.store, j->b->c, key, &m, err) < 0)
			return -1;
		state = json_string_value(json_object_get(m, "state"));
		resolve = json_string_value(json_object_get(m, "resolve"));
		rc = !strcmp(state ? state : "", "finished") ? 0 :
		     !strcmp(state ? state : "", "cancelled") ?
		     errorf(err, "%s: matrix %s was cancelled", label, key) :
		     !strcmp(resolve ? resolve : "", "unresolved") ?
		     errorf(err, "%s: %.400s", label,
			    json_string_value(json_object_get(m, "resolve_msg")) ?: "unresolved") : 1;
		json_decref(m);
		if (rc <= 0)
			return rc;
		usleep(IDLE_MS * 1000);
	}
}

/*
 * The bisection's step matrix queued like any submission, then waited for
 * until it finishes; its id in *ret_mid.
 */
static int run_step(void *arg, const char *text, const char *label, const char *base_dir,
		    int64_t *ret_mid, char *err)
{
	struct job *j = arg;
	json_t *res = NULL;

	if (queue_submit(j->b->w.store, j->b->c, text, base_dir, &res, err) < 0)
		return -1;
	*ret_mid = json_integer_value(json_object_get(res, "matrix"));
	hlog("bisection %lld: %s is matrix %lld, %lld runs added", (long long)j->id, label,
	     (long long)*ret_mid, (long long)json_integer_value(json_object_get(res, "runs")));
	json_decref(res);
	return wait_finished(j, *ret_mid, label, err);
}

/* The result as the store keeps it: JSON, and the table as harness bisect prints it. */
static int keep(struct job *j, struct bisect_matrix *x, const struct bisect_result *r,
		char *err)
{
	_cleanup_free_ char *json = NULL, *table = NULL;
	json_t *o = bisect_matrix_json(x, r);
	size_t len = 0;
	FILE *f;

	json = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!json || !(f = open_memstream(&table, &len)))
		return errorf(err, "out of memory");
	bisect_matrix_print(f, x, r);
	if (fclose(f) != 0)
		return errorf(err, "out of memory");
	return store_bisection_end(j->b->w.store, j->id, "done", r->why, json, table, err);
}

/*
 * Bisection id run to its end: done with its result, or failed with why; a
 * daemon stopping leaves it running, to go on at the next start.
 */
static int bisect_one(struct bisector *b, int64_t id, char *err)
{
	struct job j = { b, id };
	struct bisect_hooks hooks = { .run_step = run_step, .progress = progress, .gate = gate,
				      .tell = tell, .arg = &j };
	_cleanup_free_ struct bisect_result *r = calloc(1, sizeof(*r));
	struct bisect_matrix *x = NULL;
	struct bisection row;
	char key[24], why[ERR_MAX];
	int rc;

	if (!r || store_bisection_get(b->w.store, id, &row, err) < 0)
		return r ? -1 : errorf(err, "out of memory");
	if (fmtbuf(key, sizeof(key), "%lld", (long long)row.matrix_id) < 0)
		return errorf(err, "bisection %lld: its matrix's key over %zu bytes",
			      (long long)id, sizeof(key) - 1);
	struct bisect_request rq = { .matrix = key, .cell = row.cell, .metric = row.metric,
				     .good = row.good, .bad = row.bad, .max_blocks = row.max_blocks,
				     .max_runs = row.max_runs, .max_hours = row.max_hours };
	hlog("bisection %lld: matrix %s, cell %s, %s: %s -> %s", (long long)id, key, row.cell,
	     row.metric, row.good, row.bad);
	rc = bisect_matrix_open(b->c, &rq, &hooks, &x, why);
	if (rc == 0)
		rc = bisect_matrix_run(x, r, why);
	if (rc == 0)
		rc = keep(&j, x, r, err);
	else if (!atomic_load(&b->w.stop))
		rc = store_bisection_end(b->w.store, id, "failed", why, NULL, NULL, err);
	else    /* the worker logs err: said here, it would log the last job's line */
		rc = errorf(err, "bisection %lld: stopped (%s); it goes on at the next start",
			    (long long)id, why);
	if (rc == 0 && !atomic_load(&b->w.stop))
		hlog("bisection %lld: %s", (long long)id, r->n_steps ? r->why : why);
	bisect_release(r);
	bisect_matrix_close(x);
	store_bisection_free(&row);
	return rc;
}

static int bisect_next(void *arg, int64_t id, char *err)
{
	return bisect_one(arg, id, err);
}

int bisector_start(const struct conf *c, struct buildgate *gate, struct bisector **ret,
		   char *err)
{
	struct bisector *b = calloc(1, sizeof(*b));

	if (!b)
		return errorf(err, "out of memory");
	b->c = c;
	b->gate = gate;
	if (buildlock_open(&b->gate_lock, c->results, "harnessd", err) < 0) {
		free(b);
		return -1;
	}
	b->w = (struct worker){ .name = "bisector", .next = store_bisection_next,
				.one = bisect_next, .arg = b, .idle_ms = IDLE_MS };
	if (worker_start(c, &b->w, err) < 0) {
		buildlock_close(&b->gate_lock);
		free(b);
		return -1;
	}
	*ret = b;
	return 0;
}

void bisector_stop(struct bisector *b)
{
	if (!b)
		return;
	worker_stop(&b->w);
	buildlock_close(&b->gate_lock);
	free(b);
}
