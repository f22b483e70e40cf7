/* cmd_run.c -- `harness check` and `harness run`: a matrix file validated and
 * resolved, or queued and run in fresh guests, one after another, its table printed. */
#include "cli/commands.h"
#include "analysis/calibrate.h"
#include "base/err.h"
#include "base/lock.h"
#include "base/proc.h"
#include "base/textline.h"
#include "output/report.h"
#include "run/runner.h"
#include "conf/conf.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_extend.h"
#include "vm/vm.h"
#include "common/fmt.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* spec_resolve's progress: one line per download or build it starts. */
static void say(void *arg, const char *line)
{
	(void)arg;
	printf("resolving %s\n", line);
}

/* The build gate's word (what a compile or a block waits for): on stderr. */
static void say_gate(void *arg, const char *line)
{
	(void)arg;
	fflush(stdout);
	escape_line(stderr, "harness: %s", line);
}

/* kbuild's gate: a lock that cannot be taken stops the compile (-1, why in err). */
int cli_build_gate(void *arg, int busy, char *err)
{
	char why[ERR_MAX];

	if (!busy) {
		buildlock_drop(arg);
		return 0;
	}
	if (buildlock_take(arg, BUILDLOCK_BUILDING, say_gate, NULL, NULL, why) < 0)
		return errorf(err, "build gate: %s", why);
	return 0;
}

/* One line per arm that cannot run: its build failed; the other arms go on. */
static void say_failed_arms(const struct matrix *m)
{
	for (unsigned i = 0; i < m->n_arms; i++)
		if (m->arms[i].failed[0])
			escape_line(stdout, "arm failed, its runs are skipped: %s", m->arms[i].failed);
}

/* 1 if an arm of m failed (its build or its resolution). */
static int any_failed(const struct matrix *m)
{
	for (unsigned i = 0; i < m->n_arms; i++)
		if (m->arms[i].failed[0])
			return 1;
	return 0;
}

/* calibrate_advice's lines on stdout, "warning: " before a warning. */
static void say_line(void *arg, int warning, const char *line)
{
	(void)arg;
	escape_line(stdout, "%s%s", warning ? "warning: " : "", line);
}

int cli_noise_advice(const struct conf *c, const struct matrix *m, double effect, char *err)
{
	char db[PATH_MAX], host[256] = "";
	struct store *s = NULL;
	int rc;

	if (calibrate_verdict_keys(m, err) < 0 || pathf(db, err, "%s/harness.db", c->results) < 0)
		return -1;
	if (access(db, F_OK) < 0)     /* nothing calibrated yet: the plan alone */
		return calibrate_plan(m, say_line, NULL, err);
	gethostname(host, sizeof(host) - 1);
	if (store_open(db, &s, err) < 0)
		return -1;
	rc = calibrate_advice(s, m, host, effect, say_line, NULL, err);
	store_close(s);
	return rc;
}

/*
 * check [--parse-only] [--effect PCT] FILE: says which of the two steps it
 * ran, then what this host's calibrations say of the matrix's blocks.
 */
