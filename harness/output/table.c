/* table.c -- `harness table`: each grid or set of position pairs is laid out
 * once as a sheet of strings (or fields), then written in the chosen format. */
#include "output/table.h"
#include "base/err.h"
#include "analysis/grid.h"
#include "output/sheet.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static void text72(FILE *f, const struct sheet *s)
{
	sheet_text(f, s, TABLE_WIDTH);
}

/* ---- formatting numbers ---- */

/* x with decimals, thousands grouped by commas: 13,993,868. */
static void fmt_grouped(char *buf, size_t len, double x, int decimals)
{
	char raw[64], out[96];
	size_t i, k = 0, digits;
	const char *p = raw;

	fmtcut(raw, sizeof(raw), "%.*f", decimals, x);
	if (*p == '-')
		out[k++] = *p++;
	digits = strcspn(p, ".");
	for (i = 0; i < digits && k < sizeof(out) - 2; i++) {
		out[k++] = p[i];
		if (i + 1 < digits && (digits - i - 1) % 3 == 0)
			out[k++] = ',';
	}
	fmtcut(buf, len, "%.*s%s", (int)k, out, p + digits);
}

static const struct {
	char mark;
	const char *name;
} verdicts[] = {
	[VERDICT_UNKNOWN] = { ' ', "UNKNOWN" },
	[VERDICT_SAME] = { '=', "SAME" },
	[VERDICT_DIFFERENT] = { '*', "DIFFERENT" },
	[VERDICT_UNMEASURED] = { ' ', "NOT MEASURED" },
};

/* ---- a grid's columns, described once: per arm, what the sheet shows ---- */

/* An arm's mean, grouped by thousands at the metric's decimals; "-" for none. */
static void col_value(const struct grid *g, unsigned row, unsigned arm, char *buf, size_t len)
{
	const struct grid_entry *e = &g->e[row][arm];

	if (isnan(e->value))
		fmtcut(buf, len, "-");
	else
		fmt_grouped(buf, len, e->value, g->m->decimals);
}

/* An arm's Delta against the baseline in %, with its verdict's mark. */
static void col_delta(const struct grid *g, unsigned row, unsigned arm, char *buf, size_t len)
{
	const struct grid_entry *e = &g->e[row][arm];

	if (isnan(e->delta))
		fmtcut(buf, len, "- ");
	else
		fmtcut(buf, len, "%+.1f%%%c", 100 * e->delta, verdicts[e->v.kind].mark);
}

/* An arm's done runs, "*" when some of them were contended. */
static void col_n(const struct grid *g, unsigned row, unsigned arm, char *buf, size_t len)
{
	fmtcut(buf, len, "%u%s", g->e[row][arm].n, g->e[row][arm].contended ? "*" : "");
}

static const struct grid_col {
	const char *head;        /* NULL: the arm's name */
	int on_base;             /* also in the baseline arm's group */
	unsigned cap;            /* text width at most */
	void (*text)(const struct grid *g, unsigned row, unsigned arm, char *buf, size_t len);
} grid_cols[] = {
	{ NULL,    1, 18, col_value },
	{ "Delta", 0, 10, col_delta },
	{ "n",     1, 6,  col_n },
};

/* The baseline's group first, then the other arms in order. */
static unsigned arm_at(const struct grid *g, unsigned i)
{
	return i == 0 ? g->base : i <= g->base ? i - 1 : i;
}

/*
 * A grid as a sheet: the cell names, then per arm (the baseline first) its
 * columns of grid_cols; its cells are SHEET_CELL texts.
 */
static int grid_sheet(const struct grid *g, struct sheet *s, char *err)
{
	unsigned i, arm, row, k, c = 1, ncols = 1;

	for (i = 0; i < g->mi->n_arms; i++)
		for (k = 0; k < ARRAY_SIZE(grid_cols); k++)
			ncols += grid_cols[k].on_base || i;
	if (sheet_init(s, g->n_rows + 1, ncols, err) < 0)
		return -1;
	fmtcut(sheet_at(s, 0, 0), SHEET_CELL, "cell");
	for (row = 0; row < g->n_rows; row++)
		fmtcut(sheet_at(s, row + 1, 0), SHEET_CELL, "%s", g->mi->cell_names[g->cells[row]]);
	for (i = 0; i < g->mi->n_arms; i++) {
		arm = arm_at(g, i);
		for (k = 0; k < ARRAY_SIZE(grid_cols); k++, c++) {
			if (!grid_cols[k].on_base && !i) {
				c--;
				continue;
			}
			s->group[c] = i + 1;
			s->cap[c] = grid_cols[k].cap;
			fmtcut(sheet_at(s, 0, c), SHEET_CELL, "%s",
				 grid_cols[k].head ? grid_cols[k].head : g->mi->arm_names[arm]);
			for (row = 0; row < g->n_rows; row++)
				grid_cols[k].text(g, row, arm, sheet_at(s, row + 1, c), SHEET_CELL);
		}
	}
	return 0;
}

