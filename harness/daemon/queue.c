/* queue.c -- the daemon's queue behind the API: matrices validated and queued
 * (or appended to), listed with progress and ETA, controlled, followed. */
#include "daemon/queue.h"
#include "vm/vm.h"
#include "analysis/bisect_matrix.h"
#include "analysis/calibrate.h"
#include "base/err.h"
#include "base/proc.h"
#include "spec/spec.h"
#include "store/store_bisect.h"
#include "store/store_extend.h"
#include "store/store_queue.h"
#include "common/fmt.h"

#include <string.h>
#include <unistd.h>

static const char *const statuses[] = {
	"queued", "booting", "running", "done", "failed", "crashed", "timeout", "interrupted",
	"unsupported", "cancelled", "oom", NULL,
};

unsigned queue_slots(const struct conf *c)
{
	const struct conf_host *h;
	struct conf_host one;
	unsigned n = conf_hosts(c, &one, &h), i, slots = 0;

	for (i = 0; i < n; i++)
		slots += h[i].slots ? (unsigned)h[i].slots : queue_guests(c);
	return slots ? slots : 1;
}

unsigned queue_guests(const struct conf *c)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n;

	if (c->guests)
		return (unsigned)c->guests;
	n = cpus > 0 ? (unsigned)((uint64_t)cpus / (c->vcpus ? c->vcpus : 1)) : 1;
	return n ? n : 1;
}

/* ---- submit ---- */

/*
 * A spec sent again after resolving it failed is resolved again (a download
 * may work now); resolve: its matrix's state then.
 */
static int resolve_again(struct store *s, int64_t mid, char resolve[16], char *err)
{
	if (store_set_resolve(s, mid, "unresolved", "resolving", NULL, err) < 0)
		return -1;
	return store_matrix_resolve(s, mid, resolve, err);
}

/* calibrate_advice's lines: "noise" and "warnings", arrays of strings. */
static void noise_line(void *arg, int warning, const char *line)
{
	json_t *res = arg;

	json_array_append_new(json_object_get(res, warning ? "warnings" : "noise"),
			      json_string(line));
}

/*
 * What this host's calibrations say of the matrix's blocks (an effect of
 * CALIBRATE_EFFECT), into res; the matrix is queued whatever they say.
 */
static int add_noise(struct store *s, const struct matrix *m, json_t *res, char *err)
{
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	if (json_object_set_new(res, "noise", json_array()) < 0 ||
	    json_object_set_new(res, "warnings", json_array()) < 0)
		return errorf(err, "out of memory");
	return calibrate_advice(s, m, host, CALIBRATE_EFFECT, noise_line, res, err);
}

/*
 * Some host must run each arch the matrix has cells of: by its arch= list,
 * the embedded driver by this machine's, another host without a list by
 * whatever libvirt there says (not known before it is asked: accepted).
 */
static int hosts_run(const struct conf *c, const struct matrix *m, char *err)
{
	const struct conf_host *h;
	struct conf_host one;
	unsigned n = conf_hosts(c, &one, &h), i, k;
	const char *archs;
	size_t len;

	for (k = 0; k < m->n_archs; k++) {
		len = strlen(m->archs[k]);
		for (i = 0; i < n; i++) {
			archs = h[i].archs[0] ? h[i].archs : h[i].uri[0] ? m->archs[k] : vm_host_arch();
			/* a word of the space-separated list */
			for (; *archs; archs += strcspn(archs, " "), archs += *archs == ' ')
				if (strcspn(archs, " ") == len && !strncmp(archs, m->archs[k], len))
					break;
			if (*archs)
				break;
		}
		if (i == n)
			return errorf(err, "matrix: arch '%s': no host in harness.conf runs %s guests "
				      "(a host line's arch=)", m->archs[k], m->archs[k]);
	}
	return 0;
}

