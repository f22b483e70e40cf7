/* client.c -- the `harness` commands that talk to harnessd: one libcurl
 * request each over the API's unix socket, JSON in, a line or a table out. */
#include "cli/client.h"
#include "daemon/api.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/textline.h"
#include "spec/spec.h"
#include "common/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#define REPLY_MAX   (64u << 20)   /* a reply larger than this is refused */
#define TIMEOUT_S   60            /* every request but watch */
#define BAR_WIDTH   20
#define REASON_W    40

/* One request's outcome. */
struct http {
	long code;
	char *body;
	size_t len;
	int too_big;
	int no_daemon;            /* nothing listens on the socket */
};

static void http_release(struct http *h)
{
	free(h->body);
	h->body = NULL;
	h->len = 0;
}

static size_t collect(char *data, size_t size, size_t n, void *cls)
{
	struct http *h = cls;
	size_t len = size * n;
	char *nb;

	if (h->len + len > REPLY_MAX) {
		h->too_big = 1;
		return 0;
	}
	nb = realloc(h->body, h->len + len + 1);
	if (!nb)
		return 0;
	h->body = nb;
	memcpy(h->body + h->len, data, len);
	h->len += len;
	h->body[h->len] = '\0';
	return len;
}

/* A curl handle for path on the daemon's socket; NULL with err. */
static CURL *handle(const struct conf *c, const char *path, struct curl_slist **hdrs, char *err)
{
	char url[512];
	CURL *cu = curl_easy_init();

	if (!cu) {
		errorf(err, "libcurl would not start");
		return NULL;
	}
	snprintf(url, sizeof(url), "http://localhost%s", path);
	*hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	*hdrs = curl_slist_append(*hdrs, "Expect:");
	curl_easy_setopt(cu, CURLOPT_UNIX_SOCKET_PATH, c->api_socket);
	curl_easy_setopt(cu, CURLOPT_URL, url);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT, 10L);
	return cu;
}

static int curl_failed(const struct conf *c, CURLcode rc, char *err)
{
	if (rc == CURLE_COULDNT_CONNECT)
		return errorf(err, "no daemon at %s (start harnessd)", c->api_socket);
	return errorf(err, "%s: %s", c->api_socket, curl_easy_strerror(rc));
}

/* method path [body] -> h (code and body); -1 with err if there was no answer. */
static int request(const struct conf *c, const char *method, const char *path,
		   const char *body, struct http *h, char *err)
{
	struct curl_slist *hdrs = NULL;
	CURL *cu = handle(c, path, &hdrs, err);
	CURLcode rc;

	memset(h, 0, sizeof(*h));
	if (!cu)
		return -1;
	if (!strcmp(method, "POST")) {
		curl_easy_setopt(cu, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(cu, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(body ? strlen(body) : 0));
	}
	curl_easy_setopt(cu, CURLOPT_TIMEOUT, (long)TIMEOUT_S);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, h);
	rc = curl_easy_perform(cu);
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &h->code);
	curl_easy_cleanup(cu);
	curl_slist_free_all(hdrs);
	if (h->too_big)
		return errorf(err, "the daemon's reply is over %u MiB", REPLY_MAX >> 20);
	if (rc != CURLE_OK) {
		http_release(h);
		h->no_daemon = rc == CURLE_COULDNT_CONNECT;
		return curl_failed(c, rc, err);
	}
	return 0;
}

/* The daemon's {"error": ...}, or the status code if it sent none. */
static int daemon_error(const struct http *h, char *err)
{
	json_t *j = h->body ? json_loads(h->body, 0, NULL) : NULL;
	const char *msg = json_string_value(json_object_get(j, "error"));
	int ret = msg ? errorf(err, "%s", msg) : errorf(err, "the daemon answered %ld", h->code);

	json_decref(j);
	return ret;
}

/*
 * Do the request; JSON mode prints the reply as is. On a 2xx, *ret is the
 * parsed body (NULL in JSON mode); otherwise -1 with the daemon's error.
 */
