/* spec.c -- parsing matrix files: one table of keys per JSON object, one
 * generic checker for unknown and missing keys, then cross-field checks.
 * Nothing here looks at kernels, the network or fio: that is resolve.c. */
#include "spec/spec.h"
#include "base/err.h"
#include "base/proc.h"
#include "kbuild/kconfig.h"
#include "spec/preset.h"
#include "common/fmt.h"
#include "common/mthp.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* J_PKG: a Debian package name; J_URL: http(s)/file URL; J_SHA: SHA-256 hex (kept lowercase);
 * J_TAG: an arm's tag (a name that may also hold '/' and ':'); J_SRCPKG: a
 * linux-source-X.Y package; J_REV: a git revision; J_CONFIG: a base config name or path;
 * J_CHOICE: one of the key's choices; J_MTHP: multi-size THP's {size: policy} */
enum jkind { J_NAME, J_TEXT, J_UINT, J_LRU, J_START, J_ANY, J_PKG, J_URL, J_SHA, J_TAG, J_SRCPKG, J_REV,
	     J_CONFIG, J_CHOICE, J_MTHP };

struct jkey {
	const char *name;
	enum jkind kind;
	int required;
	size_t off;       /* into the struct being filled */
	size_t size;      /* J_NAME/J_TEXT: buffer size */
	uint64_t min, max;
	const char *const *choices;   /* J_CHOICE: the values allowed, NULL-terminated */
};

#define MOFF(m) offsetof(struct matrix, m)
#define AOFF(m) offsetof(struct arm, m)
#define SZ(s, m) sizeof(((struct s *)0)->m)

static const struct jkey matrix_keys[] = {
	{ "name", J_NAME, 1, MOFF(name), SZ(matrix, name), 0, 0, NULL },
	{ "description", J_ANY, 0, 0, 0, 0, 0, NULL },
	{ "reps", J_UINT, 1, MOFF(reps), 0, 1, SPEC_MAX_REPS, NULL },
	{ "memory_mib", J_UINT, 0, MOFF(memory_mib), 0, 128, 1 << 20, NULL },
	{ "vcpus", J_UINT, 0, MOFF(vcpus), 0, 1, 256, NULL },
	{ "start", J_START, 0, MOFF(start), SZ(matrix, start), 0, 0, NULL },
	{ "arch", J_ANY, 0, 0, 0, 0, 0, NULL },          /* parse_archs */
	{ "arms", J_ANY, 1, 0, 0, 0, 0, NULL },
	{ "workloads", J_ANY, 1, 0, 0, 0, 0, NULL },
	{ "cells", J_ANY, 0, 0, 0, 0, 0, NULL },         /* keep_cells */
	{ "margins", J_ANY, 0, 0, 0, 0, 0, NULL },       /* verdict_keys; names: analysis/metric.c */
	{ "primary", J_ANY, 0, 0, 0, 0, 0, NULL },       /* verdict_keys */
	{ NULL, 0, 0, 0, 0, 0, 0, NULL },
};

/* transparent_hugepage's enabled and defrag, as the kernel names their values */
static const char *const thp_enabled_names[] = { "always", "madvise", "never", NULL };
static const char *const thp_defrag_names[] = { "always", "defer", "defer+madvise", "madvise",
						"never", NULL };

static const struct jkey arm_keys[] = {
	{ "name", J_NAME, 1, AOFF(name), SZ(arm, name), 0, 0, NULL },
	/* the kernel: exactly one of kernel, package and url (parse_arm checks) */
	{ "kernel", J_ANY, 0, 0, 0, 0, 0, NULL },        /* parse_kernel: a string or per arch */
	{ "modules", J_TEXT, 0, AOFF(modules), SZ(arm, modules), 0, 0, NULL },
	{ "package", J_PKG, 0, AOFF(package), SZ(arm, package), 0, 0, NULL },
	{ "url", J_URL, 0, AOFF(url), SZ(arm, url), 0, 0, NULL },
	{ "sha256", J_SHA, 0, AOFF(sha256), SZ(arm, sha256), 0, 0, NULL },
	{ "modules_url", J_URL, 0, AOFF(modules_url), SZ(arm, modules_url), 0, 0, NULL },
	{ "modules_sha256", J_SHA, 0, AOFF(modules_sha256), SZ(arm, modules_sha256), 0, 0, NULL },
	{ "lru_gen", J_LRU, 0, AOFF(lru_gen), SZ(arm, lru_gen), 0, 0, NULL },
	{ "thp_enabled", J_CHOICE, 0, AOFF(thp_enabled), SZ(arm, thp_enabled), 0, 0,
	  thp_enabled_names },
	{ "thp_defrag", J_CHOICE, 0, AOFF(thp_defrag), SZ(arm, thp_defrag), 0, 0,
	  thp_defrag_names },
	{ "mthp", J_MTHP, 0, AOFF(mthp), SZ(arm, mthp), SPEC_MTHP_MIN_KIB, SPEC_MTHP_MAX_KIB, NULL },
	{ "cmdline", J_TEXT, 0, AOFF(cmdline), SZ(arm, cmdline), 0, 0, NULL },
	{ "tag", J_TAG, 0, AOFF(tag), SZ(arm, tag), 0, 0, NULL },
	/* built from source (check_arm_source says which go together) */
	{ "source", J_TEXT, 0, AOFF(source), SZ(arm, source), 0, 0, NULL },
	{ "source_package", J_SRCPKG, 0, AOFF(source_package), SZ(arm, source_package), 0, 0, NULL },
	{ "base", J_REV, 0, AOFF(base), SZ(arm, base), 0, 0, NULL },
	{ "patches", J_TEXT, 0, AOFF(patches), SZ(arm, patches), 0, 0, NULL },
	{ "apply", J_UINT, 0, AOFF(apply), 0, 0, SERIES_MAX_PATCHES, NULL },
	{ "config", J_CONFIG, 0, AOFF(config), SZ(arm, config), 0, 0, NULL },
	{ "config_fragment", J_ANY, 0, 0, 0, 0, 0, NULL },     /* parse_fragment */
	{ NULL, 0, 0, 0, 0, 0, 0, NULL },
};

