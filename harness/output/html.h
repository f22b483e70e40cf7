/* html.h -- `harness report MATRIX -o FILE.html`: one self-contained HTML
 * page: ABBA tables, compare verdicts, inline SVG plots, kernels, guests and
 * the runs that failed with the end of their console logs. */
#ifndef HTML_H
#define HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/conf.h"
#include "analysis/metric.h"
#include "store/store.h"

#define HTML_MAX_METRICS   8
#define HTML_CONSOLE_BYTES 8192   /* of each failed run's console log, its end */
#define HTML_MAX_FAILED    40     /* failed runs shown with an excerpt */

struct html_opts {
	const struct metric *metrics[HTML_MAX_METRICS];   /* plotted per cell */
	unsigned n_metrics;
	size_t console_bytes;
};

/* Write the page of matrix mid to f. Returns 0, or -1 with err. */
int html_report(FILE *f, struct store *s, int64_t mid, const struct html_opts *o, char *err);


#endif
