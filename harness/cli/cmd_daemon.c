/* cmd_daemon.c -- the `harness` commands answered by harnessd: submit, status,
 * cancel, pause, resume, hosts and host; a request each, a line or a table out. */
#include "cli/client.h"
#include "cli/commands.h"
#include "daemon/api.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/textline.h"
#include "spec/spec.h"
#include "common/fmt.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#define BAR_WIDTH   20
#define REASON_W    40

/* 12m30s, 2h05m, 45s; "-" for null or negative. */
static void fmt_dur(const json_t *v, char *buf, size_t len)
{
	double s = json_number_value(v);
	long long t;

	if (!json_is_number(v) || s < 0 || !isfinite(s)) {
		fmtcut(buf, len, "-");
		return;
	}
	t = llround(s);
	if (t >= 3600)
		fmtcut(buf, len, "%lldh%02lldm", t / 3600, t % 3600 / 60);
	else if (t >= 60)
		fmtcut(buf, len, "%lldm%02llds", t / 60, t % 60);
	else
		fmtcut(buf, len, "%llds", t);
}

/* Runs that have ended one way or another. */
static json_int_t runs_ended(const json_t *runs)
{
	static const char *const ended[] = { "done", "failed", "crashed", "timeout",
					     "unsupported", "cancelled", "oom" };
	json_int_t n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ended); i++)
		n += reply_int(runs, ended[i]);
	return n;
}

/* The file's JSON, at most API_BODY_MAX bytes; file:line:column on bad JSON. */
static json_t *read_spec(const char *file, char *err)
{
	_cleanup_free_ char *buf = NULL;
	json_error_t je;
	size_t len;
	json_t *j;

	if (read_regular_file(file, API_BODY_MAX, &buf, &len, err) < 0)
		return NULL;
	j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		errorf(err, "%s:%d:%d: %s", file, je.line, je.column, je.text);
	else if (!json_is_object(j)) {
		json_decref(j);
		j = NULL;
		errorf(err, "%s: expected a matrix (a JSON object)", file);
	}
	return j;
}

#define WAIT_POLL_MS 500    /* submit --wait asks the daemon this often */

/*
 * submit --wait: until the daemon has resolved matrix id (from file),
 * printing each step it reports once; -1 with "FILE: field: message" if it
 * could not resolve it.
 */
static int wait_resolved(const struct conf *c, const char *file, json_int_t id, char *err)
{
	char path[64], last[ERR_MAX] = "";
	const char *resolve, *msg;
	json_t *m;
	int rc;

	if (fmtbuf(path, sizeof(path), "/matrices/%lld", (long long)id) < 0)
		return errorf(err, "matrix %lld: its API path is over %zu bytes", (long long)id,
			      sizeof(path) - 1);
	for (;;) {
		if (client_call(c, "GET", path, NULL, 0, &m, err) < 0)
			return -1;
		resolve = reply_str(m, "resolve", "?");
		msg = reply_str(m, "resolve_msg", "");
		if (strcmp(resolve, "resolving"))
			break;
		if (msg[0] && strcmp(msg, last)) {
			printf("resolving %s\n", msg);
			/* compared at the next poll: cut, it would print again each time */
			if (fmtbuf(last, sizeof(last), "%s", msg) < 0) {
				json_decref(m);
				return errorf(err, "%s: harnessd's resolve message is over %zu "
					      "bytes", file, sizeof(last) - 1);
			}
		}
		json_decref(m);
		usleep(WAIT_POLL_MS * 1000);
	}
	rc = 0;
	if (!strcmp(resolve, "resolved"))
		printf("matrix %lld: resolved, its runs may start\n", (long long)id);
	else
		rc = errorf(err, "%s: %s", file, msg[0] ? msg : "the daemon could not resolve it");
	json_decref(m);
	return rc;
}

/* Each string of res's array key on a line of its own, after prefix. */
static void print_lines(json_t *res, const char *key, const char *prefix)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(res, key), i, v)
		if (json_is_string(v))
			escape_line(stdout, "%s%s", prefix, json_string_value(v));
}

