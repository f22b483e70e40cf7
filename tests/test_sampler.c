/* test_sampler.c -- unit tests for guest/sampler.c's parsers, run on the host:
 * sampler_parse_stat on a memory.stat as a 6.12 kernel writes it (and on every
 * way it can be malformed), sampler_fill's deltas and levels, and
 * sampler_parse_lru_gen on the debugfs lru_gen text of
 * Documentation/admin-guide/mm/multigen_lru.rst ("memcg ID PATH", " node NID",
 * then "SEQ AGE_MS ANON FILE" per generation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/proto.h"
#include "guest/sampler.h"

static char err[256];

/* The keys sampler_parse_stat reads, in the order of sampler_reading.stat[]. */
enum {
	I_PGMAJFAULT, I_REFAULT_FILE, I_REFAULT_ANON, I_ACTIVATE_FILE, I_ACTIVATE_ANON,
	I_RESTORE_FILE, I_PGSCAN, I_PGSTEAL, I_FILE, I_ANON, I_COUNT
};

/*
 * memory.stat of a cgroup v2 memcg on 6.12 (x86_64, THP and zswap on): every
 * key the kernel writes, in its order. The values the sampler reads are
 * distinct; the keys around them that share a prefix (file_mapped, anon_thp,
 * pgscan_kswapd, pgsteal_direct, workingset_restore_anon...) carry other values.
 */
static const char stat_6_12[] =
	"anon 1302528\n"
	"file 66584576\n"
	"kernel 1585152\n"
	"kernel_stack 65536\n"
	"pagetables 172032\n"
	"sec_pagetables 0\n"
	"percpu 1440\n"
	"sock 0\n"
	"vmalloc 8192\n"
	"shmem 0\n"
	"zswap 0\n"
	"zswapped 0\n"
	"file_mapped 12288\n"
	"file_dirty 4096\n"
	"file_writeback 0\n"
	"swapcached 0\n"
	"anon_thp 0\n"
	"file_thp 0\n"
	"shmem_thp 0\n"
	"inactive_anon 1290240\n"
	"active_anon 12288\n"
	"inactive_file 49352704\n"
	"active_file 17231872\n"
	"unevictable 0\n"
	"slab_reclaimable 1048576\n"
	"slab_unreclaimable 262144\n"
	"slab 1310720\n"
	"workingset_refault_anon 11\n"
	"workingset_refault_file 23456\n"
	"workingset_activate_anon 13\n"
	"workingset_activate_file 3456\n"
	"workingset_restore_anon 17\n"
	"workingset_restore_file 1234\n"
	"workingset_nodereclaim 0\n"
	"pgdemote_kswapd 0\n"
	"pgdemote_direct 0\n"
	"pgdemote_khugepaged 0\n"
	"pgscan 98765\n"
	"pgsteal 87654\n"
	"pgscan_kswapd 111\n"
	"pgscan_direct 98654\n"
	"pgscan_khugepaged 0\n"
	"pgsteal_kswapd 222\n"
	"pgsteal_direct 87432\n"
	"pgsteal_khugepaged 0\n"
	"pgfault 45678\n"
	"pgmajfault 4321\n"
	"pgrefill 333\n"
	"pgactivate 444\n"
	"pgdeactivate 555\n"
	"pglazyfree 0\n"
	"pglazyfreed 0\n"
	"zswpin 0\n"
	"zswpout 0\n"
	"zswpwb 0\n"
	"thp_fault_alloc 0\n"
	"thp_collapse_alloc 0\n"
	"thp_swpout 0\n"
	"thp_swpout_fallback 0\n";

static const uint64_t want_6_12[I_COUNT] = {
	[I_PGMAJFAULT] = 4321,   [I_REFAULT_FILE] = 23456, [I_REFAULT_ANON] = 11,
	[I_ACTIVATE_FILE] = 3456, [I_ACTIVATE_ANON] = 13,  [I_RESTORE_FILE] = 1234,
	[I_PGSCAN] = 98765,      [I_PGSTEAL] = 87654,      [I_FILE] = 66584576,
	[I_ANON] = 1302528,
};

static int parse_text(const char *text, struct sampler_reading *r)
{
	err[0] = '\0';
	return sampler_parse_stat(text, strlen(text), r, err, sizeof(err));
}

