/* main.c -- the `harness` command: check a matrix, run it in fresh guests,
 * print its ABBA table; the only place that decides to exit.
 *
 * Folder cli/: the `harness` command: main, one cmd_*.c per command (options and
 * printing), the client of harnessd.
 * It may call: base/ common/ vm/ spec/ store/ run/ analysis/ output/ daemon/.
 */
#include "cli/client.h"
#include "cli/commands.h"
#include "analysis/compare.h"
#include "spec/conf.h"
#include "base/err.h"
#include "base/lock.h"
#include "analysis/extend.h"
#include "output/html.h"
#include "output/plot.h"
#include "base/proc.h"
#include "base/textline.h"
#include "output/report.h"
#include "run/runner.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_extend.h"
#include "output/table.h"
#include "vm/vm.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: harness [-c harness.conf] [-j|--json] COMMAND ...\n"
	"  check [--parse-only] FILE  validate a matrix file and resolve its kernels\n"
	"                 (download, build, check fio arguments); boots nothing;\n"
	"                 --parse-only: the file alone, nothing fetched or run\n"
	"  run FILE       queue the matrix, run every run in a fresh guest, print its table\n"
	"  run MATRIX     run what a stored matrix (id or name) has queued, print its table\n"
	"  table [--format F] [--metric M] [--baseline ARM] [--pairs] MATRIX\n"
	"                 the tables of a stored matrix (id or name), any time\n"
	"  compare MATRIX BASE NEW | --matrices M1 M2 | --tags TAG_BASE TAG_NEW\n"
	"                 verdicts per cell and metric; exit 1 on a regression\n"
	"  extend --until-decided --max-blocks N MATRIX [BASE NEW]  queue blocks for the\n"
	"                 cells compare calls UNKNOWN (through harnessd if it runs)\n"
	"  plot MATRIX [-o DIR] [--metric NAME]  SVG time series per cell, arm and file\n"
	"  report MATRIX [-o FILE.html]  one self-contained HTML page: tables, verdicts, plots\n"
	"  probe          say which accelerator guests would use, and why\n"
	"through the daemon (harnessd); --json prints its JSON as is:\n"
	"  submit [--wait] FILE  queue a matrix (more reps of a queued one are appended);\n"
	"                 the daemon resolves its kernels first (--wait: until it has)\n"
	"  status [MATRIX]  every matrix, or one matrix's progress, ETA and runs\n"
	"  cancel|pause|resume MATRIX\n"
	"  watch RUN      follow a run's samples live, one line an interval\n";

/* spec_resolve's progress: one line per download or build it starts. */
static void say(void *arg, const char *line)
{
	(void)arg;
	printf("resolving %s\n", line);
}

/* One line per arm that cannot run: its build failed; the other arms go on. */
static void say_failed_arms(const struct matrix *m)
{
	for (unsigned i = 0; i < m->n_arms; i++)
		if (m->arms[i].failed[0])
			escape_line(stdout, "arm failed, its runs are skipped: %s", m->arms[i].failed);
}

static int any_failed(const struct matrix *m)
{
	for (unsigned i = 0; i < m->n_arms; i++)
		if (m->arms[i].failed[0])
			return 1;
	return 0;
}

/* check [--parse-only] FILE: says which of the two steps it ran. */
static int cmd_check(const struct conf *c, int argc, char **argv)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	int parse_only = argc == 3 && !strcmp(argv[1], "--parse-only");
	const char *file = argv[argc - 1];
	char err[ERR_MAX];

	if (argc != 2 && !parse_only) {
		fputs("usage: harness check [--parse-only] FILE\n", stderr);
		return 1;
	}
	if (!m || spec_parse_file(m, file, c, err) < 0 ||
	    (!parse_only && spec_resolve(m, c, say, NULL, err) < 0)) {
		escape_line(stderr, "%s", m ? err : "out of memory");
		spec_release(m);
		return 1;
	}
	say_failed_arms(m);
	printf("%s: %s, %s: %u arms x %u workloads x %llu reps = %u runs\n", file,
	       any_failed(m) ? "NOT OK" : "OK",
	       parse_only ? "parsed only (kernels, downloads, package and source builds and fio "
			    "not checked)" : "parsed and resolved",
	       m->n_arms, m->n_cells, (unsigned long long)m->reps, spec_run_count(m));
	spec_release(m);
	return any_failed(m) ? 1 : 0;
}

