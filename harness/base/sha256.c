/* sha256.c -- SHA-256 as FIPS 180-4 section 6.2 describes it: a 64-byte block
 * schedule of 64 words, eight working variables, big-endian throughout. */
#include "base/sha256.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

/* FIPS 180-4 4.2.2: first 32 bits of the fractional parts of the cube roots
 * of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

static inline uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(unsigned char *p, uint32_t x)
{
	p[0] = (unsigned char)(x >> 24);
	p[1] = (unsigned char)(x >> 16);
	p[2] = (unsigned char)(x >> 8);
	p[3] = (unsigned char)x;
}

/* One 512-bit block into the hash state (FIPS 180-4 6.2.2). */
static void compress(uint32_t h[8], const unsigned char *block)
{
	uint32_t w[64], a, b, c, d, e, f, g, k, t1, t2, s0, s1;
	unsigned i;

	for (i = 0; i < 16; i++)
		w[i] = load_be32(block + 4 * i);
	for (; i < 64; i++) {
		s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; k = h[7];
	for (i = 0; i < 64; i++) {
		t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

void sha256_init(struct sha256 *s)
{
	/* FIPS 180-4 5.3.3: square roots of the first 8 primes */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->bytes = 0;
	s->fill = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;

	s->bytes += len;
	if (s->fill) {
		n = 64 - s->fill < len ? 64 - s->fill : len;
		memcpy(s->buf + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill < 64)
			return;
		compress(s->h, s->buf);
		s->fill = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(s->h, p);
	memcpy(s->buf, p, len);
	s->fill = len;
}

void sha256_final(struct sha256 *s, unsigned char out[SHA256_LEN])
{
	uint64_t bits = s->bytes * 8;
	unsigned i;

	/* a 1 bit, zeros up to 56 mod 64, then the length in bits, big-endian */
	s->buf[s->fill++] = 0x80;
	if (s->fill > 56) {
		memset(s->buf + s->fill, 0, 64 - s->fill);
		compress(s->h, s->buf);
		s->fill = 0;
	}
	memset(s->buf + s->fill, 0, 56 - s->fill);
	for (i = 0; i < 8; i++)
		s->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	compress(s->h, s->buf);
	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, s->h[i]);
	s->fill = 0;
}

void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[SHA256_LEN];
	unsigned i;

	sha256_final(s, d);
	for (i = 0; i < SHA256_LEN; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * SHA256_LEN] = '\0';
}

int sha256_file(const char *path, char hex[SHA256_HEX], char *err)
{
	_cleanup_close_ int fd = -1;
	unsigned char buf[1 << 16];
	struct sha256 s;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errorf(err, "cannot open '%s': %s", path, strerror(errno));
	sha256_init(&s);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errorf(err, "cannot read '%s': %s", path, strerror(errno));
		if (n == 0)
			break;
		sha256_update(&s, buf, (size_t)n);
	}
	sha256_final_hex(&s, hex);
	return 0;
}

int sha256_hex_ok(const char *s)
{
	size_t i;

	for (i = 0; i < 2 * SHA256_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}
