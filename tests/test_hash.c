/* test_sha256.c -- unit tests for harness/base/sha256.c: the FIPS 180-2 appendix B
 * examples, one million 'a', every padding boundary, pieces of every size, and
 * hash_sha256_file() on a file whose digest sha256sum(1) gave once (hard-coded). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/hash.h"

static void hex_of(const void *data, size_t len, char hex[HASH_SHA256_HEX])
{
	struct hash_sha256 s;

	hash_sha256_init(&s);
	hash_sha256_update(&s, data, len);
	hash_sha256_final_hex(&s, hex);
}

static void expect(const char *msg, const char *want)
{
	char hex[HASH_SHA256_HEX];

	hex_of(msg, strlen(msg), hex);
	assert_string_equal(hex, want);
}

static void test_fips_examples(void **state)
{
	(void)state;
	expect("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	expect("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 448 bits: the padding needs a second block */
	expect("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* FIPS 180-2 C.3's companion: 896 bits */
	expect("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void **state)
{
	char *a = malloc(1000000), hex[HASH_SHA256_HEX];
	struct hash_sha256 s;
	unsigned i;

	(void)state;
	assert_non_null(a);
	memset(a, 'a', 1000000);
	hex_of(a, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* the same in 1000 pieces of 1000 */
	hash_sha256_init(&s);
	for (i = 0; i < 1000; i++)
		hash_sha256_update(&s, a + i * 1000, 1000);
	hash_sha256_final_hex(&s, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

/* Lengths around the 56- and 64-byte padding edges (digests from Python's hashlib, once). */
static void test_padding_edges(void **state)
{
	static const struct { size_t n; const char *hex; } t[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 57, "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
	};
	char a[128], hex[HASH_SHA256_HEX];
	unsigned i;

	(void)state;
	memset(a, 'a', sizeof(a));
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		hex_of(a, t[i].n, hex);
		assert_string_equal(hex, t[i].hex);
	}
}

/* The file's bytes: (7 i + 3) mod 256 for i < FILE_LEN. */
#define FILE_LEN 100003
#define FILE_SHA "b4bec991fc613fcb4d2a26eb529e493ed4e3152cc00f0a49bd39b3e48b34824e"

static unsigned char *file_bytes(void)
{
	unsigned char *b = malloc(FILE_LEN);
	size_t i;

	assert_non_null(b);
	for (i = 0; i < FILE_LEN; i++)
		b[i] = (unsigned char)(i * 7 + 3);
	return b;
}

/* Any split of the input into pieces gives the one-shot digest. */
static void test_pieces(void **state)
{
	unsigned char *b = file_bytes();
	char hex[HASH_SHA256_HEX];
	struct hash_sha256 s;
	size_t off, step, n;

	(void)state;
	for (step = 1; step <= 200; step += 13) {
		hash_sha256_init(&s);
		for (off = 0; off < FILE_LEN; off += n) {
			n = FILE_LEN - off < step ? FILE_LEN - off : step;
			hash_sha256_update(&s, b + off, n);
		}
		hash_sha256_final_hex(&s, hex);
		assert_string_equal(hex, FILE_SHA);
	}
	free(b);
}

static void test_file(void **state)
{
	char path[] = "/tmp/test_hash.XXXXXX", hex[HASH_SHA256_HEX], err[ERR_MAX];
	unsigned char *b = file_bytes();
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, FILE_LEN), FILE_LEN);
	close(fd);
	assert_int_equal(hash_sha256_file(path, hex, err), 0);
	assert_string_equal(hex, FILE_SHA);
	unlink(path);
	free(b);
	/* a missing file: -1 and the path in the message */
	assert_int_equal(hash_sha256_file(path, hex, err), -1);
	assert_non_null(strstr(err, path));
}

static void test_hex_ok(void **state)
{
	(void)state;
	assert_true(hash_sha256_hex_ok(FILE_SHA));
	assert_false(hash_sha256_hex_ok(""));
	assert_false(hash_sha256_hex_ok("b4bec991fc613fcb4d2a26eb529e493ed4e3152cc00f0a49bd39b3e48b34824"));
	assert_false(hash_sha256_hex_ok(FILE_SHA "0"));
	assert_false(hash_sha256_hex_ok("B4BEC991FC613FCB4D2A26EB529E493ED4E3152CC00F0A49BD39B3E48B34824E"));
	assert_false(hash_sha256_hex_ok("g4bec991fc613fcb4d2a26eb529e493ed4e3152cc00f0a49bd39b3e48b34824e"));
}

/* FNV-1a 64: the offset basis for "", and the vectors of the FNV authors' test suite. */
static void test_fnv1a(void **state)
{
	char hex[HASH_FNV1A_HEX];

	(void)state;
	hash_fnv1a_hex("", hex);
	assert_string_equal(hex, "cbf29ce484222325");
	hash_fnv1a_hex("a", hex);
	assert_string_equal(hex, "af63dc4c8601ec8c");
	hash_fnv1a_hex("foobar", hex);
	assert_string_equal(hex, "85944171f73967e8");
	/* continuing a hash is hashing the concatenation */
	assert_true(hash_fnv1a(hash_fnv1a(HASH_FNV1A_INIT, "foo", 3), "bar", 3) ==
		    hash_fnv1a(HASH_FNV1A_INIT, "foobar", 6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_examples),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_padding_edges),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_hex_ok),
		cmocka_unit_test(test_fnv1a),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
