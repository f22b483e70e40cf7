/* hash.c -- SHA-256 through nettle (already in the process with GnuTLS), a
 * file's digest read in 64 KiB pieces, and FNV-1a 64 for short keys. */
#include "base/hash.h"
#include "base/err.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void hash_sha256_init(struct hash_sha256 *s)
{
	sha256_init(&s->ctx);
}

void hash_sha256_update(struct hash_sha256 *s, const void *data, size_t len)
{
	sha256_update(&s->ctx, len, data);
}

void hash_sha256_final_hex(struct hash_sha256 *s, char hex[HASH_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_digest(&s->ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * sizeof(d)] = '\0';
}

int hash_sha256_file(const char *path, char hex[HASH_SHA256_HEX], char *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errorf(err, "cannot open '%s': %s", path, strerror(errno));
	return hash_sha256_fd(fd, path, hex, err);
}

int hash_sha256_fd(int fd, const char *path, char hex[HASH_SHA256_HEX], char *err)
{
	unsigned char buf[1 << 16];
	struct hash_sha256 s;
	ssize_t n;

	hash_sha256_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errorf(err, "cannot read '%s': %s", path, strerror(errno));
		hash_sha256_update(&s, buf, (size_t)n);
	}
	hash_sha256_final_hex(&s, hex);
	return 0;
}

int hash_sha256_hex_ok(const char *s)
{
	size_t i;

	for (i = 0; i < 2 * SHA256_DIGEST_SIZE; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ULL;   /* the FNV 64-bit prime */
	}
	return h;
}

void hash_fnv1a_hex(const char *s, char out[HASH_FNV1A_HEX])
{
	/* cannot be cut: 16 hex digits and the NUL are HASH_FNV1A_HEX */
	if (fmtbuf(out, HASH_FNV1A_HEX, "%016llx",
		   (unsigned long long)hash_fnv1a(HASH_FNV1A_INIT, s, strlen(s))) < 0)
		out[0] = '\0';
}
