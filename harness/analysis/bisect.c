/* bisect.c -- the search behind `harness bisect`: BAD confirmed against GOOD,
 * every prefix built, a binary search with a verdict per step, the culprit checked. */
#include "analysis/bisect.h"
#include "analysis/stats.h"
#include "common/fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {
	[BISECT_UNTESTED] = "untested", [BISECT_GOOD] = "good", [BISECT_BAD] = "bad",
	[BISECT_SKIP] = "skip", [BISECT_UNDECIDED] = "undecided",
};
static const char *const outcome_names[] = {
	[BISECT_FOUND] = "found", [BISECT_RANGE] = "range", [BISECT_UNCONFIRMED] = "unconfirmed",
	[BISECT_NOT_DIFFERENT] = "not different", [BISECT_BUDGET] = "budget",
};

const char *bisect_class_name(enum bisect_class c)
{
	return class_names[c];
}

const char *bisect_outcome_name(enum bisect_outcome o)
{
	return outcome_names[o];
}

/* The sequence [lo, hi] signed so that effect's direction is positive. */
static void toward(const struct verdict *v, double effect, double *lo, double *hi)
{
	*lo = effect < 0 ? -v->hi : v->lo;
	*hi = effect < 0 ? -v->lo : v->hi;
}

enum bisect_class bisect_classify(const struct verdict *v, double effect)
{
	double lo, hi, h = fabs(effect) / 2;

	toward(v, effect, &lo, &hi);
	if (v->kind == VERDICT_DIFFERENT && lo > h)
		return BISECT_BAD;
	if (v->kind == VERDICT_SAME || (v->blocks >= COMPARE_MIN_BLOCKS && isfinite(hi) && hi < h))
		return BISECT_GOOD;
	return BISECT_UNDECIDED;
}

/* confirm: is BAD DIFFERENT from GOOD at all; check: the culprit DIFFERENT again, BAD's way. */
static enum bisect_class step_class(const char *what, const struct verdict *v, double effect)
{
	int toward_bad = v->kind == VERDICT_DIFFERENT && (v->delta < 0) == (effect < 0);

	if (!strcmp(what, "confirm"))
		return v->kind == VERDICT_DIFFERENT ? BISECT_BAD :
		       v->kind == VERDICT_UNKNOWN ? BISECT_UNDECIDED : BISECT_GOOD;
	if (!strcmp(what, "check"))
		return toward_bad ? BISECT_BAD :
		       v->kind == VERDICT_UNKNOWN ? BISECT_UNDECIDED : BISECT_GOOD;
	return bisect_classify(v, effect);
}

/* A line of progress to ops->tell, if set. */
static void say(const struct bisect_ops *ops, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct bisect_ops *ops, const char *fmt, ...)
{
	char line[ERR_MAX];
	va_list ap;

	if (!ops->tell)
		return;
	va_start(ap, fmt);
	vfmtcut(line, sizeof(line), fmt, ap);
	va_end(ap);
	ops->tell(ops->arg, line);
}

/*
 * A step appended to the result (grown by doubling); -1 with err out of
 * memory.
 */
static int push_step(struct bisect_result *r, const struct bisect_step *st, char *err)
{
	struct bisect_step *n;

	if (r->n_steps == r->cap_steps) {
		r->cap_steps = r->cap_steps ? 2 * r->cap_steps : 16;
		if (!(n = realloc(r->steps, r->cap_steps * sizeof(*n))))
			return errorf(err, "out of memory");
		r->steps = n;
	}
	r->steps[r->n_steps++] = *st;
	return 0;
}

int bisect_budget_check(unsigned max_runs, double max_hours, double duration_s, char *err)
{
	double block_s = BISECT_BLOCK_RUNS * (duration_s + BISECT_BOOT_MIN_S);

	if (max_runs && max_runs < BISECT_BLOCK_RUNS)
		return errorf(err, "bisect: max_runs %u: expected at least one block's %d runs, "
			      "or 0 for no limit", max_runs, BISECT_BLOCK_RUNS);
	if (max_hours > 0 && max_hours * 3600 < block_s)
		return errorf(err, "bisect: max_hours %g: expected at least one block's time, "
			      "%.0f s (%d runs of %.0f s and a boot each), or 0 for no limit",
			      max_hours, block_s, BISECT_BLOCK_RUNS, duration_s);
	return 0;
}