/* ---- a grid's fields for CSV and JSON: numbers, unformatted ---- */

static double f_value(const struct grid_entry *e) { return e->value; }
static double f_n(const struct grid_entry *e) { return e->n; }
static double f_delta(const struct grid_entry *e) { return 100 * e->delta; }
static double f_blocks(const struct grid_entry *e) { return (double)e->v.blocks; }
static double f_paired(const struct grid_entry *e) { return 100 * e->v.delta; }
static double f_lo(const struct grid_entry *e) { return 100 * e->v.lo; }
static double f_hi(const struct grid_entry *e) { return 100 * e->v.hi; }
static double f_p(const struct grid_entry *e) { return e->v.p; }
static double f_q(const struct grid_entry *e) { return e->v.q; }

enum field_kind { F_REAL, F_INT, F_VERDICT };

static const struct grid_field {
	const char *key;
	enum field_kind kind;
	double (*get)(const struct grid_entry *e);
} grid_fields[] = {
	{ "value",            F_REAL,    f_value },
	{ "n",                F_INT,     f_n },
	{ "delta_pct",        F_REAL,    f_delta },
	{ "verdict",          F_VERDICT, NULL },
	{ "blocks",           F_INT,     f_blocks },
	{ "paired_delta_pct", F_REAL,    f_paired },
	{ "interval_lo_pct",  F_REAL,    f_lo },
	{ "interval_hi_pct",  F_REAL,    f_hi },
	{ "p",                F_REAL,    f_p },
	{ "q",                F_REAL,    f_q },
};

