/* fuzz_fiostat.c -- libFuzzer target: fio's output file through fiostat_feed
 * in chunks (the first byte picks their size), with slices between them. */
#include "guest/fiostat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the slices of one pass add up to (mod 2^64, as the counters are). */
struct sums {
	uint64_t ios[2], bytes[2], docs;
};

#define T_FIRST (-FIOSTAT_T_MAX)

/* The slice from the last one's end to t1; percentiles of it must be ordered. */
static void slice(struct fiostat *s, int64_t *from, int64_t t1, struct sums *sum)
{
	struct fio_interval iv;

	if (t1 <= *from || !fiostat_slice(s, *from, t1, &iv))
		return;
	if (iv.lat_p50_ns > iv.lat_p99_ns || iv.lat_p99_ns > iv.lat_max_ns)
		abort();
	sum->ios[0] += iv.read_ios;
	sum->ios[1] += iv.write_ios;
	sum->bytes[0] += iv.read_bytes;
	sum->bytes[1] += iv.write_bytes;
	sum->docs += iv.docs;
	*from = t1;
}

/*
 * Feed text in pieces of chunk bytes; after a piece whose first byte is odd,
 * slice up to halfway to the latest document (at most SLICES_MAX times: a
 * slice walks the histograms). Then fio ends and one slice takes the rest.
 */
#define SLICES_MAX 64

static void pass(struct fiostat *s, const uint8_t *text, size_t len, size_t chunk,
		 struct sums *sum)
{
	int64_t from = T_FIRST;
	unsigned slices = 0;
	char err[256];
	size_t off, n;

	memset(sum, 0, sizeof(*sum));
	fiostat_init(s, 0);
	fiostat_start(s, T_FIRST);
	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		fiostat_feed(s, (const char *)text + off, n, err, sizeof(err));
		if ((text[off] & 1) && slices++ < SLICES_MAX)
			slice(s, &from, from + (s->last_ms - from) / 2, sum);
	}
	fiostat_finish(s, err, sizeof(err));
	fiostat_end(s);
	slice(s, &from, FIOSTAT_T_MAX + 1, sum);
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
	/* however the reads fell and the slices came, they add up the same */
	pass(&s, data + 1, size - 1, size, &whole);
	if (memcmp(&pieces, &whole, sizeof(whole)))
		abort();
	return 0;
}