/* A name: letters, digits and the characters of extra ("._-" for every name). */
static int chars_ok(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static int name_ok(const char *s)
{
	return chars_ok(s, "._-");
}

/*
 * 1 if s is printable ASCII without quotes or <>& (text that reaches HTML,
 * XML and logs).
 */
static int text_ok(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || strchr("<>&'\"", *s))
			return 0;
	return 1;
}

/* s with its letters made lowercase, in place; s. */
static char *lowercase(char *s)
{
	char *p;

	for (p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

/*
 * A string key's value checked by its kind's allow-list and length, then
 * copied into dst; -1 with err naming where.key and what was expected.
 */
static int set_string(const struct jkey *k, json_t *v, char *dst, const char *where, char *err)
{
	const char *s;

	if (!json_is_string(v))
		return errorf(err, "%s.%s: expected a string", where, k->name);
	s = json_string_value(v);
	if (json_string_length(v) >= k->size)
		return errorf(err, "%s.%s: longer than %zu characters", where, k->name, k->size - 1);
	if (k->kind == J_NAME && !name_ok(s))
		return errorf(err, "%s.%s: expected letters, digits, '.', '_' or '-', got '%s'",
			      where, k->name, s);
	if (k->kind == J_TAG && !chars_ok(s, "._-/:"))
		return errorf(err, "%s.%s: expected letters, digits, '.', '_', '-', '/' or ':', "
			      "got '%.80s'", where, k->name, s);
	if (k->kind == J_TEXT && !text_ok(s))
		return errorf(err, "%s.%s: expected printable text without quotes or <>&",
			      where, k->name);
	if (k->kind == J_PKG && !image_package_ok(s))
		return errorf(err, "%s.%s: expected a Debian package name (a-z, 0-9, '.', '+', "
			      "'-', starting with a letter or digit), got '%.80s'", where, k->name, s);
	if (k->kind == J_SRCPKG && (!image_package_ok(s) || strncmp(s, "linux-source-", 13)))
		return errorf(err, "%s.%s: expected a Debian linux-source-X.Y package name, got "
			      "'%.80s'", where, k->name, s);
	if (k->kind == J_REV && !kbuild_rev_ok(s))
		return errorf(err, "%s.%s: expected a git revision (letters, digits and ._/~^@{}-, "
			      "not starting with '-', no '..'), got '%.80s'", where, k->name, s);
	if (k->kind == J_CONFIG && !kbuild_config_builtin(s) && !text_ok(s))
		return errorf(err, "%s.%s: expected defconfig, tinyconfig, allnoconfig, debian or "
			      "the path of a .config", where, k->name);
	if (k->kind == J_URL && !fetch_url_ok(s))
		return errorf(err, "%s.%s: expected an http://, https:// or file:// URL without "
			      "spaces", where, k->name);
	strcpy(dst, s);
	if (k->kind == J_SHA && !hash_sha256_hex_ok(lowercase(dst)))
		return errorf(err, "%s.%s: expected a SHA-256: 64 hex digits", where, k->name);
	return 0;
}

/*
 * J_CHOICE: one of k->choices into dst, or "default" (the kernel's own
 * value, left alone) as ""; -1 with err listing them.
 */
static int set_choice(const struct jkey *k, json_t *v, char *dst, const char *where, char *err)
{
	const char *s = json_string_value(v);
	char list[160] = "";
	size_t i;

	if (s && !strcmp(s, "default")) {
		dst[0] = '\0';
		return 0;
	}
	for (i = 0; s && k->choices[i]; i++)
		if (!strcmp(s, k->choices[i]) && strlen(s) < k->size) {
			strcpy(dst, s);
			return 0;
		}
	for (i = 0; k->choices[i]; i++)
		fmtcut(list + strlen(list), sizeof(list) - strlen(list), "\"%s\", ", k->choices[i]);
	return errorf(err, "%s.%s: expected one of %sor \"default\"", where, k->name, list);
}

/*
 * J_MTHP: an object of multi-size THP sizes ("64K", a power of two from
 * k->min to k->max KiB) to a policy (always, inherit, madvise, never) into
 * dst as a list's text, sizes ascending ("64K:always 2048K:inherit"; {} is
 * ""); -1 with err naming where.key and the size.
 */
static int set_mthp(const struct jkey *k, json_t *v, char *dst, const char *where, char *err)
{
	struct mthp_list l = { 0 };
	const char *size;
	uint64_t kib;
	json_t *x;
	int policy;

	if (!json_is_object(v))
		return errorf(err, "%s.%s: expected an object of sizes to policies, "
			      "{\"64K\": \"always\"}", where, k->name);
	json_object_foreach(v, size, x) {
		if (mthp_size_parse(size, &kib) < 0 || kib < k->min || kib > k->max)
			return errorf(err, "%s.%s: key '%.40s': expected a size like \"64K\", a "
				      "power of two from %lluK to %lluK", where, k->name, size,
				      (unsigned long long)k->min, (unsigned long long)k->max);
		policy = json_is_string(x) ? mthp_policy_parse(json_string_value(x)) : -1;
		if (policy < 0)
			return errorf(err, "%s.%s: key '%s': expected \"always\", \"inherit\", "
				      "\"madvise\" or \"never\"", where, k->name, size);
		if (mthp_list_add(&l, kib, (unsigned)policy) < 0)
			return errorf(err, "%s.%s: key '%s': the size is given twice", where,
				      k->name, size);
	}
	if (mthp_list_format(&l, dst, k->size) < 0)
		return errorf(err, "%s.%s: longer than %zu characters", where, k->name,
			      k->size - 1);
	return 0;
}

/*
 * One key's value into obj by its kind: a string, a bounded whole number,
 * lru_gen's y/n/default, start's boot/restore, one of a key's choices,
 * multi-size THP's sizes; -1 with err.
 */
static int set_value(const struct jkey *k, json_t *v, void *obj, const char *where, char *err)
{
	char *dst = (char *)obj + k->off;
	json_int_t i;
	const char *s;

	switch (k->kind) {
	case J_ANY:
		return 0;
	case J_NAME:
	case J_TEXT:
	case J_PKG:
	case J_URL:
	case J_SHA:
	case J_TAG:
	case J_SRCPKG:
	case J_REV:
	case J_CONFIG:
		return set_string(k, v, dst, where, err);
	case J_UINT:
		if (!json_is_integer(v))
			return errorf(err, "%s.%s: expected a whole number", where, k->name);
		i = json_integer_value(v);
		if (i < 0 || (uint64_t)i < k->min || (uint64_t)i > k->max)
			return errorf(err, "%s.%s: expected %llu..%llu, got %lld", where, k->name,
				      (unsigned long long)k->min, (unsigned long long)k->max,
				      (long long)i);
		*(uint64_t *)dst = (uint64_t)i;
		return 0;
	case J_CHOICE:
		return set_choice(k, v, dst, where, err);
	case J_MTHP:
		return set_mthp(k, v, dst, where, err);
	case J_LRU:
		s = json_is_string(v) ? json_string_value(v) : "";
		if (!strcmp(s, "y") || !strcmp(s, "n"))
			strcpy(dst, s);
		else if (!strcmp(s, "default"))
			dst[0] = '\0';
		else
			return errorf(err, "%s.%s: expected \"y\", \"n\" or \"default\"", where, k->name);
		return 0;
	case J_START:
		s = json_is_string(v) ? json_string_value(v) : "";
		if (strcmp(s, "boot") && strcmp(s, "restore"))
			return errorf(err, "%s.%s: expected \"boot\" or \"restore\"", where, k->name);
		strcpy(dst, s);
		return 0;
	}
	return errorf(err, "%s.%s: no kind", where, k->name);
}

/* Check obj against a key table: no unknown keys, no missing required ones. */
static int parse_object(json_t *obj, const struct jkey *keys, void *dst, const char *where,
			char *err)
{
	const struct jkey *k;
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return errorf(err, "%s: expected an object", where);
	json_object_foreach(obj, key, v) {
		for (k = keys; k->name && strcmp(k->name, key); k++)
			;
		if (!k->name)
			return errorf(err, "%s: unknown key '%s'", where, key);
		if (set_value(k, v, dst, where, err) < 0)
			return -1;
	}
	for (k = keys; k->name; k++)
		if (k->required && !json_object_get(obj, k->name))
			return errorf(err, "%s: missing key '%s'", where, k->name);
	return 0;
}

/* The guest architectures the harness can boot, and the cell-name suffix of each. */
static const struct { const char *name, *suffix; } known_archs[] = {
	{ "x86_64", "" },
	{ "aarch64", "@aarch64" },
};

const char *spec_arch_suffix(const char *arch)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(known_archs); i++)
		if (!strcmp(known_archs[i].name, arch))
			return known_archs[i].suffix;
	return "@?";
}