static int spent(const struct bisect_opts *o, const struct bisect_result *r)
{
	return (o->max_runs && r->runs >= o->max_runs) ||
	       (o->max_hours > 0 && r->wall_s >= o->max_hours * 3600);
}

/* The blocks to grow an undecided step to: what its verdict says would decide
 * (at most doubling, at least 2 more), within max; 0 if it is at max. */
static unsigned grow_to(unsigned blocks, const struct verdict *v, unsigned max)
{
	unsigned add = blocks / 2;

	if (blocks >= max)
		return 0;
	if (v->kind == VERDICT_UNKNOWN && v->more > 0 && v->more < STATS_MORE_MAX)
		add = v->more;
	add = add < 2 ? 2 : add > blocks ? blocks : add;
	return blocks + add < max ? blocks + add : max;
}

/* Would growing to blocks runs past --max-runs (4 runs a block of two arms)? */
static int grow_spent(const struct bisect_opts *o, const struct bisect_result *r,
		      unsigned from, unsigned to)
{
	return spent(o, r) || (o->max_runs && r->runs + 4 * (to - from) > o->max_runs);
}

/*
 * Measure k against base in step what, grown while UNDECIDED; *st the step,
 * *ret_budget 1 if it stopped for the budget. The result's runs and wall time
 * grow by what the step added.
 */
static int measure_step(const struct bisect_opts *o, const struct bisect_ops *ops,
			struct bisect_result *r, const char *what, unsigned base, unsigned k,
			struct bisect_step *st, int *ret_budget, char *err)
{
	struct bisect_look lk;
	unsigned blocks = COMPARE_MIN_BLOCKS, next, runs0 = 0;
	double wall0 = 0;

	memset(st, 0, sizeof(*st));
	if (fmtbuf(st->what, sizeof(st->what), "%s", what) < 0)
		return errorf(err, "bisect: step '%s' over %zu characters", what,
			      sizeof(st->what) - 1);
	st->base = base;
	st->prefix = k;
	*ret_budget = 0;
	/* the confirmation may be known already, at no cost: the matrix's own blocks */
	if (!strcmp(what, "confirm")) {
		memset(&lk, 0, sizeof(lk));
		if (ops->measure(ops->arg, what, base, k, 0, &lk, err) < 0)
			return -1;
		if (lk.reused && lk.v.kind != VERDICT_UNKNOWN) {
			st->measured = 1;
			st->v = lk.v;
			st->cls = step_class(what, &lk.v, r->effect);
			fmtcut(st->note, sizeof(st->note), "measured before: %.400s", lk.why);
			return 0;
		}
	}
	if (grow_spent(o, r, 0, blocks)) {
		st->cls = BISECT_UNDECIDED;
		fmtcut(st->note, sizeof(st->note), "not started: its first %u blocks would "
			 "spend the budget", blocks);
		*ret_budget = 1;
		return 0;
	}
	for (;;) {
		memset(&lk, 0, sizeof(lk));
		if (ops->measure(ops->arg, what, base, k, blocks, &lk, err) < 0)
			return -1;
		r->runs += lk.runs - runs0;
		r->wall_s += lk.wall_s - wall0;
		runs0 = lk.runs;
		wall0 = lk.wall_s;
		st->runs = lk.runs;
		st->wall_s = lk.wall_s;
		if (lk.skip) {
			st->cls = BISECT_SKIP;
			fmtcut(st->note, sizeof(st->note), "%s", lk.why);
			return 0;
		}
		st->measured = 1;
		st->v = lk.v;
		if ((st->cls = step_class(what, &lk.v, r->effect)) != BISECT_UNDECIDED)
			return 0;
		if (!(next = grow_to(blocks, &lk.v, o->max_blocks))) {
			fmtcut(st->note, sizeof(st->note), "undecided at %zu blocks (--max-blocks %u)",
				 lk.v.blocks, o->max_blocks);
			return 0;
		}
		if (grow_spent(o, r, blocks, next)) {
			fmtcut(st->note, sizeof(st->note), "undecided at %zu blocks when the budget "
				 "ran out", lk.v.blocks);
			*ret_budget = 1;
			return 0;
		}
		say(ops, "%s p%u against p%u: undecided at %zu blocks (%+.2f%%), growing to %u",
		    what, k, base, lk.v.blocks, 100 * lk.v.delta, next);
		blocks = next;
	}
}

