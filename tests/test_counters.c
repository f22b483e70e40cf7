/* test_counters.c -- unit tests for the named counters (guest/counters.c) and the
 * reclaim stall tracer's parse (guest/stalls.c), run on the host: /proc/vmstat, zram's
 * mm_stat and vmscan trace lines from the 6.1 and 6.12 guests (tests/data/), hostile
 * text, and the PROTO_COUNTERS messages sent, parsed back as the host does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "slurp.h"
#include "common/proto.h"
#include "guest/counters.h"
#include "guest/stalls.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DATA "tests/data/"

static char err[256];

static char *slurp(const char *name, size_t *len)
{
	char path[256];

	snprintf(path, sizeof(path), DATA "%s", name);
	return test_slurp(path, len);
}

/* The value of key in set, or -1. */
static int64_t value_of(const struct counter_set *s, const char *key)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], key))
			return (int64_t)s->v[i];
	return -1;
}

/* Every line of both kernels' /proc/vmstat, values as written. */
static void test_vmstat_captures(void **state)
{
	static const struct {
		const char *file;
		unsigned lines;
		int64_t pswpin, pswpout, nr_free_pages;
	} want[] = {
		{ "vmstat-6.1-classic.txt", 171, 1163, 2063, -1 },
		{ "vmstat-6.12-classic.txt", 182, 55, 1202, 102665 },
	};
	static struct counter_set s;
	size_t i, len;
	char *t;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		t = slurp(want[i].file, &len);
		if (counters_parse_lines("/proc/vmstat", t, len, &s, err, sizeof(err)) < 0)
			fail_msg("%s refused: %s", want[i].file, err);
		assert_int_equal(s.n, want[i].lines);
		assert_int_equal(value_of(&s, "pswpin"), want[i].pswpin);
		assert_int_equal(value_of(&s, "pswpout"), want[i].pswpout);
		if (want[i].nr_free_pages >= 0)
			assert_int_equal(value_of(&s, "nr_free_pages"), want[i].nr_free_pages);
		free(t);
	}
}

/* What no /proc/vmstat is: each refused, naming the line. */
static void test_vmstat_hostile(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "nr_free_pages 1\nNR_X 2\n", "line 2" },
		{ "nr_free_pages -1\n", "line 1" },
		{ "pswpin 4611686018427387904\n", "over 2^62" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1\n", "over 47 bytes" },
		{ "pswpin 1\npswpout 2", "cut short" },
		{ "pswpin 1 2\n", "line 1" },
		{ "pswpin\t1\n", "line 1" },
		{ "../etc 1\n", "line 1" },
	};
	static struct counter_set s;
	static char many[COUNTERS_KEYS_MAX * 16 + 64];
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (counters_parse_lines("/proc/vmstat", bad[i].text, strlen(bad[i].text), &s, err,
					 sizeof(err)) == 0)
			fail_msg("'%s' accepted", bad[i].text);
		if (!strstr(err, bad[i].want))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i].text, err, bad[i].want);
	}
	/* one key more than a source may have */
	for (i = 0; i <= COUNTERS_KEYS_MAX; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "k%zu %zu\n", i, i);
	assert_int_equal(counters_parse_lines("/proc/vmstat", many, n, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 512 keys"));
}

/* zram's mm_stat as 6.1 and 6.12 wrote it (capture_lrugen.sh, step 5). */
static void test_mm_stat_captures(void **state)
{
	static const char *const files[] = {
		"zram.mm_stat-6.1-squeezed.txt", "zram.mm_stat-6.12-squeezed.txt",
	};
	static const int64_t mem_used[] = { 4096, 20480 };
	static struct counter_set s;
	size_t i, len;
	char *t;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		t = slurp(files[i], &len);
		if (counters_parse_mm_stat(t, len, &s, err, sizeof(err)) < 0)
			fail_msg("%s refused: %s", files[i], err);
		assert_int_equal(s.n, 9);
		assert_int_equal(value_of(&s, "orig_data_size"), 4096);
		assert_int_equal(value_of(&s, "compr_data_size"), 63);
		assert_int_equal(value_of(&s, "mem_used_total"), mem_used[i]);
		free(t);
	}
}