/* A number as JSON; null for NAN and infinities (JSON has neither). */
static json_t *json_num(double x)
{
	return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

/*
 * One field of an arm's grid entry as JSON: the verdict's name (null for the
 * baseline), an integer, or a number.
 */
static json_t *field_json(const struct grid_field *fd, const struct grid *g, unsigned arm,
			  const struct grid_entry *e)
{
	if (fd->kind == F_VERDICT)
		return arm == g->base ? json_null() : json_string(verdicts[e->v.kind].name);
	if (fd->kind == F_INT)
		return json_integer((json_int_t)fd->get(e));
	return json_num(fd->get(e));
}

/* RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
static void csv_text(FILE *f, const char *t)
{
	if (!strpbrk(t, ",\"\r\n")) {
		fputs(t, f);
		return;
	}
	fputc('"', f);
	for (; *t; t++) {
		if (*t == '"')
			fputc('"', f);
		fputc(*t, f);
	}
	fputc('"', f);
}

/* A number as CSV: empty for NAN and infinities. */
static void csv_num(FILE *f, double x)
{
	if (!isnan(x) && !isinf(x))
		fprintf(f, "%.10g", x);
}

/* One field of an arm's grid entry as CSV, as field_json for JSON. */
static void field_csv(FILE *f, const struct grid_field *fd, const struct grid *g, unsigned arm,
		      const struct grid_entry *e)
{
	if (fd->kind == F_VERDICT) {
		if (arm != g->base)
			fputs(verdicts[e->v.kind].name, f);
	} else if (fd->kind == F_INT) {
		fprintf(f, "%.0f", fd->get(e));
	} else {
		csv_num(f, fd->get(e));
	}
}

/* ---- output: one writer per format ---- */

struct out {
	FILE *f;
	const struct table_opts *o;
	json_t *all;           /* JSON: every table, dumped at the end */
	unsigned tables;
	size_t family;         /* verdicts adjusted together: every mark the tables show */
};

/* One line of at most TABLE_WIDTH characters. */
static void line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(FILE *f, const char *fmt, ...)
{
	char buf[TABLE_WIDTH + 1];
	va_list ap;

	va_start(ap, fmt);
	vfmtcut(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "%s\n", buf);
}

/* The grid's title line: matrix, metric, which way is better, which mean. */
static void grid_title(FILE *f, const struct grid *g, int md)
{
	line(f, "%s%.24s: %s%s (%s is better), %s mean of runs", md ? "**" : "", g->mi->name,
	     g->m->name, md ? "**" : "", g->m->higher_better ? "higher" : "lower",
	     g->m->harmonic ? "harmonic" : "arithmetic");
	if (md)
		fputc('\n', f);
}

/* Is any entry's run count marked (a contended run among them)? */
/* 1 if any entry of the grid counts a contended run. */
static int any_contended(const struct grid *g)
{
	for (unsigned r = 0; r < g->n_rows; r++)
		for (unsigned a = 0; a < g->mi->n_arms; a++)
			if (g->e[r][a].contended)
				return 1;
	return 0;
}

/*
 * The lines under a grid: what Delta, n and the marks mean, the margin, and
 * the family the verdicts were adjusted over.
 */
static void grid_legend(FILE *f, const struct grid *g, int md, size_t family)
{
	const char *q = md ? "`" : "";

	if (md)
		fputc('\n', f);
	line(f, "Delta: vs %.24s; n: done runs", g->mi->arm_names[g->base]);
	if (any_contended(g))
		line(f, "n*: some contended (host CPU or I/O pressure over the limits); the marks "
		     "leave their blocks out");
	line(f, "mark: %s*%s differs, %s=%s same (within a %.1f%s margin), blank: undecided;",
	     q, q, q, q, 100 * grid_rule(g).margin, g->m->scale == VERDICT_DIFF ? " pt" : "%");
	line(f, "from each unit's log ratio, as harness compare decides,");
	line(f, "adjusted over the %zu verdicts of these tables (Benjamini-Hochberg)", family);
}

/* A grid as a titled sheet with its legend, rendered as text or Markdown. */
static int grid_sheet_out(struct out *w, const struct grid *g,
			  void (*render)(FILE *, const struct sheet *), char *err)
{
	struct sheet s = { 0 };
	int md = render == sheet_markdown;

	if (grid_sheet(g, &s, err) < 0)
		return -1;
	fputs(w->tables++ ? "\n" : "", w->f);
	grid_title(w->f, g, md);
	render(w->f, &s);
	grid_legend(w->f, g, md, w->family);
	sheet_release(&s);
	return 0;
}

static int grid_text(struct out *w, const struct grid *g, char *err)
{
	return grid_sheet_out(w, g, text72, err);
}

static int grid_markdown(struct out *w, const struct grid *g, char *err)
{
	return grid_sheet_out(w, g, sheet_markdown, err);
}

/* The CSV header of grids: the identifying columns, then grid_fields' keys. */
static void grid_csv_head(FILE *f)
{
	size_t k;

	fputs("matrix,metric,cell,arm,baseline", f);
	for (k = 0; k < ARRAY_SIZE(grid_fields); k++)
		fprintf(f, ",%s", grid_fields[k].key);
	fputs("\r\n", f);
}

/* A grid's rows as CSV, one per cell and arm. */
static int grid_csv(struct out *w, const struct grid *g, char *err)
{
	const char *id[5];
	unsigned row, arm, k;
	size_t i;

	(void)err;
	for (row = 0; row < g->n_rows; row++)
		for (arm = 0; arm < g->mi->n_arms; arm++) {
			id[0] = g->mi->name;
			id[1] = g->m->name;
			id[2] = g->mi->cell_names[g->cells[row]];
			id[3] = g->mi->arm_names[arm];
			id[4] = g->mi->arm_names[g->base];
			for (k = 0; k < 5; k++) {
				fputs(k ? "," : "", w->f);
				csv_text(w->f, id[k]);
			}
			for (i = 0; i < ARRAY_SIZE(grid_fields); i++) {
				fputc(',', w->f);
				field_csv(w->f, &grid_fields[i], g, arm, &g->e[row][arm]);
			}
			fputs("\r\n", w->f);
		}
	return 0;
}

/* A grid's row (a cell) as JSON: per arm its grid_fields. */
static json_t *grid_row_json(const struct grid *g, unsigned row)
{
	json_t *arms = json_array(), *a;
	unsigned arm;
	size_t k;

	for (arm = 0; arm < g->mi->n_arms; arm++) {
		a = json_pack("{s:s}", "arm", g->mi->arm_names[arm]);
		for (k = 0; k < ARRAY_SIZE(grid_fields); k++)
			json_object_set_new(a, grid_fields[k].key,
					    field_json(&grid_fields[k], g, arm, &g->e[row][arm]));
		json_array_append_new(arms, a);
	}
	return json_pack("{s:s, s:o}", "cell", g->mi->cell_names[g->cells[row]], "arms", arms);
}

/* A grid as a JSON object, appended to the document w->all holds. */
static int grid_json(struct out *w, const struct grid *g, char *err)
{
	json_t *t, *rows = json_array();
	unsigned row;

	for (row = 0; row < g->n_rows; row++)
		json_array_append_new(rows, grid_row_json(g, row));
	t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "kind", "grid",
		      "matrix", g->mi->name, "metric", g->m->name, "description", g->m->desc,
		      "better", g->m->higher_better ? "higher" : "lower",
		      "mean", g->m->harmonic ? "harmonic" : "arithmetic",
		      "baseline", g->mi->arm_names[g->base], "margin_pct", json_real(100 * grid_rule(g).margin),
		      "rows", rows);
	if (!t || json_array_append_new(w->all, t) < 0)
		return errorf(err, "out of memory");
	return 0;
}

