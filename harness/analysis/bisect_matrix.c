/* bisect_matrix.c -- a bisection of a stored matrix: GOOD and BAD checked,
 * prefixes built from BAD's arm, each step a matrix of its own, its verdict. */
#include "analysis/bisect_matrix.h"
#include "analysis/compare.h"
#include "analysis/metric.h"
#include "base/err.h"
#include "store/store.h"
#include "store/store_bisect.h"
#include "common/fmt.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct bisect_matrix {
	const struct conf *c;
	struct bisect_hooks h;
	struct bisect_opts o;
	char key[SPEC_NAME_MAX + 24], cell[CELL_NAME_MAX], good[SPEC_NAME_MAX], bad[SPEC_NAME_MAX];
	const struct metric *metric;
	int64_t mid;
	char name[SPEC_NAME_MAX], base_dir[PATH_MAX], id[24];
	char *spec;                 /* the matrix's spec as queued */
	json_t *bad_arm;            /* BAD as expanded: the template of every prefix */
	json_t *patches;            /* BAD's build's [{subject, msgid}] */
	unsigned good_k, bad_k;
	struct bisect_patch p[BISECT_MAX_PREFIXES];
};

static void release(struct bisect_matrix *x)
{
	free(x->spec);
	json_decref(x->bad_arm);
	json_decref(x->patches);
}