int spec_arch_index(const struct matrix *m, const char *arch)
{
	unsigned i;

	for (i = 0; i < m->n_archs; i++)
		if (!strcmp(m->archs[i], arch))
			return (int)i;
	return -1;
}

/* 1 if s names a guest architecture the harness boots. */
static int arch_known(const char *s)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(known_archs); i++)
		if (!strcmp(known_archs[i].name, s))
			return 1;
	return 0;
}

/* "arch": "x86_64", "aarch64", or an array of them, each at most once. */
static int parse_archs(struct matrix *m, json_t *root, char *err)
{
	json_t *v = json_object_get(root, "arch"), *x;
	const char *s;
	size_t i;

	if (!v) {
		if (fmtbuf(m->archs[0], sizeof(m->archs[0]), "x86_64") < 0)
			return errorf(err, "arch: x86_64 over %d bytes", SPEC_ARCH_MAX - 1);
		m->n_archs = 1;
		return 0;
	}
	if (json_is_string(v)) {
		x = json_array();
		if (!x || json_array_append(x, v) < 0) {
			json_decref(x);
			return errorf(err, "out of memory");
		}
	} else if (json_is_array(v) && json_array_size(v) > 0 &&
		   json_array_size(v) <= SPEC_MAX_ARCHS) {
		x = json_incref(v);
	} else {
		return errorf(err, "arch: expected \"x86_64\", \"aarch64\" or an array of them");
	}
	for (i = 0; i < json_array_size(x); i++) {
		s = json_string_value(json_array_get(x, i));
		if (!s || !arch_known(s)) {
			json_decref(x);
			return errorf(err, "arch[%zu]: expected \"x86_64\" or \"aarch64\"", i);
		}
		if (spec_arch_index(m, s) >= 0) {
			json_decref(x);
			return errorf(err, "arch[%zu]: '%s' is listed twice", i, s);
		}
		if (fmtbuf(m->archs[m->n_archs++], sizeof(m->archs[0]), "%s", s) < 0) {
			json_decref(x);
			return errorf(err, "arch[%zu]: '%s' over %d bytes", i, s,
				      SPEC_ARCH_MAX - 1);
		}
	}
	json_decref(x);
	return 0;
}

