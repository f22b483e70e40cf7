/* cmd_calibrate.c -- `harness calibrate`: A/A blocks of a matrix's cells run on
 * this host and their noise stored (check prints its advice: cmd_run.c). */
#include "cli/commands.h"
#include "analysis/calibrate.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/textline.h"
#include "spec/spec.h"
#include "store/store.h"
#include "common/fmt.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: harness calibrate [--arm ARM] [--cell CELL]... [--blocks N] [--print] FILE\n"
	"       harness calibrate --from MATRIX\n"
	"  runs FILE's cells (--cell: these) as an A/A matrix on this host, two copies of\n"
	"  one arm (--arm, default the first) for N ABBA blocks (default 10), then stores\n"
	"  each cell's and metric's noise; --print: print that A/A matrix (to submit it to\n"
	"  harnessd) and run nothing; --from: store the noise of a stored A/A matrix\n";

struct cal_opts {
	const char *arm, *from, *file;
	const char *cells[SPEC_MAX_CELLS];
	size_t n_cells;
	unsigned blocks;
	int print;
};

static int parse_blocks(const char *s, unsigned *ret)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || v < 4 || v > SPEC_MAX_REPS / 2)
		return -1;
	*ret = (unsigned)v;
	return 0;
}

/* Options into o: 0, or -1 after printing why. */
static int cal_args(int argc, char **argv, struct cal_opts *o)
{
	static const struct option longopts[] = {
		{ "arm", required_argument, NULL, 'a' }, { "cell", required_argument, NULL, 'c' },
		{ "blocks", required_argument, NULL, 'b' }, { "print", no_argument, NULL, 'p' },
		{ "from", required_argument, NULL, 'f' }, { NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == 'a')
			o->arm = optarg;
		else if (opt == 'f')
			o->from = optarg;
		else if (opt == 'p')
			o->print = 1;
		else if (opt == 'c' && o->n_cells < SPEC_MAX_CELLS)
			o->cells[o->n_cells++] = optarg;
		else if (opt == 'b' && parse_blocks(optarg, &o->blocks) == 0)
			continue;
		else {
			if (opt == 'b')
				escape_line(stderr, "harness: calibrate: --blocks '%s': expected 4 to %d",
					    optarg, SPEC_MAX_REPS / 2);
			fputs(usage, stderr);
			return -1;
		}
	}
	if (o->from ? optind != argc : optind != argc - 1) {
		fputs(usage, stderr);
		return -1;
	}
	o->file = o->from ? NULL : argv[optind];
	return 0;
}

/* The stored A/A matrix key's noise, into the database. */
static int store_from(const struct conf *c, const char *key, int64_t mid, char *err)
{
	struct store *s = NULL;
	int rc;

	if (store_open_results(c->results, &s, err) < 0)
		return -1;
	rc = (!mid && store_find_matrix(s, key, &mid, err) < 0) ? -1 :
	     calibrate_store(s, mid, stdout, err);
	store_close(s);
	if (rc == 0)
		return errorf(err, "matrix '%s': no done runs with a metric to calibrate", key);
	return rc < 0 ? -1 : 0;
}

/* The A/A matrix of o->file, as JSON; the file itself checked first, so errors name it. */
static int aa_text(const struct conf *c, const struct cal_opts *o, char **ret, char *err)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (!m)
		return errorf(err, "out of memory");
	if (spec_parse_file(m, o->file, c, err) < 0)
		return -1;
	spec_release(m);
	if (read_regular_file(o->file, SPEC_FILE_MAX, &text, &len, err) < 0)
		return -1;
	return calibrate_spec(text, o->file, o->arm, o->cells, o->n_cells,
			      o->blocks ? o->blocks : CALIBRATE_BLOCKS, ret, err);
}

static int run_aa(const struct conf *c, const struct cal_opts *o, const char *text, char *err)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	char label[PATH_MAX], base_dir[PATH_MAX], *slash;
	int64_t mid = 0;
	int rc;

	if (pathf(base_dir, err, "%s", o->file) < 0)
		return -1;
	slash = strrchr(base_dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(base_dir, ".");
	fmtcut(label, sizeof(label), "%s (A/A calibration)", o->file);
	if (!m)
		return errorf(err, "out of memory");
	if (spec_parse(m, text, label, base_dir, c, err) < 0)
		return -1;
	rc = cli_run(c, label, m, 1, &mid);
	if (rc == 1)
		return 1;          /* cli_run said why */
	if (store_from(c, label, mid, err) < 0)
		return -1;
	return rc;
}

int cmd_calibrate(const struct conf *c, int argc, char **argv, int json)
{
	struct cal_opts o = { 0 };
	_cleanup_free_ char *text = NULL;
	char err[ERR_MAX];
	int rc;

	(void)json;
	if (cal_args(argc, argv, &o) < 0)
		return 1;
	if (o.from)
		rc = store_from(c, o.from, 0, err);
	else if ((rc = aa_text(c, &o, &text, err)) == 0 && o.print)
		return puts(text) < 0;
	else if (rc == 0)
		rc = run_aa(c, &o, text, err);
	if (rc < 0)
		escape_line(stderr, "harness: calibrate: %s", err);
	return rc < 0 ? 1 : rc;
}
