/* httphead.h -- a request's head as the API accepts it: framing and header
 * rules a proxy in front could read otherwise, checked before routing. */
#ifndef HTTPHEAD_H
#define HTTPHEAD_H

#include <stddef.h>

#include <microhttpd.h>

/*
 * The head of the request on conn (headers in): every header line exactly
 * "Name: value" ending in CRLF, names of token characters, values of visible
 * characters, spaces and tabs; Host, Content-Length, Transfer-Encoding and
 * Authorization at most once each; Content-Length or Transfer-Encoding
 * (chunked) but not both; Host on HTTP/1.1; Authorization "Bearer " and one
 * word. method and version as MHD gives them, uri_len the raw request
 * target's bytes (MHD's URI log callback). 0, or -1 with one line naming the
 * header and what was expected; the caller answers 400 and closes.
 */
int httphead_check(struct MHD_Connection *conn, const char *method, const char *version,
		   size_t uri_len, char *err);

#endif
