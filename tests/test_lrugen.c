/* test_lrugen.c -- unit tests for common/lrugen.c on real lru_gen, lru_gen_full and
 * memory.stat text of Debian's 6.1 and 6.12 (tests/data/, tests/capture_lrugen.sh):
 * numbers read off the captures, the captures printed back byte for byte by a copy
 * of the kernel's printf formats, every prefix of every capture, and hostile text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "slurp.h"

#include "common/lrugen.h"

#define DATA "tests/data/"
#define PAGE 4096      /* x86_64: memory.stat is in bytes, lru_gen in pages */

static char err[256];

static const char *const captures[] = {
	"lru_gen-6.1.txt", "lru_gen_full-6.1.txt", "lru_gen-6.1-aged.txt",
	"lru_gen_full-6.1-aged.txt", "lru_gen-6.1-evicted.txt", "lru_gen-6.1-disabled.txt",
	"lru_gen-6.12.txt", "lru_gen_full-6.12.txt", "lru_gen-6.12-aged.txt",
	"lru_gen_full-6.12-aged.txt", "lru_gen-6.12-evicted.txt", "lru_gen-6.12-disabled.txt",
};
#define NCAPTURES (sizeof(captures) / sizeof(captures[0]))

/* malloc or abort: the tests' allocations cannot fail quietly. */
static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

static char *slurp(const char *name, size_t *ret_len)
{
	char path[256];

	snprintf(path, sizeof(path), DATA "%s", name);
	return test_slurp(path, ret_len);
}

static struct lrugen_memcg *new_memcg(void)
{
	return xmalloc(sizeof(struct lrugen_memcg));
}

static int is_full(const char *name)
{
	return strstr(name, "lru_gen_full") != NULL;
}

/* lrugen_parse of lru_gen_full (FULL) or lru_gen text for memcg PATH, or, NULL, ID. */
static int parse(const char *buf, size_t len, int full, const char *path, unsigned id,
		 struct lrugen_memcg *m)
{
	struct lrugen_query q = { .full = full, .path = path, .id = id };

	return lrugen_parse(buf, len, &q, m, err, sizeof(err));
}

/* Parse capture NAME for PATH (NULL: id ID); must succeed. */
static struct lrugen_memcg *parse_capture(const char *name, const char *path, unsigned id)
{
	struct lrugen_memcg *m = new_memcg();
	size_t len;
	char *buf = slurp(name, &len);
	int rc = parse(buf, len, is_full(name), path, id, m);

	if (rc != LRUGEN_OK)
		fail_msg("%s: %s", name, err);
	free(buf);
	return m;
}

/* A text parsed from a string; returns the rc, the message in err. */
static int parse_text(const char *text, const char *path, struct lrugen_memcg *m)
{
	return parse(text, strlen(text), 0, path, 0, m);
}

/* lru_gen_full (FULL) or lru_gen TEXT is refused with RC and a one-line message containing WANT. */
static void refuse_as(int full, const char *text, int rc, const char *want)
{
	struct lrugen_memcg *m = new_memcg();
	int got = parse(text, strlen(text), full, "/t", 0, m);

	if (got != rc || !strstr(err, want) || strchr(err, '\n'))
		fail_msg("rc %d (want %d), message '%s' (want '%s')", got, rc, err, want);
	assert_int_equal(m->nnodes, 0);     /* zeroed, never half a result */
	assert_int_equal(m->id, 0);
	free(m);
}

static void refuse(const char *text, int rc, const char *want)
{
	refuse_as(0, text, rc, want);
}

/* One generation as {seq, age_ms, anon, file}. */
struct g4 {
	uint64_t seq;
	uint32_t age;
	uint64_t anon, file;
};

static void assert_gens(const struct lrugen_node *nd, unsigned nid, const struct g4 *want, unsigned n)
{
	unsigned i;

	assert_int_equal(nd->nid, nid);
	assert_int_equal(nd->ngens, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(nd->gen[i].seq, want[i].seq);
		assert_int_equal(nd->gen[i].age_ms, want[i].age);
		assert_int_equal(nd->gen[i].pages[LRUGEN_ANON], want[i].anon);
		assert_int_equal(nd->gen[i].pages[LRUGEN_FILE], want[i].file);
	}
	assert_int_equal(nd->max_seq, want[n - 1].seq);
}

/* ---- the real captures, numbers read off them ---- */

static void test_brief_6_1(void **state)
{
	static const struct g4 t0[] = { { 1, 3064, 0, 2754 }, { 2, 3064, 0, 1024 }, { 3, 3064, 0, 2 } };
	static const struct g4 t1[] = { { 3, 3064, 2935, 0 }, { 4, 872, 0, 0 }, { 5, 868, 1037, 0 } };
	static const struct g4 r1[] = { { 0, 6388, 0, 0 }, { 1, 6388, 0, 0 }, { 2, 6388, 8, 0 },
					{ 3, 6388, 6, 4 } };
	struct lrugen_memcg *m = parse_capture("lru_gen-6.1.txt", "/t", 0);

	(void)state;
	assert_int_equal(m->format, LRUGEN_BRIEF);
	assert_int_equal(m->nmemcgs, 2);
	assert_int_equal(m->id, 2);
	assert_string_equal(m->path, "/t");
	assert_int_equal(m->nnodes, 2);
	assert_gens(&m->node[0], 0, t0, 3);
	assert_gens(&m->node[1], 1, t1, 3);
	/* lru_gen starts at min_seq[anon] and does not show min_seq[file] */
	assert_int_equal(m->node[0].min_seq[LRUGEN_ANON], 1);
	assert_true(m->node[0].min_seq[LRUGEN_FILE] == LRUGEN_SEQ_NONE);
	free(m);
	/* the root memcg by id: "/", every node's four generations since "y" */
	m = parse_capture("lru_gen-6.1.txt", NULL, 1);
	assert_string_equal(m->path, "/");
	assert_int_equal(m->node[0].ngens, 4);
	assert_int_equal(m->node[0].gen[3].pages[LRUGEN_ANON], 558);
	assert_gens(&m->node[1], 1, r1, 4);
	free(m);
}

