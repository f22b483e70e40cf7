/* testlib.c -- the fixtures behind testlib.h; each fails the running cmocka
 * test on error instead of returning one. */
#include "testlib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

void sfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < len);
}

const char *jq(const char *s)
{
	static char *ring[8];
	static unsigned k;
	char *d = strdup(s), *p;

	assert_non_null(d);
	for (p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	free(ring[k % 8]);
	ring[k % 8] = d;
	k++;
	return d;
}

void write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

void mkdirs(const char *fmt, ...)
{
	char path[PATH_MAX], *p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(path));
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || access(path, F_OK) == 0);
}

void fake_bzimage(unsigned char img[FAKE_BZIMAGE_SIZE], const char *release)
{
	unsigned off = 0x400;
	char ver[256];

	sfmt(ver, sizeof(ver), "%s (x@y) #1 SMP", release);
	memset(img, 0, FAKE_BZIMAGE_SIZE);
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = (unsigned char)((off - 0x200) & 0xff);
	img[0x20f] = (unsigned char)((off - 0x200) >> 8);
	memcpy(img + off, ver, strlen(ver) + 1);
}

void write_bzimage(const char *path, const char *release)
{
	unsigned char img[FAKE_BZIMAGE_SIZE];

	fake_bzimage(img, release);
	write_bytes(path, img, sizeof(img));
}