/*
 * A kernel's alias or path (a string under PATH_MAX, printable, no quotes
 * or <>&) into dst; -1 with err naming where.key.
 */
static int kernel_text(json_t *v, char *dst, const char *where, const char *key, char *err)
{
	if (!json_is_string(v))
		return errorf(err, "%s.%s: expected a string (a kernel alias or path)", where, key);
	if (json_string_length(v) >= PATH_MAX)
		return errorf(err, "%s.%s: longer than %d characters", where, key, PATH_MAX - 1);
	if (!text_ok(json_string_value(v)))
		return errorf(err, "%s.%s: expected printable text without quotes or <>&", where,
			      key);
	strcpy(dst, json_string_value(v));
	return 0;
}

/*
 * "kernel": one alias for every arch, one path (a kernel image fits one
 * architecture, so only in a matrix of one), or {ARCH: alias or path} with
 * an entry for each of the matrix's arches (others allowed, and unused).
 */
static int parse_kernel(const struct matrix *m, struct arm *a, json_t *obj, const char *where,
			char *err)
{
	json_t *v = json_object_get(obj, "kernel"), *x;
	const char *key;
	char sub[96];
	char *text;
	unsigned i;

	if (!v)
		return 0;
	if (json_is_string(v)) {
		if (kernel_text(v, a->kernel, where, "kernel", err) < 0)
			return -1;
		if (strchr(a->kernel, '/') && m->n_archs > 1)
			return errorf(err, "%s.kernel: a kernel path fits one architecture; give "
				      "{\"x86_64\": ..., \"aarch64\": ...}", where);
		for (i = 0; i < m->n_archs; i++)
			strcpy(a->kernels[i], a->kernel);
		return 0;
	}
	if (!json_is_object(v))
		return errorf(err, "%s.kernel: expected a kernel alias or path, or an object "
			      "of them by arch", where);
	if (json_object_get(obj, "modules"))
		return errorf(err, "%s.modules: only with a kernel string, not per arch", where);
	json_object_foreach(v, key, x) {
		if (!arch_known(key))
			return errorf(err, "%s.kernel: unknown arch '%.32s' (x86_64 or aarch64)",
				      where, key);
		fmtcut(sub, sizeof(sub), "kernel.%s", key);
		if (spec_arch_index(m, key) >= 0 &&
		    kernel_text(x, a->kernels[spec_arch_index(m, key)], where, sub, err) < 0)
			return -1;
	}
	for (i = 0; i < m->n_archs; i++)
		if (!a->kernels[i][0])
			return errorf(err, "%s.kernel: no kernel for arch '%s'", where, m->archs[i]);
	text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return errorf(err, "out of memory");
	if (fmtbuf(a->kernel, sizeof(a->kernel), "%s", text) < 0) {
		free(text);
		return errorf(err, "%s.kernel: over %zu bytes as JSON", where,
			      sizeof(a->kernel) - 1);
	}
	free(text);
	return 0;
}

/* Which keys may (or must) come with which source of the kernel. */
static int check_arm_source(json_t *obj, const char *where, char *err)
{
	static const char *const sources[] = { "kernel", "package", "url", "source",
					       "source_package" };
	static const struct { const char *key, *needs, *or_needs; } pairs[] = {
		{ "modules", "kernel", NULL },
		{ "sha256", "url", NULL },
		{ "modules_url", "url", NULL },
		{ "modules_sha256", "modules_url", NULL },
		{ "base", "source", NULL },
		{ "patches", "source", "source_package" },
		{ "apply", "patches", NULL },
		{ "config", "source", "source_package" },
		{ "config_fragment", "source", "source_package" },
	};
	const char *first = NULL;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(sources); i++) {
		if (!json_object_get(obj, sources[i]))
			continue;
		if (first)
			return errorf(err, "%s.%s: give one of 'kernel', 'package', 'url', 'source' "
				      "or 'source_package', not both '%s' and '%s'", where,
				      sources[i], first, sources[i]);
		first = sources[i];
	}
	if (!first)
		return errorf(err, "%s: missing key 'kernel', 'package', 'url', 'source' or "
			      "'source_package' (a kernel alias or path, a Debian package name, a "
			      "URL with its sha256, a kernel source tree, or linux-source-X.Y)",
			      where);
	for (i = 0; i < ARRAY_SIZE(pairs); i++)
		if (json_object_get(obj, pairs[i].key) && !json_object_get(obj, pairs[i].needs) &&
		    !(pairs[i].or_needs && json_object_get(obj, pairs[i].or_needs)))
			return errorf(err, "%s.%s: only with '%s'%s%s%s", where, pairs[i].key,
				      pairs[i].needs, pairs[i].or_needs ? " or '" : "",
				      pairs[i].or_needs ? pairs[i].or_needs : "",
				      pairs[i].or_needs ? "'" : "");
	if (json_object_get(obj, "url") && !json_object_get(obj, "sha256"))
		return errorf(err, "%s.sha256: required with 'url' (the kernel image's SHA-256, "
			      "64 hex digits)", where);
	if (json_object_get(obj, "modules_url") && !json_object_get(obj, "modules_sha256"))
		return errorf(err, "%s.modules_sha256: required with 'modules_url' (the modules "
			      "cpio's SHA-256, 64 hex digits)", where);
	return 0;
}

