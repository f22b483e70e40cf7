/* cmd_lru.c -- `harness lru MATRIX`: what the LRU did inside each arm's first run,
 * the oldest generations' evictions and refaults (output/lrutable.c). */
#include "cli/commands.h"
#include "base/err.h"
#include "base/textline.h"
#include "output/lrutable.h"
#include "store/store.h"

#include <stdio.h>
#include <string.h>

static const char lru_usage[] =
	"usage: harness lru MATRIX\n"
	"  per cell, each arm's first done run: its oldest generations over the measured\n"
	"  intervals (lru_gen_full): file pages evicted, refaulted and protected, by tier\n";

int cmd_lru(const struct conf *c, int argc, char **argv, int json)
{
	struct store *s = NULL;
	char err[ERR_MAX];
	int64_t mid;
	int rc = 1;

	(void)json;
	if (argc != 2 || argv[1][0] == '-') {
		fputs(lru_usage, argc == 2 && !strcmp(argv[1], "-h") ? stdout : stderr);
		return argc == 2 && !strcmp(argv[1], "-h") ? 0 : 2;
	}
	if (store_open_results(c->results, &s, err) < 0 || store_find_matrix(s, argv[1], &mid, err) < 0 ||
	    lru_table(stdout, s, mid, NULL, err) < 0)
		escape_line(stderr, "harness: lru: %s", err);
	else
		rc = 0;
	store_close(s);
	return rc;
}
