/* hash.h -- the two hashes the harness uses: SHA-256 (nettle's) for the
 * content-addressed caches, FNV-1a 64 for names and deterministic content. */
#ifndef HASH_H
#define HASH_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/sha2.h>

#define HASH_SHA256_HEX 65        /* 64 hex digits + NUL */
#define HASH_FNV1A_INIT 0xcbf29ce484222325ULL  /* FNV-1a 64's offset basis */
#define HASH_FNV1A_HEX  17        /* 16 hex digits + NUL */

struct hash_sha256 {
	struct sha256_ctx ctx;
};

/* A fresh SHA-256; then data fed in any pieces. */
void hash_sha256_init(struct hash_sha256 *s);
void hash_sha256_update(struct hash_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL; s is initialised again. */
void hash_sha256_final_hex(struct hash_sha256 *s, char hex[HASH_SHA256_HEX]);

/* The hex digest of the file at path; 0, or -1 with a message in err. */
int hash_sha256_file(const char *path, char hex[HASH_SHA256_HEX], char *err);

/* The same of what fd reads to its end (path names it in err). */
int hash_sha256_fd(int fd, const char *path, char hex[HASH_SHA256_HEX], char *err);

/* 1 if s is exactly 64 lowercase hex digits. */
int hash_sha256_hex_ok(const char *s);

/* FNV-1a 64 of n bytes at p, continuing from h (HASH_FNV1A_INIT to start). */
uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n);

/* FNV-1a 64 of the string s, as 16 lowercase hex digits and a NUL. */
void hash_fnv1a_hex(const char *s, char out[HASH_FNV1A_HEX]);

#endif
