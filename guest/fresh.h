/* fresh.h -- what makes a guest restored from a save as fresh as a booted one:
 * the host's entropy reseeding the kernel's CRNG, the wall clock stepped to the host's. */
#ifndef FRESH_H
#define FRESH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Credit the 32 bytes of hex (PROTO_SEED_HEX characters) to the kernel's
 * input pool (RNDADDENTROPY) and reseed its CRNG from it (RNDRESEEDCRNG), so
 * two guests restored from one save draw different random numbers; then 8
 * bytes of getrandom(2) into probe as hex (17 bytes). 0, or -1 with err.
 */
int fresh_reseed(const char *hex, char *probe, size_t probe_len, char *err, size_t errlen);

/*
 * Step CLOCK_REALTIME to host_ms (the host's wall clock as it sent the job):
 * a restored guest's clock stands where it was saved. How far it was behind
 * or ahead goes to *behind_ms / *ahead_ms (one of them 0). 0, or -1 with err.
 */
int fresh_clock(uint64_t host_ms, uint64_t *behind_ms, uint64_t *ahead_ms, char *err,
		size_t errlen);

#endif
