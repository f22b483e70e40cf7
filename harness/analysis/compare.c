/* compare.c -- `harness compare`: verdicts (DIFFERENT, SAME, UNKNOWN) per
 * common cell and metric between two arms of a matrix or two matrices, from
 * per-ABBA-block log ratios (or differences), against declared margins. */
#include "analysis/compare.h"
#include "analysis/confseq.h"
#include "analysis/verdict.h"
#include "analysis/metric.h"
#include "base/err.h"
#include "base/proc.h"
#include "analysis/stats.h"
#include "store/store_noise.h"
#include "store/store_compare.h"
#include "spec/abba.h"
#include "common/fmt.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---- one side of a comparison: a matrix and its done runs ---- */

/* Is run j in the block (cell and block) of run i? */
static int same_block(const struct run_summary *a, const struct run_summary *b)
{
	return a->cell == b->cell && a->block == b->block;
}

struct side {
	int64_t mid;
	struct matrix_info mi;
	struct run_summary *v;
	size_t n;
	int aa[2];             /* A/A calibration arms, -1 for none */
	const char *aa_rule;
	struct calibration *cal;   /* stored calibrations of its cells on its host */
	size_t n_cal;
	unsigned contended[SPEC_MAX_CELLS];   /* blocks with a contended run, per cell */
	unsigned n_contended;                  /* over every cell */
	int dropped;                           /* ... and they are left out of the verdicts */
	double margins[METRIC_MAX];            /* the matrix's "margins", 0 where unset */
	const struct metric *primary;          /* its "primary" metric */
	char *left_out;                        /* per run of v: its block is left out */
};

/* A side and everything it holds; NULL is fine. */
static void side_free(struct side *sd)
{
	if (!sd)
		return;
	free(sd->cal);
	free(sd->left_out);
	free(sd->v);
	free(sd);
}

static int has_aa_suffix(const char *name)
{
	size_t n = strlen(name);

	return n >= 3 && !strcmp(name + n - 3, "-aa");
}

static int same_boot(const struct arm_identity *a, const struct arm_identity *b)
{
	return !strcmp(a->kernel, b->kernel) && !strcmp(a->modules, b->modules) &&
	       !strcmp(a->lru_gen, b->lru_gen) && !strcmp(a->cmdline, b->cmdline);
}

/*
 * A/A arms: the first two arms whose names end in "-aa", else the first two
 * that boot the same kernel and modules with the same lru_gen and cmdline;
 * never the pair being compared (skip_a, skip_b): it is no yardstick of itself.
 */
static int find_aa(struct store *s, struct side *sd, int skip_a, int skip_b, char *err)
{
	struct arm_identity *ids = calloc(SPEC_MAX_ARMS, sizeof(*ids));
	unsigned n, i, j, pass;

	sd->aa[0] = sd->aa[1] = -1;
	if (!ids)
		return errorf(err, "out of memory");
	if (store_arm_identities(s, sd->mid, ids, &n, err) < 0) {
		free(ids);
		return -1;
	}
	for (pass = 0; pass < 2 && sd->aa[0] < 0; pass++)
		for (i = 0; i < n && sd->aa[0] < 0; i++)
			for (j = i + 1; j < n && sd->aa[0] < 0; j++) {
				if (((int)i == skip_a && (int)j == skip_b) ||
				    ((int)i == skip_b && (int)j == skip_a))
					continue;
				if (pass == 0 ? has_aa_suffix(ids[i].name) && has_aa_suffix(ids[j].name)
					      : same_boot(&ids[i], &ids[j])) {
					sd->aa[0] = (int)i;
					sd->aa[1] = (int)j;
					sd->aa_rule = pass == 0 ? "names end in -aa"
								: "same kernel, lru_gen and cmdline";
				}
			}
	free(ids);
	return 0;
}

/*
 * Count the blocks of sd with a contended run, per cell; with drop, mark
 * every run of them left out of the verdicts (a block is the unit: its
 * partner runs go too). They still say which metrics the cell measured.
 */
static int contended_blocks(struct side *sd, int drop)
{
	char *in = calloc(sd->n + 1, 1);
	size_t i, j;

	if (!in)
		return -1;
	for (i = 0; i < sd->n; i++) {
		if (!sd->v[i].contended || in[i])
			continue;
		if (sd->v[i].cell < SPEC_MAX_CELLS)
			sd->contended[sd->v[i].cell]++;
		sd->n_contended++;
		for (j = 0; j < sd->n; j++)
			in[j] |= same_block(&sd->v[i], &sd->v[j]);
	}
	if (!drop)
		memset(in, 0, sd->n);
	sd->left_out = in;
	sd->dropped = drop;
	return 0;
}

/* The "margins" and "primary" the stored matrix declares into sd. Returns 0, or -1 with err. */
static int side_margins(struct store *s, struct side *sd, char *err)
{
	_cleanup_free_ char *text = NULL;
	char dir[PATH_MAX], label[128];

	if (store_matrix_spec(s, sd->mid, &text, dir, err) < 0)
		return -1;
	fmtcut(label, sizeof(label), "matrix '%s'", sd->mi.name);
	return metric_verdict_keys(text, label, sd->margins, &sd->primary, err);
}

/*
 * Matrix mid as a side of a comparison: its info, summaries (with the
 * operations'), calibrations and declared margins; NULL with err.
 */
static struct side *side_load_id(struct store *s, int64_t mid, char *err)
{
	struct side *sd = calloc(1, sizeof(*sd));

	if (!sd) {
		errorf(err, "out of memory");
		return NULL;
	}
	sd->mid = mid;
	sd->aa[0] = sd->aa[1] = -1;
	if (store_matrix_info(s, sd->mid, &sd->mi, err) < 0 ||
	    store_summaries(s, sd->mid, SUMMARY_OPS, &sd->v, &sd->n, err) < 0 ||
	    store_calibrations(s, sd->mid, NULL, &sd->cal, &sd->n_cal, err) < 0 ||
	    side_margins(s, sd, err) < 0) {
		side_free(sd);
		return NULL;
	}
	return sd;
}

/* The matrix named key (an id, or the newest of that name). */
static struct side *side_load(struct store *s, const char *key, char *err)
{
	int64_t mid;

	if (store_find_matrix(s, key, &mid, err) < 0)
		return NULL;
	return side_load_id(s, mid, err);
}

