/* source.c -- source arms resolved: paths confined to source_dirs, the series
 * read once, kbuild_build per arch, each build described in the arm's JSON. */
#include "spec/source.h"
#include "base/err.h"
#include "base/proc.h"
#include "kbuild/kconfig.h"
#include "spec/gitconfine.h"
#include "common/fmt.h"

#include <jansson.h>
#include <string.h>
#include <unistd.h>

/* The arm's paths, resolved and confined: source tree, patches, config file. */
struct source_paths {
	char source[PATH_MAX], patches[PATH_MAX], config[PATH_MAX], kconfig[PATH_MAX];
};

/* Where an arm's trees, series, patches and .config files may come from. */
static struct image_roots source_roots(const struct matrix *m, const struct conf *conf)
{
	return (struct image_roots){ conf->images, conf->source_dirs, m->base_dir, "source_dirs" };
}

/*
 * The arm's paths resolved into p and confined to source_dirs: the tree and
 * its git data (gitconfine_tree), the series, a .config file whose every line
 * passes kconfig_file_check; -1 with "arms[N].KEY: ...".
 */
static int confine_paths(const struct matrix *m, const struct arm *a, const struct conf *conf,
			 const char *where, struct source_paths *p, char *err)
{
	struct image_roots roots = source_roots(m, conf);
	char msg[ERR_MAX];

	memset(p, 0, sizeof(*p));
	if (a->source[0] && (image_confine(&roots, a->source, "source tree", 1, p->source, msg) < 0 ||
			     gitconfine_tree(&roots, p->source, msg) < 0))
		return errorf(err, "%s.source: %s", where, msg);
	if (a->patches[0] && image_confine(&roots, a->patches, "patch series", 2, p->patches,
					   msg) < 0)
		return errorf(err, "%s.patches: %s", where, msg);
	if (kbuild_config_builtin(a->config)) {
		if (fmtbuf(p->config, sizeof(p->config), "%s", a->config) < 0)
			return errorf(err, "%s.config: '%.64s...' over %zu bytes", where, a->config,
				      sizeof(p->config) - 1);
	} else if (image_confine(&roots, a->config, "config file", 0, p->config, msg) < 0 ||
		 kconfig_file_check(p->config, msg) < 0)
		return errorf(err, "%s.config: %s", where, msg);
	if (image_beside(conf->images, "kconfig", p->kconfig, msg) < 0 ||
	    access(p->kconfig, R_OK) < 0)
		return errorf(err, "%s: the harness's config fragments are missing (%s)", where,
			      p->kconfig);
	return 0;
}

/* The arm's series read into s ({0} without patches), each patch confined too. */
static int read_series(const struct matrix *m, const struct arm *a, const struct conf *conf,
		       const char *where, const struct source_paths *p, struct series *s,
		       char *err)
{
	struct image_roots roots = source_roots(m, conf);
	char msg[ERR_MAX];

	memset(s, 0, sizeof(*s));
	if (p->patches[0] && series_read_confined(p->patches, &roots, s, msg) < 0)
		return errorf(err, "%s.patches: %s", where, msg);
	if (a->apply_set && a->apply > s->n) {
		series_free(s);
		return errorf(err, "%s.apply: expected at most %u, the patches in '%s', got %llu",
			      where, s->n, a->patches, (unsigned long long)a->apply);
	}
	return 0;
}

/* The series' patches as JSON: each one's subject and message id. */
static json_t *patches_json(const struct series *s)
{
	json_t *list = json_array();

	for (unsigned i = 0; list && s && i < s->n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s}", "subject", s->p[i].subject,
						      "msgid", s->p[i].msgid));
	return list;
}

/* One arch's build as the store keeps it. */
static int add_build(struct arm *a, json_t *list, const char *arch, const struct series *s,
		     const struct kbuild_result *r, char *err)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:f, s:b, s:s}",
			      "arch", arch, "key", r->key, "tree", r->tree,
			      "source", a->source[0] ? a->source : a->source_package,
			      "base", a->base, "patches", patches_json(s), "config", a->config,
			      "config_sha256", r->config_sha256, "image_sha256", r->image_sha256,
			      "build_s", r->build_s, "cached", r->cached, "release",
			      r->files.release);

	if (!o || json_array_append_new(list, o) < 0)
		return errorf(err, "out of memory");
	return 0;
}

/* The arm's build steps, told as "arms[1] (v4) x86_64: apply 2/3 ...". */
struct telling {
	const struct source_hooks *h;
	char who[96];
};

/* A build's line of progress, prefixed with which arm and arch it is. */
static void tell_arm(void *arg, const char *line)
{
	struct telling *t = arg;
	char full[ERR_MAX];

	fmtcut(full, sizeof(full), "%s: %s", t->who, line);
	t->h->progress(t->h->arg, full);
}

