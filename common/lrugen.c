/* lrugen.c -- lru_gen and lru_gen_full read strictly, line by line at each field's
 * width, as mm/vmscan.c prints them; memory.stat's LRU counters from one table. */
#include "common/fmt.h"
#include "common/err.h"
#include "common/lrugen.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MM_MAX 6                 /* most mm walk columns a kernel prints (6.1) */

/* One kernel's lru_gen_full: what its empty columns hold, its mm walk columns. */
struct fmt_desc {
	enum lrugen_format format;
	const char *name;
	char filler;             /* a tier or mm column with nothing in it */
	const char *mm_now;      /* mm letters at max_seq (NR_HIST_GENS == 1) */
	const char *mm_hist;     /* at the other seqs (CONFIG_LRU_GEN_STATS) */
	size_t mm_off[MM_MAX];   /* the struct lrugen_mm member of each column */
	unsigned nmm;
	int mm_optional;         /* the line is absent without CONFIG_LRU_GEN_WALKS_MMU */
};

#define MM(f) offsetof(struct lrugen_mm, f)
/* vmscan.c lru_gen_seq_show_full(): 6.1 lines 5541-5580, 6.12 lines 5292-5334. */
static const struct fmt_desc formats[] = {
	{ LRUGEN_FULL_6_1, "lru_gen_full (6.1)", ' ', "LOYNFA", "loynfa",
	  { MM(leaf_total), MM(leaf_old), MM(leaf_young), MM(nonleaf_total),
	    MM(nonleaf_found), MM(nonleaf_added) }, 6, 0 },
	{ LRUGEN_FULL_6_12, "lru_gen_full (6.12)", 'x', "TYFA", "tyfa",
	  { MM(leaf_total), MM(leaf_young), MM(nonleaf_found), MM(nonleaf_added) }, 4, 1 },
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* What may come next: each state names the lines it accepts. */
enum want {
	W_MEMCG,        /* the text's first line */
	W_NODE,         /* after a memcg line */
	W_GEN,          /* after a node line */
	W_TIER,         /* lru_gen_full: tier ps->tier of the generation */
	W_AFTER_TIERS,  /* after tier 3: the mm walk line, or the next generation */
	W_NEXT,         /* a generation, node or memcg, or the end */
};

enum line_kind { L_MEMCG, L_NODE, L_GEN, L_TIER, L_MM, L_BAD };

static const char *const want_names[] = {
	[W_MEMCG] = "'memcg ID PATH'", [W_NODE] = "' node NID'", [W_GEN] = "a generation",
	[W_TIER] = "a tier line", [W_AFTER_TIERS] = "the mm walk line, a generation, node or memcg line",
	[W_NEXT] = "a generation, node or memcg line",
};

struct parser {
	const char *p, *end;                 /* the text not read yet */
	const char *line, *cur, *eol;        /* the current line, the cursor in it */
	unsigned lineno;
	char *err;
	size_t errlen;
	int full;                            /* lru_gen_full, not lru_gen */
	/* what the text has shown so far */
	const struct fmt_desc *fmt;          /* lru_gen_full: NULL until the text tells */
	int has_mm, stats;                   /* -1: not known yet */
	enum want want;
	unsigned tier;
	unsigned first_nnodes, first_nids[LRUGEN_MAX_NODES];   /* every memcg has them */
	/* the memcg and node being read */
	unsigned id, nnodes, nids[LRUGEN_MAX_NODES];
	int selected, in_node;
	struct lrugen_node node;
	/* what is asked for, and the answer */
	const char *want_path;
	unsigned want_id;
	int found;
	struct lrugen_memcg *out;
};

/*
 * The parser's error: "lru_gen[_full] line N: " and the message, into its
 * buffer; rc, for "return failv(...)".
 */
static int failv(struct parser *ps, int rc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static int failv(struct parser *ps, int rc, const char *fmt, va_list ap)
{
	int n = snprintf(ps->err, ps->errlen, "%s line %u: ", ps->full ? "lru_gen_full" : "lru_gen",
			 ps->lineno);

	if (n >= 0 && (size_t)n < ps->errlen)
		vfmtcut(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	return rc;
}

static int bad(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int unknown(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Not text the kernel writes. */
static int bad(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = failv(ps, LRUGEN_EBAD, fmt, ap);
	va_end(ap);
	return rc;
}

/* lru_gen's shape, but of a kernel this parser does not know. */
static int unknown(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = failv(ps, LRUGEN_EFORMAT, fmt, ap);
	va_end(ap);
	return rc;
}

static unsigned column(const struct parser *ps)
{
	return (unsigned)(ps->cur - ps->line) + 1;
}

/* ---- fields: each as the kernel's printf conversion writes it ---- */

/*
 * A number as "%<width>lu" (or %u, %hu, %d of a non-negative value) prints it:
 * right-aligned in WIDTH columns, or wider with no padding when it has more
 * digits; no sign, no leading zero; at most MAX.
 */
static int field(struct parser *ps, unsigned width, uint64_t max, uint64_t *v, const char *what)
{
	const char *s = ps->cur, *d;
	uint64_t n = 0;
	size_t pad, nd;

	while (s < ps->eol && *s == ' ')
		s++;
	for (d = s; d < ps->eol && *d >= '0' && *d <= '9'; d++) {
		if (n > (max - (uint64_t)(*d - '0')) / 10)
			return bad(ps, "%s at column %u is out of range (more than %llu)", what,
				   column(ps), (unsigned long long)max);
		n = n * 10 + (uint64_t)(*d - '0');
	}
	pad = (size_t)(s - ps->cur);
	nd = (size_t)(d - s);
	if (!nd)
		return bad(ps, "expected %s, a number, at column %u", what, column(ps));
	if (nd > 1 && *s == '0')
		return bad(ps, "%s at column %u has a leading zero", what, column(ps));
	if (pad != (nd < width ? width - nd : 0))
		return bad(ps, "%s at column %u is not right-aligned in %u columns", what,
			   column(ps), width);
	ps->cur = d;
	*v = n;
	return 0;
}

/* The literal text S at the cursor. */
static int lit(struct parser *ps, const char *s, const char *what)
{
	size_t n = strlen(s);

	if ((size_t)(ps->eol - ps->cur) < n || memcmp(ps->cur, s, n))
		return bad(ps, "expected %s at column %u", what, column(ps));
	ps->cur += n;
	return 0;
}

/* One character: the letter or filler printed after a number ("%10lu%c"). */
static int suffix(struct parser *ps, char *c)
{
	if (ps->cur >= ps->eol)
		return bad(ps, "expected a letter or filler after the number at column %u", column(ps));
	*c = *ps->cur++;
	return 0;
}

static int end_of_line(struct parser *ps)
{
	if (ps->cur != ps->eol)
		return bad(ps, "unexpected text at column %u", column(ps));
	return 0;
}

/* " %10lu%c": a separating space, a number, its letter. */
static int column_field(struct parser *ps, uint64_t *v, char *c, const char *what)
{
	if (lit(ps, " ", "a space") < 0 || field(ps, 10, UINT64_MAX, v, what) < 0)
		return LRUGEN_EBAD;
	return suffix(ps, c);
}

/* ---- what the text has shown: format, mm lines, CONFIG_LRU_GEN_STATS ---- */

static int set_format(struct parser *ps, const struct fmt_desc *f)
{
	if (ps->fmt && ps->fmt != f)
		return bad(ps, "%s columns after %s ones", f->name, ps->fmt->name);
	if (ps->has_mm == 0 && !f->mm_optional)
		return bad(ps, "%s has an mm walk line after every generation's tiers", f->name);
	ps->fmt = f;
	return 0;
}

/* The filler C of an empty column tells the kernel. */
static int set_filler(struct parser *ps, char c)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (formats[i].filler == c)
			return set_format(ps, &formats[i]);
	return unknown(ps, "unknown format: filler '%c' in a tier or mm column", c);
}

/* A tri-state the text must keep: *have is -1 until the first evidence. */
static int set_flag(struct parser *ps, int *have, int v, const char *what)
{
	if (*have >= 0 && *have != v)
		return bad(ps, "%s here but not in an earlier generation", what);
	*have = v;
	return 0;
}

/* ---- lines ---- */

/* Which line this is, by its start: fields are right-aligned at fixed widths. */
static enum line_kind classify(const char *l, size_t n)
{
	size_t sp = 0;

	if (n >= 6 && !memcmp(l, "memcg ", 6))
		return L_MEMCG;
	if (n >= 6 && !memcmp(l, " node ", 6))
		return L_NODE;
	while (sp < n && l[sp] == ' ')
		sp++;
	if (sp >= 1 && sp <= 10)
		return L_GEN;           /* " %10lu" */
	if (sp >= 12 && sp <= 21)
		return L_TIER;          /* "            %10d" */
	if (sp >= 23)
		return L_MM;            /* 22 spaces, " %10lu" */
	return L_BAD;
}

/* 1 if a line of kind k may come where the parser is (what it wants). */
static int accepts(enum want w, enum line_kind k)
{
	switch (k) {
	case L_MEMCG: return w == W_MEMCG || w == W_AFTER_TIERS || w == W_NEXT;
	case L_NODE:  return w == W_NODE || w == W_AFTER_TIERS || w == W_NEXT;
	case L_GEN:   return w == W_GEN || w == W_AFTER_TIERS || w == W_NEXT;
	case L_TIER:  return w == W_TIER;
	case L_MM:    return w == W_AFTER_TIERS;
	default:      return 0;
	}
}

/* A generation's lines end here: without an mm walk line, if its tiers were the last. */
static int close_generation(struct parser *ps)
{
	if (ps->want != W_AFTER_TIERS)
		return 0;
	if (ps->has_mm == 1)
		return bad(ps, "expected the mm walk line after tier %u (text cut short?)",
			   LRUGEN_TIERS - 1);
	ps->has_mm = 0;
	if (ps->fmt && !ps->fmt->mm_optional)
		return bad(ps, "%s has an mm walk line after every generation's tiers",
			   ps->fmt->name);
	return 0;
}

/* In lru_gen_full, every type's 'x' marks a prefix: min_seq[type] is the first unmarked. */
static int check_marks(struct parser *ps, struct lrugen_node *nd)
{
	unsigned t, i, u;

	for (t = 0; t < LRUGEN_NTYPES; t++) {
		nd->min_seq[t] = ps->full ? LRUGEN_SEQ_NONE : nd->gen[0].seq;
		for (u = 0; u < nd->ngens && nd->gen[u].gone[t]; u++)
			;
		for (i = u; i < nd->ngens; i++)
			if (nd->gen[i].gone[t])
				return bad(ps, "node %u: 'x' at seq %llu after an unmarked generation",
					   nd->nid, (unsigned long long)nd->gen[i].seq);
		if (!ps->full && u)
			return bad(ps, "node %u: 'x' marks in lru_gen, which has none", nd->nid);
		if (ps->full && u == nd->ngens)
			return bad(ps, "node %u: every generation marked 'x'", nd->nid);
		if (ps->full)
			nd->min_seq[t] = nd->gen[u].seq;
	}
	if (!ps->full)
		nd->min_seq[LRUGEN_FILE] = LRUGEN_SEQ_NONE;
	return 0;
}

/* The tier columns lru_gen_seq_show_full() prints for generation I of type T. */
static int check_kind(struct parser *ps, const struct lrugen_node *nd, unsigned i, unsigned t)
{
	const struct lrugen_gen *g = &nd->gen[i];
	int is_max = i + 1 == nd->ngens;
	enum lrugen_kind k = g->kind[t];

	if (is_max) {
		if (k != LRUGEN_AVG)
			return bad(ps, "node %u: max_seq %llu without its RT columns", nd->nid,
				   (unsigned long long)g->seq);
		return 0;
	}
	if (k == LRUGEN_AVG)
		return bad(ps, "node %u: RT columns at seq %llu, not max_seq", nd->nid,
			   (unsigned long long)g->seq);
	if (g->seq == nd->min_seq[t])
		return k == LRUGEN_HIST ? 0 :
			bad(ps, "node %u: min_seq %llu without its rep columns", nd->nid,
			    (unsigned long long)g->seq);
	return set_flag(ps, &ps->stats, k == LRUGEN_HIST, "rep columns of an older generation");
}

/* The mm walk line: upper-case letters at max_seq, fillers elsewhere; with
 * CONFIG_LRU_GEN_STATS fillers at max_seq, lower case elsewhere. */
static int check_mm(struct parser *ps, const struct lrugen_node *nd, unsigned i)
{
	const struct lrugen_gen *g = &nd->gen[i];
	int is_max = i + 1 == nd->ngens;

	if (g->mm_kind == (is_max ? LRUGEN_HIST : LRUGEN_AVG))
		return bad(ps, "node %u: the mm walk letters of seq %llu belong to another seq",
			   nd->nid, (unsigned long long)g->seq);
	return set_flag(ps, &ps->stats, g->mm_kind == (is_max ? LRUGEN_NONE : LRUGEN_HIST),
			"mm walk letters of CONFIG_LRU_GEN_STATS");
}

/* lru_gen_full's window is the last MAX_NR_GENS seqs (fewer only while max_seq < 3). */
static int check_full(struct parser *ps, const struct lrugen_node *nd)
{
	unsigned want = nd->max_seq >= LRUGEN_FULL_GENS - 1 ? LRUGEN_FULL_GENS : (unsigned)nd->max_seq + 1;
	unsigned i, t;
	int rc;

	if (nd->ngens > LRUGEN_FULL_GENS)
		return unknown(ps, "unknown format: node %u shows %u generations, lru_gen_full %u",
			       nd->nid, nd->ngens, LRUGEN_FULL_GENS);
	if (nd->ngens != want)
		return bad(ps, "node %u ends after %u generations, lru_gen_full shows %u (text cut short?)",
			   nd->nid, nd->ngens, want);
	for (i = 0; i < nd->ngens; i++)
		for (t = 0; t < LRUGEN_NTYPES; t++)
			if ((rc = check_kind(ps, nd, i, t)) < 0)
				return rc;
	for (i = 0; i < nd->ngens && ps->has_mm == 1; i++)
		if ((rc = check_mm(ps, nd, i)) < 0)
			return rc;
	return 0;
}

/* The node being read is complete: check it, keep it if its memcg is asked for. */
static int finish_node(struct parser *ps)
{
	struct lrugen_node *nd = &ps->node;
	int rc;

	if (!ps->in_node)
		return 0;
	ps->in_node = 0;
	if ((rc = close_generation(ps)) < 0 || (rc = check_marks(ps, nd)) < 0)
		return rc;
	if (ps->full && (rc = check_full(ps, nd)) < 0)
		return rc;
	if (ps->selected)
		ps->out->node[ps->out->nnodes++] = *nd;
	return 0;
}

/* The memcg being read is complete: it has the first memcg's nodes. */
static int finish_memcg(struct parser *ps)
{
	unsigned i;

	if (!ps->nnodes)
		return 0;
	if (!ps->first_nnodes) {
		ps->first_nnodes = ps->nnodes;
		memcpy(ps->first_nids, ps->nids, sizeof(ps->nids));
		return 0;
	}
	for (i = 0; i < ps->nnodes && i < ps->first_nnodes; i++)
		if (ps->nids[i] != ps->first_nids[i])
			break;
	if (i < ps->nnodes || ps->nnodes != ps->first_nnodes)
		return bad(ps, "memcg %u has other nodes than the first memcg (a read across a change?)",
			   ps->id);
	return 0;
}

/* "memcg %5hu %s": id, cgroup path ("" for no memcg, else "/..."). */
static int on_memcg(struct parser *ps)
{
	uint64_t id;
	size_t n;
	int rc;

	if ((rc = finish_node(ps)) < 0 || (rc = finish_memcg(ps)) < 0)
		return rc;
	if (lit(ps, "memcg ", "'memcg '") < 0 || field(ps, 5, UINT16_MAX, &id, "the memcg id") < 0 ||
	    lit(ps, " ", "a space before the path") < 0)
		return LRUGEN_EBAD;
	n = (size_t)(ps->eol - ps->cur);
	if (n >= LRUGEN_PATH_MAX)
		return bad(ps, "the memcg path is longer than %u bytes", LRUGEN_PATH_MAX - 1);
	if (id ? !n || ps->cur[0] != '/' : n != 0)
		return bad(ps, "memcg %u: a path must start with '/' (only memcg 0, no memcg, has none)",
			   (unsigned)id);
	ps->id = (unsigned)id;
	ps->nnodes = 0;
	ps->out->nmemcgs++;
	ps->selected = ps->want_path ? n == strlen(ps->want_path) && !memcmp(ps->cur, ps->want_path, n)
				     : ps->id == ps->want_id;
	if (ps->selected && ps->found)
		return bad(ps, "memcg %u is the second memcg asked for (ids %u and %u)", ps->id,
			   ps->out->id, ps->id);
	if (ps->selected) {
		ps->found = 1;
		ps->out->id = ps->id;
		memcpy(ps->out->path, ps->cur, n);
		ps->out->path[n] = '\0';
	}
	ps->want = W_NODE;
	return 0;
}

/* " node %5d": node ids rise within a memcg (for_each_node_state). */
static int on_node(struct parser *ps)
{
	uint64_t nid;
	int rc;

	if ((rc = finish_node(ps)) < 0)
		return rc;
	if (lit(ps, " node ", "' node '") < 0 || field(ps, 5, UINT16_MAX, &nid, "the node id") < 0 ||
	    end_of_line(ps) < 0)
		return LRUGEN_EBAD;
	if (ps->nnodes && nid <= ps->nids[ps->nnodes - 1])
		return bad(ps, "node %u after node %u in memcg %u", (unsigned)nid,
			   ps->nids[ps->nnodes - 1], ps->id);
	if (ps->nnodes == LRUGEN_MAX_NODES)
		return bad(ps, "memcg %u has more than %u nodes", ps->id, LRUGEN_MAX_NODES);
	ps->nids[ps->nnodes++] = (unsigned)nid;
	memset(&ps->node, 0, sizeof(ps->node));
	ps->node.nid = (unsigned)nid;
	ps->in_node = 1;
	ps->want = W_GEN;
	return 0;
}

/* " %10lu %10u" seq, age_ms, then " %10lu%c" anon and file pages, each marked ' ' or 'x'. */
static int on_gen(struct parser *ps)
{
	struct lrugen_node *nd = &ps->node;
	struct lrugen_gen *g;
	uint64_t seq, age, pages[LRUGEN_NTYPES];
	char mark[LRUGEN_NTYPES];
	unsigned t;

	if (close_generation(ps) < 0)
		return LRUGEN_EBAD;
	if (lit(ps, " ", "a space") < 0 || field(ps, 10, UINT64_MAX, &seq, "the seq") < 0 ||
	    lit(ps, " ", "a space") < 0 || field(ps, 10, UINT32_MAX, &age, "the age in ms") < 0 ||
	    column_field(ps, &pages[LRUGEN_ANON], &mark[LRUGEN_ANON], "the anon pages") < 0 ||
	    column_field(ps, &pages[LRUGEN_FILE], &mark[LRUGEN_FILE], "the file pages") < 0 ||
	    end_of_line(ps) < 0)
		return LRUGEN_EBAD;
	for (t = 0; t < LRUGEN_NTYPES; t++)
		if (mark[t] != ' ' && mark[t] != 'x')
			return bad(ps, "a generation's pages are marked ' ' or 'x', not '%c'", mark[t]);
	if (nd->ngens == LRUGEN_MAX_GENS)
		return bad(ps, "node %u has more than %u generations", nd->nid, LRUGEN_MAX_GENS);
	if (nd->ngens && (nd->max_seq == UINT64_MAX || seq != nd->max_seq + 1))
		return bad(ps, "seq %llu after seq %llu: seqs are consecutive",
			   (unsigned long long)seq, (unsigned long long)nd->max_seq);
	g = &nd->gen[nd->ngens++];
	g->seq = nd->max_seq = seq;
	g->age_ms = (uint32_t)age;
	for (t = 0; t < LRUGEN_NTYPES; t++) {
		g->pages[t] = pages[t];
		g->gone[t] = mark[t] == 'x';
	}
	ps->tier = 0;
	ps->want = ps->full ? W_TIER : W_NEXT;
	return 0;
}

/* One type's three tier columns: "rep", "RT" + filler, or three fillers (and zeros). */
static int tier_kind(struct parser *ps, const char *s, const uint64_t *v, enum lrugen_kind *k)
{
	if (s[0] == 'r' && s[1] == 'e' && s[2] == 'p') {
		*k = LRUGEN_HIST;
		if (ps->tier == 0 && v[2])
			return bad(ps, "protected pages in tier 0, which has none");
		return 0;
	}
	if (s[0] == 'R' && s[1] == 'T') {
		*k = LRUGEN_AVG;
		if (v[2])
			return bad(ps, "a number in the column after RT, which is always 0");
		return set_filler(ps, s[2]);
	}
	if (s[0] != s[1] || s[1] != s[2])
		return unknown(ps, "unknown format: tier columns '%c%c%c'", s[0], s[1], s[2]);
	*k = LRUGEN_NONE;
	if (v[0] || v[1] || v[2])
		return bad(ps, "numbers in tier columns without letters");
	return set_filler(ps, s[0]);
}

/*
 * A tier line's numbers into tr by the file's kind: refaulted, evicted and
 * protected (lru_gen_full's history), or the averages.
 */
static void store_tier(struct lrugen_tier *tr, enum lrugen_kind k, const uint64_t *v)
{
	if (k == LRUGEN_HIST) {
		tr->refaulted = v[0];
		tr->evicted = v[1];
		tr->protected = v[2];
	} else if (k == LRUGEN_AVG) {
		tr->avg_refaulted = v[0];
		tr->avg_total = v[1];
	}
}

/* "            %10d" tier, then three " %10lu%c" for anon and three for file. */
static int on_tier(struct parser *ps)
{
	struct lrugen_gen *g = &ps->node.gen[ps->node.ngens - 1];
	uint64_t tier, v[LRUGEN_NTYPES][3];
	char s[LRUGEN_NTYPES][3];
	enum lrugen_kind k = LRUGEN_NONE;
	unsigned t, i;
	int rc;

	if (field(ps, 22, UINT32_MAX, &tier, "the tier") < 0)
		return LRUGEN_EBAD;
	if (tier != ps->tier)
		return bad(ps, "tier %llu where tier %u belongs", (unsigned long long)tier, ps->tier);
	for (t = 0; t < LRUGEN_NTYPES; t++)
		for (i = 0; i < 3; i++)
			if (column_field(ps, &v[t][i], &s[t][i], "a tier counter") < 0)
				return LRUGEN_EBAD;
	if (end_of_line(ps) < 0)
		return LRUGEN_EBAD;
	for (t = 0; t < LRUGEN_NTYPES; t++) {
		if ((rc = tier_kind(ps, s[t], v[t], &k)) < 0)
			return rc;
		if (ps->tier && k != g->kind[t])
			return bad(ps, "tier %u's columns unlike tier 0's", ps->tier);
		g->kind[t] = k;
		store_tier(&g->tier[t][ps->tier], k, v[t]);
	}
	ps->want = ++ps->tier == LRUGEN_TIERS ? W_AFTER_TIERS : W_TIER;
	return 0;
}

/* Which kernel's mm walk columns N letters L are: its format, and the line's kind. */
static int mm_kind(struct parser *ps, const char *l, unsigned n, enum lrugen_kind *k)
{
	const struct fmt_desc *f = NULL;
	unsigned i, fill = 1;
	size_t j;

	for (j = 0; j < NFORMATS; j++)
		if (formats[j].nmm == n)
			f = &formats[j];
	if (!f)
		return unknown(ps, "unknown format: %u mm walk columns", n);
	for (i = 1; i < n; i++)
		fill &= l[i] == l[0];
	if (!memcmp(l, f->mm_now, n))
		*k = LRUGEN_AVG;
	else if (!memcmp(l, f->mm_hist, n))
		*k = LRUGEN_HIST;
	else if (fill && l[0] == f->filler)
		*k = LRUGEN_NONE;
	else
		return unknown(ps, "unknown format: mm walk letters '%.*s'", (int)n, l);
	return set_format(ps, f);
}

/* "                      " then NR_MM_STATS x " %10lu%c". */
static int on_mm(struct parser *ps)
{
	struct lrugen_gen *g = &ps->node.gen[ps->node.ngens - 1];
	uint64_t v[MM_MAX + 1];
	char l[MM_MAX + 1];
	unsigned n, i;
	int rc;

	if (lit(ps, "                      ", "22 spaces") < 0)
		return LRUGEN_EBAD;
	for (n = 0; ps->cur < ps->eol; n++) {
		if (n > MM_MAX)
			return unknown(ps, "unknown format: more than %u mm walk columns", MM_MAX);
		if (column_field(ps, &v[n], &l[n], "an mm walk counter") < 0)
			return LRUGEN_EBAD;
	}
	if ((rc = mm_kind(ps, l, n, &g->mm_kind)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		if (g->mm_kind == LRUGEN_NONE && v[i])
			return bad(ps, "a number in an mm walk column without a letter");
		*(uint64_t *)((char *)&g->mm + ps->fmt->mm_off[i]) = v[i];
	}
	if (set_flag(ps, &ps->has_mm, 1, "an mm walk line") < 0)
		return LRUGEN_EBAD;
	ps->want = W_NEXT;
	return 0;
}

/* The next line into ps->line..ps->eol; 0 at the end of the text. */
static int next_line(struct parser *ps)
{
	const char *nl;

	if (ps->p >= ps->end)
		return 0;
	ps->lineno++;
	nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
	if (!nl)
		return bad(ps, "no newline at the end (text cut short?)");
	if ((size_t)(nl - ps->p) > LRUGEN_LINE_MAX)
		return bad(ps, "longer than %u bytes", LRUGEN_LINE_MAX);
	if (memchr(ps->p, '\0', (size_t)(nl - ps->p)))
		return bad(ps, "a NUL byte");
	ps->line = ps->cur = ps->p;
	ps->eol = nl;
	ps->p = nl + 1;
	return 1;
}

/* One line handed to its kind's handler, if it may come here. */
static int on_line(struct parser *ps)
{
	enum line_kind k = classify(ps->line, (size_t)(ps->eol - ps->line));

	if (k == L_TIER && ps->want == W_AFTER_TIERS)
		return unknown(ps, "unknown format: more than %u tiers", LRUGEN_TIERS);
	if (!accepts(ps->want, k))
		return bad(ps, "expected %s", want_names[ps->want]);
	switch (k) {
	case L_MEMCG: return on_memcg(ps);
	case L_NODE:  return on_node(ps);
	case L_GEN:   return on_gen(ps);
	case L_TIER:  return on_tier(ps);
	default:      return on_mm(ps);
	}
}

/* The end of the text: it ends where a node may. */
static int on_end(struct parser *ps)
{
	int rc;

	if (ps->want == W_MEMCG)
		return bad(ps, "no text");
	if (ps->want == W_NODE || ps->want == W_GEN || ps->want == W_TIER)
		return bad(ps, "the text ends where %s belongs (text cut short?)", want_names[ps->want]);
	if ((rc = finish_node(ps)) < 0 || (rc = finish_memcg(ps)) < 0)
		return rc;
	if (ps->full && !ps->fmt)
		return unknown(ps, "unknown format: no column tells which kernel's lru_gen_full");
	return 0;
}

/*
 * The whole text, then its end: what the file showed (its format, stats,
 * mm lines) into out; LRUGEN_ENOMEMCG when the memcg asked for is not in it.
 */
static int parse(struct parser *ps)
{
	int rc;

	while ((rc = next_line(ps)) > 0)
		if ((rc = on_line(ps)) < 0)
			return rc;
	if (rc < 0 || (rc = on_end(ps)) < 0)
		return rc;
	ps->out->format = ps->full ? ps->fmt->format : LRUGEN_BRIEF;
	ps->out->stats = ps->stats > 0;
	ps->out->mm_lines = ps->has_mm > 0;
	if (!ps->found && ps->want_path)
		fmtcut(ps->err, ps->errlen, "no memcg '%s' in the text", ps->want_path);
	else if (!ps->found)
		fmtcut(ps->err, ps->errlen, "no memcg %u in the text", ps->want_id);
	return ps->found ? 0 : LRUGEN_ENOMEMCG;
	return 0;
}

int lrugen_parse(const char *buf, size_t len, const struct lrugen_query *q,
		 struct lrugen_memcg *ret, char *err, size_t errlen)
{
	struct parser ps = {
		.p = buf, .end = buf + len, .err = err, .errlen = errlen, .full = q->full,
		.has_mm = -1, .stats = -1, .want = W_MEMCG, .want_path = q->path,
		.want_id = q->id, .out = ret,
	};
	int rc;

	memset(ret, 0, sizeof(*ret));
	if (errlen)
		err[0] = '\0';
	rc = parse(&ps);
	if (rc < 0)
		memset(ret, 0, sizeof(*ret));
	return rc;
}

const char *lrugen_format_name(enum lrugen_format f)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (formats[i].format == f)
			return formats[i].name;
	return "lru_gen";
}

/* ---- memory.stat and other "key value" files ---- */

static const struct lrugen_kv stat_keys[LRUGEN_NSTAT] = {
#define X(k, opt) { #k, offsetof(struct lrugen_stat, k), opt },
	LRUGEN_STAT_KEYS(X)
#undef X
};

#define STAT_KEY_MAX 64

static int stat_err(const char *file, char *err, size_t errlen, unsigned lineno, const char *what)
{
	fmtcut(err, errlen, "%s line %u: %s", file, lineno, what);
	return -1;
}

/* "KEY VALUE": KEY of [a-z0-9_], VALUE a %llu (no sign, no leading zero). */
static int stat_line(const char *file, const char *l, size_t n, unsigned lineno, size_t *klen,
		     uint64_t *v, char *err, size_t errlen)
{
	size_t i = 0;
	uint64_t x = 0;

	while (i < n && ((l[i] >= 'a' && l[i] <= 'z') || (l[i] >= '0' && l[i] <= '9') || l[i] == '_'))
		i++;
	if (!i || i >= STAT_KEY_MAX || i + 1 >= n || l[i] != ' ')
		return stat_err(file, err, errlen, lineno, "expected 'KEY VALUE'");
	*klen = i++;
	if (l[i] == '0' && i + 1 < n)
		return stat_err(file, err, errlen, lineno, "a value with a leading zero");
	for (; i < n; i++) {
		if (l[i] < '0' || l[i] > '9')
			return stat_err(file, err, errlen, lineno, "the value is not a decimal number");
		if (x > (UINT64_MAX - (uint64_t)(l[i] - '0')) / 10)
			return stat_err(file, err, errlen, lineno, "the value is out of range");
		x = x * 10 + (uint64_t)(l[i] - '0');
	}
	*v = x;
	return 0;
}

struct kv_parse {
	const char *file;
	const struct lrugen_kv *keys;
	unsigned nkeys;
	void *dst;
	uint64_t have;     /* bit k: keys[k] was there */
};

/* Keep VALUE if KEY is one of the wanted keys; a kept key twice is an error. */
static int stat_keep(void *arg, const char *key, size_t klen, uint64_t v, unsigned lineno,
		     char *err, size_t errlen)
{
	struct kv_parse *kp = arg;
	unsigned k;

	for (k = 0; k < kp->nkeys; k++) {
		if (strlen(kp->keys[k].key) != klen || memcmp(kp->keys[k].key, key, klen))
			continue;
		if (kp->have & (UINT64_C(1) << k))
			return stat_err(kp->file, err, errlen, lineno, "a key given twice");
		kp->have |= UINT64_C(1) << k;
		*(uint64_t *)((char *)kp->dst + kp->keys[k].off) = v;
	}
	return 0;
}

int lrugen_kv_lines(const char *file, const char *buf, size_t len, lrugen_kv_fn *fn, void *arg,
		    char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *nl;
	unsigned lineno = 0;
	size_t klen;
	uint64_t v;

	for (; p < end; p = nl + 1) {
		lineno++;
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return stat_err(file, err, errlen, lineno,
					"no newline at the end (text cut short?)");
		if (stat_line(file, p, (size_t)(nl - p), lineno, &klen, &v, err, errlen) < 0 ||
		    fn(arg, p, klen, v, lineno, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int lrugen_parse_kv(const char *file, const char *buf, size_t len, const struct lrugen_kv *keys,
		    unsigned nkeys, void *dst, uint64_t *have, char *err, size_t errlen)
{
	struct kv_parse kp = { file, keys, nkeys, dst, 0 };
	unsigned k;

	if (nkeys > 64)
		return errorfn(err, errlen, "%s: %u keys wanted, at most 64", file, nkeys);
	if (lrugen_kv_lines(file, buf, len, stat_keep, &kp, err, errlen) < 0)
		return -1;
	for (k = 0; k < nkeys; k++)
		if (!keys[k].optional && !(kp.have & (UINT64_C(1) << k)))
			return errorfn(err, errlen, "%s: no '%s' line", file, keys[k].key);
	if (have)
		*have = kp.have;
	return 0;
}

int lrugen_parse_memory_stat(const char *buf, size_t len, struct lrugen_stat *ret,
		      char *err, size_t errlen)
{
	memset(ret, 0, sizeof(*ret));
	if (lrugen_parse_kv("memory.stat", buf, len, stat_keys, LRUGEN_NSTAT, ret, &ret->have,
			    err, errlen) == 0)
		return 0;
	memset(ret, 0, sizeof(*ret));
	return -1;
}
