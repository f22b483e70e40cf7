/* image.h -- the files a guest boots from: kernel arms (built by `make images`
 * or given as paths), the combined initramfs, data disks and per-run overlays. */
#ifndef IMAGE_H
#define IMAGE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"

#define RELEASE_MAX 128
#define IMAGE_PACKAGE_MAX 128   /* a Debian package name, with its NUL */

struct kernel_files {
	char kernel[PATH_MAX];
	char modules[PATH_MAX];      /* cpio of modules to append, "" for none */
	char release[RELEASE_MAX];   /* uname -r the kernel will report */
};

/*
 * Where the files an arm names by path may come from: below the images
 * directory, below a kernel_dirs entry (space-separated), or, only when
 * kernel_dirs is "", below base_dir, the matrix's directory (where relative
 * paths start). Checked after realpath(): symlinks and ".." cannot leave them.
 */
struct image_roots {
	const char *images;
	const char *kernel_dirs;
	const char *base_dir;
	const char *dirs_name;   /* the conf key of kernel_dirs, for messages; NULL: "kernel_dirs" */
};

/*
 * A file (want_dir 0), a directory (1) or either (2) a matrix names, absolute or from
 * base_dir, resolved into real (PATH_MAX): it must lie in roots and exist.
 * what names it in messages ("source tree"). Nothing is said about paths
 * outside roots beyond that they are outside.
 */
int image_confine(const struct image_roots *roots, const char *name, const char *what,
		  int want_dir, char *real, char *err);

/*
 * Resolve an arm's "kernel": an alias from images/kernels.conf (looked up in
 * IMAGES/ARCH/kernel/ALIAS/, its release read from the "release" file there;
 * "." and ".." are refused) or a path to a kernel image for ARCH, which must
 * lie in roots; out->kernel gets its resolved path.
 */
int image_resolve_kernel(const struct image_roots *roots, const char *arch, const char *kernel,
			 struct kernel_files *out, char *err);

/*
 * A file:// URL (url or modules_url) is a path by another name: it must be
 * file:///PATH, PATH confined to roots as above. Other URLs pass.
 */
int image_check_url(const struct image_roots *roots, const char *url, char *err);

/*
 * An arm's own modules cpio (a path, as for a kernel, confined to roots)
 * instead of the one image_resolve_kernel() found; "" keeps that one.
 */
int image_resolve_modules(const struct image_roots *roots, const char *modules,
			  struct kernel_files *out, char *err);

/*
 * Kernels a matrix names by "url" or "package" are cached under the results
 * directory, in CACHE = RESULTS/cache/kernels:
 *   CACHE/sha256/<hex>          a download, named by its verified SHA-256
 *   CACHE/tmp/<random>.part     a download in progress, never used as is
 *   CACHE/pkg/<PKG>/            vmlinuz, modules.cpio, release, version, package
 *   CACHE/pkg/<PKG>.log         the output of the images/build.sh that made it
 */
#define IMAGE_KERNEL_CACHE "cache/kernels"
#define IMAGE_PACKAGE_TIMEOUT_MS (30 * 60 * 1000)   /* apt-get download and unpack */

/* RESULTS/cache/kernels into path (PATH_MAX bytes). */
int image_kernel_cache(const char *results, char *path, char *err);

/* 1 if s is a Debian package name: [a-z0-9][a-z0-9.+-]+ (policy 5.6.1), shorter than
 * IMAGE_PACKAGE_MAX. */
int image_package_ok(const char *s);

/*
 * A kernel image downloaded from url (checked against sha256) into the cache
 * with fetch_url(); modules are left "" for the caller. The message of a
 * failed download names the URL and, for a mismatch, both hashes.
 */
int image_resolve_url(const char *cache, const char *arch, const char *url,
		      const char *sha256, struct kernel_files *out, char *err);

/* IMAGES/../NAME into path: the images folder's own files (build.sh, kconfig/). */
int image_beside(const char *images, const char *name, char *path, char *err);

/*
 * The Debian kernel package pkg, built once into CACHE/pkg/PKG/ by running
 * `build.sh kernel-package ARCH PKG DIR` (the build.sh beside the images
 * directory, IMAGES/../build.sh) and reused while its "package" file names it.
 */
int image_resolve_package(const char *images, const char *arch, const char *cache,
			  const char *pkg, struct kernel_files *out, char *err);

/*
 * The release (uname -r) of a kernel image for arch: from an x86_64 bzImage's
 * header, or from the "Linux version X" banner of an uncompressed arm64 Image
 * (a gzip'd one is refused). An image of the other architecture is refused.
 */
int image_kernel_release(const char *path, const char *arch, char *buf, size_t len, char *err);

/* IMAGES/ARCH/base.cpio, which must exist. */
int image_base(const char *images, const char *arch, char *path, char *err);

/* Write base followed by modules (may be "") to dst: one initrd for libvirt. */
int image_initrd(const char *base, const char *modules, const char *dst, char *err);

/*
 * The same, once per base and modules file: CACHE/initrd-KEY.img (KEY from
 * both files' identity: device, inode, size, mtime), written beside and
 * renamed into place the first time, then shared read-only by every run of
 * the arm. path gets its name (PATH_MAX).
 */
int image_initrd_cached(const char *cache, const char *base, const char *modules, char *path,
			char *err);

/*
 * Bytes of the ext4 data disk that holds a job's files and databases: its
 * disk_mib if given, else what they need (image_need_bytes()).
 */
uint64_t image_disk_bytes(const struct proto_job *job);
/* What the files and the databases (with room to grow and compact) need. */
uint64_t image_need_bytes(const struct proto_job *job);
/* A loaded database's estimated size on disk (records, keys, LevelDB's framing). */
uint64_t image_db_bytes(const struct proto_db *d);

/*
 * The ext4 data disk holding the job's declared files (pseudo-random bytes,
 * the same on every host, or zeros), built once with mkfs.ext4 -d (no mount)
 * under cache_dir, named by a hash of the file list, and reused. Each declared
 * database is loaded into it first by ycsb-load (beside the running program).
 */
int image_data_disk(const char *cache_dir, const struct proto_job *job, char *path, char *err);

/*
 * A fresh qcow2 overlay backed by disk (fmt: "raw", the data disk, or
 * "qcow2", a saved guest's disk), so no run sees another's writes.
 */
int image_overlay(const char *disk, const char *fmt, const char *overlay, char *err);

#endif
