/* notify.c -- POST a JSON document with libcurl: bounded in time, http(s)
 * only, the answer's body discarded; a failure is reported, never fatal. */
#include "daemon/notify.h"
#include "base/err.h"

#include <curl/curl.h>

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

int notify_post(const char *url, json_t *body, char *err)
{
	_cleanup_free_ char *text = json_dumps(body, JSON_COMPACT);
	struct curl_slist *hdr = NULL;
	long code = 0;
	CURLcode rc;
	CURL *h;

	if (!text || !(h = curl_easy_init()))
		return errorf(err, "webhook: out of memory");
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	if (rc != CURLE_OK)
		return errorf(err, "webhook %s: %s", url, curl_easy_strerror(rc));
	if (code >= 400)
		return errorf(err, "webhook %s: HTTP %ld", url, code);
	return 0;
}
