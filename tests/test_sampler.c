/* test_sampler.c -- unit tests for guest/sampler.c's parsers, run on the host:
 * sampler_parse_stat (lrugen_parse_memory_stat underneath) on a memory.stat as a 6.12
 * kernel writes it (and on every way it can be malformed), sampler_fill's deltas and levels, and
 * sampler_parse_lru / sampler_lru_msg on Debian 6.1's and 6.12's lru_gen and
 * lru_gen_full captures (tests/data/): what the agent sends, parsed as the host does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "slurp.h"
#include "guest/oom.h"
#include "common/psi.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include "common/proto.h"
#include "guest/sampler.h"

static char err[256];

/* The keys sampler_parse_stat reads, in the order of sampler_reading.stat[]. */
enum {
	I_PGMAJFAULT, I_REFAULT_FILE, I_REFAULT_ANON, I_ACTIVATE_FILE, I_ACTIVATE_ANON,
	I_RESTORE_FILE, I_PGSCAN, I_PGSTEAL, I_FILE, I_ANON,
	I_ACTIVE_ANON, I_INACTIVE_ANON, I_ACTIVE_FILE, I_INACTIVE_FILE, I_RESTORE_ANON,
	I_NODERECLAIM, I_PGSCAN_KSWAPD, I_PGSCAN_DIRECT, I_PGSTEAL_KSWAPD, I_PGSTEAL_DIRECT,
	I_PGREFILL, I_PGACTIVATE, I_PGDEACTIVATE, I_ANON_THP,
	I_SWAPCACHED, I_ZSWAP, I_ZSWPIN, I_ZSWPOUT, I_COUNT
};