/* The index of arm name in sd's matrix; -1 with err naming both. */
static int arm_index(const struct side *sd, const char *name, char *err)
{
	unsigned i;

	for (i = 0; i < sd->mi.n_arms; i++)
		if (!strcmp(sd->mi.arm_names[i], name))
			return (int)i;
	return errorf(err, "no arm '%s' in matrix '%s'", name, sd->mi.name);
}

/* The one arm of sd tagged tag; -1 with err if none or several. */
static int tag_index(const struct side *sd, const char *tag, char *err)
{
	int found = -1;
	unsigned i;

	for (i = 0; i < sd->mi.n_arms; i++) {
		if (strcmp(sd->mi.arm_tags[i], tag))
			continue;
		if (found >= 0)
			return errorf(err, "tag '%s' marks arms '%s' and '%s' of matrix '%s' (id %lld):"
				      " a tag must pick one arm of a matrix", tag,
				      sd->mi.arm_names[found], sd->mi.arm_names[i], sd->mi.name,
				      (long long)sd->mid);
		found = (int)i;
	}
	if (found < 0)
		return errorf(err, "no arm tagged '%s' in matrix '%s'", tag, sd->mi.name);
	return found;
}

/* The index of the cell called name in sd's matrix, or -1. */
static int cell_index(const struct side *sd, const char *name)
{
	unsigned i;

	for (i = 0; i < sd->mi.n_cells; i++)
		if (!strcmp(sd->mi.cell_names[i], name))
			return (int)i;
	return -1;
}

/* Scratch for one cell and metric: observations, deltas and their blocks. */
struct scratch {
	const char *host;            /* only the runs of this host; NULL: every run */
	struct stats_obs *obs;
	double *d;
	unsigned *blocks;
	size_t cap;
};

/*
 * The observations of one arm in one cell for stats_block_deltas (as arm
 * which, 0 base or 1 new, by ABBA unit): runs of left-out blocks and, with
 * host, other hosts' runs are skipped. o has room for them; returns how many.
 */
static size_t add_obs(struct stats_obs *o, const struct side *sd, unsigned cell, unsigned arm,
		      int which, const struct metric *m, const char *host)
{
	size_t i, k = 0;

	for (i = 0; i < sd->n; i++)
		if (sd->v[i].cell == cell && sd->v[i].arm == arm &&
		    (!sd->left_out || !sd->left_out[i]) &&
		    (!host || !strcmp(sd->v[i].host, host))) {
			o[k].block = abba_unit(sd->mi.n_arms, sd->v[i].block, sd->v[i].position);
			o[k].arm = which;
			o[k++].v = m->get(&sd->v[i]);
		}
	return k;
}

/* 1 if some run of the cell has the metric (a YCSB rate is NAN in a fio cell). */
static int measured(const struct side *sd, unsigned cell, const struct metric *m)
{
	size_t i;

	for (i = 0; i < sd->n; i++)
		if (sd->v[i].cell == cell && !isnan(m->get(&sd->v[i])))
			return 1;
	return 0;
}

/* The runs of (nw, cn, an) and of (b, cb, ab), as observations in sc; how many. */
static size_t both_arms(const struct side *b, unsigned cb, unsigned ab, const struct side *nw,
			unsigned cn, unsigned an, const struct metric *m, struct scratch *sc)
{
	size_t k = add_obs(sc->obs, b, cb, ab, 0, m, sc->host);

	return k + add_obs(sc->obs + k, nw, cn, an, 1, m, sc->host);
}

/*
 * What the A/A arms of sd say of a cell and metric's noise, on the verdict's
 * scale: *ret_sd their per-block sd, *ret_far the far end of their t interval
 * as shown (verdict_aa_floor); NAN without A/A arms. Returns 0 or -1 with err.
 */
static int aa_noise(const struct side *sd, const char *cell, const struct verdict_rule *rule,
		    const struct metric *m, struct scratch *sc, double *ret_sd, double *ret_far,
		    char *err)
{
	int c = cell_index(sd, cell);
	struct verdict v;
	size_t k;

	*ret_sd = *ret_far = NAN;
	if (sd->aa[0] < 0 || c < 0)
		return 0;
	k = both_arms(sd, (unsigned)c, (unsigned)sd->aa[0], sd, (unsigned)c, (unsigned)sd->aa[1],
		      m, sc);
	if (verdict_of_runs(sc->obs, k, rule, sc->d, sc->blocks, sc->cap, &v) < 0)
		return errorf(err, "out of memory");
	*ret_sd = v.sd;
	*ret_far = verdict_shown(rule->scale, verdict_aa_floor(v.est, v.sd, v.blocks));
	return 0;
}

/*
 * The same from a stored calibration of the cell and metric (relative
 * deltas, taken on the log scale as log1p; none for a DIFF metric, whose
 * points they are not in); 0 if none, 1 if found.
 */
static int cal_noise(const struct side *sd, const char *cell, const struct verdict_rule *rule,
		     const struct metric *m, double *ret_sd, double *ret_far)
{
	int c = cell_index(sd, cell);
	const struct calibration *k;
	size_t i;

	for (i = 0; c >= 0 && rule->scale == VERDICT_LOG && i < sd->n_cal; i++) {
		k = &sd->cal[i];
		if (k->cell != (unsigned)c || strcmp(k->metric, m->name))
			continue;
		*ret_sd = k->sd;
		*ret_far = verdict_shown(rule->scale, verdict_aa_floor(
			verdict_to_scale(rule->scale, k->mean), k->sd, k->blocks));
		return !isnan(*ret_far);
	}
	return 0;
}

/* ---- the comparison ---- */

struct result {
	struct compare_row *rows;
	size_t n, cap;
	unsigned counts[4], worse, raw;   /* raw: DIFFERENT before the adjustment */
	size_t n_primary;                  /* rows of the primary metric (its own family) */
};

/* A row appended to res (grown by doubling); -1 out of memory. */
static int push_row(struct result *res, const struct compare_row *r)
{
	struct compare_row *nv;

	if (res->n == res->cap) {
		res->cap = res->cap ? 2 * res->cap : 64;
		if (!(nv = realloc(res->rows, res->cap * sizeof(*nv))))
			return -1;
		res->rows = nv;
	}
	res->rows[res->n++] = *r;
	return 0;
}