int cmd_check(const struct conf *c, int argc, char **argv, int json)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));
	double effect = CALIBRATE_EFFECT;
	struct buildlock bl = { .lock = -1, .turn = -1 };
	int parse_only = 0, i, ok;
	char err[ERR_MAX];
	const char *file;

	(void)json;
	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--parse-only"))
			parse_only = 1;
		else if (!strcmp(argv[i], "--effect") && i + 2 < argc &&
			 cli_percent(argv[i + 1], &effect) == 0 && effect > 0)
			i++;
		else
			break;
	}
	if (argc < 2 || i != argc - 1) {
		fputs("usage: harness check [--parse-only] [--effect PCT] FILE\n", stderr);
		return 1;
	}
	file = argv[argc - 1];
	/* its compiles pass the build gate as harnessd's and harness run's do */
	if (!m || spec_parse_file(m, file, c, err) < 0 ||
	    (!parse_only && (buildlock_open(&bl, c->results, "harness check", err) < 0 ||
			     spec_resolve_gated(m, c, say, cli_build_gate, &bl, err) < 0))) {
		escape_line(stderr, "%s", m ? err : "out of memory");
		buildlock_close(&bl);
		spec_release(m);
		return 1;
	}
	buildlock_close(&bl);
	say_failed_arms(m);
	ok = !any_failed(m);
	printf("%s: %s, %s: %u arms x %u workloads x %llu reps = %u runs\n", file,
	       ok ? "OK" : "NOT OK",
	       parse_only ? "parsed only (kernels, downloads, package and source builds and fio "
			    "not checked)" : "parsed and resolved",
	       m->n_arms, m->n_cells, (unsigned long long)m->reps, spec_run_count(m));
	if (cli_noise_advice(c, m, effect, err) < 0)
		escape_line(stderr, "harness: %s", err);
	spec_release(m);
	return ok ? 0 : 1;
}

/* Parse and resolve (progress on stdout) matrix mid as stored, its source arms as built
 * (a compile, if one is needed, through the build gate bl). */
static int load_text(const struct conf *c, struct store *s, int64_t mid, struct matrix *m,
		     const char *text, const char *label, const char *base_dir,
		     struct buildlock *bl, char *err)
{
	return spec_parse(m, text, label, base_dir, c, err) < 0 ||
	       store_arm_builds(s, mid, m, NULL, err) < 0 ? -1 :
	       spec_resolve_gated(m, c, say, cli_build_gate, bl, err);
}

/*
 * A matrix file's source arms: built now, or, if its spec was queued before,
 * the kernels they were built to then (a queued matrix keeps its kernels).
 */
static int resolve_file(const struct conf *c, struct store *s, struct matrix *m,
			struct buildlock *bl, char *err)
{
	int64_t mid;

	if (store_arm_builds(s, 0, m, &mid, err) < 0)
		return -1;
	for (unsigned i = 0; mid && i < m->n_arms; i++)
		if (m->arms[i].build_json)
			printf("arms[%u] (%s): the kernel built when matrix %lld was queued; the tree "
			       "or patches as they are now need a matrix of another name\n", i,
			       m->arms[i].name, (long long)mid);
	return spec_resolve_gated(m, c, say, cli_build_gate, bl, err);
}

/* Once per matrix: the TCG threading its guests get, and why (nothing if none runs TCG). */
static void say_threading(const struct conf *c, struct vm_conn *vm, const struct matrix *m,
			  const char *accel)
{
	const char *arch = vm_conn_arch(vm), *a, *t;
	struct vm_host_facts f;
	char why[256];
	unsigned i;

	for (i = 0; i < m->n_archs; i++) {
		a = vm_accel_for(m->archs[i], arch, accel);
		if (strcmp(a, "tcg"))
			continue;
		vm_conn_facts(vm, m->archs[i], &f);
		t = vm_tcg_threading_on(&f, a, m->vcpus, c->tcg_thread, why, sizeof(why));
		printf("tcg threading: %s (%s)\n", t, why);
		return;
	}
}

/* For the host's arch; guests of another arch always run under TCG. */
static const char *pick_accel(const struct conf *c, struct vm_conn *vm, const struct matrix *m)
{
	char why[ERR_MAX] = "";
	const char *accel, *arch = vm_conn_arch(vm);
	unsigned i;

	accel = runner_pick_accel(c, vm, m, why, sizeof(why));
	if (strcmp(c->accel, "auto"))
		printf("accel: %s (harness.conf)\n", c->accel);
	else
		printf("accel: %s%s%s%s\n", accel, why[0] ? " (kvm: " : "", why, why[0] ? ")" : "");
	for (i = 0; i < m->n_archs; i++)
		if (strcmp(m->archs[i], arch))
			printf("accel: tcg for %s guests (the host is %s)\n", m->archs[i], arch);
	say_threading(c, vm, m, accel);
	return accel;
}

