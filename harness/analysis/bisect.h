/* bisect.h -- `harness bisect`: the first patch of a series that moves a
 * metric, searched over the series' prefixes with a verdict at every step. */
#ifndef BISECT_H
#define BISECT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/verdict.h"
#include "base/err.h"

#define BISECT_MAX_PREFIXES 513      /* a series of SERIES_MAX_PATCHES, and none */
#define BISECT_MAX_BLOCKS   24       /* --max-blocks by default: per step */
#define BISECT_KEY_MAX      72       /* a build's identity (its build key) */
#define BISECT_BLOCK_RUNS   4        /* a step's block: ABBA, two runs of each prefix */
#define BISECT_BOOT_MIN_S   5        /* the least a run adds to its workload: a guest's boot */

/* What a prefix is to the search. */
enum bisect_class {
	BISECT_UNTESTED,
	BISECT_GOOD,        /* SAME as GOOD, or DIFFERENT well inside BAD's effect */
	BISECT_BAD,         /* DIFFERENT in BAD's direction, well past half its effect */
	BISECT_SKIP,        /* does not apply, build, boot or run: git bisect's 125 */
	BISECT_UNDECIDED,   /* neither within --max-blocks (or the budget): never guessed */
};

/*
 * A step's class from its verdict against GOOD, given effect (BAD vs GOOD,
 * relative, != 0) and with h = |effect| / 2, the delta signed so that BAD's
 * direction is positive: BAD if DIFFERENT and the confidence sequence lies
 * above h; GOOD if SAME or the (bounded) sequence lies below h; else
 * UNDECIDED. A step is thus wrong only where its sequence misses the true
 * delta, which it does with probability COMPARE_ALPHA however often it is
 * looked at.
 */
enum bisect_class bisect_classify(const struct verdict *v, double effect);

/* What one look at a step gives. */
struct bisect_look {
	struct verdict v;
	unsigned runs;          /* the step's runs so far (every look), done or not */
	double wall_s;          /* their wall time */
	int reused;             /* a look at 0 blocks only: decided by runs measured before
				 * (the user's own matrix), why says where */
	int skip;               /* the candidate did not boot or run: why says so */
	char why[ERR_MAX];
};

/*
 * Where prefixes are built and measured (harness bisect's, or a simulation's).
 *  build:   prefix k's kernel into key (the build key: the same key is the same
 *           kernel); 1 with why if it cannot be built (a patch that does not
 *           apply, a compile error), 0 if built, -1 with err.
 *  measure: prefix k against prefix base in the step called step ("confirm",
 *           "search", "check") at blocks ABBA blocks at least (the blocks it
 *           has stay, more are added); 0 with *out, -1 with err. The
 *           confirmation is first asked with blocks 0: what is known without
 *           running anything (reused set, and a verdict, if anything is).
 *  tell:    one progress line.
 */
struct bisect_ops {
	int (*build)(void *arg, unsigned k, char *key, char *why, char *err);
	int (*measure)(void *arg, const char *step, unsigned base, unsigned k, unsigned blocks,
		       struct bisect_look *out, char *err);
	void (*tell)(void *arg, const char *line);
	void *arg;
};

struct bisect_opts {
	unsigned good, bad;     /* GOOD's and BAD's prefixes of the series, good < bad */
	unsigned max_blocks;    /* per step, >= COMPARE_MIN_BLOCKS */
	unsigned max_runs;      /* in all; 0: no limit */
	double max_hours;       /* of runs' wall time in all; 0: no limit */
};

/* One step of the search, as the table prints it. */
struct bisect_step {
	char what[12];          /* "confirm", "build", "same", "search", "check" */
	unsigned base, prefix;  /* prefix measured against base */
	enum bisect_class cls;
	int measured;           /* v is a verdict */
	struct verdict v;
	unsigned runs;
	double wall_s;
	char note[ERR_MAX];     /* why skipped, "the same kernel as p2", "reused" */
};

enum bisect_outcome {
	BISECT_FOUND,           /* first bad patch hi, confirmed against its parent */
	BISECT_RANGE,           /* first bad patch one of lo+1..hi (skips, undecided steps) */
	BISECT_UNCONFIRMED,     /* hi looked like the one, its check against lo did not hold */
	BISECT_NOT_DIFFERENT,   /* BAD is not DIFFERENT from GOOD: nothing to bisect */
	BISECT_BUDGET,          /* --max-runs / --max-hours spent: the range so far */
};

struct bisect_result {
	enum bisect_outcome outcome;
	unsigned lo, hi;        /* prefix lo is like GOOD, hi like BAD */
	double effect;          /* BAD vs GOOD, relative */
	int builds_up;          /* no single patch: part of the effect came before hi */
	struct bisect_step *steps;
	size_t n_steps, cap_steps;
	unsigned runs, builds, build_failed, same_kernel;
	double wall_s;
	char why[ERR_MAX];      /* one line: what was found, or why not */
	enum bisect_class cls[BISECT_MAX_PREFIXES];
	char keys[BISECT_MAX_PREFIXES][BISECT_KEY_MAX];
};

/*
 * The search: confirm BAD against GOOD (stop unless DIFFERENT); build every
 * prefix between them, so failures and identical kernels are known before
 * the first measured step and no build falls between blocks; a prefix with
 * the kernel of one already classed takes its class; then binary search over
 * the untested prefixes, each measured against GOOD and grown while
 * UNDECIDED (by what the verdict says would decide, up to max_blocks); at
 * the end, the first bad patch against its parent, which must be DIFFERENT
 * again in BAD's direction. Returns 0 with *r (bisect_release it), or -1
 * with err.
 */
int bisect_run(const struct bisect_opts *o, const struct bisect_ops *ops, struct bisect_result *r,
	       char *err);

/* Free what bisect_run put in r. */
void bisect_release(struct bisect_result *r);

/*
 * The budget's floor: max_runs (0: no limit) at least one block's
 * BISECT_BLOCK_RUNS runs, max_hours (0: no limit) at least one block's time,
 * BISECT_BLOCK_RUNS x (duration_s + BISECT_BOOT_MIN_S), duration_s the
 * cell's workload's. Anything less could not run the first step. 0, or -1
 * with one line naming the field and the floor.
 */
int bisect_budget_check(unsigned max_runs, double max_hours, double duration_s, char *err);

/* The names the result and the API use for a step's class and the outcome. */
const char *bisect_class_name(enum bisect_class c);
const char *bisect_outcome_name(enum bisect_outcome o);

/* Patch k (1 ..) of BAD's series, as its build recorded it. */
struct bisect_patch {
	const char *subject, *msgid;
};

/*
 * The result as a table (p[0..n_p): BAD's patches, for subjects and
 * message-ids), and as JSON:
 *   {"outcome", "why", "effect", "lo", "hi", "builds_up", "runs", "wall_s",
 *    "builds", "build_failed", "same_kernel",
 *    "culprit": {"patch": N, "subject", "msgid"} (found only),
 *    "steps": [{"step", "base", "prefix", "class", "verdict", "delta", "lo",
 *               "hi", "blocks", "runs", "wall_s", "note"}]}
 */
void bisect_print(FILE *f, const struct bisect_result *r, const struct bisect_patch *p,
		  size_t n_p);
json_t *bisect_json(const struct bisect_result *r, const struct bisect_patch *p, size_t n_p);

#endif
