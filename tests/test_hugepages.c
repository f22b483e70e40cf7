/* test_hugepages.c -- the guest's multi-size THP knobs and counters
 * (guest/hugepages.c) on fake transparent_hugepage trees laid out as 6.12's
 * and 6.1's: sizes found, read back, refused as unsupported, counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include "guest/hugepages.h"

static char dir[64], err[PROTO_ERR_MAX];

/* dir/rel holding text (its directories made first). */
static void put(const char *rel, const char *text)
{
	char path[256], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* dir/rel's text, trailing newline cut. */
static const char *get(const char *rel)
{
	static char text[128];
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (n && text[n - 1] == '\n')
		text[n - 1] = '\0';
	return text;
}

static const char never[] = "always inherit madvise [never]\n";

/*
 * 6.12 on x86_64: hugepages-16kB to -2048kB with an enabled knob (2048K
 * inherits), an 8kB directory without one (a size only files use), stats
 * for 64K and 2048K, and names that are not sizes beside them.
 */
static int tree_6_12(void **state)
{
	static const unsigned sizes[] = { 16, 32, 128, 256, 512, 1024 };
	char rel[64];
	unsigned i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_hugepages.XXXXXX");
	assert_non_null(mkdtemp(dir));
	put("enabled", "always [madvise] never\n");
	put("khugepaged/defrag", "1\n");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(rel, sizeof(rel), "hugepages-%ukB/enabled", sizes[i]);
		put(rel, never);
	}
	/* a plain file keeps what follows a shorter write: what is read back
	 * is the file's word, not the one asked */
	put("hugepages-64kB/enabled", "------ inherit madvise [never]\n");
	put("hugepages-64kB/stats/anon_fault_alloc", "512\n");
	put("hugepages-64kB/stats/swpout", "3\n");
	put("hugepages-2048kB/enabled", "always [inherit] madvise never\n");
	put("hugepages-2048kB/stats/anon_fault_alloc", "7\n");
	put("hugepages-2048kB/stats/swpout", "0\n");
	put("hugepages-8kB/shmem_enabled", "always within_size advise [never] deny force\n");
	put("hugepages-064kB/enabled", "[always]\n");
	put("hugepages-48kB/enabled", "[always]\n");
	put("hugepages-64KB/enabled", "[always]\n");
	put("hugepages-/enabled", "[always]\n");
	return 0;
}

/* 6.1: transparent_hugepage without any hugepages-<N>kB. */
static int tree_6_1(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_hugepages.XXXXXX");
	assert_non_null(mkdtemp(dir));
	put("enabled", "always [madvise] never\n");
	put("defrag", "always defer defer+madvise [madvise] never\n");
	return 0;
}