/* ---- position pairs ---- */

/* Which table of pairs: a row of the grid and an arm against the baseline. */
struct pairs_of {
	const struct grid *g;
	unsigned row, arm;
	const struct grid_pairs *p;
};

/* A share as a signed percentage with two decimals; "-" for NAN. */
static void fmt_pct(char *buf, size_t len, double x)
{
	if (isnan(x))
		fmtcut(buf, len, "-");
	else
		fmtcut(buf, len, "%+.2f%%", 100 * x);
}

/*
 * The paired deltas of one arm against the baseline as a sheet: a row per
 * block, a column per ABBA position pair, and their means last.
 */
static int pairs_sheet(const struct pairs_of *q, struct sheet *s, char *err)
{
	const struct grid_pairs *p = q->p;
	unsigned c, r;

	if (sheet_init(s, (unsigned)p->n_blocks + 2, p->per_block + 1, err) < 0)
		return -1;
	fmtcut(sheet_at(s, 0, 0), SHEET_CELL, "block");
	fmtcut(sheet_at(s, s->nrows - 1, 0), SHEET_CELL, "mean");
	for (c = 1; c <= p->per_block; c++) {
		s->group[c] = c;
		s->cap[c] = 10;
		fmtcut(sheet_at(s, 0, c), SHEET_CELL, "pair %u", c);
		fmt_pct(sheet_at(s, s->nrows - 1, c), SHEET_CELL, p->mean[c - 1]);
		for (r = 0; r < p->n_blocks; r++)
			fmt_pct(sheet_at(s, r + 1, c), SHEET_CELL, p->d[r * p->per_block + c - 1]);
	}
	for (r = 0; r < p->n_blocks; r++)
		fmtcut(sheet_at(s, r + 1, 0), SHEET_CELL, "%u", p->block[r]);
	return 0;
}

/* A position pairs' table, titled and explained, as text or Markdown. */
static int pairs_sheet_out(struct out *w, const struct pairs_of *q,
			   void (*render)(FILE *, const struct sheet *), char *err)
{
	const struct grid *g = q->g;
	struct sheet s = { 0 };
	int md = render == sheet_markdown;

	if (pairs_sheet(q, &s, err) < 0)
		return -1;
	fputs(w->tables++ ? "\n" : "", w->f);
	line(w->f, "%s%.20s / %.24s: %s%s, %.16s vs %.16s", md ? "**" : "", g->mi->name,
	     g->mi->cell_names[g->cells[q->row]], g->m->name, md ? "**" : "",
	     g->mi->arm_names[q->arm], g->mi->arm_names[g->base]);
	fputs(md ? "\n" : "", w->f);
	render(w->f, &s);
	fputs(md ? "\n" : "", w->f);
	line(w->f, "paired delta per ABBA position pair: pair k is the k-th rep of each");
	line(w->f, "block (A B, then B A); mean: over the blocks");
	sheet_release(&s);
	return 0;
}

static int pairs_text(struct out *w, const struct pairs_of *q, char *err)
{
	return pairs_sheet_out(w, q, text72, err);
}

static int pairs_markdown(struct out *w, const struct pairs_of *q, char *err)
{
	return pairs_sheet_out(w, q, sheet_markdown, err);
}