static void test_brief_6_12(void **state)
{
	static const struct g4 t0[] = { { 1, 3032, 0, 2754 }, { 2, 3032, 0, 1024 }, { 3, 3032, 0, 2 } };
	static const struct g4 t1[] = { { 3, 3032, 2943, 0 }, { 4, 888, 0, 0 }, { 5, 884, 1053, 0 } };
	static const struct g4 r1[] = { { 0, 7080, 0, 0 }, { 1, 7080, 0, 5 }, { 2, 7080, 693, 0 },
					{ 3, 7080, 0, 0 } };
	struct lrugen_memcg *m = parse_capture("lru_gen-6.12.txt", "/t", 0);
	uint64_t file = 0;
	unsigned i;

	(void)state;
	assert_int_equal(m->format, LRUGEN_BRIEF);
	assert_int_equal(m->id, 2);
	assert_gens(&m->node[0], 0, t0, 3);
	assert_gens(&m->node[1], 1, t1, 3);
	for (i = 0; i < m->node[0].ngens; i++)
		file += m->node[0].gen[i].pages[LRUGEN_FILE];
	assert_int_equal(file, 3780);      /* 14.8 MiB of the 64 MiB file's cache on node 0 */
	free(m);
	m = parse_capture("lru_gen-6.12.txt", NULL, 1);
	assert_gens(&m->node[1], 1, r1, 4);
	free(m);
}

static void test_full_6_1(void **state)
{
	struct lrugen_memcg *m = parse_capture("lru_gen_full-6.1.txt", "/t", 0);
	const struct lrugen_node *n0 = &m->node[0], *n1 = &m->node[1];
	const struct lrugen_gen *g;

	(void)state;
	assert_int_equal(m->format, LRUGEN_FULL_6_1);
	assert_string_equal(lrugen_format_name(m->format), "lru_gen_full (6.1)");
	assert_int_equal(m->mm_lines, 1);
	assert_int_equal(m->stats, 0);
	/* the last four seqs; seq 0 evicted for both types ('x'): min_seq = 1 */
	assert_int_equal(n0->ngens, 4);
	assert_int_equal(n0->gen[0].seq, 0);
	assert_true(n0->gen[0].gone[LRUGEN_ANON] && n0->gen[0].gone[LRUGEN_FILE]);
	assert_false(n0->gen[1].gone[LRUGEN_FILE]);
	assert_int_equal(n0->min_seq[LRUGEN_ANON], 1);
	assert_int_equal(n0->min_seq[LRUGEN_FILE], 1);
	/* min_seq's "rep" columns: the 64 MiB file's passes, the 4 MiB one in tiers 2, 3 */
	g = &n0->gen[1];
	assert_int_equal(g->kind[LRUGEN_FILE], LRUGEN_HIST);
	assert_int_equal(g->tier[LRUGEN_FILE][0].refaulted, 32768);
	assert_int_equal(g->tier[LRUGEN_FILE][0].evicted, 46398);
	assert_int_equal(g->tier[LRUGEN_FILE][2].refaulted, 1024);
	assert_int_equal(g->tier[LRUGEN_FILE][2].evicted, 1024);
	assert_int_equal(g->tier[LRUGEN_FILE][3].protected, 1024);
	assert_int_equal(g->tier[LRUGEN_ANON][0].evicted, 0);
	assert_int_equal(n0->gen[2].kind[LRUGEN_FILE], LRUGEN_NONE);
	/* max_seq's "RT" columns and LOYNFA line: no walk of node 0's page tables */
	g = &n0->gen[3];
	assert_int_equal(g->kind[LRUGEN_ANON], LRUGEN_AVG);
	assert_int_equal(g->kind[LRUGEN_FILE], LRUGEN_AVG);
	assert_int_equal(g->mm_kind, LRUGEN_AVG);
	assert_int_equal(g->mm.leaf_total, 0);
	assert_int_equal(n0->gen[2].mm_kind, LRUGEN_NONE);
	/* node 1: the anonymous process, 134 anon pages swapped out of tier 0 */
	assert_int_equal(n1->min_seq[LRUGEN_ANON], 3);
	assert_int_equal(n1->gen[1].pages[LRUGEN_ANON], 2935);
	assert_int_equal(n1->gen[1].tier[LRUGEN_ANON][0].evicted, 134);
	assert_int_equal(n1->gen[1].tier[LRUGEN_ANON][0].refaulted, 0);
	g = &n1->gen[3];
	assert_int_equal(g->seq, 5);
	assert_int_equal(g->mm.leaf_total, 5150);
	assert_int_equal(g->mm.leaf_old, 8);
	assert_int_equal(g->mm.leaf_young, 4106);
	assert_int_equal(g->mm.nonleaf_total, 16);
	assert_int_equal(g->mm.nonleaf_found, 16);
	assert_int_equal(g->mm.nonleaf_added, 9);
	free(m);
}

static void test_full_6_12(void **state)
{
	struct lrugen_memcg *m = parse_capture("lru_gen_full-6.12.txt", "/t", 0);
	const struct lrugen_node *n0 = &m->node[0], *n1 = &m->node[1];
	const struct lrugen_gen *g;

	(void)state;
	assert_int_equal(m->format, LRUGEN_FULL_6_12);
	assert_int_equal(m->mm_lines, 1);
	assert_int_equal(m->stats, 0);
	assert_int_equal(n0->min_seq[LRUGEN_FILE], 1);
	g = &n0->gen[1];
	assert_int_equal(g->tier[LRUGEN_FILE][0].refaulted, 32768);
	assert_int_equal(g->tier[LRUGEN_FILE][0].evicted, 46398);
	assert_int_equal(g->tier[LRUGEN_FILE][3].protected, 1024);
	/* 6.12 refaults the swapped-out anon pages: 1039 of 1150 */
	g = &n1->gen[1];
	assert_int_equal(g->seq, 3);
	assert_int_equal(g->tier[LRUGEN_ANON][0].refaulted, 1039);
	assert_int_equal(g->tier[LRUGEN_ANON][0].evicted, 1150);
	/* TYFA: no old-leaf or non-leaf-total column any more */
	g = &n1->gen[3];
	assert_int_equal(g->mm_kind, LRUGEN_AVG);
	assert_int_equal(g->mm.leaf_total, 5709);
	assert_int_equal(g->mm.leaf_young, 4107);
	assert_int_equal(g->mm.nonleaf_found, 19);
	assert_int_equal(g->mm.nonleaf_added, 8);
	assert_int_equal(g->mm.leaf_old, 0);
	assert_int_equal(g->mm.nonleaf_total, 0);
	free(m);
}

/* seqs rise by one; lru_gen is lru_gen_full's window from min_seq[anon], same pages
 * (the memcg was idle between the two reads). */
