/* test_fetch.c -- unit tests for harness/vm/fetch.c (downloads into the
 * content-addressed cache) and the kernel arms of harness/spec/spec.c that use it
 * ("url" + "sha256", "package", and the keys' cross-checks). Files are served
 * by a real HTTP server, `python3 -m http.server` bound to 127.0.0.1 on a free
 * port, started by the test and stopped at its end. A "package" arm runs a
 * stand-in images/build.sh written by the test (apt-get is beside the point). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "base/err.h"
#include "vm/fetch.h"
#include "base/hash.h"
#include "spec/spec.h"
#include "testlib.h"

#define RELEASE "6.12.99-test"
/* a SHA-256 nothing here hashes to */
#define WRONG "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
/* files and streams of a minimal workload */
#define WL "{\"name\":\"w\",\"files\":[{\"name\":\"d\",\"mib\":8}]," \
	   "\"streams\":[{\"kind\":\"random\",\"file\":\"d\"}]}"

static char dir[PATH_MAX];     /* the mkdtemp() directory */
static char srv[PATH_MAX];     /* DIR/srv, what the server serves */
static char cache[PATH_MAX];   /* DIR/cache, fetch_url's cache_dir */
static char sha_blob[HASH_SHA256_HEX], sha_kernel[HASH_SHA256_HEX], sha_mods[HASH_SHA256_HEX];
static int port;
static pid_t server = -1;
static struct conf conf;
static char err[ERR_MAX];

/* snprintf for the fixture, which cannot assert: -1 on truncation. */
static int pfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int pfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* ---- fixture: files, the server ---- */

static int put_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* The fake bzImage of testlib, written without failing the test (a setup step). */
static int put_kernel(const char *path)
{
	unsigned char img[FAKE_BZIMAGE_SIZE];

	fake_bzimage(img, RELEASE);
	return put_bytes(path, img, sizeof(img));
}

/* 300 KiB of bytes that are not a kernel: several writes of the callback. */
static int write_blob(const char *path)
{
	size_t n = 300 << 10, i;
	unsigned char *b = malloc(n);
	int rc;

	if (!b)
		return -1;
	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 31 + (i >> 9));
	rc = put_bytes(path, b, n);
	free(b);
	return rc;
}