#define DATA "tests/data/"

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
	"zswap 8192\n"
	"zswapped 0\n"
	"file_mapped 12288\n"
	"file_dirty 4096\n"
	"file_writeback 0\n"
	"swapcached 790528\n"
	"anon_thp 2097152\n"
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
	"zswpin 21\n"
	"zswpout 34\n"
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
	[I_ACTIVE_ANON] = 12288, [I_INACTIVE_ANON] = 1290240, [I_ACTIVE_FILE] = 17231872,
	[I_INACTIVE_FILE] = 49352704, [I_RESTORE_ANON] = 17, [I_NODERECLAIM] = 0,
	[I_PGSCAN_KSWAPD] = 111, [I_PGSCAN_DIRECT] = 98654, [I_PGSTEAL_KSWAPD] = 222,
	[I_PGSTEAL_DIRECT] = 87432, [I_PGREFILL] = 333, [I_PGACTIVATE] = 444,
	[I_PGDEACTIVATE] = 555, [I_ANON_THP] = 2097152,
	[I_SWAPCACHED] = 790528, [I_ZSWAP] = 8192, [I_ZSWPIN] = 21, [I_ZSWPOUT] = 34,
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
		"workingset_activate_file 4\nworkingset_refault_file 2\n"
		"pgdeactivate 23\nactive_anon 11\ninactive_file 14\npgrefill 21\n"
		"inactive_anon 12\nactive_file 13\nworkingset_restore_anon 15\n"
		"pgsteal_direct 20\nworkingset_nodereclaim 16\npgscan_kswapd 17\n"
		"pgscan_direct 18\npgsteal_kswapd 19\nanon_thp 24\npgactivate 22\n"
		"zswpout 28\nswapcached 25\nzswpin 27\nzswap 26\n";
	struct sampler_reading r;
	int i;

	(void)state;
	/* only the keys read, in another order: each still lands at its index */
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
		"pgscan", "pgsteal", "file", "anon", "active_anon", "inactive_anon",
		"active_file", "inactive_file", "workingset_restore_anon",
		"workingset_nodereclaim", "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd",
		"pgsteal_direct", "pgrefill", "pgactivate", "pgdeactivate",
	};
	char want[96], line[96];
	unsigned i;

	(void)state;
	/* each key missing, and each twice (lrugen_parse_memory_stat's messages) */
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(want, sizeof(want), "no '%s' line", keys[i]);
		refuse_with(keys[i], NULL, want);
		snprintf(line, sizeof(line), "%s 1\n%s 2\n", keys[i], keys[i]);
		refuse_with(keys[i], line, "a key given twice");
	}
	/* a key whose name only starts like one of ours does not stand in for it */
	refuse_with("pgscan", "pgscan_total 5\n", "no 'pgscan' line");
	/* value overflow: 2^64, and far beyond */
	refuse_with("pgscan", "pgscan 18446744073709551616\n", "the value is out of range");
	refuse_with("file", "file 99999999999999999999999\n", "out of range");
	/* not newline-terminated, empty */
	refuse("anon 1", "no newline at the end");
	{
		char *t = stat_with("thp_swpout_fallback", "thp_swpout_fallback 0");

		refuse(t, "no newline at the end");
		free(t);
	}
	refuse("", "no 'inactive_anon' line");
	/* bad characters and shapes */
	refuse_with("anon", "Anon 5\n", "expected 'KEY VALUE'");
	refuse_with("anon", "anon  5\n", "not a decimal number");
	refuse_with("anon", "anon 5 \n", "not a decimal number");
	refuse_with("anon", "anon -5\n", "not a decimal number");
	refuse_with("anon", "anon +5\n", "not a decimal number");
	refuse_with("anon", "anon 0x10\n", "leading zero");
	refuse_with("anon", "anon 5\r\n", "not a decimal number");
	refuse_with("anon", "anon\t5\n", "expected 'KEY VALUE'");
	refuse_with("anon", "anon\n", "expected 'KEY VALUE'");
	refuse_with("anon", "anon \n", "expected 'KEY VALUE'");
	refuse_with("anon", " anon 5\n", "expected 'KEY VALUE'");
	refuse_with("anon", "anon 5\n\n", "expected 'KEY VALUE'");
	refuse_with("anon", "an-on 5\n", "expected 'KEY VALUE'");
	refuse_with("anon", "anon 5\nkey\xc3\xa9 1\n", "expected 'KEY VALUE'");
	/* the line number is given */
	refuse("anon 1\nfile 2\nbad line\n", "line 3");
	/* a key longer than the parser keeps */
	refuse_with("sock", "sock_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0\n",
		    "expected 'KEY VALUE'");
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
	memset(&now, 0, sizeof(now));
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
	/* the classic LRU's sizes are levels, the aging counters deltas */
	assert_int_equal(s.active_file, 17231872);
	assert_int_equal(s.inactive_file, 49352704);
	assert_int_equal(s.active_anon, 12288);
	assert_int_equal(s.inactive_anon, 1290240);
	assert_int_equal(s.restore_anon, 17);
	assert_int_equal(s.pgscan_direct, 98654);
	assert_int_equal(s.pgsteal_kswapd, 222);
	assert_int_equal(s.pgrefill, 333);
	assert_int_equal(s.pgactivate, 444);
	assert_int_equal(s.pgdeactivate, 555);
	assert_int_equal(s.lru_nodes, 0);
	assert_int_equal(s.lru_refused, 0);

	/* counters are deltas, file and anon levels (they may go down) */
	prev = now;
	now.stat[I_PGSCAN] += 50;
	now.stat[I_FILE] -= 4096;
	now.stat[I_ANON] += 8192;
	now.stat[I_ACTIVE_FILE] -= 4096;
	now.stat[I_PGREFILL] += 3;
	now.gen_valid = 0;
	now.lru_refused = 1;
	assert_int_equal(sampler_fill(&now, &prev, &s, err, sizeof(err)), 0);
	assert_int_equal(s.active_file, 17231872 - 4096);
	assert_int_equal(s.pgrefill, 3);
	assert_int_equal(s.pgdeactivate, 0);
	assert_int_equal(s.lru_refused, 1);
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

/* ---- sampler_parse_lru, sampler_lru_msg ---- */

