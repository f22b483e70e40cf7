/* fuzz_fiostat.c -- libFuzzer target: fio's output file through fiostat_feed
 * in chunks (the first byte picks their size), with takes between them. */
#include "fiostat.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fiostat s;
	struct fio_interval iv;
	char err[256];
	size_t chunk, off, n;

	if (size < 1)
		return 0;
	/* 0: the whole file at once; else 1..255 bytes at a time, as reads come */
	chunk = data[0] ? data[0] : size;
	fiostat_init(&s);
	for (off = 1; off < size; off += n) {
		n = size - off < chunk ? size - off : chunk;
		fiostat_feed(&s, (const char *)data + off, n, err, sizeof(err));
		if (s.docs && (data[off] & 1))
			fiostat_take(&s, &iv);
	}
	fiostat_finish(&s, err, sizeof(err));
	fiostat_take(&s, &iv);
	if (iv.lat_p50_ns > iv.lat_p99_ns || iv.lat_p99_ns > iv.lat_max_ns)
		abort();   /* percentiles of one histogram are ordered */
	fiostat_release(&s);
	return 0;
}
