/* lrugen.h -- strict parsers of the multi-gen LRU's debugfs text (lru_gen, lru_gen_full)
 * and of a memcg's memory.stat LRU counters: text in, bounded structs out, no I/O. */
#ifndef LRUGEN_H
#define LRUGEN_H

#include <stddef.h>
#include <stdint.h>

/*
 * The grammar is mm/vmscan.c's lru_gen_seq_show() and lru_gen_seq_show_full()
 * of Debian's linux-source 6.1.192-3 (lines 5584-5638, 5532-5581) and
 * 6.12.117-1~deb12u1 (5338-5392, 5282-5335), identical but for the full
 * file's fillers and mm walk columns: for every memcg, for every node with memory,
 *
 *   "memcg %5hu %s\n"      id, cgroup path (at the first node only; "" if no memcg)
 *   " node %5d\n"
 *   per generation, oldest first: " %10lu %10u" seq, age_ms, then for anon and
 *     file " %10lu%c": pages, and (lru_gen_full only) 'x' if seq < min_seq[type];
 *     lru_gen shows min_seq[anon]..max_seq, lru_gen_full the last MAX_NR_GENS seqs
 *   lru_gen_full only, per generation: MAX_NR_TIERS lines "            %10d" tier,
 *     then for anon and file three " %10lu%c" (see struct lrugen_tier), and one
 *     line of mm walk counters "                      " + N x " %10lu%c" (6.1:
 *     N = 6, letters LOYNFA; 6.12: N = 4, TYFA, the line absent without
 *     CONFIG_LRU_GEN_WALKS_MMU).
 *
 * Every field is checked at its exact width; any line not of this grammar, a
 * number beyond its type, too many nodes or generations, a text cut short, or
 * counters where the kernel prints none is an error naming the line.
 */
#define LRUGEN_MAX_NODES  8         /* nodes kept per memcg (more: error) */
#define LRUGEN_MAX_GENS   8         /* lru_gen generations per node; the kernel
                                     * shows MAX_NR_GENS (4) at most */
#define LRUGEN_FULL_GENS  4         /* MAX_NR_GENS: lru_gen_full's window */
#define LRUGEN_TIERS      4         /* MAX_NR_TIERS */
#define LRUGEN_PATH_MAX   4096      /* PATH_MAX: a cgroup path, NUL included */
#define LRUGEN_LINE_MAX   (LRUGEN_PATH_MAX + 32)
#define LRUGEN_SEQ_NONE   UINT64_MAX

enum lrugen_rc {
	LRUGEN_OK        =  0,
	LRUGEN_EBAD      = -1,   /* not text the kernel writes: cut, garbled, out of range */
	LRUGEN_EFORMAT   = -2,   /* lru_gen's shape, but of no kernel known here: warn */
	LRUGEN_ENOMEMCG  = -3,   /* well-formed, without the memcg asked for */
};

enum lrugen_type { LRUGEN_ANON, LRUGEN_FILE, LRUGEN_NTYPES };

/* Which file, and for lru_gen_full which kernel's columns. */
enum lrugen_format {
	LRUGEN_BRIEF,            /* lru_gen: generations only (same in 6.1 and 6.12) */
	LRUGEN_FULL_6_1,         /* lru_gen_full, fillers ' ', mm walk LOYNFA */
	LRUGEN_FULL_6_12,        /* lru_gen_full, fillers 'x', mm walk TYFA or none */
};

/* What a tier line shows for one type in one generation (lru_gen_full). */
enum lrugen_kind {
	LRUGEN_NONE,             /* fillers, zeros: nothing kept for this generation */
	LRUGEN_AVG,              /* "RT": seq == max_seq, the moving averages */
	LRUGEN_HIST,             /* "rep": seq == min_seq[type], or every seq but
	                          * max_seq with CONFIG_LRU_GEN_STATS */
};

/*
 * One tier of one type (struct lru_gen_folio, include/linux/mmzone.h): pages
 * accessed N times through file descriptors are in tier order_base_2(N).
 * LRUGEN_HIST ("rep"): refaulted[hist][type][tier], evicted[hist][type][tier],
 * protected[hist][type][tier - 1] (0 at tier 0). LRUGEN_AVG ("RT"):
 * avg_refaulted[type][tier], avg_total[type][tier] (the moving average of
 * evicted + protected), the third column always 0. Pages, not bytes.
 */
struct lrugen_tier {
	uint64_t refaulted, evicted, protected;     /* LRUGEN_HIST */
	uint64_t avg_refaulted, avg_total;          /* LRUGEN_AVG */
};

/* The mm walk counters (lru_gen_mm_state.stats); 6.1 only: leaf_old, nonleaf_total. */
struct lrugen_mm {
	uint64_t leaf_total, leaf_old, leaf_young;
	uint64_t nonleaf_total, nonleaf_found, nonleaf_added;
};

struct lrugen_gen {
	uint64_t seq;
	uint32_t age_ms;                            /* since the generation's birth */
	uint64_t pages[LRUGEN_NTYPES];              /* anon, file */
	/* lru_gen_full only: */
	uint8_t gone[LRUGEN_NTYPES];                /* 'x': seq < min_seq[type] */
	enum lrugen_kind kind[LRUGEN_NTYPES];
	struct lrugen_tier tier[LRUGEN_NTYPES][LRUGEN_TIERS];
	enum lrugen_kind mm_kind;                   /* AVG: max_seq's (letters upper
	                                             * case), HIST: lower case */
	struct lrugen_mm mm;
};

struct lrugen_node {
	unsigned nid;
	unsigned ngens;                             /* consecutive seqs, oldest first */
	uint64_t max_seq;
	/* lru_gen_full: from the 'x' marks; lru_gen: [ANON] is the first seq shown,
	 * [FILE] is not shown (LRUGEN_SEQ_NONE) */
	uint64_t min_seq[LRUGEN_NTYPES];
	struct lrugen_gen gen[LRUGEN_MAX_GENS];
};