static void check_brief_in_full(const char *brief, const char *full)
{
	struct lrugen_memcg *b = parse_capture(brief, "/t", 0), *f = parse_capture(full, "/t", 0);
	unsigned n, i, off;

	assert_int_equal(b->nnodes, f->nnodes);
	for (n = 0; n < b->nnodes; n++) {
		const struct lrugen_node *bn = &b->node[n], *fn = &f->node[n];

		assert_int_equal(bn->max_seq, fn->max_seq);
		assert_int_equal(bn->min_seq[LRUGEN_ANON], fn->min_seq[LRUGEN_ANON]);
		off = fn->ngens - bn->ngens;
		for (i = 0; i < bn->ngens; i++) {
			assert_int_equal(bn->gen[i].seq, fn->gen[off + i].seq);
			assert_memory_equal(bn->gen[i].pages, fn->gen[off + i].pages, sizeof(bn->gen[i].pages));
			if (i)
				assert_int_equal(bn->gen[i].seq, bn->gen[i - 1].seq + 1);
		}
	}
	free(b);
	free(f);
}

static void test_brief_full_agree(void **state)
{
	(void)state;
	check_brief_in_full("lru_gen-6.1.txt", "lru_gen_full-6.1.txt");
	check_brief_in_full("lru_gen-6.12.txt", "lru_gen_full-6.12.txt");
	check_brief_in_full("lru_gen-6.1-aged.txt", "lru_gen_full-6.1-aged.txt");
	check_brief_in_full("lru_gen-6.12-aged.txt", "lru_gen_full-6.12-aged.txt");
}

/* "+ 2 N MAX_SEQ" made seq MAX_SEQ+1 on each node; "- 2 0 1" evicted node 0's seq 1. */
static void check_commands(const char *before, const char *aged, const char *evicted)
{
	struct lrugen_memcg *b = parse_capture(before, "/t", 0), *a = parse_capture(aged, "/t", 0);
	struct lrugen_memcg *e = parse_capture(evicted, "/t", 0);
	unsigned n;

	for (n = 0; n < 2; n++) {
		const struct lrugen_node *an = &a->node[n];

		assert_int_equal(an->max_seq, b->node[n].max_seq + 1);
		assert_int_equal(an->gen[an->ngens - 1].pages[LRUGEN_ANON] +
				 an->gen[an->ngens - 1].pages[LRUGEN_FILE], 0);
		assert_true(an->gen[an->ngens - 1].age_ms < 100);
	}
	assert_int_equal(a->node[0].gen[0].seq, 1);
	assert_int_equal(a->node[0].gen[0].pages[LRUGEN_FILE], 2754);
	assert_int_equal(e->node[0].gen[0].seq, 2);
	assert_int_equal(e->node[0].ngens, 3);
	assert_int_equal(e->node[1].ngens, a->node[1].ngens);     /* node 1 untouched */
	free(b);
	free(a);
	free(e);
}

static void test_commands(void **state)
{
	(void)state;
	check_commands("lru_gen-6.1.txt", "lru_gen-6.1-aged.txt", "lru_gen-6.1-evicted.txt");
	check_commands("lru_gen-6.12.txt", "lru_gen-6.12-aged.txt", "lru_gen-6.12-evicted.txt");
}

/* With lru_gen off ("n") the file is still printed: /c, made after, never aged. */
static void test_disabled(void **state)
{
	static const char *const names[] = { "lru_gen-6.1-disabled.txt", "lru_gen-6.12-disabled.txt" };
	unsigned i, n, g;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct lrugen_memcg *m = parse_capture(names[i], "/c", 0);

		assert_int_equal(m->nmemcgs, 3);
		assert_int_equal(m->id, 3);
		for (n = 0; n < m->nnodes; n++) {
			assert_int_equal(m->node[n].ngens, 4);
			assert_int_equal(m->node[n].max_seq, 3);
			for (g = 0; g < 4; g++)
				assert_int_equal(m->node[n].gen[g].pages[LRUGEN_ANON] +
						 m->node[n].gen[g].pages[LRUGEN_FILE], 0);
		}
		free(m);
	}
}

/* ---- memory.stat ---- */

static struct lrugen_stat parse_stat_capture(const char *name)
{
	struct lrugen_stat st;
	size_t len;
	char *buf = slurp(name, &len);

	if (lrugen_parse_memory_stat(buf, len, &st, err, sizeof(err)) < 0)
		fail_msg("%s: %s", name, err);
	free(buf);
	return st;
}

static void test_stat_captures(void **state)
{
	struct lrugen_stat st;

	(void)state;
	st = parse_stat_capture("memory.stat-6.1-classic.txt");
	assert_int_equal(st.inactive_file, 18006016);
	assert_int_equal(st.active_file, 0);
	assert_int_equal(st.inactive_anon, 9908224);
	assert_int_equal(st.active_anon, 4182016);
	assert_int_equal(st.workingset_refault_file, 49152);
	assert_int_equal(st.workingset_refault_anon, 7);
	assert_int_equal(st.pgscan, 51241);
	assert_int_equal(st.pgsteal, 45430);
	assert_int_equal(st.pgscan_direct, 51241);
	assert_int_equal(st.pgactivate, 1020);
	assert_int_equal(st.pgrefill, 0);
	/* 6.1 has no khugepaged scan counters */
	assert_false(st.have & (UINT32_C(1) << LRUGEN_STAT_pgscan_khugepaged));
	assert_true(st.have & (UINT32_C(1) << LRUGEN_STAT_pgdeactivate));

	st = parse_stat_capture("memory.stat-6.12-classic.txt");
	assert_int_equal(st.inactive_file, 18481152);
	assert_int_equal(st.workingset_refault_file, 49152);
	assert_int_equal(st.workingset_refault_anon, 181);
	assert_int_equal(st.workingset_activate_anon, 2);
	assert_int_equal(st.pgscan, 51474);
	assert_int_equal(st.pgsteal, 45579);
	assert_int_equal(st.pgactivate, 840);
	assert_true(st.have & (UINT32_C(1) << LRUGEN_STAT_pgscan_khugepaged));
	assert_int_equal(st.pgscan_khugepaged, 0);

	st = parse_stat_capture("memory.stat-6.12-mglru.txt");
	assert_int_equal(st.workingset_refault_anon, 1039);
	assert_int_equal(st.workingset_restore_file, 1024);
	assert_int_equal(st.pgrefill, 1025);
	assert_int_equal(st.pgactivate, 2);
}