/* Benjamini-Hochberg over the rows of one family: primary 1 or 0 (compare_adjust). */
static int adjust_family(struct compare_row *rows, size_t n, int primary, size_t *ret_n)
{
	_cleanup_free_ struct verdict **vs = calloc(n + 1, sizeof(*vs));
	size_t i, k = 0;

	if (!vs)
		return -1;
	for (i = 0; i < n; i++)
		if (rows[i].primary == primary)
			vs[k++] = &rows[i].v;
	*ret_n = k;
	return verdict_adjust(vs, k);
}

int compare_adjust(struct compare_row *rows, size_t n, size_t *ret_primary)
{
	size_t other;

	return adjust_family(rows, n, 1, ret_primary) < 0 ||
	       adjust_family(rows, n, 0, &other) < 0 ? -1 : 0;
}

/* Both families adjusted, then the counts. */
static int adjust(struct result *res)
{
	const struct verdict *v;
	size_t i;

	if (compare_adjust(res->rows, res->n, &res->n_primary) < 0)
		return -1;
	memset(res->counts, 0, sizeof(res->counts));
	res->worse = res->raw = 0;
	for (i = 0; i < res->n; i++) {
		v = &res->rows[i].v;
		res->counts[v->kind]++;
		res->worse += v->kind == VERDICT_DIFFERENT && v->worse;
		res->raw += v->different_raw;
	}
	return 0;
}

#define HOSTS_MAX 32

/* The distinct hosts of a cell's runs on both sides, into hosts; how many. */
static unsigned cell_hosts(const struct side *b, unsigned cb, const struct side *nw, unsigned cn,
			   const char *hosts[HOSTS_MAX])
{
	const struct side *sides[2] = { b, nw };
	unsigned cells[2] = { cb, cn }, n = 0, j, s;
	size_t i;

	for (s = 0; s < 2; s++)
		for (i = 0; i < sides[s]->n; i++) {
			const struct run_summary *v = &sides[s]->v[i];

			if (v->cell != cells[s] || !v->host[0])
				continue;
			for (j = 0; j < n && strcmp(hosts[j], v->host); j++)
				;
			if (j == n && n < HOSTS_MAX)
				hosts[n++] = v->host;
		}
	return n;
}

/* The verdict of r's metric on the runs sc->host lets through, pushed as a row. */
static int push_verdict(const struct side *b, const struct side *nw, unsigned cb, unsigned cn,
			unsigned ab, unsigned an, const struct verdict_rule *rule,
			struct compare_row *r, struct scratch *sc, struct result *res, char *err)
{
	size_t k = both_arms(b, cb, ab, nw, cn, an, r->m, sc);

	if (fmtbuf(r->host, sizeof(r->host), "%s", sc->host ? sc->host : "") < 0)
		return errorf(err, "host '%.64s...': a name of over %zu characters", sc->host,
			      sizeof(r->host) - 1);
	if (verdict_of_runs(sc->obs, k, rule, sc->d, sc->blocks, sc->cap, &r->v) < 0 ||
	    push_row(res, r) < 0)
		return errorf(err, "out of memory");
	return 0;
}

/* --by-host: the same verdict on each host's runs alone, where a cell ran on several. */
static int per_host(const struct side *b, const struct side *nw, unsigned cb, unsigned cn,
		    unsigned ab, unsigned an, const struct verdict_rule *rule,
		    struct compare_row *r, struct scratch *sc, struct result *res, char *err)
{
	const char *hosts[HOSTS_MAX];
	unsigned n = cell_hosts(b, cb, nw, cn, hosts), i;
	int rc = 0;

	for (i = 0; n > 1 && i < n && rc == 0; i++) {
		sc->host = hosts[i];
		rc = push_verdict(b, nw, cb, cn, ab, an, rule, r, sc, res, err);
	}
	sc->host = NULL;
	return rc;
}

/*
 * m's rule for this comparison: the table's, under the matrices' "margins"
 * (the smaller where both sides declare one), under --margin; r->margin_from
 * says which.
 */
static void rule_of(const struct side *b, const struct side *nw, const struct compare_opts *o,
		    const struct metric *m, struct compare_row *r, struct verdict_rule *rule)
{
	double mg[METRIC_MAX];
	size_t i = (size_t)(m - metrics);

	memcpy(mg, b->margins, sizeof(mg));
	metric_margins_min(mg, nw->margins);
	r->margin_from = mg[i] > 0 ? MARGIN_MATRIX : MARGIN_TABLE;
	if (o->margins[i] > 0) {
		mg[i] = o->margins[i];
		r->margin_from = MARGIN_OPTION;
	}
	metric_rule(m, mg, rule);
}

/* The A/A noise shown beside the margin: the matrices' A/A arms, else a calibration. */
static int row_noise(const struct side *b, const struct side *nw, const struct verdict_rule *rule,
		     struct compare_row *r, struct scratch *sc, char *err)
{
	double sb, fb, sn = NAN, fn = NAN;

	if (aa_noise(b, r->cell, rule, r->m, sc, &sb, &fb, err) < 0 ||
	    (nw != b && aa_noise(nw, r->cell, rule, r->m, sc, &sn, &fn, err) < 0))
		return -1;
	r->noise = fmax(fb, fn);      /* fmax ignores a NAN */
	r->noise_sd = fmax(sb, sn);
	r->aa = isnan(r->noise) ? NOISE_NONE : NOISE_AA;
	if (!r->aa && (cal_noise(b, r->cell, rule, r->m, &r->noise_sd, &r->noise) ||
		       (nw != b && cal_noise(nw, r->cell, rule, r->m, &r->noise_sd, &r->noise))))
		r->aa = NOISE_CALIBRATED;
	return 0;
}

/*
 * Every compared metric that either arm measured in a cell: its rule, noise
 * and verdict rows (and per host with --by-host).
 */
static int compare_one(const struct side *b, const struct side *nw, unsigned cb, unsigned cn,
		       unsigned ab, unsigned an, const struct compare_opts *o, struct scratch *sc,
		       struct result *res, char *err)
{
	const struct metric *m;
	struct verdict_rule rule;
	struct compare_row r;

