/* api.c -- the daemon's HTTP/JSON API: one route table over libmicrohttpd,
 * strict about paths, queries, bodies and tokens; the queue does the work. */
#include "daemon/api.h"
#include "base/err.h"
#include "analysis/extend.h"
#include "base/proc.h"
#include "base/results.h"
#include "daemon/httphead.h"
#include "daemon/queue.h"
#include "daemon/scheduler.h"
#include "daemon/wake.h"
#include "store/store.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include <microhttpd.h>

#define URL_MAX        512      /* longer paths: 414 */
#define SEG_MAX        4        /* segments in any route */
#define PAGE_DEFAULT   500      /* samples per page */
#define PAGE_MAX       1000
#define LIST_DEFAULT   100      /* ended bisections per page */
#define LIST_MAX       1000
#define STREAM_PAGE    200
#define POLL_MS        500      /* the stream's poll of queue_samples */
#define KEEPALIVE_MS   15000    /* an empty line when nothing was sent for this long */

struct api;

struct listener {
	struct api *api;
	struct MHD_Daemon *d;
	int fd;                  /* ours until MHD has it */
	int tcp;                 /* requests need the bearer token */
	struct gate *gate;       /* connections until their head is in (TCP: with the token) */
};

struct api {
	struct conf conf;
	char db[PATH_MAX];
	struct listener local, net;
	unsigned port;           /* the TCP port bound */
	dev_t sock_dev;          /* the socket file we made, removed at stop if still ours */
	ino_t sock_ino;
	int sock_made;
	atomic_int stopping;
	struct sched *_Atomic sched;  /* whose pause /health reports; NULL: none yet */
};

/* One connection: its own database connection, opened at its first request. */
struct conn_ctx {
	struct store *store;
};

enum { Q_AFTER = 1, Q_MAX = 2, Q_BEFORE = 4, Q_LIMIT = 8 };

struct query {
	int64_t after, max, before, limit;
	unsigned seen;
	char err[ERR_MAX];
};

struct route;

/* One request: its route, its path parameters, its body so far. */
struct req {
	const struct route *route;
	char seg[SEG_MAX][SPEC_KEY_MAX + 1];
	int64_t id;               /* the {id} segment */
	const char *key;          /* the {key} segment */
	struct query q;
	char *body;
	size_t len, cap;
	size_t uri_len;           /* the raw request target's bytes (on_uri) */
	int begun;                /* the headers were seen: begin ran */
	int answered;             /* a response is queued: ignore the rest */
};

/* What a handler gets. */
struct call {
	struct api *a;
	struct MHD_Connection *conn;
	struct req *r;
	struct store *s;
};

typedef enum MHD_Result (*handler_fn)(struct call *x);

struct route {
	const char *method;
	const char *pattern;      /* "/"-separated; {key}: an id or a name, {id}: a run's or
				   * a bisection's id */
	unsigned query;           /* Q_* parameters it takes */
	int body;                 /* takes a request body */
	handler_fn fn;
};

/* ---- responses ---- */

/* Compact JSON and a newline; NULL if out of memory. */
static char *json_line(const json_t *j, size_t *len)
{
	char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY), *line;
	size_t n;

	if (!text)
		return NULL;
	n = strlen(text);
	line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	*len = n + 1;
	return line;
}

/* send_text's flags: a 401's WWW-Authenticate; no further request on the connection. */
enum { R_BEARER = 1, R_CLOSE = 2 };

/*
 * Queue a response of JSON text (len bytes, freed by MHD) with code: an
 * Allow header when allow is set, flags' WWW-Authenticate and close.
 */
static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned code, char *text,
				 size_t len, const char *allow, unsigned flags)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	if (allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	if (flags & R_BEARER)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	/* MHD closes the connection after a response that says so */
	if (flags & (R_BEARER | R_CLOSE))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* Answer code with j (a reference taken). */
static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, json_t *j)
{
	size_t len;
	char *text = j ? json_line(j, &len) : NULL;

	json_decref(j);
	if (!text)
		return MHD_NO;
	return send_text(conn, code, text, len, NULL, 0);
}