/*
 * memory.stat under MGLRU, against lru_gen read just before: "active" is the two
 * youngest generations (lru_gen_is_active()), "inactive" the rest, over nodes.
 * And what these captures show but the kernel does not promise: the file
 * refaults all landed while min_seq stayed put (the RT averages are still 0),
 * so min_seq's "rep" refaulted columns add up to workingset_refault_*;
 * reset_ctrl_pos() restarts them whenever min_seq moves on.
 */
static void check_stat_vs_lru_gen(const char *stat, const char *brief, const char *full)
{
	struct lrugen_stat st = parse_stat_capture(stat);
	struct lrugen_memcg *b = parse_capture(brief, "/t", 0), *f = parse_capture(full, "/t", 0);
	uint64_t act[LRUGEN_NTYPES] = { 0 }, inact[LRUGEN_NTYPES] = { 0 }, refault[LRUGEN_NTYPES] = { 0 };
	unsigned n, i, t, k;

	for (n = 0; n < b->nnodes; n++)
		for (i = 0; i < b->node[n].ngens; i++)
			for (t = 0; t < LRUGEN_NTYPES; t++)
				*(b->node[n].gen[i].seq + 1 >= b->node[n].max_seq ? &act[t] : &inact[t]) +=
					b->node[n].gen[i].pages[t] * PAGE;
	assert_int_equal(st.active_anon, act[LRUGEN_ANON]);
	assert_int_equal(st.inactive_anon, inact[LRUGEN_ANON]);
	assert_int_equal(st.active_file, act[LRUGEN_FILE]);
	assert_int_equal(st.inactive_file, inact[LRUGEN_FILE]);
	for (n = 0; n < f->nnodes; n++)
		for (i = 0; i < f->node[n].ngens; i++)
			for (t = 0; t < LRUGEN_NTYPES; t++)
				for (k = 0; k < LRUGEN_TIERS && f->node[n].gen[i].kind[t] == LRUGEN_HIST; k++)
					refault[t] += f->node[n].gen[i].tier[t][k].refaulted;
	assert_int_equal(st.workingset_refault_anon, refault[LRUGEN_ANON]);
	assert_int_equal(st.workingset_refault_file, refault[LRUGEN_FILE]);
	free(b);
	free(f);
}

static void test_stat_vs_lru_gen(void **state)
{
	(void)state;
	check_stat_vs_lru_gen("memory.stat-6.1-mglru.txt", "lru_gen-6.1.txt", "lru_gen_full-6.1.txt");
	check_stat_vs_lru_gen("memory.stat-6.12-mglru.txt", "lru_gen-6.12.txt", "lru_gen_full-6.12.txt");
}