/* submit [--wait] FILE */
static int submit(const struct conf *c, char **argv, int json, char *err)
{
	int wait = !strcmp(argv[1], "--wait");
	const char *file = argv[1 + wait];
	char real[PATH_MAX];
	json_t *spec, *req, *res;
	const char *resolve;
	char *body;
	int rc;

	if (!file || (argv[2] && !wait))
		return errorf(err, "usage: harness submit [--wait] FILE");
	spec = read_spec(file, err);
	if (!spec)
		return -1;
	if (!realpath(file, real)) {
		json_decref(spec);
		return errorf(err, "'%s': %s", file, strerror(errno));
	}
	req = json_pack("{s:s,s:o}", "base_dir", dirname(real), "spec", spec);
	body = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	if (!body)
		return errorf(err, "out of memory");
	rc = client_call(c, "POST", "/matrices", body, json, &res, err);
	free(body);
	if (rc < 0 || json)
		return rc;
	resolve = reply_str(res, "resolve", "resolved");
	printf("matrix %lld '%s': %lld runs %s%s\n", (long long)reply_int(res, "matrix"),
	       reply_str(res, "name", "?"), (long long)reply_int(res, "runs"),
	       json_is_true(json_object_get(res, "appended")) ? "appended" : "queued",
	       strcmp(resolve, "resolving") ? "" : "; the daemon resolves its kernels first");
	print_lines(res, "noise", "");
	print_lines(res, "warnings", "warning: ");
	rc = 0;
	if (wait && !strcmp(resolve, "resolving"))
		rc = wait_resolved(c, file, reply_int(res, "matrix"), err);
	json_decref(res);
	return rc;
}

/* Why no run can start yet (resolving, unresolved), unless cancelled. */
static const char *not_ready(const json_t *m)
{
	const char *resolve = reply_str(m, "resolve", "resolved");

	return strcmp(resolve, "resolved") && strcmp(reply_str(m, "state", "?"), "cancelled") ?
	       resolve : NULL;
}

/* What the state column shows: why runs cannot start yet, else the state. */
static const char *shown_state(const json_t *m)
{
	return not_ready(m) ?: reply_str(m, "state", "?");
}

/* The whole queue's ETA: matrices run in order, each over every host's slots. */
static void print_queue_eta(const json_t *list)
{
	const json_t *m, *e;
	double total = 0;
	char eta[32];
	size_t i, n = 0;
	json_t *sum;

	json_array_foreach(list, i, m) {
		e = json_object_get(m, "eta_s");
		if (json_is_number(e) && !strcmp(reply_str(m, "state", ""), "active")) {
			total += json_number_value(e);
			n++;
		}
	}
	if (n < 2)
		return;
	sum = json_real(total);
	fmt_dur(sum, eta, sizeof(eta));
	json_decref(sum);
	printf("queue: %zu active matrices, ETA %s\n", n, eta);
}

/*
 * harness status: a line per matrix (its runs ended of all, failures,
 * crashes, timeouts, ETA, why one is not ready), then the queue's ETA.
 */
static void print_matrices(const json_t *list)
{
	const json_t *m, *runs;
	char eta[32], done[32];
	size_t i;

	printf("%5s %-24s %-10s %11s %6s %7s %7s %8s\n", "id", "name", "state", "done/total",
	       "failed", "crashed", "timeout", "ETA");
	json_array_foreach(list, i, m) {
		runs = json_object_get(m, "runs");
		fmtcut(done, sizeof(done), "%lld/%lld", (long long)runs_ended(runs),
			 (long long)reply_int(runs, "total"));
		fmt_dur(json_object_get(m, "eta_s"), eta, sizeof(eta));
		printf("%5lld %-24.24s %-10.10s %11s %6lld %7lld %7lld %8s\n",
		       (long long)reply_int(m, "id"), reply_str(m, "name", "?"), shown_state(m),
		       done, (long long)reply_int(runs, "failed"), (long long)reply_int(runs, "crashed"),
		       (long long)reply_int(runs, "timeout"), eta);
		if (not_ready(m) && json_is_string(json_object_get(m, "resolve_msg")))
			printf("%5s %s\n", "", reply_str(m, "resolve_msg", ""));
	}
	if (!json_array_size(list))
		printf("(no matrices)\n");
	print_queue_eta(list);
}