/* Does the block of refs[i] end there (the last run, or the next is another block's)? */
static int block_ends(const struct run_ref *refs, size_t n, size_t i)
{
	return i + 1 == n || refs[i + 1].block != refs[i].block ||
	       refs[i + 1].cell != refs[i].cell;
}

/* What one attempt of a run ended as, on the line its "run i/n" began. */
static void say_outcome(const struct run_outcome *out)
{
	if (out->ok)
		printf("done, %llu samples, %.0f ops/s, agent ready %.1f s, host load %.1f%s%s%s\n",
		       (unsigned long long)out->samples, out->ops_per_s,
		       out->agent_ready_ms / 1000.0, out->host_load,
		       out->contended ? ", contended (" : "", out->contended_why,
		       out->contended ? ")" : "");
	else
		printf("%s: %s\n", out->status, out->reason);
	fflush(stdout);
}

/*
 * One queued run, and again as a fresh attempt after a failure of the
 * harness's or the host's own, up to conf retries (as harnessd does).
 */
static int run_one(struct runner *r, const struct matrix *m, struct run_ref ref,
		   struct run_outcome *out, char *err)
{
	uint64_t tries = 0;
	int rc;

	for (;;) {
		if (runner_run(r, m, &ref, out, err) < 0)
			return -1;
		say_outcome(out);
		if (out->infra && vm_check(r->vm, err) < 0)
			return -1;
		rc = runner_retry(r, &ref, out, &tries, err);
		if (rc <= 0)
			return rc;
		printf("  retried as run %lld: ", (long long)ref.id);
		fflush(stdout);
	}
}

/*
 * The queued runs, one after another; the build gate held as measuring from
 * a block's first run to its last, so a compile (harness check, harnessd)
 * waits for the block in flight and no block starts during a compile.
 */
static int run_all(struct runner *r, const struct matrix *m, int64_t mid,
		   struct buildlock *bl, unsigned *failed, char *err)
{
	_cleanup_free_ struct run_ref *refs = NULL;
	struct run_outcome out;
	size_t n, i;

	if (store_queued_runs(r->store, mid, &refs, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!bl->held &&
		    buildlock_take(bl, BUILDLOCK_MEASURING, say_gate, NULL, NULL, err) < 0)
			return -1;
		printf("run %zu/%zu (id %lld) %s / %s, block %u pos %u: ", i + 1, n,
		       (long long)refs[i].id, m->arms[refs[i].arm].name, m->cells[refs[i].cell].name,
		       refs[i].block, refs[i].position);
		fflush(stdout);
		if (run_one(r, m, refs[i], &out, err) < 0)
			return -1;
		*failed += !out.ok;
		if (block_ends(refs, n, i))
			buildlock_drop(bl);
	}
	return 0;
}

/* A stored matrix (no file is called key): its spec as queued, and what it has queued. */
static int load_stored(const struct conf *c, struct store *s, const char *key,
		       struct matrix *m, int64_t *mid, struct buildlock *bl, char *err)
{
	_cleanup_free_ struct run_ref *refs = NULL;
	_cleanup_free_ char *text = NULL;
	char base_dir[PATH_MAX], label[64];
	size_t n;

	if (store_find_matrix(s, key, mid, err) < 0)
		return errorf(err, "'%s': no such matrix file, nor a stored matrix of that id or name",
			      key);
	fmtcut(label, sizeof(label), "matrix %lld", (long long)*mid);
	if (store_matrix_spec(s, *mid, &text, base_dir, err) < 0 ||
	    load_text(c, s, *mid, m, text, label, base_dir, bl, err) < 0 ||
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
		      struct buildlock *bl, char *err)
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
	if (fmtbuf(key, sizeof(key), "%lld", (long long)*mid) < 0)
		return errorf(err, "matrix id %lld over %zu characters", (long long)*mid,
			      sizeof(key) - 1);
	spec_release(m);
	return load_stored(c, s, key, m, mid, bl, err) < 0 ? -1 : runner_check_images(c, m, err);
}