/* A line of progress to the caller's tell hook, if it has one. */
static void tell(const struct bisect_matrix *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tell(const struct bisect_matrix *x, const char *fmt, ...)
{
	char line[ERR_MAX];
	va_list ap;

	if (!x->h.tell)
		return;
	va_start(ap, fmt);
	vfmtcut(line, sizeof(line), fmt, ap);
	va_end(ap);
	x->h.tell(x->h.arg, line);
}

/* ---- the matrix, GOOD and BAD, checked before anything builds ---- */

/* The expanded arm called name, a copy; NULL if none. */
static json_t *arm_json(const char *spec, const char *name)
{
	json_auto_t *root = json_loads(spec, 0, NULL);
	json_auto_t *arms = root ? spec_expand_arms(json_object_get(root, "arms")) : NULL;
	json_t *a;
	size_t i;

	json_array_foreach(arms, i, a) {
		const char *n = json_string_value(json_object_get(a, "name"));
		if (n && !strcmp(n, name))
			return json_deep_copy(a);
	}
	return NULL;
}

/* The first key in which a and b differ but for what makes them GOOD and BAD; NULL if none. */
static const char *differs(json_t *a, json_t *b)
{
	static const char *const mine[] = { "name", "tag", "patches", "apply" };
	json_t *side[2] = { a, b }, *v;
	const char *k;

	for (int s = 0; s < 2; s++)
		json_object_foreach(side[s], k, v) {
			int skip = 0;
			for (size_t i = 0; i < ARRAY_SIZE(mine); i++)
				skip |= !strcmp(k, mine[i]);
			if (!skip && !json_equal(json_object_get(a, k), json_object_get(b, k)))
				return k;
		}
	return NULL;
}

/* The index of the arm called name in m, or -1. */
static int arm_index(const struct matrix *m, const char *name)
{
	for (unsigned i = 0; i < m->n_arms; i++)
		if (!strcmp(m->arms[i].name, name))
			return (int)i;
	return -1;
}

/* The cell called name, or NULL. */
static const struct cell *cell_find(const struct matrix *m, const char *name)
{
	for (unsigned i = 0; i < m->n_cells; i++)
		if (!strcmp(m->cells[i].name, name))
			return &m->cells[i];
	return NULL;
}

/* The first arch's patches of an arm's stored build. */
static json_t *build_patches(const struct arm *a)
{
	json_auto_t *b = a->build_json ? json_loads(a->build_json, 0, NULL) : NULL;
	json_t *p = json_object_get(json_array_get(b, 0), "patches");

	return json_is_array(p) ? json_incref(p) : NULL;
}

/* GOOD's and BAD's builds: GOOD's patches the first of BAD's. */
static int arms_ok(struct bisect_matrix *x, const struct matrix *m, const struct arm *g, const struct arm *b,
		   char *err)
{
	json_auto_t *gp = NULL;
	size_t i;

	for (const struct arm *a = g; a; a = a == g ? b : NULL) {
		if (!spec_arm_built(a))
			return errorf(err, "bisect: arm '%s' of matrix '%s' is not built from source: "
				      "GOOD and BAD must be source arms", a->name, m->name);
		if (!a->build_json)
			return errorf(err, "bisect: arm '%s' of matrix '%s' has no build: %s",
				      a->name, m->name, a->failed[0] ? a->failed : "not resolved");
	}
	gp = build_patches(g);
	if (!(x->patches = build_patches(b)) || !gp)
		return errorf(err, "bisect: matrix '%s': its builds list no patches", m->name);
	x->good_k = (unsigned)json_array_size(gp);
	x->bad_k = (unsigned)json_array_size(x->patches);
	if (x->bad_k >= BISECT_MAX_PREFIXES || x->good_k >= x->bad_k)
		return errorf(err, "bisect: BAD '%s' has %u patches and GOOD '%s' %u: BAD must "
			      "have more", b->name, x->bad_k, g->name, x->good_k);
	for (i = 0; i < x->bad_k; i++) {
		json_t *p = json_array_get(x->patches, i);
		x->p[i].subject = json_string_value(json_object_get(p, "subject"));
		x->p[i].msgid = json_string_value(json_object_get(p, "msgid"));
		if (!x->p[i].subject || !x->p[i].msgid)
			return errorf(err, "bisect: matrix '%s': BAD's build lists patch %zu without "
				      "a subject", m->name, i + 1);
		if (i < x->good_k && !json_equal(json_array_get(gp, i), p))
			return errorf(err, "bisect: GOOD's patch %zu is not BAD's ('%s'): GOOD's "
				      "patches must be the first of BAD's", i + 1, x->p[i].subject);
	}
	return 0;
}

/*
 * GOOD and BAD as the stored spec has them: the same tree, base, config and
 * boot (only their patches may differ); BAD's arm kept, without its tag, as
 * the model of every step's arm.
 */
static int arms_same(struct bisect_matrix *x, char *err)
{
	json_auto_t *g = arm_json(x->spec, x->good);
	const char *k;

	x->bad_arm = arm_json(x->spec, x->bad);
	if (!g || !x->bad_arm)
		return errorf(err, "bisect: matrix '%s': its spec does not name arms '%s' and '%s'",
			      x->name, x->good, x->bad);
	if ((k = differs(g, x->bad_arm)))
		return errorf(err, "bisect: GOOD '%s' and BAD '%s' differ in '%s': a bisection "
			      "needs one tree, base, config and boot, only the patches differing",
			      x->good, x->bad, k);
	json_object_del(x->bad_arm, "tag");
	return 0;
}

/*
 * The stored matrix the bisection searches: its spec parsed again, its
 * builds, its GOOD and BAD arms and the cell checked, the budget checked.
 */
static int load_matrix(struct bisect_matrix *x, struct store *s, struct matrix *m, char *err)
{
	char label[64], real[PATH_MAX];
	const struct cell *c;
	int g, b;

	if (store_find_matrix(s, x->key, &x->mid, err) < 0 ||
	    store_matrix_spec(s, x->mid, &x->spec, x->base_dir, err) < 0)
		return -1;
	/* a matrix harness run queued before its directory was kept absolute: from here */
	if (x->base_dir[0] != '/' && realpath(x->base_dir, real))
		memcpy(x->base_dir, real, sizeof(x->base_dir));   /* both PATH_MAX */
	fmtcut(label, sizeof(label), "matrix %lld", (long long)x->mid);
	if (fmtbuf(x->id, sizeof(x->id), "%lld", (long long)x->mid) < 0)
		return errorf(err, "bisect: matrix id %lld over %zu characters", (long long)x->mid,
			      sizeof(x->id) - 1);
	if (spec_parse(m, x->spec, label, x->base_dir, x->c, err) < 0 ||
	    store_arm_builds(s, x->mid, m, NULL, err) < 0)
		return -1;
	if (fmtbuf(x->name, sizeof(x->name), "%s", m->name) < 0)
		return errorf(err, "bisect: matrix '%.64s...': a name of over %zu characters",
			      m->name, sizeof(x->name) - 1);
	if ((g = arm_index(m, x->good)) < 0 || (b = arm_index(m, x->bad)) < 0)
		return errorf(err, "bisect: matrix '%s' has no arm '%s' (its arms as tables name "
			      "them)", m->name, g < 0 ? x->good : x->bad);
	if (!(c = cell_find(m, x->cell)))
		return errorf(err, "bisect: --cell '%s': matrix '%s' has no such cell", x->cell,
			      m->name);
	if (bisect_budget_check(x->o.max_runs, x->o.max_hours, (double)c->job.duration_s,
				err) < 0)
		return -1;
	return arms_ok(x, m, &m->arms[g], &m->arms[b], err) < 0 ? -1 : arms_same(x, err);
}

/* load_matrix on the results directory's database, opened for it alone. */
static int load(struct bisect_matrix *x, char *err)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	struct store *s = NULL;
	int rc;

	if (!m)
		return errorf(err, "out of memory");
	if (store_open_results(x->c->results, &s, err) < 0)
		return -1;
	rc = load_matrix(x, s, m, err);
	spec_release(m);
	store_close(s);
	return rc;
}

