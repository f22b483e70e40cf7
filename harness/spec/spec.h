/* spec.h -- a matrix file (JSON) parsed and validated into arms, workload
 * cells and repetitions, then resolved against the real kernels and tools;
 * every error names the file, the field and the fix.
 *
 * Folder spec/: what a user asks for: matrices (spec.c parses them,
 * resolve.c makes their kernels ready, source.c resolves a source arm's
 * tree with git confined by gitconfine.c), presets (preset.c), the ABBA
 * order (abba.c), a cell's fio options checked by fio in the sandbox
 * (fiocheck.c). The machine's settings are conf/'s.
 * It may call: base/ common/ conf/ vm/ kbuild/.
 */
#ifndef SPEC_H
#define SPEC_H

#include <limits.h>
#include <stdint.h>

#include "base/err.h"
#include "conf/conf.h"
#include "kbuild/kbuild.h"
#include "vm/fetch.h"
#include "vm/image.h"
#include "common/proto.h"
#include "base/hash.h"

#define SPEC_NAME_MAX  33
#define SPEC_MAX_ARMS  16
#define SPEC_MAX_CELLS 64
#define SPEC_MAX_REPS  1000
#define SPEC_FILE_MAX  (1 << 20)   /* a matrix file larger than this is refused */
#define GUEST_RESERVE_MIB 96       /* guest kernel + agent outside the memcg */
#define SPEC_MAX_ARCHS 2           /* x86_64, aarch64 */
#define SPEC_ARCH_MAX  16
#define SPEC_TAG_MAX   64          /* an arm's tag, with its NUL */
/* The multi-size THP sizes an arm may set, KiB: twice a 4 KiB page to the PMD's 2 MiB */
#define SPEC_MTHP_MIN_KIB 8
#define SPEC_MTHP_MAX_KIB 2048

/*
 * Where the kernel comes from: exactly one of kernel, package, url, source and
 * source_package is set.
 * "kernel" is one alias (resolved per architecture), one path (one
 * architecture only) or an object {ARCH: alias or path} naming one per
 * architecture; package and url arms fit a matrix of one architecture.
 */
struct arm {
	char name[SPEC_NAME_MAX];
	char kernel[PATH_MAX];      /* as written: alias or path, the object as JSON, or "" */
	char kernels[SPEC_MAX_ARCHS][PATH_MAX];  /* alias or path per matrix arch, or "" */
	char modules[PATH_MAX];     /* as written, may be empty (only with kernel) */
	char package[IMAGE_PACKAGE_MAX];  /* a Debian kernel package, built by images/build.sh */
	char url[FETCH_URL_MAX];    /* a kernel image to download ... */
	char sha256[HASH_SHA256_HEX];    /* ... whose SHA-256 must be this (lowercase hex) */
	char modules_url[FETCH_URL_MAX];     /* optional modules cpio to download, with url */
	char modules_sha256[HASH_SHA256_HEX];
	char lru_gen[8];            /* "y", "n" or "" (kernel default) */
	char thp_enabled[16];       /* transparent_hugepage/enabled: always, madvise, never, "" */
	char thp_defrag[16];        /* .../defrag: always, defer, defer+madvise, madvise, never, "" */
	/* multi-size THP's per-size enabled to write, "64K:always 2048K:inherit"
	 * (common/mthp.h), sizes from SPEC_MTHP_MIN_KIB to _MAX_KIB; "" none */
	char mthp[MTHP_TEXT_MAX];
	char cmdline[256];          /* extra boot options */
	char tag[SPEC_TAG_MAX];     /* "" or the user's label, "mglru-rotate/v3": compare --tags */
	/* built from source (kbuild.h): a tree or a linux-source package, and what goes on it */
	char source[PATH_MAX];            /* as written */
	char source_package[IMAGE_PACKAGE_MAX];
	char base[KBUILD_REV_MAX];
	char patches[PATH_MAX];           /* an mbox, a directory or a quilt series, as written */
	uint64_t apply;                   /* with apply_set: only the series' first apply patches */
	int apply_set;                    /* (a prefix of it: what harness bisect builds) */
	char config[KBUILD_CONFIG_MAX];   /* defconfig (the default), tinyconfig, ..., or a path */
	char fragment[KBUILD_FRAGMENT_MAX];  /* config_fragment's lines, '\n'-joined */
	struct kernel_files files[SPEC_MAX_ARCHS];  /* resolved, per matrix arch (m->archs) */
	/* after spec_resolve, source arms only: what was built, as JSON (an array, one
	 * object per arch: key, tree, base, patches [{subject, msgid}], config,
	 * config_sha256, image_sha256, build_s, dir); given before spec_resolve, the
	 * builds are taken from it instead (a queued matrix keeps its kernels) */
	char *build_json;
	char failed[ERR_MAX];       /* after spec_resolve: why this arm cannot run, "" if it can */
};

/* 1 if the arm's kernel is built from source. */
static inline int spec_arm_built(const struct arm *a)
{
	return a->source[0] || a->source_package[0];
}

#define CELL_NAME_MAX 64

/*
 * One workload cell: a job (files, streams) after presets, params and scale,
 * on one architecture. Every workload expands to a cell per matrix arch; an
 * aarch64 cell's name ends in "@aarch64" (x86_64 keeps the bare name), so
 * tables and comparisons, which go by cell, never mix architectures.
 */
