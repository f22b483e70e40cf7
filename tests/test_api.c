/* test_api.c -- the daemon's HTTP API in-process: api_start on a mkdtemp()
 * results directory with a fake images tree (a 4 KiB x86 bzImage look-alike
 * as IMAGES/x86_64/kernel/6.12/vmlinuz), then libcurl over the unix socket
 * and over TCP, as a client would. No guest boots. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include "analysis/summary.h"
#include "daemon/api.h"
#include "daemon/buildgate.h"
#include "daemon/resolver.h"
#include "conf/conf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/proc.h"
#include "store/store.h"
#include "store/store_bisect.h"
#include "testlib.h"

#define NSUBMIT 20
#define TOKEN   "0123456789abcdef0123456789abcdef-test"   /* CONF_TOKEN_MIN and more */
#define CROWD   100     /* clients trickling their headers */

static char dir[PATH_MAX];
static struct conf conf;
static struct api *api;

/* ---- fixture ---- */

static int setup(void **state)
{
	(void)state;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	fixture_dir(dir, "test_api", &conf);   /* results DIR/results */
	sfmt(conf.api_socket, sizeof(conf.api_socket), "%s/harnessd.sock", conf.results);
	fixture_kernel(&conf, "6.12", "6.12.99-test", "070701");
	mkdirs("%s", conf.results);
	api = fixture_api(&conf);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	api_stop(api);
	curl_global_cleanup();
	return fixture_rmdir(dir);
}

/* ---- a client ---- */

struct resp {
	long code;
	char *body;
	size_t len;
	json_t *json;
};

static size_t collect(char *data, size_t size, size_t n, void *cls)
{
	struct resp *r = cls;
	char *nb = realloc(r->body, r->len + size * n + 1);

	if (!nb)
		return 0;
	r->body = nb;
	memcpy(r->body + r->len, data, size * n);
	r->len += size * n;
	r->body[r->len] = '\0';
	return size * n;
}

static void resp_release(struct resp *r)
{
	free(r->body);
	json_decref(r->json);
	memset(r, 0, sizeof(*r));
}

/*
 * method url (a path on the unix socket, or a whole http:// URL) with body
 * (len bytes; NULL: none) and, for TCP, a bearer token, on handle cu (which
 * keeps its connection for the next call). Returns the curl code; the reply
 * in r, its JSON parsed if it is JSON.
 */