static enum MHD_Result reply_errh(struct MHD_Connection *conn, unsigned code, const char *allow,
				  unsigned flags, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* {"error": "one line"}; control characters become spaces. */
static enum MHD_Result reply_errh(struct MHD_Connection *conn, unsigned code, const char *allow,
				  unsigned flags, const char *fmt, ...)
{
	char msg[ERR_MAX], *p, *text;
	json_t *j;
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vfmtcut(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	j = json_pack("{s:s}", "error", msg);
	text = j ? json_line(j, &len) : NULL;
	json_decref(j);
	if (!text)
		return MHD_NO;
	return send_text(conn, code, text, len, allow, flags);
}

#define reply_err(conn, code, ...) reply_errh(conn, code, NULL, 0, __VA_ARGS__)

/* ---- handlers ---- */

static enum MHD_Result h_health(struct call *x)
{
	struct sched *sc = atomic_load(&x->a->sched);
	char err[ERR_MAX], paused[ERR_MAX + 64] = "";
	json_t *j;

	if (sc)
		sched_pause_reason(sc, paused, sizeof(paused));
	if (queue_health(x->s, &x->a->conf, paused, &j, err) < 0)
		return reply_err(x->conn, 500, "%s", err);
	return reply(x->conn, 200, j);
}

/* The body {"base_dir": "/abs", "spec": {...}}: checked, spec as text. */
static enum MHD_Result h_submit(struct call *x)
{
	char err[ERR_MAX];
	json_error_t je;
	json_t *body, *spec, *base, *v, *res;
	const char *k;
	char *text;
	int rc;

	body = json_loadb(x->r->body ? x->r->body : "", x->r->len, JSON_REJECT_DUPLICATES, &je);
	if (!body)
		return reply_err(x->conn, 400, "malformed JSON at line %d, column %d: %s", je.line,
				 je.column, je.text);
	json_object_foreach(body, k, v)
		if (strcmp(k, "spec") && strcmp(k, "base_dir")) {
			fmtcut(err, sizeof(err), "unknown key '%.64s' (expected base_dir, spec)", k);
			json_decref(body);
			return reply_err(x->conn, 400, "%s", err);
		}
	spec = json_object_get(body, "spec");
	base = json_object_get(body, "base_dir");
	if (!json_is_object(body) || !json_is_object(spec)) {
		json_decref(body);
		return reply_err(x->conn, 400, "expected an object with \"spec\" (the matrix, an "
				 "object) and \"base_dir\"");
	}
	if (!json_is_string(base) || json_string_value(base)[0] != '/' ||
	    json_string_length(base) >= PATH_MAX ||
	    strlen(json_string_value(base)) != json_string_length(base)) {
		json_decref(body);
		return reply_err(x->conn, 400, "\"base_dir\": expected an absolute directory");
	}
	text = json_dumps(spec, JSON_COMPACT);
	if (!text) {
		json_decref(body);
		return reply_err(x->conn, 500, "out of memory");
	}
	rc = queue_submit(x->s, &x->a->conf, text, json_string_value(base), &res, err);
	free(text);
	json_decref(body);
	if (rc < 0)
		return reply_err(x->conn, 400, "%s", err);
	return reply(x->conn, 201, res);
}

/* GET /matrices: every matrix and its progress. */
static enum MHD_Result h_list(struct call *x)
{
	char err[ERR_MAX];
	json_t *j;

	if (queue_list(x->s, &x->a->conf, &j, err) < 0)
		return reply_err(x->conn, 500, "%s", err);
	return reply(x->conn, 200, j);
}

/* queue.h's "no matrix ..." and "no run ..." are 404s, the rest the database's. */
static unsigned not_found_or_500(const char *err)
{
	return !strncmp(err, "no matrix", 9) || !strncmp(err, "no run", 6) ? 404 : 500;
}

/* GET /matrices/KEY: one matrix and its runs; 404 if there is none. */
static enum MHD_Result h_matrix(struct call *x)
{
	char err[ERR_MAX];
	json_t *j;

	if (queue_matrix(x->s, &x->a->conf, x->r->key, &j, err) < 0)
		return reply_err(x->conn, not_found_or_500(err), "%s", err);
	return reply(x->conn, 200, j);
}

/* POST /matrices/KEY/ACTION (cancel, pause, resume). */
static enum MHD_Result h_control(struct call *x)
{
	const char *action = x->r->seg[2];
	char err[ERR_MAX];
	int http = 0;

	if (queue_control(x->s, x->r->key, action, &http, err) < 0)
		return reply_err(x->conn, http >= 400 && http < 600 ? (unsigned)http :
				 not_found_or_500(err), "%s", err);
	return reply(x->conn, http >= 200 && http < 300 ? (unsigned)http : 200,
		     json_pack("{s:s,s:s}", "matrix", x->r->key, "action", action));
}

/* GET /hosts: every host's state, slots and runs. */
static enum MHD_Result h_hosts(struct call *x)
{
	struct sched *sc = atomic_load(&x->a->sched);
	json_t *j;

	if (!sc)
		return reply_err(x->conn, 503, "the scheduler is not running yet");
	j = sched_hosts_json(sc, x->s);
	return j ? reply(x->conn, 200, json_pack("{s:o}", "hosts", j)) :
		reply_err(x->conn, 500, "out of memory");
}

/* POST /hosts/{host}/drain or /resume. */
static enum MHD_Result h_host_control(struct call *x)
{
	struct sched *sc = atomic_load(&x->a->sched);
	const char *action = x->r->seg[2];
	char err[ERR_MAX];

	if (!sc)
		return reply_err(x->conn, 503, "the scheduler is not running yet");
	if (sched_host_drain(sc, x->s, x->r->key, !strcmp(action, "drain"), err) < 0)
		return reply_err(x->conn, strstr(err, "no host") == err ? 404 : 500, "%s", err);
	return reply(x->conn, 200, json_pack("{s:s,s:s}", "host", x->r->key, "action", action));
}

/* The request's body as JSON; NULL after answering 400 (*ret) if it is not JSON. */
static json_t *json_body(struct call *x, enum MHD_Result *ret)
{
	json_error_t je;
	json_t *body = json_loadb(x->r->body ? x->r->body : "", x->r->len,
				  JSON_REJECT_DUPLICATES, &je);

	if (!body)
		*ret = reply_err(x->conn, 400, "malformed JSON at line %d, column %d: %s", je.line,
				 je.column, je.text);
	return body;
}

/* The body {"max_blocks": N, "base": ARM, "new": ARM} (arms optional), checked. */
static int extend_body(json_t *body, struct extend_opts *o, char *err)
{
	json_t *v;
	const char *k;

	if (!json_is_object(body))
		return errorf(err, "expected an object {\"max_blocks\": N, \"base\": ARM, "
			      "\"new\": ARM}");
	json_object_foreach(body, k, v)
		if (strcmp(k, "max_blocks") && strcmp(k, "base") && strcmp(k, "new"))
			return errorf(err, "unknown key '%.64s' (expected max_blocks, base, new)", k);
	v = json_object_get(body, "max_blocks");
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 100000)
		return errorf(err, "\"max_blocks\": expected a whole number from 1");
	o->max_blocks = (unsigned)json_integer_value(v);
	if ((json_object_get(body, "base") && !json_is_string(json_object_get(body, "base"))) ||
	    (json_object_get(body, "new") && !json_is_string(json_object_get(body, "new"))))
		return errorf(err, "\"base\", \"new\": expected arm names");
	o->base_arm = json_string_value(json_object_get(body, "base"));
	o->new_arm = json_string_value(json_object_get(body, "new"));
	return 0;
}

/* POST /matrices/KEY/extend: more blocks where verdicts are UNKNOWN. */
static enum MHD_Result h_extend(struct call *x)
{
	struct extend_opts o = { .matrix = x->r->key };
	char err[ERR_MAX];
	enum MHD_Result ret;
	json_t *body, *res = NULL;
	int http = 400, rc;

	if (!(body = json_body(x, &ret)))
		return ret;
	rc = extend_body(body, &o, err);
	if (rc == 0)
		rc = extend_matrix(x->s, &o, &res, &http, err);
	json_decref(body);
	if (rc < 0)
		return reply_err(x->conn, (unsigned)http, "%s", err);
	return reply(x->conn, 200, res);
}

/* POST /matrices/KEY/bisect: a bisection queued (or the same one found). */
static enum MHD_Result h_bisect(struct call *x)
{
	char err[ERR_MAX];
	enum MHD_Result ret;
	json_t *body, *res = NULL;
	int http = 400, rc;

	if (!(body = json_body(x, &ret)))
		return ret;
	rc = queue_bisect(x->s, &x->a->conf, x->r->key, body, &res, &http, err);
	json_decref(body);
	if (rc < 0)
		return reply_err(x->conn, (unsigned)http, "%s", err);
	return reply(x->conn, (unsigned)http, res);
}

/* GET /bisections/ID: its state, progress and result. */
static enum MHD_Result h_bisection(struct call *x)
{
	char err[ERR_MAX];
	json_t *j;

	if (queue_bisection(x->s, x->r->id, &j, err) < 0)
		return reply_err(x->conn, !strncmp(err, "no bisection", 12) ? 404 : 500, "%s", err);
	return reply(x->conn, 200, j);
}

/* GET /bisections: the newest ones, paged by ?before= and ?limit=. */
static enum MHD_Result h_bisections(struct call *x)
{
	char err[ERR_MAX];
	json_t *j;

	if (queue_bisections(x->s, x->r->q.before, (unsigned)x->r->q.limit, &j, err) < 0)
		return reply_err(x->conn, 500, "%s", err);
	return reply(x->conn, 200, j);
}

/* GET /runs/ID/samples: a page of the run's intervals after ?after=. */
static enum MHD_Result h_samples(struct call *x)
{
	char err[ERR_MAX];
	json_t *j;

	if (queue_samples(x->s, x->r->id, x->r->q.after, (unsigned)x->r->q.max, &j, err) < 0)
		return reply_err(x->conn, not_found_or_500(err), "%s", err);
	return reply(x->conn, 200, j);
}

/* ---- the sample stream ---- */

struct stream {
	struct api *a;
	struct store *s;          /* the connection's; only its thread calls us */
	int64_t run, after;
	char *buf;                /* lines not yet handed to MHD */
	size_t len, off, cap;
	int full;                 /* the last page was full: poll again at once */
	int ended;                /* the last line is in buf */
	int64_t quiet_ms;         /* since something was last sent */
};

/* j as one line appended to the stream's buffer; -1 out of memory. */
static int stream_put(struct stream *st, const json_t *j)
{
	size_t n;
	char *line = json_line(j, &n), *nb;

	if (!line)
		return -1;
	if (st->len + n > st->cap) {
		nb = realloc(st->buf, (st->len + n) * 2);
		if (!nb) {
			free(line);
			return -1;
		}
		st->buf = nb;
		st->cap = (st->len + n) * 2;
	}
	memcpy(st->buf + st->len, line, n);
	st->len += n;
	free(line);
	return 0;
}

/*
 * One page of samples into buf; the header line first if header, the last
 * line once the run has finished and a page came back empty.
 */
static int stream_fill(struct stream *st, int header, char *err)
{
	json_t *res, *samples, *smp, *seq, *line;
	size_t i, n;
	int ret = -1;

	if (queue_samples(st->s, st->run, st->after, STREAM_PAGE, &res, err) < 0)
		return -1;
	samples = json_object_get(res, "samples");
	n = json_array_size(samples);
	if (header) {
		line = json_pack("{s:I,s:O?,s:O?,s:O?}", "run", (json_int_t)st->run, "status",
				 json_object_get(res, "status"), "files",
				 json_object_get(res, "files"), "streams",
				 json_object_get(res, "streams"));
		if (!line || stream_put(st, line) < 0) {
			json_decref(line);
			errorf(err, "out of memory");
			goto out;
		}
		json_decref(line);
	}
	json_array_foreach(samples, i, smp) {
		seq = json_object_get(smp, "seq");
		if (!json_is_integer(seq) || stream_put(st, smp) < 0) {
			errorf(err, "run %lld: a sample without seq, or out of memory",
			       (long long)st->run);
			goto out;
		}
		st->after = json_integer_value(seq);
	}
	st->full = n >= STREAM_PAGE;
	if (!n && json_is_true(json_object_get(res, "finished"))) {
		line = json_pack("{s:I,s:O?,s:b}", "run", (json_int_t)st->run, "status",
				 json_object_get(res, "status"), "finished", 1);
		if (!line || stream_put(st, line) < 0) {
			json_decref(line);
			errorf(err, "out of memory");
			goto out;
		}
		json_decref(line);
		st->ended = 1;
	}
	ret = 0;
out:
	json_decref(res);
	return ret;
}

/* Sleep ms, through signals. */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* MHD asks for more: hand out what is buffered, else poll until there is some. */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *st = cls;
	char err[ERR_MAX];
	size_t n;
	int waited;

	(void)pos;
	for (;;) {
		if (st->off < st->len) {
			n = st->len - st->off < max ? st->len - st->off : max;
			memcpy(out, st->buf + st->off, n);
			st->off += n;
			st->quiet_ms = 0;
			return (ssize_t)n;
		}
		if (st->ended)
			return MHD_CONTENT_READER_END_OF_STREAM;
		st->off = st->len = 0;
		if (!st->full)
			for (waited = 0; waited < POLL_MS; waited += 100) {
				if (atomic_load(&st->a->stopping))
					return MHD_CONTENT_READER_END_WITH_ERROR;
				sleep_ms(100);
			}
		if (atomic_load(&st->a->stopping) || stream_fill(st, 0, err) < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		st->quiet_ms += st->full ? 0 : POLL_MS;
		if (!st->len && st->quiet_ms >= KEEPALIVE_MS) {
			out[0] = '\n';   /* a dead client shows up as a failed write */
			st->quiet_ms = 0;
			return 1;
		}
	}
}

/* The stream's buffer and the stream (MHD's free callback). */
static void stream_free(void *cls)
{
	struct stream *st = cls;

	free(st->buf);
	free(st);
}

/*
 * GET /runs/ID/stream: the header, every interval as it is stored, and a
 * last line once the run has ended; newline keep-alives while it is quiet.
 */
static enum MHD_Result h_stream(struct call *x)
{
	struct MHD_Response *resp;
	struct stream *st = calloc(1, sizeof(*st));
	char err[ERR_MAX];
	enum MHD_Result ret;

	if (!st)
		return reply_err(x->conn, 500, "out of memory");
	st->a = x->a;
	st->s = x->s;
	st->run = x->r->id;
	st->after = x->r->q.after;
	/* the first page now, so that an unknown run is a 404 and not an empty stream */
	if (stream_fill(st, 1, err) < 0) {
		stream_free(st);
		return reply_err(x->conn, not_found_or_500(err), "%s", err);
	}
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_read, st,
						 stream_free);
	if (!resp) {
		stream_free(st);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(x->conn, 200, resp);
	MHD_destroy_response(resp);
	return ret;
}

static const struct route routes[] = {
	{ "GET",  "/health",                  0,               0, h_health },
	{ "POST", "/matrices",                0,               1, h_submit },
	{ "GET",  "/matrices",                0,               0, h_list },
	{ "GET",  "/matrices/{key}",          0,               0, h_matrix },
	{ "POST", "/matrices/{key}/cancel",   0,               0, h_control },
	{ "POST", "/matrices/{key}/pause",    0,               0, h_control },
	{ "POST", "/matrices/{key}/resume",   0,               0, h_control },
	{ "POST", "/matrices/{key}/extend",   0,               1, h_extend },
	{ "POST", "/matrices/{key}/bisect",   0,               1, h_bisect },
	{ "GET",  "/bisections",              Q_BEFORE | Q_LIMIT, 0, h_bisections },
	{ "GET",  "/bisections/{id}",         0,               0, h_bisection },
	{ "GET",  "/runs/{id}/samples",       Q_AFTER | Q_MAX, 0, h_samples },
	{ "GET",  "/runs/{id}/stream",        Q_AFTER,         0, h_stream },
	{ "GET",  "/hosts",                   0,               0, h_hosts },
	{ "POST", "/hosts/{host}/drain",      0,               0, h_host_control },
	{ "POST", "/hosts/{host}/resume",     0,               0, h_host_control },
};

/* ---- matching: paths, parameters, queries ---- */

/* Decimal int64 in [min, max]: an optional '-', 1 to 19 digits, nothing else. */
static int parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret)
{
	const char *d = s && *s == '-' ? s + 1 : s;
	size_t n = d ? strspn(d, "0123456789") : 0;
	long long v;
	char *end;

	if (!n || n > 19 || d[n])
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*ret = v;
	return 0;
}