int queue_submit(struct store *s, const struct conf *c, const char *text, const char *base_dir,
		 json_t **ret, char *err)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	char resolve[16] = "resolving";   /* a new matrix: the resolver's next */
	int64_t mid = 0;
	size_t n = 0;
	int appended = 0, rc = -1;

	if (!m)
		return errorf(err, "out of memory");
	if (base_dir[0] != '/')
		return errorf(err, "base_dir: expected an absolute path");
	/* parsed only: the resolver fetches, builds and checks it (resolver.c) */
	if (spec_parse(m, text, "matrix", base_dir, c, err) < 0)
		return -1;
	if (hosts_run(c, m, err) < 0)
		goto out;
	if (store_queue_matrix(s, m, &mid, &n, &appended, err) < 0 ||
	    (appended && resolve_again(s, mid, resolve, err) < 0))
		goto out;
	*ret = json_pack("{s:I, s:s, s:I, s:b, s:s}", "matrix", (json_int_t)mid, "name", m->name,
			 "runs", (json_int_t)n, "appended", appended, "resolve", resolve);
	if (!*ret)
		rc = errorf(err, "out of memory");
	else
		rc = add_noise(s, m, *ret, err);
out:
	spec_release(m);
	return rc;
}

/* ---- reading ---- */

/* {"HOST": {"STATUS": n, ...}, ...}: what each host did of the matrix, every attempt. */
static int add_hosts(struct store *s, json_t *mx, int64_t id, char *err)
{
	json_t *rows = NULL, *hosts = json_object(), *r, *h;
	const char *name;
	size_t i;

	if (!hosts || store_list(s, STORE_LIST_HOST_COUNTS, &id, &rows, err) < 0) {
		json_decref(hosts);
		return hosts ? -1 : errorf(err, "out of memory");
	}
	json_array_foreach(rows, i, r) {
		name = json_string_value(json_object_get(r, "host"));
		if (!name)
			continue;
		h = json_object_get(hosts, name);
		if (!h) {
			h = json_object();
			json_object_set_new(hosts, name, h);
		}
		json_object_set(h, json_string_value(json_object_get(r, "status")),
				json_object_get(r, "n"));
	}
	json_decref(rows);
	json_object_set_new(mx, "hosts", hosts);
	return 0;
}

/* Per-status counts of one matrix, and its ETA over every host's slots. */
static int add_progress(struct store *s, const struct conf *c, json_t *mx, char *err)
{
	json_t *rows = NULL, *runs = json_object(), *r;
	int64_t id = json_integer_value(json_object_get(mx, "id")), total = 0, left = 0, n;
	const char *const *st;
	double mean;
	size_t i;

	if (!runs)
		return errorf(err, "out of memory");
	if (store_list(s, STORE_LIST_RUN_COUNTS, &id, &rows, err) < 0) {
		json_decref(runs);
		return -1;
	}
	for (st = statuses; *st; st++)
		json_object_set_new(runs, *st, json_integer(0));
	json_array_foreach(rows, i, r) {
		n = json_integer_value(json_object_get(r, "n"));
		json_object_set_new(runs, json_string_value(json_object_get(r, "status")),
				    json_integer(n));
		total += n;
	}
	json_decref(rows);
	json_object_set_new(runs, "total", json_integer(total));
	if (add_hosts(s, mx, id, err) < 0) {
		json_decref(runs);
		return -1;
	}
	for (st = statuses; st < statuses + 3; st++)   /* queued, booting, running */
		left += json_integer_value(json_object_get(runs, *st));
	json_object_set_new(mx, "runs", runs);
	r = json_object_get(mx, "mean_run_s");
	mean = json_is_number(r) ? json_number_value(r) : -1;
	json_object_set_new(mx, "eta_s", mean < 0 || !strcmp(json_string_value(
				    json_object_get(mx, "state")), "paused") ||
			    strcmp(json_string_value(json_object_get(mx, "resolve")), "resolved") ?
			    json_null() : json_real(mean * (double)left / queue_slots(c)));
	return 0;
}

/* Matrices of listing which (?1 = key), each with its progress. */
static int list_matrices(struct store *s, const struct conf *c, enum store_listing which,
			 int64_t key, json_t **ret, char *err)
{
	json_t *arr = NULL, *mx;
	size_t i;

	if (store_list(s, which, &key, &arr, err) < 0)
		return -1;
	json_array_foreach(arr, i, mx)
		if (add_progress(s, c, mx, err) < 0)
			goto fail;
	*ret = arr;
	return 0;
fail:
	json_decref(arr);
	return -1;
}

int queue_list(struct store *s, const struct conf *c, json_t **ret, char *err)
{
	return list_matrices(s, c, STORE_LIST_MATRICES, 0, ret, err);
}