/* "on here: 8 done, 1 running; on there: 7 done, 2 interrupted": what each host did. */
static void print_hosts_of(const json_t *m)
{
	const json_t *hosts = json_object_get(m, "hosts"), *h, *n;
	const char *name, *st;
	int first = 1, k;

	json_object_foreach((json_t *)hosts, name, h) {
		printf("%s%s:", first ? "on " : "; on ", name);
		k = 0;
		json_object_foreach((json_t *)h, st, n)
			printf("%s %lld %s", k++ ? "," : "", (long long)json_integer_value(n), st);
		first = 0;
	}
	if (!first)
		printf("\n");
}

/* [#########...........] 9/20 runs, 1 failed, ETA 12m30s */
static void print_progress(const json_t *m)
{
	static const char *const bad[] = { "failed", "crashed", "timeout", "unsupported",
					   "cancelled", "oom" };
	const json_t *runs = json_object_get(m, "runs");
	json_int_t total = reply_int(runs, "total"), ended = runs_ended(runs);
	char bar[BAR_WIDTH + 1], eta[32];
	size_t i, fill = total > 0 ? (size_t)(ended * BAR_WIDTH / total) : 0;

	for (i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	printf("[%s] %lld/%lld runs", bar, (long long)ended, (long long)total);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (reply_int(runs, bad[i]))
			printf(", %lld %s", (long long)reply_int(runs, bad[i]), bad[i]);
	fmt_dur(json_object_get(m, "eta_s"), eta, sizeof(eta));
	printf(", ETA %s\n", eta);
	print_hosts_of(m);
}

/*
 * harness status MATRIX: its state and progress, then a line per run (a
 * contended run's reason is why it was contended), reasons cut to REASON_W.
 */
static void print_matrix(const json_t *m)
{
	const json_t *r, *reason, *runs;
	char pos[32], why[REASON_W + 4];
	unsigned contended = 0;
	size_t i;

	printf("matrix %lld '%s': %s, %zu arms x %zu workloads\n", (long long)reply_int(m, "id"),
	       reply_str(m, "name", "?"), reply_str(m, "state", "?"),
	       json_array_size(json_object_get(m, "arms")),
	       json_array_size(json_object_get(m, "cells")));
	if (not_ready(m))
		printf("%s: %s\n", not_ready(m),
		       reply_str(m, "resolve_msg", "no run starts before its kernels are ready"));
	print_progress(m);
	printf("\n%6s %-16s %-16s %7s %-11s %s\n", "run", "arm", "workload", "blk/pos", "status",
	       "reason");
	runs = json_object_get(m, "runs_list");   /* queue.c; queue.h says "runs" */
	if (!json_is_array(runs))
		runs = json_object_get(m, "runs");
	json_array_foreach(runs, i, r) {
		fmtcut(pos, sizeof(pos), "%lld/%lld", (long long)reply_int(r, "block"),
			 (long long)reply_int(r, "position"));
		reason = json_object_get(r, "reason");
		if (reply_int(r, "contended") == 1) {   /* a done run: its contended_why instead */
			reason = json_object_get(r, "contended_why");
			contended++;
		}
		fmtcut(why, sizeof(why), "%s", json_is_string(reason) ? json_string_value(reason) : "");
		if (json_string_length(reason) > REASON_W)
			memcpy(why + REASON_W - 3, "...", 4);
		printf("%6lld %-16.16s %-16.16s %7s %-11.11s%s%s\n", (long long)reply_int(r, "id"),
		       reply_str(r, "arm", "?"), reply_str(r, "cell", "?"), pos,
		       reply_int(r, "contended") == 1 ? "contended" : reply_str(r, "status", "?"),
		       why[0] ? " " : "", why);
	}
	if (contended)
		printf("contended: %u done run%s measured while the host's CPU or I/O pressure was over"
		       " contended_cpu_pct or quiet_io_pct; compare leaves their blocks out\n", contended,
		       contended == 1 ? "" : "s");
}

/* "queue paused: why" when the daemon stopped starting runs on its own. */
static void print_paused(const struct conf *c)
{
	char err[ERR_MAX];
	const json_t *why;
	json_t *res;

	if (client_call(c, "GET", "/health", NULL, 0, &res, err) < 0)
		return;
	why = json_object_get(res, "paused");
	if (json_is_string(why))
		printf("queue paused: %s\n", json_string_value(why));
	json_decref(res);
}

/* The bisections (harness bisect through harnessd): a line each, the newest 10. */
static void print_bisections(const struct conf *c)
{
	char err[ERR_MAX];
	json_t *res, *b;
	size_t i;

	if (client_call(c, "GET", "/bisections", NULL, 0, &res, err) < 0)
		return;
	if (json_array_size(res))
		printf("\n%-4s %-6s %-20s %-10s %-8s %s\n", "id", "matrix", "cell", "metric",
		       "state", "progress or result");
	json_array_foreach(res, i, b) {
		const json_t *r = json_object_get(b, "result");
		if (i == 10)
			break;
		escape_line(stdout, "%-4lld %-6lld %-20s %-10s %-8s %s", (long long)reply_int(b, "id"),
			    (long long)reply_int(b, "matrix"), reply_str(b, "cell", "-"), reply_str(b, "metric", "-"),
			    reply_str(b, "state", "-"), json_is_object(r) ? reply_str(r, "why", "") :
			    reply_str(b, "progress", ""));
	}
	json_decref(res);
}

/* harness status [MATRIX]: every matrix, or one with its runs. */
static int status(const struct conf *c, char **argv, int json, char *err)
{
	int rc;
	char path[128];
	json_t *res;

	if (argv[1] && !spec_key_ok(argv[1]))
		return errorf(err, "matrix '%s': expected an id or a name", argv[1]);
	if (fmtbuf(path, sizeof(path), "/matrices%s%s", argv[1] ? "/" : "", argv[1] ? argv[1] : ""))
		return errorf(err, "matrix '%.64s...': too long a name", argv[1]);
	if ((rc = client_call(c, "GET", path, NULL, json, &res, err)) < 0)
		return rc;   /* -2: the JSON reply said it */
	if (json)
		return 0;
	if (argv[1])
		print_matrix(res);
	else
		print_matrices(res);
	json_decref(res);
	if (!argv[1])
		print_bisections(c);
	print_paused(c);
	return 0;
}

/* harness cancel|pause|resume MATRIX. */
static int control(const struct conf *c, char **argv, int json, char *err)
{
	int rc;
	char path[128];
	json_t *res;

	if (!spec_key_ok(argv[1]))
		return errorf(err, "matrix '%s': expected an id or a name", argv[1]);
	if (fmtbuf(path, sizeof(path), "/matrices/%s/%s", argv[1], argv[0]) < 0)
		return errorf(err, "matrix '%.64s...': too long a name", argv[1]);
	if ((rc = client_call(c, "POST", path, "", json, &res, err)) < 0)
		return rc;   /* -2: the JSON reply said it */
	if (!json)
		printf("matrix %s: %s\n", argv[1],
		       !strcmp(argv[0], "cancel") ? "cancelled" :
		       !strcmp(argv[0], "pause") ? "paused" : "resumed");
	json_decref(res);
	return 0;
}

/* ---- hosts ---- */

/* "x86_64=kvm aarch64=tcg" ("?" where not decided yet) */
static void accel_text(const json_t *accel, char *buf, size_t len)
{
	const char *arch;
	json_t *v;
	size_t n = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)accel, arch, v)
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", arch,
					      json_string_length(v) ? json_string_value(v) : "?");
}

