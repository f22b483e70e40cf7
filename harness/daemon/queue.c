/* queue.c -- the daemon's queue behind the API: matrices validated and queued
 * (or appended to), listed with progress and ETA, controlled, followed. */
#include "daemon/queue.h"
#include "analysis/calibrate.h"
#include "base/err.h"
#include "base/proc.h"
#include "spec/spec.h"
#include "store/store_extend.h"
#include "store/store_queue.h"

#include <string.h>
#include <unistd.h>

static const char *const statuses[] = {
	"queued", "booting", "running", "done", "failed", "crashed", "timeout", "interrupted",
	"unsupported", "cancelled", NULL,
};

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

/* Per-status counts of one matrix, and its ETA. */
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
	for (st = statuses; st < statuses + 3; st++)   /* queued, booting, running */
		left += json_integer_value(json_object_get(runs, *st));
	json_object_set_new(mx, "runs", runs);
	r = json_object_get(mx, "mean_run_s");
	mean = json_is_number(r) ? json_number_value(r) : -1;
	json_object_set_new(mx, "eta_s", mean < 0 || !strcmp(json_string_value(
				    json_object_get(mx, "state")), "paused") ||
			    strcmp(json_string_value(json_object_get(mx, "resolve")), "resolved") ?
			    json_null() : json_real(mean * (double)left / queue_guests(c)));
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

/* Attach each sample's per-file residency and per-stream numbers. */
static int attach(struct store *s, int64_t run, json_t *samples, char *err)
{
	json_t *rows = NULL, *x, *smp;
	int64_t base, seq;
	size_t i;

	if (json_array_size(samples) == 0)
		return 0;
	base = json_integer_value(json_object_get(json_array_get(samples, 0), "seq"));
	if (store_list(s, STORE_LIST_SAMPLE_PARTS, &run, &rows, err) < 0)
		return -1;
	json_array_foreach(samples, i, smp) {
		json_object_set_new(smp, "resident", json_array());
		json_object_set_new(smp, "streams", json_array());
	}
	json_array_foreach(rows, i, x) {
		seq = json_integer_value(json_object_get(x, "seq"));
		smp = seq >= base ? json_array_get(samples, (size_t)(seq - base)) : NULL;
		if (!smp)
			continue;
		if (!strcmp(json_string_value(json_object_get(x, "k")), "f"))
			json_array_append(json_object_get(smp, "resident"), json_object_get(x, "v"));
		else
			json_array_append_new(json_object_get(smp, "streams"),
					      json_pack("{s:O, s:O, s:O}", "stream", json_object_get(x, "i"),
							"ops", json_object_get(x, "v"),
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
	    attach(s, run, samples, err) < 0 ||
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