/* Split url into at most SEG_MAX non-empty segments; -1 if it cannot be a route. */
static int split(const char *url, char (*seg)[SPEC_KEY_MAX + 1], unsigned *n)
{
	const char *p = url, *e;

	*n = 0;
	if (*p != '/')
		return -1;
	while (*p == '/') {
		p++;
		e = p + strcspn(p, "/");
		if (e == p || (size_t)(e - p) > SPEC_KEY_MAX || *n == SEG_MAX)
			return -1;
		memcpy(seg[*n], p, (size_t)(e - p));
		seg[(*n)++][e - p] = '\0';
		p = e;
	}
	return *p ? -1 : 0;
}

/* Does the path (segments) have the pattern's shape? Placeholders match any segment. */
static int shape_matches(const char *pattern, char (*seg)[SPEC_KEY_MAX + 1], unsigned n)
{
	char pat[64], *save = NULL, *t;
	unsigned i = 0;

	/* the routes' patterns are under 64 bytes; a cut one would match other paths */
	if (fmtbuf(pat, sizeof(pat), "%s", pattern) < 0)
		return 0;
	for (t = strtok_r(pat, "/", &save); t; t = strtok_r(NULL, "/", &save), i++)
		if (i == n || (t[0] != '{' && strcmp(t, seg[i])))
			return 0;
	return i == n;
}

