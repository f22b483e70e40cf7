/* slurp.h -- a test's input file read whole, NUL-terminated (cmocka fails the
 * test if it cannot be): shared by tests that link no test library. */
#ifndef SLURP_H
#define SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The file at path; its length (without the NUL) in *ret_len. malloc'd. */
static inline char *test_slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}

#endif