/* text must be refused with want in the message. */
static void refuse(const char *text, const char *want)
{
	struct sampler_reading r;

	memset(&r, 0, sizeof(r));
	if (parse_text(text, &r) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
}

/* stat_6_12 with the line starting "key " replaced by repl (NULL: removed). */
static char *stat_with(const char *key, const char *repl)
{
	char *out = malloc(sizeof(stat_6_12) + 256), *o = out, needle[80];
	const char *p = stat_6_12, *nl;

	assert_non_null(out);
	snprintf(needle, sizeof(needle), "%s ", key);
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		if (!strncmp(p, needle, strlen(needle))) {
			if (repl)
				o += sprintf(o, "%s", repl);
			continue;
		}
		memcpy(o, p, (size_t)(nl - p) + 1);
		o += nl - p + 1;
	}
	*o = '\0';
	return out;
}

static void refuse_with(const char *key, const char *repl, const char *want)
{
	char *t = stat_with(key, repl);

	refuse(t, want);
	free(t);
}

/* ---- sampler_parse_stat ---- */

static void test_stat_6_12(void **state)
{
	struct sampler_reading r;
	int i;

	(void)state;
	assert_int_equal(SAMPLER_NKEYS, I_COUNT);
	memset(&r, 0xff, sizeof(r));
	if (parse_text(stat_6_12, &r) < 0)
		fail_msg("refused: %s", err);
	for (i = 0; i < I_COUNT; i++)
		if (r.stat[i] != want_6_12[i])
			fail_msg("stat[%d] = %llu, want %llu", i, (unsigned long long)r.stat[i],
				 (unsigned long long)want_6_12[i]);
}

static void test_stat_order_free(void **state)
{
	static const char text[] =
		"pgsteal 8\nfile 9\nworkingset_restore_file 6\nanon 10\npgmajfault 1\n"
		"workingset_activate_anon 5\npgscan 7\nworkingset_refault_anon 3\n"
		"workingset_activate_file 4\nworkingset_refault_file 2\n";
	struct sampler_reading r;
	int i;

	(void)state;
	/* only the ten keys, in another order: each still lands at its index */
	if (parse_text(text, &r) < 0)
		fail_msg("refused: %s", err);
	for (i = 0; i < I_COUNT; i++)
		assert_int_equal(r.stat[i], (uint64_t)i + 1);
	/* the largest value that fits 64 bits; zeros; unknown well-formed keys */
	{
		char *t = stat_with("pgscan", "pgscan 18446744073709551615\n");

		assert_int_equal(parse_text(t, &r), 0);
		assert_int_equal(r.stat[I_PGSCAN], UINT64_MAX);
		free(t);
		t = stat_with("anon", "anon 0\nsome_future_key_2 77\n");
		assert_int_equal(parse_text(t, &r), 0);
		assert_int_equal(r.stat[I_ANON], 0);
		free(t);
	}
	/* only len bytes are read: the text after them does not count */
	{
		char buf[sizeof(text) + 32];

		memcpy(buf, text, sizeof(text) - 1);
		memcpy(buf + sizeof(text) - 1, "anon 99\n", 9);
		assert_int_equal(sampler_parse_stat(buf, sizeof(text) - 1, &r, err, sizeof(err)), 0);
		assert_int_equal(r.stat[I_ANON], 10);
	}
}