/* Bind the placeholders of r->route to r->seg; a message for 400 on a bad one. */
static int bind_params(struct req *r, char *err)
{
	char pat[64], *save = NULL, *t;
	unsigned i = 0;

	if (fmtbuf(pat, sizeof(pat), "%s", r->route->pattern) < 0)
		return errorf(err, "route %.64s: its pattern over %zu bytes", r->route->pattern,
			      sizeof(pat) - 1);
	for (t = strtok_r(pat, "/", &save); t; t = strtok_r(NULL, "/", &save), i++) {
		if (!strcmp(t, "{key}")) {
			if (!spec_key_ok(r->seg[i]))
				return errorf(err, "matrix '%s': expected an id or a name of "
					      "A-Za-z0-9._- (at most %d)", r->seg[i], SPEC_KEY_MAX);
			r->key = r->seg[i];
		} else if (!strcmp(t, "{host}")) {
			if (!conf_host_name_ok(r->seg[i]))
				return errorf(err, "host '%.64s': expected a name of a-z0-9._- "
					      "(at most %d)", r->seg[i], CONF_HOST_NAME_MAX - 1);
			r->key = r->seg[i];
		} else if (!strcmp(t, "{id}")) {
			if (parse_i64(r->seg[i], 1, INT64_MAX, &r->id) < 0)
				return errorf(err, "run '%s': expected a positive decimal id",
					      r->seg[i]);
		}
	}
	return 0;
}

