/* fetch.h -- download a file once into a content-addressed cache: it lands as
 * CACHE/sha256/<hex> only after its SHA-256 matched the one the caller gave. */
#ifndef FETCH_H
#define FETCH_H

#include <stdint.h>

#define FETCH_MAX_BYTES  (UINT64_C(512) << 20)  /* a larger download is refused */
#define FETCH_URL_MAX    1024

/*
 * The file at url (http, https or file; at most 5 redirects, to http or https
 * only) whose SHA-256 is want_sha256 (64 hex digits, either case), as
 * CACHE_DIR/sha256/<hex>. If that entry exists and still hashes to its name
 * (it is re-hashed on every reuse), nothing is downloaded. Otherwise the body
 * is streamed to CACHE_DIR/tmp/<random>.part while it is hashed, and renamed
 * into place only when the hash matches; on any failure the .part file is
 * removed. Returns 0 with the entry's path in ret_path (PATH_MAX bytes), or
 * -1 with a one-line message naming the URL in err (ret_path untouched); a
 * mismatch reads "URL: sha256 mismatch: expected X, got Y".
 */
int fetch_url(const char *url, const char *want_sha256, const char *cache_dir, char *ret_path,
	      char *err);

/* 1 if url starts with http://, https:// or file:// and is printable ASCII. */
int fetch_url_ok(const char *url);

#endif