	for (m = metrics; m < metrics + n_metrics; m++) {
		if (!m->compared || (!measured(b, cb, m) && !measured(nw, cn, m)))
			continue;
		memset(&r, 0, sizeof(r));
		if (fmtbuf(r.cell, sizeof(r.cell), "%s", b->mi.cell_names[cb]) < 0 ||
		    fmtbuf(r.arm, sizeof(r.arm), "%s", nw->mi.arm_names[an]) < 0)
			return errorf(err, "cell '%.64s...' or arm '%.64s...': a name too long",
				      b->mi.cell_names[cb], nw->mi.arm_names[an]);
		r.m = m;
		r.primary = m == b->primary;
		r.left_out = b->dropped ? b->contended[cb] + (nw != b ? nw->contended[cn] : 0) : 0;
		rule_of(b, nw, o, m, &r, &rule);
		if (row_noise(b, nw, &rule, &r, sc, err) < 0 ||
		    push_verdict(b, nw, cb, cn, ab, an, &rule, &r, sc, res, err) < 0 ||
		    (o->by_host && per_host(b, nw, cb, cn, ab, an, &rule, &r, sc, res, err) < 0))
			return -1;
	}
	return 0;
}

/*
 * Every cell the two sides share, for the arms asked (or each arm by
 * position): all rows, then adjusted by family; -1 with err when no cell is
 * in common or out of memory.
 */
static int compare_all(const struct side *b, const struct side *nw, int ab, int an,
		       const struct compare_opts *o, struct result *res, char *err)
{
	struct scratch sc = { 0 };
	unsigned cb, arm, narms;
	int cn, ret = 0;

	sc.cap = b->n + nw->n + 1;
	sc.obs = calloc(sc.cap, sizeof(*sc.obs));
	sc.d = calloc(sc.cap, sizeof(*sc.d));
	sc.blocks = calloc(sc.cap, sizeof(*sc.blocks));
	if (!sc.obs || !sc.d || !sc.blocks) {
		ret = errorf(err, "out of memory");
		goto out;
	}
	narms = b->mi.n_arms < nw->mi.n_arms ? b->mi.n_arms : nw->mi.n_arms;
	for (cb = 0; cb < b->mi.n_cells && ret == 0; cb++) {
		cn = b == nw ? (int)cb : cell_index(nw, b->mi.cell_names[cb]);
		if (cn < 0)
			continue;
		if (ab >= 0) {
			ret = compare_one(b, nw, cb, (unsigned)cn, (unsigned)ab, (unsigned)an, o, &sc,
					  res, err);
			continue;
		}
		for (arm = 0; arm < narms && ret == 0; arm++)
			ret = compare_one(b, nw, cb, (unsigned)cn, arm, arm, o, &sc, res, err);
	}
	if (ret == 0 && !res->n)
		ret = errorf(err, "matrices '%s' and '%s' have no cell in common", b->mi.name,
			     nw->mi.name);
	if (ret == 0 && adjust(res) < 0)
		ret = errorf(err, "out of memory");
out:
	free(sc.obs);
	free(sc.d);
	free(sc.blocks);
	return ret;
}

/*
 * The two sides (nw == b: two arms of one matrix), the arms compared (ab of
 * b, an of nw; -1: two matrices, arms by position), every verdict, and with
 * --tags which matrices the tags chose.
 */
struct comparison {
	struct side *b, *nw;
	int ab, an;
	struct result res;
	char how[512];
	char machines[1024];   /* compare_machine_line's, "" if one machine measured both */
};

/* How a fact the sides differ in is said ("... A and B"), by enum store_machine_fact. */
static const char *const machine_says[MACHINE_FACTS] = {
	"measured with QEMU", "measured with libvirt", "accel differs:",
	"TCG threading differs:", "host kernels differ:", "host CPUs differ:",
	"host CPU counts differ:", "vCPU pinning differs:", "guests started by",
	"guests read back THP", "guests read back mTHP", "guests read back swap",
	"guests read back swappiness",
};

int compare_machine_line(const struct store_machines *b, const struct store_machines *nw,
			 char *buf, size_t len)
{
	size_t n = 0;
	int i, any = 0;
	char part[512];

	buf[0] = '\0';
	for (i = 0; i < MACHINE_FACTS && n < len; i++) {
		if (!strcmp(b->v[i], nw->v[i]) && !strstr(b->v[i], " | "))
			continue;
		fmtcut(part, sizeof(part), "%s %s and %s", machine_says[i],
			 b->v[i][0] ? b->v[i] : "unrecorded",
			 nw->v[i][0] ? nw->v[i] : "unrecorded");
		n += (size_t)snprintf(buf + n, len - n, "%s%s", any ? "; " : "", part);
		any = 1;
	}
	return any;
}

/* Only the host's facts of m kept (gone: 1) or only its guests' (gone: 0). */
static void machine_facts_keep(struct store_machines *m, int guests_gone)
{
	int k;

	for (k = guests_gone ? MACHINE_GUEST_FIRST : 0;
	     k < (guests_gone ? MACHINE_FACTS : MACHINE_GUEST_FIRST); k++)
		m->v[k][0] = '\0';
}

/*
 * Two matrices' guest settings, arm against arm as the rows pair them (the
 * two arms asked for, or each position): "arm X: guests read back THP a and
 * b" appended to x->machines for each pair that differs. Two matrices whose
 * arms set THP always and never on purpose read back the same, arm by arm.
 */
static int guests_by_arm(struct store *s, struct comparison *x, char *err)
{
	struct store_machines b, nw;
	char part[768];
	unsigned nb = x->b->mi.n_arms, nn = x->nw->mi.n_arms;
	unsigned i, pairs = x->ab >= 0 ? 1 : nb < nn ? nb : nn;
	size_t n = strlen(x->machines);
	int ab, an;

	for (i = 0; i < pairs && n < sizeof(x->machines); i++) {
		ab = x->ab >= 0 ? x->ab : (int)i;
		an = x->ab >= 0 ? x->an : (int)i;
		if (store_matrix_machines(s, x->b->mid, ab, &b, err) < 0 ||
		    store_matrix_machines(s, x->nw->mid, an, &nw, err) < 0)
			return -1;
		machine_facts_keep(&b, 0);
		machine_facts_keep(&nw, 0);
		if (compare_machine_line(&b, &nw, part, sizeof(part)))
			n += (size_t)snprintf(x->machines + n, sizeof(x->machines) - n, "%sarm %s: %s",
					      n ? "; " : "", x->b->mi.arm_names[ab], part);
	}
	return 0;
}