/* Every untested prefix with k's kernel takes k's class, told as a step of its own. */
static int same_kernel(struct bisect_result *r, unsigned k, const struct bisect_opts *o,
		       char *err)
{
	struct bisect_step st;

	for (unsigned j = o->good; j <= o->bad; j++) {
		if (j == k || r->cls[j] != BISECT_UNTESTED || strcmp(r->keys[j], r->keys[k]))
			continue;
		r->cls[j] = r->cls[k];
		r->same_kernel++;
		memset(&st, 0, sizeof(st));
		if (fmtbuf(st.what, sizeof(st.what), "same") < 0)
			return errorf(err, "bisect: step 'same' over %zu characters",
				      sizeof(st.what) - 1);
		st.base = k;
		st.prefix = j;
		st.cls = r->cls[k];
		fmtcut(st.note, sizeof(st.note), "the same kernel as p%u (build key %.8s): "
			 "its measurement reused", k, r->keys[k]);
		if (push_step(r, &st, err) < 0)
			return -1;
	}
	return 0;
}

/* Build GOOD, every prefix between and BAD; a failure skips its prefix. */
static int build_all(const struct bisect_opts *o, const struct bisect_ops *ops,
		     struct bisect_result *r, char *err)
{
	struct bisect_step st;
	int rc;

	for (unsigned k = o->good; k <= o->bad; k++) {
		memset(&st, 0, sizeof(st));
		say(ops, "build p%u (%u of %u patches)", k, k, o->bad);
		if ((rc = ops->build(ops->arg, k, r->keys[k], st.note, err)) < 0)
			return -1;
		r->builds++;
		if (rc == 0)
			continue;
		if (k == o->good || k == o->bad)
			return errorf(err, "p%u (%s) no longer builds: %s", k,
				      k == o->good ? "GOOD" : "BAD", st.note);
		r->cls[k] = BISECT_SKIP;
		r->build_failed++;
		if (fmtbuf(st.what, sizeof(st.what), "build") < 0)
			return errorf(err, "bisect: step 'build' over %zu characters",
				      sizeof(st.what) - 1);
		st.base = st.prefix = k;
		st.cls = BISECT_SKIP;
		if (push_step(r, &st, err) < 0)
			return -1;
	}
	r->cls[o->good] = BISECT_GOOD;
	r->cls[o->bad] = BISECT_BAD;
	return same_kernel(r, o->good, o, err) < 0 ? -1 : same_kernel(r, o->bad, o, err);
}

/* hi: the first prefix like BAD; lo: the last like GOOD below it. */
static void bounds(const struct bisect_opts *o, struct bisect_result *r)
{
	unsigned k;

	for (k = o->good; k < o->bad && r->cls[k] != BISECT_BAD; k++)
		;
	r->hi = k;
	for (k = r->hi; k > o->good && r->cls[k] != BISECT_GOOD; k--)
		;
	r->lo = k;
}

/* The untested prefix nearest the middle of (lo, hi), the lower of two; 0 if none. */
static unsigned pick(const struct bisect_result *r)
{
	unsigned best = 0, k;
	double mid = (r->lo + r->hi) / 2.0, d = INFINITY;

	for (k = r->lo + 1; k < r->hi; k++)
		if (r->cls[k] == BISECT_UNTESTED && fabs(k - mid) < d) {
			d = fabs(k - mid);
			best = k;
		}
	return best;
}

/* Binary search; *ret_budget 1 if the budget stopped it. */
static int search(const struct bisect_opts *o, const struct bisect_ops *ops,
		  struct bisect_result *r, int *ret_budget, char *err)
{
	struct bisect_step st;
	unsigned k;

