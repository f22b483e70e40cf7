/* cmd_compare.c -- `harness compare`: its options, the store opened from harness.conf, the verdicts
 * printed (analysis/compare.c decides them). */
#include "cli/commands.h"
#include "analysis/compare.h"
#include "analysis/metric.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/textline.h"
#include "analysis/stats.h"
#include "store/store_compare.h"
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

static const char compare_usage[] =
	"usage: harness compare [--margin METRIC=PCT]... [--regressions] [--by-host]\n"
	"                       [--keep-contended] [--json] MATRIX BASE NEW\n"
	"       harness compare --matrices [--margin METRIC=PCT]... [--regressions] [--json]\n"
	"                       M1 M2\n"
	"       harness compare --tags [--margin METRIC=PCT]... [--regressions] [--json]\n"
	"                       TAG_BASE TAG_NEW\n"
	"  BASE, NEW  arm names of MATRIX; with --matrices, cells match by name, arms by position\n"
	"  --tags     the arms so tagged: in the newest matrix with both, else the newest\n"
	"             matrix of each, compared as --matrices does but only those arms\n"
	"  --margin   METRIC's equivalence margin in % (points for a share), over the matrix's\n"
	"             \"margins\" and the metric table's (ops/s 2); its minimum effect is half\n"
	"  --by-host  also each host's verdict of a cell that ran on several (CELL @HOST)\n"
	"  --keep-contended  keep the blocks with a contended run (left out by default)\n"
	"exit: 0 no regression, 1 some cell and metric DIFFERENT and worse, 2 error\n";

int cli_percent(const char *s, double *ret)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0) || v > 100)
		return -1;
	*ret = v / 100;
	return 0;
}

int cmd_compare(const struct conf *c, int argc, char **argv, int json)
{
	static const struct option longopts[] = {
		{ "margin", required_argument, NULL, 'M' },
		{ "matrices", no_argument, NULL, 'm' },
		{ "tags", no_argument, NULL, 't' },
		{ "regressions", no_argument, NULL, 'r' },
		{ "by-host", no_argument, NULL, 'H' },
		{ "keep-contended", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare_opts o = { .json = json };
	struct store *s = NULL;
	char err[ERR_MAX];
	int opt, matrices = 0, tags = 0, ret;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "+hj", longopts, NULL)) != -1) {
		switch (opt) {
		case 'M':
			if (metric_margin_arg(optarg, o.margins, err) < 0) {
				escape_line(stderr, "harness: compare: %s", err);
				return 2;
			}
			break;
		case 'm': matrices = 1; break;
		case 't': tags = 1; break;
		case 'r': o.regressions = 1; break;
		case 'H': o.by_host = 1; break;
		case 'k': o.keep_contended = 1; break;
		case 'j': o.json = 1; break;
		default:
			fputs(compare_usage, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	argc -= optind;
	argv += optind;
	if ((matrices && tags) || (matrices || tags ? argc != 2 : argc != 3)) {
		fputs(compare_usage, stderr);
		return 2;
	}
	if (tags) {
		o.base_tag = argv[0];
		o.new_tag = argv[1];
	}
	o.base_matrix = argv[0];
	o.new_matrix = matrices ? argv[1] : argv[0];
	o.base_arm = matrices ? NULL : argv[1];
	o.new_arm = matrices ? NULL : argv[2];
	if (store_open_results(c->results, &s, err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 2;
	}
	ret = compare_run(s, &o, stdout, stderr, err);
	if (ret < 0)
		escape_line(stderr, "harness: %s", err);
	store_close(s);
	return ret < 0 ? 2 : ret;
}
