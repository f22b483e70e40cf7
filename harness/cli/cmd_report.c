/* cmd_report.c -- `harness report`: its options and the HTML page written where asked or
 * beside the database; output/html.c makes the page. */
#include "cli/commands.h"
#include "output/html.h"
#include "analysis/compare.h"
#include "base/err.h"
#include "output/escape.h"
#include "output/plot.h"
#include "base/proc.h"
#include "base/textline.h"
#include "output/report.h"
#include "analysis/stats.h"
#include "store/store_report.h"
#include "output/table.h"
#include <string.h>

static const char html_usage[] =
	"usage: harness report MATRIX [-o FILE.html] [--metric NAME]...\n"
	"  one self-contained HTML page: tables, compare verdicts, SVG plots per cell\n"
	"  (each --metric per interval, default ops/s and refault/s, and every file's\n"
	"  page cache), kernels and guests, failed runs with their console logs' end\n"
	"  -o FILE    default RESULTS/reports/MATRIX-ID.html\n";

/* The HTML report built in memory, then written to path whole. */
static int write_report(struct store *s, int64_t mid, const char *path,
			const struct html_opts *o, char *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return errorf(err, "out of memory");
	rc = html_report(f, s, mid, o, err);
	if (fclose(f) != 0 && rc == 0)
		rc = errorf(err, "out of memory");
	return rc < 0 ? -1 : write_file(path, buf, len, err);
}

/*
 * RESULTS/reports/NAME-ID.html (the name's other characters as '_'), its
 * directory made.
 */
static int default_path(const struct conf *c, struct store *s, int64_t mid, char *path,
			char *err)
{
	struct report_matrix rm;
	char dir[PATH_MAX];
	size_t i;

	if (store_report_matrix(s, mid, &rm, err) < 0)
		return -1;
	for (i = 0; rm.name[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
			    rm.name[i]))
			rm.name[i] = '_';
	if (pathf(dir, err, "%s/reports", c->results) < 0 || mkdir_p(dir, err) < 0)
		return -1;
	return pathf(path, err, "%s/%s-%lld.html", dir, rm.name, (long long)mid);
}

/*
 * harness report: the matrix's page at out or its default path, which is
 * printed.
 */
static int report_matrix(const struct conf *c, const char *key, const char *out,
			 const struct html_opts *o, char *err)
{
	struct store *s = NULL;
	char path[PATH_MAX];
	int64_t mid;
	int rc = -1;

	if (store_open_results(c->results, &s, err) < 0 ||
	    store_find_matrix(s, key, &mid, err) < 0)
		goto out;
	if ((out ? pathf(path, err, "%s", out) : default_path(c, s, mid, path, err)) < 0 ||
	    write_report(s, mid, path, o, err) < 0)
		goto out;
	printf("%s\n", path);
	rc = 0;
out:
	store_close(s);
	return rc;
}

int cmd_report(const struct conf *c, int argc, char **argv, int json)
{
	struct html_opts o = { .console_bytes = HTML_CONSOLE_BYTES };
	const char *out;
	char err[ERR_MAX];
	int rc;

	(void)json;
	if (plot_args(argc, argv, "report", html_usage, &out, o.metrics, HTML_MAX_METRICS,
		      &o.n_metrics, &rc) < 0)
		return rc;
	if (!o.n_metrics && (plot_find_metric(PLOT_DEFAULT_METRIC, &o.metrics[o.n_metrics++], err) < 0 ||
			     plot_find_metric("refault/s", &o.metrics[o.n_metrics++], err) < 0)) {
		escape_line(stderr, "harness: report: %s", err);
		return 1;
	}
	if (report_matrix(c, argv[optind], out, &o, err) < 0) {
		escape_line(stderr, "harness: report: %s", err);
		return 1;
	}
	return 0;
}