/* The matrix to run: queued from its file, or stored (stored: no file is called file). */
static int prepare(const struct conf *c, struct store *s, const char *file, int stored,
		   struct matrix *m, int64_t *mid, struct buildlock *bl, char *err)
{
	if (stored)
		return load_stored(c, s, file, m, mid, bl, err) < 0 ? -1 :
		       runner_check_images(c, m, err);
	if (runner_check_images(c, m, err) < 0)
		return -1;
	return queue_file(c, s, m, mid, bl, err);
}

/* Nothing left to run: the matrix is finished, as harnessd marks its own. */
static int finish(struct store *s, char *err)
{
	int64_t ids[64];
	size_t n;

	return store_finish_matrices(s, ids, ARRAY_SIZE(ids), &n, err);
}

int cli_run(const struct conf *c, const char *file, struct matrix *m, int parsed,
	    int64_t *ret_mid)
{
	struct runner r = { .conf = c, .first_cpu = -1 };
	struct buildlock bl = { .lock = -1, .turn = -1 };
	char err[ERR_MAX], uri[PATH_MAX], log[PATH_MAX];
	const struct conf_host *hosts;
	struct conf_host one;
	int stored = !parsed && access(file, F_OK) < 0, ret = 1, said = 0;
	_cleanup_close_ int lock = -1;
	unsigned failed = 0;
	int64_t mid = 0;

	/* its guests and the database are the directory's: not while harnessd holds it */
	if (lock_take(c->results, "harness run", &lock, err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	/* and the build gate: its compiles and blocks apart from harness check's */
	if (buildlock_open(&bl, c->results, "harness run", err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	if (!m || (!stored && !parsed && spec_parse_file(m, file, c, err) < 0)) {
		escape_line(stderr, "%s", m ? err : "out of memory");
		return 1;
	}
	if (store_open_results(c->results, &r.store, err) < 0)
		goto out;
	if (!stored && resolve_file(c, r.store, m, &bl, err) < 0) {
		escape_line(stderr, "%s", err);   /* names the file already */
		said = 1;
		goto out;
	}
	if (prepare(c, r.store, file, stored, m, &mid, &bl, err) < 0)
		goto out;
	say_failed_arms(m);
	/* the first host of harness.conf's (this machine without host lines); harnessd uses all */
	conf_hosts(c, &one, &hosts);
	if (fmtbuf(r.host, sizeof(r.host), "%s", hosts[0].name) < 0) {
		errorf(err, "host '%.64s...': a name of over %zu characters", hosts[0].name,
		       sizeof(r.host) - 1);
		goto out;
	}
	if (conf_host_uri(c, &hosts[0], uri, sizeof(uri), err) < 0 ||
	    pathf(log, err, "%s/libvirt.log", c->results) < 0 ||
	    vm_connect(uri, log, &r.vm, err) < 0)
		goto out;
	vm_set_storage(r.vm, hosts[0].name, hosts[0].storage, NULL, NULL);
	r.accel = pick_accel(c, r.vm, m);
	if (run_all(&r, m, mid, &bl, &failed, err) < 0 ||
	    finish(r.store, err) < 0 || report_table(stdout, r.store, mid, err) < 0)
		goto out;
	ret = failed ? 2 : 0;
	if (ret_mid)
		*ret_mid = mid;
out:
	if (ret == 1 && !said)
		escape_line(stderr, "harness: %s", err);
	buildlock_close(&bl);
	vm_disconnect(r.vm);
	store_close(r.store);
	spec_release(m);
	return ret;
}

int cmd_run(const struct conf *c, int argc, char **argv, int json)
{
	_cleanup_free_ struct matrix *m = calloc(1, sizeof(*m));

	(void)argc;
	(void)json;
	return cli_run(c, argv[1], m, 0, NULL);
}