/* A capture of tests/data/, NUL-terminated; its length in *len. */
static char *slurp(const char *name, size_t *len)
{
	char path[256];

	snprintf(path, sizeof(path), DATA "%s", name);
	return test_slurp(path, len);
}

/* msg through proto_format and the host's proto_parse, unchanged. */
static void host_accepts(const struct proto_lru *l)
{
	struct proto_msg m = { .type = PROTO_LRU }, back;
	char line[PROTO_LINE_MAX];
	int n;

	m.u.lru = *l;
	n = proto_format(&m, line, sizeof(line));
	assert_true(n > 0);
	if (proto_parse(line, (size_t)n - 1, &back, err, sizeof(err)) < 0)
		fail_msg("host refuses %s: %s", line, err);
	assert_int_equal(back.type, PROTO_LRU);
	assert_memory_equal(&back.u.lru, l, sizeof(*l));
}

static const struct {
	const char *file;
	int full;
} captures[] = {
	{ "lru_gen-6.1.txt", 0 }, { "lru_gen-6.1-aged.txt", 0 }, { "lru_gen-6.1-evicted.txt", 0 },
	{ "lru_gen-6.12.txt", 0 }, { "lru_gen-6.12-aged.txt", 0 },
	{ "lru_gen-6.12-evicted.txt", 0 }, { "lru_gen-6.12-disabled.txt", 0 },
	{ "lru_gen_full-6.1.txt", 1 }, { "lru_gen_full-6.1-aged.txt", 1 },
	{ "lru_gen_full-6.12.txt", 1 }, { "lru_gen_full-6.12-aged.txt", 1 },
};

/* Every capture's memcg /t: a window, one message per node the host accepts. */
static void test_lru_captures(void **state)
{
	struct lrugen_memcg *m = calloc(1, sizeof(*m));
	struct sampler_reading r;
	struct proto_lru l;
	unsigned i, nd;
	uint64_t g;
	size_t len;
	char *text;

	(void)state;
	assert_non_null(m);
	for (i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
		text = slurp(captures[i].file, &len);
		memset(&r, 0, sizeof(r));
		if (sampler_parse_lru(text, len, captures[i].full, "/t", m, &r, err,
				      sizeof(err)) < 0)
			fail_msg("%s: %s", captures[i].file, err);
		assert_int_equal(r.gen_valid, 1);
		assert_int_equal(r.lru_refused, 0);
		assert_int_equal(r.lru_nodes, m->nnodes);
		assert_true(r.lru_nodes >= 1 && r.min_seq <= r.max_seq);
		for (nd = 0; nd < r.lru_nodes; nd++) {
			sampler_lru_msg(m, nd, 42, &l);
			assert_int_equal(l.seq, 42);
			assert_int_equal(l.node, nd);
			assert_int_equal(l.nid, m->node[nd].nid);
			assert_true(l.gen.n >= 1);
			assert_int_equal(l.gen.v[l.gen.n - 1], m->node[nd].max_seq);
			assert_true(l.gen.v[0] >= r.min_seq);
			/* tiers only from lru_gen_full, four per generation */
			assert_int_equal(l.file_evicted.n, captures[i].full ? l.gen.n * 4 : 0);
			for (g = 0; !captures[i].full && g < l.gen.n; g++)
				assert_int_equal(l.rep.v[g], 0);
			host_accepts(&l);
		}
		free(text);
	}
	free(m);
}