/* Resolve an id or a name (the newest of that name) to an id; 0 if none. */
static int64_t find(struct store *s, const char *key, char *err)
{
	int64_t id = 0;

	if (store_find_matrix(s, key, &id, err) < 0)
		return 0;
	return id;
}

int queue_matrix(struct store *s, const struct conf *c, const char *key, json_t **ret,
		 char *err)
{
	json_t *arr = NULL, *mx, *part = NULL;
	int64_t id = find(s, key, err);

	if (!id)
		return -1;
	if (list_matrices(s, c, STORE_LIST_MATRIX, id, &arr, err) < 0)
		return -1;
	mx = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	if (!mx)
		return errorf(err, "no matrix with id or name '%s'", key);
	if (store_list(s, STORE_LIST_ARMS, &id, &part, err) < 0)
		goto fail;
	json_object_set_new(mx, "arms", part);
	if (store_list(s, STORE_LIST_CELLS, &id, &part, err) < 0)
		goto fail;
	json_object_set_new(mx, "cells", part);
	if (store_list(s, STORE_LIST_RUNS, &id, &part, err) < 0)
		goto fail;
	json_object_set_new(mx, "runs_list", part);
	*ret = mx;
	return 0;
fail:
	json_decref(mx);
	return -1;
}

int queue_control(struct store *s, const char *key, const char *action, int *ret_http,
		  char *err)
{
	int64_t id = find(s, key, err);
	char state[16];

	*ret_http = 404;
	if (!id || store_matrix_state(s, id, state, err) < 0)
		return -1;
	*ret_http = 409;
	if (!strcmp(state, "cancelled") || !strcmp(state, "finished"))
		return errorf(err, "matrix %lld is %s", (long long)id, state);
	static const struct { const char *action, *state; } to[] = {
		{ "cancel", "cancelled" }, { "pause", "paused" }, { "resume", "active" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(to); i++) {
		if (strcmp(action, to[i].action))
			continue;
		*ret_http = 500;
		if (store_set_matrix_state(s, id, to[i].state, err) < 0)
			return -1;
		*ret_http = 200;
		return 0;
	}
	*ret_http = 400;
	return errorf(err, "unknown action '%s' (cancel, pause or resume)", action);
}

/* ---- samples ---- */

/*
 * The sample of samples (in seq order, not necessarily dense: an agent may
 * skip a seq) whose seq is seq, or NULL.
 */
static json_t *sample_of(json_t *samples, json_int_t seq)
{
	size_t lo = 0, hi = json_array_size(samples), mid;
	json_int_t at;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		at = json_integer_value(json_object_get(json_array_get(samples, mid), "seq"));
		if (at == seq)
			return json_array_get(samples, mid);
		if (at < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Attach each sample's per-file residency, per-stream numbers and the
 * guest's page size (page, JSON null before its hello), which turns the
 * residency into bytes.
 */
static int attach(struct store *s, int64_t run, json_t *samples, json_t *page, char *err)
{
	json_t *rows = NULL, *x, *smp;
	size_t i;

	if (json_array_size(samples) == 0)
		return 0;
	if (store_list(s, STORE_LIST_SAMPLE_PARTS, &run, &rows, err) < 0)
		return -1;
	json_array_foreach(samples, i, smp) {
		json_object_set_new(smp, "resident", json_array());
		json_object_set_new(smp, "streams", json_array());
		json_object_set(smp, "page_size", page ? page : json_null());
	}
	json_array_foreach(rows, i, x) {
		smp = sample_of(samples, json_integer_value(json_object_get(x, "seq")));
		if (!smp)
			continue;
		if (!strcmp(json_string_value(json_object_get(x, "k")), "f"))
			json_array_append(json_object_get(smp, "resident"), json_object_get(x, "v"));
		else
			json_array_append_new(json_object_get(smp, "streams"),
					      json_pack("{s:O, s:O, s:O, s:O}", "stream",
							json_object_get(x, "i"), "ops", json_object_get(x, "v"),
							"reads", json_object_get(x, "r"),
							"misses", json_object_get(x, "o")));
	}
	json_decref(rows);
	return 0;
}

/* The "name" of each row of listing which (?1 = run), as an array of names. */
static int names(struct store *s, enum store_listing which, int64_t run, json_t **ret,
		 char *err)
{
	json_t *rows = NULL, *out = json_array(), *x;
	size_t i;

	if (!out)
		return errorf(err, "out of memory");
	if (store_list(s, which, &run, &rows, err) < 0) {
		json_decref(out);
		return -1;
	}
	json_array_foreach(rows, i, x)
		json_array_append(out, json_object_get(x, "name"));
	json_decref(rows);
	*ret = out;
	return 0;
}

int queue_samples(struct store *s, int64_t run, int64_t after, unsigned max, json_t **ret,
		  char *err)
{
	int64_t params[3] = { run, after, max ? max : 1 };
	json_t *status = NULL, *samples = NULL, *files = NULL, *streams = NULL, *st;
	const char *stv;

	if (store_list(s, STORE_LIST_RUN_STATUS, &run, &status, err) < 0)
		goto fail;
	st = json_array_get(status, 0);
	if (!st) {
		errorf(err, "no run %lld", (long long)run);
		goto fail;
	}
	if (store_list(s, STORE_LIST_SAMPLES, params, &samples, err) < 0 ||
	    attach(s, run, samples, json_object_get(st, "page_size"), err) < 0 ||
	    names(s, STORE_LIST_FILE_NAMES, run, &files, err) < 0 ||
	    names(s, STORE_LIST_STREAM_NAMES, run, &streams, err) < 0)
		goto fail;
	stv = json_string_value(json_object_get(st, "status"));
	*ret = json_pack("{s:I, s:s, s:b, s:o, s:o, s:o}", "run", (json_int_t)run, "status", stv,
			 "finished", strcmp(stv, "queued") && strcmp(stv, "booting") &&
			 strcmp(stv, "running"), "samples", samples, "files", files,
			 "streams", streams);
	json_decref(status);
	return *ret ? 0 : errorf(err, "out of memory");
fail:
	json_decref(samples);
	json_decref(status);
	json_decref(files);
	json_decref(streams);
	return -1;
}

int queue_health(struct store *s, const struct conf *c, const char *paused, json_t **ret,
		 char *err)
{
	int64_t matrices = 0, queued = 0, running = 0;

	if (store_queue_counts(s, &matrices, &queued, &running, err) < 0)
		return -1;
	*ret = json_pack("{s:b, s:i, s:i, s:I, s:I, s:I, s:o}", "ok", 1, "version", PROTO_VERSION,
			 "guests", (int)queue_guests(c), "matrices", (json_int_t)matrices,
			 "queued", (json_int_t)queued, "running", (json_int_t)running, "paused",
			 paused && paused[0] ? json_string(paused) : json_null());
	return *ret ? 0 : errorf(err, "out of memory");
}

/* ---- bisections ---- */

/* The body {"cell", "metric", "good", "bad", "max_blocks", "max_runs", "max_hours"}. */
static int bisect_body(json_t *body, struct bisect_request *rq, char *err)
{
	static const char *const strs[] = { "cell", "metric", "good", "bad" };
	const char **dst[] = { &rq->cell, &rq->metric, &rq->good, &rq->bad };
	json_t *v;
	const char *k;
	size_t i;

	if (!json_is_object(body))
		return errorf(err, "expected an object {\"cell\", \"metric\", \"good\", \"bad\", "
			      "\"max_blocks\", \"max_runs\", \"max_hours\"}");
	json_object_foreach(body, k, v) {
		int known = !strcmp(k, "max_blocks") || !strcmp(k, "max_runs") ||
			    !strcmp(k, "max_hours");
		for (i = 0; i < ARRAY_SIZE(strs); i++)
			known |= !strcmp(k, strs[i]);
		if (!known)
			return errorf(err, "unknown key '%.64s' (expected cell, metric, good, bad, "
				      "max_blocks, max_runs, max_hours)", k);
	}
	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		v = json_object_get(body, strs[i]);
		if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
			return errorf(err, "\"%s\": expected a name", strs[i]);
		*dst[i] = json_string_value(v);
	}
	v = json_object_get(body, "max_blocks");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 100000))
		return errorf(err, "\"max_blocks\": expected a whole number (0: the default)");
	rq->max_blocks = (unsigned)json_integer_value(v);
	v = json_object_get(body, "max_runs");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 0 ||
		  json_integer_value(v) > 10000000))
		return errorf(err, "\"max_runs\": expected a whole number (0: no limit)");
	rq->max_runs = (unsigned)json_integer_value(v);
	v = json_object_get(body, "max_hours");
	if (v && !json_is_number(v))
		return errorf(err, "\"max_hours\": expected hours (0: no limit)");
	rq->max_hours = v ? json_number_value(v) : 0;
	return 0;
}