static CURLcode req_on(CURL *cu, const char *method, const char *url, const char *body,
		       size_t len, const char *token, struct resp *r)
{
	struct curl_slist *hdrs = NULL;
	char full[512], auth[256];
	CURLcode rc;

	memset(r, 0, sizeof(*r));
	if (!strncmp(url, "http://", 7)) {
		sfmt(full, sizeof(full), "%s", url);
	} else {
		sfmt(full, sizeof(full), "http://localhost%s", url);
		curl_easy_setopt(cu, CURLOPT_UNIX_SOCKET_PATH, conf.api_socket);
	}
	if (token) {
		sfmt(auth, sizeof(auth), "Authorization: Bearer %s", token);
		hdrs = curl_slist_append(hdrs, auth);
	}
	curl_easy_setopt(cu, CURLOPT_URL, full);
	curl_easy_setopt(cu, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(cu, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(cu, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(cu);
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &r->code);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdrs);
	if (r->body)
		r->json = json_loads(r->body, 0, NULL);
	return rc;
}

/* The same on a handle of its own. */
static CURLcode req(const char *method, const char *url, const char *body, size_t len,
		    const char *token, struct resp *r)
{
	CURL *cu = curl_easy_init();
	CURLcode rc;

	assert_non_null(cu);
	rc = req_on(cu, method, url, body, len, token, r);
	curl_easy_cleanup(cu);
	return rc;
}

/* method path [body] must answer code; an error must be {"error": one line}. */
static void expect(const char *method, const char *path, const char *body, long code,
		   const char *want_in_error)
{
	struct resp r;
	const char *msg;

	assert_int_equal(req(method, path, body, body ? strlen(body) : 0, NULL, &r), CURLE_OK);
	if (r.code != code)
		fail_msg("%s %s: %ld, not %ld: %s", method, path, r.code, code, r.body);
	assert_non_null(r.json);
	assert_true(r.len > 0 && r.body[r.len - 1] == '\n');
	assert_null(memchr(r.body, '\n', r.len - 1));   /* compact: one line */
	if (code >= 400) {
		msg = json_string_value(json_object_get(r.json, "error"));
		assert_non_null(msg);
		if (want_in_error && !strstr(msg, want_in_error))
			fail_msg("%s %s: error '%s' lacks '%s'", method, path, msg, want_in_error);
	}
	resp_release(&r);
}

/* A matrix the queue accepts (two arms on the fake 6.12), as a submission body. */
static char *submission(const char *name)
{
	char *body;

	assert_true(asprintf(&body,
		"{\"base_dir\": \"%s\", \"spec\": {\"name\": \"%s\", \"reps\": 2, \"arms\": ["
		"{\"name\": \"on\", \"kernel\": \"6.12\", \"lru_gen\": \"y\"},"
		"{\"name\": \"off\", \"kernel\": \"6.12\", \"lru_gen\": \"n\"}],"
		"\"workloads\": [{\"name\": \"w\", \"files\": [{\"name\": \"d\", \"mib\": 8}],"
		"\"streams\": [{\"kind\": \"random\", \"file\": \"d\"}]}]}}", dir, name) > 0);
	return body;
}

/* A matrix's runs: "runs_list" (queue.c) or "runs" when that is the list (queue.h). */
static json_t *run_list(json_t *m)
{
	json_t *l = json_object_get(m, "runs_list");

	return json_is_array(l) ? l : json_object_get(m, "runs");
}

/* ---- tests ---- */

static void test_health(void **state)
{
	struct resp r;

	(void)state;
	assert_int_equal(req("GET", "/health", NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	assert_true(json_is_true(json_object_get(r.json, "ok")));
	resp_release(&r);
}

static void test_socket_mode(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(stat(conf.api_socket, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_bad_requests(void **state)
{
	(void)state;
	expect("POST", "/matrices", "{\"spec\": {\"name\": ", 400, "malformed JSON at line 1");
	expect("POST", "/matrices", "{\"spec\": [}", 400, "column");
	expect("POST", "/matrices", "", 400, "malformed JSON");
	expect("POST", "/matrices", "[1, 2]", 400, "\"spec\"");
	expect("POST", "/matrices", "{\"base_dir\": \"/\"}", 400, "\"spec\"");
	expect("POST", "/matrices", "{\"base_dir\": \"/\", \"spec\": 3}", 400, "\"spec\"");
	expect("POST", "/matrices", "{\"base_dir\": \"rel\", \"spec\": {}}", 400, "base_dir");
	expect("POST", "/matrices", "{\"base_dir\": \"/\", \"spec\": {}, \"x\": 1}", 400,
	       "unknown key 'x'");
	/* a matrix the queue refuses: its reason comes back */
	expect("POST", "/matrices", "{\"base_dir\": \"/\", \"spec\": {\"name\": \"x\"}}", 400,
	       NULL);
	expect("GET", "/nowhere", NULL, 404, "no such path");
	expect("GET", "/matrices/1/2/3/4/5", NULL, 404, NULL);
	expect("GET", "//health", NULL, 404, NULL);
	expect("GET", "/health/", NULL, 404, NULL);
	expect("DELETE", "/matrices", NULL, 405, "allowed: POST, GET");
	expect("POST", "/health", "", 405, "allowed: GET");
	expect("GET", "/matrices/x/cancel", NULL, 405, NULL);
	expect("GET", "/matrices/a%20b", NULL, 400, "expected an id or a name");
	expect("GET", "/matrices/"
	       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL, 404, NULL);
	expect("GET", "/matrices/no-such-matrix", NULL, 404, "no matrix");
	expect("POST", "/matrices/no-such-matrix/pause", "", 404, "no matrix");
	expect("GET", "/runs/0/samples", NULL, 400, "positive");
	expect("GET", "/runs/-1/samples", NULL, 400, NULL);
	expect("GET", "/runs/99999999999999999999/samples", NULL, 400, NULL);
	expect("GET", "/runs/12345/samples", NULL, 404, "no run");
	expect("GET", "/runs/12345/stream", NULL, 404, "no run");
	expect("GET", "/runs/1/samples?after=x", NULL, 400, "'after'");
	expect("GET", "/runs/1/samples?after=1&after=2", NULL, 400, "twice");
	expect("GET", "/runs/1/samples?max=0", NULL, 400, "'max'");
	expect("GET", "/runs/1/samples?max=1001", NULL, 400, "'max'");
	expect("GET", "/runs/1/samples?after=+1", NULL, 400, NULL);
	expect("GET", "/runs/1/stream?max=5", NULL, 400, "unknown query parameter");
	expect("GET", "/health?x=1", NULL, 400, "unknown query parameter");
	expect("GET", "/health", "{}", 400, "takes no body");
	/* bisections: the body by allow-list, the matrix looked up, 404 for none */
	expect("POST", "/matrices/no-such-matrix/bisect", "{\"cell\": \"w\", \"metric\": "
	       "\"ops/s\", \"good\": \"a\", \"bad\": \"b\"}", 404, "no matrix");
	expect("POST", "/matrices/x/bisect", "[1]", 400, "expected an object");
	expect("POST", "/matrices/x/bisect", "{\"cell\": \"w\", \"include\": \"/etc/shadow\"}",
	       400, "unknown key 'include'");
	expect("POST", "/matrices/x/bisect", "{\"metric\": \"ops/s\", \"good\": \"a\", "
	       "\"bad\": \"b\"}", 400, "\"cell\": expected a name");
	expect("POST", "/matrices/x/bisect", "{\"cell\": \"w\", \"metric\": \"ops/s\", "
	       "\"good\": \"a\", \"bad\": \"b\", \"max_runs\": -1}", 400, "\"max_runs\"");
	expect("POST", "/matrices/x/bisect", "{\"cell\": \"w\", \"metric\": \"nosuch\", "
	       "\"good\": \"a\", \"bad\": \"b\"}", 400, "metric 'nosuch'");
	expect("GET", "/bisections/12345", NULL, 404, "no bisection");
	expect("GET", "/bisections/0", NULL, 400, "positive");
	expect("GET", "/bisections", NULL, 200, NULL);
	expect("GET", "/matrices/x/bisect", NULL, 405, NULL);
}

/* A matrix of packaged kernels is refused a bisection, in one line, nothing queued. */
static void test_bisect_needs_source_arms(void **state)
{
	_cleanup_free_ char *body = submission("bis");
	struct resp r;

	(void)state;
	assert_int_equal(req("POST", "/matrices", body, strlen(body), NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 201);
	resp_release(&r);
	expect("POST", "/matrices/bis/bisect", "{\"cell\": \"w\", \"metric\": \"ops/s\", "
	       "\"good\": \"on\", \"bad\": \"off\"}", 400, "is not built from source");
	expect("POST", "/matrices/bis/bisect", "{\"cell\": \"nosuch\", \"metric\": \"ops/s\", "
	       "\"good\": \"on\", \"bad\": \"off\"}", 400, "has no such cell");
	expect("POST", "/matrices/bis/bisect", "{\"cell\": \"w\", \"metric\": \"ops/s\", "
	       "\"good\": \"on\", \"bad\": \"on\"}", 400, "both 'on'");
	assert_int_equal(req("GET", "/bisections", NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	assert_int_equal(json_array_size(r.json), 0);
	resp_release(&r);
}

static void test_body_too_large(void **state)
{
	size_t len = API_BODY_MAX + 1;
	char *big = malloc(len);
	struct resp r;

	(void)state;
	assert_non_null(big);
	memset(big, ' ', len);
	assert_int_equal(req("POST", "/matrices", big, len, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 413);
	assert_non_null(json_object_get(r.json, "error"));
	resp_release(&r);
	/* exactly the limit is read (and is not JSON) */
	assert_int_equal(req("POST", "/matrices", big, len - 1, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 400);
	resp_release(&r);
	free(big);
	/* the daemon still answers */
	expect("GET", "/health", NULL, 200, NULL);
}

/* Chunked, no Content-Length: refused once it passes the limit, without buffering it all. */
struct feed {
	size_t left;
};

static size_t feed_spaces(char *buf, size_t size, size_t n, void *cls)
{
	struct feed *f = cls;
	size_t len = size * n < f->left ? size * n : f->left;

	memset(buf, ' ', len);
	f->left -= len;
	return len;
}

static void test_body_too_large_chunked(void **state)
{
	struct feed f = { 3 * API_BODY_MAX };
	struct curl_slist *hdrs = curl_slist_append(NULL, "Transfer-Encoding: chunked");
	struct resp r = { 0 };
	CURL *cu = curl_easy_init();
	CURLcode rc;

	(void)state;
	curl_easy_setopt(cu, CURLOPT_URL, "http://localhost/matrices");
	curl_easy_setopt(cu, CURLOPT_UNIX_SOCKET_PATH, conf.api_socket);
	curl_easy_setopt(cu, CURLOPT_POST, 1L);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(cu, CURLOPT_READFUNCTION, feed_spaces);
	curl_easy_setopt(cu, CURLOPT_READDATA, &f);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT, 30L);
	rc = curl_easy_perform(cu);
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &r.code);
	curl_easy_cleanup(cu);
	curl_slist_free_all(hdrs);
	/* a 413, or the connection dropped mid-upload: never a 2xx or a 400 */
	if (rc == CURLE_OK)
		assert_int_equal(r.code, 413);
	assert_true(f.left > 0);   /* it did not read the whole 3 MiB */
	resp_release(&r);
	expect("GET", "/health", NULL, 200, NULL);
}

struct submitter {
	pthread_t t;
	int i;
	long code;
	char body[512];
};

static void *submit_one(void *arg)
{
	struct submitter *s = arg;
	char name[32];
	char *body;
	struct resp r;

	snprintf(name, sizeof(name), "conc-%02d", s->i);
	body = submission(name);
	if (req("POST", "/matrices", body, strlen(body), NULL, &r) == CURLE_OK) {
		s->code = r.code;
		snprintf(s->body, sizeof(s->body), "%s", r.body ? r.body : "");
	}
	resp_release(&r);
	free(body);
	return NULL;
}

static void test_concurrent_submissions(void **state)
{
	struct submitter s[NSUBMIT];
	int seen[NSUBMIT] = { 0 }, i, k;
	const json_t *m;
	const char *name;
	struct resp r;
	size_t j;

	(void)state;
	for (i = 0; i < NSUBMIT; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].i = i;
		assert_int_equal(pthread_create(&s[i].t, NULL, submit_one, &s[i]), 0);
	}
	for (i = 0; i < NSUBMIT; i++)
		pthread_join(s[i].t, NULL);
	for (i = 0; i < NSUBMIT; i++)
		if (s[i].code != 201)
			fail_msg("submission %d: %ld %s", i, s[i].code, s[i].body);
	assert_int_equal(req("GET", "/matrices", NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	assert_true(json_is_array(r.json));
	json_array_foreach(r.json, j, m) {
		name = json_string_value(json_object_get(m, "name"));
		if (!name || sscanf(name, "conc-%d", &k) != 1)
			continue;
		assert_true(k >= 0 && k < NSUBMIT);
		seen[k]++;
		assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "runs"),
								    "total")), 4);
	}
	for (i = 0; i < NSUBMIT; i++)
		if (seen[i] != 1)
			fail_msg("conc-%02d listed %d times", i, seen[i]);
	resp_release(&r);
}

/* NSUBMIT threads POST one spec at once (a barrier lines them up), ROUNDS times. */
struct same_spec {
	pthread_t t;
	pthread_barrier_t *go;
	const char *body;
	long code;
	int appended;
	json_int_t matrix, runs;
	char reply[512];
};

static void *submit_same(void *arg)
{
	struct same_spec *s = arg;
	struct resp r;

	pthread_barrier_wait(s->go);
	if (req("POST", "/matrices", s->body, strlen(s->body), NULL, &r) == CURLE_OK) {
		s->code = r.code;
		s->appended = json_is_true(json_object_get(r.json, "appended"));
		s->matrix = json_integer_value(json_object_get(r.json, "matrix"));
		s->runs = json_integer_value(json_object_get(r.json, "runs"));
		snprintf(s->reply, sizeof(s->reply), "%s", r.body ? r.body : "");
	}
	resp_release(&r);
	return NULL;
}

/* How many matrices GET /matrices lists under name, and the runs of the last one. */
static int count_named(const char *name, json_int_t *ret_runs)
{
	const json_t *m;
	struct resp r;
	size_t j;
	int n = 0;

	assert_int_equal(req("GET", "/matrices", NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	json_array_foreach(r.json, j, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name)) {
			n++;
			*ret_runs = json_integer_value(json_object_get(json_object_get(m, "runs"),
								       "total"));
		}
	resp_release(&r);
	return n;
}

#define ROUNDS 10

static void test_concurrent_same_spec(void **state)
{
	struct same_spec s[NSUBMIT];
	pthread_barrier_t go;
	json_int_t runs = 0, added;
	char name[32], *body;
	int round, i, fresh;

	(void)state;
	for (round = 0; round < ROUNDS; round++) {
		snprintf(name, sizeof(name), "same-%02d", round);
		body = submission(name);
		assert_int_equal(pthread_barrier_init(&go, NULL, NSUBMIT), 0);
		for (i = 0; i < NSUBMIT; i++) {
			s[i] = (struct same_spec){ .go = &go, .body = body };
			assert_int_equal(pthread_create(&s[i].t, NULL, submit_same, &s[i]), 0);
		}
		for (i = 0; i < NSUBMIT; i++)
			pthread_join(s[i].t, NULL);
		pthread_barrier_destroy(&go);
		free(body);
		fresh = 0;
		added = 0;
		for (i = 0; i < NSUBMIT; i++) {
			if (s[i].code != 201)
				fail_msg("round %d, submission %d: %ld %s", round, i, s[i].code,
					 s[i].reply);
			if (s[i].matrix != s[0].matrix)
				fail_msg("round %d: matrices %lld and %lld for one spec", round,
					 (long long)s[0].matrix, (long long)s[i].matrix);
			fresh += !s[i].appended;
			added += s[i].runs;
		}
		if (count_named(name, &runs) != 1 || fresh != 1 || added != 4 || runs != 4)
			fail_msg("round %d: %d matrices '%s' listed, %d queued it new, %lld runs "
				 "added, %lld listed; want 1, 1, 4, 4", round, count_named(name, &runs),
				 name, fresh, (long long)added, (long long)runs);
	}
}

static void test_submit_and_control(void **state)
{
	char *body = submission("ctl");
	struct resp r;

	(void)state;
	assert_int_equal(req("POST", "/matrices", body, strlen(body), NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 201);
	assert_string_equal(json_string_value(json_object_get(r.json, "name")), "ctl");
	assert_int_equal(json_integer_value(json_object_get(r.json, "runs")), 4);
	assert_true(json_is_false(json_object_get(r.json, "appended")));
	resp_release(&r);
	/* the same spec again: nothing new, appended */
	assert_int_equal(req("POST", "/matrices", body, strlen(body), NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 201);
	assert_true(json_is_true(json_object_get(r.json, "appended")));
	assert_int_equal(json_integer_value(json_object_get(r.json, "runs")), 0);
	resp_release(&r);
	free(body);
	assert_int_equal(req("GET", "/matrices/ctl", NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	assert_int_equal(json_array_size(run_list(r.json)), 4);
	resp_release(&r);
	expect("POST", "/matrices/ctl/pause", "", 200, NULL);
	expect("POST", "/matrices/ctl/resume", "", 200, NULL);
	expect("POST", "/matrices/ctl/cancel", "", 200, NULL);
	expect("POST", "/matrices/ctl/resume", "", 409, "cancelled");
}

/* Submit submission(name) over the unix socket: the id of its first run. */
static int64_t first_run(const char *name)
{
	char *body = submission(name), path[128];
	struct resp r;
	int64_t run;

	assert_int_equal(req("POST", "/matrices", body, strlen(body), NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 201);
	resp_release(&r);
	free(body);
	sfmt(path, sizeof(path), "/matrices/%s", name);
	assert_int_equal(req("GET", path, NULL, 0, NULL, &r), CURLE_OK);
	run = json_integer_value(json_object_get(json_array_get(run_list(r.json), 0), "id"));
	assert_true(run > 0);
	resp_release(&r);
	return run;
}

/*
 * A run with two samples, then failed: the stream sends header, samples, end.
 * While it runs, an interval is listed once its stream has told it.
 */
static void test_samples_and_stream(void **state)
{
	struct proto_stream_sample ss = { .active = 1, .read_ops = 5 };
	struct proto_sample smp;
	struct store *s;
	char db[PATH_MAX], err[ERR_MAX], path[128];
	int64_t run = first_run("str");
	struct resp r;
	json_t *line;
	char *p, *nl;
	int n = 0;

	(void)state;

	sfmt(db, sizeof(db), "%s/harness.db", conf.results);
	assert_int_equal(store_open(db, &s, err), 0);
	memset(&smp, 0, sizeof(smp));
	smp.t_ms = 1000;
	smp.pgmajfault = 7;
	if (store_sample(s, run, &smp, err) < 0)
		fail_msg("store_sample: %s", err);
	assert_int_equal(store_stream_sample(s, run, &ss, err), 0);
	smp.seq = 1;
	smp.t_ms = 2000;
	assert_int_equal(store_sample(s, run, &smp, err), 0);

	sfmt(path, sizeof(path), "/runs/%lld/samples?after=0", (long long)run);
	assert_int_equal(req("GET", path, NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	assert_int_equal(json_array_size(json_object_get(r.json, "samples")), 0);
	resp_release(&r);
	ss.seq = 1;
	assert_int_equal(store_stream_sample(s, run, &ss, err), 0);
	assert_int_equal(req("GET", path, NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	line = json_array_get(json_object_get(json_array_get(json_object_get(r.json, "samples"), 0),
					      "streams"), 0);
	assert_int_equal(json_integer_value(json_object_get(line, "stream")), 0);
	assert_int_equal(json_integer_value(json_object_get(line, "ops")), 5);
	resp_release(&r);

	if (summary_finish_run(s, run, "failed", "test", NULL, err) < 0)
		fail_msg("summary_finish_run: %s", err);
	store_close(s);
	sfmt(path, sizeof(path), "/runs/%lld/stream", (long long)run);
	assert_int_equal(req("GET", path, NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	for (p = r.body; p && (nl = strchr(p, '\n')); p = nl + 1, n++) {
		line = json_loadb(p, (size_t)(nl - p), 0, NULL);
		assert_true(json_is_object(line));
		if (n == 0)
			assert_non_null(json_object_get(line, "streams"));
		else if (n < 3)
			assert_int_equal(json_integer_value(json_object_get(line, "seq")), n - 1);
		else
			assert_true(json_is_true(json_object_get(line, "finished")));
		json_decref(line);
	}
	assert_int_equal(n, 4);
	resp_release(&r);
}

static void test_tcp_token(void **state)
{
	struct conf tc = conf;
	struct api *t = NULL;
	char err[ERR_MAX], url[128];
	struct resp r;

	(void)state;
	/* an open TCP listener is refused */
	sfmt(tc.api_socket, sizeof(tc.api_socket), "%s/tcp.sock", conf.results);
	sfmt(tc.api_tcp, sizeof(tc.api_tcp), "127.0.0.1:0");
	assert_int_equal(api_start(&tc, &t, err), -1);
	assert_non_null(strstr(err, "api_token"));
	sfmt(tc.api_token, sizeof(tc.api_token), "s3cret-token-for-the-test");
	t = fixture_api(&tc);
	assert_true(api_tcp_port(t) > 0);
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/health", api_tcp_port(t));
	assert_int_equal(req("GET", url, NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 401);
	assert_non_null(json_object_get(r.json, "error"));
	resp_release(&r);
	assert_int_equal(req("GET", url, NULL, 0, "s3cret-token-for-the-tes", &r), CURLE_OK);
	assert_int_equal(r.code, 401);
	resp_release(&r);
	assert_int_equal(req("GET", url, NULL, 0, "s3cret-token-for-the-test!", &r), CURLE_OK);
	assert_int_equal(r.code, 401);
	resp_release(&r);
	assert_int_equal(req("GET", url, NULL, 0, "s3cret-token-for-the-test", &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	assert_true(json_is_true(json_object_get(r.json, "ok")));
	resp_release(&r);
	/* without a token even a 404 is a 401 */
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/nowhere", api_tcp_port(t));
	assert_int_equal(req("GET", url, NULL, 0, NULL, &r), CURLE_OK);
	assert_int_equal(r.code, 401);
	resp_release(&r);
	api_stop(t);
}

/*
 * Hosts: a matrix whose arch no host runs is refused at submit, in one
 * line, before anything is queued; GET /hosts needs the scheduler.
 */
static void test_submit_arch_no_host(void **state)
{
	struct conf tc = conf;
	struct api *t;
	char url[128], *body = submission("noarch");
	const char *msg;
	struct resp r;

	(void)state;
	sfmt(tc.api_socket, sizeof(tc.api_socket), "%s/hosts.sock", conf.results);
	sfmt(tc.api_tcp, sizeof(tc.api_tcp), "127.0.0.1:0");
	sfmt(tc.api_token, sizeof(tc.api_token), "s3cret-token-for-the-test");
	tc.nhosts = 1;
	memset(&tc.hosts[0], 0, sizeof(tc.hosts[0]));
	sfmt(tc.hosts[0].name, sizeof(tc.hosts[0].name), "pi");
	sfmt(tc.hosts[0].uri, sizeof(tc.hosts[0].uri), "qemu+tcp://pi.lab/system");
	sfmt(tc.hosts[0].archs, sizeof(tc.hosts[0].archs), "aarch64");
	tc.hosts[0].slots = 1;
	t = fixture_api(&tc);
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/matrices", api_tcp_port(t));
	assert_int_equal(req("POST", url, body, strlen(body), tc.api_token, &r), CURLE_OK);
	assert_true(r.code >= 400 && r.code < 500);
	msg = json_string_value(json_object_get(r.json, "error"));
	assert_non_null(msg);
	assert_non_null(strstr(msg, "arch 'x86_64': no host in harness.conf runs x86_64 guests"));
	assert_null(strchr(msg, '\n'));
	resp_release(&r);
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/matrices/noarch", api_tcp_port(t));
	assert_int_equal(req("GET", url, NULL, 0, tc.api_token, &r), CURLE_OK);
	assert_int_equal(r.code, 404);      /* nothing was queued */
	resp_release(&r);
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/hosts", api_tcp_port(t));
	assert_int_equal(req("GET", url, NULL, 0, tc.api_token, &r), CURLE_OK);
	assert_int_equal(r.code, 503);      /* no scheduler in this test */
	resp_release(&r);
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/hosts/Bad!/drain", api_tcp_port(t));
	assert_int_equal(req("POST", url, "", 0, tc.api_token, &r), CURLE_OK);
	assert_int_equal(r.code, 400);
	resp_release(&r);
	free(body);
	api_stop(t);
}

/* ---- TCP: slow headers, the gate, what harnessd -n checks ---- */

/* A second API on *tc: conf's, its own socket, TCP on a free port with TOKEN, gated by lim. */
static struct api *tcp_api(struct conf *tc, const char *sock, const struct gate_limits *lim)
{
	struct api *t = NULL;
	char err[ERR_MAX];

	*tc = conf;
	sfmt(tc->api_socket, sizeof(tc->api_socket), "%s/%s", conf.results, sock);
	sfmt(tc->api_tcp, sizeof(tc->api_tcp), "127.0.0.1:0");
	sfmt(tc->api_token, sizeof(tc->api_token), "%s", TOKEN);
	if (api_start_limits(tc, lim, &t, err) < 0)
		fail_msg("api_start_limits: %s", err);
	return t;
}

/* A TCP connection from src (an address of 127/8) to 127.0.0.1:port, not waited for. */
static int dial_from(const char *src, unsigned port)
{
	struct sockaddr_in from = { .sin_family = AF_INET };
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET, src, &from.sin_addr), 1);
	assert_int_equal(inet_pton(AF_INET, "127.0.0.1", &to.sin_addr), 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0 && errno != EINPROGRESS)
		fail_msg("connect from %s: %s", src, strerror(errno));
	return fd;
}

/* Clients sending a request's headers a byte at a time, never finishing them. */
struct trickle {
	int fd[CROWD];            /* -1: the server closed it */
	size_t sent[CROWD];
	unsigned n, open;
};

static const char slow_head[] = "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ";

/* One more byte from each open client, then up to ms for the server to close some. */
static void trickle_round(struct trickle *t, int ms)
{
	struct pollfd pfd[CROWD];
	char c, buf[256];
	unsigned i;
	ssize_t r;

	for (i = 0; i < t->n; i++) {
		pfd[i] = (struct pollfd){ .fd = t->fd[i], .events = POLLIN | POLLRDHUP };
		c = t->sent[i] < sizeof(slow_head) - 1 ? slow_head[t->sent[i]] : 'a';
		if (t->fd[i] >= 0 && send(t->fd[i], &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
			t->sent[i]++;
	}
	if (poll(pfd, t->n, ms) <= 0)
		return;
	for (i = 0; i < t->n; i++) {
		if (t->fd[i] < 0 || !pfd[i].revents)
			continue;
		r = recv(t->fd[i], buf, sizeof(buf), MSG_DONTWAIT);
		if (r > 0 || (r < 0 && errno == EAGAIN))
			continue;
		close(t->fd[i]);   /* end of file, or reset: the server let go */
		t->fd[i] = -1;
		t->open--;
	}
}

/* Trickle until at most left clients are open, or for at most bound_ms. */
static void trickle_until(struct trickle *t, unsigned left, int64_t bound_ms)
{
	int64_t end = now_ms() + bound_ms;

	while (t->open > left && now_ms() < end)
		trickle_round(t, 50);
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void trickle_close(struct trickle *t)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
}

/* The token holder's GET url, on a thread while the main one trickles. */
struct holder {
	pthread_t t;
	char url[128];
	CURLcode rc;
	long code;
	atomic_int done;
};

static void *hold(void *arg)
{
	struct holder *h = arg;
	struct resp r;

	h->rc = req("GET", h->url, NULL, 0, TOKEN, &r);
	h->code = r.code;
	resp_release(&r);
	atomic_store(&h->done, 1);
	return NULL;
}

/*
 * CROWD clients from src[i % nsrc] trickle their headers past any idle
 * timeout; the token holder, from 127.0.0.1, still gets its answer, and the
 * server let go of all but left of them. The header deadline is longer than
 * the test: only the caps can make room.
 */
static void crowd(const char *sock, const char *const *src, unsigned nsrc, unsigned left)
{
	struct gate_limits lim = { 600000, API_PEER_WAITING, API_WAITING };
	struct trickle t = { .n = CROWD, .open = CROWD };
	struct holder h = { .rc = CURLE_OK };
	struct conf tc;
	struct api *a = tcp_api(&tc, sock, &lim);
	unsigned i;

	for (i = 0; i < CROWD; i++)
		t.fd[i] = dial_from(src[i % nsrc], api_tcp_port(a));
	trickle_until(&t, left, 10000);
	sfmt(h.url, sizeof(h.url), "http://127.0.0.1:%u/health", api_tcp_port(a));
	assert_int_equal(pthread_create(&h.t, NULL, hold, &h), 0);
	while (!atomic_load(&h.done))
		trickle_round(&t, 50);
	pthread_join(h.t, NULL);
	if (h.rc != CURLE_OK || h.code != 200)
		fail_msg("the token holder beside %u of %d trickling clients (%u addresses): "
			 "curl %d, HTTP %ld", t.open, CROWD, nsrc, h.rc, h.code);
	trickle_until(&t, left, 10000);
	if (t.open > left)
		fail_msg("%u of %d trickling clients still connected, at most %u may wait",
			 t.open, CROWD, left);
	trickle_close(&t);
	api_stop(a);
}

/* All from the token holder's own address: the per-peer cap cuts the oldest. */
static void test_tcp_crowd_one_peer(void **state)
{
	static const char *const one[] = { "127.0.0.1" };

	(void)state;
	crowd("crowd1.sock", one, 1, API_PEER_WAITING);
}

/* From ten other addresses, ten each: the per-peer cap, then the cap in all. */
static void test_tcp_crowd_many_peers(void **state)
{
	static const char *const ten[] = { "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5",
					   "127.0.0.6", "127.0.0.7", "127.0.0.8", "127.0.0.9",
					   "127.0.0.10", "127.0.0.11" };

	(void)state;
	crowd("crowd10.sock", ten, ARRAY_SIZE(ten), API_WAITING);
}

/*
 * A client trickling its headers is cut at the header deadline (1 s here);
 * the token holder's kept-alive connection outlives it.
 */
static void test_tcp_header_deadline(void **state)
{
	struct gate_limits lim = { 1000, API_PEER_WAITING, API_WAITING };
	struct trickle t = { .n = 1, .open = 1 };
	struct conf tc;
	struct api *a = tcp_api(&tc, "deadline.sock", &lim);
	CURL *cu = curl_easy_init();
	char url[128];
	struct resp r;
	long conns;

	(void)state;
	t.fd[0] = dial_from("127.0.0.1", api_tcp_port(a));
	trickle_until(&t, 0, 20000);
	if (t.open)
		fail_msg("a client trickling its headers (%zu bytes) still connected after 20 s",
			 t.sent[0]);
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/health", api_tcp_port(a));
	assert_int_equal(req_on(cu, "GET", url, NULL, 0, TOKEN, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	resp_release(&r);
	nap_ms(1500);   /* past the deadline, idle: the holder's connection stays */
	assert_int_equal(req_on(cu, "GET", url, NULL, 0, TOKEN, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	curl_easy_getinfo(cu, CURLINFO_NUM_CONNECTS, &conns);
	assert_int_equal(conns, 0);
	resp_release(&r);
	curl_easy_cleanup(cu);
	api_stop(a);
}

/* A 401 closes its connection: no second try at the headers without the token. */
static void test_tcp_401_closes(void **state)
{
	struct conf tc;
	struct api *a = tcp_api(&tc, "401.sock", NULL);
	CURL *cu = curl_easy_init();
	char url[128];
	struct resp r;
	long conns;

	(void)state;
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/health", api_tcp_port(a));
	assert_int_equal(req_on(cu, "GET", url, NULL, 0, "wrong", &r), CURLE_OK);
	assert_int_equal(r.code, 401);
	resp_release(&r);
	assert_int_equal(req_on(cu, "GET", url, NULL, 0, TOKEN, &r), CURLE_OK);
	assert_int_equal(r.code, 200);
	curl_easy_getinfo(cu, CURLINFO_NUM_CONNECTS, &conns);
	assert_int_equal(conns, 1);   /* the 401 closed the one before */
	resp_release(&r);
	curl_easy_cleanup(cu);
	api_stop(a);
}

/*
 * Bytes sent raw to 127.0.0.1:port (len of them: NULs too); the answer read
 * until the server closes, or 5 s. Returns 1 if it closed (EOF), 0 if not;
 * what came in buf (NUL-terminated).
 */
static int raw_exchange_on(int fd, const char *req_bytes, size_t len, char *buf, size_t max)
{
	int closed = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t end = now_ms() + 5000;
	size_t got = 0;
	ssize_t r;

	pfd.events = POLLOUT;
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(send(fd, req_bytes, len, MSG_NOSIGNAL), (ssize_t)len);
	pfd.events = POLLIN;
	while (!closed && now_ms() < end && poll(&pfd, 1, (int)(end - now_ms())) > 0) {
		r = recv(fd, buf + got, max - 1 - got, MSG_DONTWAIT);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0 || (errno != EAGAIN && errno != EINTR))
			closed = 1;   /* end of file, or reset after the answer */
		if (got == max - 1)
			break;
	}
	buf[got] = '\0';
	close(fd);
	return closed;
}

/* The same to 127.0.0.1:port. */
static int raw_exchange(unsigned port, const char *req_bytes, size_t len, char *buf, size_t max)
{
	return raw_exchange_on(dial_from("127.0.0.1", port), req_bytes, len, buf, max);
}

/* A connection to the unix socket path, not waited for. */
static int dial_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sfmt(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail_msg("connect to %s: %s", path, strerror(errno));
	return fd;
}

/*
 * As many clients as the unix socket serves, trickling their headers: GET
 * /health on it still gets its answer, and the header deadline (1 s here)
 * cuts every one of them, as on TCP (they held every slot for good).
 */
static void test_unix_idle_cut(void **state)
{
	static const char get[] = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	struct gate_limits lim = { 1000, API_PEER_WAITING, API_WAITING };
	struct trickle t = { .n = API_CONN_MAX, .open = API_CONN_MAX };
	struct conf tc;
	struct api *a = tcp_api(&tc, "idle.sock", &lim);
	char buf[4096];
	unsigned i;

	(void)state;
	for (i = 0; i < t.n; i++)
		t.fd[i] = dial_unix(tc.api_socket);
	trickle_round(&t, 50);
	assert_true(raw_exchange_on(dial_unix(tc.api_socket), get, sizeof(get) - 1, buf,
				    sizeof(buf)));
	if (strncmp(buf, "HTTP/1.1 200", 12))
		fail_msg("GET /health beside %u trickling clients on the unix socket: '%.40s'",
			 t.open, buf);
	trickle_until(&t, 0, 20000);
	if (t.open)
		fail_msg("%u of %u clients trickling their headers on the unix socket still "
			 "connected after 20 s", t.open, t.n);
	trickle_close(&t);
	api_stop(a);
}

/* Each head a proxy could read otherwise: 400 naming the header, then the server closes. */
static void test_tcp_strict_heads(void **state)
{
#define GET_HEALTH "GET /health HTTP/1.1\r\n"
#define HOST       "Host: x\r\n"
#define AUTH       "Authorization: Bearer " TOKEN "\r\n"
#define EMPTY5     "X:\r\nX:\r\nX:\r\nX:\r\nX:\r\n"
	static const struct { const char *what, *bytes; size_t len; const char *names; } bad[] = {
#define RAW(what, s, names) { what, s, sizeof(s) - 1, names }
		RAW("two different Content-Length", GET_HEALTH HOST AUTH "Content-Length: 0\r\n"
		    "Content-Length: 5\r\n\r\n", "Content-Length"),
		RAW("the same Content-Length twice", GET_HEALTH HOST AUTH "Content-Length: 0\r\n"
		    "Content-Length: 0\r\n\r\n", "Content-Length"),
		RAW("Content-Length with Transfer-Encoding", GET_HEALTH HOST AUTH
		    "Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		    "Transfer-Encoding"),
		RAW("a space before the colon", GET_HEALTH HOST AUTH
		    "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", "Transfer-Encoding "),
		RAW("a tab before the colon", GET_HEALTH HOST AUTH "Content-Length\t: 0\r\n\r\n",
		    "Content-Length"),
		RAW("HTTP/1.1 without Host", GET_HEALTH AUTH "\r\n", "Host"),
		RAW("two Host", GET_HEALTH HOST HOST AUTH "\r\n", "Host"),
		RAW("a NUL after the token", GET_HEALTH HOST "Authorization: Bearer " TOKEN
		    "\0junk\r\n\r\n", "request head"),
		RAW("a word after the token", GET_HEALTH HOST "Authorization: Bearer " TOKEN
		    " junk\r\n\r\n", "Authorization"),
		RAW("a folded line", GET_HEALTH HOST AUTH "X-A: a\r\n b\r\n\r\n", "request head"),
		RAW("a bare LF", GET_HEALTH "Host: x\n" AUTH "\r\n", "request head"),
		RAW("Transfer-Encoding not chunked", GET_HEALTH HOST AUTH
		    "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", "Transfer-Encoding"),
		/* empty headers' spare bytes (":" or ": ") paying for what follows a NUL */
		RAW("a NUL and junk after the token, paid by empty headers", GET_HEALTH HOST
		    EMPTY5 "Authorization: Bearer " TOKEN "\0junk\r\n\r\n", "request head"),
		RAW("a bare LF paid by a double space", GET_HEALTH "Host:  x\n" AUTH "\r\n",
		    "request head"),
		RAW("a NUL inside Content-Length", GET_HEALTH HOST AUTH EMPTY5
		    "Content-Length: 0\0 999\r\n\r\n", "request head"),
		RAW("a NUL inside Transfer-Encoding", GET_HEALTH HOST AUTH EMPTY5
		    "Transfer-Encoding: chunked\0gzip\r\n\r\n0\r\n\r\n", "request head"),
#undef RAW
	};
	static const char good[] = GET_HEALTH HOST AUTH "Connection: close\r\n\r\n";
	struct conf tc;
	struct api *a = tcp_api(&tc, "strict.sock", NULL);
	char buf[4096], *body;
	int closed, failed = 0;
	json_t *j;
	size_t i;

	(void)state;
	assert_true(raw_exchange(api_tcp_port(a), good, sizeof(good) - 1, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "HTTP/1.1 200"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		closed = raw_exchange(api_tcp_port(a), bad[i].bytes, bad[i].len, buf, sizeof(buf));
		body = strstr(buf, "\r\n\r\n");
		j = body ? json_loads(body + 4, 0, NULL) : NULL;
		if (!closed || strncmp(buf, "HTTP/1.1 400", 12) ||
		    !strstr(json_string_value(json_object_get(j, "error")) ?: "", bad[i].names)) {
			print_error("%s: %s, answered '%.12s' %s (expected 400 naming '%s')\n",
				    bad[i].what, closed ? "closed" : "left open", buf,
				    body ? body + 4 : "", bad[i].names);
			failed++;
		}
		json_decref(j);
	}
	api_stop(a);
	assert_int_equal(failed, 0);
#undef GET_HEALTH
#undef HOST
#undef AUTH
#undef EMPTY5
}

/* ---- bisections: bounded and paged ---- */

/* A bisection of matrix mid asking max_runs runs: added (1 if it was asked before), or 1 full. */
static int add_bisection(struct store *s, int64_t mid, unsigned max_open, unsigned max_runs,
			 int64_t *id, int *existing, char *err)
{
	struct bisection b = { .matrix_id = mid, .max_runs = max_runs };

	sfmt(b.cell, sizeof(b.cell), "w");
	sfmt(b.metric, sizeof(b.metric), "ops/s");
	sfmt(b.good, sizeof(b.good), "on");
	sfmt(b.bad, sizeof(b.bad), "off");
	return store_bisection_add(s, &b, max_open, id, existing, err);
}

/* GET path: its array's ids into ids (at most max); how many. */
static size_t list_ids(const char *path, int64_t *ids, size_t max)
{
	struct resp r;
	json_t *b;
	size_t i, n = 0;

	assert_int_equal(req("GET", path, NULL, 0, NULL, &r), CURLE_OK);
	if (r.code != 200 || !json_is_array(r.json))
		fail_msg("GET %s: %ld %s", path, r.code, r.body);
	json_array_foreach(r.json, i, b)
		if (n < max)
			ids[n++] = json_integer_value(json_object_get(b, "id"));
	resp_release(&r);
	return n;
}

/*
 * harness.conf's default bisections_max (8) running: a 9th is refused in one
 * line, the same one asked again is not. With 123 bisections, the oldest
 * running, every page of GET /bisections lists it, and the pages reach
 * every ended one once.
 */
static void test_bisections_bounded(void **state)
{
	_cleanup_free_ char *body = submission("bisq");
	char db[PATH_MAX], err[ERR_MAX], path[128];
	int64_t mid, id, first = 0, ids[200], before;
	unsigned seen = 0, i;
	struct store *s;
	size_t n, k;
	int existing;

	(void)state;
	assert_int_equal(conf.bisections_max, 8);
	expect("POST", "/matrices", body, 201, NULL);
	sfmt(db, sizeof(db), "%s/harness.db", conf.results);
	assert_int_equal(store_open(db, &s, err), 0);
	assert_int_equal(store_find_matrix(s, "bisq", &mid, err), 0);
	for (i = 1; i <= 8; i++) {
		assert_int_equal(add_bisection(s, mid, 8, 10 * i, &id, &existing, err), 0);
		first = first ? first : id;
	}
	assert_int_equal(add_bisection(s, mid, (unsigned)conf.bisections_max, 90, &id, &existing,
				       err), 1);
	assert_non_null(strstr(err, "bisections_max"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(add_bisection(s, mid, 8, 20, &id, &existing, err), 0);
	assert_int_equal(existing, 1);
	/* all but the first end; 115 more come and end */
	for (id = first + 1; id < first + 8; id++)
		assert_int_equal(store_bisection_end(s, id, "done", NULL, NULL, NULL, err), 0);
	for (i = 0; i < 115; i++) {
		assert_int_equal(add_bisection(s, mid, 0, 1000 + i, &id, &existing, err), 0);
		assert_int_equal(store_bisection_end(s, id, "failed", "test", NULL, NULL, err), 0);
	}
	store_close(s);
	n = list_ids("/bisections", ids, ARRAY_SIZE(ids));
	assert_int_equal(n, 101);     /* the running one and a page of 100 */
	assert_int_equal(ids[0], first);
	for (before = INT64_MAX; before > first + 1; before = ids[n - 1]) {
		sfmt(path, sizeof(path), "/bisections?limit=30&before=%lld", (long long)before);
		n = list_ids(path, ids, ARRAY_SIZE(ids));
		assert_true(n >= 2 && n <= 31);
		assert_int_equal(ids[0], first);
		for (k = 1; k < n; k++)
			assert_true(ids[k] < before && ids[k] != first && (k == 1 || ids[k] < ids[k - 1]));
		seen += (unsigned)(n - 1);
	}
	assert_int_equal(seen, 122);
	expect("GET", "/bisections?limit=0", NULL, 400, "limit");
	expect("GET", "/bisections?limit=1001", NULL, 400, "limit");
}

/* Finish run once the header deadline has long passed: its stream then ends. */
struct finisher {
	pthread_t t;
	int64_t run;
	int rc;
};

static void *finish_later(void *arg)
{
	struct finisher *f = arg;
	char db[PATH_MAX], err[ERR_MAX];
	struct store *s;

	nap_ms(2500);
	sfmt(db, sizeof(db), "%s/harness.db", conf.results);
	f->rc = store_open(db, &s, err);
	if (f->rc == 0) {
		f->rc = summary_finish_run(s, f->run, "failed", "test", NULL, err);
		store_close(s);
	}
	return NULL;
}

/* The token holder's sample stream over TCP lasts past the header deadline (1 s). */
static void test_tcp_stream_outlives_deadline(void **state)
{
	struct gate_limits lim = { 1000, API_PEER_WAITING, API_WAITING };
	struct finisher f = { .run = first_run("tcpstream"), .rc = -1 };
	struct conf tc;
	struct api *a;
	struct resp r;
	json_t *last;
	char url[128], *p;

	(void)state;

	a = tcp_api(&tc, "stream.sock", &lim);
	assert_int_equal(pthread_create(&f.t, NULL, finish_later, &f), 0);
	sfmt(url, sizeof(url), "http://127.0.0.1:%u/runs/%lld/stream", api_tcp_port(a),
	     (long long)f.run);
	assert_int_equal(req("GET", url, NULL, 0, TOKEN, &r), CURLE_OK);
	pthread_join(f.t, NULL);
	assert_int_equal(f.rc, 0);
	assert_int_equal(r.code, 200);
	assert_true(r.len > 1 && r.body[r.len - 1] == '\n');
	r.body[r.len - 1] = '\0';
	p = strrchr(r.body, '\n');
	last = json_loads(p ? p + 1 : r.body, 0, NULL);
	assert_true(json_is_true(json_object_get(last, "finished")));
	json_decref(last);
	resp_release(&r);
	api_stop(a);
}

/* A conf field api_check and api_start must both refuse, and why. */
struct refusal {
	size_t off, size;         /* the field in struct conf */
	const char *value;        /* from '/': below the scratch directory */
	const char *want;
};

#define FIELD(f) offsetof(struct conf, f), sizeof(((struct conf *)0)->f)

static const struct refusal refusals[] = {
	{ FIELD(api_tcp), "127.0.0.1", "api_tcp '127.0.0.1': expected HOST:PORT" },
	{ FIELD(api_tcp), "127.0.0.1:65536", "expected HOST:PORT" },
	{ FIELD(api_tcp), ":8700", "expected HOST:PORT" },
	{ FIELD(api_tcp), "192.0.2.1:8700", "api_tcp '192.0.2.1:8700': Cannot assign requested "
	  "address" },   /* TEST-NET-1: no address of this host */
	{ FIELD(api_token), "", "api_tcp '127.0.0.1:0' needs an api_token" },
	{ FIELD(api_group), "no-such-group-h12", "api_group 'no-such-group-h12': no such group" },
	{ FIELD(api_socket), "/a-socket-path-that-is-far-too-long-for-the-sun_path-of-a-unix-"
	  "socket-address-which-has-108-bytes/h.sock", "longer than 107 bytes" },
	{ FIELD(api_socket), "/missing/h.sock", "directory '" },
	{ FIELD(api_socket), "/plain", "exists and is not a socket" },
	{ FIELD(api_socket), "/plain/h.sock", "is not a directory" },
};

/* tc: conf with TCP on a free port, a token and a socket of its own (not yet there). */
static void check_conf(struct conf *tc)
{
	*tc = conf;
	sfmt(tc->api_socket, sizeof(tc->api_socket), "%s/check.sock", conf.results);
	sfmt(tc->api_tcp, sizeof(tc->api_tcp), "127.0.0.1:0");
	sfmt(tc->api_token, sizeof(tc->api_token), "%s", TOKEN);
}

/* What harnessd -n checks is what api_start refuses: the same reasons, from the same checks. */
static void test_api_check(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	const struct refusal *f;
	struct api *t = NULL;
	char err[ERR_MAX], want[ERR_MAX + 64];
	socklen_t sl = sizeof(sin);
	struct conf tc;
	size_t i;
	int fd;

	(void)state;
	sfmt(want, sizeof(want), "%s/plain", dir);
	write_text(want, "x");
	check_conf(&tc);
	if (api_check(&tc, "/etc/h.conf", err) < 0)
		fail_msg("a good conf: %s", err);
	sfmt(tc.api_group, sizeof(tc.api_group), "root");
	assert_int_equal(api_check(&tc, NULL, err), 0);
	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		f = &refusals[i];
		check_conf(&tc);
		snprintf((char *)&tc + f->off, f->size, "%s%s", f->value[0] == '/' ? dir : "",
			 f->value);
		if (api_check(&tc, "/etc/h.conf", err) == 0)
			fail_msg("api_check took '%s'", (char *)&tc + f->off);
		sfmt(want, sizeof(want), "/etc/h.conf: ");
		if (strncmp(err, want, strlen(want)) || !strstr(err, f->want))
			fail_msg("api_check of '%s': '%s', expected '%s...%s'",
				 (char *)&tc + f->off, err, want, f->want);
		if (api_start(&tc, &t, err) == 0)
			fail_msg("api_start took '%s' that api_check refused", (char *)&tc + f->off);
		if (!strstr(err, f->want))
			fail_msg("api_start of '%s': '%s', expected '%s'", (char *)&tc + f->off, err,
				 f->want);
	}
	/* a port in use may be the running daemon's: -n takes it, the daemon would not */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	check_conf(&tc);
	sfmt(tc.api_tcp, sizeof(tc.api_tcp), "127.0.0.1:%u", ntohs(sin.sin_port));
	assert_int_equal(api_check(&tc, NULL, err), 0);
	assert_int_equal(api_start(&tc, &t, err), -1);
	assert_non_null(strstr(err, "Address already in use"));
	close(fd);
}

/* A socket directory the daemon's user may not write to, checked as that user (nobody). */
static void test_api_check_unwritable(void **state)
{
	char err[ERR_MAX];
	struct conf tc;
	int status;
	pid_t pid;

	(void)state;
	mkdirs("%s/ro", dir);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chmod(conf.results, 0755), 0);
	check_conf(&tc);
	sfmt(tc.api_socket, sizeof(tc.api_socket), "%s/ro/h.sock", dir);
	if (geteuid() != 0) {
		assert_int_equal(chmod(tc.api_socket, 0), -1);   /* not there yet */
		sfmt(err, sizeof(err), "%s/ro", dir);
		assert_int_equal(chmod(err, 0500), 0);
		assert_int_equal(api_check(&tc, NULL, err), -1);
		assert_non_null(strstr(err, "cannot create it in"));
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		_exit(api_check(&tc, NULL, err) == -1 && strstr(err, "cannot create it in") ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(chmod(dir, 0700), 0);
}

static void test_socket_takeover(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct conf oc = conf;
	struct api *o = NULL;
	char err[ERR_MAX], path[PATH_MAX];
	struct stat st;
	int fd;

	(void)state;
	/* the running API answers on its socket: a second one is refused */
	assert_int_equal(api_start(&conf, &o, err), -1);
	assert_non_null(strstr(err, "another daemon answers"));
	/* a file that is not a socket is left alone */
	sfmt(oc.api_socket, sizeof(oc.api_socket), "%s/plain", conf.results);
	write_bytes(oc.api_socket, "x", 1);
	assert_int_equal(api_start(&oc, &o, err), -1);
	assert_non_null(strstr(err, "not a socket"));
	/* a stale socket (nobody listening) is replaced, and removed at stop */
	sfmt(path, sizeof(path), "%s/stale.sock", conf.results);
	sfmt(oc.api_socket, sizeof(oc.api_socket), "%s", path);
	sfmt(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	if (api_start(&oc, &o, err) < 0)
		fail_msg("api_start over a stale socket: %s", err);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	api_stop(o);
	assert_int_equal(stat(path, &st), -1);
}

/* ---- submits resolve in the background ---- */

#define WAIT_TRIES 300     /* 100 ms apart: a guard against hanging, not a timing check */

/* Submit a matrix of a url arm (url, sha256) and a 6.12 arm; its id. */
static int64_t submit_url(const char *name, const char *url, const char *sha, int appended)
{
	char body[4096];
	struct resp r;
	int64_t id;

	sfmt(body, sizeof(body), "{\"base_dir\": \"%s\", \"spec\": {\"name\": \"%s\", \"reps\": 2,"
	     " \"arms\": [{\"name\": \"u\", \"url\": \"%s\", \"sha256\": \"%s\"},"
	     " {\"name\": \"k\", \"kernel\": \"6.12\"}], \"workloads\": [{\"name\": \"w\","
	     " \"files\": [{\"name\": \"d\", \"mib\": 8}], \"streams\": [{\"kind\": \"random\","
	     " \"file\": \"d\"}]}]}}", dir, name, url, sha);
	assert_int_equal(req("POST", "/matrices", body, strlen(body), NULL, &r), CURLE_OK);
	if (r.code != 201)
		fail_msg("POST %s: %ld %s", name, r.code, r.body);
	/* at once: parsed and queued, its kernels not yet fetched */
	assert_string_equal(json_string_value(json_object_get(r.json, "resolve")), "resolving");
	assert_int_equal(json_is_true(json_object_get(r.json, "appended")), appended);
	assert_int_equal(json_integer_value(json_object_get(r.json, "runs")), appended ? 0 : 4);
	id = json_integer_value(json_object_get(r.json, "matrix"));
	resp_release(&r);
	return id;
}

/* GET /matrices/NAME once its resolve is no longer "resolving" (the reply in r). */
static void wait_resolved(const char *name, struct resp *r)
{
	char path[128];
	int i;

	sfmt(path, sizeof(path), "/matrices/%s", name);
	for (i = 0; i < WAIT_TRIES; i++) {
		assert_int_equal(req("GET", path, NULL, 0, NULL, r), CURLE_OK);
		assert_int_equal(r->code, 200);
		if (strcmp(json_string_value(json_object_get(r->json, "resolve")), "resolving"))
			return;
		resp_release(r);
		usleep(100 * 1000);
	}
	fail_msg("%s: still resolving", name);
}

/*
 * Claim every block the scheduler could start now, as its slots would
 * (slots 100 on), then give them back: 1 if one of matrix mid was among them.
 */
static int claimable(struct store *s, int64_t mid)
{
	struct run_ref *refs;
	char err[ERR_MAX];
	int64_t got;
	int slot, found = 0;
	size_t n;

	for (slot = 100; slot < 200; slot++) {
		if (store_claim_block(s, slot, "x86_64", &got, &refs, &n, err) < 0)
			fail_msg("claim: %s", err);
		free(n ? refs : NULL);
		if (!n)
			break;
		found |= got == mid;
	}
	while (--slot >= 100)
		assert_int_equal(store_unclaim(s, slot, err), 0);
	return found;
}

static void test_resolve_in_background(void **state)
{
	char kernel[PATH_MAX], url[PATH_MAX + 8], sha[HASH_SHA256_HEX], db[PATH_MAX], err[ERR_MAX];
	const char *why;
	struct resolver *rs = NULL;
	struct buildgate gate;
	struct store *s;
	struct resp r;
	int64_t bad, good;
	json_t *runs, *x;
	size_t i;

	(void)state;
	/* a real file:// kernel in the matrices' directory (base_dir, allowed) */
	sfmt(kernel, sizeof(kernel), "%s/url-bzImage", dir);
	write_bzimage(kernel, "6.12.99-url");
	assert_int_equal(hash_sha256_file(kernel, sha, err), 0);
	sfmt(url, sizeof(url), "file://%s", kernel);
	sfmt(db, sizeof(db), "%s/harness.db", conf.results);
	assert_int_equal(store_open(db, &s, err), 0);

	/* no resolver running, as when a daemon stopped before it got to them */
	bad = submit_url("badurl", url, "00000000000000000000000000000000"
			 "00000000000000000000000000000000", 0);
	good = submit_url("goodurl", url, sha, 0);
	assert_false(claimable(s, bad));
	assert_false(claimable(s, good));
	/* the resolver takes up what is resolving */
	buildgate_init(&gate);
	if (resolver_start(&conf, &gate, &rs, err) < 0)
		fail_msg("resolver_start: %s", err);

	wait_resolved("badurl", &r);
	assert_string_equal(json_string_value(json_object_get(r.json, "resolve")), "unresolved");
	why = json_string_value(json_object_get(r.json, "resolve_msg"));
	assert_non_null(why);
	assert_int_equal(strncmp(why, "arms[0].url: ", 13), 0);   /* the field first */
	assert_non_null(strstr(why, "sha256 mismatch"));
	assert_non_null(strstr(why, sha));   /* the hash it got */
	assert_null(strchr(why, '\n'));
	runs = json_object_get(r.json, "runs_list");
	assert_int_equal(json_array_size(runs), 4);
	json_array_foreach(runs, i, x)
		assert_string_equal(json_string_value(json_object_get(x, "status")), "queued");
	resp_release(&r);

	wait_resolved("goodurl", &r);
	assert_string_equal(json_string_value(json_object_get(r.json, "resolve")), "resolved");
	assert_true(json_is_null(json_object_get(r.json, "resolve_msg")));
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(r.json, "arms"), 0), "release")), "6.12.99-url");
	resp_release(&r);

	/* the one resolved may start, the one unresolved never */
	assert_true(claimable(s, good));
	assert_false(claimable(s, bad));
	/* the list says why too */
	assert_int_equal(req("GET", "/matrices", NULL, 0, NULL, &r), CURLE_OK);
	json_array_foreach(r.json, i, x)
		if (json_integer_value(json_object_get(x, "id")) == bad) {
			assert_string_equal(json_string_value(json_object_get(x, "resolve")),
					    "unresolved");
			assert_non_null(strstr(json_string_value(json_object_get(x, "resolve_msg")),
					       "sha256 mismatch"));
			assert_true(json_is_null(json_object_get(x, "eta_s")));
		}
	resp_release(&r);

	/* sent again, it is resolved again (a download may work now): still wrong */
	assert_int_equal(submit_url("badurl", url, "00000000000000000000000000000000"
				    "00000000000000000000000000000000", 1), bad);
	wait_resolved("badurl", &r);
	assert_string_equal(json_string_value(json_object_get(r.json, "resolve")), "unresolved");
	resp_release(&r);
	assert_false(claimable(s, bad));
	resolver_stop(rs);
	buildgate_destroy(&gate);
	store_close(s);
	expect("POST", "/matrices/badurl/cancel", "", 200, NULL);
	expect("POST", "/matrices/goodurl/cancel", "", 200, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health),
		cmocka_unit_test(test_socket_mode),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_bisect_needs_source_arms),
		cmocka_unit_test(test_bisections_bounded),
		cmocka_unit_test(test_body_too_large),
		cmocka_unit_test(test_body_too_large_chunked),
		cmocka_unit_test(test_concurrent_submissions),
		cmocka_unit_test(test_concurrent_same_spec),
		cmocka_unit_test(test_submit_and_control),
		cmocka_unit_test(test_samples_and_stream),
		cmocka_unit_test(test_tcp_token),
		cmocka_unit_test(test_submit_arch_no_host),
		cmocka_unit_test(test_tcp_crowd_one_peer),
		cmocka_unit_test(test_tcp_crowd_many_peers),
		cmocka_unit_test(test_tcp_header_deadline),
		cmocka_unit_test(test_tcp_401_closes),
		cmocka_unit_test(test_tcp_strict_heads),
		cmocka_unit_test(test_unix_idle_cut),
		cmocka_unit_test(test_tcp_stream_outlives_deadline),
		cmocka_unit_test(test_api_check),
		cmocka_unit_test(test_api_check_unwritable),
		cmocka_unit_test(test_socket_takeover),
		cmocka_unit_test(test_resolve_in_background),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
