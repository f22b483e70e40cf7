/* testlib.h -- fixtures the cmocka tests share: checked formatting, JSON
 * written with ', files and directories, and a fake x86 bzImage. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stddef.h>

#define FAKE_BZIMAGE_SIZE 4096

/* snprintf that fails the test on truncation. */
void sfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* JSON written with ' for " so tests read better; the copy lives until eight more calls. */
const char *jq(const char *s);

/* Write a file (failing the test if it cannot); write_text for a string. */
void write_bytes(const char *path, const void *buf, size_t len);
void write_text(const char *path, const char *text);

/* mkdir -p of a formatted path, failing the test if it cannot. */
void mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An x86 bzImage look-alike reporting release: "HdrS" at 0x202, the version's offset - 0x200 at 0x20e. */
void fake_bzimage(unsigned char img[FAKE_BZIMAGE_SIZE], const char *release);
void write_bzimage(const char *path, const char *release);

#endif