static void pairs_csv_head(FILE *f)
{
	fputs("matrix,metric,cell,arm,baseline,block,pair,delta_pct\r\n", f);
}

/* The paired deltas as CSV, one row per block and pair. */
static int pairs_csv(struct out *w, const struct pairs_of *q, char *err)
{
	const struct grid *g = q->g;
	const char *id[5] = { g->mi->name, g->m->name, g->mi->cell_names[g->cells[q->row]],
			      g->mi->arm_names[q->arm], g->mi->arm_names[g->base] };
	size_t b;
	unsigned k, r;

	(void)err;
	for (b = 0; b < q->p->n_blocks; b++)
		for (r = 0; r < q->p->per_block; r++) {
			for (k = 0; k < 5; k++) {
				fputs(k ? "," : "", w->f);
				csv_text(w->f, id[k]);
			}
			fprintf(w->f, ",%u,%u,", q->p->block[b], r + 1);
			csv_num(w->f, 100 * q->p->d[b * q->p->per_block + r]);
			fputs("\r\n", w->f);
		}
	return 0;
}

/* x[0..n) as a JSON array of percentages (null for NAN). */
static json_t *pct_array(const double *x, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_num(100 * x[i]));
	return a;
}

/* The paired deltas as a JSON object, appended to the document w->all holds. */
static int pairs_json(struct out *w, const struct pairs_of *q, char *err)
{
	const struct grid *g = q->g;
	const struct grid_pairs *p = q->p;
	json_t *t, *blocks = json_array();
	size_t b;

	for (b = 0; b < p->n_blocks; b++)
		json_array_append_new(blocks, json_pack("{s:I, s:o}", "block", (json_int_t)p->block[b],
			"delta_pct", pct_array(p->d + b * p->per_block, p->per_block)));
	t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:o}", "kind", "pairs",
		      "matrix", g->mi->name, "metric", g->m->name,
		      "cell", g->mi->cell_names[g->cells[q->row]], "arm", g->mi->arm_names[q->arm],
		      "baseline", g->mi->arm_names[g->base], "pairs_per_block",
		      (json_int_t)p->per_block, "blocks", blocks,
		      "mean_pct", pct_array(p->mean, p->per_block));
	if (!t || json_array_append_new(w->all, t) < 0)
		return errorf(err, "out of memory");
	return 0;
}

static const struct format {
	const char *name;
	int (*grid)(struct out *w, const struct grid *g, char *err);
	int (*pairs)(struct out *w, const struct pairs_of *q, char *err);
	void (*grid_head)(FILE *f), (*pairs_head)(FILE *f);   /* CSV's header row */
} formats[] = {
	[TABLE_TEXT]     = { "text",     grid_text,     pairs_text,     NULL, NULL },
	[TABLE_MARKDOWN] = { "markdown", grid_markdown, pairs_markdown, NULL, NULL },
	[TABLE_CSV]      = { "csv",      grid_csv,      pairs_csv,      grid_csv_head, pairs_csv_head },
	[TABLE_JSON]     = { "json",     grid_json,     pairs_json,     NULL, NULL },
};

int table_format_find(const char *name, enum table_format *ret)
{
	for (size_t k = 0; k < ARRAY_SIZE(formats); k++)
		if (!strcmp(formats[k].name, name)) {
			*ret = (enum table_format)k;
			return 0;
		}
	return -1;
}

/* ---- the tables of a matrix ---- */

/* Every position-pair table of a grid: each row, each arm but the baseline. */
static int emit_pairs(struct out *w, const struct grid *g, const struct run_summary *v,
		      size_t n, char *err)
{
	struct grid_pairs p;
	struct pairs_of q = { .g = g, .p = &p };
	int rc = 0;

	for (q.row = 0; q.row < g->n_rows && !rc; q.row++)
		for (q.arm = 0; q.arm < g->mi->n_arms && !rc; q.arm++) {
			if (q.arm == g->base)
				continue;
			if (grid_pairs(g, v, n, q.row, q.arm, &p, err) < 0)
				return -1;
			rc = formats[w->o->format].pairs(w, &q, err);
			grid_pairs_release(&p);
		}
	return rc;
}

/*
 * The index of the --baseline arm called name (NULL: the first arm) into
 * *ret; -1 with err when the matrix has no such arm.
 */
