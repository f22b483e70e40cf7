/* queue.h -- the daemon's persistent queue as the API serves it: submit a
 * matrix, list and inspect matrices and runs, control them, follow samples. */
#ifndef QUEUE_H
#define QUEUE_H

#include <stdint.h>

#include <jansson.h>

#include "conf/conf.h"
#include "store/store.h"

/*
 * Parse and queue a matrix given as JSON text, at once: it is only parsed
 * (spec_parse) and queued "resolving"; the resolver (resolver.h) fetches,
 * builds and checks its kernels, and until then none of its runs starts.
 * base_dir resolves relative paths in it (kernels, modules). A matrix whose
 * spec (without "reps") was queued before gets only the repetitions beyond
 * those it has, appended as new ABBA blocks; one whose resolving failed is
 * resolved again. On success *ret is
 *   {"matrix": ID, "name": NAME, "runs": RUNS_ADDED, "appended": true|false,
 *    "resolve": "resolving"|"resolved"}
 * On a matrix that does not parse -1 with "matrix: field: message" in err
 * (the caller answers 400).
 */
int queue_submit(struct store *s, const struct conf *c, const char *text, const char *base_dir,
		 json_t **ret, char *err);

/*
 * Every matrix, newest first:
 *   [{"id", "name", "state" (active|paused|cancelled|finished),
 *     "resolve" (resolving|resolved|unresolved), "resolve_msg" (the step in
 *     hand while resolving, why when unresolved: one line; else null),
 *     "created_at",
 *     "runs": {"queued": N, "booting": N, "running": N, "done": N, "failed": N,
 *              "crashed": N, "timeout": N, "interrupted": N, "unsupported": N,
 *              "cancelled": N, "total": N},   (each planned run counted once,
 *                                                 by the state of its latest attempt)
 *     "mean_run_s": seconds per finished run or null, "eta_s": seconds or null}]
 * eta_s: remaining runs x mean_run_s / guests (conf), null before any run ended
 * and while the matrix is paused or not resolved.
 */
int queue_list(struct store *s, const struct conf *c, json_t **ret, char *err);

/*
 * One matrix (id or name): the list entry above plus
 *   "arms": [{"name", "release", "lru_gen"}], "cells": [{"name", "params"}],
 *   "runs_list": [{"id", "arm", "cell", "block", "position", "attempt", "status",
 *                  "reason", "accel", "guest_release", "agent_ready_ms",
 *                  "started_at", "finished_at", "samples", "warnings"}]
 * ("runs" keeps the per-status counts of the list entry.)
 * -1 with err "no matrix ..." if there is none (the caller answers 404).
 */
int queue_matrix(struct store *s, const struct conf *c, const char *key, json_t **ret,
		 char *err);

/*
 * action "cancel" (queued runs become cancelled; running ones are stopped by
 * the scheduler), "pause" (no new run starts) or "resume". Returns 0, -1 with
 * err (unknown matrix: the caller answers 404; a cancelled or finished matrix
 * cannot be resumed: 409 — queue_control sets *ret_http to the status code,
 * 200 on success).
 */
int queue_control(struct store *s, const char *key, const char *action, int *ret_http,
		  char *err);

/*
 * A run's samples after seq `after` (-1: from the start), at most `max`:
 *   {"run": ID, "status": S, "finished": bool,
 *    "samples": [{"seq", "t_ms", "ramp", <every PROTO_SAMPLE_FIELDS key>,
 *                 "resident": [pages per file],
 *                 "streams": [{"ops", "misses"} per stream]}],
 *    "files": [names], "streams": [names]}
 */
int queue_samples(struct store *s, int64_t run, int64_t after, unsigned max, json_t **ret,
		  char *err);

/*
 * POST /matrices/KEY/bisect: body {"cell", "metric", "good", "bad" (names),
 * "max_blocks", "max_runs", "max_hours" (0 or absent: the default, no
 * limit)} checked as harness bisect checks it (bisect_matrix_open), then
 * queued for the bisector, or the same one found: *ret {"bisection": ID,
 * "matrix": ID, "existing": bool}, *ret_http 201 (new) or 200. -1 with err
 * and *ret_http 400 (bad body or arms), 404 (no such matrix), 429 (c's
 * bisections_max already queued or running) or 500.
 */
struct bisect_request;
int queue_bisect(struct store *s, const struct conf *c, const char *key, json_t *body,
		 json_t **ret, int *ret_http, char *err);

/*
 * GET /bisections/ID: {"id", "matrix", "cell", "metric", "good", "bad",
 * "max_blocks", "max_runs", "max_hours", "state" (running|done|failed),
 * "progress" (the last step, or why it failed), "result" (harness bisect
 * --json's, or null), "table" (its text, or null), "created_at", "ended_at"};
 * -1 with "no bisection ID". GET /bisections, a page without "table": every
 * running one, then at most limit ended ones older than before, newest first.
 */
int queue_bisection(struct store *s, int64_t id, json_t **ret, char *err);
int queue_bisections(struct store *s, int64_t before, unsigned limit, json_t **ret, char *err);

/* Guests run at once: conf guests, or as many as the cores allow (at least 1). */
unsigned queue_guests(const struct conf *c);

/* Guest slots over every host (conf_hosts()): what an ETA divides the work left by. */
unsigned queue_slots(const struct conf *c);

/*
 * {"ok": true, "version": V, "guests": N, "matrices": N, "queued": N, "running": N,
 *  "paused": null, or paused (why the scheduler paused the queue; NULL or "": it runs)}
 */
int queue_health(struct store *s, const struct conf *c, const char *paused, json_t **ret,
		 char *err);

#endif
