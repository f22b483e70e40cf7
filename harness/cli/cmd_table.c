/* cmd_table.c -- `harness table`: its options (format, metric, baseline, pairs) and the
 * matrix found by name or id; output/table.c lays the tables out. */
#include "cli/commands.h"
#include "output/table.h"
#include "base/err.h"
#include "analysis/grid.h"
#include "output/sheet.h"
#include "base/proc.h"
#include "base/textline.h"
#include "output/report.h"
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

static const char table_usage[] =
	"usage: harness table [--format text|markdown|csv|json] [--metric NAME]...\n"
	"                     [--baseline ARM] [--margin PCT] [--pairs] MATRIX\n"
	"  without options: the report `harness run` prints; with any: one grid per\n"
	"  metric, cells down and arms across (value, Delta, mark, n)\n"
	"  --metric    (repeatable; default ops/s and rf/read):\n";

/* harness table's help, with every metric of the table and its meaning. */
static void usage(FILE *f)
{
	size_t k;

	fputs(table_usage, f);
	for (k = 0; k < n_metrics; k++)
		fprintf(f, "    %-12s %s\n", metrics[k].name, metrics[k].desc);
	fputs("  --baseline  Delta and marks against this arm (default: the first)\n"
	      "  --margin    margin of the marks in % (points for a share; default: each\n"
	      "              metric's declared one, ops/s 2)\n"
	      "  --pairs     per block, the paired delta of each ABBA position pair\n", f);
}

/* --format's value; -1 after saying what was expected. */
static int parse_format(const char *s, enum table_format *ret)
{
	if (table_format_find(s, ret) == 0)
		return 0;
	escape_line(stderr, "harness: table: --format '%s': expected text, markdown, csv or json", s);
	return -1;
}

/* One --metric into o (at most TABLE_MAX_METRICS); -1 after saying why. */
static int parse_metric(const char *s, struct table_opts *o)
{
	const struct metric *m = metric_find(s);

	if (!m) {
		escape_line(stderr, "harness: table: --metric '%s': no such metric (see --help)", s);
		return -1;
	}
	if (o->n_metrics == TABLE_MAX_METRICS) {
		escape_line(stderr, "harness: table: at most %d --metric", TABLE_MAX_METRICS);
		return -1;
	}
	o->metric[o->n_metrics++] = m;
	return 0;
}

/* --margin as a share above 0 and at most 1; -1 after saying why. */
static int parse_margin(const char *s, double *ret)
{
	if (cli_percent(s, ret) < 0 || *ret == 0) {
		escape_line(stderr, "harness: table: --margin '%s': expected a percentage above 0 and at most 100", s);
		return -1;
	}
	return 0;
}

/* Options into o; *grids set when any was given. Returns 0, 1 (help) or -1. */
static int parse_opts(int argc, char **argv, struct table_opts *o, int *grids)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { "metric", required_argument, NULL, 'm' },
		{ "baseline", required_argument, NULL, 'b' }, { "margin", required_argument, NULL, 'F' },
		{ "pairs", no_argument, NULL, 'p' }, { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt, rc = 0;

	optind = 0;
	while (rc == 0 && (opt = getopt_long(argc, argv, "+hj", longopts, NULL)) != -1) {
		*grids = 1;
		switch (opt) {
		case 'f': rc = parse_format(optarg, &o->format); break;
		case 'm': rc = parse_metric(optarg, o); break;
		case 'b': o->baseline = optarg; break;
		case 'F': rc = parse_margin(optarg, &o->margin); break;
		case 'p': o->pairs = 1; break;
		case 'j': o->format = TABLE_JSON; break;
		case 'h': usage(stdout); return 1;
		default: rc = -1; break;
		}
	}
	return rc;
}

int cmd_table(const struct conf *c, int argc, char **argv, int json)
{
	struct table_opts o = { .format = json ? TABLE_JSON : TABLE_TEXT };
	struct store *s = NULL;
	char err[ERR_MAX];
	int grids = json, rc;
	int64_t mid;

	rc = parse_opts(argc, argv, &o, &grids);
	if (rc != 0 || argc - optind != 1) {
		if (rc >= 0 && rc != 1)
			usage(stderr);
		return rc == 1 ? 0 : 1;
	}
	if (store_open_results(c->results, &s, err) < 0 ||
	    store_find_matrix(s, argv[optind], &mid, err) < 0 ||
	    (grids ? table_print(stdout, s, mid, &o, err) : report_table(stdout, s, mid, err)) < 0)
		rc = 1;
	if (rc)
		escape_line(stderr, "harness: %s", err);
	store_close(s);
	return rc;
}
