/* zipf.h -- which page a reader touches next: a per-thread PRNG, uniform picks,
 * zipf(theta) ranks by inverse CDF, and a bijection scrambling ranks over the file. */
#ifndef ZIPF_H
#define ZIPF_H

#include <stddef.h>
#include <stdint.h>

#define ZIPF_MAX_N (UINT64_C(64) << 20)   /* table of n doubles: 512 MiB at most */

/* xoshiro256**: small, fast, one per thread, never shared. */
struct rng {
	uint64_t s[4];
};

/* Seed from the run id and the thread index; distinct pairs give distinct streams. */
void rng_seed(struct rng *r, uint64_t run, uint64_t thread);
uint64_t rng_next(struct rng *r);
/* Uniform double in [0, 1), 53 random bits. */
double rng_double(struct rng *r);
/* Uniform integer in [0, n), unbiased; n must be >= 1. */
uint64_t rng_below(struct rng *r, uint64_t n);

struct zipf {
	uint64_t n;
	double theta;
	double *cdf;    /* cdf[i] = P(rank <= i), cdf[n - 1] == 1 */
};

/*
 * Build the inverse-CDF table over ranks 1..n with weights 1/k^theta (theta >= 0;
 * theta 0 is uniform). Returns 0, or -1 with errno set: E2BIG if n > ZIPF_MAX_N,
 * EINVAL if n is 0 or theta is negative or not finite, ENOMEM.
 */
int zipf_init(struct zipf *z, uint64_t n, double theta);
void zipf_release(struct zipf *z);

/* A rank index in [0, n), 0 the most popular; the table is only read. */
uint64_t zipf_next(const struct zipf *z, struct rng *r);

/* Map rank to a page in [0, n) by rank * P mod n, a bijection (gcd(P, n) == 1). */
uint64_t zipf_scramble(uint64_t rank, uint64_t n);

#endif