/* zram's mm_stat as the kernel pads it, and every other shape refused. */
static void test_mm_stat(void **state)
{
	static const char *const bad[] = {
		"", "1 2 3\n", "1 2 3 4 5 6 7 8 9 10\n", "1 2 3 4 5 6 x\n", "1 2 3 4 5 6 7",
		"1 2 3 4 5 6 -7\n", "1 2 3 4 5 6 4611686018427387904\n", "1 2 3 4 5 6 7\n\n",
		"1 2 3 4 5 6 7 \n",
	};
	static struct counter_set s;
	const char *ok = "    4096     1024    12288        0    12288        2        0        0        0\n";
	size_t i;

	(void)state;
	assert_int_equal(counters_parse_mm_stat(ok, strlen(ok), &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 9);
	assert_int_equal(value_of(&s, "orig_data_size"), 4096);
	assert_int_equal(value_of(&s, "compr_data_size"), 1024);
	assert_int_equal(value_of(&s, "same_pages"), 2);
	assert_int_equal(value_of(&s, "huge_pages_since"), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (counters_parse_mm_stat(bad[i], strlen(bad[i]), &s, err, sizeof(err)) == 0)
			fail_msg("mm_stat '%s' accepted", bad[i]);
}

/*
 * The vmscan events a 16 MiB memcg's reclaims wrote on 6.1 and 6.12
 * (tests/capture_lrugen.sh, step 5): every begin paired with its end, the
 * counts and µs as a script outside the harness paired them.
 */
static void test_stall_captures(void **state)
{
	static const struct {
		const char *file;
		uint64_t count, sum_us, b9, b12;
	} want[] = {
		{ "trace.vmscan-6.1-squeezed.txt", 90, 201217, 27, 20 },
		{ "trace.vmscan-6.12-squeezed.txt", 99, 156618, 12, 13 },
	};
	static struct stalls s;
	char *t, *p, *nl;
	size_t i, len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		stalls_init(&s);
		t = slurp(want[i].file, &len);
		for (p = t; (nl = strchr(p, '\n')); p = nl + 1)
			stalls_line(&s, p, (size_t)(nl - p));
		assert_int_equal(s.count, want[i].count);
		assert_int_equal(s.sum_us, want[i].sum_us);
		assert_int_equal(s.hist[9], want[i].b9);
		assert_int_equal(s.hist[12], want[i].b12);
		assert_int_equal(s.refused, 0);
		assert_int_equal(s.nopen, 0);
		free(t);
	}
}

#define HEAD(pid, ts) "           anon-" pid "     [001] ..... " ts ": "

/* begin/end pairs per task into the histogram; what cannot pair is refused or ignored. */
static void test_stall_pairs(void **state)
{
	static struct stalls s;
	static const char *const lines[] = {
		HEAD("12", "100.000100") "mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_KERNEL",
		HEAD("13", "100.000150") "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_KERNEL",
		HEAD("12", "100.000400") "mm_vmscan_memcg_reclaim_end: nr_reclaimed=32",
		HEAD("13", "100.010150") "mm_vmscan_direct_reclaim_end: nr_reclaimed=12",
		HEAD("14", "100.020000") "mm_vmscan_memcg_reclaim_end: nr_reclaimed=1",   /* began before */
		"# tracer: nop",
		"CPU:1 [LOST 12 EVENTS]",
		HEAD("15", "100.1") "mm_vmscan_memcg_reclaim_begin: order=0",       /* a cut clock */
		"           anon     [001] ..... 100.000100: mm_vmscan_memcg_reclaim_begin: x",
		HEAD("16", "100.030000") "mm_vmscan_lru_isolate: isolate_mode=0",   /* not ours */
	};
	size_t i;

	(void)state;
	stalls_init(&s);
	for (i = 0; i < ARRAY_SIZE(lines); i++)
		stalls_line(&s, lines[i], strlen(lines[i]));
	assert_int_equal(s.count, 2);
	assert_int_equal(s.sum_us, 300 + 10000);
	assert_int_equal(s.hist[9], 1);      /* 300 us: at most 512 */
	assert_int_equal(s.hist[14], 1);     /* 10 ms: at most 16384 */
	assert_int_equal(s.refused, 3);      /* the cut clock, no pid, an event not ours */
	assert_int_equal(s.nopen, 0);
}

/* A begin twice, a time going back, more tasks in reclaim than the table holds. */
static void test_stall_hostile(void **state)
{
	static const char *const back[] = {
		HEAD("7", "5.000000") "mm_vmscan_memcg_reclaim_begin: x",
		HEAD("7", "5.000010") "mm_vmscan_memcg_reclaim_begin: x",   /* the first's end lost */
		HEAD("7", "4.000000") "mm_vmscan_memcg_reclaim_end: x",     /* before its begin */
	};
	static struct stalls s;
	char line[256];
	unsigned p;

	(void)state;
	stalls_init(&s);

	for (p = 0; p < ARRAY_SIZE(back); p++)
		stalls_line(&s, back[p], strlen(back[p]));
	assert_int_equal(s.count, 0);
	assert_int_equal(s.refused, 2);
	for (p = 0; p < STALL_OPEN_MAX + 5; p++) {
		snprintf(line, sizeof(line), HEAD("%u", "6.000000") "mm_vmscan_memcg_reclaim_begin: x",
			 1000 + p);
		stalls_line(&s, line, strlen(line));
	}
	assert_int_equal(s.nopen, STALL_OPEN_MAX);
	assert_int_equal(s.refused, 2 + 5);
	/* a stall over 2^24 us lands in the last bucket */
	snprintf(line, sizeof(line), HEAD("1000", "60.000000") "mm_vmscan_memcg_reclaim_end: x");
	stalls_line(&s, line, strlen(line));
	assert_int_equal(s.hist[STALL_BUCKETS - 1], 1);
}

static struct proto_msg sent[16];
static unsigned nsent;

/* The messages as the host gets them: formatted, then parsed strictly. */
static int keep(void *arg, const struct proto_msg *m)
{
	char line[PROTO_LINE_MAX + 2];
	int n = proto_format(m, line, sizeof(line));

	(void)arg;
	assert_true(n > 0 && nsent < ARRAY_SIZE(sent));
	if (proto_parse(line, (size_t)n - 1, &sent[nsent], err, sizeof(err)) < 0)
		fail_msg("sent '%.80s' refused: %s", line, err);
	nsent++;
	return 0;
}

/* The sum over the messages of key's values of one kind. */
static int64_t sum_sent(const char *src, unsigned at, const char *key)
{
	int64_t v = 0;
	unsigned i, k;

	for (i = 0; i < nsent; i++)
		for (k = 0; !strcmp(sent[i].u.counters.src, src) && sent[i].u.counters.at == at &&
			    k < sent[i].u.counters.values.n; k++)
			if (!strcmp(sent[i].u.counters.values.key[k], key))
				v += sent[i].u.counters.values.value[k];
	return v;
}

/*
 * The start's values once (every source, an empty message for one at 0),
 * then what changed (a level may fall), 130 keys in 3 messages, and the
 * end's values: the start plus the changes.
 */
static void test_send(void **state)
{
	static struct counters c;
	static struct stalls st;
	static char a[8192], b[8192];
	struct proto_sample smp;
	size_t na = 0, nb = 0, i;

	(void)state;
	for (i = 0; i < 130; i++) {
		na += (size_t)snprintf(a + na, sizeof(a) - na, "key%zu %zu\n", i, i == 0 ? 0 : 100 + i);
		nb += (size_t)snprintf(b + nb, sizeof(b) - nb, "key%zu %zu\n", i,
				       i == 1 ? 50 : i == 0 ? 0 : 200 + i);
	}
	stalls_init(&st);
	assert_int_equal(counters_open(&c, &st, a, na, err, sizeof(err)), 0);
	nsent = 0;
	assert_int_equal(counters_read(&c, b, nb, &smp, err, sizeof(err)), 0);
	assert_int_equal(counters_send(&c, 0, keep, NULL, err, sizeof(err)), 0);
	assert_int_equal(sum_sent("vmstat", CA_START, "key5"), 105);
	assert_int_equal(sum_sent("vmstat", CA_START, "key0"), 0);
	assert_int_equal(sum_sent("vmstat", CA_CHANGE, "key1"), 50 - 101);
	assert_int_equal(sum_sent("vmstat", CA_CHANGE, "key129"), 100);
	for (i = 0; i < nsent; i++)
		assert_true(sent[i].u.counters.values.n <= PROTO_COUNTERS_MAX);
	/* vmstat's start and change: 129 keys each, 3 messages each; the
	 * others' starts one empty message each (zram, zswap absent; no stall) */
	assert_int_equal(nsent, 3 + 3 + CS_COUNT - 1);
	nsent = 0;
	assert_int_equal(counters_send_end(&c, 0, keep, NULL, err, sizeof(err)), 0);
	assert_int_equal(sum_sent("vmstat", CA_END, "key1"), 50);
	assert_int_equal(sum_sent("vmstat", CA_END, "key129"), 329);
	assert_int_equal(smp.stalls, 0);
	counters_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmstat_captures),
		cmocka_unit_test(test_vmstat_hostile),
		cmocka_unit_test(test_mm_stat_captures),
		cmocka_unit_test(test_mm_stat),
		cmocka_unit_test(test_stall_captures),
		cmocka_unit_test(test_stall_pairs),
		cmocka_unit_test(test_stall_hostile),
		cmocka_unit_test(test_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