static int tree_remove(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#define ALL_NEVER "16K:never 32K:never 64K:never 128K:never 256K:never 512K:never 1024K:never " \
		  "2048K:inherit"

/* Every size with an enabled knob, ascending, as its brackets say; nothing else. */
static void test_read_6_12(void **state)
{
	struct mthp_list l;
	char out[MTHP_TEXT_MAX];

	(void)state;
	if (hugepages_read(dir, &l, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(mthp_list_format(&l, out, sizeof(out)), 0);
	assert_string_equal(out, ALL_NEVER);
	/* nothing asked: nothing written, everything read back */
	if (hugepages_apply(dir, "", &l, out, sizeof(out), err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_string_equal(out, ALL_NEVER);
	assert_string_equal(get("hugepages-64kB/enabled"), "------ inherit madvise [never]");
}

/* The asked sizes' knobs written, the others left; then the read-back. */
static void test_apply_6_12(void **state)
{
	struct mthp_list l;
	char out[MTHP_TEXT_MAX];

	(void)state;
	if (hugepages_apply(dir, "64K:always 2048K:never", &l, out, sizeof(out), err,
			    sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_string_equal(get("hugepages-64kB/enabled"), "always inherit madvise [never]");
	assert_string_equal(get("hugepages-2048kB/enabled"), "nevers [inherit] madvise never");
	assert_string_equal(get("hugepages-32kB/enabled"), "always inherit madvise [never]");
	assert_int_equal(l.n, 8);
	assert_string_equal(out, ALL_NEVER);
}

/* A size the kernel lacks, or one only files use: unsupported, and nothing written. */
static void test_unsupported_size(void **state)
{
	struct mthp_list l;
	char out[MTHP_TEXT_MAX];

	(void)state;
	assert_int_equal(hugepages_apply(dir, "64K:always 4096K:always", &l, out, sizeof(out),
					 err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unsupported: mthp 4096K requested but '"));
	assert_non_null(strstr(err, "/hugepages-4096kB/enabled' is missing (this kernel's sizes: "
			       "16K 32K 64K 128K 256K 512K 1024K 2048K)"));
	assert_int_equal(hugepages_apply(dir, "8K:always", &l, out, sizeof(out), err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "unsupported: mthp 8K requested"));
	assert_string_equal(get("hugepages-64kB/enabled"), "------ inherit madvise [never]");
	/* a job that is not a list is the host's fault, not the kernel's */
	assert_int_equal(hugepages_apply(dir, "64K:sometimes", &l, out, sizeof(out), err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "job: mthp entry '64K:sometimes'"));
	assert_null(strstr(err, "unsupported"));
}

/* 6.1: no sizes to read back; any ask is unsupported, and names why. */
static void test_6_1(void **state)
{
	struct mthp_list l = { .n = 3 };
	char out[MTHP_TEXT_MAX] = "x";

	(void)state;
	if (hugepages_apply(dir, "", &l, out, sizeof(out), err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 0);
	assert_string_equal(out, "");
	assert_int_equal(hugepages_apply(dir, "64K:always", &l, out, sizeof(out), err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "unsupported: mthp requested but '"));
	assert_non_null(strstr(err, "' has no hugepages-<N>kB sizes (multi-size THP is Linux 6.8 "
			       "and later)"));
}

/* A kernel without THP at all: the same, its directory missing. */
static void test_no_thp(void **state)
{
	struct mthp_list l;
	char out[MTHP_TEXT_MAX], none[128];

	(void)state;
	snprintf(none, sizeof(none), "%s/missing", dir);
	if (hugepages_apply(none, "", &l, out, sizeof(out), err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_string_equal(out, "");
	assert_int_equal(hugepages_apply(none, "2048K:always", &l, out, sizeof(out), err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "unsupported: mthp requested"));
}

/* A knob whose text has no policy in brackets is refused, not guessed. */
static void test_garbled_knob(void **state)
{
	struct mthp_list l;

	(void)state;
	put("hugepages-32kB/enabled", "always inherit madvise never\n");
	assert_int_equal(hugepages_read(dir, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "hugepages-32kB/enabled' reads 'always inherit madvise never': "
			       "no policy in brackets"));
	put("hugepages-32kB/enabled", "always inherit madvise [sometimes]\n");
	assert_int_equal(hugepages_read(dir, &l, err, sizeof(err)), -1);
	put("hugepages-32kB/enabled", never);
}

/*
 * Counters: every size but the never ones whose kernel counts it (64K and
 * 2048K have stats; 16K is madvise without), then the counts since a base.
 */
static void test_counters(void **state)
{
	struct mthp_list l;
	struct proto_summary base = { 0 }, now = { 0 };

	(void)state;
	assert_int_equal(mthp_list_parse("16K:madvise 32K:never 64K:always 2048K:inherit", &l, err,
					 sizeof(err)), 0);
	if (hugepages_counters(dir, &l, &base, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(base.mthp_kib.n, 2);
	assert_int_equal(base.mthp_kib.v[0], 64);
	assert_int_equal(base.mthp_anon_fault_alloc.v[0], 512);
	assert_int_equal(base.mthp_swpout.v[0], 3);
	assert_int_equal(base.mthp_kib.v[1], 2048);
	assert_int_equal(base.mthp_anon_fault_alloc.v[1], 7);
	assert_int_equal(base.mthp_anon_fault_alloc.n, 2);
	assert_int_equal(base.mthp_swpout.n, 2);
	put("hugepages-64kB/stats/anon_fault_alloc", "8704\n");
	put("hugepages-64kB/stats/swpout", "5\n");
	if (hugepages_counters(dir, &l, &now, err, sizeof(err)) < 0 ||
	    hugepages_since(&base, &now, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(now.mthp_anon_fault_alloc.v[0], 8192);
	assert_int_equal(now.mthp_swpout.v[0], 2);
	assert_int_equal(now.mthp_anon_fault_alloc.v[1], 0);
	/* a counter that went back, a count that is not one */
	put("hugepages-64kB/stats/swpout", "1\n");
	assert_int_equal(hugepages_counters(dir, &l, &now, err, sizeof(err)), 0);
	assert_int_equal(hugepages_since(&base, &now, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "64K's counters went from 512 and 3"));
	put("hugepages-64kB/stats/swpout", "-1\n");
	assert_int_equal(hugepages_counters(dir, &l, &now, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ": not a count"));
	put("hugepages-64kB/stats/swpout", "99999999999999999999999\n");
	assert_int_equal(hugepages_counters(dir, &l, &now, err, sizeof(err)), -1);
	put("hugepages-64kB/stats/swpout", "3\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_6_12, tree_6_12, tree_remove),
		cmocka_unit_test_setup_teardown(test_apply_6_12, tree_6_12, tree_remove),
		cmocka_unit_test_setup_teardown(test_unsupported_size, tree_6_12, tree_remove),
		cmocka_unit_test_setup_teardown(test_garbled_knob, tree_6_12, tree_remove),
		cmocka_unit_test_setup_teardown(test_counters, tree_6_12, tree_remove),
		cmocka_unit_test_setup_teardown(test_6_1, tree_6_1, tree_remove),
		cmocka_unit_test_setup_teardown(test_no_thp, tree_6_1, tree_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
