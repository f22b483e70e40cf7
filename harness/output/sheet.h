/* sheet.h -- a table as strings (a header row, a label column, groups of
 * columns), written as text within a width, stacking what does not fit, or
 * as a GitHub markdown pipe table. */
#ifndef SHEET_H
#define SHEET_H

#include <stdio.h>

#include "spec/spec.h"

#define SHEET_CELL 48                       /* a cell's text, with its NUL */
#define SHEET_COLS (1 + 3 * SPEC_MAX_ARMS)  /* columns at most, the label's included */

struct sheet {
	unsigned ncols, nrows;         /* row 0 is the header, column 0 the row label */
	unsigned group[SHEET_COLS];    /* columns of one group stay in one stacked table */
	unsigned cap[SHEET_COLS];      /* text: the widest a column may be (longer is cut) */
	char (*cell)[SHEET_CELL];
};

/* nrows x ncols empty cells; the label column capped at 20. Returns 0 or -1 with err. */
int sheet_init(struct sheet *s, unsigned nrows, unsigned ncols, char *err);
void sheet_release(struct sheet *s);
char *sheet_at(const struct sheet *s, unsigned row, unsigned col);

/*
 * Text: the label left-aligned, the rest right-aligned, a group's columns one
 * space apart and groups two; as many groups as fit width columns per table,
 * the rest in tables stacked below, each repeating the label column.
 */
void sheet_text(FILE *f, const struct sheet *s, unsigned width);

/* One GitHub pipe table: label left, the rest right aligned; \ | * _ ` < > [ ] escaped. */
void sheet_markdown(FILE *f, const struct sheet *s);

#endif