	*ret_budget = 0;
	for (bounds(o, r); (k = pick(r)) != 0; bounds(o, r)) {
		if (spent(o, r)) {
			*ret_budget = 1;
			return 0;
		}
		say(ops, "search: the first bad patch is one of %u..%u; measuring p%u", r->lo + 1,
		    r->hi, k);
		if (measure_step(o, ops, r, "search", o->good, k, &st, ret_budget, err) < 0 ||
		    push_step(r, &st, err) < 0)
			return -1;
		r->cls[k] = st.cls;
		if (same_kernel(r, k, o, err) < 0)
			return -1;
		if (*ret_budget)
			return 0;
	}
	return 0;
}

/*
 * Part of the effect came before the culprit, or a step sits between GOOD and
 * BAD: a step like GOOD that is yet DIFFERENT BAD's way, an undecided one
 * bounded away from GOOD, or a culprit whose own effect's sequence lies
 * wholly below BAD's (steps[0], the confirmation).
 */
static int builds_up(const struct bisect_result *r)
{
	const struct bisect_step *st;
	double lo, hi, whole_lo, whole_hi;

	toward(&r->steps[0].v, r->effect, &whole_lo, &whole_hi);
	for (st = r->steps; st < r->steps + r->n_steps; st++) {
		if (!st->measured)
			continue;
		toward(&st->v, r->effect, &lo, &hi);
		if (!strcmp(st->what, "search") && st->cls == BISECT_GOOD &&
		    st->v.kind == VERDICT_DIFFERENT && lo > 0)
			return 1;
		if (!strcmp(st->what, "search") && st->cls == BISECT_UNDECIDED && lo > 0)
			return 1;
		if (!strcmp(st->what, "check") && st->cls == BISECT_BAD && hi < whole_lo)
			return 1;
	}
	return 0;
}

/*
 * Why the search ends at a range, not a patch: how it got there, and which
 * patch (or prefixes) it could not tell apart.
 */
static void range_why(struct bisect_result *r, const char *how)
{
	if (r->hi == r->lo + 1)
		fmtcut(r->why, sizeof(r->why), "%sthe first bad patch is %u, not checked against "
			 "its parent", how, r->hi);
	else
		fmtcut(r->why, sizeof(r->why), "%sthe first bad patch is one of %u..%u (prefixes "
			 "between skipped or undecided)", how, r->lo + 1, r->hi);
}

/* Check the first bad patch against its parent. */
static int check(const struct bisect_opts *o, const struct bisect_ops *ops,
		 struct bisect_result *r, char *err)
{
	struct bisect_step st;
	int budget;

	say(ops, "check: p%u against its parent p%u", r->hi, r->lo);
	if (measure_step(o, ops, r, "check", r->lo, r->hi, &st, &budget, err) < 0 ||
	    push_step(r, &st, err) < 0)
		return -1;
	if (st.cls == BISECT_BAD) {
		r->outcome = BISECT_FOUND;
		fmtcut(r->why, sizeof(r->why), "patch %u is the first bad one: %+.2f%% against "
			 "its parent over %zu blocks (BAD against GOOD: %+.2f%%)", r->hi,
			 100 * st.v.delta, st.v.blocks, 100 * r->effect);
		return 0;
	}
	if (budget && !st.measured) {
		r->outcome = BISECT_BUDGET;
		range_why(r, "the budget ran out: ");
		return 0;
	}
	r->outcome = budget ? BISECT_BUDGET : BISECT_UNCONFIRMED;
	fmtcut(r->why, sizeof(r->why), "patch %u looked like the first bad one, but against its "
		 "parent p%u it is %s after %zu blocks%s", r->hi, r->lo,
		 st.cls == BISECT_UNDECIDED ? "undecided" : verdict_name(st.v.kind), st.v.blocks,
		 budget ? " (the budget ran out)" : "");
	return 0;
}