static const struct qparam {
	const char *name;
	unsigned bit;
	int64_t min, max, def;
	size_t off;
} qparams[] = {
	{ "after", Q_AFTER, -1, INT64_MAX, -1, offsetof(struct query, after) },
	{ "max", Q_MAX, 1, PAGE_MAX, PAGE_DEFAULT, offsetof(struct query, max) },
	{ "before", Q_BEFORE, 1, INT64_MAX, INT64_MAX, offsetof(struct query, before) },
	{ "limit", Q_LIMIT, 1, LIST_MAX, LIST_DEFAULT, offsetof(struct query, limit) },
};

struct qwalk {
	struct query *q;
	unsigned allowed;
};

/*
 * One query parameter (MHD's iterator): known and allowed for the route,
 * given once, a whole number in its range into the query; MHD_NO with q->err
 * otherwise, which ends the walk.
 */
static enum MHD_Result query_one(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct qwalk *w = cls;
	const struct qparam *p;
	size_t i;

	(void)kind;
	for (i = 0; i < ARRAY_SIZE(qparams); i++) {
		p = &qparams[i];
		if (strcmp(key, p->name) || !(w->allowed & p->bit))
			continue;
		if (w->q->seen & p->bit) {
			errorf(w->q->err, "query parameter '%s' given twice", p->name);
			return MHD_NO;
		}
		w->q->seen |= p->bit;
		if (parse_i64(value, p->min, p->max, (int64_t *)((char *)w->q + p->off)) < 0) {
			errorf(w->q->err, "query parameter '%s': expected a whole number in "
			       "%lld..%lld", p->name, (long long)p->min, (long long)p->max);
			return MHD_NO;
		}
		return MHD_YES;
	}
	errorf(w->q->err, "unknown query parameter '%.64s'", key);
	return MHD_NO;
}

/*
 * The request's query parameters into q, the route's allowed ones only (the
 * rest at their defaults); -1 with q->err.
 */
static int parse_query(struct MHD_Connection *conn, unsigned allowed, struct query *q)
{
	struct qwalk w = { q, allowed };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(qparams); i++)
		*(int64_t *)((char *)q + qparams[i].off) = qparams[i].def;
	q->err[0] = '\0';
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, query_one, &w);
	return q->err[0] ? -1 : 0;
}

/* ---- the request cycle ---- */

/* "Authorization: Bearer TOKEN", compared in time that depends on want's length only. */
static int token_ok(const char *got, const char *want)
{
	size_t gl, wl = strlen(want), i;
	unsigned char d;

	if (!got || strncmp(got, "Bearer ", 7))
		return 0;
	got += 7;
	gl = strlen(got);
	d = gl != wl;
	for (i = 0; i < wl; i++)
		d |= (unsigned char)want[i] ^ (unsigned char)(i < gl ? got[i] : 0);
	return !d && wl > 0;
}

/* First call, the headers in: the head's rules, authorize, route, check the declared body
 * size. A head that breaks a rule is a 400 that closes the connection. */