/* A port nothing listens on now (the kernel's pick for port 0). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), p = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		p = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return p;
}

static int answers(int p)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static void server_stop(void)
{
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	server = -1;
}

/* python3 -m http.server on 127.0.0.1:port serving srv; 0 once it answers. */
static int server_start(void)
{
	char ports[16], log[PATH_MAX];
	struct timespec ms50 = { 0, 50 * 1000 * 1000 };
	int i, fd;

	snprintf(ports, sizeof(ports), "%d", port);
	if (pfmt(log, sizeof(log), "%s/server.log", dir) < 0)
		return -1;
	server = fork();
	if (server < 0)
		return -1;
	if (server == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execlp("python3", "python3", "-m", "http.server", "--bind", "127.0.0.1", ports,
		       "--directory", srv, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {     /* 10 s */
		if (answers(port))
			return 0;
		if (waitpid(server, NULL, WNOHANG) == server) {
			server = -1;
			return -1;
		}
		nanosleep(&ms50, NULL);
	}
	server_stop();
	return -1;
}

static int group_setup(void **state)
{
	char path[PATH_MAX];
	int tries;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_fetch.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	if (pfmt(srv, sizeof(srv), "%s/srv", dir) < 0 || pfmt(cache, sizeof(cache), "%s/cache", dir) < 0 ||
	    mkdir(srv, 0755) < 0)
		return -1;
	if (pfmt(path, sizeof(path), "%s/blob", srv) < 0 || write_blob(path) < 0 ||
	    hash_sha256_file(path, sha_blob, err) < 0)
		return -1;
	if (pfmt(path, sizeof(path), "%s/bzImage", srv) < 0 || put_kernel(path) < 0 ||
	    hash_sha256_file(path, sha_kernel, err) < 0)
		return -1;
	if (pfmt(path, sizeof(path), "%s/mods.cpio", srv) < 0 || put_bytes(path, "070701 modules", 14) < 0 || hash_sha256_file(path, sha_mods, err) < 0)
		return -1;
	/* another process may take the port between free_port() and the bind: retry */
	for (tries = 0; tries < 5; tries++) {
		port = free_port();
		if (port > 0 && server_start() == 0)
			break;
	}
	if (server < 0)
		return -1;
	conf_defaults(&conf, dir);    /* results DIR/results, images DIR/images/out */
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	server_stop();
	return fixture_rmdir(dir);
}

/* ---- helpers ---- */

/* Files in d whose names end in ".part". */
static int count_parts(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	size_t n;
	int count = 0;

	if (!dp)
		return 0;
	while ((e = readdir(dp))) {
		n = strlen(e->d_name);
		count += n >= 5 && !strcmp(e->d_name + n - 5, ".part");
	}
	closedir(dp);
	return count;
}

static int entries_in(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int count = 0;

	if (!dp)
		return 0;
	while ((e = readdir(dp)))
		count += e->d_name[0] != '.';
	closedir(dp);
	return count;
}

static void url_of(char *buf, const char *name)
{
	sfmt(buf, FETCH_URL_MAX, "http://127.0.0.1:%d/%s", port, name);
}

static void expect_in(const char *want)
{
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

static void no_parts(const char *cache_dir)
{
	char tmp[PATH_MAX];

	sfmt(tmp, sizeof(tmp), "%s/tmp", cache_dir);
	assert_int_equal(count_parts(tmp), 0);
}

/* ---- fetch_url ---- */

/* The right hash: cached as sha256/<hex>; then served from the cache with no server. */
static void test_right_hash_then_cached(void **state)
{
	char url[FETCH_URL_MAX], path[PATH_MAX], want[PATH_MAX], hex[HASH_SHA256_HEX];
	struct stat st1, st2;

	(void)state;
	url_of(url, "blob");
	sfmt(want, sizeof(want), "%s/sha256/%s", cache, sha_blob);
	if (fetch_url(url, sha_blob, cache, path, err) < 0)
		fail_msg("fetch failed: %s", err);
	assert_string_equal(path, want);
	assert_int_equal(hash_sha256_file(path, hex, err), 0);
	assert_string_equal(hex, sha_blob);
	assert_int_equal(stat(path, &st1), 0);
	assert_int_equal(st1.st_size, 300 << 10);
	no_parts(cache);

	/* fetched once: with the server gone it still succeeds, the entry untouched */
	server_stop();
	memset(path, 0, sizeof(path));
	if (fetch_url(url, sha_blob, cache, path, err) < 0)
		fail_msg("second fetch failed: %s", err);
	assert_string_equal(path, want);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
	/* and a URL that never worked is not needed either: the cache is keyed by the hash */
	url_of(url, "elsewhere/blob");
	assert_int_equal(fetch_url(url, sha_blob, cache, path, err), 0);

	/* a damaged entry is not used: it no longer matches its name, so it is fetched again */
	assert_int_equal(chmod(want, 0644), 0);
	assert_int_equal(truncate(want, 1000), 0);
	url_of(url, "blob");
	assert_int_equal(fetch_url(url, sha_blob, cache, path, err), -1);
	expect_in(url);
	assert_int_equal(access(want, F_OK), -1);
	assert_int_equal(server_start(), 0);
	if (fetch_url(url, sha_blob, cache, path, err) < 0)
		fail_msg("refetch failed: %s", err);
	assert_int_equal(hash_sha256_file(want, hex, err), 0);
	assert_string_equal(hex, sha_blob);
	no_parts(cache);
}

/* A wrong hash: refused with both hashes; no entry under either, no .part left. */
static void test_wrong_hash(void **state)
{
	char url[FETCH_URL_MAX], path[PATH_MAX] = "untouched", c2[PATH_MAX], entry[PATH_MAX];

	(void)state;
	sfmt(c2, sizeof(c2), "%s/cache-wrong", dir);
	url_of(url, "blob");
	assert_int_equal(fetch_url(url, WRONG, c2, path, err), -1);
	assert_string_equal(path, "untouched");
	expect_in(url);
	expect_in("sha256 mismatch");
	expect_in("expected " WRONG);
	expect_in(sha_blob);
	sfmt(entry, sizeof(entry), "%s/sha256", c2);
	assert_int_equal(entries_in(entry), 0);
	sfmt(entry, sizeof(entry), "%s/tmp", c2);
	assert_int_equal(entries_in(entry), 0);
	/* upper-case hex is the same hash */
	assert_int_equal(fetch_url(url, "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
				   c2, path, err), -1);
	expect_in("expected " WRONG ", got ");
}

static void test_http_404(void **state)
{
	char url[FETCH_URL_MAX], path[PATH_MAX], c2[PATH_MAX];

	(void)state;
	/* a cache of its own: in DIR/cache the hash alone would find the blob */
	sfmt(c2, sizeof(c2), "%s/cache-404", dir);
	url_of(url, "no-such-file");
	assert_int_equal(fetch_url(url, sha_blob, c2, path, err), -1);
	expect_in(url);
	expect_in("HTTP 404");
	no_parts(c2);
}

static void test_file_url(void **state)
{
	char url[FETCH_URL_MAX], path[PATH_MAX], c2[PATH_MAX], want[PATH_MAX];

	(void)state;
	sfmt(c2, sizeof(c2), "%s/cache-file", dir);
	sfmt(url, sizeof(url), "file://%s/bzImage", srv);
	sfmt(want, sizeof(want), "%s/sha256/%s", c2, sha_kernel);
	if (fetch_url(url, sha_kernel, c2, path, err) < 0)
		fail_msg("file:// fetch failed: %s", err);
	assert_string_equal(path, want);
	no_parts(c2);
	/* a file:// URL to nothing */
	sfmt(url, sizeof(url), "file://%s/nothing", srv);
	assert_int_equal(fetch_url(url, sha_blob, c2, path, err), -1);
	expect_in(url);
	no_parts(c2);
}

static void test_bad_arguments(void **state)
{
	char path[PATH_MAX], url[FETCH_URL_MAX];

	(void)state;
	assert_int_equal(fetch_url("ftp://127.0.0.1/x", sha_blob, cache, path, err), -1);
	expect_in("http://, https:// or file://");
	assert_int_equal(fetch_url("http://127.0.0.1/a b", sha_blob, cache, path, err), -1);
	url_of(url, "blob");
	assert_int_equal(fetch_url(url, "abc", cache, path, err), -1);
	expect_in("64 hex digits");
	assert_int_equal(fetch_url(url, WRONG "0", cache, path, err), -1);
	expect_in("64 hex digits");
	/* nothing listens: an error naming the URL */
	sfmt(url, sizeof(url), "http://127.0.0.1:%d/blob", free_port());
	assert_int_equal(fetch_url(url, WRONG, cache, path, err), -1);
	expect_in(url);
	no_parts(cache);
}

/* ---- kernel arms in a matrix ---- */

static struct matrix *new_matrix(void)
{
	struct matrix *m = malloc(sizeof(*m));

	assert_non_null(m);
	return m;
}

/* A one-arm matrix around arm (a JSON object), loaded from DIR/m.json. */
static int load_arm(struct matrix *m, const char *arm)
{
	char path[PATH_MAX], text[4096];

	sfmt(path, sizeof(path), "%s/m.json", dir);
	sfmt(text, sizeof(text), "{\"name\":\"t\",\"reps\":1,\"arms\":[%s],\"workloads\":[" WL "]}",
	     arm);
	assert_int_equal(put_bytes(path, text, strlen(text)), 0);
	err[0] = '\0';
	return spec_load(m, path, &conf, err);
}

/* The arm must be refused with a message naming every given fragment. */
static void refuse(const char *arm, ...)
{
	struct matrix *m = new_matrix();
	va_list ap;

	if (load_arm(m, arm) == 0) {
		spec_release(m);
		free(m);
		fail_msg("accepted: %s", arm);
	}
	free(m);
	va_start(ap, arm);
	assert_err_has(err, ap);
	va_end(ap);
}

static void test_spec_url_wrong_hash(void **state)
{
	char arm[2048], url[FETCH_URL_MAX], tmp[PATH_MAX];

	(void)state;
	url_of(url, "bzImage");
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"%s\"}", url, WRONG);
	refuse(arm, "m.json: arms[0].url: ", url, "sha256 mismatch", "expected " WRONG,
	       sha_kernel, NULL);
	sfmt(tmp, sizeof(tmp), "%s/results/" IMAGE_KERNEL_CACHE "/sha256/%s", dir, sha_kernel);
	assert_int_equal(access(tmp, F_OK), -1);
	sfmt(tmp, sizeof(tmp), "%s/results/" IMAGE_KERNEL_CACHE "/tmp", dir);
	assert_int_equal(count_parts(tmp), 0);
}

static void test_spec_url_right_hash(void **state)
{
	char arm[2048], url[FETCH_URL_MAX], murl[FETCH_URL_MAX], want[PATH_MAX];
	struct matrix *m = new_matrix();

	(void)state;
	url_of(url, "bzImage");
	url_of(murl, "mods.cpio");
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"%s\","
	     "\"modules_url\":\"%s\",\"modules_sha256\":\"%s\",\"lru_gen\":\"y\"}",
	     url, sha_kernel, murl, sha_mods);
	if (load_arm(m, arm) < 0)
		fail_msg("refused: %s", err);
	sfmt(want, sizeof(want), "%s/results/" IMAGE_KERNEL_CACHE "/sha256/%s", dir, sha_kernel);
	assert_string_equal(m->arms[0].files[0].kernel, want);
	sfmt(want, sizeof(want), "%s/results/" IMAGE_KERNEL_CACHE "/sha256/%s", dir, sha_mods);
	assert_string_equal(m->arms[0].files[0].modules, want);
	assert_string_equal(m->arms[0].files[0].release, RELEASE);
	assert_string_equal(m->arms[0].url, url);
	assert_string_equal(m->arms[0].sha256, sha_kernel);
	spec_release(m);
	/* a URL that serves the right bytes, but not a kernel */
	url_of(url, "blob");
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"%s\"}", url, sha_blob);
	refuse(arm, "arms[0].url: ", url, "not an x86 bzImage", NULL);
	/* a modules URL with a wrong hash is named as such */
	url_of(url, "bzImage");
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"%s\","
	     "\"modules_url\":\"%s\",\"modules_sha256\":\"%s\"}", url, sha_kernel, murl, WRONG);
	refuse(arm, "arms[0].modules_url: ", murl, "expected " WRONG, sha_mods, NULL);
	free(m);
}

