/* store_lru.h -- what the LRU did inside one run, read back for reports: its
 * generations (or the classic LRU's lists) per interval, its oldest generations' tiers. */
#ifndef STORE_LRU_H
#define STORE_LRU_H

#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"
#include "store/store.h"

#define LRU_RANKS 4        /* generations drawn by age: youngest .. oldest (more: the oldest) */
#define LRU_TIERS 4

/* One interval of one run, sizes in MiB. */
struct lru_point {
	double t_s;
	int ramp;
	int gens;                      /* the interval has MGLRU generations (else lists) */
	uint64_t max_seq;
	double file_mib[LRU_RANKS];    /* file pages of the youngest, ..., the oldest generation */
	double active_file, inactive_file, active_anon, inactive_anon;   /* NAN: not read */
};

/* Every stored interval of run, in order. *ret is malloc'd. */
int store_lru_points(struct store *s, int64_t run, struct lru_point **ret, size_t *ret_n,
		     char *err);

/*
 * One generation lru_gen_full gave tiers for (without CONFIG_LRU_GEN_STATS:
 * the oldest) in the measured intervals, all nodes: the largest of each
 * counter seen (they grow while it is the oldest, and restart with the next).
 */
struct lru_oldest {
	uint64_t gen;                  /* its seq */
	double first_s, last_s;        /* the intervals it was seen in */
	uint64_t evicted[LRU_TIERS], refaulted[LRU_TIERS], protected_[LRU_TIERS];   /* file */
};

/* A generation of store_lru_oldest_each: 0 goes on, -1 stops the read ("out of memory"). */
typedef int (*lru_oldest_fn)(void *arg, const struct lru_oldest *o);

/*
 * The run's measured oldest generations by seq, each to fn once its rows
 * are read (nothing kept: a long run's many generations stream).
 */
int store_lru_oldest_each(struct store *s, int64_t run, lru_oldest_fn fn, void *arg,
			  char *err);

/*
 * What a traced run's sampled folios did (trace_events), page by page in
 * the guest's order. A life runs from a load into the page cache to its
 * removal (or the run's end): placed where its first add put it, accessed
 * by read()s (folio_mark_accessed; a mapping's touches are not seen),
 * moved by MGLRU's page-table walk (promote) or the classic LRU's
 * activation, removed, and perhaps loaded again later (reloaded).
 */
struct trace_folios {
	char status[128];              /* runs.trace: "on: ..." or "off: why"; "" untraced */
	uint64_t lost, refused;        /* the guest's final counts */
	uint64_t pages, lives;         /* distinct sampled pages; loads */
	uint64_t placed[PL_COUNT];     /* lives by their first add's place */
	uint64_t removed, removed_one; /* lives that ended removed; of those, after <= 1 access */
	uint64_t reloaded;             /* removed lives whose page was loaded again */
	uint64_t promoted, activated;  /* events */
};

/* Run's trace, summed over its traced files. */
int store_trace_folios(struct store *s, int64_t run, struct trace_folios *out, char *err);

/* A cell's done runs, one per arm (the first), as run ids; 0: the arm has none. */
int store_lru_cell_runs(struct store *s, int64_t mid, unsigned cell,
			int64_t run[SPEC_MAX_ARMS], char *err);

#endif