int queue_bisect(struct store *s, const struct conf *c, const char *key, json_t *body,
		 json_t **ret, int *ret_http, char *err)
{
	struct bisect_hooks none = { 0 };
	struct bisect_request rq = { .matrix = key };
	struct bisect_matrix *x = NULL;
	struct bisection b = { 0 };
	int64_t id;
	int existing, rc;

	*ret_http = 400;
	if (bisect_body(body, &rq, err) < 0)
		return -1;
	if (bisect_matrix_open(c, &rq, &none, &x, err) < 0) {
		if (strstr(err, "no matrix") || strstr(err, "no such matrix"))
			*ret_http = 404;
		return -1;
	}
	b.matrix_id = bisect_matrix_id(x);
	if (fmtbuf(b.cell, sizeof(b.cell), "%s", rq.cell) < 0 ||
	    fmtbuf(b.metric, sizeof(b.metric), "%s", bisect_matrix_metric(x)) < 0 ||
	    fmtbuf(b.good, sizeof(b.good), "%s", rq.good) < 0 ||
	    fmtbuf(b.bad, sizeof(b.bad), "%s", rq.bad) < 0) {
		bisect_matrix_close(x);
		return errorf(err, "cell '%.64s', metric or arms '%.40s' -> '%.40s': a name too "
			      "long to keep", rq.cell, rq.good, rq.bad);
	}
	b.max_blocks = rq.max_blocks;
	b.max_runs = rq.max_runs;
	b.max_hours = rq.max_hours;
	bisect_matrix_close(x);
	rc = store_bisection_add(s, &b, (unsigned)c->bisections_max, &id, &existing, err);
	*ret_http = rc > 0 ? 429 : 500;
	if (rc != 0)
		return -1;
	*ret_http = existing ? 200 : 201;
	*ret = json_pack("{s:I, s:I, s:b}", "bisection", (json_int_t)id, "matrix",
			 (json_int_t)b.matrix_id, "existing", existing);
	return *ret ? 0 : errorf(err, "out of memory");
}

