/* cmd_extend.c -- `harness extend`: its options, then the blocks queued through harnessd when
 * one answers (cli/client.c), else straight into the database. */
#include "cli/commands.h"
#include "analysis/extend.h"
#include "spec/abba.h"
#include "cli/client.h"
#include "analysis/compare.h"
#include "base/err.h"
#include "base/lock.h"
#include "analysis/metric.h"
#include "base/proc.h"
#include "base/textline.h"
#include "spec/spec.h"
#include "analysis/stats.h"
#include "store/store_extend.h"
#include "common/fmt.h"
#include <getopt.h>
#include <string.h>

static const char extend_usage[] =
	"usage: harness extend --until-decided --max-blocks N MATRIX [BASE NEW]\n"
	"  queue ABBA blocks for the cells whose compare verdict is UNKNOWN, as many as\n"
	"  compare estimates would decide them, at most N blocks a cell in all\n"
	"  BASE NEW   one pair of arms (default: every arm against the first)\n"
	"through harnessd when it runs, else into the database: harness run MATRIX runs them\n";

/* No daemon answers: the same work on the database; 0 or -1 with err. */
static int extend_here(const struct conf *c, const struct extend_opts *o, json_t **ret,
		       char *err)
{
	_cleanup_close_ int lock = -1;
	struct store *s = NULL;
	int http, rc;

	/* a daemon starting (its API not up yet) or a harness run holds it */
	if (lock_take(c->results, "harness extend", &lock, err) < 0 ||
	    store_open_results(c->results, &s, err) < 0)
		return -1;
	rc = extend_matrix(s, o, ret, &http, err);
	store_close(s);
	return rc;
}

/* Through the daemon if one answers (1: none does), with the same options as JSON. */
static int extend_daemon(const struct conf *c, const struct extend_opts *o, json_t **ret,
			 char *err)
{
	char path[128];
	json_t *body = json_pack("{s:I}", "max_blocks", (json_int_t)o->max_blocks);
	char *text;
	int rc;

	if (body && o->base_arm) {
		json_object_set_new(body, "base", json_string(o->base_arm));
		json_object_set_new(body, "new", json_string(o->new_arm));
	}
	text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	json_decref(body);
	if (!text)
		return errorf(err, "out of memory");
	if (fmtbuf(path, sizeof(path), "/matrices/%s/extend", o->matrix) < 0)
		rc = errorf(err, "matrix '%.64s...': too long a name", o->matrix);
	else
		rc = client_post(c, path, text, ret, err);
	free(text);
	return rc;
}

/*
 * harness extend's options and MATRIX [BASE NEW] into o; -1 with err, or
 * with nothing said for the usage.
 */
static int parse_args(int argc, char **argv, struct extend_opts *o, char *err)
{
	static const struct option longopts[] = {
		{ "until-decided", no_argument, NULL, 'u' },
		{ "max-blocks", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, until = 0;
	char *end;
	unsigned long n = 0;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (opt == 'u')
			until = 1;
		else if (opt == 'n' && ((n = strtoul(optarg, &end, 10)) == 0 || *end || n > 100000))
			return errorf(err, "extend: --max-blocks '%s': a number of blocks from 1", optarg);
		else if (opt != 'n')
			return -1;   /* usage only */
	}
	if (!until || !n || (argc - optind != 1 && argc - optind != 3))
		return -1;
	o->max_blocks = (unsigned)n;
	o->matrix = argv[optind];
	o->base_arm = argc - optind == 3 ? argv[optind + 1] : NULL;
	o->new_arm = argc - optind == 3 ? argv[optind + 2] : NULL;
	if (!spec_key_ok(o->matrix))
		return errorf(err, "extend: matrix '%s': expected an id or a name", o->matrix);
	return 0;
}

int cmd_extend(const struct conf *c, int argc, char **argv, int json)
{
	struct extend_opts o = { 0 };
	const char *via = "harnessd";
	char err[ERR_MAX] = "";
	json_t *res = NULL;
	int rc;

	if (parse_args(argc, argv, &o, err) < 0) {
		if (err[0])
			escape_line(stderr, "harness: %s", err);
		fputs(extend_usage, stderr);
		return 1;
	}
	rc = extend_daemon(c, &o, &res, err);
	if (rc == 1) {
		via = "database";
		rc = extend_here(c, &o, &res, err);
	}
	if (rc < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	json_object_set_new(res, "via", json_string(via));
	if (json) {
		json_dumpf(res, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		extend_print(stdout, res);
		if (!strcmp(via, "database") && json_integer_value(json_object_get(res, "runs")))
			printf("no harnessd answered: queued in %s/harness.db; start harnessd, or "
			       "run them with: harness run %s\n", c->results, o.matrix);
	}
	json_decref(res);
	return 0;
}
