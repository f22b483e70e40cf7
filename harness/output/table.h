/* table.h -- `harness table`: one grid per metric, cells down and arms across
 * (mean, Delta, significance mark, n), as text for a mail, markdown, CSV or
 * JSON; or, with --pairs, the paired delta of every ABBA position pair. */
#ifndef TABLE_H
#define TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "conf/conf.h"
#include "analysis/metric.h"
#include "store/store.h"

#define TABLE_WIDTH       72   /* text: every line fits a mail */
#define TABLE_MAX_METRICS 16

enum table_format { TABLE_TEXT, TABLE_MARKDOWN, TABLE_CSV, TABLE_JSON };

/* The format named "text", "markdown", "csv" or "json": 0, or -1. */
int table_format_find(const char *name, enum table_format *ret);

struct table_opts {
	enum table_format format;
	const struct metric *metric[TABLE_MAX_METRICS];
	unsigned n_metrics;       /* 0: the metrics the metric table marks .table */
	const char *baseline;     /* an arm's name; NULL: the first arm */
	double margin;            /* margin of the marks, relative; 0: each metric's declared one */
	int pairs;                /* the position pairs instead of the grids */
};

/* Print matrix_id's tables to f as o says. Returns 0 or -1 with err. */
int table_print(FILE *f, struct store *s, int64_t matrix_id, const struct table_opts *o,
		char *err);

/*
 * A grid per metric of ms[0..nm) as text, of the given cells, against the
 * first arm, with the declared margins, their marks adjusted together: the
 * preset grids of the report `harness run` prints.
 */
int table_text_grids(FILE *f, const struct matrix_info *mi, const struct run_summary *v,
		     size_t n, const unsigned *cells, unsigned n_cells,
		     const struct metric *const *ms, size_t nm, char *err);


#endif
