/* cmd_bisect.c -- `harness bisect`: its options, then the bisection through
 * harnessd when one answers (followed until it ends), else here, step by step. */
#include "cli/commands.h"
#include "analysis/bisect_matrix.h"
#include "base/err.h"
#include "base/lock.h"
#include "base/textline.h"
#include "cli/client.h"
#include "spec/spec.h"
#include "common/fmt.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FOLLOW_MS 2000           /* harnessd is asked this often how a bisection goes */

static const char usage[] =
	"usage: harness bisect [--max-blocks N] [--max-runs N] [--max-hours H] [--no-wait]\n"
	"                      MATRIX --cell CELL --metric METRIC GOOD BAD\n"
	"  GOOD and BAD: arms of MATRIX built from one tree, base and config, BAD with a\n"
	"  patch series and GOOD with none or a prefix of it. Confirms BAD against GOOD,\n"
	"  builds every prefix, measures prefixes against GOOD in CELL (ABBA blocks, grown\n"
	"  while undecided, at most N a step, default 24) and checks the first bad patch\n"
	"  against its parent. Each step is a matrix of its own: run it again and nothing\n"
	"  is measured twice. Exit 0: found; 2: not found (a range, unconfirmed, nothing\n"
	"  to bisect, the budget spent); 1: errors. Through harnessd when it runs: the\n"
	"  daemon bisects (overnight, across restarts) and this follows it; --no-wait:\n"
	"  only queue it (harness status shows it)\n";


/* ---- here: each step run in the foreground, as harness run runs a matrix ---- */

struct here {
	const struct conf *c;
	int lock;
	struct buildlock gate_lock;   /* its compiles pass the build gate */
};

/* Around each prefix's compile: the build gate, as harness run's compiles pass it. */
static int gate(void *arg, int busy, char *err)
{
	struct here *h = arg;

	return cli_build_gate(&h->gate_lock, busy, err);
}

/*
 * The results directory's lock for a bisection run here, taken while it
 * builds and runs (on) and given back between (off).
 */
static int hold(void *arg, int on, char *err)
{
	struct here *h = arg;

	if (!on) {
		close(h->lock);
		h->lock = -1;
		return 0;
	}
	/* the build cache and its guests are the directory's, as for harness run */
	return lock_take(h->c->results, "harness bisect", &h->lock, err);
}

/*
 * A step matrix run here as harness run would, its id in *ret_mid; -1 with
 * err when its runs could not be run.
 */
static int run_step(void *arg, const char *text, const char *label, const char *base_dir,
		    int64_t *ret_mid, char *err)
{
	struct here *h = arg;
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return errorf(err, "out of memory");
	if (spec_parse(m, text, label, base_dir, h->c, err) < 0)
		return -1;
	*ret_mid = 0;
	rc = cli_run(h->c, label, m, 1, ret_mid);
	if (rc == 1 || !*ret_mid)
		return errorf(err, "%s: its runs could not be run (said above)", label);
	return 0;
}

static void say(void *arg, const char *line)
{
	(void)arg;
	printf("resolving %s\n", line);
}

static void tell(void *arg, const char *line)
{
	(void)arg;
	escape_line(stdout, "bisect: %s", line);
}

/*
 * A bisection in this process (no daemon): the build gate and the search,
 * the table or (--json) the JSON on stdout and the runs' output on stderr;
 * 0 when a culprit was found, 2 when not, -1 with err.
 */