/* "config_fragment": an array of kernel config lines, joined with '\n' into a->fragment. */
static int parse_fragment(struct arm *a, json_t *obj, const char *where, char *err)
{
	json_t *v = json_object_get(obj, "config_fragment"), *x;
	size_t i, o = 0, n;
	const char *s;
	char msg[ERR_MAX];

	if (!v)
		return 0;
	if (!json_is_array(v))
		return errorf(err, "%s.config_fragment: expected an array of lines "
			      "(\"CONFIG_X=y\", \"# CONFIG_X is not set\")", where);
	json_array_foreach(v, i, x) {
		s = json_string_value(x);
		if (!s)
			return errorf(err, "%s.config_fragment[%zu]: expected a string, a config line",
				      where, i);
		if (strlen(s) != json_string_length(x) || kconfig_line_check(s, msg) < 0)
			return errorf(err, "%s.config_fragment[%zu]: %s", where, i,
				      strlen(s) != json_string_length(x) ? "expected no NUL byte" : msg);
		n = strlen(s);
		if (o + n + 2 > sizeof(a->fragment))
			return errorf(err, "%s.config_fragment: longer than %zu characters", where,
				      sizeof(a->fragment) - 2);
		o += (size_t)snprintf(a->fragment + o, sizeof(a->fragment) - o, "%s%s",
				      o ? "\n" : "", s);
	}
	return 0;
}

/*
 * arms[i]: its keys, source keys, kernel and config fragment, then the rules
 * across them (one arch for a modules cpio, a package or a URL) and a name
 * no earlier arm has; -1 with err naming the field.
 */
static int parse_arm(struct matrix *m, json_t *obj, unsigned i, char *err)
{
	struct arm *a = &m->arms[i];
	char where[64];
	unsigned j;

	fmtcut(where, sizeof(where), "arms[%u]", i);
	if (parse_object(obj, arm_keys, a, where, err) < 0 ||
	    check_arm_source(obj, where, err) < 0 || parse_kernel(m, a, obj, where, err) < 0 ||
	    parse_fragment(a, obj, where, err) < 0)
		return -1;
	a->apply_set = json_object_get(obj, "apply") != NULL;
	if (spec_arm_built(a) && !a->config[0] &&
	    fmtbuf(a->config, sizeof(a->config), "defconfig") < 0)
		return errorf(err, "%s.config: defconfig over %zu bytes", where,
			      sizeof(a->config) - 1);
	if (a->modules[0] && m->n_archs > 1)
		return errorf(err, "%s.modules: a modules cpio fits one architecture; not with "
			      "several in 'arch'", where);
	/* a package or an image names one architecture's kernel */
	if ((a->package[0] || a->url[0]) && m->n_archs > 1)
		return errorf(err, "%s.%s: fits one architecture; with several in 'arch', give "
			      "'kernel' per arch", where, a->package[0] ? "package" : "url");
	for (j = 0; j < i; j++)
		if (!strcmp(m->arms[j].name, a->name))
			return errorf(err, "%s.name: '%s' is used by arms[%u] too", where, a->name, j);
	return 0;
}

/*
 * 1 if s is a cell name: letters, digits and ._-/, shorter than
 * CELL_NAME_MAX.
 */