static enum MHD_Result begin(struct listener *l, struct MHD_Connection *conn, const char *url,
			     const char *method, const char *version, struct req *r)
{
	const char *auth, *cl;
	char allow[64] = "", err[ERR_MAX];
	unsigned nseg;
	int64_t len;
	size_t i;

	r->answered = 1;
	r->begun = 1;
	if (httphead_check(conn, method, version, r->uri_len, err) < 0)
		return reply_errh(conn, 400, NULL, R_CLOSE, "%s", err);
	if (l->tcp) {
		auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						   MHD_HTTP_HEADER_AUTHORIZATION);
		if (!token_ok(auth, l->api->conf.api_token))
			return reply_errh(conn, 401, NULL, R_BEARER, "missing or wrong bearer token");
	}
	gate_forget(l->gate, conn);   /* its head in (TCP: the token's): no deadline from here */
	if (strlen(url) > URL_MAX)
		return reply_err(conn, 414, "path longer than %d bytes", URL_MAX);
	if (split(url, r->seg, &nseg) < 0)
		return reply_err(conn, 404, "no such path");
	for (i = 0; i < ARRAY_SIZE(routes); i++) {
		if (!shape_matches(routes[i].pattern, r->seg, nseg))
			continue;
		if (!strcmp(routes[i].method, method)) {
			r->route = &routes[i];
			break;
		}
		if (!strstr(allow, routes[i].method) &&
		    fmtbuf(allow + strlen(allow), sizeof(allow) - strlen(allow), "%s%s",
			   allow[0] ? ", " : "", routes[i].method) < 0)
			return reply_err(conn, 500, "the Allow header over %zu bytes",
					 sizeof(allow) - 1);
	}
	if (!r->route && allow[0])
		return reply_errh(conn, 405, allow, 0, "method %.16s not allowed here (allowed: %s)",
				  method, allow);
	if (!r->route)
		return reply_err(conn, 404, "no such path");
	if (bind_params(r, err) < 0)
		return reply_err(conn, 400, "%s", err);
	if (parse_query(conn, r->route->query, &r->q) < 0)
		return reply_err(conn, 400, "%s", r->q.err);
	cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && (parse_i64(cl, 0, INT64_MAX, &len) < 0 || len > API_BODY_MAX))
		return reply_err(conn, 413, "request body over %u bytes", API_BODY_MAX);
	if (cl && len > 0 && !r->route->body)
		return reply_err(conn, 400, "%s %s takes no body", method, r->route->pattern);
	if (cl && len > 0 && !(r->body = malloc((size_t)len)))
		return reply_err(conn, 500, "out of memory");
	r->cap = r->body ? (size_t)len : 0;
	r->answered = 0;
	return MHD_YES;
}

/* A piece of the body: kept up to API_BODY_MAX, refused beyond. */
static enum MHD_Result take_body(struct MHD_Connection *conn, struct req *r, const char *data,
				 size_t *size)
{
	size_t n = *size, cap;
	char *nb;

	*size = 0;
	r->answered = 1;
	if (!r->route->body)
		return reply_err(conn, 400, "%s takes no body", r->route->pattern);
	if (n > API_BODY_MAX - r->len) {
		free(r->body);
		r->body = NULL;
		/* mid-upload MHD may refuse a response: then drop the connection */
		return reply_err(conn, 413, "request body over %u bytes", API_BODY_MAX);
	}
	if (r->len + n > r->cap) {
		cap = r->cap ? r->cap : 4096;
		while (cap < r->len + n)
			cap *= 2;
		cap = cap < API_BODY_MAX ? cap : API_BODY_MAX;
		nb = realloc(r->body, cap);
		if (!nb)
			return reply_err(conn, 500, "out of memory");
		r->body = nb;
		r->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->answered = 0;
	return MHD_YES;
}

/*
 * The connection's own database handle, opened on its first request; NULL
 * with err.
 */
static struct store *conn_store(struct listener *l, struct MHD_Connection *conn, char *err)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn_ctx *cc = ci ? ci->socket_context : NULL;

	if (!cc) {
		errorf(err, "out of memory");
		return NULL;
	}
	if (!cc->store && store_open(l->api->db, &cc->store, err) < 0)
		return NULL;
	return cc->store;
}

/*
 * MHD's request callback: the route chosen on the first call, the body
 * gathered on the next ones, then answered once on the connection's store;
 * a POST wakes the idle threads.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	struct listener *l = cls;
	struct req *r = *req_cls;
	struct call x = { l->api, conn, r, NULL };
	enum MHD_Result rc;
	char err[ERR_MAX];

	if (!r)   /* on_uri found no memory */
		return MHD_NO;
	if (!r->begun)
		return begin(l, conn, url, method, version, r);
	if (r->answered) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size)
		return take_body(conn, r, upload, upload_size);
	r->answered = 1;
	x.s = conn_store(l, conn, err);
	if (!x.s)
		return reply_err(conn, 503, "database: %s", err);
	rc = r->route->fn(&x);
	if (!strcmp(r->route->method, "POST"))
		wake_all();   /* a matrix queued, resumed, extended: no thread waits out its idle */
	return rc;
}

/* A request line read: its request, with the raw target's length (before MHD decodes it). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct req *r = calloc(1, sizeof(*r));

	(void)cls;
	(void)conn;
	if (r)
		r->uri_len = strlen(uri);
	return r;
}

/* A request's end: its body and state freed. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct req *r = *req_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (r)
		free(r->body);
	free(r);
	*req_cls = NULL;
}

/* A connection starts waiting at the gate for its head (TCP: and its token). */
static void gate_conn(struct listener *l, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *fd, *addr;

	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (fd)
		gate_enter(l->gate, conn, fd->connect_fd, addr ? addr->client_addr : NULL);
}

