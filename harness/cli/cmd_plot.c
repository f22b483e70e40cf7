/* cmd_plot.c -- `harness plot`: its options and one SVG chart per cell and metric written
 * into a directory; output/plot.c draws them. */
#include "cli/commands.h"
#include "output/plot.h"
#include "base/err.h"
#include "output/escape.h"
#include "base/proc.h"
#include "base/textline.h"
#include "store/store_report.h"
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char plot_usage[] =
	"usage: harness plot MATRIX [-o DIR] [--metric NAME]...\n"
	"  SVG charts per workload cell: each metric per interval (default ops/s), one line\n"
	"  per arm (median of its runs) in a min-max band, and each file's resident MiB\n"
	"  -o DIR     where to write them (default RESULTS/plots/MATRIX-ID)\n"
	"  --metric   a metric with a per-interval value (a wrong name lists them); repeatable\n";

/* Every cell's SVGs of matrix key into dir_opt, or RESULTS/plots/NAME-ID. */
static int plot_matrix(const struct conf *c, const char *key, const char *dir_opt,
		       const struct metric *const *ms, unsigned nms, char *err)
{
	struct store *s = NULL;
	struct matrix_info *mi = calloc(1, sizeof(*mi));
	char dir[PATH_MAX], name[64];
	int64_t mid;
	unsigned cell;
	int rc = -1;

	if (!mi)
		return errorf(err, "out of memory");
	if (store_open_results(c->results, &s, err) < 0 ||
	    store_find_matrix(s, key, &mid, err) < 0 || store_matrix_info(s, mid, mi, err) < 0)
		goto out;
	plot_slug(name, sizeof(name), mi->name);
	if ((dir_opt ? pathf(dir, err, "%s", dir_opt)
		     : pathf(dir, err, "%s/plots/%s-%lld", c->results, name, (long long)mid)) < 0 ||
	    mkdir_p(dir, err) < 0)
		goto out;
	for (cell = 0, rc = 0; cell < mi->n_cells && rc == 0; cell++)
		rc = plot_cell_write(s, mid, cell, dir, ms, nms, err);
out:
	free(mi);
	store_close(s);
	return rc;
}

int plot_args(int argc, char **argv, const char *cmd, const char *usage, const char **out,
	      const struct metric **ms, unsigned max, unsigned *n, int *rc)
{
	static const struct option longopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[ERR_MAX];
	int opt;

	*out = NULL;
	*n = 0;
	*rc = 1;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if (opt == 'o') {
			*out = optarg;
		} else if (opt == 'm' && *n < max) {
			if (plot_find_metric(optarg, &ms[(*n)++], err) < 0) {
				escape_line(stderr, "harness: %s: %s", cmd, err);
				return -1;
			}
		} else {
			fputs(usage, opt == 'h' ? stdout : stderr);
			*rc = opt == 'h' ? 0 : 1;
			return -1;
		}
	}
	if (argc - optind != 1) {
		fputs(usage, stderr);
		return -1;
	}
	return 0;
}

int cmd_plot(const struct conf *c, int argc, char **argv, int json)
{
	const struct metric *ms[PLOT_METRICS_MAX];
	const char *dir;
	char err[ERR_MAX];
	unsigned nms;
	int rc;

	(void)json;
	if (plot_args(argc, argv, "plot", plot_usage, &dir, ms, PLOT_METRICS_MAX, &nms, &rc) < 0)
		return rc;
	if (!nms && plot_find_metric(PLOT_DEFAULT_METRIC, &ms[nms++], err) < 0)
		return 1;
	if (plot_matrix(c, argv[optind], dir, ms, nms, err) < 0) {
		escape_line(stderr, "harness: plot: %s", err);
		return 1;
	}
	return 0;
}
