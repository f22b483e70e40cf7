/* sheet.c -- strings laid out in columns: widths from the content, groups
 * kept together, a table too wide for the mail stacked; or markdown. */
#include "output/sheet.h"
#include "base/err.h"

#include <stdlib.h>
#include <string.h>

#define LABEL_CAP  20              /* text: the row label column at most */
#define GAP        2               /* text: spaces before each group of columns */

char *sheet_at(const struct sheet *s, unsigned r, unsigned c)
{
	return s->cell[r * s->ncols + c];
}

int sheet_init(struct sheet *s, unsigned nrows, unsigned ncols, char *err)
{
	memset(s, 0, sizeof(*s));
	if (ncols > SHEET_COLS || !ncols)
		return errorf(err, "table of %u columns: 1 to %d expected", ncols, SHEET_COLS);
	s->nrows = nrows;
	s->ncols = ncols;
	s->cap[0] = LABEL_CAP;
	s->cell = calloc((size_t)nrows * ncols, sizeof(*s->cell));
	return s->cell ? 0 : errorf(err, "out of memory");
}

void sheet_release(struct sheet *s)
{
	free(s->cell);
	s->cell = NULL;
}

/* Widest text of each column, within its cap. */
static void text_widths(const struct sheet *s, unsigned *w)
{
	unsigned r, c, len;

	for (c = 0; c < s->ncols; c++)
		for (r = 0, w[c] = 0; r < s->nrows; r++) {
			len = (unsigned)strlen(sheet_at(s, r, c));
			w[c] = len > w[c] ? (len < s->cap[c] ? len : s->cap[c]) : w[c];
		}
}

/* The column after the last of column c's group. */
static unsigned group_end(const struct sheet *s, unsigned c)
{
	unsigned g = s->group[c];

	while (c < s->ncols && s->group[c] == g)
		c++;
	return c;
}

/* Width of a group [c0, c1) with its leading gap. */
static unsigned group_width(const unsigned *w, unsigned c0, unsigned c1)
{
	unsigned c, sum = GAP + (c1 - c0 - 1);

	for (c = c0; c < c1; c++)
		sum += w[c];
	return sum;
}

/*
 * Every row of the sheet's columns [c0, c1) after its first column: a gap
 * between groups, one space within; each cell at most its column's width.
 */
static void text_rows(FILE *f, const struct sheet *s, const unsigned *w, unsigned c0,
		      unsigned c1)
{
	unsigned r, c, sep;

	for (r = 0; r < s->nrows; r++) {
		fprintf(f, "%-*.*s", (int)w[0], (int)w[0], sheet_at(s, r, 0));
		for (c = c0; c < c1; c++) {
			sep = c == c0 || s->group[c] != s->group[c - 1] ? GAP : 1;
			fprintf(f, "%*s%*.*s", (int)sep, "", (int)w[c], (int)w[c], sheet_at(s, r, c));
		}
		fputc('\n', f);
	}
}

void sheet_text(FILE *f, const struct sheet *s, unsigned width_max)
{
	unsigned w[SHEET_COLS], c0, c1, width;

	text_widths(s, w);
	for (c0 = 1; c0 < s->ncols; c0 = c1) {
		c1 = group_end(s, c0);
		width = w[0] + group_width(w, c0, c1);
		while (c1 < s->ncols && width + group_width(w, c1, group_end(s, c1)) <= width_max) {
			width += group_width(w, c1, group_end(s, c1));
			c1 = group_end(s, c1);
		}
		if (c0 > 1)
			fputc('\n', f);
		text_rows(f, s, w, c0, c1);
	}
}

/* A markdown cell's text: trailing blanks dropped, what GitHub would interpret escaped. */
static void md_text(FILE *f, const char *t)
{
	size_t len = strlen(t), i;

	while (len && t[len - 1] == ' ')
		len--;
	for (i = 0; i < len; i++) {
		if (strchr("\\|*_`<>[]", t[i]))
			fputc('\\', f);
		fputc(t[i], f);
	}
}

void sheet_markdown(FILE *f, const struct sheet *s)
{
	unsigned r, c;

	for (r = 0; r < s->nrows; r++) {
		for (c = 0; c < s->ncols; c++) {
			fputs(c ? " " : "| ", f);
			md_text(f, sheet_at(s, r, c));
			fputs(" |", f);
		}
		fputc('\n', f);
		for (c = 0; r == 0 && c < s->ncols; c++)
			fputs(c ? " ---: |" : "| --- |", f);
		if (r == 0)
			fputc('\n', f);
	}
}
