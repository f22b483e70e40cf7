/* noise.c -- the noise section of a matrix's tables: per cell, the runs'
 * coefficient of variation, the spread per block and the effect it detects. */
#include "output/noise.h"
#include "analysis/metric.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "base/err.h"
#include "store/store_noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct scratch {
	struct stats_obs *o;
	double *x, *d;
};

/* The coefficient of variation of one arm's runs of a cell; NAN below 2 runs. */
static double arm_cv(const struct run_summary *v, size_t n, unsigned cell, unsigned arm,
		     const struct metric *m, double *x)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i].cell == cell && v[i].arm == arm && !isnan(m->get(&v[i])))
			x[k++] = m->get(&v[i]);
	return k < 2 ? NAN : stats_sd(x, k) / stats_mean(x, k);
}

/* The verdict's per-unit statistics of arms 0 and 1 in a cell: how many, their sd into *sd. */
static size_t pair_sd(const struct run_summary *v, size_t n, unsigned cell, const struct metric *m,
		      struct scratch *sc, double *sd)
{
	size_t k = metric_pair_obs(m, v, n, cell, 0, 1, sc->o);
	struct verdict_rule rule;
	long nd;

	metric_rule(m, NULL, &rule);
	nd = verdict_unit_stats(sc->o, k, &rule, sc->d, n);

	*sd = nd > 1 ? stats_sd(sc->d, (size_t)nd) : NAN;
	return nd > 0 ? (size_t)nd : 0;
}

/* The calibration of cell and metric m among k[0..nk), or NULL. */
static const struct calibration *cal_of(const struct calibration *k, size_t nk, unsigned cell,
					const struct metric *m)
{
	for (size_t i = 0; i < nk; i++)
		if (k[i].cell == cell && !strcmp(k[i].metric, m->name))
			return &k[i];
	return NULL;
}

/* A share as a percentage in width columns; "-" when not finite. */
static void pct(FILE *f, int width, double x)
{
	if (isfinite(x))
		fprintf(f, " %*.1f%%", width - 1, 100 * x);
	else
		fprintf(f, " %*s", width, "-");
}

/*
 * A cell's row of the noise section (ops/s): the largest arm CV, the blocks
 * and sd of the paired deltas (a calibration's sd instead, when there is
 * one), the calibration's noise floor, the least effect its blocks detect,
 * and the host's load.
 */
static void cell_row(FILE *f, const struct matrix_info *mi, const struct run_summary *v, size_t n,
		     unsigned cell, const struct calibration *k, double load, struct scratch *sc)
{
	const struct metric *m = metric_find("ops/s");
	double cv = NAN, c, sd, noise = NAN;
	struct verdict_rule rule;
	size_t blocks = mi->n_arms > 1 ? pair_sd(v, n, cell, m, sc, &sd) : 0;
	unsigned arm;

	if (mi->n_arms < 2)
		sd = NAN;
	for (arm = 0; arm < mi->n_arms; arm++)
		if (!isnan(c = arm_cv(v, n, cell, arm, m, sc->x)) && !(c <= cv))
			cv = c;
	if (k) {
		sd = k->sd;
		noise = verdict_aa_floor(k->mean, k->sd, k->blocks);
	}
	metric_rule(m, NULL, &rule);
	fprintf(f, "%-24.24s", mi->cell_names[cell]);
	pct(f, 7, cv);
	fprintf(f, " %6zu", blocks);
	pct(f, 8, sd);
	fprintf(f, "  %-12s", k ? "calibration" : mi->n_arms > 1 ? "arms 1-2" : "-");
	pct(f, 6, verdict_shown(rule.scale, noise));
	pct(f, 8, verdict_shown(rule.scale, verdict_detectable(sd, verdict_to_scale(rule.scale,
						rule.min_effect), blocks, 1)));
	if (isnan(load))
		fprintf(f, " %6s\n", "-");
	else
		fprintf(f, " %6.1f\n", load);
}

int noise_section(FILE *f, struct store *s, int64_t mid, const struct matrix_info *mi,
		  const struct run_summary *v, size_t n, char *err)
{
	_cleanup_free_ struct calibration *k = NULL;
	double load[SPEC_MAX_CELLS];
	struct scratch sc = { calloc(n + 1, sizeof(*sc.o)), calloc(n + 1, sizeof(double)),
			      calloc(n + 1, sizeof(double)) };
	size_t nk = 0;
	unsigned cell;
	int rc = 0;

	if (!sc.o || !sc.x || !sc.d || store_calibrations(s, mid, NULL, &k, &nk, err) < 0 ||
	    store_cell_host_loads(s, mid, load, err) < 0) {
		rc = sc.o && sc.x && sc.d ? -1 : errorf(err, "out of memory");
		goto out;
	}
	fprintf(f, "\nnoise of ops/s: CV, the largest of the arms' runs; sd, of the per-block log"
		" ratio; noise, the far end of a calibration's t interval (never deciding); detects,"
		" the least effect its blocks find with %.0f %% power above the declared minimum"
		" effect (%zu blocks at least: the fewest a DIFFERENT needs); load, the host's highest"
		" 1-minute load as a run ended\n", 100 * VERDICT_POWER,
		verdict_min_different(COMPARE_ALPHA, 1));
	fprintf(f, "%-24s %7s %6s %8s  %-12s %6s %8s %6s\n", "cell", "CV", "blocks", "sd",
		"sd from", "noise", "detects", "load");
	for (cell = 0; cell < mi->n_cells; cell++)
		cell_row(f, mi, v, n, cell, cal_of(k, nk, cell, metric_find("ops/s")), load[cell], &sc);
out:
	free(sc.o);
	free(sc.x);
	free(sc.d);
	return rc;
}