/* MHD calls this before the socket is closed: the gate's fd stays valid until then. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct listener *l = cls;
	struct conn_ctx *cc = *socket_ctx;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_ctx = calloc(1, sizeof(struct conn_ctx));
		if (l->gate)
			gate_conn(l, conn);
		return;
	}
	if (l->gate)
		gate_forget(l->gate, conn);
	if (cc)
		store_close(cc->store);
	free(cc);
	*socket_ctx = NULL;
}

/* Accept policy: never refuse, make room at the gate (gate_admit). */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct listener *l = cls;

	(void)len;
	gate_admit(l->gate, addr);
	return MHD_YES;
}

/* ---- listening: the checks api_start and harnessd -n share, then the listeners ---- */

/* Close fd (if open) and pass rc on: return close_err(fd, errorf(...)). */
static int close_err(int fd, int rc)
{
	if (fd >= 0)
		close(fd);
	return rc;
}

/* api_tcp needs api_token: never an open TCP listener. */
static int token_check(const struct conf *c, char *err)
{
	if (c->api_tcp[0] && !c->api_token[0])
		return errorf(err, "api_tcp '%s' needs an api_token: refusing an open TCP listener",
			      c->api_tcp);
	return 0;
}

/*
 * api_socket as an address in sa: not empty, short enough for sun_path, a
 * socket or nothing yet, in a directory that exists and we may create it in.
 */