static int cell_name_ok(const char *s)
{
	if (!*s || strlen(s) >= CELL_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-/", *s))
			return 0;
	return 1;
}

/*
 * Length of the job as the guest will get it, -1 if it does not fit a line,
 * -2 out of memory. On the heap: both are large, and threads parse at once.
 */
static int job_line_len(const struct proto_job *job)
{
	_cleanup_free_ struct proto_msg *msg = calloc(1, sizeof(*msg));
	_cleanup_free_ char *line = malloc(PROTO_LINE_MAX);

	if (!msg || !line)
		return -2;
	msg->type = PROTO_JOB;
	msg->u.job = *job;
	if (fmtbuf(msg->u.job.lru_gen, sizeof(msg->u.job.lru_gen), "y") < 0)
		return -1;   /* cannot be: "y" fits lru_gen[] */
	msg->u.job.run = UINT64_C(1) << 40;
	return proto_format(msg, line, PROTO_LINE_MAX);
}

/*
 * Reclaim storms: the page cache they charge into their memcgs must fit the
 * guest beside the workload's memcg, or the set-up measures its own reclaim.
 */
static int check_reclaim(const struct matrix *m, const struct cell *c, const char *where,
			 char *err)
{
	uint64_t mib = 0;
	unsigned i;

	for (i = 0; i < c->job.nstreams; i++)
		mib += proto_stream_charge_mib(&c->job.streams[i]);
	if (mib && mib + c->job.memcg_mib + GUEST_RESERVE_MIB > m->memory_mib)
		return errorf(err, "%s.streams: reclaim storms charge %llu MiB of page cache, which "
			      "with memcg_mib %llu does not fit a %llu MiB guest (a "
			      "smaller charge_mib, or more memory_mib)", where,
			      (unsigned long long)mib, (unsigned long long)c->job.memcg_mib,
			      (unsigned long long)m->memory_mib);
	return 0;
}

/*
 * zram's and zswap's pools are guest memory outside the memcg: what the memcg
 * may swap into them must fit beside it, or the guest reclaims for the pool
 * and the run measures the set-up. Incompressible pages take their size.
 */
static int check_swap_ram(const struct matrix *m, const struct cell *c, const char *where,
			  char *err)
{
	const struct proto_job *j = &c->job;
	uint64_t pool = j->swap_max_mib, cap;

	if (!(proto_swap_kind_flags[j->swap.kind] & SWK_RAM))
		return 0;
	if (j->swap.kind == SWAP_ZSWAP && pool > (cap = m->memory_mib * j->swap.max_pool_percent / 100))
		pool = cap;
	if (j->memcg_mib + pool + GUEST_RESERVE_MIB <= m->memory_mib)
		return 0;
	return errorf(err, "%s.swap: a %s pool of up to %llu MiB beside memcg_mib %llu does not "
		      "fit a %llu MiB guest (less swap_max_mib, or more memory_mib)", where,
		      proto_swap_kind_names[j->swap.kind], (unsigned long long)pool,
		      (unsigned long long)j->memcg_mib, (unsigned long long)m->memory_mib);
}

/* A data disk of a given size must hold its files and every record set. */
static int check_disk_size(const struct cell *c, const char *where, char *err)
{
	uint64_t need = image_need_bytes(&c->job) >> 20, records = 0;
	unsigned i;

	if (!c->job.disk_mib || need <= c->job.disk_mib)
		return 0;
	for (i = 0; i < c->job.ndbs; i++)
		records += image_db_bytes(&c->job.dbs[i]) >> 20;
	return errorf(err, "%s.disk_mib: %llu MiB is too small: the files, databases (record "
		      "sets about %llu MiB) and swap file need %llu MiB", where,
		      (unsigned long long)c->job.disk_mib, (unsigned long long)records,
		      (unsigned long long)need);
}

/*
 * Cross-field checks the job's own tables cannot make: does it fit a channel
 * line, its data disk and the guest (the free space for the disk is
 * spec_resolve's: it depends on the host, not the matrix).
 */
static int check_cell(const struct matrix *m, const struct cell *c, const char *where, char *err)
{
	int len = job_line_len(&c->job);

	if (len == -2)
		return errorf(err, "out of memory");
	if (len < 0)
		return errorf(err, "%s: the job does not fit one %d-byte channel line (shorten fio "
			      "args or job files)", where, PROTO_LINE_MAX);
	if (check_disk_size(c, where, err) < 0)
		return -1;
	if (c->job.memcg_mib + GUEST_RESERVE_MIB > m->memory_mib)
		return errorf(err, "%s.memcg_mib: %llu MiB does not fit a %llu MiB guest "
			      "(at most %llu, or raise memory_mib)", where,
			      (unsigned long long)c->job.memcg_mib,
			      (unsigned long long)m->memory_mib,
			      (unsigned long long)(m->memory_mib > GUEST_RESERVE_MIB ?
						   m->memory_mib - GUEST_RESERVE_MIB : 0));
	if (check_swap_ram(m, c, where, err) < 0)
		return -1;
	return check_reclaim(m, c, where, err);
}

/* One expanded cell {name, preset, params, table, job} of workload w on arch a into m->cells. */
static int add_cell(struct matrix *m, json_t *x, unsigned w, unsigned a, const char *where,
		    char *err)
{
	const char *suffix = spec_arch_suffix(m->archs[a]);
	struct cell *c;
	json_t *table = json_object_get(x, "table");
	const char *name;
	char msg[ERR_MAX];
	unsigned j;

	if (m->n_cells == SPEC_MAX_CELLS)
		return errorf(err, "%s: the matrix expands to more than %d workload cells", where,
			      SPEC_MAX_CELLS);
	c = &m->cells[m->n_cells];
	memset(c, 0, sizeof(*c));
	name = json_string_value(json_object_get(x, "name"));
	if (!cell_name_ok(name) || strlen(name) + strlen(suffix) >= CELL_NAME_MAX)
		return errorf(err, "%s.name: '%.80s': expected up to %zu letters, digits, '.', '_', "
			      "'-' or '/'", where, name, CELL_NAME_MAX - 1 - strlen(suffix));
	strcpy(c->name, name);          /* both fit: checked above */
	strcat(c->name, suffix);
	memcpy(c->arch, m->archs[a], sizeof(c->arch));
	c->arch_idx = a;
	c->workload = w;
	if (fmtbuf(c->preset, sizeof(c->preset), "%s",
		   json_string_value(json_object_get(x, "preset"))) < 0)
		return errorf(err, "%s.preset: '%.64s...': a name of over %zu characters", where,
			      c->preset, sizeof(c->preset) - 1);
	fmtcut(c->params, sizeof(c->params), "%s", json_string_value(json_object_get(x, "params")));
	for (j = 0; j < m->n_cells; j++)
		if (!strcmp(m->cells[j].name, c->name))
			return errorf(err, "%s.name: '%s' is used by another workload too", where,
				      c->name);
	if (proto_job_from_json(json_object_get(x, "job"), &c->job, where, msg, sizeof(msg)) < 0)
		return errorf(err, "%s", msg);
	if (check_cell(m, c, where, err) < 0)
		return -1;
	if (json_is_object(table) && !(c->table = json_dumps(table, JSON_COMPACT)))
		return errorf(err, "out of memory");
	m->n_cells++;
	return 0;
}

/* workloads[i] on arch a: its preset expanded into cells, each added. */
static int parse_cells(struct matrix *m, json_t *entry, unsigned i, unsigned a,
		       const struct conf *conf, char *err)
{
	json_t *cells = NULL, *x;
	char where[64];
	size_t k;
	int rc = 0;

	fmtcut(where, sizeof(where), "workloads[%u]", i);
	if (preset_expand(entry, conf->presets, where, &cells, err) < 0)
		return -1;
	json_array_foreach(cells, k, x)
		if ((rc = add_cell(m, x, i, a, where, err)) < 0)
			break;
	json_decref(cells);
	return rc;
}

/* root's key is a non-empty array of at most max entries; -1 with err. */
static int parse_array(json_t *root, const char *key, size_t max, char *err)
{
	json_t *a = json_object_get(root, key);

	if (!json_is_array(a) || json_array_size(a) == 0)
		return errorf(err, "%s: expected a non-empty array", key);
	if (json_array_size(a) > max)
		return errorf(err, "%s: at most %zu entries", key, max);
	return 0;
}

/* Is an arm expanded from key named by the value itself (not a file's name)? */
static int value_named(const char *key)
{
	return !strcmp(key, "lru_gen") || !strcmp(key, "base") || !strcmp(key, "thp_enabled") ||
	       !strcmp(key, "thp_defrag");
}

/*
 * The name of the arm expanded from key's value x (the j-th): the value for
 * lru_gen, thp_enabled, thp_defrag and base, a file's name without its directory and extension for
 * patches, config and source, the index for cmdline; characters a name may
 * not hold become '_'.
 */
static void expanded_name(char *name, size_t size, const char *base, const char *key,
			  json_t *x, size_t j)
{
	const char *v = json_string_value(x), *slash;
	size_t o, n;

	if (!v || !strcmp(key, "cmdline")) {
		if (fmtbuf(name, size, "%s-%zu", base ? base : "arm", j) < 0)
			return;   /* cut: longer than an arm's name may be, parse_arm refuses it */
		return;
	}
	if (!value_named(key) && (slash = strrchr(v, '/')) && slash[1])
		v = slash + 1;
	n = !value_named(key) && strrchr(v, '.') > v ? (size_t)(strrchr(v, '.') - v) : strlen(v);
	o = (size_t)snprintf(name, size, "%s-", base ? base : "arm");
	for (size_t i = 0; i < n && o + 1 < size; i++)
		name[o++] = isalnum((unsigned char)v[i]) || strchr("._-", v[i]) ? v[i] : '_';
	name[o < size ? o : size - 1] = '\0';
}

json_t *spec_expand_arms(json_t *arms)
{
	static const char *const keys[] = { "lru_gen", "thp_enabled", "thp_defrag", "cmdline",
					    "patches", "base", "config", "source" };
	json_t *out = json_array(), *next, *a, *vals, *x;
	size_t i, k, j;
	char name[128];

	if (!out)
		return NULL;
	json_array_extend(out, arms);
	for (k = 0; k < ARRAY_SIZE(keys); k++) {
		next = json_array();
		json_array_foreach(out, i, a) {
			vals = json_object_get(a, keys[k]);
			if (!json_is_array(vals) || !json_array_size(vals)) {
				json_array_append(next, a);
				continue;
			}
			json_array_foreach(vals, j, x) {
				json_t *c = json_copy(a);
				const char *base = json_string_value(json_object_get(a, "name"));

				expanded_name(name, sizeof(name), base, keys[k], x, j);
				json_object_set(c, keys[k], x);
				json_object_set_new(c, "name", json_string(name));
				json_array_append_new(next, c);
			}
		}
		json_decref(out);
		out = next;
	}
	return out;
}

/*
 * "cells": the names of the expanded cells to keep (harness calibrate writes
 * it; a user may too, to run a few cells of a large grid); every name must
 * be one of them.
 */
static int keep_cells(struct matrix *m, json_t *root, char *err)
{
	json_t *names = json_object_get(root, "cells"), *x;
	unsigned i, kept = 0;
	size_t k;

	if (!names)
		return 0;
	if (!json_is_array(names) || !json_array_size(names) ||
	    json_array_size(names) > SPEC_MAX_CELLS)
		return errorf(err, "cells: expected an array of 1 to %d cell names", SPEC_MAX_CELLS);
	json_array_foreach(names, k, x) {
		for (i = 0; i < m->n_cells; i++)
			if (json_is_string(x) && !strcmp(json_string_value(x), m->cells[i].name))
				break;
		if (i == m->n_cells)
			return errorf(err, "cells[%zu]: expected the name of a cell the workloads"
				      " expand to, such as '%s'", k, m->cells[0].name);
	}
	for (i = 0; i < m->n_cells; i++) {
		json_array_foreach(names, k, x)
			if (!strcmp(json_string_value(x), m->cells[i].name))
				break;
		if (k == json_array_size(names)) {
			free(m->cells[i].table);
			continue;
		}
		if (kept != i)
			m->cells[kept] = m->cells[i];
		kept++;
	}
	m->n_cells = kept;
	return 0;
}

/*
 * The matrix's identity: its spec without "reps", so more reps append to it.
 * Arm tags stay in: a tag is part of what the user declared, and it is stored
 * with the arm when the matrix is first queued; a retagged spec appending to
 * the old matrix would leave its arms under the old tag, so it is a new one.
 */
static int hash_without_reps(json_t *root, char out[17], char *err)
{
	json_t *copy = json_deep_copy(root);
	char *text;

	if (!copy || json_object_del(copy, "reps") < 0 ||
	    !(text = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS))) {
		json_decref(copy);
		return errorf(err, "out of memory");
	}
	hash_fnv1a_hex(text, out);
	free(text);
	json_decref(copy);
	return 0;
}