/* lru_gen_full 6.12 aged, node 0 of /t, as the capture shows it. */
static void test_lru_full_values(void **state)
{
	struct lrugen_memcg *m = calloc(1, sizeof(*m));
	struct sampler_reading r;
	struct proto_lru l;
	unsigned nd, g, t, k, reps = 0;
	size_t len;
	char *text = slurp("lru_gen_full-6.12-aged.txt", &len);

	(void)state;
	assert_non_null(m);
	assert_int_equal(sampler_parse_lru(text, len, 1, "/t", m, &r, err, sizeof(err)), 0);
	for (nd = 0; nd < m->nnodes; nd++) {
		sampler_lru_msg(m, nd, 0, &l);
		for (g = 0; g < l.gen.n; g++) {
			const struct lrugen_gen *lg = NULL;
			unsigned u;

			for (u = 0; u < m->node[nd].ngens; u++)
				if (m->node[nd].gen[u].seq == l.gen.v[g])
					lg = &m->node[nd].gen[u];
			assert_non_null(lg);
			assert_int_equal(l.age_ms.v[g], lg->age_ms);
			assert_int_equal(l.anon.v[g], lg->pages[LRUGEN_ANON]);
			assert_int_equal(l.file.v[g], lg->pages[LRUGEN_FILE]);
			for (t = 0; t < LRUGEN_NTYPES; t++) {
				int rep = lg->kind[t] == LRUGEN_HIST;
				const struct proto_u64s *ev = t ? &l.file_evicted : &l.anon_evicted;
				const struct proto_u64s *rf = t ? &l.file_refaulted : &l.anon_refaulted;

				assert_int_equal((l.rep.v[g] >> t) & 1, rep);
				reps += (unsigned)rep;
				for (k = 0; k < LRUGEN_TIERS; k++) {
					assert_int_equal(ev->v[g * 4 + k],
							 rep ? lg->tier[t][k].evicted : 0);
					assert_int_equal(rf->v[g * 4 + k],
							 rep ? lg->tier[t][k].refaulted : 0);
				}
			}
		}
	}
	/* min_seq of each type carries its rep columns */
	assert_true(reps >= 2);
	free(text);
	free(m);
}

/* Absent memcg: nothing, not refused. Refused text: nothing, counted, -1. */
static void test_lru_refused(void **state)
{
	struct lrugen_memcg *m = calloc(1, sizeof(*m));
	struct sampler_reading r;
	size_t len;
	char *text = slurp("lru_gen_full-6.12.txt", &len);

	(void)state;
	assert_non_null(m);
	memset(&r, 0xff, sizeof(r));
	assert_int_equal(sampler_parse_lru(text, len, 1, "/harness", m, &r, err, sizeof(err)), 0);
	assert_int_equal(r.gen_valid, 0);
	assert_int_equal(r.lru_nodes, 0);
	assert_int_equal(r.lru_refused, 0);
	/* cut short inside a generation's tiers */
	memset(&r, 0, sizeof(r));
	assert_int_equal(sampler_parse_lru(text, len - 30, 1, "/t", m, &r, err, sizeof(err)), -1);
	assert_int_equal(r.lru_refused, 1);
	assert_int_equal(r.lru_nodes, 0);
	assert_int_equal(r.gen_valid, 0);
	/* lru_gen_full's text read as lru_gen's, and garbage */
	assert_int_equal(sampler_parse_lru(text, len, 0, "/t", m, &r, err, sizeof(err)), -1);
	assert_int_equal(r.lru_refused, 1);
	assert_int_equal(sampler_parse_lru("memcg x\n", 8, 0, "/t", m, &r, err, sizeof(err)), -1);
	assert_int_equal(r.lru_refused, 1);
	assert_int_equal(r.lru_nodes, 0);
	free(text);
	free(m);
}


/* ---- sampler_parse_swap, oom_victim_parse: real captures (tests/capture_lrugen.sh) ---- */

