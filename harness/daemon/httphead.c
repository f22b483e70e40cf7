/* httphead.c -- the API's strict reading of a request head: one table of the
 * headers that may come once, allow-lists for names and values, and every byte
 * of the raw head accounted for. */
#include "daemon/httphead.h"
#include "base/err.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

/* Headers that frame or authorize a request: two of one are two readings. */
enum { H_HOST, H_LENGTH, H_ENCODING, H_AUTH, H_ONCE };

static const char *const once[H_ONCE] = {
	[H_HOST] = MHD_HTTP_HEADER_HOST,
	[H_LENGTH] = MHD_HTTP_HEADER_CONTENT_LENGTH,
	[H_ENCODING] = MHD_HTTP_HEADER_TRANSFER_ENCODING,
	[H_AUTH] = MHD_HTTP_HEADER_AUTHORIZATION,
};

/*
 * The head as MHD 0.9 leaves it in its read buffer, which it parses in
 * place: the request line and every header line where they came, the
 * method's space, the colon and each CRLF overwritten with NULs, names and
 * values pointing into it. Walking it from the method shows each byte the
 * parsed head does not account for: a NUL and what follows it on a line, a
 * bare LF, a second space after the colon, a folded line (MHD copies it).
 * One form looks as a CRLF does once overwritten: a NUL right before a bare
 * LF (docs/daemon.md). A libmicrohttpd that copied its lines would fail
 * every request here (test_api's would): none passes unchecked.
 */
struct walk {
	unsigned seen[H_ONCE];
	const char *value[H_ONCE];
	uintptr_t head, end;      /* the head's bytes: [method, method + its raw size) */
	uintptr_t at;             /* where the next header line must start */
	char *err;
	int bad;
};

/* Is p inside the head, and are the n bytes from p in it too, all NUL? */
static int nuls_at(const struct walk *w, const char *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	size_t i;

	if (a < w->head || a > w->end || w->end - a < n)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/*
 * Header k (kn bytes) with value v (vn) where the walk expects it: "k: v"
 * or an empty "k:", then CRLF; the walk moved past it. 0, or -1.
 */
static int line_in_place(struct walk *w, const char *k, size_t kn, const char *v, size_t vn)
{
	uintptr_t key = (uintptr_t)k, val = (uintptr_t)v;

	if (key != w->at || w->end - key < kn + 2 || !nuls_at(w, k + kn, 1))
		return -1;
	if (!(val == key + kn + 2 && k[kn + 1] == ' ') && !(vn == 0 && val == key + kn + 1))
		return -1;
	if (!nuls_at(w, v + vn, 2))   /* the value's end, then the LF: CRLF, nothing else */
		return -1;
	w->at = val + vn + 2;
	return 0;
}

/* RFC 9110 token characters: what a header's name is made of. */
static int name_ok(const char *k, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
		      (k[i] >= '0' && k[i] <= '9') || strchr("!#$%&'*+-.^_`|~", k[i])))
			return 0;
	return 1;
}

/* Visible ASCII, space and tab: what a value is made of (no NUL, CR, LF, DEL, 8-bit). */
static int value_ok(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] != '\t' && (v[i] < 0x20 || v[i] > 0x7e))
			return 0;
	return 1;
}

/* "Bearer " and one word of visible characters, nothing after it. */
static int bearer_ok(const char *v)
{
	size_t n;

	if (strncmp(v, "Bearer ", 7))
		return 0;
	n = strspn(v + 7, "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~");
	return n > 0 && !v[7 + n];
}

/* One header line: its name, value and count; its bytes into the head's size. */
static enum MHD_Result header_one(void *cls, enum MHD_ValueKind kind, const char *k,
				  size_t kn, const char *v, size_t vn)
{
	struct walk *w = cls;
	size_t i;

	(void)kind;
	if (!name_ok(k, kn))
		w->bad = errorf(w->err, "header '%.64s': expected a name of letters, digits and "
				"!#$%%&'*+-.^_`|~ right before its colon", k);
	else if (!value_ok(v, vn))
		w->bad = errorf(w->err, "header '%.64s': expected a value of visible characters, "
				"spaces and tabs", k);
	if (w->bad)
		return MHD_NO;
	for (i = 0; i < H_ONCE; i++) {
		if (strcasecmp(k, once[i]))
			continue;
		if (w->seen[i]++) {
			w->bad = errorf(w->err, "header '%s': expected once, sent twice", once[i]);
			return MHD_NO;
		}
		w->value[i] = v;
	}
	if (line_in_place(w, k, kn, v, vn) < 0) {
		w->bad = errorf(w->err, "request head: header '%.64s': expected 'Name: value' "
				"ending in CRLF, one space after the colon, no NUL", k);
		return MHD_NO;
	}
	return MHD_YES;
}

/* The framing headers together: one body length, Host on HTTP/1.1, the bearer's shape. */
static int framing(const struct walk *w, const char *version, char *err)
{
	const char *te = w->value[H_ENCODING];

	if (w->seen[H_LENGTH] && w->seen[H_ENCODING])
		return errorf(err, "headers 'Content-Length' and 'Transfer-Encoding': expected one "
			      "of them, not both");
	if (te && strcasecmp(te, "chunked"))
		return errorf(err, "header 'Transfer-Encoding': expected 'chunked'");
	if (!w->seen[H_HOST] && !strcmp(version, MHD_HTTP_VERSION_1_1))
		return errorf(err, "header 'Host': expected on an HTTP/1.1 request");
	if (w->seen[H_AUTH] && !bearer_ok(w->value[H_AUTH]))
		return errorf(err, "header 'Authorization': expected 'Bearer TOKEN', nothing after "
			      "the token");
	return 0;
}

/*
 * The request line in place: "METHOD SP target SP version CRLF", the target
 * uri_len raw bytes; where the first header line must start, or 0.
 */
static uintptr_t request_line(const struct walk *w, const char *method, const char *version,
			      size_t uri_len)
{
	size_t mn = strlen(method), vn = strlen(version);
	uintptr_t sp2 = w->head + mn + 1 + uri_len;

	if (!nuls_at(w, method + mn, 1) || w->end - w->head < mn + 1 + uri_len + 1 ||
	    (uintptr_t)version != sp2 + 1 || !nuls_at(w, version + vn, 2) ||
	    ((const char *)w->head)[mn + 1 + uri_len])
		return 0;
	return (uintptr_t)version + vn + 2;
}

int httphead_check(struct MHD_Connection *conn, const char *method, const char *version,
		   size_t uri_len, char *err)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
	struct walk w = { .head = (uintptr_t)method, .err = err };

	if (!ci)
		return errorf(err, "request head: its size is unknown");
	w.end = w.head + ci->header_size;
	w.at = request_line(&w, method, version, uri_len);
	if (!w.at)
		return errorf(err, "request head: expected 'METHOD target version' with single "
			      "spaces, ending in CRLF");
	MHD_get_connection_values_n(conn, MHD_HEADER_KIND, header_one, &w);
	if (w.bad)
		return -1;
	/* the empty line: CRLF, the head's last bytes */
	if (!nuls_at(&w, (const char *)w.at, 2) || w.at + 2 != w.end)
		return errorf(err, "request head: expected 'Name: value' lines, one space after "
			      "the colon, each ending in CRLF (%zu bytes where the headers "
			      "account for %zu)", ci->header_size, (size_t)(w.at + 2 - w.head));
	return framing(&w, version, err);
}