/*
 * A host's line of harness hosts: state (* drained), slots, busy, accel per
 * arch, runs done and otherwise, URI and last error.
 */
static void print_host(json_t *h)
{
	const char *error = json_string_value(json_object_get(h, "error"));
	char accel[64];

	accel_text(json_object_get(h, "accel"), accel, sizeof(accel));
	printf("%-16s %-5s%s %5lld %4lld %-22s %6lld %6lld  %s%s%s\n",
	       json_string_value(json_object_get(h, "name")),
	       json_string_value(json_object_get(h, "state")),
	       json_is_true(json_object_get(h, "drained")) ? "*" : " ",
	       (long long)json_integer_value(json_object_get(h, "slots")),
	       (long long)json_integer_value(json_object_get(h, "busy")),
	       accel,
	       (long long)json_integer_value(json_object_get(h, "runs_done")),
	       (long long)json_integer_value(json_object_get(h, "runs_other")),
	       json_string_value(json_object_get(h, "uri")), error && error[0] ? ": " : "",
	       error ? error : "");
}

/* harness hosts: every host of harness.conf as the daemon sees it. */
static int hosts(const struct conf *c, char **argv, int json, char *err)
{
	int rc;
	json_t *res, *h;
	size_t i;

	(void)argv;
	if ((rc = client_call(c, "GET", "/hosts", NULL, json, &res, err)) < 0)
		return rc;   /* -2: the JSON reply said it */
	if (!json) {
		printf("%-16s %-6s %5s %4s %-22s %6s %6s  %s\n", "host", "state", "slots",
		       "busy", "accel per arch", "done", "other", "uri: last error");
		json_array_foreach(json_object_get(res, "hosts"), i, h)
			print_host(h);
		printf("state * : drained (finishes its blocks, takes no new one); done, other: "
		       "runs that ended done and otherwise\n");
	}
	json_decref(res);
	return 0;
}