static int here(const struct conf *c, const struct bisect_request *rq, int json, char *err)
{
	struct here h = { .c = c, .lock = -1, .gate_lock = { .lock = -1, .turn = -1 } };
	struct bisect_hooks hooks = { .run_step = run_step, .hold = hold, .progress = say,
				      .gate = gate, .tell = tell, .arg = &h };
	_cleanup_free_ struct bisect_result *r = calloc(1, sizeof(*r));
	struct bisect_matrix *x = NULL;
	int rc = -1, out = -1;
	json_t *o;

	if (!r)
		return errorf(err, "out of memory");
	if (buildlock_open(&h.gate_lock, c->results, "harness bisect", err) < 0)
		return -1;
	if (bisect_matrix_open(c, rq, &hooks, &x, err) < 0) {
		buildlock_close(&h.gate_lock);
		return -1;
	}
	/* --json: the runs' progress goes to stderr, the JSON alone to stdout */
	fflush(stdout);
	if (json && ((out = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)) {
		errorf(err, "bisect: stdout: cannot set it aside");
		goto out;
	}
	rc = bisect_matrix_run(x, r, err);
	fflush(stdout);
	if (out >= 0 && dup2(out, STDOUT_FILENO) < 0 && rc == 0)
		rc = errorf(err, "bisect: stdout: cannot have it back");
	if (rc == 0 && json) {
		o = bisect_matrix_json(x, r);
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(o);
	} else if (rc == 0) {
		putchar('\n');
		bisect_matrix_print(stdout, x, r);
	}
	if (rc == 0)
		rc = r->outcome == BISECT_FOUND ? 0 : 2;
	bisect_release(r);
out:
	if (out >= 0)
		close(out);
	bisect_matrix_close(x);
	buildlock_close(&h.gate_lock);
	return rc;
}

/* ---- through harnessd ---- */

static char *request_body(const struct bisect_request *rq)
{
	json_auto_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:f}", "cell", rq->cell,
				   "metric", rq->metric, "good", rq->good, "bad", rq->bad,
				   "max_blocks", (json_int_t)rq->max_blocks,
				   "max_runs", (json_int_t)rq->max_runs, "max_hours", rq->max_hours);

	return o ? json_dumps(o, JSON_COMPACT) : NULL;
}

/* The bisection's end as it says: its table (or JSON), exit 0 found, 2 not, 1 failed. */
static int ended(json_t *b, int json)
{
	const char *state = json_string_value(json_object_get(b, "state"));
	json_t *res = json_object_get(b, "result");
	const char *outcome = json_string_value(json_object_get(res, "outcome"));

	if (strcmp(state ? state : "", "done")) {
		escape_line(stderr, "harness: bisection %lld failed: %s",
			    (long long)json_integer_value(json_object_get(b, "id")),
			    json_string_value(json_object_get(b, "progress")) ?: "no reason kept");
		return 1;
	}
	if (json) {
		json_dumpf(res, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		fputs(json_string_value(json_object_get(b, "table")) ?: "", stdout);
	}
	return outcome && !strcmp(outcome, "found") ? 0 : 2;
}

/* Follow bisection id until it ends: each new progress line printed (to stderr with --json). */
static int follow(const struct conf *c, json_int_t id, int json, char *err)
{
	char path[64], last[ERR_MAX] = "", why[ERR_MAX];
	FILE *f = json ? stderr : stdout;
	json_t *b = NULL;
	const char *p, *state;
	int rc;

	if (fmtbuf(path, sizeof(path), "/bisections/%lld", (long long)id) < 0)
		return errorf(err, "bisection %lld: its API path is over %zu bytes", (long long)id,
			      sizeof(path) - 1);
	for (;;) {
		if ((rc = client_get(c, path, &b, why)) != 0)
			return errorf(err, "bisection %lld: harnessd stopped answering (%s); it goes on "
				      "when harnessd is back: harness status shows it", (long long)id,
				      rc == 1 ? "no socket" : why);
		p = json_string_value(json_object_get(b, "progress"));
		if (p && strcmp(p, last)) {
			/* compared at the next poll: cut, it would print again each time */
			if (fmtbuf(last, sizeof(last), "%s", p) < 0) {
				json_decref(b);
				return errorf(err, "bisection %lld: harnessd's progress line is "
					      "over %zu bytes", (long long)id, sizeof(last) - 1);
			}
			escape_line(f, "bisection %lld: %s", (long long)id, p);
		}
		state = json_string_value(json_object_get(b, "state"));
		if (state && strcmp(state, "running")) {
			rc = ended(b, json);
			json_decref(b);
			return rc;
		}
		json_decref(b);
		usleep(FOLLOW_MS * 1000);
	}
}

/* 1: no daemon answers (nothing was sent); else as here's. */
static int through_daemon(const struct conf *c, const struct bisect_request *rq, int json,
			  int no_wait, char *err)
{
	_cleanup_free_ char *body = request_body(rq);
	char path[128];
	json_t *res = NULL;
	json_int_t id;
	int rc;

	if (!body)
		return errorf(err, "out of memory");
	if (!spec_key_ok(rq->matrix))
		return errorf(err, "bisect: matrix '%s': expected an id or a name", rq->matrix);
	if (fmtbuf(path, sizeof(path), "/matrices/%s/bisect", rq->matrix) < 0)
		return errorf(err, "bisect: matrix '%.64s...': too long a name", rq->matrix);
	if ((rc = client_post(c, path, body, &res, err)) != 0)
		return rc;
	id = json_integer_value(json_object_get(res, "bisection"));
	fprintf(json ? stderr : stdout, "bisection %lld of matrix %lld: %s harnessd%s\n", (long long)id,
	       (long long)json_integer_value(json_object_get(res, "matrix")),
	       json_is_true(json_object_get(res, "existing")) ? "asked before, in" : "queued in",
	       no_wait ? "; harness status shows it" : "; following it (Ctrl-C leaves it running)");
	json_decref(res);
	fflush(stdout);
	return no_wait ? 0 : follow(c, id, json, err);
}

/* ---- the command ---- */

static int number(const char *s, unsigned long min, unsigned long max, unsigned *ret)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end || v < min || v > max)
		return -1;
	*ret = (unsigned)v;
	return 0;
}