/* A capture with its line starting "key " replaced by repl (NULL: removed). */
static char *capture_with(const char *name, const char *key, const char *repl)
{
	size_t len, klen = strlen(key);
	char *text = slurp(name, &len), *out = calloc(1, len + 256), *p = text, *o = out;

	assert_non_null(out);
	while (*p) {
		char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			if (repl)
				o += sprintf(o, "%s", repl);
		} else {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	free(text);
	return out;
}

/* vmstat, events and swap.current texts parsed: 0 or -1 (err says why). */
static int parse_swap(const char *vm, const char *ev, const char *cur, struct sampler_reading *r)
{
	err[0] = '\0';
	return sampler_parse_swap(vm, strlen(vm), ev, strlen(ev), cur, r, err, sizeof(err));
}

static void test_swap_captures(void **state)
{
	static const struct {
		const char *alias;
		uint64_t pswpin, pswpout, swap_current, oom_kill, high, max, oom;
	} want[] = {
		{ "6.1", 1163, 2063, 3461120, 1, 0, 35, 1 },
		{ "6.12", 55, 1202, 0, 1, 0, 18, 1 },
	};
	char name[64], *vm, *ev, *cur;
	struct sampler_reading r;
	size_t i, len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		snprintf(name, sizeof(name), "vmstat-%s-classic.txt", want[i].alias);
		vm = slurp(name, &len);
		snprintf(name, sizeof(name), "memory.events-%s-oom.txt", want[i].alias);
		ev = slurp(name, &len);
		snprintf(name, sizeof(name), "memory.swap.current-%s-classic.txt", want[i].alias);
		cur = slurp(name, &len);
		memset(&r, 0xff, sizeof(r));
		if (parse_swap(vm, ev, cur, &r) < 0)
			fail_msg("%s refused: %s", want[i].alias, err);
		assert_int_equal(r.pswpin, want[i].pswpin);
		assert_int_equal(r.pswpout, want[i].pswpout);
		if (want[i].swap_current)
			assert_int_equal(r.swap_current, want[i].swap_current);
		assert_int_equal(r.oom_kill, want[i].oom_kill);
		assert_int_equal(r.memcg_high, want[i].high);
		assert_int_equal(r.memcg_max, want[i].max);
		assert_int_equal(r.memcg_oom, want[i].oom);
		/* no memory.swap.current (no swap accounting): 0 */
		assert_int_equal(parse_swap(vm, ev, NULL, &r), 0);
		assert_int_equal(r.swap_current, 0);
		free(vm);
		free(ev);
		free(cur);
	}
}

/* memory.events as every kernel since 4.13 writes it, nothing happened */
#define EVENTS "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"

static void test_swap_refusals(void **state)
{
	static const struct {
		const char *file, *key, *repl, *want;
	} bad[] = {
		{ "vmstat-6.12-classic.txt", "pswpin", NULL, "/proc/vmstat: no 'pswpin' line" },
		{ "vmstat-6.12-classic.txt", "pswpout", "pswpout 12\npswpout 13\n", "a key given twice" },
		{ "vmstat-6.12-classic.txt", "pswpin", "pswpin -1\n", "not a decimal" },
		{ "vmstat-6.12-classic.txt", "pswpin", "pswpin 18446744073709551616\n", "out of range" },
		{ "vmstat-6.12-classic.txt", "pswpin", "pswpin\n", "expected 'KEY VALUE'" },
		{ "vmstat-6.12-classic.txt", "pswpin", "PSWPIN 1\n", "expected 'KEY VALUE'" },
		{ "memory.events-6.1-oom.txt", "oom_kill", "oom_kill 1 2\n", "memory.events line" },
		{ "memory.events-6.1-oom.txt", "oom", "oom 01\n", "leading zero" },
	};
	char *vm, *ev, *t;
	size_t i, len;
	struct sampler_reading r;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		t = capture_with(bad[i].file, bad[i].key, bad[i].repl);
		vm = strstr(bad[i].file, "vmstat") ? t : slurp("vmstat-6.1-classic.txt", &len);
		ev = strstr(bad[i].file, "events") ? t : slurp("memory.events-6.1-oom.txt", &len);
		if (parse_swap(vm, ev, "4096\n", &r) == 0)
			fail_msg("%s with '%s' accepted", bad[i].file, bad[i].repl ? bad[i].repl : "-");
		if (!strstr(err, bad[i].want))
			fail_msg("%s: error '%s' lacks '%s'", bad[i].file, err, bad[i].want);
		if (vm != t)
			free(vm);
		if (ev != t)
			free(ev);
		free(t);
	}
	/* memory.events without oom_kill (before 4.13): 0, not refused */
	vm = slurp("vmstat-6.1-classic.txt", &len);
	assert_int_equal(parse_swap(vm, "low 0\nhigh 0\nmax 3\noom 0\n", "0\n", &r), 0);
	assert_int_equal(r.oom_kill, 0);
	/* memory.swap.current: one number and a newline, nothing else */
	assert_int_equal(parse_swap(vm, EVENTS, "12 \n", &r), -1);
	assert_int_equal(parse_swap(vm, EVENTS, "12", &r), -1);
	assert_int_equal(parse_swap(vm, EVENTS, "012\n", &r), -1);
	assert_int_equal(parse_swap(vm, EVENTS, "99999999999999999999\n", &r), -1);
	assert_non_null(strstr(err, "memory.swap.current"));
	/* a cut text (no final newline) */
	assert_int_equal(parse_swap(vm, "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0", "0\n", &r), -1);
	assert_non_null(strstr(err, "cut short"));
	/* memory.events without high, max or oom (every kernel with cgroup v2 has them) */
	assert_int_equal(parse_swap(vm, "oom_kill 0\n", "0\n", &r), -1);
	assert_non_null(strstr(err, "no 'high' line"));
	free(vm);
}