/*
 * The machine line of x's two sides: the compared arms' runs when in one
 * matrix; of two matrices, the host's facts over all their runs, the
 * guests' arm against arm.
 */
static int machines_of(struct store *s, struct comparison *x, char *err)
{
	struct store_machines b, nw;
	int one = x->nw == x->b;

	if (store_matrix_machines(s, x->b->mid, one ? x->ab : -1, &b, err) < 0 ||
	    store_matrix_machines(s, x->nw->mid, one ? x->an : -1, &nw, err) < 0)
		return -1;
	if (!one) {
		machine_facts_keep(&b, 1);
		machine_facts_keep(&nw, 1);
	}
	compare_machine_line(&b, &nw, x->machines, sizeof(x->machines));
	return one ? 0 : guests_by_arm(s, x, err);
}

/* ---- output ---- */

/* The level one family's intervals were drawn at (verdict_adjust): alpha when empty. */
static double adjusted_alpha(const struct result *res, int primary)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		if (res->rows[i].primary == primary && res->rows[i].v.kind != VERDICT_UNMEASURED)
			return res->rows[i].v.alpha_used;
	return COMPARE_ALPHA;
}

/*
 * A row's label into buf: "CELL [ARM] @HOST", the arm only when two matrices
 * are compared, the host only when per host.
 */
static const char *row_label(const struct compare_row *r, int two, char *buf, size_t len)
{
	if (two && r->host[0])
		fmtcut(buf, len, "%s [%.63s] @%s", r->cell, r->arm, r->host);
	else if (two)
		fmtcut(buf, len, "%s [%s]", r->cell, r->arm);
	else
		fmtcut(buf, len, "%s%s%s", r->cell, r->host[0] ? " @" : "", r->host);
	return buf;
}

/* " (~12 more blocks, 5 to 40)": an UNKNOWN's estimate and its range. */
static void print_more(FILE *f, const struct verdict *v)
{
	if (v->more >= STATS_MORE_MAX) {
		fprintf(f, " (more than %u more blocks)", STATS_MORE_MAX);
		return;
	}
	fprintf(f, " (~%u more block%s", v->more, v->more == 1 ? "" : "s");
	if (v->more_lo != v->more || v->more_hi != v->more)
		fprintf(f, ", %u to %s%u", v->more_lo, v->more_hi >= STATS_MORE_MAX ? ">" : "",
			v->more_hi);
	fputc(')', f);
}

/*
 * The verdict's word, with which way it went, the blocks an UNKNOWN still
 * needs, or why it is NOT MEASURED.
 */
static void print_verdict(FILE *f, const struct verdict *v)
{
	fputs(verdict_name(v->kind), f);
	if (v->kind == VERDICT_DIFFERENT)
		fputs(v->worse ? ", worse" : ", better", f);
	else if (v->kind == VERDICT_UNKNOWN)
		print_more(f, v);
	else if (v->kind == VERDICT_UNMEASURED)
		fputs(" (0 in every run of both arms)", f);
	fputc('\n', f);
}

/* A p or q value at four decimals; "-" for none. */
static void print_p(FILE *f, double p)
{
	if (isnan(p))
		fprintf(f, " %6s", "-");
	else
		fprintf(f, " %6.4f", p);
}

static const char *const noise_marks[] = { " ", "*", "c" };
static const char *const noise_names[] = { "none", "aa", "calibration" };
static const char *const margin_marks[] = { " ", "m", "o" };
static const char *const margin_names[] = { "table", "matrix", "option" };

/* 100 x, in a metric's unit: "%" for a ratio, "pt" for a difference in points. */
static const char *unit(const struct verdict *v)
{
	return v->scale == VERDICT_DIFF ? "pt" : "%";
}

/* The mean and its interval: unbounded while too few blocks. */
static void print_interval(FILE *f, const struct verdict *v)
{
	const char *u = unit(v);

	if (isnan(v->delta) || v->kind == VERDICT_UNMEASURED)
		fprintf(f, " %8s %21s", "-", "-");
	else if (isinf(v->lo) || isinf(v->hi))
		fprintf(f, " %+7.2f%-2s %19s", 100 * v->delta, u, "(unbounded)");
	else
		fprintf(f, " %+7.2f%-2s [%+7.2f%-2s,%+7.2f%-2s]", 100 * v->delta, u, 100 * v->lo, u,
			100 * v->hi, u);
}

/* The margin, its source, and the A/A noise beside it ("-" for none). */
static void print_margin(FILE *f, const struct compare_row *r)
{
	fprintf(f, " %4.1f%-2s%s", 100 * r->v.margin, unit(&r->v), margin_marks[r->margin_from]);
	if (isnan(r->noise))
		fprintf(f, " %7s", "-");
	else
		fprintf(f, " %4.1f%-2s%s", 100 * r->noise, unit(&r->v), noise_marks[r->aa]);
}

/* 1 if calibration i is the first of its A/A matrix in sd's. */
static int first_of_matrix(const struct side *sd, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (sd->cal[j].matrix_id == sd->cal[i].matrix_id)
			return 0;
	return 1;
}

/*
 * The line saying where sd's noise comes from: its A/A arms, or each A/A
 * matrix it was calibrated on.
 */
static void print_noise(FILE *f, const struct side *sd)
{
	size_t i;

	if (sd->aa[0] >= 0) {
		fprintf(f, "noise in '%s': A/A arms '%s' and '%s' (%s), per cell and metric:"
			" the larger end of their %.0f %% t interval, shown beside the margin,"
			" never used to decide\n", sd->mi.name, sd->mi.arm_names[sd->aa[0]],
			sd->mi.arm_names[sd->aa[1]], sd->aa_rule, 100 * (1 - COMPARE_ALPHA));
		return;
	}
	for (i = 0; i < sd->n_cal; i++)
		if (first_of_matrix(sd, i))
			fprintf(f, "noise in '%s': calibrated on %s at %s (A/A matrix %lld,"
				" %u blocks), the larger end of its %.0f %% t interval, shown beside"
				" the margin, never used to decide\n", sd->mi.name, sd->cal[i].host,
				sd->cal[i].at, (long long)sd->cal[i].matrix_id, sd->cal[i].blocks,
				100 * (1 - COMPARE_ALPHA));
}