struct cell {
	char name[CELL_NAME_MAX];
	char arch[SPEC_ARCH_MAX];    /* "x86_64" or "aarch64" */
	unsigned arch_idx;           /* into m->archs and arm.files */
	unsigned workload;           /* the "workloads" entry it came from: errors name it */
	char preset[SPEC_NAME_MAX];  /* "" if none */
	char params[256];            /* the expanded params, "theta=1.1 memcg_mib=160" */
	char *table;                 /* the preset's "table" (report layout), JSON or NULL */
	struct proto_job job;
};

struct matrix {
	char path[PATH_MAX];        /* the file, or the label errors name */
	char base_dir[PATH_MAX];    /* where relative paths in it start */
	char name[SPEC_NAME_MAX];
	char archs[SPEC_MAX_ARCHS][SPEC_ARCH_MAX];  /* "arch": default { "x86_64" } */
	unsigned n_archs;
	uint64_t memory_mib, vcpus;
	char start[8];              /* "boot" or "restore": how each run's guest starts */
	uint64_t reps;
	unsigned n_arms, n_cells;
	struct arm arms[SPEC_MAX_ARMS];
	struct cell cells[SPEC_MAX_CELLS];
	char *canonical;            /* the spec as stored: sorted, compact JSON */
	char hash[17];              /* FNV-1a 64 of canonical without "reps", hex */
	int unresolved;             /* parsed, not resolved: arms' files empty (spec_resolve);
				     * the store queues such a matrix as "resolving" */
};

/*
 * A matrix is read in two steps, so that checking one never has to wait:
 *
 * spec_parse: the JSON, every key table, presets (read from conf->presets,
 * the one file access parsing needs), arm and job arrays, and every check
 * between fields, against conf's defaults. Nothing else is touched: no
 * kernel is looked for, nothing downloaded or built, no child process run;
 * no statics, so any thread may call it. m->unresolved is then 1 and the
 * arms' files are empty. Returns 0, or -1 with "LABEL: field: message"
 * (m released). label names the matrix in errors (its file); relative paths
 * in it start at base_dir.
 */
int spec_parse(struct matrix *m, const char *text, const char *label, const char *base_dir,
	       const struct conf *conf, char *err);

/* The same from a file (at most SPEC_FILE_MAX bytes); base_dir is its directory. */
int spec_parse_file(struct matrix *m, const char *path, const struct conf *conf, char *err);

/* A step of spec_resolve that may take a while, one line: "arms[1].url: fetching ...". */
typedef void (*spec_progress_fn)(void *arg, const char *line);

/*
 * spec_resolve: a parsed matrix checked against the real files and made
 * ready to boot. Kernels and modules named by path are found (confined to
 * the directories kernels may come from, image.h), aliases looked up in
 * the images directory, "url" arms downloaded and checked against their
 * sha256, "package" arms built once (up to 30 minutes), both into caches
 * under conf->results; each cell's data disk must fit the free space there,
 * and fio streams pass the host's fio --parse-only. progress (may be NULL)
 * hears of downloads and builds before they start. Returns 0 (m->unresolved
 * 0, the arms' files filled), or -1 with "LABEL: field: message"; m stays
 * parsed either way (spec_release it).
 */
int spec_resolve(struct matrix *m, const struct conf *conf, spec_progress_fn progress, void *arg,
		 char *err);

/*
 * spec_resolve, for source arms: gate (may be NULL) is called around every
 * compile (kbuild.h), so a daemon can keep builds and measured runs apart.
 * An arm whose build fails (a patch that does not apply, a config symbol
 * lost, a compile error) does not fail the matrix: its "failed" says why
 * and the other arms go on; if every arm fails, spec_resolve fails with the
 * first reason.
 */
int spec_resolve_gated(struct matrix *m, const struct conf *conf, spec_progress_fn progress,
		       kbuild_gate_fn gate, void *arg, char *err);

/* spec_parse_file, then spec_resolve without progress; m released on failure. */
int spec_load(struct matrix *m, const char *path, const struct conf *conf, char *err);

/* spec_parse, then spec_resolve without progress; m released on failure. */
int spec_load_text(struct matrix *m, const char *text, const char *label, const char *base_dir,
		   const struct conf *conf, char *err);

/* Free what parsing allocated (twice, or NULL, is harmless). */
void spec_release(struct matrix *m);

/* The kernel files arm a boots in cell c (on c's architecture). */
static inline const struct kernel_files *spec_files(const struct arm *a, const struct cell *c)
{
	return &a->files[c->arch_idx];
}

/*
 * A matrix's "arms" array with each arm whose lru_gen, cmdline, patches,
 * base, config or source is an array made one arm per value (cartesian),
 * named after the value: the arms spec_parse sees. A new reference, NULL
 * out of memory.
 */
struct json_t;
struct json_t *spec_expand_arms(struct json_t *arms);

/* Index of arch in m->archs, or -1 if the matrix does not run on it. */
int spec_arch_index(const struct matrix *m, const char *arch);

/* The cell-name suffix that keeps arch's cells apart: "" for x86_64, "@aarch64". */
const char *spec_arch_suffix(const char *arch);

/*
 * 1 if s can name a matrix in a command or a request path: its id, or its name
 * (1 to SPEC_KEY_MAX letters, digits, '.', '_' or '-').
 */
#define SPEC_KEY_MAX 64
int spec_key_ok(const char *s);

/* Number of runs the matrix expands to. */
unsigned spec_run_count(const struct matrix *m);

#endif