static void test_oom_victim(void **state)
{
	static const struct {
		const char *alias, *want;
	} caps[] = { { "6.1", "181 (anon)" }, { "6.12", "230 (anon)" } };
	char name[64], who[64], *text;
	size_t i, len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		snprintf(name, sizeof(name), "kmsg-%s-oom.txt", caps[i].alias);
		text = slurp(name, &len);
		assert_int_equal(oom_victim_parse(text, len, who, sizeof(who)), 0);
		assert_string_equal(who, caps[i].want);
		free(text);
	}
	/* the last of two; a name with what is not printable; hostile or cut forms */
	text = "Killed process 1 (a)\nKilled process 22 (work\x01load)\n";
	assert_int_equal(oom_victim_parse(text, strlen(text), who, sizeof(who)), 0);
	assert_string_equal(who, "22 (work?load)");
	text = "oom-kill: nothing killed\n";
	assert_int_equal(oom_victim_parse(text, strlen(text), who, sizeof(who)), -1);
	text = "Killed process (anon)\n";
	assert_int_equal(oom_victim_parse(text, strlen(text), who, sizeof(who)), -1);
	text = "Killed process 12 (anon";
	assert_int_equal(oom_victim_parse(text, strlen(text), who, sizeof(who)), -1);
	text = "Killed process 12345678901 (x)\n";
	assert_int_equal(oom_victim_parse(text, strlen(text), who, sizeof(who)), -1);
	text = "Killed process 7 (a-name-longer-than-any-comm-the-kernel-keeps)\n";
	assert_int_equal(oom_victim_parse(text, strlen(text), who, sizeof(who)), -1);
	text = "Killed process ";
	assert_int_equal(oom_victim_parse(text, strlen(text), who, sizeof(who)), -1);
}


/* kswapd's utime + stime in the captures (tests/capture_lrugen.sh), 6.1 and 6.12 */
static const uint64_t want_kswapd_ticks[] = { 0, 0 };   /* idle: memcg limits are not its work */

/* ---- the monitors: pressure files and kswapd's stat, real captures and hostile text ---- */

static void test_monitor_captures(void **state)
{
	static const char *const aliases[] = { "6.1", "6.12" };
	char name[64], err2[PROTO_ERR_MAX], *text;
	struct psi p;
	uint64_t ticks;
	size_t i, len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		snprintf(name, sizeof(name), "memory.pressure-%s-classic.txt", aliases[i]);
		text = slurp(name, &len);
		/* the memcg ran a workload twice its size: it stalled */
		if (psi_parse(text, len, &p, err2, sizeof(err2)) < 0)
			fail_msg("%s refused: %s", name, err2);
		assert_true(p.some.present && p.full.present && p.some.total > 0);
		assert_true(p.full.total <= p.some.total);
		free(text);
		snprintf(name, sizeof(name), "pressure.memory-%s-classic.txt", aliases[i]);
		text = slurp(name, &len);
		assert_int_equal(psi_parse(text, len, &p, err2, sizeof(err2)), 0);
		free(text);
		snprintf(name, sizeof(name), "kswapd.stat-%s-classic.txt", aliases[i]);
		text = slurp(name, &len);
		if (sampler_parse_task_stat(text, len, &ticks, err2, sizeof(err2)) < 0)
			fail_msg("%s refused: %s", name, err2);
		assert_int_equal(ticks, want_kswapd_ticks[i]);
		free(text);
	}
}

