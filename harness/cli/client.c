/* client.c -- harnessd's API as seen from the `harness` command: one libcurl
 * request over the API's unix socket, JSON in and out, or a stream of lines. */
#include "cli/client.h"
#include "common/fmt.h"
#include "daemon/api.h"
#include "base/err.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#define REPLY_MAX   (64u << 20)   /* a reply larger than this is refused */
#define TIMEOUT_S   60            /* every request but watch */

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

/*
 * curl's write callback for a reply: its body gathered (NUL-ended), refused
 * (0: curl stops) past REPLY_MAX or out of memory.
 */
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
	if (fmtbuf(url, sizeof(url), "http://localhost%s", path) < 0) {
		curl_easy_cleanup(cu);
		errorf(err, "the API path %.64s... is over %zu bytes", path, sizeof(url) - 17);
		return NULL;
	}
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
	if (h->too_big) {
		http_release(h);   /* what was gathered up to the limit */
		return errorf(err, "the daemon's reply is over %u MiB", REPLY_MAX >> 20);
	}
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

int client_call(const struct conf *c, const char *method, const char *path, const char *body,
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

/* One request with its own libcurl set-up: client_post, client_get. */
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

int client_start(char *err)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return errorf(err, "libcurl would not start");
	return 0;
}

void client_stop(void)
{
	curl_global_cleanup();
}

/* A GET whose 200 reply is a stream of lines, each handed on as it ends. */
struct stream {
	CURL *cu;
	long code;
	client_line_fn *fn;
	void *cls;
	char line[CLIENT_LINE_MAX];
	size_t len;
	int too_long, stopped;
	struct http errbody;      /* a reply other than 200 */
};

/*
 * curl's write callback for a stream: a reply other than 200 gathered as an
 * error body; else each line handed to the caller's fn, stopping at a line
 * over CLIENT_LINE_MAX or when fn says so.
 */
static size_t stream_data(char *data, size_t size, size_t n, void *cls)
{
	struct stream *s = cls;
	size_t len = size * n, i;

	if (!s->code)
		curl_easy_getinfo(s->cu, CURLINFO_RESPONSE_CODE, &s->code);
	if (s->code != 200)
		return collect(data, size, n, &s->errbody);
	for (i = 0; i < len; i++) {
		if (data[i] != '\n' && s->len == sizeof(s->line)) {
			s->too_long = 1;
			return 0;
		}
		if (data[i] != '\n') {
			s->line[s->len++] = data[i];
			continue;
		}
		if (s->fn(s->cls, s->line, s->len) < 0) {
			s->stopped = 1;
			return 0;
		}
		s->len = 0;
	}
	return len;
}

int client_stream(const struct conf *c, const char *path, int json, client_line_fn *fn,
		  void *cls, char *err)
{
	struct curl_slist *hdrs = NULL;
	_cleanup_free_ struct stream *s = calloc(1, sizeof(*s));
	CURLcode rc;
	int ret = 0;

	if (!s)
		return errorf(err, "out of memory");
	s->fn = fn;
	s->cls = cls;
	s->cu = handle(c, path, &hdrs, err);
	if (!s->cu)
		return -1;
	curl_easy_setopt(s->cu, CURLOPT_WRITEFUNCTION, stream_data);
	curl_easy_setopt(s->cu, CURLOPT_WRITEDATA, s);
	rc = curl_easy_perform(s->cu);
	if (s->code && s->code != 200) {
		if (json && s->errbody.body)
			fputs(s->errbody.body, stdout);
		ret = json ? -2 : daemon_error(&s->errbody, err);
	} else if (s->too_long) {
		ret = errorf(err, "%s: the daemon sent a line over %zu bytes", path, sizeof(s->line));
	} else if (rc != CURLE_OK && !s->stopped) {
		ret = curl_failed(c, rc, err);
	}
	http_release(&s->errbody);
	curl_easy_cleanup(s->cu);
	curl_slist_free_all(hdrs);
	return ret;
}