/* The keys of an arm's kernel source and how they go together. */
static void test_spec_arm_sources(void **state)
{
	char arm[2048], url[FETCH_URL_MAX];

	(void)state;
	url_of(url, "bzImage");
	refuse("{\"name\":\"a\"}", "arms[0]: missing key 'kernel', 'package', 'url', 'source' or 'source_package'", NULL);
	refuse("{\"name\":\"a\",\"kernel\":\"6.12\",\"package\":\"linux-image-amd64\"}",
	       "arms[0].package: give one of 'kernel', 'package', 'url', 'source' or 'source_package', not both 'kernel' "
	       "and 'package'", NULL);
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"package\":\"linux-image-amd64\",\"url\":\"%s\","
	     "\"sha256\":\"%s\"}", url, sha_kernel);
	refuse(arm, "arms[0].url: give one of", NULL);
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\"}", url);
	refuse(arm, "arms[0].sha256: required with 'url'", NULL);
	refuse("{\"name\":\"a\",\"kernel\":\"6.12\",\"sha256\":\"" WRONG "\"}",
	       "arms[0].sha256: only with 'url'", NULL);
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"%s\",\"modules\":\"m.cpio\"}",
	     url, sha_kernel);
	refuse(arm, "arms[0].modules: only with 'kernel'", NULL);
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"%s\","
	     "\"modules_url\":\"%s\"}", url, sha_kernel, url);
	refuse(arm, "arms[0].modules_sha256: required with 'modules_url'", NULL);
	refuse("{\"name\":\"a\",\"package\":\"linux-image-amd64\",\"modules_url\":\"http://x/y\","
	       "\"modules_sha256\":\"" WRONG "\"}", "arms[0].modules_url: only with 'url'", NULL);
	/* values */
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"xyz\"}", url);
	refuse(arm, "arms[0].sha256: expected a SHA-256", NULL);
	sfmt(arm, sizeof(arm), "{\"name\":\"a\",\"url\":\"%s\",\"sha256\":\"%s0\"}", url, sha_kernel);
	refuse(arm, "arms[0].sha256: longer than 64", NULL);
	refuse("{\"name\":\"a\",\"url\":\"ftp://example.org/bzImage\",\"sha256\":\"" WRONG "\"}",
	       "arms[0].url: expected an http://, https:// or file:// URL", NULL);
	refuse("{\"name\":\"a\",\"url\":7,\"sha256\":\"" WRONG "\"}", "arms[0].url: expected a string",
	       NULL);
	refuse("{\"name\":\"a\",\"package\":\"Linux-Image\"}",
	       "arms[0].package: expected a Debian package name", "'Linux-Image'", NULL);
	refuse("{\"name\":\"a\",\"package\":\"../../etc\"}", "arms[0].package: expected a Debian", NULL);
	refuse("{\"name\":\"a\",\"package\":\"-rf\"}", "arms[0].package: expected a Debian", NULL);
	refuse("{\"name\":\"a\",\"package\":\"x\"}", "arms[0].package: expected a Debian", NULL);
	refuse("{\"name\":\"a\",\"package\":\"linux image\"}", "arms[0].package", NULL);
}

