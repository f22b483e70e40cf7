/* lrutable.c -- the oldest generations' table: lru_gen_full's per-tier counters of
 * each generation while it was the oldest, as seed 000 quotes them, per arm's run. */
#include "output/lrutable.h"
#include "base/err.h"
#include "store/store_lru.h"

#include <stdlib.h>

static uint64_t sum4(const uint64_t *v)
{
	return v[0] + v[1] + v[2] + v[3];
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

static void gen_rows(FILE *f, const struct lru_oldest *o, size_t n)
{
	uint64_t ev[LRU_TIERS] = { 0 }, rf[LRU_TIERS] = { 0 }, pr[LRU_TIERS] = { 0 };
	size_t i;
	int t;

	fprintf(f, "  %10s %7s %7s %10s %10s %7s %10s\n", "gen seq", "from s", "to s", "evicted",
		"refaulted", "rf%", "protected");
	for (i = 0; i < n; i++) {
		fprintf(f, "  %10llu %7.1f %7.1f %10llu %10llu %6.1f%% %10llu\n",
			(unsigned long long)o[i].gen, o[i].first_s, o[i].last_s,
			(unsigned long long)sum4(o[i].evicted), (unsigned long long)sum4(o[i].refaulted),
			pct(sum4(o[i].refaulted), sum4(o[i].evicted)),
			(unsigned long long)sum4(o[i].protected_));
		for (t = 0; t < LRU_TIERS; t++) {
			ev[t] += o[i].evicted[t];
			rf[t] += o[i].refaulted[t];
			pr[t] += o[i].protected_[t];
		}
	}
	for (i = 0; i < n; i++)
		fprintf(f, "  generation seq %llu: %llu pages evicted and %llu pages refaulted, %.2f %%\n",
			(unsigned long long)o[i].gen, (unsigned long long)sum4(o[i].evicted),
			(unsigned long long)sum4(o[i].refaulted), pct(sum4(o[i].refaulted), sum4(o[i].evicted)));
	fputs("  by tier, these generations summed:\n", f);
	for (t = 0; t < LRU_TIERS; t++)
		fprintf(f, "    tier %d: %llu evicted, %llu refaulted, %llu protected\n", t,
			(unsigned long long)ev[t], (unsigned long long)rf[t], (unsigned long long)pr[t]);
}

static int arm_run(FILE *f, struct store *s, const struct matrix_info *mi, unsigned cell,
		   unsigned arm, int64_t run, char *err)
{
	struct lru_oldest *o = NULL;
	size_t n = 0;

	if (store_lru_oldest(s, run, &o, &n, err) < 0)
		return -1;
	fprintf(f, " arm %s, run %lld, lru_gen %s: ", mi->arm_names[arm], (long long)run,
		mi->cell_lru[cell][arm][0] ? mi->cell_lru[cell][arm] : "-");
	if (!n)
		fputs("no generation with tiers\n  (MGLRU off, or a kernel without"
		      " lru_gen_full)\n", f);
	else {
		fputs("oldest generations, file pages\n", f);
		gen_rows(f, o, n);
	}
	free(o);
	return 0;
}

int lru_table(FILE *f, struct store *s, int64_t mid, const void *arg, char *err)
{
	_cleanup_free_ struct matrix_info *mi = calloc(1, sizeof(*mi));
	int64_t run[SPEC_MAX_ARMS];
	unsigned c, a;

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
	}
	fputs("measured intervals; counters: lru_gen_full's, each its largest while\n"
	      "the generation was the oldest; rf%: refaulted of evicted\n", f);
	return 0;
}