/*
 * The shape of what the verdicts read from a matrix: "margins", an object of
 * percentages above 0 and at most 100; "primary", a metric's name. Whether
 * the names are compared metrics is the analysis' to say (metric.c), which
 * spec/ may not call; check and submit ask it.
 */
static int verdict_keys(json_t *root, char *err)
{
	json_t *o = json_object_get(root, "margins"), *p = json_object_get(root, "primary"), *v;
	const char *k;

	if (p && !json_is_string(p))
		return errorf(err, "primary: expected the name of a compared metric, such as \"ops/s\"");
	if (o && !json_is_object(o))
		return errorf(err, "margins: expected an object of metric: percentage");
	json_object_foreach(o, k, v)
		if (!json_is_number(v) || !(json_number_value(v) > 0 && json_number_value(v) <= 100))
			return errorf(err, "margins: '%s': expected a percentage above 0 and at most 100",
				      k);
	return 0;
}

/*
 * The matrix: its keys, archs and verdict keys, then its arms (expanded) and
 * every workload on each arch.
 */
static int parse_root(struct matrix *m, json_t *root, const struct conf *conf, char *err)
{
	json_t *v, *arms;
	size_t i;
	unsigned a;

	if (parse_object(root, matrix_keys, m, "matrix", err) < 0 || parse_archs(m, root, err) < 0 ||
	    verdict_keys(root, err) < 0)
		return -1;
	if (parse_array(root, "arms", SPEC_MAX_ARMS, err) < 0 ||
	    parse_array(root, "workloads", SPEC_MAX_CELLS, err) < 0)
		return -1;
	arms = spec_expand_arms(json_object_get(root, "arms"));
	if (!arms)
		return errorf(err, "out of memory");
	if (json_array_size(arms) > SPEC_MAX_ARMS) {
		errorf(err, "arms: expand to %zu arms, at most %d", json_array_size(arms),
		       SPEC_MAX_ARMS);
		json_decref(arms);
		return -1;
	}
	json_array_foreach(arms, i, v) {
		if (parse_arm(m, v, (unsigned)i, err) < 0) {
			json_decref(arms);
			return -1;
		}
		m->n_arms++;
	}
	json_decref(arms);
	/* every workload on each arch, one arch after the other */
	for (a = 0; a < m->n_archs; a++)
		json_array_foreach(json_object_get(root, "workloads"), i, v)
			if (parse_cells(m, v, (unsigned)i, a, conf, err) < 0)
				return -1;
	if (keep_cells(m, root, err) < 0)
		return -1;
	m->canonical = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	if (!m->canonical)
		return errorf(err, "out of memory");
	return hash_without_reps(root, m->hash, err);
}