/* A stand-in for images/build.sh: records each call, "fails" for names with "fail". */
static const char fake_build[] =
	"#!/bin/sh\n"
	"here=$(dirname \"$0\")\n"
	"[ \"$1\" = kernel-package ] && [ \"$2\" = x86_64 ] || exit 2\n"
	"echo \"$3\" >> \"$here/calls\"\n"
	"case $3 in *fail*) echo \"E: Unable to locate package $3\"; exit 1 ;; esac\n"
	"mkdir -p \"$4\" && cp \"$here/../srv/bzImage\" \"$4/vmlinuz\" &&\n"
	"echo mods > \"$4/modules.cpio\" && echo " RELEASE " > \"$4/release\" &&\n"
	"echo \"$3\" > \"$4/package\"\n";

static int lines_in(const char *path)
{
	FILE *f = fopen(path, "r");
	int c, n = 0;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void test_spec_package(void **state)
{
	char script[PATH_MAX], calls[PATH_MAX], want[PATH_MAX], log[PATH_MAX];
	struct matrix *m = new_matrix();

	(void)state;
	/* conf.images is DIR/images/out: build.sh is looked for beside it */
	refuse("{\"name\":\"a\",\"package\":\"linux-image-test\"}",
	       "arms[0].package: package 'linux-image-test' needs images/build.sh", NULL);
	sfmt(script, sizeof(script), "%s/images", dir);
	assert_int_equal(mkdir(script, 0755), 0);
	sfmt(script, sizeof(script), "%s/images/build.sh", dir);
	assert_int_equal(put_bytes(script, fake_build, strlen(fake_build)), 0);
	assert_int_equal(chmod(script, 0755), 0);
	sfmt(calls, sizeof(calls), "%s/images/calls", dir);

	if (load_arm(m, "{\"name\":\"a\",\"package\":\"linux-image-6.12.99+deb12-test\"}") < 0)
		fail_msg("refused: %s", err);
	sfmt(want, sizeof(want), "%s/results/" IMAGE_KERNEL_CACHE "/pkg/linux-image-6.12.99+deb12-test/vmlinuz", dir);
	assert_string_equal(m->arms[0].files[0].kernel, want);
	assert_string_equal(m->arms[0].files[0].release, RELEASE);
	assert_non_null(strstr(m->arms[0].files[0].modules, "/pkg/linux-image-6.12.99+deb12-test/modules.cpio"));
	spec_release(m);
	assert_int_equal(lines_in(calls), 1);
	/* built once: a second matrix with it does not run build.sh again */
	if (load_arm(m, "{\"name\":\"b\",\"package\":\"linux-image-6.12.99+deb12-test\"}") < 0)
		fail_msg("refused: %s", err);
	spec_release(m);
	assert_int_equal(lines_in(calls), 1);
	/* a build that fails names the package, the exit code and the log */
	sfmt(log, sizeof(log), "%s/results/" IMAGE_KERNEL_CACHE "/pkg/linux-image-fail.log", dir);
	refuse("{\"name\":\"a\",\"package\":\"linux-image-fail\"}",
	       "arms[0].package: package 'linux-image-fail'", "(exit 1)", log, NULL);
	assert_int_equal(lines_in(calls), 2);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_right_hash_then_cached),
		cmocka_unit_test(test_wrong_hash),
		cmocka_unit_test(test_http_404),
		cmocka_unit_test(test_file_url),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_spec_url_wrong_hash),
		cmocka_unit_test(test_spec_url_right_hash),
		cmocka_unit_test(test_spec_arm_sources),
		cmocka_unit_test(test_spec_package),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
