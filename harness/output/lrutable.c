/* lrutable.c -- the oldest generations' table: lru_gen_full's per-tier counters of
 * each generation while it was the oldest, as seed 000 quotes them, per arm's run. */
#include "output/lrutable.h"
#include "base/err.h"
#include "store/store_lru.h"
#include "common/fmt.h"

#include <stdlib.h>
#include <string.h>

static uint64_t sum4(const uint64_t *v)
{
	return v[0] + v[1] + v[2] + v[3];
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* One run's oldest generations as they are read, and each tier summed over them. */
struct gen_walk {
	FILE *f;
	size_t n;
	uint64_t ev[LRU_TIERS], rf[LRU_TIERS], pr[LRU_TIERS];
};

/*
 * A generation's row of the table (the table's head before the first): its
 * time as the oldest, evicted, refaulted (and rf%) and protected file
 * pages, each summed over tiers.
 */
static int gen_row(void *arg, const struct lru_oldest *o)
{
	struct gen_walk *w = arg;
	int t;

	if (!w->n++)
		fprintf(w->f, "oldest generations, file pages\n  %10s %7s %7s %10s %10s %7s %10s\n",
			"gen seq", "from s", "to s", "evicted", "refaulted", "rf%", "protected");
	fprintf(w->f, "  %10llu %7.1f %7.1f %10llu %10llu %6.1f%% %10llu\n",
		(unsigned long long)o->gen, o->first_s, o->last_s,
		(unsigned long long)sum4(o->evicted), (unsigned long long)sum4(o->refaulted),
		pct(sum4(o->refaulted), sum4(o->evicted)), (unsigned long long)sum4(o->protected_));
	for (t = 0; t < LRU_TIERS; t++) {
		w->ev[t] += o->evicted[t];
		w->rf[t] += o->refaulted[t];
		w->pr[t] += o->protected_[t];
	}
	return 0;
}

/* A generation in a sentence, after the table. */
static int gen_sentence(void *arg, const struct lru_oldest *o)
{
	fprintf(arg, "  generation seq %llu: %llu pages evicted and %llu refaulted, %.2f %%\n",
		(unsigned long long)o->gen, (unsigned long long)sum4(o->evicted),
		(unsigned long long)sum4(o->refaulted), pct(sum4(o->refaulted), sum4(o->evicted)));
	return 0;
}

/*
 * An arm's part of `harness lru`: its run's oldest generations, or why it has
 * none; streamed, the run's rows read twice (the table, then the sentences).
 */
static int arm_run(FILE *f, struct store *s, const struct matrix_info *mi, unsigned cell,
		   unsigned arm, int64_t run, char *err)
{
	struct gen_walk w = { .f = f };
	int t;

	fprintf(f, " arm %s, run %lld, lru_gen %s: ", mi->arm_names[arm], (long long)run,
		mi->cell_lru[cell][arm][0] ? mi->cell_lru[cell][arm] : "-");
	if (store_lru_oldest_each(s, run, gen_row, &w, err) < 0)
		return -1;
	if (!w.n) {
		fputs("no generation with tiers\n  (MGLRU off, or a kernel without"
		      " lru_gen_full)\n", f);
		return 0;
	}
	if (store_lru_oldest_each(s, run, gen_sentence, f, err) < 0)
		return -1;
	fputs("  by tier, these generations summed:\n", f);
	for (t = 0; t < LRU_TIERS; t++)
		fprintf(f, "    tier %d: %llu evicted, %llu refaulted, %llu protected\n", t,
			(unsigned long long)w.ev[t], (unsigned long long)w.rf[t],
			(unsigned long long)w.pr[t]);
	return 0;
}

/* "N (x%)" of total into buf; "-" when total is 0. */
static const char *share(char *buf, size_t len, uint64_t n, uint64_t total)
{
	if (!total)
		fmtcut(buf, len, "-");
	else
		fmtcut(buf, len, "%llu (%.1f%%)", (unsigned long long)n, pct(n, total));
	return buf;
}

/* Which of the two place tables an arm's run belongs in: MGLRU's, unless it placed on lists. */
static int placed_on_lists(const struct trace_folios *t)
{
	return !t->placed[PL_OLDEST] && !t->placed[PL_SECOND] && !t->placed[PL_YOUNGER] &&
	       (t->placed[PL_INACTIVE] || t->placed[PL_ACTIVE]);
}

/* The arms of one LRU: loads, and where their first adds went (first..last places). */
static void trace_place_rows(FILE *f, const struct matrix_info *mi,
			     const struct trace_folios *t, int lists)
{
	int first = lists ? PL_INACTIVE : PL_OLDEST, last = lists ? PL_ACTIVE : PL_YOUNGER, p;
	uint64_t placed;
	unsigned a, head = 0;
	char b[32];

	for (a = 0; a < mi->n_arms && a < SPEC_MAX_ARMS; a++) {
		if (!t[a].status[0] || placed_on_lists(&t[a]) != lists)
			continue;
		if (!head++) {
			fprintf(f, "  %-9s %6s", "placed", "loads");
			for (p = first; p <= last; p++)
				fprintf(f, " %14s", proto_place_names[p]);
			fputc('\n', f);
		}
		for (placed = 0, p = first; p <= last; p++)
			placed += t[a].placed[p];
		fprintf(f, "  %-9s %6llu", mi->arm_names[a], (unsigned long long)t[a].lives);
		for (p = first; p <= last; p++)
			fprintf(f, " %14s", share(b, sizeof(b), t[a].placed[p], placed));
		fputc('\n', f);
	}
}

/*
 * An arm's row of the fates table: loads, removed after one read, reloaded,
 * promoted, activated.
 */
static void trace_fate_row(FILE *f, const char *arm, const struct trace_folios *t)
{
	char one[32], again[32];

	fprintf(f, "  %-9s %6llu %17s %15s %8llu %9llu\n", arm, (unsigned long long)t->lives,
		share(one, sizeof(one), t->removed_one, t->lives),
		share(again, sizeof(again), t->reloaded, t->removed),
		(unsigned long long)t->promoted, (unsigned long long)t->activated);
}

/*
 * Seed 001's tables for a cell whose runs traced: where loaded folios were
 * first placed, and what became of them. 0 when no arm's run traced.
 */
static int trace_tables(FILE *f, struct store *s, const struct matrix_info *mi,
			const int64_t run[SPEC_MAX_ARMS], char *err)
{
	struct trace_folios t[SPEC_MAX_ARMS];
	unsigned a, any = 0, traced = 0;

	for (a = 0; a < mi->n_arms && a < SPEC_MAX_ARMS; a++) {
		t[a].status[0] = '\0';
		if (run[a] && store_trace_folios(s, run[a], &t[a], err) < 0)
			return -1;
		if (!t[a].status[0])
			continue;
		if (!any++)
			fputs(" sampled folios (trace):\n", f);
		if (strncmp(t[a].status, "on:", 3)) {
			fprintf(f, "  arm %s, run %lld: untraced,\n    %s\n", mi->arm_names[a],
				(long long)run[a], t[a].status);
			t[a].status[0] = '\0';       /* in no table below */
			continue;
		}
		fprintf(f, "  arm %s, run %lld: %s; lost %llu, refused %llu\n", mi->arm_names[a],
			(long long)run[a], t[a].status, (unsigned long long)t[a].lost,
			(unsigned long long)t[a].refused);
		traced++;
	}
	if (!traced)
		return 0;
	trace_place_rows(f, mi, t, 0);
	trace_place_rows(f, mi, t, 1);
	fprintf(f, "  %-9s %6s %17s %15s %8s %9s\n", "fate", "loads", "removed after one",
		"later reloaded", "promoted", "activated");
	for (a = 0; a < mi->n_arms && a < SPEC_MAX_ARMS; a++)
		if (t[a].status[0])
			trace_fate_row(f, mi->arm_names[a], &t[a]);
	return 1;
}

int lru_table(FILE *f, struct store *s, int64_t mid, const void *arg, char *err)
{
	_cleanup_free_ struct matrix_info *mi = calloc(1, sizeof(*mi));
	int64_t run[SPEC_MAX_ARMS];
	unsigned c, a;
	int traced = 0, rc;

	(void)arg;
	if (!mi)
		return errorf(err, "out of memory");
	if (store_matrix_info(s, mid, mi, err) < 0)
		return -1;
	for (c = 0; c < mi->n_cells; c++) {
		fprintf(f, "%s / %s\n", mi->name, mi->cell_names[c]);
		if (store_lru_cell_runs(s, mid, c, run, err) < 0)
			return -1;
		for (a = 0; a < mi->n_arms && a < SPEC_MAX_ARMS; a++)
			if (run[a] && arm_run(f, s, mi, c, a, run[a], err) < 0)
				return -1;
		if ((rc = trace_tables(f, s, mi, run, err)) < 0)
			return -1;
		traced |= rc;
	}
	fputs("measured intervals; counters: lru_gen_full's, each its largest while\n"
	      "the generation was the oldest; rf%: refaulted of evicted\n", f);
	if (traced)
		fputs("sampled folios, the whole run: a load is a page read into the page\n"
		      "cache; placed: where its first add put it (MGLRU's generation, or\n"
		      "the classic LRU's list), of the loads placed; removed after one:\n"
		      "loads removed before a second read() of the folio (a mapping's\n"
		      "touches are not seen), of all loads; later reloaded: of those\n"
		      "removed, loaded again; promoted (MGLRU's page-table walk) and\n"
		      "activated (the classic LRU): events\n", f);
	return 0;
}
