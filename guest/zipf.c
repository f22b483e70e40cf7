/* zipf.c -- page choice for the readers: xoshiro256** streams, unbiased uniform
 * picks, zipf ranks from a precomputed CDF and a multiplicative rank scramble. */
#include "zipf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* Two primes above any file size we accept; gcd(P, n) != 1 only if P divides n. */
#define SCRAMBLE_P1 UINT64_C(2305843009213693951)   /* 2^61 - 1 */
#define SCRAMBLE_P2 UINT64_C(4294967291)            /* largest prime < 2^32 */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rng_seed(struct rng *r, uint64_t run, uint64_t thread)
{
	uint64_t x = run;
	int i;

	/* mix the run first so (run, thread) and (run', thread') do not alias */
	x = splitmix64(&x) ^ (thread * UINT64_C(0xd1b54a32d192ed03) + 1);
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double rng_double(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Lemire's multiply-and-reject: no modulo bias. */
uint64_t rng_below(struct rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
	uint64_t lo = (uint64_t)m, t;

	if (lo < n) {
		t = -n % n;
		while (lo < t) {
			m = (unsigned __int128)rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

int zipf_init(struct zipf *z, uint64_t n, double theta)
{
	double sum = 0.0, c = 0.0, y, t;
	uint64_t k;

	z->cdf = NULL;
	if (n > ZIPF_MAX_N) {
		errno = E2BIG;
		return -1;
	}
	if (n == 0 || !isfinite(theta) || theta < 0.0) {
		errno = EINVAL;
		return -1;
	}
	z->cdf = malloc(n * sizeof(*z->cdf));
	if (!z->cdf)
		return -1;
	z->n = n;
	z->theta = theta;
	for (k = 1; k <= n; k++) {
		/* Kahan sum: 64M terms would otherwise lose the tail's precision */
		y = pow((double)k, -theta) - c;
		t = sum + y;
		c = (t - sum) - y;
		sum = t;
		z->cdf[k - 1] = sum;
	}
	for (k = 0; k < n; k++)
		z->cdf[k] /= sum;
	z->cdf[n - 1] = 1.0;
	return 0;
}

void zipf_release(struct zipf *z)
{
	free(z->cdf);
	z->cdf = NULL;
	z->n = 0;
}

/* First index whose CDF exceeds u: inverse transform sampling. */
uint64_t zipf_next(const struct zipf *z, struct rng *r)
{
	double u = rng_double(r);
	uint64_t lo = 0, hi = z->n - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (z->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The greatest common divisor of a and b (Euclid). */
static uint64_t gcd(uint64_t a, uint64_t b)
{
	uint64_t t;

	while (b) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * Multiplier for n: P1 mod n unless P1 divides n (then P2; n < P1 * P2 always).
 * A one-entry per-thread cache keeps the gcd off the per-read path.
 */
static uint64_t scramble_mult(uint64_t n)
{
	static __thread uint64_t cached_n, cached_m;
	uint64_t m;

	if (n == cached_n)
		return cached_m;
	m = SCRAMBLE_P1 % n;
	if (gcd(m, n) != 1)
		m = SCRAMBLE_P2 % n;
	cached_n = n;
	cached_m = m;
	return m;
}

uint64_t zipf_scramble(uint64_t rank, uint64_t n)
{
	if (n <= 1)
		return 0;
	return (uint64_t)((unsigned __int128)(rank % n) * scramble_mult(n) % n);
}
