/* ycsb-load.c -- YCSB's load phase, once, on the host: recordcount records of
 * the guest's own key and value code into a LevelDB the data disk then carries. */
#include "guest/ycsb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <leveldb/c.h>

#define BATCH 1000

static int parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -1;
	*ret = v;
	return 0;
}

static int load(leveldb_t *db, uint64_t n, unsigned fields, unsigned len, int ordered)
{
	leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
	leveldb_writebatch_t *b = leveldb_writebatch_create();
	size_t rlen = ycsb_record_bytes(fields, len), klen;
	char *rec = malloc(rlen), key[YCSB_KEY_MAX], *err = NULL;
	struct rng rng;
	uint64_t k;

	rng_seed(&rng, 0x10ad, 0);
	for (k = 0; rec && k < n && !err; k++) {
		klen = ycsb_key(k, ordered, key, sizeof(key));
		ycsb_record(&rng, fields, len, rec);
		leveldb_writebatch_put(b, key, klen, rec, rlen);
		if ((k + 1) % BATCH == 0 || k + 1 == n) {
			leveldb_write(db, wo, b, &err);
			leveldb_writebatch_clear(b);
		}
	}
	if (err)
		fprintf(stderr, "ycsb-load: write: %s\n", err);
	leveldb_free(err);
	leveldb_writebatch_destroy(b);
	leveldb_writeoptions_destroy(wo);
	free(rec);
	return rec && !err ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t n, fields, len;
	leveldb_options_t *o;
	leveldb_t *db;
	char *err = NULL;
	int ordered, rc;

	if (argc != 6 || parse_u64(argv[2], UINT64_C(1) << 40, &n) < 0 || n == 0 ||
	    parse_u64(argv[3], 1000, &fields) < 0 || fields == 0 ||
	    parse_u64(argv[4], 1 << 20, &len) < 0 || len == 0 ||
	    (strcmp(argv[5], "hashed") && strcmp(argv[5], "ordered"))) {
		fprintf(stderr, "usage: ycsb-load DIR RECORDCOUNT FIELDCOUNT FIELDLENGTH "
			"hashed|ordered\n");
		return 2;
	}
	ordered = !strcmp(argv[5], "ordered");
	o = leveldb_options_create();
	leveldb_options_set_create_if_missing(o, 1);
	leveldb_options_set_error_if_exists(o, 1);
	leveldb_options_set_compression(o, leveldb_no_compression);
	db = leveldb_open(o, argv[1], &err);
	if (!db) {
		fprintf(stderr, "ycsb-load: open '%s': %s\n", argv[1], err);
		leveldb_free(err);
		return 1;
	}
	rc = load(db, n, (unsigned)fields, (unsigned)len, ordered);
	/* settled levels: every run starts from the same compacted layout */
	if (!rc)
		leveldb_compact_range(db, NULL, 0, NULL, 0);
	leveldb_close(db);
	leveldb_options_destroy(o);
	if (!rc)
		printf("ycsb-load: %llu records of %llu x %llu B in %s\n", (unsigned long long)n,
		       (unsigned long long)fields, (unsigned long long)len, argv[1]);
	return rc ? 1 : 0;
}
