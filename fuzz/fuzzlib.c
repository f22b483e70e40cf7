/* fuzzlib.c -- the fuzz targets' fixture: a scratch directory with fake
 * kernels, removed at exit, and input copies as C strings. */
#define _GNU_SOURCE
#include "fuzzlib.h"
#include "base/err.h"
#include "base/proc.h"
#include "tests/testlib.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_ROOT
#define FUZZ_ROOT "."
#endif

static char scratch[64];

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();   /* libFuzzer's -rss_limit_mb reports this kind of trouble */
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_scratch(void)
{
	if (scratch[0])
		nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* IMAGES/ARCH/kernel/6.12/{vmlinuz,modules.cpio,release}, as make images leaves them. */
static int fake_kernel(const char *images, const char *arch, char *err)
{
	static const char arm64[] = "Linux version 6.12.99-fuzz (x@y) #1 SMP";
	char dir[PATH_MAX], path[PATH_MAX];

	if (pathf(dir, err, "%s/%s/kernel/6.12", images, arch) < 0 || mkdir_p(dir, err) < 0 ||
	    pathf(path, err, "%s/vmlinuz", dir) < 0)
		return -1;
	if (!strcmp(arch, "x86_64"))
		write_bzimage(path, "6.12.99-fuzz");
	else
		write_bytes(path, arm64, sizeof(arm64));
	if (pathf(path, err, "%s/modules.cpio", dir) < 0)
		return -1;
	write_bytes(path, "070701", 6);
	if (pathf(path, err, "%s/release", dir) < 0)
		return -1;
	write_text(path, "6.12.99-fuzz\n");
	return 0;
}

int fuzz_conf(struct conf *c, char *err)
{
	snprintf(scratch, sizeof(scratch), "/tmp/fuzz.XXXXXX");
	if (!mkdtemp(scratch))
		return errorf(err, "mkdtemp: cannot make %s", scratch);
	atexit(remove_scratch);
	conf_defaults(c, scratch);
	if (mkdir_p(c->results, err) < 0 || fake_kernel(c->images, "x86_64", err) < 0 ||
	    fake_kernel(c->images, "aarch64", err) < 0)
		return -1;
	return pathf(c->presets, err, "%s/workloads/presets", FUZZ_ROOT);
}

/*
 * Linked with -Wl,--wrap=fetch_url: a matrix's "url" arm must not make a
 * fuzzer download anything. The URL was checked by the parser already; the
 * download is refused like one that failed.
 */
int __wrap_fetch_url(const char *url, const char *want_sha256, const char *cache_dir,
		     char *ret_path, char *err);

int __wrap_fetch_url(const char *url, const char *want_sha256, const char *cache_dir,
		     char *ret_path, char *err)
{
	(void)want_sha256;
	(void)cache_dir;
	(void)ret_path;
	return errorf(err, "%.200s: downloads are off while fuzzing", url);
}