static void test_stat_refusals(void **state)
{
	static const char *const keys[] = {
		"pgmajfault", "workingset_refault_file", "workingset_refault_anon",
		"workingset_activate_file", "workingset_activate_anon", "workingset_restore_file",
		"pgscan", "pgsteal", "file", "anon",
	};
	char want[96], line[96];
	unsigned i;

	(void)state;
	/* each key missing, and each twice */
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(want, sizeof(want), "'%s' missing", keys[i]);
		refuse_with(keys[i], NULL, want);
		snprintf(line, sizeof(line), "%s 1\n%s 2\n", keys[i], keys[i]);
		snprintf(want, sizeof(want), "'%s' appears twice", keys[i]);
		refuse_with(keys[i], line, want);
	}
	/* a key whose name only starts like one of ours does not stand in for it */
	refuse_with("pgscan", "pgscan_total 5\n", "'pgscan' missing");
	/* value overflow: 2^64, and far beyond */
	refuse_with("pgscan", "pgscan 18446744073709551616\n", "('pgscan'): value overflows");
	refuse_with("file", "file 99999999999999999999999\n", "value overflows");
	/* not newline-terminated, empty */
	refuse("anon 1", "not newline-terminated");
	{
		char *t = stat_with("thp_swpout_fallback", "thp_swpout_fallback 0");

		refuse(t, "not newline-terminated");
		free(t);
	}
	refuse("", "empty");
	/* bad characters and shapes */
	refuse_with("anon", "Anon 5\n", "not 'key value'");
	refuse_with("anon", "anon  5\n", "value not a decimal");
	refuse_with("anon", "anon 5 \n", "value not a decimal");
	refuse_with("anon", "anon -5\n", "value not a decimal");
	refuse_with("anon", "anon +5\n", "value not a decimal");
	refuse_with("anon", "anon 0x10\n", "value not a decimal");
	refuse_with("anon", "anon 5\r\n", "value not a decimal");
	refuse_with("anon", "anon\t5\n", "not 'key value'");
	refuse_with("anon", "anon\n", "not 'key value'");
	refuse_with("anon", "anon \n", "not 'key value'");
	refuse_with("anon", " anon 5\n", "not 'key value'");
	refuse_with("anon", "anon 5\n\n", "not 'key value'");
	refuse_with("anon", "an-on 5\n", "not 'key value'");
	refuse_with("anon", "anon 5\nkey\xc3\xa9 1\n", "not 'key value'");
	/* the line number is given */
	refuse("anon 1\nfile 2\nbad line\n", "line 3");
	/* a key longer than the parser keeps */
	refuse_with("sock", "sock_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0\n",
		    "key too long");
	/* a NUL inside the text */
	{
		static const char t[] = "anon 1\0\n";

		assert_int_equal(sampler_parse_stat(t, sizeof(t) - 1, &(struct sampler_reading){ 0 },
						    err, sizeof(err)), -1);
	}
}

/* ---- sampler_fill ---- */