/* Parse and resolve (progress on stdout) matrix mid as stored, its source arms as built. */
static int load_text(const struct conf *c, struct store *s, int64_t mid, struct matrix *m,
		     const char *text, const char *label, const char *base_dir, char *err)
{
	return spec_parse(m, text, label, base_dir, c, err) < 0 ||
	       store_arm_builds(s, mid, m, NULL, err) < 0 ? -1 :
	       spec_resolve(m, c, say, NULL, err);
}

/*
 * A matrix file's source arms: built now, or, if its spec was queued before,
 * the kernels they were built to then (a queued matrix keeps its kernels).
 */
static int resolve_file(const struct conf *c, struct store *s, struct matrix *m, char *err)
{
	int64_t mid;

	if (store_arm_builds(s, 0, m, &mid, err) < 0)
		return -1;
	for (unsigned i = 0; mid && i < m->n_arms; i++)
		if (m->arms[i].build_json)
			printf("arms[%u] (%s): the kernel built when matrix %lld was queued; the tree "
			       "or patches as they are now need a matrix of another name\n", i,
			       m->arms[i].name, (long long)mid);
	return spec_resolve(m, c, say, NULL, err);
}

/* For the host's arch; guests of another arch always run under TCG. */
static const char *pick_accel(const struct conf *c, const struct matrix *m)
{
	char why[ERR_MAX] = "";
	const char *accel;
	unsigned i;

	accel = runner_pick_accel(c, m, why, sizeof(why));
	if (strcmp(c->accel, "auto"))
		printf("accel: %s (harness.conf)\n", c->accel);
	else
		printf("accel: %s%s%s%s\n", accel, why[0] ? " (kvm: " : "", why, why[0] ? ")" : "");
	for (i = 0; i < m->n_archs; i++)
		if (strcmp(m->archs[i], vm_host_arch()))
			printf("accel: tcg for %s guests (the host is %s)\n", m->archs[i],
			       vm_host_arch());
	return accel;
}