/* What is compared with what, and on which machines. */
static void print_head(FILE *f, const struct comparison *x)
{
	const struct side *b = x->b, *nw = x->nw;

	if (x->how[0])
		fprintf(f, "%s\n", x->how);
	if (x->ab >= 0 && nw == b)
		fprintf(f, "compare in '%s': %s -> %s\n", b->mi.name, b->mi.arm_names[x->ab],
			b->mi.arm_names[x->an]);
	else if (x->ab >= 0)
		fprintf(f, "compare '%s' -> '%s': arm %s -> %s\n", b->mi.name, nw->mi.name,
			b->mi.arm_names[x->ab], nw->mi.arm_names[x->an]);
	else
		fprintf(f, "compare '%s' -> '%s', arms by position\n", b->mi.name, nw->mi.name);
	if (x->machines[0])
		fprintf(f, "%s\n", x->machines);
}

int compare_oom_line(const struct matrix_info *b, unsigned cb, unsigned ab,
		     const struct matrix_info *nw, unsigned cn, unsigned an, char *buf, size_t len)
{
	unsigned ob = b->cell_oom[cb][ab], on = nw->cell_oom[cn][an];

	buf[0] = '\0';
	if (!ob == !on)
		return 0;
	fmtcut(buf, len, "oom in %s: %s %u of %u runs, %s %u of %u: the memcg's OOM killer ended"
	       " one arm's runs and not the other's, a finding of its own (the verdicts are over"
	       " the runs that finished)", b->cell_names[cb], b->arm_names[ab], ob,
	       b->cell_ended[cb][ab], nw->arm_names[an], on, nw->cell_ended[cn][an]);
	return 1;
}

/* The cells in which one compared arm OOM'd and the other did not, a line each. */
static void print_oom(FILE *f, const struct comparison *x)
{
	const struct side *b = x->b, *nw = x->nw;
	unsigned cb, a, n = x->ab >= 0 ? 1 : b->mi.n_arms < nw->mi.n_arms ? b->mi.n_arms :
					     nw->mi.n_arms;
	char line[512];
	int cn;

	for (cb = 0; cb < b->mi.n_cells; cb++) {
		if ((cn = cell_index(nw, b->mi.cell_names[cb])) < 0)
			continue;
		for (a = 0; a < n; a++)
			if (compare_oom_line(&b->mi, cb, x->ab >= 0 ? (unsigned)x->ab : a, &nw->mi,
					     (unsigned)cn, x->an >= 0 ? (unsigned)x->an : a, line,
					     sizeof(line)))
				fprintf(f, "%s\n", line);
	}
}

/* One line when a side has blocks with a contended run: left out, or kept (--keep-contended). */
static void print_contended(FILE *f, const struct comparison *x)
{
	unsigned n = x->b->n_contended + (x->nw != x->b ? x->nw->n_contended : 0);

	if (!n)
		return;
	if (x->b->dropped)
		fprintf(f, "left out %u block%s with a contended run (the host's CPU or I/O pressure"
			" over harness.conf's contended_cpu_pct or quiet_io_pct while it measured);"
			" --keep-contended keeps them\n", n, n == 1 ? "" : "s");
	else
		fprintf(f, "kept %u block%s with a contended run (--keep-contended)\n", n,
			n == 1 ? "" : "s");
}

/*
 * The comparison as text: its head, contended blocks, noise, the margins'
 * line, then a row per cell and metric and the summary lines.
 */
static void print_text(FILE *f, const struct comparison *x, const struct compare_opts *o)
{
	const struct side *b = x->b, *nw = x->nw;
	const struct result *res = &x->res;
	char label[CELL_NAME_MAX + 104];   /* "CELL [ARM] @HOST" */
	const struct compare_row *r;
	const struct verdict *v;
	size_t i;

	print_head(f, x);
	print_contended(f, x);
	print_oom(f, x);
	print_noise(f, b);
	if (nw != b)
		print_noise(f, nw);
	fprintf(f, "margin: declared per metric (the metric table; m the matrix's \"margins\","
		" o --margin), never from the noise; SAME: the interval within +-margin\n");
	fprintf(f, "delta: exp(mean per-block log ratio) - 1 (pt: mean per-block difference);"
		" interval: its confidence sequence at %.2f %% (%s), %.2f %% (the others), valid"
		" however often looked at\n", 100 * (1 - adjusted_alpha(res, 1)), b->primary->name,
		100 * (1 - adjusted_alpha(res, 0)));
	fprintf(f, "p: anytime-valid p of no difference; q: p adjusted (Benjamini-Hochberg, p = 1"
		" under the minimum effect) over the %zu verdicts of the primary metric %s, the %zu"
		" of the others among themselves; DIFFERENT: q <= %.2f and |delta| >= the minimum"
		" effect\n", res->n_primary, b->primary->name, res->n - res->n_primary,
		COMPARE_ALPHA);
	fprintf(f, "%-24s %-9s %3s %9s %21s %7s %7s %6s %6s  %s\n", "cell", "metric", "n",
		"delta", "interval", "margin", "noise", "p", "q", "verdict");
	for (i = 0; i < res->n; i++) {
		r = &res->rows[i];
		v = &r->v;
		if (o->regressions && !(v->kind == VERDICT_DIFFERENT && v->worse))
			continue;
		fprintf(f, "%-24.24s %-9s %3zu", row_label(r, x->ab < 0, label, sizeof(label)),
			r->m->name, v->blocks);
		print_interval(f, v);
		print_margin(f, r);
		print_p(f, v->p);
		print_p(f, v->q);
		fputs("  ", f);
		print_verdict(f, v);
	}
	if (o->regressions)
		fprintf(f, "%u regression%s (DIFFERENT and worse)\n", res->worse,
			res->worse == 1 ? "" : "s");
	else
		fprintf(f, "%zu verdicts: %u DIFFERENT (%u worse), %u SAME, %u UNKNOWN, %u NOT"
			" MEASURED; %u DIFFERENT before the adjustment; noise * from A/A arms,"
			" c from a calibration\n",
			res->n, res->counts[VERDICT_DIFFERENT], res->worse, res->counts[VERDICT_SAME],
			res->counts[VERDICT_UNKNOWN], res->counts[VERDICT_UNMEASURED], res->raw);
}