static void test_task_stat(void **state)
{
	static const struct {
		const char *text;
		long long ticks;   /* -1: refused */
	} cases[] = {
		{ "42 (kswapd0) S 2 0 0 0 -1 2129984 0 0 0 0 7 5 0 0 20 0 1 0 9 0 0\n", 12 },
		/* a command name with ") " and digits in it: only the last ')' counts */
		{ "7 (a) 1 2 3) S 2 0 0 0 -1 0 0 0 0 0 100 23 0 0\n", 123 },
		{ "7 (x) S 2 0 0 0 -1 0 0 0 0 0 1 2", 3 },                 /* no newline: fine */
		{ "7 (x) S 2 0 0 0 -1 0 0 0 0 0 1\n", -1 },                /* no stime */
		{ "7 (x) S 2 0 0 0 -1 0 0 0 0 0 1x 2\n", -1 },             /* utime not a number */
		{ "7 (x) S 2 0 0 0 -1 0 0 0 0 0 -1 2\n", -1 },
		{ "7 (x) S 2 0 0 0 -1 0 0 0 0 0 99999999999999999999 2\n", -1 },
		{ "7 (x) S  2 0 0 0 -1 0 0 0 0 0 1 2\n", -1 },             /* an empty field */
		{ "7 kswapd0 S 2\n", -1 },                                 /* no ')' */
		{ "", -1 },
	};
	char err2[PROTO_ERR_MAX];
	uint64_t ticks;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int rc = sampler_parse_task_stat(cases[i].text, strlen(cases[i].text), &ticks, err2,
						 sizeof(err2));

		if (cases[i].ticks < 0 && rc == 0)
			fail_msg("case %zu accepted: %s", i, cases[i].text);
		if (cases[i].ticks >= 0 && (rc < 0 || ticks != (uint64_t)cases[i].ticks))
			fail_msg("case %zu: rc %d ticks %llu, want %lld (%s)", i, rc,
				 (unsigned long long)ticks, cases[i].ticks, err2);
	}
}

/* The monitors' totals become deltas; one that went backwards is refused. */
static void test_fill_monitors(void **state)
{
	struct sampler_reading prev, now;
	struct proto_sample s;

	(void)state;
	memset(&prev, 0, sizeof(prev));
	memset(&now, 0, sizeof(now));
	prev.memcg_psi_some = 1000;
	now.memcg_psi_some = 251000;
	now.memcg_psi_full = 50000;
	now.psi_some = 260000;
	now.kswapd_ms = 30;
	assert_int_equal(sampler_fill(&now, &prev, &s, err, sizeof(err)), 0);
	assert_int_equal(s.memcg_psi_some_us, 250000);
	assert_int_equal(s.memcg_psi_full_us, 50000);
	assert_int_equal(s.psi_some_us, 260000);
	assert_int_equal(s.psi_full_us, 0);
	assert_int_equal(s.kswapd_ms, 30);
	prev.kswapd_ms = 31;
	assert_int_equal(sampler_fill(&now, &prev, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kswapd's CPU time went backwards"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_6_12),
		cmocka_unit_test(test_stat_order_free),
		cmocka_unit_test(test_stat_refusals),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_swap_captures),
		cmocka_unit_test(test_swap_refusals),
		cmocka_unit_test(test_oom_victim),
		cmocka_unit_test(test_monitor_captures),
		cmocka_unit_test(test_task_stat),
		cmocka_unit_test(test_fill_monitors),
		cmocka_unit_test(test_lru_captures),
		cmocka_unit_test(test_lru_full_values),
		cmocka_unit_test(test_lru_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