int bisect_run(const struct bisect_opts *o, const struct bisect_ops *ops, struct bisect_result *r,
	       char *err)
{
	struct bisect_step st;
	int budget;

	memset(r, 0, sizeof(*r));
	if (o->good >= o->bad || o->bad >= BISECT_MAX_PREFIXES)
		return errorf(err, "GOOD must be a shorter prefix of the series than BAD "
			      "(p%u, p%u)", o->good, o->bad);
	if (o->max_blocks < COMPARE_MIN_BLOCKS)
		return errorf(err, "--max-blocks: expected at least %d", COMPARE_MIN_BLOCKS);
	r->lo = o->good;
	r->hi = o->bad;
	say(ops, "confirm: p%u (BAD) against p%u (GOOD)", o->bad, o->good);
	if (measure_step(o, ops, r, "confirm", o->good, o->bad, &st, &budget, err) < 0 ||
	    push_step(r, &st, err) < 0)
		return -1;
	if (st.cls != BISECT_BAD) {
		r->outcome = budget ? BISECT_BUDGET : BISECT_NOT_DIFFERENT;
		fmtcut(r->why, sizeof(r->why), "BAD against GOOD is %s after %zu blocks: nothing "
			 "to bisect%s%.400s", st.cls == BISECT_SKIP ? "not measured" :
			 st.cls == BISECT_UNDECIDED ? "undecided" : verdict_name(st.v.kind),
			 st.v.blocks, st.note[0] ? "; " : "", st.note);
		return 0;
	}
	r->effect = st.v.delta;
	if (build_all(o, ops, r, err) < 0)
		return -1;
	if (!strcmp(r->keys[o->good], r->keys[o->bad])) {
		r->outcome = BISECT_NOT_DIFFERENT;
		fmtcut(r->why, sizeof(r->why), "GOOD and BAD are the same kernel (build key %.8s): "
			 "what differs is not in the series", r->keys[o->good]);
		return 0;
	}
	if (search(o, ops, r, &budget, err) < 0)
		return -1;
	bounds(o, r);
	if (budget || (r->hi == r->lo + 1 && spent(o, r))) {
		r->outcome = BISECT_BUDGET;
		range_why(r, "the budget ran out: ");
	} else if (r->hi != r->lo + 1) {
		r->outcome = BISECT_RANGE;
		range_why(r, "");
	} else if (check(o, ops, r, err) < 0) {
		return -1;
	}
	r->builds_up = builds_up(r);
	return 0;
}

void bisect_release(struct bisect_result *r)
{
	free(r->steps);
	r->steps = NULL;
	r->n_steps = r->cap_steps = 0;
}

/* ---- output ---- */

static void print_time(FILE *f, double s)
{
	if (s < 60)
		fprintf(f, "%5.0fs", s);
	else if (s < 3600)
		fprintf(f, "%2.0fm%02.0fs", floor(s / 60), fmod(s, 60));
	else
		fprintf(f, "%2.0fh%02.0fm", floor(s / 3600), floor(fmod(s, 3600) / 60));
}

/* A verdict's interval in %, or "(unbounded)" while too few blocks. */
static void print_interval(FILE *f, const struct verdict *v)
{
	char buf[48];

	if (isfinite(v->lo) && isfinite(v->hi))
		fmtcut(buf, sizeof(buf), "[%+.1f%%, %+.1f%%]", 100 * v->lo, 100 * v->hi);
	else
		fmtcut(buf, sizeof(buf), "(unbounded)");
	fprintf(f, " %19s", buf);
}

/*
 * One step of the bisection's table: what, prefix and base, its class, and
 * if it was measured its verdict, blocks, delta, interval, runs and time.
 */
static void print_step(FILE *f, const struct bisect_step *st)
{
	fprintf(f, "%-8s p%-5u p%-6u %-10s", st->what, st->prefix, st->base,
		bisect_class_name(st->cls));
	if (st->measured) {
		fprintf(f, " %-10s %6zu %+8.2f%%", verdict_name(st->v.kind), st->v.blocks,
			100 * st->v.delta);
		print_interval(f, &st->v);
		fprintf(f, " %5u ", st->runs);
		print_time(f, st->wall_s);
	} else {
		fprintf(f, " %-10s %6s %9s %19s %5s %6s", "-", "-", "-", "-", "-", "-");
	}
	fprintf(f, "%s%s\n", st->note[0] ? "  " : "", st->note);
}

static const struct bisect_patch *patch_of(unsigned k, const struct bisect_patch *p, size_t n)
{
	return k >= 1 && k <= n ? &p[k - 1] : NULL;
}