static int call(const struct conf *c, const char *method, const char *path, const char *body,
		int json, json_t **ret, char *err)
{
	struct http h;
	json_error_t je;
	int ok;

	*ret = NULL;
	if (request(c, method, path, body, &h, err) < 0)
		return -1;
	ok = h.code >= 200 && h.code < 300;
	if (json) {
		if (h.body)
			fputs(h.body, stdout);
		http_release(&h);
		return ok ? 0 : -2;   /* the reply said it all */
	}
	if (!ok) {
		daemon_error(&h, err);
		http_release(&h);
		return -1;
	}
	*ret = json_loadb(h.body ? h.body : "", h.len, 0, &je);
	http_release(&h);
	if (!*ret)
		return errorf(err, "the daemon's reply is not JSON: %s", je.text);
	return 0;
}

/* One request from outside client_main (its own libcurl setup): client_post, client_get. */
static int call_once(const struct conf *c, const char *method, const char *path,
		     const char *body, json_t **ret, char *err)
{
	struct http h;
	json_error_t je;
	int rc;

	*ret = NULL;
	if (access(c->api_socket, F_OK) < 0)
		return 1;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return errorf(err, "libcurl would not start");
	rc = request(c, method, path, body, &h, err);
	curl_global_cleanup();
	if (rc < 0)
		return h.no_daemon ? 1 : -1;
	if (h.code < 200 || h.code >= 300)
		rc = daemon_error(&h, err);
	else if (!(*ret = json_loadb(h.body ? h.body : "", h.len, 0, &je)))
		rc = errorf(err, "the daemon's reply is not JSON: %s", je.text);
	http_release(&h);
	return rc;
}

int client_post(const struct conf *c, const char *path, const char *body, json_t **ret,
		char *err)
{
	return call_once(c, "POST", path, body, ret, err);
}

int client_get(const struct conf *c, const char *path, json_t **ret, char *err)
{
	return call_once(c, "GET", path, NULL, ret, err);
}

/* ---- formatting ---- */

static json_int_t geti(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static const char *gets_or(const json_t *o, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : def;
}

/* 12m30s, 2h05m, 45s; "-" for null or negative. */
static void fmt_dur(const json_t *v, char *buf, size_t len)
{
	double s = json_number_value(v);
	long long t;

	if (!json_is_number(v) || s < 0 || !isfinite(s)) {
		snprintf(buf, len, "-");
		return;
	}
	t = llround(s);
	if (t >= 3600)
		snprintf(buf, len, "%lldh%02lldm", t / 3600, t % 3600 / 60);
	else if (t >= 60)
		snprintf(buf, len, "%lldm%02llds", t / 60, t % 60);
	else
		snprintf(buf, len, "%llds", t);
}

/* Runs that have ended one way or another. */
static json_int_t runs_ended(const json_t *runs)
{
	static const char *const ended[] = { "done", "failed", "crashed", "timeout",
					     "unsupported", "cancelled" };
	json_int_t n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ended); i++)
		n += geti(runs, ended[i]);
	return n;
}

