/* fetch.c -- libcurl downloads into a content-addressed cache: hashed while
 * written, checked before they become an entry, never used unverified. */
#include "vm/fetch.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/hash.h"

#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define FETCH_STALE_S        (24 * 3600)  /* a .part file this old is a crashed download */
#define FETCH_CONNECT_S      30L
#define FETCH_TIMEOUT_S      3600L        /* the whole transfer */
#define FETCH_LOW_SPEED      1024L        /* bytes/s below which ... */
#define FETCH_LOW_SPEED_S    60L          /* ... for this long, the transfer is dropped */

struct sink {
	int fd;
	uint64_t bytes;
	struct hash_sha256 sha;
	int too_big, write_errno;
};

/* libcurl's global state, once for every thread that downloads. */
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init_once(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static CURLcode curl_init(void)
{
	pthread_once(&curl_once, curl_init_once);
	return curl_init_rc;
}

int fetch_url_ok(const char *url)
{
	const char *p;

	if (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8) &&
	    strncasecmp(url, "file://", 7))
		return 0;
	if (strlen(url) >= FETCH_URL_MAX)
		return 0;
	for (p = url; *p; p++)
		if (*p <= 0x20 || *p > 0x7e)
			return 0;
	return 1;
}

/*
 * curl's write callback: the body into the .part file and the hash, refused
 * (0: curl stops) past FETCH_MAX_BYTES or on a write error, each noted.
 */
static size_t sink_write(char *data, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	size_t len = size * n, done = 0;
	ssize_t w;

	if (s->bytes + len > FETCH_MAX_BYTES) {
		s->too_big = 1;
		return 0;
	}
	while (done < len) {
		w = write(s->fd, data + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			s->write_errno = errno;
			return 0;
		}
		done += (size_t)w;
	}
	hash_sha256_update(&s->sha, data, len);
	s->bytes += len;
	return len;
}

/* Remove .part files left by downloads that died more than a day ago. */
static void sweep_stale(const char *tmp_dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	size_t n;
	DIR *d = opendir(tmp_dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".part") ||
		    pathf(path, NULL, "%s/%s", tmp_dir, e->d_name) < 0)
			continue;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_mtime < time(NULL) - FETCH_STALE_S)
			unlink(path);
	}
	closedir(d);
}

/* An existing entry that still hashes to its name: 1; absent: 0; a bad one is removed. */
static int cached(const char *path, const char *want)
{
	char hex[HASH_SHA256_HEX];
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	if (S_ISREG(st.st_mode) && hash_sha256_file(path, hex, NULL) == 0 && !strcmp(hex, want))
		return 1;
	unlink(path);
	return 0;
}

/* Body of url into fd, hashed into s; 0 or -1 with "URL: reason". */
static int download(const char *url, struct sink *s, char *err)
{
	char cerr[CURL_ERROR_SIZE] = "";
	long code = 0;
	CURLcode rc = curl_init();
	CURL *c;

	if (rc != CURLE_OK)
		return errorf(err, "%.200s: libcurl: %s", url, curl_easy_strerror(rc));
	c = curl_easy_init();
	if (!c)
		return errorf(err, "%.200s: libcurl: cannot make a handle", url);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)FETCH_MAX_BYTES);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, FETCH_CONNECT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, FETCH_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, FETCH_LOW_SPEED);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, FETCH_LOW_SPEED_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "mglru-harness");
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	if (rc == CURLE_OK)
		return 0;
	if (s->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return errorf(err, "%.200s: larger than %llu MiB", url,
			      (unsigned long long)(FETCH_MAX_BYTES >> 20));
	if (s->write_errno)
		return errorf(err, "%.200s: cannot write the download: %s", url,
			      strerror(s->write_errno));
	if (rc == CURLE_HTTP_RETURNED_ERROR && code >= 400)
		return errorf(err, "%.200s: HTTP %ld", url, code);
	return errorf(err, "%.200s: %s", url, cerr[0] ? cerr : curl_easy_strerror(rc));
}

int fetch_url(const char *url, const char *want_sha256, const char *cache_dir, char *ret_path,
	      char *err)
{
	char want[HASH_SHA256_HEX], got[HASH_SHA256_HEX], dir[PATH_MAX], entry[PATH_MAX], part[PATH_MAX];
	struct sink s = { .fd = -1 };
	size_t i;
	int ret = -1;

	if (!fetch_url_ok(url))
		return errorf(err, "'%.200s': expected an http://, https:// or file:// URL of "
			      "printable characters", url);
	for (i = 0; i < sizeof(want) - 1 && want_sha256[i]; i++)
		want[i] = (char)tolower((unsigned char)want_sha256[i]);
	want[i] = '\0';
	if (want_sha256[i] || !hash_sha256_hex_ok(want))
		return errorf(err, "%.200s: sha256 '%.80s': expected 64 hex digits", url, want_sha256);
	if (pathf(entry, err, "%s/sha256/%s", cache_dir, want) < 0)
		return -1;
	if (cached(entry, want)) {
		strcpy(ret_path, entry);
		return 0;
	}
	if (pathf(dir, err, "%s/sha256", cache_dir) < 0 || mkdir_p(dir, err) < 0 ||
	    pathf(dir, err, "%s/tmp", cache_dir) < 0 || mkdir_p(dir, err) < 0 ||
	    pathf(part, err, "%s/XXXXXX.part", dir) < 0)
		return -1;
	sweep_stale(dir);
	s.fd = mkstemps(part, 5);
	if (s.fd < 0)
		return errorf(err, "cannot create '%s': %s", part, strerror(errno));
	fcntl(s.fd, F_SETFD, FD_CLOEXEC);
	hash_sha256_init(&s.sha);
	if (download(url, &s, err) < 0)
		goto out;
	if (fsync(s.fd) < 0) {
		errorf(err, "cannot write '%s': %s", part, strerror(errno));
		goto out;
	}
	hash_sha256_final_hex(&s.sha, got);
	if (strcmp(got, want)) {
		errorf(err, "%.200s: sha256 mismatch: expected %s, got %s", url, want, got);
		goto out;
	}
	if (fchmod(s.fd, 0444) < 0 || rename(part, entry) < 0) {
		errorf(err, "cannot move '%s' to '%s': %s", part, entry, strerror(errno));
		goto out;
	}
	strcpy(ret_path, entry);
	ret = 0;
out:
	close(s.fd);
	if (ret < 0)
		unlink(part);
	return ret;
}