static int run_all(struct runner *r, const struct matrix *m, int64_t mid, unsigned *failed,
		   char *err)
{
	_cleanup_free_ struct run_ref *refs = NULL;
	struct run_outcome out;
	size_t n, i;

	if (store_queued_runs(r->store, mid, &refs, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		printf("run %zu/%zu (id %lld) %s / %s, block %u pos %u: ", i + 1, n,
		       (long long)refs[i].id, m->arms[refs[i].arm].name, m->cells[refs[i].cell].name,
		       refs[i].block, refs[i].position);
		fflush(stdout);
		if (runner_run(r, m, &refs[i], &out, err) < 0)
			return -1;
		if (out.ok)
			printf("done, %llu samples, %.0f ops/s, agent ready %.1f s\n",
			       (unsigned long long)out.samples, out.ops_per_s,
			       out.agent_ready_ms / 1000.0);
		else
			printf("%s: %s\n", out.status, out.reason);
		*failed += !out.ok;
		fflush(stdout);
	}
	return 0;
}

/* A stored matrix (no file is called key): its spec as queued, and what it has queued. */
static int load_stored(const struct conf *c, struct store *s, const char *key,
		       struct matrix *m, int64_t *mid, char *err)
{
	_cleanup_free_ struct run_ref *refs = NULL;
	_cleanup_free_ char *text = NULL;
	char base_dir[PATH_MAX], label[64];
	size_t n;

	if (store_find_matrix(s, key, mid, err) < 0)
		return errorf(err, "'%s': no such matrix file, nor a stored matrix of that id or name",
			      key);
	snprintf(label, sizeof(label), "matrix %lld", (long long)*mid);
	if (store_matrix_spec(s, *mid, &text, base_dir, err) < 0 ||
	    load_text(c, s, *mid, m, text, label, base_dir, err) < 0 ||
	    store_queued_runs(s, *mid, &refs, &n, err) < 0)
		return -1;
	printf("matrix %lld '%s': %zu runs queued\n", (long long)*mid, m->name, n);
	return 0;
}

/*
 * A matrix from its file: queued new in ABBA order or, if its spec was queued
 * before (harness submit does the same), that matrix grown to the file's
 * reps, and then run as it is stored, as harnessd would run it.
 */
static int queue_file(const struct conf *c, struct store *s, struct matrix *m, int64_t *mid,
		      char *err)
{
	char key[24];
	size_t n;
	int appended;

	if (store_queue_matrix(s, m, mid, &n, &appended, err) < 0)
		return -1;
	if (!appended) {
		printf("matrix %lld '%s': %zu runs queued in ABBA order\n", (long long)*mid, m->name,
		       n);
		return 0;
	}
	printf("matrix %lld '%s': this spec was queued before; %zu runs added\n", (long long)*mid,
	       m->name, n);
	snprintf(key, sizeof(key), "%lld", (long long)*mid);
	spec_release(m);
	return load_stored(c, s, key, m, mid, err) < 0 ? -1 : runner_check_images(c, m, err);
}

/* The matrix to run: queued from its file, or stored (stored: no file is called file). */
static int prepare(const struct conf *c, struct store *s, const char *file, int stored,
		   struct matrix *m, int64_t *mid, char *err)
{
	if (stored)
		return load_stored(c, s, file, m, mid, err) < 0 ? -1 : runner_check_images(c, m, err);
	if (runner_check_images(c, m, err) < 0)
		return -1;
	return queue_file(c, s, m, mid, err);
}

/* Nothing left to run: the matrix is finished, as harnessd marks its own. */
static int finish(struct store *s, char *err)
{
	int64_t ids[64];
	size_t n;

	return store_finish_matrices(s, ids, ARRAY_SIZE(ids), &n, err);
}

static int cmd_run(const struct conf *c, const char *file)
{
	struct runner r = { .conf = c, .first_cpu = -1 };
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	char err[ERR_MAX], uri[PATH_MAX], log[PATH_MAX];
	int stored = access(file, F_OK) < 0, ret = 1, said = 0;
	_cleanup_close_ int lock = -1;
	unsigned failed = 0;
	int64_t mid;

	/* its guests and the database are the directory's: not while harnessd holds it */
	if (lock_take(c->results, "harness run", &lock, err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	if (!m || (!stored && spec_parse_file(m, file, c, err) < 0)) {
		escape_line(stderr, "%s", m ? err : "out of memory");
		return 1;
	}
	if (store_open_results(c->results, &r.store, err) < 0)
		goto out;
	if (!stored && resolve_file(c, r.store, m, err) < 0) {
		escape_line(stderr, "%s", err);   /* names the file already */
		said = 1;
		goto out;
	}
	if (prepare(c, r.store, file, stored, m, &mid, err) < 0)
		goto out;
	say_failed_arms(m);
	r.accel = pick_accel(c, m);
	gethostname(r.host, sizeof(r.host) - 1);
	conf_uri(c, uri, sizeof(uri));
	if (pathf(log, err, "%s/libvirt.log", c->results) < 0 ||
	    vm_connect(uri, log, &r.vm, err) < 0 || run_all(&r, m, mid, &failed, err) < 0 ||
	    finish(r.store, err) < 0 || report_table(stdout, r.store, mid, err) < 0)
		goto out;
	ret = failed ? 2 : 0;
out:
	if (ret == 1 && !said)
		escape_line(stderr, "harness: %s", err);
	vm_disconnect(r.vm);
	store_close(r.store);
	spec_release(m);
	return ret;
}

static int cmd_probe(const struct conf *c)
{
	char kernel[PATH_MAX], why[ERR_MAX] = "";
	const char *accel;

	if (pathf(kernel, why, "%s/%s/kernel/6.12/vmlinuz", c->images, vm_host_arch()) < 0 ||
	    access(kernel, R_OK) < 0) {
		escape_line(stderr, "harness: %s missing (run make images)", kernel);
		return 1;
	}
	accel = vm_pick_accel(vm_host_arch(), kernel, why, sizeof(why));
	printf("%s%s%s\n", accel, why[0] ? ": " : "", why);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL;
	struct conf c;
	char err[ERR_MAX];
	int opt, json = 0;

	while ((opt = getopt_long(argc, argv, "+c:hj", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			conf_path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			fputs(usage, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 1;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		fputs(usage, stderr);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (conf_setup(&c, conf_path, err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	if (!strcmp(argv[0], "check"))
		return cmd_check(&c, argc, argv);
	if (!strcmp(argv[0], "run") && argc == 2)
		return cmd_run(&c, argv[1]);
	if (!strcmp(argv[0], "table"))
		return cmd_table(&c, argc, argv, json);
	if (!strcmp(argv[0], "compare"))
		return cmd_compare(&c, argc, argv, json);
	if (!strcmp(argv[0], "plot"))
		return cmd_plot(&c, argc, argv);
	if (!strcmp(argv[0], "report"))
		return cmd_report(&c, argc, argv);
	if (!strcmp(argv[0], "extend"))
		return cmd_extend(&c, argc, argv, json);
	if (!strcmp(argv[0], "probe") && argc == 1)
		return cmd_probe(&c);
	if (client_handles(argv[0]))
		return client_main(&c, argc, argv, json);
	fputs(usage, stderr);
	return 1;
}