/* A bisection as the API shows it, its result parsed back to JSON. */
static json_t *bisection_json(const struct bisection *b)
{
	json_t *res = b->result ? json_loads(b->result, 0, NULL) : NULL;

	return json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:f, s:s, s:s, s:o, s:s?, "
			 "s:s, s:s?}", "id", (json_int_t)b->id, "matrix", (json_int_t)b->matrix_id,
			 "cell", b->cell, "metric", b->metric, "good", b->good, "bad", b->bad,
			 "max_blocks", (json_int_t)b->max_blocks, "max_runs",
			 (json_int_t)b->max_runs, "max_hours", b->max_hours, "state", b->state,
			 "progress", b->progress, "result", res ? res : json_null(),
			 "table", b->result_text, "created_at", b->created_at,
			 "ended_at", b->ended_at[0] ? b->ended_at : NULL);
}

int queue_bisection(struct store *s, int64_t id, json_t **ret, char *err)
{
	struct bisection b;

	if (store_bisection_get(s, id, &b, err) < 0)
		return -1;
	*ret = bisection_json(&b);
	store_bisection_free(&b);
	return *ret ? 0 : errorf(err, "out of memory");
}

int queue_bisections(struct store *s, int64_t before, unsigned limit, json_t **ret, char *err)
{
	/* the running ones are at most bisections_max (1000), unless it was lowered */
	_cleanup_free_ int64_t *ids = calloc(2000, sizeof(*ids));
	json_t *list = json_array(), *one;
	size_t n, i;

	if (!list || !ids || store_bisection_ids(s, before, limit, ids, 2000, &n, err) < 0) {
		json_decref(list);
		return list && ids ? -1 : errorf(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (queue_bisection(s, ids[i], &one, err) < 0) {
			json_decref(list);
			return -1;
		}
		json_object_del(one, "table");    /* the list stays short: GET one for its table */
		json_array_append_new(list, one);
	}
	*ret = list;
	return 0;
}