/* One memcg of the text, and what the whole text showed. */
struct lrugen_memcg {
	enum lrugen_format format;
	int stats;                                  /* CONFIG_LRU_GEN_STATS: HIST everywhere */
	int mm_lines;                               /* lru_gen_full: mm walk lines shown */
	unsigned nmemcgs;                           /* memcgs in the text */
	unsigned id;
	char path[LRUGEN_PATH_MAX];
	unsigned nnodes;
	struct lrugen_node node[LRUGEN_MAX_NODES];
};

/* What the text is, and which of its memcgs to keep. */
struct lrugen_query {
	int full;                /* the text is lru_gen_full's, not lru_gen's */
	const char *path;        /* the memcg's cgroup path as printed ("/t"), or NULL: */
	unsigned id;             /* the memcg with this id */
};

/*
 * Parse the whole text of lru_gen or lru_gen_full (LEN bytes, NUL bytes
 * refused) and keep the memcg Q asks for. Returns LRUGEN_OK, or a negative
 * lrugen_rc with a one-line message in err ("lru_gen line 12: ..."); on
 * failure *ret is zeroed, never half filled. The text must be all of one
 * read of the file: in lru_gen, a cut at the end of a generation's line
 * cannot be seen (lru_gen_full's fixed window shows every such cut).
 */
int lrugen_parse(const char *buf, size_t len, const struct lrugen_query *q,
		 struct lrugen_memcg *ret, char *err, size_t errlen);

/* "lru_gen", "lru_gen_full (6.1)", "lru_gen_full (6.12)". */
const char *lrugen_format_name(enum lrugen_format f);

/*
 * memory.stat's LRU sizes (bytes) and aging/eviction counters (events or
 * pages), as both 6.1 and 6.12 print them (mm/memcontrol.c: 6.1's
 * memory_stat_format(), 6.12's memcg_stat_format(); under MGLRU "active" is
 * the two youngest generations), and the others the agent samples (major
 * faults, the memcg's file, anon and anonymous THP bytes, its swap cache and
 * zswap). LRUGEN_STAT_KEYS lists them once: member, whether a kernel may lack
 * it (6.12 added the khugepaged ones; a kernel without THP has no anon_thp,
 * one without zswap no zswap lines).
 */
#define LRUGEN_STAT_KEYS(X)                                                   \
	X(inactive_anon, 0) X(active_anon, 0) X(inactive_file, 0) X(active_file, 0) \
	X(workingset_refault_anon, 0) X(workingset_refault_file, 0)           \
	X(workingset_activate_anon, 0) X(workingset_activate_file, 0)         \
	X(workingset_restore_anon, 0) X(workingset_restore_file, 0)           \
	X(workingset_nodereclaim, 0)                                          \
	X(pgscan, 0) X(pgsteal, 0)                                            \
	X(pgscan_kswapd, 0) X(pgscan_direct, 0) X(pgscan_khugepaged, 1)       \
	X(pgsteal_kswapd, 0) X(pgsteal_direct, 0) X(pgsteal_khugepaged, 1)    \
	X(pgrefill, 0) X(pgactivate, 0) X(pgdeactivate, 0)                    \
	X(pgmajfault, 0) X(file, 0) X(anon, 0) X(anon_thp, 1)                \
	X(swapcached, 1) X(zswap, 1) X(zswpin, 1) X(zswpout, 1)

enum lrugen_stat_key {
#define X(k, opt) LRUGEN_STAT_##k,
	LRUGEN_STAT_KEYS(X)
#undef X
	LRUGEN_NSTAT
};

struct lrugen_stat {
#define X(k, opt) uint64_t k;
	LRUGEN_STAT_KEYS(X)
#undef X
	uint64_t have;                              /* bit lrugen_stat_key: the line was there */
};

/* A wanted key of a "key value" file: its name, where its value goes, optional. */
struct lrugen_kv {
	const char *key;
	size_t off;        /* of a uint64_t in the struct filled */
	int optional;
};

/* Called with each line's key (klen bytes, not terminated) and value: 0, or -1 with err. */
typedef int lrugen_kv_fn(void *arg, const char *key, size_t klen, uint64_t v, unsigned lineno,
			 char *err, size_t errlen);

/*
 * Every line of a "key value\n" file (file names it in errors), each checked
 * as lrugen_parse_kv says, through fn: 0, or -1 with err naming the line.
 */
int lrugen_kv_lines(const char *file, const char *buf, size_t len, lrugen_kv_fn *fn, void *arg,
		    char *err, size_t errlen);

/*
 * Parse a "key value\n" file (memory.stat, memory.events, /proc/vmstat),
 * file naming it in errors: every line checked (a key of [a-z0-9_], a
 * decimal value that fits 64 bits, a final newline), the nkeys (at most 64)
 * wanted keys stored into dst at their offsets, others skipped. Each wanted
 * key at most once; every key not optional required. 0, or -1 naming the line.
 * *have (if not NULL): bit k set where keys[k] was there.
 */
int lrugen_parse_kv(const char *file, const char *buf, size_t len, const struct lrugen_kv *keys,
		    unsigned nkeys, void *dst, uint64_t *have, char *err, size_t errlen);

/*
 * Parse a memcg's memory.stat ("%s %llu\n" lines): every line is checked, the
 * keys above kept, others skipped. Each key at most once; every key not
 * optional required. Returns 0, or -1 naming the line; *ret zeroed on failure.
 */
int lrugen_parse_memory_stat(const char *buf, size_t len, struct lrugen_stat *ret,
		      char *err, size_t errlen);

#endif