/* Parse root (label names it in errors); relative paths start at base_dir. */
static int spec_from_json(struct matrix *m, json_t *root, const char *label,
			  const char *base_dir, const struct conf *conf, char *err)
{
	char msg[ERR_MAX];

	memset(m, 0, sizeof(*m));
	if (fmtbuf(m->path, sizeof(m->path), "%s", label) < 0 ||
	    fmtbuf(m->base_dir, sizeof(m->base_dir), "%s", base_dir) < 0)
		return errorf(err, "%.64s...: the matrix's path or its directory is too long "
			      "(%zu bytes at most)", label, sizeof(m->base_dir) - 1);
	m->memory_mib = conf->memory_mib;
	m->vcpus = conf->vcpus;
	if (fmtbuf(m->start, sizeof(m->start), "%s", conf->start[0] ? conf->start : "boot") < 0)
		return errorf(err, "%s: start '%s' over %zu bytes", label, conf->start,
			      sizeof(m->start) - 1);
	if (parse_root(m, root, conf, msg) < 0) {
		spec_release(m);
		return errorf(err, "%s: %s", label, msg);
	}
	m->unresolved = 1;
	return 0;
}

int spec_parse_file(struct matrix *m, const char *path, const struct conf *conf, char *err)
{
	char base_dir[PATH_MAX], real[PATH_MAX], *slash;
	_cleanup_free_ char *text = NULL;
	json_error_t jerr;
	json_t *root;
	size_t len;
	int ret;

	if (read_regular_file(path, SPEC_FILE_MAX, &text, &len, err) < 0 ||
	    pathf(base_dir, err, "%s", path) < 0)
		return -1;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return errorf(err, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column,
			      jerr.text);
	slash = strrchr(base_dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(base_dir, ".");
	/* absolute, as the store keeps it: a stored matrix is run (and bisected) from
	 * anywhere, by the daemon too */
	if (realpath(base_dir, real))
		memcpy(base_dir, real, sizeof(base_dir));   /* both PATH_MAX */
	ret = spec_from_json(m, root, path, base_dir, conf, err);
	json_decref(root);
	return ret;
}

int spec_parse(struct matrix *m, const char *text, const char *label, const char *base_dir,
	       const struct conf *conf, char *err)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	if (strlen(text) > SPEC_FILE_MAX)
		return errorf(err, "%s: larger than %d bytes", label, SPEC_FILE_MAX);
	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return errorf(err, "%s:%d:%d: malformed JSON: %s", label, jerr.line, jerr.column,
			      jerr.text);
	ret = spec_from_json(m, root, label, base_dir, conf, err);
	json_decref(root);
	return ret;
}

void spec_release(struct matrix *m)
{
	unsigned i;

	if (!m)
		return;
	for (i = 0; i < m->n_cells; i++) {
		free(m->cells[i].table);
		m->cells[i].table = NULL;
	}
	for (i = 0; i < SPEC_MAX_ARMS; i++) {
		free(m->arms[i].build_json);
		m->arms[i].build_json = NULL;
	}
	free(m->canonical);
	m->canonical = NULL;
}

int spec_key_ok(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");

	return n >= 1 && n <= SPEC_KEY_MAX && !s[n];
}

unsigned spec_run_count(const struct matrix *m)
{
	return m->n_arms * m->n_cells * (unsigned)m->reps;
}