static int socket_check(const char *path, struct sockaddr_un *sa, char *err)
{
	char dir[sizeof(sa->sun_path)], *slash;
	size_t n = strlen(path);
	struct stat st;

	if (!n)
		return errorf(err, "api_socket: empty (conf_setup fills in <results>/harnessd.sock)");
	if (n >= sizeof(sa->sun_path))
		return errorf(err, "api_socket '%s': longer than %zu bytes", path,
			      sizeof(sa->sun_path) - 1);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n + 1);
	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
		return errorf(err, "api_socket '%s' exists and is not a socket", path);
	memcpy(dir, path, n + 1);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';   /* "/x": the root */
	else
		*slash = '\0';
	if (stat(dir, &st) < 0)
		return errorf(err, "api_socket '%s': directory '%s': %s", path, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return errorf(err, "api_socket '%s': '%s' is not a directory", path, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return errorf(err, "api_socket '%s': cannot create it in '%s': %s", path, dir,
			      strerror(errno));
	return 0;
}

/* api_tcp, "HOST:PORT" ("[v6]:PORT" too; port 0 picks one), resolved into ss. */
static int tcp_check(const char *spec, struct sockaddr_storage *ss, socklen_t *len, char *err)
{
	const char *colon = strrchr(spec, ':'), *h = spec;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	char host[64];
	int64_t port;
	size_t hl;
	int rc;

	if (!colon || colon == spec || parse_i64(colon + 1, 0, 65535, &port) < 0)
		return errorf(err, "api_tcp '%s': expected HOST:PORT", spec);
	hl = (size_t)(colon - spec);
	if (spec[0] == '[' && colon[-1] == ']' && hl > 2) {
		h++;
		hl -= 2;
	}
	if (fmtbuf(host, sizeof(host), "%.*s", (int)hl, h) < 0)
		return errorf(err, "api_tcp '%s': host over %zu bytes", spec, sizeof(host) - 1);
	rc = getaddrinfo(host, colon + 1, &hints, &ai);
	if (rc)
		return errorf(err, "api_tcp '%s': %s", spec, gai_strerror(rc));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* A TCP socket bound to ss, or -1 with errno. */
static int tcp_bind(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, e;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int api_check(const struct conf *c, const char *path, char *err)
{
	struct sockaddr_storage ss;
	struct sockaddr_un sa;
	char msg[ERR_MAX];
	socklen_t len;
	gid_t gid;
	int fd;

	if (token_check(c, msg) < 0 || socket_check(c->api_socket, &sa, msg) < 0 ||
	    (c->api_group[0] && results_group_id(c->api_group, &gid, msg) < 0) ||
	    (c->api_tcp[0] && tcp_check(c->api_tcp, &ss, &len, msg) < 0))
		return errorf(err, "%s: %s", path ? path : "harness.conf", msg);
	if (!c->api_tcp[0])
		return 0;
	fd = tcp_bind(&ss, len);
	if (fd < 0 && errno != EADDRINUSE)   /* in use: maybe by the running daemon */
		return errorf(err, "%s: api_tcp '%s': %s", path ? path : "harness.conf",
			      c->api_tcp, strerror(errno));
	return close_err(fd, 0);
}

/* Is anyone answering on sa? */
static int answers(const struct sockaddr_un *sa)
{
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	return fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
}

/* The socket's owner group and mode before anyone can connect (before listen). */
static int unix_perms(const struct conf *c, char *err)
{
	gid_t gid;

	if (!c->api_group[0]) {
		if (chmod(c->api_socket, 0600) < 0)
			return errorf(err, "chmod '%s': %s", c->api_socket, strerror(errno));
		return 0;
	}
	if (results_group_id(c->api_group, &gid, err) < 0)
		return -1;
	if (chown(c->api_socket, (uid_t)-1, gid) < 0 || chmod(c->api_socket, 0660) < 0)
		return errorf(err, "'%s' to group '%s': %s", c->api_socket, c->api_group,
			      strerror(errno));
	return 0;
}

/*
 * The API's unix socket: a stale one replaced (one that answers is another
 * daemon's: refused), bound, given its owner and mode, listening.
 */
static int unix_listen(struct api *a, char *err)
{
	const char *path = a->conf.api_socket;
	struct sockaddr_un sa;
	struct stat st;
	int fd;

	if (socket_check(path, &sa, err) < 0)
		return -1;
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
		if (answers(&sa))
			return errorf(err, "another daemon answers on '%s'", path);
		if (unlink(path) < 0 && errno != ENOENT)
			return errorf(err, "stale socket '%s': %s", path, strerror(errno));
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errorf(err, "socket for '%s': %s", path, strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return close_err(fd, errorf(err, "bind '%s': %s", path, strerror(errno)));
	a->sock_made = 1;
	if (stat(path, &st) == 0) {
		a->sock_dev = st.st_dev;
		a->sock_ino = st.st_ino;
	}
	if (unix_perms(&a->conf, err) < 0)
		return close_err(fd, -1);
	if (listen(fd, API_CONN_MAX) < 0)
		return close_err(fd, errorf(err, "listen on '%s': %s", path, strerror(errno)));
	a->local.fd = fd;
	return 0;
}

/*
 * The API's TCP socket, bound and listening; the port it got (0 asks for
 * any) kept for the log.
 */
static int tcp_listen(struct api *a, char *err)
{
	struct sockaddr_storage ss;
	socklen_t len, sl = sizeof(ss);
	int fd;

	if (tcp_check(a->conf.api_tcp, &ss, &len, err) < 0)
		return -1;
	fd = tcp_bind(&ss, len);
	if (fd < 0 || listen(fd, API_CONN_MAX) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return close_err(fd, errorf(err, "api_tcp '%s': %s", a->conf.api_tcp,
					    strerror(errno)));
	a->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
			((struct sockaddr_in *)&ss)->sin_port);
	a->net.fd = fd;
	return 0;
}

/*
 * libmicrohttpd on the listener's socket, a thread per connection, each
 * first waiting at the gate for its head (TCP: its token).
 */
static int serve(struct listener *l, char *err)
{
	l->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
				MHD_USE_POLL,
				0, on_accept, l, on_request, l,
				MHD_OPTION_LISTEN_SOCKET, l->fd,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, l,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, l,
				MHD_OPTION_URI_LOG_CALLBACK, on_uri, l,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)API_CONN_MAX,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)API_IDLE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
				MHD_OPTION_END);
	if (!l->d)
		return errorf(err, "libmicrohttpd would not start on the %s listener",
			      l->tcp ? "TCP" : "unix socket");
	l->fd = -1;   /* MHD closes it */
	return 0;
}

static const struct gate_limits gate_defaults = { API_HEADER_MS, API_PEER_WAITING, API_WAITING };

/*
 * The unix socket's listener behind a gate of its own: every local client
 * is one peer there, so one cap serves for both (idle connections would
 * otherwise hold every slot until MHD's idle timeout, and again after).
 */
static int unix_start(struct api *a, const struct gate_limits *lim, char *err)
{
	struct gate_limits own = lim ? *lim : gate_defaults;

	own.per_peer = own.waiting;
	if (gate_new(&own, API_CONN_MAX, &a->local.gate, err) < 0 || unix_listen(a, err) < 0)
		return -1;
	return serve(&a->local, err);
}

/* The TCP listener behind its gate. */
static int tcp_start(struct api *a, const struct gate_limits *lim, char *err)
{
	if (gate_new(lim ? lim : &gate_defaults, API_CONN_MAX, &a->net.gate, err) < 0 ||
	    tcp_listen(a, err) < 0)
		return -1;
	return serve(&a->net, err);
}

unsigned api_tcp_port(const struct api *a)
{
	return a->net.d ? a->port : 0;
}

void api_stop(struct api *a)
{
	struct stat st;

	if (!a)
		return;
	atomic_store(&a->stopping, 1);
	if (a->net.d)
		MHD_stop_daemon(a->net.d);
	if (a->local.d)
		MHD_stop_daemon(a->local.d);
	gate_free(a->net.gate);   /* after its listener: MHD forgets connections there */
	gate_free(a->local.gate);
	if (a->net.fd >= 0)
		close(a->net.fd);
	if (a->local.fd >= 0)
		close(a->local.fd);
	/* remove the socket file only if it is still the one we bound */
	if (a->sock_made && stat(a->conf.api_socket, &st) == 0 && st.st_dev == a->sock_dev &&
	    st.st_ino == a->sock_ino)
		unlink(a->conf.api_socket);
	free(a);
}

int api_start_limits(const struct conf *c, const struct gate_limits *lim, struct api **ret,
		     char *err)
{
	struct api *a;
	struct store *s = NULL;

	if (token_check(c, err) < 0)
		return -1;
	a = calloc(1, sizeof(*a));
	if (!a)
		return errorf(err, "out of memory");
	a->conf = *c;
	a->local = (struct listener){ .api = a, .fd = -1, .tcp = 0 };
	a->net = (struct listener){ .api = a, .fd = -1, .tcp = 1 };
	atomic_init(&a->stopping, 0);
	/* the database must open: better at start than at the first request */
	if (pathf(a->db, err, "%s/harness.db", c->results) < 0 || store_open(a->db, &s, err) < 0) {
		free(a);
		return -1;
	}
	store_close(s);
	if (unix_start(a, lim, err) < 0 ||
	    (c->api_tcp[0] && tcp_start(a, lim, err) < 0)) {
		api_stop(a);
		return -1;
	}
	*ret = a;
	return 0;
}

int api_start(const struct conf *c, struct api **ret, char *err)
{
	return api_start_limits(c, NULL, ret, err);
}

void api_set_sched(struct api *a, struct sched *sc)
{
	atomic_store(&a->sched, sc);
}