/* ---- commands ---- */

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

	snprintf(path, sizeof(path), "/matrices/%lld", (long long)id);
	for (;;) {
		if (call(c, "GET", path, NULL, 0, &m, err) < 0)
			return -1;
		resolve = gets_or(m, "resolve", "?");
		msg = gets_or(m, "resolve_msg", "");
		if (strcmp(resolve, "resolving"))
			break;
		if (msg[0] && strcmp(msg, last)) {
			printf("resolving %s\n", msg);
			snprintf(last, sizeof(last), "%s", msg);
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
static int cmd_submit(const struct conf *c, char **argv, int json, char *err)
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
	rc = call(c, "POST", "/matrices", body, json, &res, err);
	free(body);
	if (rc < 0 || json)
		return rc;
	resolve = gets_or(res, "resolve", "resolved");
	printf("matrix %lld '%s': %lld runs %s%s\n", (long long)geti(res, "matrix"),
	       gets_or(res, "name", "?"), (long long)geti(res, "runs"),
	       json_is_true(json_object_get(res, "appended")) ? "appended" : "queued",
	       strcmp(resolve, "resolving") ? "" : "; the daemon resolves its kernels first");
	print_lines(res, "noise", "");
	print_lines(res, "warnings", "warning: ");
	rc = 0;
	if (wait && !strcmp(resolve, "resolving"))
		rc = wait_resolved(c, file, geti(res, "matrix"), err);
	json_decref(res);
	return rc;
}

/* Why no run can start yet (resolving, unresolved), unless cancelled. */
static const char *not_ready(const json_t *m)
{
	const char *resolve = gets_or(m, "resolve", "resolved");

	return strcmp(resolve, "resolved") && strcmp(gets_or(m, "state", "?"), "cancelled") ?
	       resolve : NULL;
}

/* What the state column shows: why runs cannot start yet, else the state. */
static const char *shown_state(const json_t *m)
{
	return not_ready(m) ?: gets_or(m, "state", "?");
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
		if (json_is_number(e) && !strcmp(gets_or(m, "state", ""), "active")) {
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

static void print_matrices(const json_t *list)
{
	const json_t *m, *runs;
	char eta[32], done[32];
	size_t i;

	printf("%5s %-24s %-10s %11s %6s %7s %7s %8s\n", "id", "name", "state", "done/total",
	       "failed", "crashed", "timeout", "ETA");
	json_array_foreach(list, i, m) {
		runs = json_object_get(m, "runs");
		snprintf(done, sizeof(done), "%lld/%lld", (long long)runs_ended(runs),
			 (long long)geti(runs, "total"));
		fmt_dur(json_object_get(m, "eta_s"), eta, sizeof(eta));
		printf("%5lld %-24.24s %-10.10s %11s %6lld %7lld %7lld %8s\n",
		       (long long)geti(m, "id"), gets_or(m, "name", "?"), shown_state(m),
		       done, (long long)geti(runs, "failed"), (long long)geti(runs, "crashed"),
		       (long long)geti(runs, "timeout"), eta);
		if (not_ready(m) && json_is_string(json_object_get(m, "resolve_msg")))
			printf("%5s %s\n", "", gets_or(m, "resolve_msg", ""));
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
					   "cancelled" };
	const json_t *runs = json_object_get(m, "runs");
	json_int_t total = geti(runs, "total"), ended = runs_ended(runs);
	char bar[BAR_WIDTH + 1], eta[32];
	size_t i, fill = total > 0 ? (size_t)(ended * BAR_WIDTH / total) : 0;

	for (i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	printf("[%s] %lld/%lld runs", bar, (long long)ended, (long long)total);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (geti(runs, bad[i]))
			printf(", %lld %s", (long long)geti(runs, bad[i]), bad[i]);
	fmt_dur(json_object_get(m, "eta_s"), eta, sizeof(eta));
	printf(", ETA %s\n", eta);
	print_hosts_of(m);
}

static void print_matrix(const json_t *m)
{
	const json_t *r, *reason, *runs;
	char pos[32], why[REASON_W + 4];
	unsigned contended = 0;
	size_t i;

	printf("matrix %lld '%s': %s, %zu arms x %zu workloads\n", (long long)geti(m, "id"),
	       gets_or(m, "name", "?"), gets_or(m, "state", "?"),
	       json_array_size(json_object_get(m, "arms")),
	       json_array_size(json_object_get(m, "cells")));
	if (not_ready(m))
		printf("%s: %s\n", not_ready(m),
		       gets_or(m, "resolve_msg", "no run starts before its kernels are ready"));
	print_progress(m);
	printf("\n%6s %-16s %-16s %7s %-11s %s\n", "run", "arm", "workload", "blk/pos", "status",
	       "reason");
	runs = json_object_get(m, "runs_list");   /* queue.c; queue.h says "runs" */
	if (!json_is_array(runs))
		runs = json_object_get(m, "runs");
	json_array_foreach(runs, i, r) {
		snprintf(pos, sizeof(pos), "%lld/%lld", (long long)geti(r, "block"),
			 (long long)geti(r, "position"));
		reason = json_object_get(r, "reason");
		if (geti(r, "contended") == 1) {   /* a done run: its contended_why instead */
			reason = json_object_get(r, "contended_why");
			contended++;
		}
		snprintf(why, sizeof(why), "%s", json_is_string(reason) ? json_string_value(reason) : "");
		if (json_string_length(reason) > REASON_W)
			memcpy(why + REASON_W - 3, "...", 4);
		printf("%6lld %-16.16s %-16.16s %7s %-11.11s%s%s\n", (long long)geti(r, "id"),
		       gets_or(r, "arm", "?"), gets_or(r, "cell", "?"), pos,
		       geti(r, "contended") == 1 ? "contended" : gets_or(r, "status", "?"),
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

	if (call(c, "GET", "/health", NULL, 0, &res, err) < 0)
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

	if (call(c, "GET", "/bisections", NULL, 0, &res, err) < 0)
		return;
	if (json_array_size(res))
		printf("\n%-4s %-6s %-20s %-10s %-8s %s\n", "id", "matrix", "cell", "metric",
		       "state", "progress or result");
	json_array_foreach(res, i, b) {
		const json_t *r = json_object_get(b, "result");
		if (i == 10)
			break;
		escape_line(stdout, "%-4lld %-6lld %-20s %-10s %-8s %s", (long long)geti(b, "id"),
			    (long long)geti(b, "matrix"), gets_or(b, "cell", "-"), gets_or(b, "metric", "-"),
			    gets_or(b, "state", "-"), json_is_object(r) ? gets_or(r, "why", "") :
			    gets_or(b, "progress", ""));
	}
	json_decref(res);
}

static int cmd_status(const struct conf *c, char **argv, int json, char *err)
{
	char path[128];
	json_t *res;

	if (argv[1] && !spec_key_ok(argv[1]))
		return errorf(err, "matrix '%s': expected an id or a name", argv[1]);
	snprintf(path, sizeof(path), "/matrices%s%s", argv[1] ? "/" : "", argv[1] ? argv[1] : "");
	if (call(c, "GET", path, NULL, json, &res, err) < 0)
		return -1;
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

static int cmd_control(const struct conf *c, char **argv, int json, char *err)
{
	char path[128];
	json_t *res;

	if (!spec_key_ok(argv[1]))
		return errorf(err, "matrix '%s': expected an id or a name", argv[1]);
	snprintf(path, sizeof(path), "/matrices/%s/%s", argv[1], argv[0]);
	if (call(c, "POST", path, "", json, &res, err) < 0)
		return -1;
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

static int cmd_hosts(const struct conf *c, char **argv, int json, char *err)
{
	json_t *res, *h;
	size_t i;

	(void)argv;
	if (call(c, "GET", "/hosts", NULL, json, &res, err) < 0)
		return -1;
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

static int cmd_host(const struct conf *c, char **argv, int json, char *err)
{
	char path[128];
	json_t *res;

	if (strcmp(argv[1], "drain") && strcmp(argv[1], "resume"))
		return errorf(err, "host: expected drain or resume, got '%.32s'", argv[1]);
	if (!conf_host_name_ok(argv[2]))
		return errorf(err, "host '%.64s': expected a name from harness.conf", argv[2]);
	snprintf(path, sizeof(path), "/hosts/%s/%s", argv[2], argv[1]);
	if (call(c, "POST", path, "", json, &res, err) < 0)
		return -1;
	if (!json)
		printf("host %s: %s\n", argv[2], !strcmp(argv[1], "drain") ?
		       "drained: its blocks finish, it takes no new one" : "takes blocks again");
	json_decref(res);
	return 0;
}

/* ---- watch: the stream, one line an interval ---- */

struct watch {
	int json;
	long code;
	CURL *cu;
	char line[1 << 16];       /* a sample line fits; a longer one is an error */
	size_t len;
	char files[PROTO_MAX_FILES][PROTO_NAME_MAX];
	char streams[PROTO_MAX_STREAMS][PROTO_NAME_MAX];
	unsigned nfiles, nstreams;
	int64_t prev_t_ms;
	char status[32];
	int finished;
	int bad;                  /* a line we could not use */
	struct http errbody;      /* a non-200 reply */
};

static unsigned names(const json_t *arr, char (*out)[PROTO_NAME_MAX], unsigned max)
{
	const json_t *v;
	size_t i;
	unsigned n = 0;

	json_array_foreach(arr, i, v)
		if (n < max)
			snprintf(out[n++], PROTO_NAME_MAX, "%s", json_string_value(v) ?: "?");
	return n;
}

static int col_w(const char *name, int extra, int min)
{
	int w = (int)strlen(name) + extra;

	return w > min ? w : min;
}

static void watch_header(struct watch *w, const json_t *j)
{
	char head[PROTO_NAME_MAX + 4];
	unsigned i;

	w->nfiles = names(json_object_get(j, "files"), w->files, PROTO_MAX_FILES);
	w->nstreams = names(json_object_get(j, "streams"), w->streams, PROTO_MAX_STREAMS);
	printf("run %lld: %s\n", (long long)geti(j, "run"), gets_or(j, "status", "?"));
	printf("%6s", "t");
	for (i = 0; i < w->nstreams; i++) {
		snprintf(head, sizeof(head), "%s/s", w->streams[i]);
		printf(" %*s", col_w(head, 0, 9), head);
	}
	printf(" %9s %9s %9s", "majflt/s", "refault/s", "activ/s");
	for (i = 0; i < w->nfiles; i++) {
		snprintf(head, sizeof(head), "%s_MB", w->files[i]);
		printf(" %*s", col_w(head, 0, 7), head);
	}
	printf("\n");
}

static void watch_sample(struct watch *w, const json_t *j)
{
	int64_t t_ms = geti(j, "t_ms");
	double dt = (double)(t_ms - w->prev_t_ms) / 1000.0, ops[PROTO_MAX_STREAMS] = { 0 };
	int told[PROTO_MAX_STREAMS] = { 0 };   /* a stream's interval can be missing */
	char head[PROTO_NAME_MAX + 4];
	const json_t *s, *res;
	json_int_t k;
	size_t i;
	unsigned f;

	w->prev_t_ms = t_ms;
	json_array_foreach(json_object_get(j, "streams"), i, s) {
		k = json_is_integer(json_object_get(s, "stream")) ? geti(s, "stream") : (json_int_t)i;
		if (k < 0 || k >= PROTO_MAX_STREAMS)
			continue;
		told[k] = 1;
		if (json_object_get(s, "ops"))   /* read_ops + write_ops, summed by the queue */
			ops[k] += json_number_value(json_object_get(s, "ops"));
		else
			ops[k] += (double)(geti(s, "read_ops") + geti(s, "write_ops"));
	}
	printf("%6.*f", t_ms % 1000 ? 1 : 0, (double)t_ms / 1000.0);
	if (dt <= 0)
		dt = NAN;
	for (f = 0; f < w->nstreams; f++) {
		snprintf(head, sizeof(head), "%s/s", w->streams[f]);
		if (told[f])
			printf(" %*.0f", col_w(head, 0, 9), ops[f] / dt);
		else
			printf(" %*s", col_w(head, 0, 9), "-");
	}
	printf(" %9.0f %9.0f %9.0f", (double)geti(j, "pgmajfault") / dt,
	       (double)geti(j, "workingset_refault_file") / dt,
	       (double)geti(j, "workingset_activate_file") / dt);
	res = json_object_get(j, "resident");
	for (f = 0; f < w->nfiles; f++) {
		snprintf(head, sizeof(head), "%s_MB", w->files[f]);
		printf(" %*.0f", col_w(head, 0, 7),
		       (double)json_integer_value(json_array_get(res, f)) * 4096.0 / (1 << 20));
	}
	res = json_object_get(j, "ramp");   /* 0/1 from the database, or a boolean */
	printf("%s\n", json_is_true(res) || json_integer_value(res) ? "  ramp" : "");
}

static void watch_line(struct watch *w)
{
	json_t *j;

	if (!w->len)
		return;   /* keep-alive */
	if (w->json) {
		fwrite(w->line, 1, w->len, stdout);
		putchar('\n');
	}
	j = json_loadb(w->line, w->len, 0, NULL);
	if (!json_is_object(j)) {
		w->bad = 1;
	} else if (json_is_true(json_object_get(j, "finished"))) {
		snprintf(w->status, sizeof(w->status), "%s", gets_or(j, "status", "?"));
		w->finished = 1;
	} else if (json_object_get(j, "seq")) {
		if (!w->json)
			watch_sample(w, j);
	} else {
		snprintf(w->status, sizeof(w->status), "%s", gets_or(j, "status", "?"));
		if (!w->json)
			watch_header(w, j);
	}
	json_decref(j);
	fflush(stdout);
}

static size_t watch_data(char *data, size_t size, size_t n, void *cls)
{
	struct watch *w = cls;
	size_t len = size * n, i;

	if (!w->code)
		curl_easy_getinfo(w->cu, CURLINFO_RESPONSE_CODE, &w->code);
	if (w->code != 200)
		return collect(data, size, n, &w->errbody);
	for (i = 0; i < len; i++) {
		if (data[i] == '\n') {
			watch_line(w);
			w->len = 0;
		} else if (w->len == sizeof(w->line)) {
			w->bad = 1;
			return 0;
		} else {
			w->line[w->len++] = data[i];
		}
	}
	return len;
}

static int cmd_watch(const struct conf *c, char **argv, int json, char *err)
{
	struct curl_slist *hdrs = NULL;
	_cleanup_free_ struct watch *w = calloc(1, sizeof(*w));
	char path[128], *end;
	long long run;
	CURLcode rc;
	int ret = -1;

	errno = 0;
	run = strtoll(argv[1], &end, 10);
	if (errno || *end || run <= 0 || strspn(argv[1], "0123456789") != strlen(argv[1]))
		return errorf(err, "run '%s': expected a run id", argv[1]);
	if (!w)
		return errorf(err, "out of memory");
	snprintf(path, sizeof(path), "/runs/%lld/stream", run);
	w->json = json;
	w->cu = handle(c, path, &hdrs, err);
	if (!w->cu)
		return -1;
	curl_easy_setopt(w->cu, CURLOPT_WRITEFUNCTION, watch_data);
	curl_easy_setopt(w->cu, CURLOPT_WRITEDATA, w);
	rc = curl_easy_perform(w->cu);
	if (w->code && w->code != 200) {
		if (json && w->errbody.body)
			fputs(w->errbody.body, stdout);
		ret = json ? -2 : daemon_error(&w->errbody, err);
	} else if (rc != CURLE_OK && !w->bad) {
		ret = curl_failed(c, rc, err);
	} else if (w->bad) {
		ret = errorf(err, "run %lld: the daemon sent a line that is not a JSON object", run);
	} else if (!w->finished) {
		ret = errorf(err, "run %lld: the stream ended before the run did", run);
	} else {
		if (!json)
			printf("run %lld: %s\n", run, w->status);
		ret = strcmp(w->status, "done") ? -2 : 0;
	}
	http_release(&w->errbody);
	curl_easy_cleanup(w->cu);
	curl_slist_free_all(hdrs);
	return ret;
}

/* ---- dispatch ---- */

static const struct command {
	const char *name;
	int min_args, max_args;    /* after the command's name */
	int (*fn)(const struct conf *c, char **argv, int json, char *err);
	const char *usage;
} commands[] = {
	{ "submit", 1, 2, cmd_submit, "submit [--wait] FILE" },
	{ "status", 0, 1, cmd_status, "status [MATRIX]" },
	{ "cancel", 1, 1, cmd_control, "cancel MATRIX" },
	{ "pause", 1, 1, cmd_control, "pause MATRIX" },
	{ "resume", 1, 1, cmd_control, "resume MATRIX" },
	{ "watch", 1, 1, cmd_watch, "watch RUN" },
	{ "hosts", 0, 0, cmd_hosts, "hosts" },
	{ "host", 2, 2, cmd_host, "host drain|resume NAME" },
};

static const struct command *find(const char *cmd)
{
	size_t i;

	for (i = 0; cmd && i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, cmd))
			return &commands[i];
	return NULL;
}

int client_handles(const char *cmd)
{
	return find(cmd) != NULL;
}

int client_main(const struct conf *c, int argc, char **argv, int json)
{
	const struct command *cmd = find(argv[0]);
	char err[ERR_MAX] = "";
	int rc;

	if (!cmd)
		return 1;
	if (argc - 1 < cmd->min_args || argc - 1 > cmd->max_args) {
		escape_line(stderr, "usage: harness [--json] %s", cmd->usage);
		return 1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		escape_line(stderr, "harness: libcurl would not start");
		return 1;
	}
	rc = cmd->fn(c, argv, json, err);
	curl_global_cleanup();
	if (rc == -1)
		escape_line(stderr, "harness: %s", err);
	return rc < 0 ? 1 : 0;
}