/* harness host drain|resume NAME. */
static int host(const struct conf *c, char **argv, int json, char *err)
{
	int rc;
	char path[128];
	json_t *res;

	if (strcmp(argv[1], "drain") && strcmp(argv[1], "resume"))
		return errorf(err, "host: expected drain or resume, got '%.32s'", argv[1]);
	if (!conf_host_name_ok(argv[2]))
		return errorf(err, "host '%.64s': expected a name from harness.conf", argv[2]);
	if (fmtbuf(path, sizeof(path), "/hosts/%s/%s", argv[2], argv[1]) < 0)
		return errorf(err, "host '%.64s...': too long a name", argv[2]);
	if ((rc = client_call(c, "POST", path, "", json, &res, err)) < 0)
		return rc;   /* -2: the JSON reply said it */
	if (!json)
		printf("host %s: %s\n", argv[2], !strcmp(argv[1], "drain") ?
		       "drained: its blocks finish, it takes no new one" : "takes blocks again");
	json_decref(res);
	return 0;
}

/* A command's -1 (its message in err) or -2 (said already) as the exit code. */
static int exit_code(int rc, const char *err)
{
	if (rc == -1)
		escape_line(stderr, "harness: %s", err);
	return rc < 0 ? 1 : 0;
}

#define DAEMON_CMD(name, fn)                                                  \
	int name(const struct conf *c, int argc, char **argv, int json)      \
	{                                                                     \
		char err[ERR_MAX] = "";                                       \
		(void)argc;                                                   \
		return exit_code(fn(c, argv, json, err), err);                \
	}
DAEMON_CMD(cmd_submit, submit)
DAEMON_CMD(cmd_status, status)
DAEMON_CMD(cmd_control, control)
DAEMON_CMD(cmd_hosts, hosts)
DAEMON_CMD(cmd_host, host)
