/* httphead.c -- the API's strict reading of a request head: one table of the
 * headers that may come once, allow-lists for names and values, and the raw size. */
#include "daemon/httphead.h"
#include "base/err.h"

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

struct walk {
	unsigned seen[H_ONCE];
	const char *value[H_ONCE];
	size_t min, max;          /* the head's bytes its lines allow (an empty value: ":" or ": ") */
	char *err;
	int bad;
};

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
	w->min += kn + 1 + (vn ? 1 : 0) + vn + 2;
	w->max += kn + 2 + vn + 2;
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

int httphead_check(struct MHD_Connection *conn, const char *method, const char *version,
		   size_t uri_len, char *err)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
	/* "METHOD SP target SP version CRLF" ... "CRLF" */
	size_t line = strlen(method) + 1 + uri_len + 1 + strlen(version) + 2;
	struct walk w = { .min = line + 2, .max = line + 2, .err = err };

	MHD_get_connection_values_n(conn, MHD_HEADER_KIND, header_one, &w);
	if (w.bad)
		return -1;
	/*
	 * MHD stops a value at a NUL and drops what follows; it takes a bare LF
	 * for CRLF, any spaces after the colon, and folds continued lines. Each
	 * shows as bytes the parsed head does not account for.
	 */
	if (!ci || ci->header_size < w.min || ci->header_size > w.max)
		return errorf(err, "request head: expected 'Name: value' lines, one space after "
			      "the colon, each ending in CRLF (%zu bytes where the headers "
			      "account for %zu)", ci ? ci->header_size : 0, w.max);
	return framing(&w, version, err);
}