static void test_fill(void **state)
{
	struct sampler_reading prev, now;
	struct proto_sample s;

	(void)state;
	memset(&prev, 0, sizeof(prev));
	assert_int_equal(parse_text(stat_6_12, &now), 0);
	now.resident.n = 2;
	now.resident.v[0] = 100;
	now.resident.v[1] = 200;
	now.gen_valid = 1;
	now.min_seq = 7;
	now.max_seq = 10;
	memset(&s, 0, sizeof(s));
	assert_int_equal(sampler_fill(&now, &prev, &s, err, sizeof(err)), 0);
	/* each stat index lands in its sample field */
	assert_int_equal(s.pgmajfault, 4321);
	assert_int_equal(s.refault_file, 23456);
	assert_int_equal(s.refault_anon, 11);
	assert_int_equal(s.activate_file, 3456);
	assert_int_equal(s.activate_anon, 13);
	assert_int_equal(s.restore_file, 1234);
	assert_int_equal(s.pgscan, 98765);
	assert_int_equal(s.pgsteal, 87654);
	assert_int_equal(s.file_bytes, 66584576);
	assert_int_equal(s.anon_bytes, 1302528);
	assert_int_equal(s.resident.n, 2);
	assert_int_equal(s.resident.v[1], 200);
	assert_int_equal(s.gen_valid, 1);
	assert_int_equal(s.min_seq, 7);
	assert_int_equal(s.max_seq, 10);

	/* counters are deltas, file and anon levels (they may go down) */
	prev = now;
	now.stat[I_PGSCAN] += 50;
	now.stat[I_FILE] -= 4096;
	now.stat[I_ANON] += 8192;
	now.gen_valid = 0;
	assert_int_equal(sampler_fill(&now, &prev, &s, err, sizeof(err)), 0);
	assert_int_equal(s.pgscan, 50);
	assert_int_equal(s.pgmajfault, 0);
	assert_int_equal(s.file_bytes, 66584576 - 4096);
	assert_int_equal(s.anon_bytes, 1302528 + 8192);
	/* no lru_gen window: zeros */
	assert_int_equal(s.gen_valid, 0);
	assert_int_equal(s.min_seq, 0);
	assert_int_equal(s.max_seq, 0);

	/* a counter that goes backwards is an error naming it */
	now = prev;
	now.stat[I_REFAULT_FILE] = 5;
	assert_int_equal(sampler_fill(&now, &prev, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'workingset_refault_file' went backwards: 5 after 23456"));
}

/* ---- sampler_parse_lru_gen ---- */

/* Two memcgs, the second with two nodes, as lru_gen_seq_show() prints them. */
static const char lru_gen_text[] =
	"memcg     1 /\n"
	" node     0\n"
	"          0      95046            0        11264\n"
	"          1      95046            0         2048\n"
	"          2      40123          512          768\n"
	"          3       1234         1024          256\n"
	"memcg     7 /harness\n"
	" node     0\n"
	"         12      20011            0        10240\n"
	"         13       8800            0         4096\n"
	"         14       2100           16         1024\n"
	"         15        120            8          512\n"
	" node     1\n"
	"         11      25000            0          128\n"
	"         12      20000            0           64\n"
	"         13       8000            0           32\n"
	"         16         80            0           16\n";

static void test_lru_gen(void **state)
{
	uint64_t lo = 999, hi = 999;

	(void)state;
	assert_int_equal(sampler_parse_lru_gen(lru_gen_text, strlen(lru_gen_text), "/harness",
					       &lo, &hi), 0);
	assert_int_equal(lo, 11);
	assert_int_equal(hi, 16);
	/* the root memcg's window is its own */
	assert_int_equal(sampler_parse_lru_gen(lru_gen_text, strlen(lru_gen_text), "/", &lo, &hi), 0);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 3);
	/* absent memcgs, prefixes and extensions of a path */
	assert_int_equal(sampler_parse_lru_gen(lru_gen_text, strlen(lru_gen_text), "/other",
					       &lo, &hi), -1);
	assert_int_equal(sampler_parse_lru_gen(lru_gen_text, strlen(lru_gen_text), "/harn",
					       &lo, &hi), -1);
	assert_int_equal(sampler_parse_lru_gen(lru_gen_text, strlen(lru_gen_text), "/harness/x",
					       &lo, &hi), -1);
	assert_int_equal(sampler_parse_lru_gen("", 0, "/harness", &lo, &hi), -1);
}

static void test_lru_gen_edges(void **state)
{
	static const char order[] =
		"memcg     7 /harness\n"
		" node     0\n"
		"         20        100            0            1\n"
		"         21         50            0            1\n"
		"memcg     8 /harness/child\n"
		" node     0\n"
		"          2        100            0            1\n"
		"         40         50            0            1\n"
		"memcg     9 /harness2\n"
		" node     0\n"
		"          1        100            0            1\n";
	static const char nogens[] =
		"memcg     7 /harness\n"
		" node     0\n"
		"memcg     9 /other\n"
		" node     0\n"
		"          5        100            0            1\n";
	static const char last_no_nl[] =
		"memcg     1 /\n"
		" node     0\n"
		"          3        100            0            1\n"
		"memcg     7 /harness\n"
		" node     0\n"
		"          8        100            0            1\n"
		"          9         50            0            1";
	uint64_t lo = 0, hi = 0;

	(void)state;
	/* a memcg's window ends at the next memcg line, whatever its path */
	assert_int_equal(sampler_parse_lru_gen(order, strlen(order), "/harness", &lo, &hi), 0);
	assert_int_equal(lo, 20);
	assert_int_equal(hi, 21);
	assert_int_equal(sampler_parse_lru_gen(order, strlen(order), "/harness/child", &lo, &hi), 0);
	assert_int_equal(lo, 2);
	assert_int_equal(hi, 40);
	/* a memcg with no generations has no window */
	assert_int_equal(sampler_parse_lru_gen(nogens, strlen(nogens), "/harness", &lo, &hi), -1);
	/* the last line without its newline counts */
	assert_int_equal(sampler_parse_lru_gen(last_no_nl, strlen(last_no_nl), "/harness",
					       &lo, &hi), 0);
	assert_int_equal(lo, 8);
	assert_int_equal(hi, 9);
	/* only len bytes are read */
	assert_int_equal(sampler_parse_lru_gen(last_no_nl, strlen(last_no_nl) - 50, "/harness",
					       &lo, &hi), 0);
	assert_int_equal(lo, 8);
	assert_int_equal(hi, 8);
	/* one generation: min = max */
	assert_int_equal(sampler_parse_lru_gen(order, strlen(order), "/harness2", &lo, &hi), 0);
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_6_12),
		cmocka_unit_test(test_stat_order_free),
		cmocka_unit_test(test_stat_refusals),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_lru_gen),
		cmocka_unit_test(test_lru_gen_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