static void stat_refuse(const char *text, const char *want)
{
	struct lrugen_stat st;

	assert_int_equal(lrugen_parse_memory_stat(text, strlen(text), &st, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("message '%s', want '%s'", err, want);
	assert_int_equal(st.have, 0);
}

/* The 6.1 capture with line KEY's value replaced by REPL ("" drops the line). */
static char *stat_with(const char *key, const char *repl)
{
	size_t len, klen = strlen(key);
	char *buf = slurp("memory.stat-6.1-mglru.txt", &len), *out = xmalloc(len + 64), *l, *nl;
	out[0] = '\0';
	for (l = buf; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if ((size_t)(nl - l) > klen && !memcmp(l, key, klen) && l[klen] == ' ') {
			if (*repl)
				sprintf(out + strlen(out), "%s %s\n", key, repl);
			continue;
		}
		strncat(out, l, (size_t)(nl - l) + 1);
	}
	free(buf);
	return out;
}

static void stat_refuse_with(const char *key, const char *repl, const char *want)
{
	char *text = stat_with(key, repl);

	stat_refuse(text, want);
	free(text);
}

static void test_stat_refusals(void **state)
{
	size_t len;
	char *buf = slurp("memory.stat-6.1-mglru.txt", &len), *text;
	struct lrugen_stat st;

	(void)state;
	stat_refuse_with("pgrefill", "", "no 'pgrefill' line");
	stat_refuse_with("pgscan", "18446744073709551616", "line 33: the value is out of range");
	stat_refuse_with("pgscan", "-1", "not a decimal number");
	stat_refuse_with("pgscan", "007", "leading zero");
	stat_refuse_with("pgscan", "1 2", "not a decimal number");
	stat_refuse_with("pgscan", "", "no 'pgscan' line");
	stat_refuse_with("anon", "12\r", "not a decimal number");    /* a key not kept is checked too */
	stat_refuse("", "no 'inactive_anon' line");
	stat_refuse("Active_file 1\n", "expected 'KEY VALUE'");
	stat_refuse("active_file  1\n", "not a decimal number");
	stat_refuse("active_file\n", "expected 'KEY VALUE'");
	/* the largest value, keys in any order and unknown keys are fine */
	text = stat_with("pgscan", "18446744073709551615");
	strcat(text, "some_future_key 5\n");
	assert_int_equal(lrugen_parse_memory_stat(text, strlen(text), &st, err, sizeof(err)), 0);
	assert_true(st.pgscan == UINT64_MAX);
	free(text);
	/* twice, and cut before the last newline */
	text = xmalloc(len + 32);
	memcpy(text, buf, len);
	memcpy(text + len, "pgsteal 1\n", 11);
	stat_refuse(text, "line 48: a key given twice");
	assert_int_equal(lrugen_parse_memory_stat(text, len - 1, &st, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no newline at the end"));
	free(text);
	free(buf);
}

/* ---- the kernel's printf formats, to print a parsed memcg back ---- */

struct sbuf {
	char *p;
	size_t len, cap;
};

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* lru_gen_seq_show_full()'s tier and mm lines of generation G. */
static void print_full(struct sbuf *b, const struct lrugen_memcg *m, const struct lrugen_gen *g)
{
	int v61 = m->format == LRUGEN_FULL_6_1;
	const char *fill3 = v61 ? "   " : "xxx", *rt = v61 ? "RT " : "RTx";
	const char *mmfill = v61 ? "      " : "xxxx";
	const char *mm = g->mm_kind == LRUGEN_AVG ? (v61 ? "LOYNFA" : "TYFA") :
			 g->mm_kind == LRUGEN_HIST ? (v61 ? "loynfa" : "tyfa") : mmfill;
	uint64_t v61mm[] = { g->mm.leaf_total, g->mm.leaf_old, g->mm.leaf_young,
			     g->mm.nonleaf_total, g->mm.nonleaf_found, g->mm.nonleaf_added };
	uint64_t v612mm[] = { g->mm.leaf_total, g->mm.leaf_young, g->mm.nonleaf_found,
			      g->mm.nonleaf_added };
	unsigned tier, t, i;

	for (tier = 0; tier < LRUGEN_TIERS; tier++) {
		put(b, "            %10d", tier);
		for (t = 0; t < LRUGEN_NTYPES; t++) {
			const struct lrugen_tier *tr = &g->tier[t][tier];
			const char *s = g->kind[t] == LRUGEN_AVG ? rt : g->kind[t] == LRUGEN_HIST ? "rep" : fill3;
			uint64_t n[3] = { 0, 0, 0 };

			if (g->kind[t] == LRUGEN_AVG) {
				n[0] = tr->avg_refaulted;
				n[1] = tr->avg_total;
			} else if (g->kind[t] == LRUGEN_HIST) {
				n[0] = tr->refaulted;
				n[1] = tr->evicted;
				n[2] = tr->protected;
			}
			for (i = 0; i < 3; i++)
				put(b, " %10lu%c", (unsigned long)n[i], s[i]);
		}
		put(b, "\n");
	}
	if (!m->mm_lines)
		return;
	put(b, "                      ");
	for (i = 0; i < (v61 ? 6u : 4u); i++)
		put(b, " %10lu%c", (unsigned long)(v61 ? v61mm[i] : v612mm[i]), mm[i]);
	put(b, "\n");
}

/* lru_gen_seq_show() for every node of M. */
static void print_memcg(struct sbuf *b, const struct lrugen_memcg *m)
{
	int full = m->format != LRUGEN_BRIEF;
	unsigned n, i, t;

	put(b, "memcg %5hu %s\n", (unsigned short)m->id, m->path);
	for (n = 0; n < m->nnodes; n++) {
		put(b, " node %5d\n", (int)m->node[n].nid);
		for (i = 0; i < m->node[n].ngens; i++) {
			const struct lrugen_gen *g = &m->node[n].gen[i];

			put(b, " %10lu %10u", (unsigned long)g->seq, g->age_ms);
			for (t = 0; t < LRUGEN_NTYPES; t++)
				put(b, " %10lu%c", (unsigned long)g->pages[t], full && g->gone[t] ? 'x' : ' ');
			put(b, "\n");
			if (full)
				print_full(b, m, g);
		}
	}
}

/* Every capture, each memcg parsed by id (they are in id order) and printed back:
 * the same bytes, so every number the parser keeps is the one the kernel printed. */
static void test_print_back(void **state)
{
	unsigned c, id;

	(void)state;
	for (c = 0; c < NCAPTURES; c++) {
		struct sbuf b = { 0 };
		struct lrugen_memcg *m = new_memcg();
		size_t len;
		char *buf = slurp(captures[c], &len);

		for (id = 0; id < 8; id++)
			if (parse(buf, len, is_full(captures[c]), NULL, id, m) == LRUGEN_OK)
				print_memcg(&b, m);
			else
				assert_non_null(strstr(err, "no memcg"));
		if (b.len != len || memcmp(b.p, buf, len))
			fail_msg("%s printed back differs", captures[c]);
		free(b.p);
		free(buf);
		free(m);
	}
}

/* ---- every prefix of every capture: all of it, or an error ---- */

static void assert_same_gen(const struct lrugen_gen *a, const struct lrugen_gen *b)
{
	unsigned t, k;

	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->age_ms, b->age_ms);
	assert_int_equal(a->mm_kind, b->mm_kind);
	assert_memory_equal(&a->mm, &b->mm, sizeof(a->mm));
	for (t = 0; t < LRUGEN_NTYPES; t++) {
		assert_int_equal(a->pages[t], b->pages[t]);
		assert_int_equal(a->gone[t], b->gone[t]);
		assert_int_equal(a->kind[t], b->kind[t]);
		for (k = 0; k < LRUGEN_TIERS; k++)
			assert_memory_equal(&a->tier[t][k], &b->tier[t][k], sizeof(a->tier[t][k]));
	}
}

/* A prefix's result P against the whole text's W: whole nodes, lru_gen's last one
 * possibly fewer generations (a cut at a line's end there cannot be seen). */
static void assert_prefix_of(const struct lrugen_memcg *p, const struct lrugen_memcg *w)
{
	unsigned n, i;

	assert_int_equal(p->id, w->id);
	assert_string_equal(p->path, w->path);
	assert_int_equal(p->format, w->format);
	assert_true(p->nnodes >= 1 && p->nnodes <= w->nnodes);
	for (n = 0; n < p->nnodes; n++) {
		const struct lrugen_node *pn = &p->node[n], *wn = &w->node[n];
		int last = n + 1 == p->nnodes;

		assert_int_equal(pn->nid, wn->nid);
		if (!last || w->format != LRUGEN_BRIEF)
			assert_int_equal(pn->ngens, wn->ngens);
		assert_true(pn->ngens >= 1 && pn->ngens <= wn->ngens);
		for (i = 0; i < pn->ngens; i++)
			assert_same_gen(&pn->gen[i], &wn->gen[i]);
		assert_int_equal(pn->max_seq, pn->gen[pn->ngens - 1].seq);
		assert_int_equal(pn->min_seq[LRUGEN_ANON], wn->min_seq[LRUGEN_ANON]);
	}
}

static void check_prefixes(const char *name, const char *path, unsigned id)
{
	struct lrugen_memcg *w = new_memcg(), *p = new_memcg();
	size_t len, l;
	char *buf = slurp(name, &len), *cut;
	int rc;

	assert_int_equal(parse(buf, len, is_full(name), path, id, w), LRUGEN_OK);
	for (l = 0; l < len; l++) {
		cut = xmalloc(l + 1);        /* its own allocation: ASan sees a read past L */
		memcpy(cut, buf, l);
		rc = parse(cut, l, is_full(name), path, id, p);
		if (rc == LRUGEN_OK) {
			assert_true(l > 0 && buf[l - 1] == '\n');
			assert_prefix_of(p, w);
		} else {
			if (rc != LRUGEN_EBAD && rc != LRUGEN_ENOMEMCG)
				fail_msg("%s cut at %zu: rc %d: %s", name, l, rc, err);
			assert_true(err[0] && !strchr(err, '\n'));
			assert_int_equal(p->nnodes, 0);
		}
		free(cut);
	}
	free(buf);
	free(w);
	free(p);
}

static void test_prefixes(void **state)
{
	unsigned c;

	(void)state;
	for (c = 0; c < NCAPTURES; c++) {
		check_prefixes(captures[c], "/t", 0);
		check_prefixes(captures[c], NULL, 1);
	}
}

/* ---- hostile text ---- */

/* A brief text: the root memcg, node 0, generations 7 and 8; %s replaced by EXTRA lines. */
#define ROOT "memcg     1 /\n node     0\n          7       1000        100         200 \n" \
	     "          8         10          1           2 \n"

static void test_hostile_numbers(void **state)
{
	struct lrugen_memcg *m = new_memcg();

	(void)state;
	assert_int_equal(parse_text(ROOT, "/", m), LRUGEN_OK);
	assert_int_equal(m->node[0].gen[1].pages[LRUGEN_FILE], 2);
	/* the largest seq and page counts; then one past them */
	assert_int_equal(parse_text("memcg     1 /\n node     0\n 18446744073709551615 4294967295"
				    " 18446744073709551615  18446744073709551615 \n", "/", m), LRUGEN_OK);
	assert_true(m->node[0].max_seq == UINT64_MAX);
	assert_int_equal(m->node[0].gen[0].age_ms, UINT32_MAX);
	refuse("memcg     2 /t\n node     0\n 18446744073709551616          1          0           0 \n",
	       LRUGEN_EBAD, "line 3: the seq at column 2 is out of range");
	refuse("memcg     2 /t\n node     0\n          1 4294967296          0           0 \n",
	       LRUGEN_EBAD, "the age in ms at column 13 is out of range");
	refuse("memcg     2 /t\n node     0\n 18446744073709551615          1          0           0 \n"
	       "          0          1          0           0 \n", LRUGEN_EBAD, "line 4: seq 0 after seq");
	refuse("memcg 65536 /t\n node     0\n          1          1          0           0 \n",
	       LRUGEN_EBAD, "line 1: the memcg id");
	refuse("memcg     2 /t\n node 65536\n          1          1          0           0 \n",
	       LRUGEN_EBAD, "line 2: the node id");
	refuse("memcg     2 /t\n node     0\n         -1          1          0           0 \n",
	       LRUGEN_EBAD, "expected the seq, a number");
	refuse("memcg     2 /t\n node     0\n          1          1         -0           0 \n",
	       LRUGEN_EBAD, "expected the anon pages");
	refuse("memcg     2 /t\n node     0\n         01          1          0           0 \n",
	       LRUGEN_EBAD, "leading zero");
	refuse("memcg     2 /t\n node     0\n        1          1          0           0 \n",
	       LRUGEN_EBAD, "not right-aligned in 10 columns");
	refuse("memcg     2 /t\n node     0\n          1          1          0          0 \n",
	       LRUGEN_EBAD, "the file pages at column 36 is not right-aligned");
	refuse("memcg     2 /t\n node     0\n          1          1          0 \n",
	       LRUGEN_EBAD, "line 3: expected a space at column 35");
	refuse("memcg     2 /t\n node     0\n          1          1          0           0\n",
	       LRUGEN_EBAD, "expected a letter or filler after the number at column 46");
	refuse("memcg     2 /t\n node     0\n          1          1          0           0 7\n",
	       LRUGEN_EBAD, "unexpected text at column 47");
	refuse("memcg     2 /t\n node     0\n          1          1          0           0 \r\n",
	       LRUGEN_EBAD, "unexpected text");
	refuse("memcg     2 /t\n node     0\n          1          1          0           0q\n",
	       LRUGEN_EBAD, "marked ' ' or 'x', not 'q'");
	free(m);
}

static void test_hostile_structure(void **state)
{
	static const char nomemcg[] = "memcg     0 \n node     0\n          7       1000        100         200 \n";
	struct lrugen_memcg *m = new_memcg();

	(void)state;
	refuse("", LRUGEN_EBAD, "line 0: no text");
	refuse("\n", LRUGEN_EBAD, "line 1: expected 'memcg ID PATH'");
	refuse(" node     0\n", LRUGEN_EBAD, "line 1: expected 'memcg ID PATH'");
	refuse(ROOT "memcg     2 /t\n", LRUGEN_EBAD, "line 5: the text ends where ' node NID' belongs");
	refuse(ROOT "memcg     2 /t\n node     0\n", LRUGEN_EBAD, "ends where a generation belongs");
	refuse(ROOT "memcg     2 /t\n node     0\n          1          1          0           0 ",
	       LRUGEN_EBAD, "line 7: no newline at the end");
	refuse(ROOT "memcg     2 /t\n node     0\n          1          1          0           0 \n"
	       "          3          1          0           0 \n", LRUGEN_EBAD, "seq 3 after seq 1");
	refuse(ROOT "memcg     2 /t\n node     0\n          1          1          0x          0 \n",
	       LRUGEN_EBAD, "'x' marks in lru_gen");
	refuse(ROOT "memcg     2 t\n", LRUGEN_EBAD, "a path must start with '/'");
	refuse(ROOT "memcg     2 \n", LRUGEN_EBAD, "a path must start with '/'");
	refuse(ROOT "memcg     2 /t\n node     0\n          1          1          0           0 \n"
	       "memcg     3 /t\n", LRUGEN_EBAD, "line 8: memcg 3 is the second memcg asked for (ids 2 and 3)");
	/* nodes rise, and every memcg has the first one's */
	refuse(ROOT " node     0\n", LRUGEN_EBAD, "line 5: node 0 after node 0 in memcg 1");
	refuse(ROOT "memcg     2 /t\n node     1\n          1          1          0           0 \n",
	       LRUGEN_EBAD, "memcg 2 has other nodes than the first memcg");
	refuse(ROOT "memcg     2 /t\n node     0\n", LRUGEN_EBAD, "text cut short?");
	/* the memcg asked for is absent: said so, not an error in the text */
	assert_int_equal(parse_text(ROOT, "/t", m), LRUGEN_ENOMEMCG);
	assert_string_equal(err, "no memcg '/t' in the text");
	assert_int_equal(parse(ROOT, strlen(ROOT), 0, NULL, 99, m), LRUGEN_ENOMEMCG);
	assert_string_equal(err, "no memcg 99 in the text");
	/* no memcg at all (cgroup_disable=memory): id 0, empty path */
	assert_int_equal(parse(nomemcg, strlen(nomemcg), 0, NULL, 0, m), LRUGEN_OK);
	assert_string_equal(m->path, "");
	refuse("memcg     0 /\n", LRUGEN_EBAD, "only memcg 0, no memcg, has none");
	free(m);
}

/* N nodes of one generation each under memcg /t. */
static char *many_nodes(unsigned n)
{
	struct sbuf b = { 0 };
	unsigned i;

	put(&b, "memcg     2 /t\n");
	for (i = 0; i < n; i++)
		put(&b, " node %5d\n          1          1          0           0 \n", (int)i);
	return b.p;
}

static void test_hostile_sizes(void **state)
{
	struct lrugen_memcg *m = new_memcg();
	struct sbuf b = { 0 };
	char *text;
	unsigned i;

	(void)state;
	text = many_nodes(8);
	assert_int_equal(parse_text(text, "/t", m), LRUGEN_OK);
	assert_int_equal(m->nnodes, 8);
	free(text);
	text = many_nodes(10000);
	refuse(text, LRUGEN_EBAD, "line 18: memcg 2 has more than 8 nodes");
	free(text);
	/* generations: at most 8 in lru_gen */
	put(&b, "memcg     2 /t\n node     0\n");
	for (i = 0; i < 9; i++)
		put(&b, " %10u %10u %10u  %10u \n", i, 1u, 0u, 0u);
	refuse(b.p, LRUGEN_EBAD, "line 11: node 0 has more than 8 generations");
	free(b.p);
	/* the longest path, one byte more, a line far too long */
	text = xmalloc(8000);
	memset(text, 'a', 8000);
	memcpy(text, "memcg     2 /", 13);
	strcpy(text + 12 + 4095, "\n node     0\n          1          1          0           0 \n");
	assert_int_equal(parse(text, strlen(text), 0, NULL, 2, m), LRUGEN_OK);
	assert_int_equal(strlen(m->path), 4095);
	memset(text + 13, 'a', 4096);
	strcpy(text + 12 + 4096, "\n node     0\n");
	refuse(text, LRUGEN_EBAD, "the memcg path is longer than 4095 bytes");
	memset(text, ' ', 7998);
	text[7998] = '\n';
	text[7999] = '\0';
	refuse(text, LRUGEN_EBAD, "line 1: longer than 4128 bytes");
	/* a path's bytes are kept as they are; a NUL is refused */
	assert_int_equal(parse_text("memcg     2 /caf\xc3\xa9 \x01\n node     0\n"
				    "          1          1          0           0 \n", "/caf\xc3\xa9 \x01", m), LRUGEN_OK);
	memcpy(text, "memcg     2 /t\0x\n", 17);
	assert_int_equal(parse(text, 17, 0, "/t", 0, m), LRUGEN_EBAD);
	assert_non_null(strstr(err, "line 1: a NUL byte"));
	free(text);
	free(m);
}

/* The 6.1 capture's lines edited: fillers, letters, counters where there are none. */
static char *full_with(const char *name, const char *from, const char *to)
{
	size_t len;
	char *buf = slurp(name, &len), *at = strstr(buf, from), *out;

	assert_non_null(at);
	out = xmalloc(len + strlen(to) + 1);
	memcpy(out, buf, (size_t)(at - buf));
	strcpy(out + (at - buf), to);
	strcat(out, at + strlen(from));
	free(buf);
	return out;
}

static void refuse_edit(const char *name, const char *from, const char *to, int rc, const char *want)
{
	char *text = full_with(name, from, to);

	refuse_as(1, text, rc, want);
	free(text);
}

#define TIER0_61  "                     0          0           0           0           0           0           0 \n"
#define MM_61     "                                0           0           0           0           0           0 \n"
#define MMMAX_61  "                                0L          0O          0Y          0N          0F          0A\n"
#define MMMAX_612 "                                0T          0Y          0F          0A\n"

static void test_hostile_full(void **state)
{
	static const char f61[] = "lru_gen_full-6.1.txt", f612[] = "lru_gen_full-6.12.txt";
	struct lrugen_memcg *m = parse_capture(f61, "/t", 0);
	struct sbuf b = { 0 };

	(void)state;
	/* 'x' marks only the oldest seqs */
	m->node[0].gen[0].gone[LRUGEN_FILE] = 0;
	m->node[0].gen[1].gone[LRUGEN_FILE] = 1;
	print_memcg(&b, m);
	refuse_as(1, b.p, LRUGEN_EBAD, "node 0: 'x' at seq 1 after an unmarked generation");
	free(b.p);
	free(m);
	/* counters in empty columns, letters of no kernel, fillers of the other one */
	refuse_edit(f61, TIER0_61, "                     0          0           0           0           5           0           0 \n",
		    LRUGEN_EBAD, "line 10: numbers in tier columns without letters");
	refuse_edit(f61, TIER0_61, "                     0          0q          0q          0q          0           0           0 \n",
		    LRUGEN_EFORMAT, "unknown format: filler 'q'");
	refuse_edit(f61, TIER0_61, "                     0          0r          0T          0p          0           0           0 \n",
		    LRUGEN_EFORMAT, "unknown format: tier columns 'rTp'");
	refuse_edit(f61, TIER0_61, "                     0          0x          0x          0x          0           0           0 \n",
		    LRUGEN_EBAD, "lru_gen_full (6.12) columns after lru_gen_full (6.1) ones");
	refuse_edit(f61, TIER0_61, "                     1          0           0           0           0           0           0 \n",
		    LRUGEN_EBAD, "line 10: tier 1 where tier 0 belongs");
	refuse_edit(f61, MM_61, "                                0           0           0           0           0 \n",
		    LRUGEN_EFORMAT, "unknown format: 5 mm walk columns");
	refuse_edit(f61, MM_61, "                                1           0           0           0           0           0 \n",
		    LRUGEN_EBAD, "a number in an mm walk column without a letter");
	refuse_edit(f61, MMMAX_61, "                                0L          0O          0Y          0N          0F          0B\n",
		    LRUGEN_EFORMAT, "unknown format: mm walk letters 'LOYNFB'");
	refuse_edit(f61, MMMAX_61, "                                0l          0o          0y          0n          0f          0a\n",
		    LRUGEN_EBAD, "node 0: the mm walk letters of seq 3 belong to another seq");
	refuse_edit(f61, MM_61, "", LRUGEN_EBAD, "has an mm walk line after every generation's tiers");
	refuse_edit(f61, MM_61, "                     4          0           0           0           0           0           0 \n" MM_61,
		    LRUGEN_EFORMAT, "unknown format: more than 4 tiers");
	refuse_edit(f612, MMMAX_612, "                                0T          0Y          0F          0A          0B\n",
		    LRUGEN_EFORMAT, "unknown format: 5 mm walk columns");
	refuse_edit(f612, MMMAX_612, "", LRUGEN_EBAD, "line 26: expected the mm walk line after tier 3");
	/* rep and RT where the kernel puts them only */
	refuse_edit(f61, "          1       3076          0        2754 \n                     0          0r          0e          0p",
		    "          1       3076          0        2754 \n                     0          0r          0e          5p",
		    LRUGEN_EBAD, "protected pages in tier 0");
	refuse_edit(f61, "          0       3076          0x          0x", "          0       3076          0           0x",
		    LRUGEN_EBAD, "node 0: min_seq 0 without its rep columns");
	refuse_edit(f61, "          2       3076          0x          0x", "          2       3076          0x          0 ",
		    LRUGEN_EBAD, "node 1: min_seq 2 without its rep columns");
	refuse_edit(f61, "          3       3076          0           2 \n                     0          0R          0T          0 ",
		    "          3       3076          0           2 \n                     0          0R          0T          1 ",
		    LRUGEN_EBAD, "a number in the column after RT");
	refuse_edit(f61, "          3       3076          0           2 \n                     0          0R          0T          0           0R          0T          0 \n"
		    "                     1          0R          0T          0 ",
		    "          3       3076          0           2 \n                     0          0R          0T          0           0R          0T          0 \n"
		    "                     1          0r          0e          0p",
		    LRUGEN_EBAD, "tier 1's columns unlike tier 0's");
	/* a generation cut out of lru_gen_full's window */
	refuse_edit(f61, "          2       3076          0        1024 \n" TIER0_61
		    "                     1          0           0           0           0           0           0 \n"
		    "                     2          0           0           0           0           0           0 \n"
		    "                     3          0           0           0           0           0           0 \n" MM_61,
		    "", LRUGEN_EBAD, "seq 3 after seq 1");
}

/* The captures with bytes overwritten at random: any answer but a crash or a sanitizer report. */
static void test_hostile_bytes(void **state)
{
	struct lrugen_memcg *m = new_memcg();
	uint64_t x = 0x9e3779b97f4a7c15;
	unsigned c, round, k;
	int rc;

	(void)state;
	for (c = 0; c < NCAPTURES; c++) {
		size_t len;
		char *buf = slurp(captures[c], &len), *t = xmalloc(len);
		for (round = 0; round < 300; round++) {
			memcpy(t, buf, len);
			for (k = 0; k <= round % 4; k++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				t[(x >> 8) % len] = (char)(x >> 56);
			}
			rc = parse(t, len, is_full(captures[c]), "/t", 0, m);
			assert_true(rc == LRUGEN_OK || (err[0] && !strchr(err, '\n')));
		}
		/* pure noise */
		for (k = 0; k < len; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			t[k] = (char)x;
		}
		assert_int_not_equal(parse(t, len, is_full(captures[c]), "/t", 0, m), LRUGEN_OK);
		free(t);
		free(buf);
	}
	free(m);
}

/* CONFIG_LRU_GEN_STATS and 6.12 without CONFIG_LRU_GEN_WALKS_MMU, which Debian does not
 * build: a capture edited as those kernels print it, printed, parsed back. */
static void check_variant(const char *name, int stats, int mm)
{
	struct lrugen_memcg *m = parse_capture(name, "/t", 0), *back = new_memcg();
	struct sbuf b = { 0 };
	unsigned n, i, t, k;

	m->stats = stats;
	m->mm_lines = mm;
	for (n = 0; n < m->nnodes; n++)
		for (i = 0; i < m->node[n].ngens; i++) {
			struct lrugen_gen *g = &m->node[n].gen[i];
			int is_max = i + 1 == m->node[n].ngens;

			if (stats && !is_max) {
				g->mm_kind = LRUGEN_HIST;
				g->mm.leaf_total = 100 + i;
				for (t = 0; t < LRUGEN_NTYPES; t++) {
					g->kind[t] = LRUGEN_HIST;
					for (k = 0; k < LRUGEN_TIERS; k++)
						g->tier[t][k].evicted = 10 * i + k;
				}
			}
			if (!mm || (stats && is_max)) {
				g->mm_kind = LRUGEN_NONE;
				memset(&g->mm, 0, sizeof(g->mm));
			}
		}
	print_memcg(&b, m);
	if (parse(b.p, b.len, 1, "/t", 0, back) != LRUGEN_OK)
		fail_msg("%s stats %d mm %d: %s", name, stats, mm, err);
	assert_int_equal(back->stats, stats);
	assert_int_equal(back->mm_lines, mm);
	assert_int_equal(back->format, m->format);
	assert_prefix_of(back, m);
	assert_int_equal(back->node[1].gen[0].tier[LRUGEN_FILE][3].evicted, stats ? 3 : 0);
	free(b.p);
	free(m);
	free(back);
}

static void test_variants(void **state)
{
	(void)state;
	check_variant("lru_gen_full-6.1.txt", 1, 1);
	check_variant("lru_gen_full-6.12.txt", 1, 1);
	check_variant("lru_gen_full-6.12.txt", 0, 0);
	check_variant("lru_gen_full-6.12.txt", 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_brief_6_1),
		cmocka_unit_test(test_brief_6_12),
		cmocka_unit_test(test_full_6_1),
		cmocka_unit_test(test_full_6_12),
		cmocka_unit_test(test_brief_full_agree),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_disabled),
		cmocka_unit_test(test_stat_captures),
		cmocka_unit_test(test_stat_vs_lru_gen),
		cmocka_unit_test(test_stat_refusals),
		cmocka_unit_test(test_print_back),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_hostile_numbers),
		cmocka_unit_test(test_hostile_structure),
		cmocka_unit_test(test_hostile_sizes),
		cmocka_unit_test(test_hostile_full),
		cmocka_unit_test(test_hostile_bytes),
		cmocka_unit_test(test_variants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
