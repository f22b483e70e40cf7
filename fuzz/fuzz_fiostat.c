/* fuzz_fiostat.c -- libFuzzer target: fio's output file through fiostat_feed
 * in chunks (the first byte picks their size), with takes between them. */
#include "guest/fiostat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the takes of one pass add up to (mod 2^64, as the deltas are). */
struct sums {
	uint64_t ios[2], bytes[2], docs;
};

static void take(struct fiostat *s, struct sums *sum)
{
	struct fio_interval iv;

	fiostat_take(s, &iv);
	if (iv.lat_p50_ns > iv.lat_p99_ns || iv.lat_p99_ns > iv.lat_max_ns)
		abort();   /* percentiles of one histogram are ordered */
	sum->ios[0] += iv.read_ios;
	sum->ios[1] += iv.write_ios;
	sum->bytes[0] += iv.read_bytes;
	sum->bytes[1] += iv.write_bytes;
	sum->docs += iv.docs;
}

/*
 * Feed text in pieces of chunk bytes, taking after a piece that completed a
 * document when the piece's first byte is odd (at most TAKES_MAX times: a
 * take walks the whole histogram).
 */
#define TAKES_MAX 64

static void pass(struct fiostat *s, const uint8_t *text, size_t len, size_t chunk,
		 struct sums *sum)
{
	char err[256];
	size_t off, n;
	unsigned takes = 0;

	memset(sum, 0, sizeof(*sum));
	fiostat_init(s);
	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		fiostat_feed(s, (const char *)text + off, n, err, sizeof(err));
		if (s->docs && (text[off] & 1) && takes++ < TAKES_MAX)
			take(s, sum);
	}
	fiostat_finish(s, err, sizeof(err));
	take(s, sum);
	fiostat_release(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fiostat s;
	struct sums pieces, whole;

	if (size < 1)
		return 0;
	/* 0: the whole file at once; else 1..255 bytes at a time, as reads come */
	pass(&s, data + 1, size - 1, data[0] ? data[0] : size, &pieces);
	/* however the reads fell and the takes came, the deltas add up the same */
	pass(&s, data + 1, size - 1, size, &whole);
	if (memcmp(&pieces, &whole, sizeof(whole)))
		abort();
	return 0;
}