static int gate_arm(void *arg, int busy, char *err)
{
	struct telling *t = arg;

	return t->h->gate(t->h->arg, busy, err);
}

/*
 * Build for every arch the first napply patches of s (the whole series: its
 * scope in the build cache is its own); the first failure marks the arm.
 */
static int build_all(const struct matrix *m, struct arm *a, const char *where,
		     const struct conf *conf, const struct source_paths *p, const struct series *s,
		     unsigned napply, const struct source_hooks *h, char *err)
{
	const struct series applied = { s ? s->p : NULL, napply };
	json_auto_t *list = json_array();
	struct kbuild_result r;
	struct telling t = { .h = h };
	char msg[ERR_MAX];

	if (!list)
		return errorf(err, "out of memory");
	for (unsigned i = 0; i < m->n_archs; i++) {
		fmtcut(t.who, sizeof(t.who), "%s (%s) %s", where, a->name, m->archs[i]);
		struct kbuild_req q = {
			.arch = m->archs[i], .source = p->source, .source_package = a->source_package,
			.base = a->base, .series = s, .n_apply = napply, .config = p->config,
			.fragment = a->fragment, .results = conf->results, .kconfig_dir = p->kconfig,
			.memory_mib = conf->build_memory_mib,
			.tell = h->progress ? tell_arm : NULL, .gate = h->gate ? gate_arm : NULL,
			.arg = &t,
		};
		if (kbuild_build(&q, &r, msg) < 0) {
			fmtcut(a->failed, sizeof(a->failed), "%s (%s): %s%s%.400s", where, a->name,
				 m->n_archs > 1 ? m->archs[i] : "", m->n_archs > 1 ? ": " : "", msg);
			return 0;
		}
		a->files[i] = r.files;
		if (add_build(a, list, m->archs[i], s ? &applied : NULL, &r, err) < 0)
			return -1;
	}
	a->build_json = json_dumps(list, JSON_COMPACT);
	return a->build_json ? 0 : errorf(err, "out of memory");
}

/* A queued matrix's builds, from its stored JSON: each arch's vmlinuz in the cache. */
static int stored_builds(const struct matrix *m, struct arm *a, const char *where,
			 const struct conf *conf)
{
	json_auto_t *list = json_loads(a->build_json, 0, NULL);
	const char *key, *arch;
	json_t *o;
	size_t j;
	char msg[ERR_MAX];

	for (unsigned i = 0; i < m->n_archs; i++) {
		key = NULL;
		json_array_foreach(list, j, o) {
			arch = json_string_value(json_object_get(o, "arch"));
			if (arch && !strcmp(arch, m->archs[i]))
				key = json_string_value(json_object_get(o, "key"));
		}
		if (!key || !hash_sha256_hex_ok(key) ||
		    pathf(a->files[i].kernel, msg, "%s/%s/%s/vmlinuz", conf->results,
			  KBUILD_CACHE, key) < 0 ||
		    image_kernel_release(a->files[i].kernel, m->archs[i], a->files[i].release,
					 sizeof(a->files[i].release), msg) < 0) {
			fmtcut(a->failed, sizeof(a->failed), "%s (%s): its %s build is gone from "
				 "the cache (%s): queue it as a new matrix", where, a->name,
				 m->archs[i], key ? key : "no key stored");
			return 0;
		}
	}
	return 0;
}

int source_check(const struct matrix *m, const struct arm *a, unsigned idx,
		 const struct conf *conf, char *err)
{
	struct source_paths p;
	struct series s;
	char where[32];

	fmtcut(where, sizeof(where), "arms[%u]", idx);
	if (!spec_arm_built(a) || a->build_json || a->failed[0])
		return 0;
	if (confine_paths(m, a, conf, where, &p, err) < 0 ||
	    read_series(m, a, conf, where, &p, &s, err) < 0)
		return -1;
	series_free(&s);
	return 0;
}

int source_resolve(const struct matrix *m, struct arm *a, unsigned idx, const struct conf *conf,
		   const struct source_hooks *hooks, char *err)
{
	struct source_paths p;
	struct series s;
	char where[32];
	unsigned n;
	int rc;

	fmtcut(where, sizeof(where), "arms[%u]", idx);
	if (a->build_json)
		return stored_builds(m, a, where, conf);
	if (a->failed[0])
		return 0;     /* a queued matrix's arm whose build failed: not built again */
	if (confine_paths(m, a, conf, where, &p, err) < 0 ||
	    read_series(m, a, conf, where, &p, &s, err) < 0)
		return -1;
	/* the first apply of them are built and listed */
	n = a->apply_set ? (unsigned)a->apply : s.n;
	rc = build_all(m, a, where, conf, &p, p.patches[0] ? &s : NULL, n, hooks, err);
	series_free(&s);
	return rc;
}
