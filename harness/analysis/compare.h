/* compare.h -- `harness compare`: for every common cell and metric, is NEW
 * different from BASE, the same, or not yet known? The ABBA block is the unit.
 *
 * Folder analysis/: what the numbers say: statistics (stats.c), one verdict
 * (verdict.c), comparisons of arms and matrices (compare.c), the metric table,
 * grids of cells x arms, extending matrices.
 * It may call: base/ common/ conf/ spec/ store/.
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "conf/conf.h"
#include "analysis/metric.h"
#include "analysis/verdict.h"
#include "store/store.h"
#include "store/store_compare.h"

struct compare_opts {
	const char *base_matrix, *new_matrix;  /* the same matrix when comparing arms */
	const char *base_arm, *new_arm;        /* NULL: two matrices, arms by position */
	const char *base_tag, *new_tag;        /* set: the arms so tagged, the matrices and
						* arms above unused (see compare_run) */
	double margins[METRIC_MAX];            /* --margin per metric row, relative; 0 unset:
						* the matrix's "margins", else the table's */
	int regressions;                       /* print only DIFFERENT-and-worse rows */
	int by_host;                           /* also a row per host of a cell run on several */
	int keep_contended;                    /* keep blocks with a contended run in the verdicts */
	int json;
};

/* One verdict: a common cell, the (new) arm, a compared metric. */
struct metric;
struct compare_row {
	char cell[CELL_NAME_MAX];
	char arm[64];           /* two matrices: the new matrix's arm */
	char host[32];          /* --by-host: only this host's runs; "" all */
	const struct metric *m;
	int aa;                 /* where the noise shown beside the margin came from: */
#define NOISE_NONE       0      /* nowhere: no A/A arms, no calibration */
#define NOISE_AA         1      /* the matrix's A/A arms */
#define NOISE_CALIBRATED 2      /* a stored calibration of the cell (harness calibrate) */
	double noise;           /* the far end of the A/A 95 % t interval (verdict_aa_floor),
				 * as shown; NAN for none. Never decides anything */
	double noise_sd;        /* the A/A per-block sd on the verdict's scale; NAN for none */
	int margin_from;        /* MARGIN_TABLE, MARGIN_MATRIX or MARGIN_OPTION: */
#define MARGIN_TABLE  0         /* the metric table's default */
#define MARGIN_MATRIX 1         /* the matrix's "margins" */
#define MARGIN_OPTION 2         /* --margin */
	int primary;            /* the matrix's primary metric: adjusted in a family of its own */
	struct verdict v;
	unsigned left_out;      /* the cell's blocks with a contended run, left out (both sides) */
};

/*
 * The verdicts o asks for, printing nothing (o's output options are
 * ignored): one row per common cell and compared metric, in cell order,
 * adjusted together (verdict_adjust). *ret malloc'd. Returns 0, or -1 with err.
 */
int compare_rows(struct store *s, const struct compare_opts *o, struct compare_row **ret,
		 size_t *ret_n, char *err);

/*
 * Benjamini-Hochberg over rows as compare adjusts them: the primary metric's
 * rows (every cell and arm) in a family of their own, the other metrics'
 * among themselves, so the metric asked about is not diluted by the others
 * (verdict_adjust on each). *ret_primary: the primary family's size.
 * Returns 0 or -1 (out of memory).
 */
int compare_adjust(struct compare_row *rows, size_t n, size_t *ret_primary);

/*
 * Compare and print to out (warnings, such as drift, to warn). Returns 1 if
 * any cell and metric is DIFFERENT and worse, 0 if none, -1 with err.
 * With tags: the newest matrix with an arm of each tag compares them as two
 * arms of it; failing that, the newest matrix of each tag, its tagged arm
 * against the other's, as two matrices compare (blocks by index, cells by
 * name). A tag on no arm, or on several arms of the matrix chosen, is an error.
 */
int compare_run(struct store *s, const struct compare_opts *o, FILE *out, FILE *warn, char *err);

/*
 * One line when the memcg's OOM killer ended runs of one arm of a cell and
 * not of the other (arm ab of cell cb in b, arm an of cell cn in nw): "oom
 * in CELL: A 3 of 3 runs, B 0 of 3; ...", a finding of its own that the
 * verdicts, over the runs that finished, cannot show. 1 with the line in
 * buf, 0 (buf "") when both OOM'd alike.
 */
int compare_oom_line(const struct matrix_info *b, unsigned cb, unsigned ab,
		     const struct matrix_info *nw, unsigned cn, unsigned an, char *buf, size_t len);

/*
 * One line saying how the machines that measured two sides differ ("measured
 * with QEMU 7.2.0 and 10.0.2; host kernels differ: ..."): a fact whose values
 * differ between b and nw, or vary within one side. 1 if there is a line in
 * buf, 0 (buf "") if the same machine measured both.
 */
int compare_machine_line(const struct store_machines *b, const struct store_machines *nw,
			 char *buf, size_t len);
#endif