static int base_index(const struct matrix_info *mi, const char *name, unsigned *ret, char *err)
{
	unsigned i;

	*ret = 0;
	for (i = 0; name && i < mi->n_arms; i++)
		if (!strcmp(mi->arm_names[i], name)) {
			*ret = i;
			return 0;
		}
	if (!name && mi->n_arms)
		return 0;
	return errorf(err, "--baseline '%s': no such arm in matrix '%s'", name ? name : "",
		      mi->name);
}

/* The metrics o asks for: its list, or the metric table's .table ones; how many. */
static size_t chosen_metrics(const struct table_opts *o, const struct metric **ret)
{
	size_t k, n = 0;

	for (k = 0; k < o->n_metrics; k++)
		ret[n++] = o->metric[k];
	for (k = 0; !o->n_metrics && k < n_metrics; k++)
		if (metrics[k].table)
			ret[n++] = &metrics[k];
	return n;
}

/*
 * One grid per metric of ms, like proto, filled and adjusted together (the
 * family is every mark they show), then written: grids or position pairs.
 */
static int emit_all(struct out *w, const struct grid *proto, const struct metric *const *ms,
		    size_t nm, const struct run_summary *v, size_t n, char *err)
{
	_cleanup_free_ struct grid *g = calloc(nm + 1, sizeof(*g));
	_cleanup_free_ struct grid **gp = calloc(nm + 1, sizeof(*gp));
	size_t k;

	if (!g || !gp)
		return errorf(err, "out of memory");
	for (k = 0; k < nm; k++) {
		g[k] = *proto;
		g[k].m = ms[k];
		gp[k] = &g[k];
		if (grid_fill(&g[k], v, n, err) < 0)
			return -1;
	}
	if (grid_adjust(gp, nm, &w->family, err) < 0)
		return -1;
	for (k = 0; k < nm; k++)
		if ((w->o->pairs ? emit_pairs(w, &g[k], v, n, err)
				 : formats[w->o->format].grid(w, &g[k], err)) < 0)
			return -1;
	return 0;
}

/* The JSON document of every table written, then a newline. */
static int finish_json(struct out *w, char *err)
{
	int rc = json_dumpf(w->all, w->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	fputc('\n', w->f);
	return rc < 0 ? errorf(err, "cannot write JSON") : 0;
}

int table_print(FILE *f, struct store *s, int64_t matrix_id, const struct table_opts *o,
		char *err)
{
	_cleanup_free_ struct matrix_info *mi = calloc(1, sizeof(*mi));
	_cleanup_free_ struct grid *g = calloc(1, sizeof(*g));
	_cleanup_free_ struct run_summary *v = NULL;
	const struct metric *ms[TABLE_MAX_METRICS + 32];
	const struct format *fm = &formats[o->format];
	struct out w = { .f = f, .o = o };
	size_t n;
	int rc;

	if (!mi || !g || n_metrics > 32)
		return errorf(err, "out of memory");
	if (store_matrix_info(s, matrix_id, mi, err) < 0 ||
	    store_summaries(s, matrix_id, SUMMARY_TABLE, &v, &n, err) < 0 ||
	    base_index(mi, o->baseline, &g->base, err) < 0)
		return -1;
	g->mi = mi;
	g->margin = o->margin;
	for (g->n_rows = 0; g->n_rows < mi->n_cells; g->n_rows++)
		g->cells[g->n_rows] = g->n_rows;
	if (o->pairs ? fm->pairs_head : fm->grid_head)
		(o->pairs ? fm->pairs_head : fm->grid_head)(f);
	if (o->format == TABLE_JSON && !(w.all = json_array()))
		return errorf(err, "out of memory");
	rc = emit_all(&w, g, ms, chosen_metrics(o, ms), v, n, err);
	if (rc == 0 && w.all)
		rc = finish_json(&w, err);
	json_decref(w.all);
	return rc;
}

int table_text_grids(FILE *f, const struct matrix_info *mi, const struct run_summary *v,
		     size_t n, const unsigned *cells, unsigned n_cells,
		     const struct metric *const *ms, size_t nm, char *err)
{
	_cleanup_free_ struct grid *g = calloc(1, sizeof(*g));
	struct table_opts o = { .format = TABLE_TEXT };
	struct out w = { .f = f, .o = &o, .tables = 1 };

	if (!g)
		return errorf(err, "out of memory");
	g->mi = mi;
	g->margin = o.margin;
	g->n_rows = n_cells;
	memcpy(g->cells, cells, n_cells * sizeof(*cells));
	return emit_all(&w, g, ms, nm, v, n, err);
}
