/* cmd_vmstat.c -- `harness vmstat MATRIX [--key K] [--src S]`: any named counter's
 * change per cell and arm (output/countertable.c). */
#include "cli/commands.h"
#include "base/err.h"
#include "base/textline.h"
#include "output/countertable.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char vmstat_usage[] =
	"usage: harness vmstat [--key KEY] [--src vmstat|zram|zswap|stall] MATRIX\n"
	"  per cell and arm: each counter's change over a run's measured intervals\n"
	"  (mean of the done runs); --key: that counter's change interval by interval\n";

int cmd_vmstat(const struct conf *c, int argc, char **argv, int json)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "src", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *key = NULL, *src = "vmstat";
	struct store *s = NULL;
	char err[ERR_MAX];
	int64_t mid;
	int o, rc = 1;

	(void)json;
	optind = 1;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (o == 'k')
			key = optarg;
		else if (o == 's')
			src = optarg;
		else {
			fputs(vmstat_usage, o == 'h' ? stdout : stderr);
			return o == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		fputs(vmstat_usage, stderr);
		return 2;
	}
	if (store_open_results(c->results, &s, err) < 0 ||
	    store_find_matrix(s, argv[optind], &mid, err) < 0 ||
	    counter_table(stdout, s, mid, src, key, err) < 0)
		escape_line(stderr, "harness: vmstat: %s", err);
	else
		rc = 0;
	store_close(s);
	return rc;
}
