/* queue.c -- the daemon's queue behind the API: matrices validated and queued
 * (or appended to), listed with progress and ETA, controlled, followed. */
#include "daemon/queue.h"
#include "base/err.h"
#include "base/proc.h"
#include "spec/spec.h"
#include "store/store_extend.h"

#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

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
	rc = *ret ? 0 : errorf(err, "out of memory");
out:
	spec_release(m);
	return rc;
}

/* ---- reading ---- */

typedef int (*row_fn)(sqlite3_stmt *st, void *arg, char *err);

/* Step st, prepared and bound, calling fn per row; st is finalized. */
static int step_rows(sqlite3 *db, sqlite3_stmt *st, row_fn fn, void *arg, char *err)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn(st, arg, err) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return errorf(err, "database: %s", sqlite3_errmsg(db));
	return 0;
}

/* Prepare sql, bind ?1 (int64 or text), call fn per row. */
static int query(struct store *s, const char *sql, int64_t key, const char *text, row_fn fn,
		 void *arg, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return errorf(err, "database: %s", sqlite3_errmsg(db));
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(st, 1, key);
	return step_rows(db, st, fn, arg, err);
}

/* The same with ?1, ?2, ?3 bound to a, b, c. */
static int query3(struct store *s, const char *sql, int64_t a, int64_t b, int64_t c,
		  row_fn fn, void *arg, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return errorf(err, "database: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	sqlite3_bind_int64(st, 3, c);
	return step_rows(db, st, fn, arg, err);
}

static json_t *col_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_string((const char *)sqlite3_column_text(st, i));
	default:
		return json_null();
	}
}

/* A row as an object keyed by its column names. */
static int row_object(sqlite3_stmt *st, void *arg, char *err)
{
	json_t *arr = arg, *o = json_object();
	int i;

	if (!o)
		return errorf(err, "out of memory");
	for (i = 0; i < sqlite3_column_count(st); i++)
		json_object_set_new(o, sqlite3_column_name(st, i), col_json(st, i));
	return json_array_append_new(arr, o) < 0 ? errorf(err, "out of memory") : 0;
}

