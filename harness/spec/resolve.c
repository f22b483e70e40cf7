/* resolve.c -- a parsed matrix checked against the real files: kernels found
 * (confined), downloaded or built, data disks against free space, fio
 * streams through fio --parse-only; slow steps told to a progress callback. */
#include "spec/spec.h"
#include "spec/swapcheck.h"
#include "base/err.h"
#include "base/proc.h"
#include "spec/fiocheck.h"
#include "spec/source.h"
#include "vm/vm.h"
#include "common/fmt.h"

#include <stdarg.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* One spec_resolve call: what every step needs. */
struct resolving {
	const struct matrix *m;
	const struct conf *conf;
	struct image_roots roots;
	spec_progress_fn progress;
	kbuild_gate_fn gate;
	void *arg;
};

/* A line of the resolution's progress, to the caller's hook if it has one. */
static void tell(const struct resolving *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tell(const struct resolving *r, const char *fmt, ...)
{
	char line[ERR_MAX];
	va_list ap;

	if (!r->progress)
		return;
	va_start(ap, fmt);
	vfmtcut(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->progress(r->arg, line);
}

/* A kernel by alias or path for each arch (confined to roots), and its modules. */
static int resolve_paths(const struct resolving *r, struct arm *a, const char *where,
			 char *err)
{
	const struct matrix *m = r->m;
	char msg[ERR_MAX];
	unsigned i;

	for (i = 0; i < m->n_archs; i++) {
		if (image_resolve_kernel(&r->roots, m->archs[i], a->kernels[i], &a->files[i],
					 msg) < 0)
			return errorf(err, "%s.kernel%s%s: %s", where, m->n_archs > 1 ? "." : "",
				      m->n_archs > 1 ? m->archs[i] : "", msg);
		if (image_resolve_modules(&r->roots, a->modules, &a->files[i], msg) < 0)
			return errorf(err, "%s.modules: %s", where, msg);
	}
	return 0;
}

/* A Debian kernel package, built once into the cache (spec_parse allowed one arch). */
static int resolve_package(const struct resolving *r, struct arm *a, const char *cache,
			   const char *where, char *err)
{
	char msg[ERR_MAX];

	tell(r, "%s.package: %s: built once by images/build.sh, up to %d minutes the first time",
	     where, a->package, IMAGE_PACKAGE_TIMEOUT_MS / 60000);
	if (image_resolve_package(r->conf->images, r->m->archs[0], cache, a->package,
				  &a->files[0], msg) < 0)
		return errorf(err, "%s.package: %s", where, msg);
	return 0;
}

/* A kernel image (and modules cpio) downloaded once and checked against their sha256. */
static int resolve_url(const struct resolving *r, struct arm *a, const char *cache,
		       const char *where, char *err)
{
	char msg[ERR_MAX];

	tell(r, "%s.url: fetching %.200s (once: kept in the cache by its sha256)", where, a->url);
	if (image_check_url(&r->roots, a->url, msg) < 0 ||
	    image_resolve_url(cache, r->m->archs[0], a->url, a->sha256, &a->files[0], msg) < 0)
		return errorf(err, "%s.url: %s", where, msg);
	if (!a->modules_url[0])
		return 0;
	tell(r, "%s.modules_url: fetching %.200s", where, a->modules_url);
	if (image_check_url(&r->roots, a->modules_url, msg) < 0 ||
	    fetch_url(a->modules_url, a->modules_sha256, cache, a->files[0].modules, msg) < 0)
		return errorf(err, "%s.modules_url: %s", where, msg);
	return 0;
}

/*
 * The arm's kernel files, downloaded or built into RESULTS/cache/kernels if the
 * arm names a URL or a package: this is where a wrong sha256 refuses a matrix,
 * and where a kernel or modules path outside the allowed directories does.
 */
static int resolve_arm(const struct resolving *r, struct arm *a, unsigned i, char *err)
{
	char cache[PATH_MAX], where[32];

	fmtcut(where, sizeof(where), "arms[%u]", i);
	memset(a->files, 0, sizeof(a->files));
	if (spec_arm_built(a)) {
		struct source_hooks h = { r->progress, r->gate, r->arg };
		return source_resolve(r->m, a, i, r->conf, &h, err);
	}
	if (!a->package[0] && !a->url[0])
		return resolve_paths(r, a, where, err);
	if (image_kernel_cache(r->conf->results, cache, err) < 0)
		return -1;
	if (a->package[0])
		return resolve_package(r, a, cache, where, err);
	return resolve_url(r, a, cache, where, err);
}

/* The cell's data disk must fit where results live (it is built there). */
static int check_free_space(const struct resolving *r, const struct cell *c, const char *where,
			    char *err)
{
	uint64_t need = image_disk_bytes(&c->job) >> 20, avail;
	struct statvfs sv;

	if (statvfs(r->conf->results, &sv) < 0)
		return 0;   /* made later; the build says so if it cannot */
	avail = (uint64_t)sv.f_bavail * sv.f_frsize >> 20;
	if (need > avail)
		return errorf(err, "%s.files: their data disk needs %llu MiB, %s has %llu MiB free",
			      where, (unsigned long long)need, r->conf->results,
			      (unsigned long long)avail);
	return 0;
}

/* Did a cell before c hold a stream of the same kind and text (already checked)? */
static int args_checked_before(const struct matrix *m, const struct cell *c,
			       const struct proto_stream *st)
{
	for (const struct cell *p = m->cells; p < c; p++)
		for (unsigned i = 0; i < p->job.nstreams; i++)
			if (p->job.streams[i].kind == st->kind &&
			    !strcmp(p->job.streams[i].args, st->args) &&
			    !strcmp(p->job.streams[i].jobfile, st->jobfile))
				return 1;
	return 0;
}

/*
 * fio's arguments: fio --parse-only on the harness's rules (once per distinct
 * text: cells expanded from one workload share it), with the host's own fio
 * (the same source as the guest's, as a foreign binary cannot run here).
 */
static int check_fio_args(const struct resolving *r, const struct cell *c,
			  const struct proto_stream *st, const char *where, unsigned i, char *err)
{
	char host_fio[PATH_MAX], msg[ERR_MAX];

	if (pathf(host_fio, err, "%s/%s/fio", r->conf->images, vm_host_arch()) < 0)
		return -1;
	if (access(host_fio, X_OK) < 0)
		return errorf(err, "%s.streams[%u]: checking fio arguments needs the host's "
			      "fio: %s missing (run make images)", where, i, host_fio);
	if (!args_checked_before(r->m, c, st) &&
	    fiocheck_args(host_fio, st->args, st->jobfile, (unsigned)r->m->vcpus, st->name,
			  msg) < 0)
		return errorf(err, "%s.streams[%u]: %s", where, i, msg);
	return 0;
}

/* The programs streams run from the image whose arguments the host checks first. */
static const struct {
	const char *binary;
	int (*check)(const struct resolving *r, const struct cell *c,
		     const struct proto_stream *st, const char *where, unsigned i, char *err);
} arg_checks[] = {
	{ "fio", check_fio_args },
};

/*
 * Streams that run a program from the image (struct proto_kind's binary): it
 * must be built for the cell's arch, and its arguments pass its own check.
 */
static int check_binaries(const struct resolving *r, const struct cell *c, const char *where,
			  char *err)
{
	const struct proto_stream *st;
	const char *bin;
	char path[PATH_MAX];
	unsigned i;

	for (i = 0; i < c->job.nstreams; i++) {
		st = &c->job.streams[i];
		if (!(bin = proto_kinds[st->kind]->binary))
			continue;
		if (pathf(path, err, "%s/%s/%s", r->conf->images, c->arch, bin) < 0)
			return -1;
		if (access(path, X_OK) < 0)
			return errorf(err, "%s.streams[%u]: %s is not built: %s missing (run make "
				      "images)", where, i, bin, path);
		for (size_t j = 0; j < ARRAY_SIZE(arg_checks); j++)
			if (!strcmp(arg_checks[j].binary, bin) &&
			    arg_checks[j].check(r, c, st, where, i, err) < 0)
				return -1;
	}
	return 0;
}

/* A cell's checks against the host, named by the workload it came from. */
static int resolve_cell(const struct resolving *r, const struct cell *c, char *err)
{
	char where[32];

	fmtcut(where, sizeof(where), "workloads[%u]", c->workload);
	if (check_free_space(r, c, where, err) < 0 || check_binaries(r, c, where, err) < 0)
		return -1;
	return 0;
}

/*
 * A cell's swap against every arm's kernel config where it is known (the
 * config file beside its vmlinuz: Debian packages' and source builds'): a
 * kernel that cannot make it refuses the matrix before any guest boots.
 */
static int check_swap_kernels(const struct matrix *m, const struct cell *c, char *err)
{
	char config[PATH_MAX], why[160];
	const char *slash;
	unsigned i;

	if (c->job.swap.kind == SWAP_NONE)
		return 0;
	for (i = 0; i < m->n_arms; i++) {
		const char *kernel = m->arms[i].files[c->arch_idx].kernel;

		if (m->arms[i].failed[0] || !(slash = strrchr(kernel, '/')))
			continue;
		fmtcut(config, sizeof(config), "%.*s/config", (int)(slash - kernel), kernel);
		if (swapcheck_config(&c->job.swap, config, why, sizeof(why)) == 1)
			return errorf(err, "workloads[%u].swap: arms[%u] (%s): the kernel cannot: "
				      "%s (its config: %s)", c->workload, i, m->arms[i].name, why,
				      config);
	}
	return 0;
}

/* Every arm failed to build: nothing can run. -1 with the first's reason. */
static int all_failed(const struct matrix *m, char *err)
{
	for (unsigned i = 0; i < m->n_arms; i++)
		if (!m->arms[i].failed[0])
			return 0;
	return errorf(err, "%s: no arm can run: %s", m->path, m->arms[0].failed);
}

int spec_resolve_gated(struct matrix *m, const struct conf *conf, spec_progress_fn progress,
		       kbuild_gate_fn gate, void *arg, char *err)
{
	struct resolving r = { m, conf, { conf->images, conf->kernel_dirs, m->base_dir, NULL },
			       progress, gate, arg };
	char msg[ERR_MAX];
	unsigned i;

	for (i = 0; i < m->n_arms; i++)     /* every source arm's inputs before any build */
		if (source_check(m, &m->arms[i], i, conf, msg) < 0)
			return errorf(err, "%s: %s", m->path, msg);
	for (i = 0; i < m->n_arms; i++)
		if (resolve_arm(&r, &m->arms[i], i, msg) < 0)
			return errorf(err, "%s: %s", m->path, msg);
	if (all_failed(m, err) < 0)
		return -1;
	for (i = 0; i < m->n_cells; i++)
		if (resolve_cell(&r, &m->cells[i], msg) < 0 ||
		    check_swap_kernels(m, &m->cells[i], msg) < 0)
			return errorf(err, "%s: %s", m->path, msg);
	m->unresolved = 0;
	return 0;
}

int spec_resolve(struct matrix *m, const struct conf *conf, spec_progress_fn progress, void *arg,
		 char *err)
{
	return spec_resolve_gated(m, conf, progress, NULL, arg, err);
}

int spec_load(struct matrix *m, const char *path, const struct conf *conf, char *err)
{
	if (spec_parse_file(m, path, conf, err) < 0)
		return -1;
	if (spec_resolve(m, conf, NULL, NULL, err) < 0) {
		spec_release(m);
		return -1;
	}
	return 0;
}

int spec_load_text(struct matrix *m, const char *text, const char *label, const char *base_dir,
		   const struct conf *conf, char *err)
{
	if (spec_parse(m, text, label, base_dir, conf, err) < 0)
		return -1;
	if (spec_resolve(m, conf, NULL, NULL, err) < 0) {
		spec_release(m);
		return -1;
	}
	return 0;
}