/*
 * harness bisect's options and MATRIX GOOD BAD into rq; -1 with err (or
 * with nothing said: the caller prints the usage).
 */
static int parse_args(int argc, char **argv, struct bisect_request *rq, int *no_wait,
		      char *err)
{
	static const struct option longopts[] = {
		{ "cell", required_argument, NULL, 'c' }, { "metric", required_argument, NULL, 'm' },
		{ "max-blocks", required_argument, NULL, 'b' },
		{ "max-runs", required_argument, NULL, 'r' },
		{ "max-hours", required_argument, NULL, 'h' },
		{ "no-wait", no_argument, NULL, 'n' }, { NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt == 'c')
			rq->cell = optarg;
		else if (opt == 'm')
			rq->metric = optarg;
		else if (opt == 'n')
			*no_wait = 1;
		else if (opt == 'b' && number(optarg, COMPARE_MIN_BLOCKS, SPEC_MAX_REPS / 2,
					      &rq->max_blocks) < 0)
			return errorf(err, "bisect: --max-blocks '%s': expected %d to %d", optarg,
				      COMPARE_MIN_BLOCKS, SPEC_MAX_REPS / 2);
		else if (opt == 'r' && number(optarg, 1, 10000000, &rq->max_runs) < 0)
			return errorf(err, "bisect: --max-runs '%s': expected a number of runs",
				      optarg);
		else if (opt == 'h' && (rq->max_hours = strtod(optarg, &end), end == optarg || *end ||
					!(rq->max_hours > 0) || rq->max_hours > 24 * 365))
			return errorf(err, "bisect: --max-hours '%s': expected hours, such as 10 "
				      "or 0.5", optarg);
		else if (opt == '?')
			return -1;
	}
	if (argc - optind != 3 || !rq->cell || !rq->metric)
		return -1;
	rq->matrix = argv[optind];
	rq->good = argv[optind + 1];
	rq->bad = argv[optind + 2];
	return 0;
}

int cmd_bisect(const struct conf *c, int argc, char **argv, int json)
{
	struct bisect_request rq = { 0 };
	char err[ERR_MAX] = "";
	int rc, no_wait = 0;

	if (parse_args(argc, argv, &rq, &no_wait, err) < 0) {
		if (err[0])
			escape_line(stderr, "harness: %s", err);
		fputs(usage, stderr);
		return 1;
	}
	rc = through_daemon(c, &rq, json, no_wait, err);
	if (rc == 1)
		rc = here(c, &rq, json, err);
	if (rc < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	return rc;
}
