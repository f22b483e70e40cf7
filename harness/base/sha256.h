/* sha256.h -- SHA-256 (FIPS 180-4): streaming init/update/final, hex output,
 * and a whole-file helper, for the content-addressed download cache. */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32     /* digest bytes */
#define SHA256_HEX 65     /* hex digits + NUL */

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;       /* message length so far */
	unsigned char buf[64];
	size_t fill;          /* bytes waiting in buf */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Pad, finish and write the digest; s must be initialised again before reuse. */
void sha256_final(struct sha256 *s, unsigned char out[SHA256_LEN]);
/* sha256_final, written as 64 lowercase hex digits and a NUL. */
void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX]);

/* The hex digest of the file at path; 0, or -1 with a message in err. */
int sha256_file(const char *path, char hex[SHA256_HEX], char *err);

/* 1 if s is exactly 64 lowercase hex digits. */
int sha256_hex_ok(const char *s);

#endif