void bisect_print(FILE *f, const struct bisect_result *r, const struct bisect_patch *p,
		  size_t n_p)
{
	const struct bisect_patch *c = patch_of(r->hi, p, n_p);
	size_t i;

	fprintf(f, "%-8s %-6s %-7s %-10s %-10s %6s %9s %19s %5s %6s\n", "step", "prefix",
		"against", "class", "verdict", "blocks", "delta", "interval", "runs", "wall");
	for (i = 0; i < r->n_steps; i++)
		print_step(f, &r->steps[i]);
	fprintf(f, "\n%s: %s\n", bisect_outcome_name(r->outcome), r->why);
	if (r->outcome == BISECT_FOUND && c)
		fprintf(f, "first bad patch: %u/%zu '%s' <%s>\n", r->hi, n_p, c->subject,
			c->msgid[0] ? c->msgid : "no message-id");
	else if (r->outcome == BISECT_RANGE || r->outcome == BISECT_BUDGET)
		for (unsigned k = r->lo + 1; k <= r->hi; k++)
			if ((c = patch_of(k, p, n_p)))
				fprintf(f, "  candidate %u/%zu '%s' (%s)\n", k, n_p, c->subject,
					bisect_class_name(r->cls[k]));
	if (r->builds_up) {
		fputs("the effect builds up over several patches, no single one carries it; "
		      "the steps' deltas against GOOD:", f);
		for (i = 0; i < r->n_steps; i++)
			if (r->steps[i].measured && !strcmp(r->steps[i].what, "search"))
				fprintf(f, " p%u %+.2f%%", r->steps[i].prefix,
					100 * r->steps[i].v.delta);
		fputc('\n', f);
	}
	fprintf(f, "cost: %u runs, ", r->runs);
	print_time(f, r->wall_s);
	fprintf(f, " of runs, %u builds (%u failed, %u the same kernel as another prefix)\n",
		r->builds, r->build_failed, r->same_kernel);
}

/* A number as JSON; null when not finite. */
static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* One step as JSON (null for what was not measured). */
static json_t *step_json(const struct bisect_step *st)
{
	return json_pack("{s:s, s:I, s:I, s:s, s:s?, s:o, s:o, s:o, s:I, s:I, s:f, s:s}",
			 "step", st->what, "base", (json_int_t)st->base, "prefix",
			 (json_int_t)st->prefix, "class", bisect_class_name(st->cls), "verdict",
			 st->measured ? verdict_name(st->v.kind) : NULL,
			 "delta", st->measured ? num(st->v.delta) : json_null(),
			 "lo", st->measured ? num(st->v.lo) : json_null(),
			 "hi", st->measured ? num(st->v.hi) : json_null(),
			 "blocks", (json_int_t)(st->measured ? st->v.blocks : 0),
			 "runs", (json_int_t)st->runs, "wall_s", st->wall_s, "note", st->note);
}

json_t *bisect_json(const struct bisect_result *r, const struct bisect_patch *p, size_t n_p)
{
	const struct bisect_patch *c = patch_of(r->hi, p, n_p);
	json_t *steps = json_array(), *o;
	size_t i;

	for (i = 0; steps && i < r->n_steps; i++)
		json_array_append_new(steps, step_json(&r->steps[i]));
	o = json_pack("{s:s, s:s, s:o, s:I, s:I, s:b, s:I, s:f, s:I, s:I, s:I, s:o}",
		      "outcome", bisect_outcome_name(r->outcome), "why", r->why,
		      "effect", num(r->effect), "lo", (json_int_t)r->lo, "hi", (json_int_t)r->hi,
		      "builds_up", r->builds_up, "runs", (json_int_t)r->runs, "wall_s", r->wall_s,
		      "builds", (json_int_t)r->builds, "build_failed", (json_int_t)r->build_failed,
		      "same_kernel", (json_int_t)r->same_kernel, "steps", steps);
	if (o && r->outcome == BISECT_FOUND && c)
		json_object_set_new(o, "culprit", json_pack("{s:I, s:s, s:s}", "patch",
							     (json_int_t)r->hi, "subject", c->subject,
							     "msgid", c->msgid));
	return o;
}