/* ---- a step as a matrix ---- */

static json_t *prefix_arm(const struct bisect_matrix *x, unsigned k)
{
	json_t *a = json_deep_copy(x->bad_arm);
	char name[16];

	/* "p512" at most (BISECT_MAX_PREFIXES): it fits, NULL if it did not */
	if (!a || fmtbuf(name, sizeof(name), "p%u", k) < 0 ||
	    json_object_set_new(a, "name", json_string(name)) < 0 ||
	    json_object_set_new(a, "apply", json_integer(k)) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* "NAME-bisect-s3": the step's letter and prefix; the spec (cells) tells cells apart. */
static void step_name(const struct bisect_matrix *x, const char *what, unsigned k, char *name)
{
	static const struct { const char *what, *letter; } letters[] = {
		{ "build", "b" }, { "confirm", "c" }, { "search", "s" }, { "check", "k" },
	};
	const char *l = "x";

	for (size_t i = 0; i < ARRAY_SIZE(letters); i++)
		if (!strcmp(letters[i].what, what))
			l = letters[i].letter;
	/* 20 + 9 + 3 digits (k < BISECT_MAX_PREFIXES) fit; the name spec_parse would
	 * refuse, "", if they did not */
	if (fmtbuf(name, SPEC_NAME_MAX, "%.20s-bisect-%s%u", x->name, l, k) < 0)
		name[0] = '\0';
}

/* The step's matrix: the user's, named for the step, with the two prefixes' arms
 * (one for a build), only the cell, blocks ABBA blocks. */
static char *step_text(const struct bisect_matrix *x, const char *what, unsigned base, unsigned k,
		       unsigned blocks)
{
	json_auto_t *root = json_loads(x->spec, 0, NULL);
	json_auto_t *arms = json_array();
	char name[SPEC_NAME_MAX], desc[256];
	int rc = !root || !arms;

	step_name(x, what, k, name);
	fmtcut(desc, sizeof(desc), "harness bisect of matrix %s ('%s'), cell %s: p%u against "
		 "p%u (%s)", x->id, x->name, x->cell, k, base, what);
	if (strcmp(what, "build"))
		rc |= json_array_append_new(arms, prefix_arm(x, base));
	rc |= json_array_append_new(arms, prefix_arm(x, k));
	rc |= json_object_set_new(root, "name", json_string(name));
	rc |= json_object_set_new(root, "description", json_string(desc));
	rc |= json_object_set_new(root, "reps", json_integer(2 * (json_int_t)blocks));
	rc |= json_object_set(root, "arms", arms);
	rc |= json_object_set_new(root, "cells", json_pack("[s]", x->cell));
	return rc ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
}

/* How errors name a step's matrix: "matrix 3 (bisect search of p2)". */
static void step_label(const struct bisect_matrix *x, const char *what, unsigned k, char *label,
		       size_t len)
{
	fmtcut(label, len, "matrix %s (bisect %s of p%u)", x->id, what, k);
}

/*
 * A step's matrix (what: "build", "search", "confirm"; prefix k against
 * base) parsed, and the label its errors name it by.
 */
static int step_parse(const struct bisect_matrix *x, const char *what, unsigned base, unsigned k,
		      unsigned blocks, struct matrix *m, char *label, size_t len, char *err)
{
	_cleanup_free_ char *text = step_text(x, what, base, k, blocks);

	step_label(x, what, k, label, len);
	if (!text)
		return errorf(err, "out of memory");
	return spec_parse(m, text, label, x->base_dir, x->c, err);
}

/* ---- the search's operations ---- */

/* The build's identity: every arch's build key. */
static int build_identity(const struct arm *a, char *key, char *err)
{
	json_auto_t *list = json_loads(a->build_json, 0, NULL);
	size_t i, len = 0;
	json_t *o;

	key[0] = '\0';
	json_array_foreach(list, i, o) {
		const char *k = json_string_value(json_object_get(o, "key"));
		if (!k)
			return errorf(err, "bisect: a build without a key");
		len += (size_t)snprintf(key + len, BISECT_KEY_MAX - len, "%s%.32s", i ? "+" : "", k);
		if (len >= BISECT_KEY_MAX)
			return errorf(err, "bisect: too many builds for one prefix");
	}
	return key[0] ? 0 : errorf(err, "bisect: a prefix built nothing");
}

/*
 * The bisection's build hook: prefix k's kernel built (under the build gate
 * when the caller holds one), its key into key, or why it failed into why.
 */
static int do_build(void *arg, unsigned k, char *key, char *why, char *err)
{
	struct bisect_matrix *x = arg;
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	char label[128];
	int rc = -1, held = 0;

	if (!m)
		return errorf(err, "out of memory");
	if (step_parse(x, "build", k, k, 1, m, label, sizeof(label), err) < 0)
		return -1;
	if (x->h.hold && x->h.hold(x->h.arg, 1, err) < 0)
		goto out;
	held = 1;
	if (spec_resolve_gated(m, x->c, x->h.progress, x->h.gate, x->h.arg, err) < 0) {
		if (m->arms[0].failed[0]) {
			fmtcut(why, ERR_MAX, "%s", m->arms[0].failed);
			rc = 1;
		}
		goto out;
	}
	rc = build_identity(&m->arms[0], key, err);
out:
	if (held && x->h.hold)
		x->h.hold(x->h.arg, 0, err);
	spec_release(m);
	return rc;
}

/* The verdict of new against base in the cell, on the metric alone. */
static int one_verdict(const struct bisect_matrix *x, struct store *s, const char *matrix, const char *base,
		       const char *new, struct verdict *v, char *err)
{
	struct compare_opts o = { .base_matrix = matrix, .new_matrix = matrix, .base_arm = base,
				  .new_arm = new };
	_cleanup_free_ struct compare_row *rows = NULL;
	struct verdict *one = v;
	size_t n, i;

	if (compare_rows(s, &o, &rows, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (rows[i].m == x->metric && !strcmp(rows[i].cell, x->cell)) {
			*v = rows[i].v;
			return verdict_adjust(&one, 1) < 0 ? errorf(err, "out of memory") : 0;
		}
	return errorf(err, "bisect: %s is not measured in cell %s (0 in every run of %s and %s)",
		      x->metric->name, x->cell, base, new);
}

/* BAD against GOOD in the user's matrix: DIFFERENT (or SAME) there already is the answer. */
static int confirmed_before(const struct bisect_matrix *x, struct bisect_look *out)
{
	struct store *s = NULL;
	char err[ERR_MAX];
	int ok;

	if (store_open_results(x->c->results, &s, err) < 0)
		return 0;
	ok = one_verdict(x, s, x->id, x->good, x->bad, &out->v, err) == 0 &&
	     (out->v.kind == VERDICT_DIFFERENT || out->v.kind == VERDICT_SAME);
	store_close(s);
	if (ok) {
		out->reused = 1;
		fmtcut(out->why, sizeof(out->why), "matrix %s's own %zu blocks of %s and %s",
			 x->id, out->v.blocks, x->good, x->bad);
	}
	return ok;
}

/* What a step's matrix measured: its runs, did both prefixes run, the verdict. */
static int look(const struct bisect_matrix *x, int64_t smid, unsigned base, unsigned k,
		struct bisect_look *out, char *err)
{
	struct step_runs sr[2];
	struct store *s = NULL;
	char id[24], bn[16], kn[16];
	int rc = -1, i;

	if (fmtbuf(id, sizeof(id), "%lld", (long long)smid) < 0 ||
	    fmtbuf(bn, sizeof(bn), "p%u", base) < 0 || fmtbuf(kn, sizeof(kn), "p%u", k) < 0)
		return errorf(err, "bisect: matrix %lld, p%u against p%u: an id or an arm's "
			      "name too long", (long long)smid, base, k);
	if (store_open_results(x->c->results, &s, err) < 0)
		return -1;
	if (store_step_runs(s, smid, 0, x->cell, &sr[0], err) < 0 ||
	    store_step_runs(s, smid, 1, x->cell, &sr[1], err) < 0)
		goto out;
	out->runs = sr[0].runs;
	out->wall_s = sr[0].wall_s;
	for (i = 1; i >= 0; i--)
		if (!sr[i].done && sr[i].not_done) {
			out->skip = 1;
			fmtcut(out->why, sizeof(out->why), "p%u did not run: %.400s", i ? k : base,
				 sr[i].reason);
			rc = 0;
			goto out;
		}
	rc = one_verdict(x, s, id, bn, kn, &out->v, err);
out:
	store_close(s);
	return rc;
}

/*
 * The bisection's measure hook: prefix k against base over blocks more
 * blocks, run as a step matrix, then judged; with 0 blocks only what is
 * known already.
 */
static int do_measure(void *arg, const char *what, unsigned base, unsigned k, unsigned blocks,
		      struct bisect_look *out, char *err)
{
	struct bisect_matrix *x = arg;
	_cleanup_free_ char *text = NULL;
	char label[128];
	int64_t smid = 0;

	if (!blocks) {               /* only what is known: the user's matrix, or nothing */
		if (!strcmp(what, "confirm") && confirmed_before(x, out))
			return 0;
		out->v.kind = VERDICT_UNKNOWN;
		out->v.lo = -INFINITY;
		out->v.hi = INFINITY;
		out->v.delta = NAN;
		return 0;
	}
	if (!(text = step_text(x, what, base, k, blocks)))
		return errorf(err, "out of memory");
	step_label(x, what, k, label, sizeof(label));
	tell(x, "%s p%u against p%u, %u blocks", what, k, base, blocks);
	if (x->h.run_step(x->h.arg, text, label, x->base_dir, &smid, err) < 0)
		return -1;
	return look(x, smid, base, k, out, err);
}

/* ---- the bisection ---- */

/*
 * A request's name into dst (len bytes); -1 with err naming what when it is
 * empty or too long.
 */
static int copy(char *dst, size_t len, const char *src, const char *what, char *err)
{
	if (!src || !*src || strlen(src) >= len)
		return errorf(err, "bisect: %s: expected a name of 1 to %zu characters", what,
			      len - 1);
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

/*
 * The bisection's request checked into x: names, metric (one compare decides
 * on), blocks, runs and hours; -1 with err naming the field.
 */
static int request(struct bisect_matrix *x, const struct bisect_request *rq, char *err)
{
	if (copy(x->key, sizeof(x->key), rq->matrix, "matrix", err) < 0 ||
	    copy(x->cell, sizeof(x->cell), rq->cell, "cell", err) < 0 ||
	    copy(x->good, sizeof(x->good), rq->good, "GOOD", err) < 0 ||
	    copy(x->bad, sizeof(x->bad), rq->bad, "BAD", err) < 0)
		return -1;
	if (!spec_key_ok(x->key))
		return errorf(err, "bisect: matrix '%s': expected an id or a name", x->key);
	if (!strcmp(x->good, x->bad))
		return errorf(err, "bisect: GOOD and BAD are both '%s': expected two arms", x->good);
	if (!rq->metric || !(x->metric = metric_find(rq->metric)) || !x->metric->compared)
		return errorf(err, "bisect: metric '%s': expected one compare decides on (harness "
			      "table --metric help lists them)", rq->metric ? rq->metric : "");
	x->o.max_blocks = rq->max_blocks ? rq->max_blocks : BISECT_MAX_BLOCKS;
	if (x->o.max_blocks < COMPARE_MIN_BLOCKS || x->o.max_blocks > SPEC_MAX_REPS / 2)
		return errorf(err, "bisect: max_blocks %u: expected %d to %d", x->o.max_blocks,
			      COMPARE_MIN_BLOCKS, SPEC_MAX_REPS / 2);
	x->o.max_runs = rq->max_runs;
	x->o.max_hours = rq->max_hours;
	if (!(x->o.max_hours >= 0) || x->o.max_hours > 24 * 365)
		return errorf(err, "bisect: max_hours: expected hours, 0 for no limit");
	return 0;
}

int bisect_matrix_open(const struct conf *c, const struct bisect_request *rq,
		       const struct bisect_hooks *h, struct bisect_matrix **ret, char *err)
{
	struct bisect_matrix *x = calloc(1, sizeof(*x));

	*ret = NULL;
	if (!x)
		return errorf(err, "out of memory");
	x->c = c;
	x->h = *h;
	if (request(x, rq, err) < 0 || load(x, err) < 0) {
		bisect_matrix_close(x);
		return -1;
	}
	x->o.good = x->good_k;
	x->o.bad = x->bad_k;
	*ret = x;
	return 0;
}

static void search_tell(void *arg, const char *line)
{
	tell(arg, "%s", line);
}

int bisect_matrix_run(struct bisect_matrix *x, struct bisect_result *r, char *err)
{
	struct bisect_ops ops = { .build = do_build, .measure = do_measure, .tell = search_tell,
				  .arg = x };

	return bisect_run(&x->o, &ops, r, err);
}

void bisect_matrix_print(FILE *f, const struct bisect_matrix *x, const struct bisect_result *r)
{
	fprintf(f, "bisect of matrix %s '%s', cell %s, %s: GOOD %s (p%u) -> BAD %s (p%u)\n",
		x->id, x->name, x->cell, x->metric->name, x->good, x->good_k, x->bad, x->bad_k);
	bisect_print(f, r, x->p, x->bad_k);
}

json_t *bisect_matrix_json(const struct bisect_matrix *x, const struct bisect_result *r)
{
	json_t *o = bisect_json(r, x->p, x->bad_k);

	if (o && json_object_update_new(o, json_pack("{s:I, s:s, s:s, s:s, s:s}", "matrix",
						     (json_int_t)x->mid, "cell", x->cell,
						     "metric", x->metric->name, "good", x->good,
						     "bad", x->bad)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int64_t bisect_matrix_id(const struct bisect_matrix *x)
{
	return x->mid;
}

const char *bisect_matrix_metric(const struct bisect_matrix *x)
{
	return x->metric->name;
}

void bisect_matrix_close(struct bisect_matrix *x)
{
	if (!x)
		return;
	release(x);
	free(x);
}