/* Per-status counts of one matrix, and its ETA. */
static int add_progress(struct store *s, const struct conf *c, json_t *mx, char *err)
{
	json_t *rows = json_array(), *runs = json_object(), *r;
	int64_t id = json_integer_value(json_object_get(mx, "id")), total = 0, left = 0, n;
	const char *const *st;
	double mean;
	size_t i;

	if (!rows || !runs ||
	    query(s, "SELECT status, COUNT(*) AS n FROM runs r WHERE matrix_id = ?1 AND attempt ="
		  " (SELECT MAX(attempt) FROM runs r2 WHERE r2.matrix_id = r.matrix_id AND"
		  " r2.seq = r.seq) GROUP BY status", id, NULL, row_object, rows, err) < 0) {
		json_decref(rows);
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

#define MATRIX_COLUMNS \
	"m.id, m.name, m.state, m.resolve, m.resolve_msg, m.created_at, m.reps, m.spec_hash," \
	" (SELECT AVG((julianday(r.finished_at) - julianday(r.started_at)) * 86400.0)" \
	"  FROM runs r WHERE r.matrix_id = m.id AND r.started_at IS NOT NULL" \
	"  AND r.finished_at IS NOT NULL AND r.status NOT IN ('cancelled', 'interrupted'))" \
	" AS mean_run_s"

static int list_matrices(struct store *s, const struct conf *c, const char *sql, int64_t key,
			 const char *text, json_t **ret, char *err)
{
	json_t *arr = json_array(), *mx;
	size_t i;

	if (!arr)
		return errorf(err, "out of memory");
	if (query(s, sql, key, text, row_object, arr, err) < 0)
		goto fail;
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
	return list_matrices(s, c, "SELECT " MATRIX_COLUMNS " FROM matrices m WHERE ?1 = ?1"
			     " ORDER BY m.id DESC", 0, NULL, ret, err);
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
	json_t *arr = NULL, *mx, *part;
	int64_t id = find(s, key, err);

	if (!id)
		return -1;
	if (list_matrices(s, c, "SELECT " MATRIX_COLUMNS " FROM matrices m WHERE m.id = ?1", id,
			  NULL, &arr, err) < 0)
		return -1;
	mx = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	if (!mx)
		return errorf(err, "no matrix with id or name '%s'", key);
	part = json_array();
	if (query(s, "SELECT name, release, lru_gen, cmdline FROM arms WHERE matrix_id = ?1"
		  " ORDER BY idx", id, NULL, row_object, part, err) < 0)
		goto fail;
	json_object_set_new(mx, "arms", part);
	part = json_array();
	if (query(s, "SELECT name, preset, params FROM cells WHERE matrix_id = ?1 ORDER BY idx",
		  id, NULL, row_object, part, err) < 0)
		goto fail;
	json_object_set_new(mx, "cells", part);
	part = json_array();
	if (query(s, "SELECT r.id, a.name AS arm, c.name AS cell, r.block, r.position, r.attempt,"
		  " r.status, r.reason, r.accel, r.guest_release, r.agent_ready_ms, r.started_at,"
		  " r.finished_at, r.samples, r.warnings FROM runs r JOIN arms a ON a.id ="
		  " r.arm_id JOIN cells c ON c.id = r.cell_id WHERE r.matrix_id = ?1"
		  " ORDER BY r.seq, r.attempt", id, NULL, row_object, part, err) < 0)
		goto fail;
	json_object_set_new(mx, "runs_list", part);
	*ret = mx;
	return 0;
fail:
	json_decref(part);
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

struct sample_page {
	json_t *samples;
};

static int sample_row(sqlite3_stmt *st, void *arg, char *err)
{
	if (row_object(st, ((struct sample_page *)arg)->samples, err) < 0)
		return -1;
	return 0;
}

/* Attach each sample's per-file residency and per-stream numbers. */
static int attach(struct store *s, int64_t run, json_t *samples, char *err)
{
	json_t *rows = json_array(), *x, *smp;
	int64_t base, seq;
	size_t i;

	if (!rows || json_array_size(samples) == 0) {
		json_decref(rows);
		return 0;
	}
	base = json_integer_value(json_object_get(json_array_get(samples, 0), "seq"));
	if (query(s, "SELECT seq, 'f' AS k, file AS i, resident_pages AS v, NULL AS o FROM"
		  " file_samples WHERE run_id = ?1 UNION ALL SELECT seq, 's', stream, read_ops +"
		  " write_ops, misses FROM stream_samples WHERE run_id = ?1 ORDER BY 1, 2, 3",
		  run, NULL, row_object, rows, err) < 0) {
		json_decref(rows);
		return -1;
	}
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
					      json_pack("{s:O, s:O}", "ops", json_object_get(x, "v"),
							"misses", json_object_get(x, "o")));
	}
	json_decref(rows);
	return 0;
}

static int names(struct store *s, const char *sql, int64_t run, json_t **ret, char *err)
{
	json_t *rows = json_array(), *out = json_array(), *x;
	size_t i;

	if (query(s, sql, run, NULL, row_object, rows, err) < 0) {
		json_decref(rows);
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
	struct sample_page page = { json_array() };
	json_t *status = json_array(), *files = NULL, *streams = NULL, *st;
	const char *stv;

	if (query(s, "SELECT status FROM runs WHERE id = ?1", run, NULL, row_object, status,
		  err) < 0)
		goto fail;
	st = json_array_get(status, 0);
	if (!st) {
		errorf(err, "no run %lld", (long long)run);
		goto fail;
	}
	if (query3(s, "SELECT * FROM samples WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
		   run, after, max ? max : 1, sample_row, &page, err) < 0 ||
	    attach(s, run, page.samples, err) < 0 ||
	    names(s, "SELECT f.name FROM cell_files f JOIN runs r ON r.cell_id = f.cell_id"
		  " WHERE r.id = ?1 ORDER BY f.idx", run, &files, err) < 0 ||
	    names(s, "SELECT t.name FROM cell_streams t JOIN runs r ON r.cell_id = t.cell_id"
		  " WHERE r.id = ?1 ORDER BY t.idx", run, &streams, err) < 0)
		goto fail;
	stv = json_string_value(json_object_get(st, "status"));
	*ret = json_pack("{s:I, s:s, s:b, s:o, s:o, s:o}", "run", (json_int_t)run, "status", stv,
			 "finished", strcmp(stv, "queued") && strcmp(stv, "booting") &&
			 strcmp(stv, "running"), "samples", page.samples, "files", files,
			 "streams", streams);
	json_decref(status);
	return *ret ? 0 : errorf(err, "out of memory");
fail:
	json_decref(page.samples);
	json_decref(status);
	json_decref(files);
	json_decref(streams);
	return -1;
}

static int count_row(sqlite3_stmt *st, void *arg, char *err)
{
	(void)err;
	*(int64_t *)arg = sqlite3_column_int64(st, 0);
	return 0;
}

int queue_health(struct store *s, const struct conf *c, const char *paused, json_t **ret,
		 char *err)
{
	int64_t matrices = 0, queued = 0, running = 0;

	if (query(s, "SELECT COUNT(*) FROM matrices WHERE ?1 = ?1", 0, NULL, count_row,
		  &matrices, err) < 0 ||
	    query(s, "SELECT COUNT(*) FROM runs WHERE status = 'queued' AND ?1 = ?1", 0, NULL,
		  count_row, &queued, err) < 0 ||
	    query(s, "SELECT COUNT(*) FROM runs WHERE status IN ('booting', 'running')"
		  " AND ?1 = ?1", 0, NULL, count_row, &running, err) < 0)
		return -1;
	*ret = json_pack("{s:b, s:i, s:i, s:I, s:I, s:I, s:o}", "ok", 1, "version", PROTO_VERSION,
			 "guests", (int)queue_guests(c), "matrices", (json_int_t)matrices,
			 "queued", (json_int_t)queued, "running", (json_int_t)running, "paused",
			 paused && paused[0] ? json_string(paused) : json_null());
	return *ret ? 0 : errorf(err, "out of memory");
}