/* A number as JSON; null for NAN and infinities. */
static json_t *num(double x)
{
	return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

/* A side as JSON: its name and id, and its A/A arms if it has them. */
static json_t *side_json(const struct side *sd)
{
	json_t *j = json_pack("{s:s, s:I}", "name", sd->mi.name, "id", (json_int_t)sd->mid);

	if (j && sd->aa[0] >= 0)
		json_object_set_new(j, "aa", json_pack("{s:[s,s], s:s}", "arms",
			sd->mi.arm_names[sd->aa[0]], sd->mi.arm_names[sd->aa[1]], "rule", sd->aa_rule));
	return j;
}

/* An UNKNOWN's estimate and range; 0 for a decided verdict. */
static json_int_t more_of(const struct verdict *v, unsigned x)
{
	return v->kind == VERDICT_UNKNOWN ? (json_int_t)x : 0;
}

/*
 * A row as JSON: its verdict with delta, interval, margin and its source,
 * p, q, noise and, for UNKNOWN, the blocks it still needs.
 */
static json_t *row_json(const struct compare_row *r)
{
	const struct verdict *v = &r->v;
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:[o,o], s:o, s:s, s:o, s:o,"
			      " s:b, s:b}",
			      "cell", r->cell, "arm", r->arm, "metric", r->m->name,
			      "better", r->m->higher_better ? "higher" : "lower",
			      "verdict", verdict_name(v->kind), "blocks", (json_int_t)v->blocks,
			      "delta_pct", num(100 * v->delta), "interval_pct", num(100 * v->lo),
			      num(100 * v->hi), "margin_pct", num(100 * v->margin),
			      "margin_from", margin_names[r->margin_from], "p", num(v->p),
			      "q", num(v->q), "different_unadjusted", v->different_raw,
			      "worse", v->kind == VERDICT_DIFFERENT && v->worse);

	if (j && r->host[0] && json_object_set_new(j, "host", json_string(r->host)) < 0) {
		json_decref(j);
		return NULL;
	}
	if (j && json_object_update_new(j, json_pack("{s:o, s:o, s:s, s:o, s:s, s:s, s:o}",
			"p_signflip", num(v->p_sym),
			"min_effect_pct", num(100 * v->min_effect), "noise_from", noise_names[r->aa],
			"noise_pct", num(100 * r->noise), "family", r->primary ? "primary" : "secondary",
			"scale", v->scale == VERDICT_DIFF ?
			"difference" : "log ratio", "interval_level", num(1 - v->alpha_used))) < 0) {
		json_decref(j);
		return NULL;
	}
	if (j && json_object_update_new(j, json_pack("{s:I, s:[I,I], s:b, s:o, s:o}",
			"more_blocks", more_of(v, v->more), "more_blocks_range",
			more_of(v, v->more_lo), more_of(v, v->more_hi), "drift", v->drift,
			"drift_r", num(v->drift_r), "drift_p", num(v->drift_p))) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The comparison as one JSON document; -1 with err. */
static int print_json(FILE *f, const struct comparison *x, const struct compare_opts *o,
		      char *err)
{
	json_t *j = json_object(), *rows = json_array();
	const struct result *res = &x->res;
	size_t i;
	int rc;

	if (!j || !rows)
		goto oom;
	json_object_set_new(j, "base", side_json(x->b));
	json_object_set_new(j, "new", side_json(x->nw));
	if (x->ab >= 0)
		json_object_set_new(j, "arms", json_pack("[s,s]", x->b->mi.arm_names[x->ab],
							 x->nw->mi.arm_names[x->an]));
	if (o->base_tag) {
		json_object_set_new(j, "tags", json_pack("[s,s]", o->base_tag, o->new_tag));
		json_object_set_new(j, "chosen", json_string(x->how));
	}
	if (x->machines[0])
		json_object_set_new(j, "machines", json_string(x->machines));
	json_object_set_new(j, "primary", json_string(x->b->primary->name));
	json_object_set_new(j, "contended_blocks", json_pack("{s:I, s:b}", "n",
		(json_int_t)(x->b->n_contended + (x->nw != x->b ? x->nw->n_contended : 0)),
		"left_out", x->b->dropped));
	for (i = 0; i < res->n; i++)
		if (!o->regressions ||
		    (res->rows[i].v.kind == VERDICT_DIFFERENT && res->rows[i].v.worse))
			json_array_append_new(rows, row_json(&res->rows[i]));
	json_object_set_new(j, "verdicts", rows);
	json_object_set_new(j, "summary", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
		"different", (json_int_t)res->counts[VERDICT_DIFFERENT],
		"same", (json_int_t)res->counts[VERDICT_SAME],
		"unknown", (json_int_t)res->counts[VERDICT_UNKNOWN],
		"not_measured", (json_int_t)res->counts[VERDICT_UNMEASURED],
		"different_unadjusted", (json_int_t)res->raw,
		"regressions", (json_int_t)res->worse));
	rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(j);
	return rc < 0 ? errorf(err, "cannot write JSON") : 0;
oom:
	json_decref(j);
	json_decref(rows);
	return errorf(err, "out of memory");
}

/* A warning per row whose paired delta drifts with the block index. */
static void warn_drift(FILE *warn, const struct result *res, int two)
{
	char label[CELL_NAME_MAX + 104];   /* "CELL [ARM] @HOST" */
	const struct compare_row *r;
	size_t i;

	if (!warn)
		return;
	for (i = 0; i < res->n; i++) {
		r = &res->rows[i];
		if (r->v.drift)
			fprintf(warn, "harness: warning: '%s' %s: the paired delta drifts with the block"
				" index (r = %+.2f, p = %.4f); the host changed during the matrix?\n",
				row_label(r, two, label, sizeof(label)), r->m->name, r->v.drift_r,
				r->v.drift_p);
	}
}

/*
 * The fewest blocks at which r's interval, at its family's level and with the
 * A/A spread, would fit inside its margin (SAME can be shown); 0 without a
 * spread, STATS_MORE_MAX if none up to that does.
 */
static size_t blocks_for_same(const struct compare_row *r)
{
	double mg = verdict_to_scale(r->v.scale, r->v.margin);
	size_t n;

	if (!(r->noise_sd > 0))
		return 0;
	n = confseq_n_for(mg / r->noise_sd, 1, STATS_MORE_MAX, r->v.alpha_used);
	return n ? n : STATS_MORE_MAX;
}

/* A row still UNKNOWN whose margin the A/A noise cannot show at its blocks: said, never widened. */
static void warn_margin(FILE *warn, const struct result *res, int two)
{
	char label[CELL_NAME_MAX + 104];
	const struct compare_row *r;
	size_t i, need;

	for (i = 0; warn && i < res->n; i++) {
		r = &res->rows[i];
		need = blocks_for_same(r);
		if (r->v.kind != VERDICT_UNKNOWN || need <= r->v.blocks)
			continue;
		fprintf(warn, "harness: warning: '%s' %s: at the A/A spread (sd %.1f %%) the margin"
			" +-%.1f %s can be shown from %s%zu blocks, not %zu: SAME is out of reach until"
			" then (the margin is declared, the noise does not widen it)\n",
			row_label(r, two, label, sizeof(label)), r->m->name, 100 * r->noise_sd,
			100 * r->v.margin, r->v.scale == VERDICT_DIFF ? "points" : "%",
			need >= STATS_MORE_MAX ? "more than " : "", need, r->v.blocks);
	}
}

/* The rows and both sides of a comparison. */
static void comparison_release(struct comparison *x)
{
	free(x->res.rows);
	if (x->nw != x->b)
		side_free(x->nw);
	side_free(x->b);
}

/* How many matrices have tag (and also, unless NULL), and the newest; an error if none. */
static int tag_matrices(struct store *s, const char *tag, const char *also, int64_t *ret_mid,
			unsigned *ret_n, char *err)
{
	if (store_tag_matrices(s, tag, also, ret_mid, ret_n, err) < 0)
		return -1;
	if (!also && !*ret_n)
		return errorf(err, "no arm tagged '%s' in the database", tag);
	return 0;
}

/* --tags: the sides and arms (see compare_run), and x->how says which. */
static int tags_load(struct store *s, const struct compare_opts *o, struct comparison *x,
		     char *err)
{
	unsigned nb, nn, nboth;
	int64_t mb, mn, both;
	char which[48];

	if (!strcmp(o->base_tag, o->new_tag))
		return errorf(err, "tag '%s' compared with itself", o->base_tag);
	if (tag_matrices(s, o->base_tag, NULL, &mb, &nb, err) < 0 ||
	    tag_matrices(s, o->new_tag, NULL, &mn, &nn, err) < 0 ||
	    tag_matrices(s, o->base_tag, o->new_tag, &both, &nboth, err) < 0)
		return -1;
	if (nboth)
		mb = mn = both;
	if (!(x->b = side_load_id(s, mb, err)) ||
	    !(x->nw = mb == mn ? x->b : side_load_id(s, mn, err)) ||
	    (x->ab = tag_index(x->b, o->base_tag, err)) < 0 ||
	    (x->an = tag_index(x->nw, o->new_tag, err)) < 0)
		return -1;
	if (nboth > 1)
		fmtcut(which, sizeof(which), "the newest of %u matrices", nboth);
	else
		fmtcut(which, sizeof(which), "the only matrix");
	if (nboth)
		fmtcut(x->how, sizeof(x->how), "tags '%s' -> '%s': both in '%s' (id %lld), %s with"
			 " both", o->base_tag, o->new_tag, x->b->mi.name, (long long)mb, which);
	else
		fmtcut(x->how, sizeof(x->how), "tags '%s' -> '%s': in no matrix together; '%s' "
			 "(id %lld, newest of %u with '%s') -> '%s' (id %lld, newest of %u with '%s')",
			 o->base_tag, o->new_tag, x->b->mi.name, (long long)mb, nb, o->base_tag,
			 x->nw->mi.name, (long long)mn, nn, o->new_tag);
	return 0;
}

/* The sides and arms o names: two arms of a matrix, two matrices, or by tags. */
static int sides_load(struct store *s, const struct compare_opts *o, struct comparison *x,
		      char *err)
{
	if (o->base_tag)
		return tags_load(s, o, x, err);
	if (!(x->b = side_load(s, o->base_matrix, err)))
		return -1;
	if (o->base_arm) {
		x->nw = x->b;
		if ((x->ab = arm_index(x->b, o->base_arm, err)) < 0 ||
		    (x->an = arm_index(x->b, o->new_arm, err)) < 0)
			return -1;
		if (x->ab == x->an)
			return errorf(err, "arm '%s' compared with itself", o->base_arm);
	} else if (!(x->nw = side_load(s, o->new_matrix, err))) {
		return -1;
	}
	return 0;
}

/*
 * Compare as o asks: the sides loaded, contended blocks found (and left out
 * unless --keep-contended), A/A noise found, every verdict made.
 */
static int comparison_run(struct store *s, const struct compare_opts *o, struct comparison *x,
			  char *err)
{
	int one;

	memset(x, 0, sizeof(*x));
	x->ab = x->an = -1;
	if (sides_load(s, o, x, err) < 0)
		return -1;
	/* the pair compared is skipped as A/A only when both arms are of one matrix */
	one = x->nw == x->b;
	if (contended_blocks(x->b, !o->keep_contended) < 0 ||
	    (!one && contended_blocks(x->nw, !o->keep_contended) < 0))
		return errorf(err, "out of memory");
	if (find_aa(s, x->b, one ? x->ab : -1, one ? x->an : -1, err) < 0 ||
	    (!one && find_aa(s, x->nw, -1, -1, err) < 0) || machines_of(s, x, err) < 0)
		return -1;
	return compare_all(x->b, x->nw, x->ab, x->an, o, &x->res, err);
}

int compare_run(struct store *s, const struct compare_opts *o, FILE *out, FILE *warn, char *err)
{
	struct comparison x;
	int ret = -1;

	if (comparison_run(s, o, &x, err) < 0)
		goto out;
	if (o->json) {
		if (print_json(out, &x, o, err) < 0)
			goto out;
	} else {
		print_text(out, &x, o);
	}
	warn_drift(warn, &x.res, x.ab < 0);
	warn_margin(warn, &x.res, x.ab < 0);
	ret = x.res.worse > 0;
out:
	comparison_release(&x);
	return ret;
}

int compare_rows(struct store *s, const struct compare_opts *o, struct compare_row **ret,
		 size_t *ret_n, char *err)
{
	struct comparison x;
	int rc = comparison_run(s, o, &x, err);

	if (rc == 0) {
		*ret = TAKE_PTR(x.res.rows);
		*ret_n = x.res.n;
	}
	comparison_release(&x);
	return rc;
}
