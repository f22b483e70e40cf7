/* kbuild.h -- kernel arms built from source: a tree (a git work tree, a plain
 * tree or a Debian linux-source package), a base revision, a patch series and
 * a config, built out of tree with ccache into a cache keyed by what goes in.
 *
 * Folder kbuild/: kernels made from source: patch series read (series.c),
 * the config merged and checked (kconfig.c), trees prepared and builds run
 * and cached (kbuild.c).
 * It may call: base/ common/ vm/.
 */
#ifndef KBUILD_H
#define KBUILD_H

#include <limits.h>

#include "base/hash.h"
#include "kbuild/series.h"
#include "vm/image.h"

#define KBUILD_REV_MAX      128     /* a base revision as written */
#define KBUILD_CONFIG_MAX   PATH_MAX
#define KBUILD_FRAGMENT_MAX 8192    /* a user's config_fragment lines, '\n'-joined */
#define KBUILD_TREE_MAX     160     /* the tree's identity, one line */
#define KBUILD_TIMEOUT_MS   (3 * 60 * 60 * 1000)  /* one make; a defconfig at -j2 is ~30 min */
#define KBUILD_CACHE        "cache/builds"        /* under the results directory */

/* A progress line ("apply 2/3 mm: x", "compile 2m10s of ~5m"), and the gate
 * a build passes before (busy 1) and after (0) compiling: the daemon waits there
 * until no measured run is in flight, and starts none until it is called with 0.
 * A gate that cannot be taken (-1, why in err) stops the build before its compile:
 * a compile beside a measured run would spoil that run. */
typedef void (*kbuild_tell_fn)(void *arg, const char *line);
typedef int (*kbuild_gate_fn)(void *arg, int busy, char *err);

struct kbuild_req {
	const char *arch;            /* "x86_64" or "aarch64" */
	const char *source;          /* a tree's resolved path, or "" */
	const char *source_package;  /* "linux-source-6.12", or "" */
	const char *base;            /* a git revision (git trees only), or "" for HEAD */
	const struct series *series; /* NULL or the whole series (its scope in the cache) ... */
	unsigned n_apply;            /* ... of which the first n_apply are applied, in order */
	const char *config;          /* defconfig, tinyconfig, allnoconfig, debian, or a path */
	const char *fragment;        /* the user's CONFIG_ lines (checked), '\n'-separated */
	const char *results;         /* builds go to RESULTS/cache/builds */
	const char *kconfig_dir;     /* the harness's required fragments: common.config, ARCH.config */
	int jobs;                    /* make -j; 0: the host's cores */
	uint64_t memory_mib;         /* the build jail's memory (its cgroup's); 0: half the host's RAM */
	kbuild_tell_fn tell;
	kbuild_gate_fn gate;
	void *arg;                   /* for tell and gate */
};

struct kbuild_result {
	char key[HASH_SHA256_HEX];          /* the build key: LOCALVERSION is -h<its first 8> */
	char dir[PATH_MAX];                 /* the cache entry: vmlinuz, config, build.log, info */
	struct kernel_files files;          /* vmlinuz, no modules, the release */
	char tree[KBUILD_TREE_MAX];         /* "git 1a2b3c4d5e6f", "+ uncommitted <hash>", ... */
	char image_sha256[HASH_SHA256_HEX];
	char config_sha256[HASH_SHA256_HEX];
	double build_s;                     /* the compile that made it, seconds */
	int cached;                         /* 1: nothing was compiled now */
};

/*
 * Build (or find built) the kernel req asks for. Nothing in the user's tree,
 * index or refs is written: a git tree is read through a cache repository
 * that borrows its objects; plain trees and packages are imported into one.
 * Returns 0 with out filled, or -1 with one line: what failed (the patch's
 * number and subject with its first rejected hunk, the first required config
 * symbol that did not survive, the last error lines of the build log, whose
 * path it names; the log is kept).
 */
int kbuild_build(const struct kbuild_req *req, struct kbuild_result *out, char *err);

/* 1 if s may be given as a base revision: [A-Za-z0-9._/~^@{}-], not starting with '-'. */
int kbuild_rev_ok(const char *s);

/* 1 if line is a config fragment line kconfig_line_check (kconfig.h) takes:
 * CONFIG_NAME=y|n|m|number|0xHEX|"text" with no host path, or "# CONFIG_NAME is not set". */
int kbuild_fragment_line_ok(const char *line);

/* 1 if s names a built-in base config: defconfig, tinyconfig, allnoconfig, debian. */
int kbuild_config_builtin(const char *s);

/*
 * 1 if a failed compile's log (NUL-terminated text) is the source's own
 * error, to be remembered for the same inputs as a patch that does not apply
 * is: a compiler's "FILE:LINE:COL: error:" about a file of the tree at src
 * (absolute, or relative to it) outside tools/ and scripts/, which build
 * against the host's libraries; and nothing of the host's in the log (an
 * internal compiler error, a killed compiler, a full disk, memory, a missing
 * header). 0 otherwise: the compile is tried again next time.
 */
int kbuild_compile_error_lasting(const char *log, const char *src);

#endif
