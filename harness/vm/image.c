/* image.c -- find and prepare what a guest boots from. Builds data disks with
 * mkfs.ext4 -d and overlays with qemu-img, both through argv, never a shell. */
#define _GNU_SOURCE             /* memmem */
#include "vm/image.h"
#include "base/err.h"
#include "base/hash.h"
#include "vm/fetch.h"
#include "base/proc.h"
#include "base/textline.h"
#include "common/fmt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Open a file a matrix named (file_exists when it was resolved) for reading,
 * into *ret_fd: without blocking, and only if it is still a regular file, so
 * one swapped for a FIFO since cannot hang the open. what: "kernel " or "".
 */
static int open_regular(const char *what, const char *path, int *ret_fd, char *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return errorf(err, "cannot open %s'%s': %s", what, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errorf(err, "cannot open %s'%s': not a regular file", what, path);
	*ret_fd = fd;
	fd = -1;        /* the caller's now */
	return 0;
}

/* The release in an x86 bzImage: its header points at the version string. */
static int bzimage_release(int fd, const char *path, const unsigned char *hdr, char *ver,
			   char *err)
{
	unsigned off = (unsigned)(hdr[0x20e] | hdr[0x20f] << 8) + 0x200;
	ssize_t n = pread(fd, ver, RELEASE_MAX - 1, off);

	if (n <= 0)
		return errorf(err, "'%s': cannot read its version string", path);
	ver[n] = '\0';
	return 0;
}

/*
 * The release in an arm64 Image (uncompressed, as Debian ships it): the
 * "Linux version X " banner, found by scanning the file. A gzip'd Image
 * (vmlinuz.gz, Image.gz) is refused: gunzip it first, or use its package.
 */
static int arm64_release(int fd, const char *path, char *ver, char *err)
{
	static const char banner[] = "Linux version ";
	const size_t blen = sizeof(banner) - 1;
	_cleanup_free_ char *buf = malloc(1 << 20);
	off_t off = 0;
	ssize_t n;
	char *p;

	if (!buf)
		return errorf(err, "out of memory");
	/* overlapping windows, so a banner across a boundary is still seen */
	while ((n = pread(fd, buf, 1 << 20, off)) > 0) {
		for (p = buf; (p = memmem(p, (size_t)n - (size_t)(p - buf), banner, blen));
		     p++) {
			size_t rest = (size_t)n - (size_t)(p - buf) - blen;
			if (rest < RELEASE_MAX && n == (1 << 20))
				break;   /* read it whole from the next window */
			rest = rest < RELEASE_MAX - 1 ? rest : RELEASE_MAX - 1;
			memcpy(ver, p + blen, rest);
			ver[rest] = '\0';
			/* the banner's own format string in .rodata has "%s", not a release */
			if (ver[0] != '%')
				return 0;
		}
		if (n < (1 << 20))
			break;
		off += (1 << 20) - 256;
	}
	return errorf(err, "'%s': no \"Linux version\" string in this arm64 Image", path);
}

int image_kernel_release(const char *path, const char *arch, char *buf, size_t len, char *err)
{
	_cleanup_close_ int fd = -1;
	unsigned char hdr[0x210];
	char ver[RELEASE_MAX];
	size_t i;
	int is_bz, is_arm64;

	if (open_regular("kernel ", path, &fd, err) < 0)
		return -1;
	/* a short file has neither magic */
	memset(hdr, 0, sizeof(hdr));
	if (pread(fd, hdr, sizeof(hdr), 0) < 0)
		return errorf(err, "cannot read kernel '%s': %s", path, strerror(errno));
	is_bz = !memcmp(hdr + 0x202, "HdrS", 4);
	is_arm64 = !memcmp(hdr + 0x38, "ARM\x64", 4);
	if (!strcmp(arch, "aarch64")) {
		if (hdr[0] == 0x1f && hdr[1] == 0x8b)
			return errorf(err, "'%s' is gzip-compressed: give the arm64 Image "
				      "uncompressed (gunzip it)", path);
		if (!is_arm64)
			return errorf(err, "'%s' is not an arm64 Image (no ARM\\x64 magic)", path);
		if (arm64_release(fd, path, ver, err) < 0)
			return -1;
	} else {
		if (!is_bz)
			return errorf(err, "'%s' is not an x86 bzImage (no HdrS header)", path);
		if (bzimage_release(fd, path, hdr, ver, err) < 0)
			return -1;
	}
	for (i = 0; ver[i] && ver[i] != ' '; i++)
		if (ver[i] < 0x21 || ver[i] > 0x7e)
			return errorf(err, "'%s': version string is not text", path);
	ver[i] = '\0';
	if (i == 0 || i >= len)
		return errorf(err, "'%s': empty or oversized version string", path);
	memcpy(buf, ver, i + 1);
	return 0;
}

/* DIR/release, written by images/build.sh beside the kernel it built. */
static int release_file(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	ssize_t n;
	size_t i;

	if (pathf(path, NULL, "%s/release", dir) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (i = 0; buf[i]; i++)
		if (buf[i] < 0x21 || buf[i] > 0x7e)
			return -1;
	return i ? 0 : -1;
}

static int file_exists_in(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return pathf(path, NULL, "%s/%s", dir, name) == 0 && file_exists(path);
}

/* 1 if real (a resolved path) lies below dir, once dir is resolved too. */
static int below(const char *real, const char *dir)
{
	char rdir[PATH_MAX];
	size_t n;

	if (!realpath(dir, rdir))
		return 0;
	n = strlen(rdir);
	if (n == 1)
		n = 0;   /* "/" */
	return !strncmp(real, rdir, n) && real[n] == '/';
}

/* 1 if real lies where roots let files named by path come from. */
static int allowed(const struct image_roots *r, const char *real)
{
	const char *p = r->kernel_dirs;
	char dir[PATH_MAX];
	size_t n;

	if (below(real, r->images))
		return 1;
	if (!p[0])
		return below(real, r->base_dir);
	for (; *p; p += n + (p[n] == ' ')) {
		n = strcspn(p, " ");
		if (n && n < sizeof(dir) && pathf(dir, NULL, "%.*s", (int)n, p) == 0 &&
		    below(real, dir))
			return 1;
	}
	return 0;
}

/* path refused: it (or what it resolves to, real, if known) is not in roots. */
static int outside(const struct image_roots *r, const char *path, const char *real, char *err)
{
	int shown = real[0] && strcmp(path, real);

	const char *key = r->dirs_name ? r->dirs_name : "kernel_dirs";

	return errorf(err, "%.150s%s%.150s%s is outside the directories %s may come from "
		      "(the images directory, %s%s in harness.conf)", path,
		      shown ? " (resolving to " : "", shown ? real : "", shown ? ")" : "",
		      r->dirs_name ? "sources and patches" : "kernels",
		      r->kernel_dirs[0] ? "" : "the matrix's directory, ", key);
}

/* A path that does not resolve, as it would be in its resolved directory; -1 if that
 * does not resolve either. */
static int resolve_parent(const char *path, char *real)
{
	char parent[PATH_MAX], rparent[PATH_MAX], *slash;

	if (fmtbuf(parent, sizeof(parent), "%s", path) < 0)
		return -1;
	slash = strrchr(parent, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (!realpath(parent[0] ? parent : "/", rparent))
		return -1;
	return pathf(real, NULL, "%s/%s", rparent, slash + 1);
}

/*
 * A file named by path (absolute, or from base_dir), resolved into real: it
 * must lie in roots, and be a regular file. A path that does not resolve is
 * "not found" only if its directory lies in roots, else it is outside too:
 * nothing is said about files elsewhere. what names the file in messages.
 */
static int named_file(const struct image_roots *r, const char *name, const char *what,
		      char *real, char *err)
{
	return image_confine(r, name, what, 0, real, err);
}

int image_confine(const struct image_roots *r, const char *name, const char *what,
		  int want_dir, char *real, char *err)
{
	struct stat st;
	char path[PATH_MAX];
	int found;

	if ((name[0] == '/' ? pathf(path, err, "%s", name) :
	     pathf(path, err, "%s/%s", r->base_dir, name)) < 0)
		return -1;
	found = realpath(path, real) != NULL;
	if (!found && resolve_parent(path, real) < 0)
		real[0] = '\0';
	if (!real[0] || !allowed(r, real))
		return outside(r, path, real, err);
	if (!found || stat(real, &st) < 0 ||
	    !((want_dir != 0 && S_ISDIR(st.st_mode)) || (want_dir != 1 && S_ISREG(st.st_mode))))
		return errorf(err, "%s '%s' not found%s", what, path,
			      found ? (want_dir ? " (not a directory)" : " (not a regular file)") : "");
	return 0;
}

int image_check_url(const struct image_roots *roots, const char *url, char *err)
{
	char real[PATH_MAX];

	if (strncasecmp(url, "file://", 7))
		return 0;
	/* what libcurl reads must be the path checked: no host, no escapes */
	if (url[7] != '/' || strpbrk(url + 7, "%?#"))
		return errorf(err, "%.200s: expected file:///PATH, without '%%', '?' or '#'", url);
	return named_file(roots, url + 7, "file", real, err);
}

int image_resolve_modules(const struct image_roots *roots, const char *modules,
			  struct kernel_files *out, char *err)
{
	char real[PATH_MAX];

	if (!modules || !modules[0])
		return 0;
	if (named_file(roots, modules, "modules cpio", real, err) < 0)
		return -1;
	memcpy(out->modules, real, sizeof(out->modules));
	return 0;
}

static int is_alias(const char *s)
{
	return s[0] && !strchr(s, '/');
}

int image_resolve_kernel(const struct image_roots *roots, const char *arch, const char *kernel,
			 struct kernel_files *out, char *err)
{
	char dir[PATH_MAX];
	int bare_file;

	memset(out, 0, sizeof(*out));
	if (!kernel[0] || !strcmp(kernel, ".") || !strcmp(kernel, ".."))
		return errorf(err, "'%s' is neither a kernel alias (a directory name under "
			      "%.200s/%s/kernel) nor a file", kernel, roots->images, arch);
	if (pathf(dir, err, "%s/%s/kernel/%s", roots->images, arch, kernel) < 0)
		return -1;
	/* a bare name is an alias, unless only a file beside the matrix has it */
	bare_file = is_alias(kernel) && !file_exists_in(dir, "vmlinuz") &&
		    file_exists_in(roots->base_dir, kernel);
	if (is_alias(kernel) && !bare_file) {
		if (pathf(out->kernel, err, "%s/vmlinuz", dir) < 0)
			return -1;
		if (!file_exists(out->kernel))
			return errorf(err, "kernel '%s' is not built: %s missing (run make images, "
				      "or name a kernel file by path)", kernel, out->kernel);
		if (pathf(out->modules, err, "%s/modules.cpio", dir) < 0)
			return -1;
		if (!file_exists(out->modules))
			out->modules[0] = '\0';
		/* build.sh wrote the release beside the kernel: no need to dig for it */
		if (release_file(dir, out->release, sizeof(out->release)) == 0)
			return 0;
	} else if (named_file(roots, kernel, "kernel file", out->kernel, err) < 0) {
		return -1;
	}
	return image_kernel_release(out->kernel, arch, out->release, sizeof(out->release), err);
}

int image_kernel_cache(const char *results, char *path, char *err)
{
	return pathf(path, err, "%s/" IMAGE_KERNEL_CACHE, results);
}

int image_package_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 2 || n >= IMAGE_PACKAGE_MAX || !strchr("abcdefghijklmnopqrstuvwxyz0123456789", s[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789.+-", s[i]))
			return 0;
	return 1;
}

int image_resolve_url(const char *cache, const char *arch, const char *url,
		      const char *sha256, struct kernel_files *out, char *err)
{
	char msg[ERR_MAX];

	memset(out, 0, sizeof(*out));
	if (fetch_url(url, sha256, cache, out->kernel, err) < 0)
		return -1;
	if (image_kernel_release(out->kernel, arch, out->release, sizeof(out->release), msg) < 0)
		return errorf(err, "%.200s: downloaded, but %s", url, msg);
	return 0;
}

/* dir holds a complete build of pkg: its "package" file (written last) names it. */
static int package_built(const char *dir, const char *pkg)
{
	char path[PATH_MAX], buf[IMAGE_PACKAGE_MAX + 2];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (pathf(path, NULL, "%s/package", dir) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, pkg) && file_exists_in(dir, "vmlinuz") &&
	       file_exists_in(dir, "modules.cpio");
}

int image_beside(const char *images, const char *name, char *path, char *err)
{
	char parent[PATH_MAX], *slash;

	/* taken apart as text: IMAGES need not exist yet */
	if (pathf(parent, err, "%s", images) < 0)
		return -1;
	while ((slash = strrchr(parent, '/')) && slash > parent && !slash[1])
		*slash = '\0';
	slash = strrchr(parent, '/');
	if (slash)
		slash[1] = '\0';
	else
		strcpy(parent, "./");
	return pathf(path, err, "%s%s", parent, name);
}

/*
 * A Debian kernel package made into a guest kernel in dir by images/build.sh
 * (downloaded, never installed); -1 with err carrying the log's last lines,
 * as an API client cannot read the log.
 */
static int build_package(const char *images, const char *arch, const char *pkg,
			 const char *dir, const char *log, char *err)
{
	char script[PATH_MAX];
	int status;

	if (image_beside(images, "build.sh", script, err) < 0)
		return -1;
	if (access(script, X_OK) < 0)
		return errorf(err, "package '%s' needs images/build.sh, not found at '%s'", pkg,
			      script);
	char *argv[] = { script, "kernel-package", (char *)arch, (char *)pkg, (char *)dir, NULL };
	unlink(log);
	if (proc_run(argv, log, IMAGE_PACKAGE_TIMEOUT_MS, &status, err) < 0)
		return -1;
	if (status != 0) {
		char said[300];

		/* its last lines travel with the message: an API client cannot read the log */
		text_tail(log, 0, 3, said, sizeof(said));
		return errorf(err, "package '%s': images/build.sh kernel-package %s (exit %d): %s "
			      "(log: %s)", pkg, status < 0 ? "timed out or was killed" : "failed",
			      status, said[0] ? said : "it printed nothing", log);
	}
	if (!package_built(dir, pkg))
		return errorf(err, "package '%s': images/build.sh left no complete kernel in %s; "
			      "see %s", pkg, dir, log);
	return 0;
}

int image_resolve_package(const char *images, const char *arch, const char *cache,
			  const char *pkg, struct kernel_files *out, char *err)
{
	char top[PATH_MAX], dir[PATH_MAX], log[PATH_MAX];

	memset(out, 0, sizeof(*out));
	if (!image_package_ok(pkg))
		return errorf(err, "'%.128s' is not a Debian package name", pkg);
	if (pathf(top, err, "%s/pkg", cache) < 0 || pathf(dir, err, "%s/%s", top, pkg) < 0 ||
	    pathf(log, err, "%s/%s.log", top, pkg) < 0)
		return -1;
	if (!package_built(dir, pkg) &&
	    (mkdir_p(top, err) < 0 || build_package(images, arch, pkg, dir, log, err) < 0))
		return -1;
	if (pathf(out->kernel, err, "%s/vmlinuz", dir) < 0 ||
	    pathf(out->modules, err, "%s/modules.cpio", dir) < 0)
		return -1;
	return image_kernel_release(out->kernel, arch, out->release, sizeof(out->release), err);
}

int image_base(const char *images, const char *arch, char *path, char *err)
{
	if (pathf(path, err, "%s/%s/base.cpio", images, arch) < 0)
		return -1;
	if (!file_exists(path))
		return errorf(err, "base initramfs %s missing (run make images)", path);
	return 0;
}

/* src's bytes appended to the open file out; -1 with err. */
static int copy_into(int out, const char *src, char *err)
{
	_cleanup_close_ int in = -1;
	char buf[1 << 16];
	ssize_t n;

	if (open_regular("", src, &in, err) < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return errorf(err, "cannot write initrd: %s", strerror(errno));
	if (n < 0)
		return errorf(err, "cannot read '%s': %s", src, strerror(errno));
	return 0;
}

int image_initrd(const char *base, const char *modules, const char *dst, char *err)
{
	_cleanup_close_ int out = -1;

	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (out < 0)
		return errorf(err, "cannot create '%s': %s", dst, strerror(errno));
	if (copy_into(out, base, err) < 0)
		return -1;
	if (modules[0] && copy_into(out, modules, err) < 0)
		return -1;
	return 0;
}

static int file_id(const char *path, char *out, size_t len, char *err)
{
	if (file_identity(path, out, len) < 0)
		return errorf(err, "'%s': %s", path, strerror(errno));
	return 0;
}

int image_initrd_cached(const char *cache, const char *base, const char *modules, char *path,
			char *err)
{
	char id[2][128] = { "", "" }, text[PATH_MAX * 2 + 300], key[HASH_FNV1A_HEX];
	char tmp[PATH_MAX];
	_cleanup_close_ int fd = -1;

	if (file_id(base, id[0], sizeof(id[0]), err) < 0 ||
	    (modules[0] && file_id(modules, id[1], sizeof(id[1]), err) < 0))
		return -1;
	if (fmtbuf(text, sizeof(text), "%s|%s|%s|%s", base, id[0], modules, id[1]) < 0)
		return errorf(err, "initrd cache key of %.64s... over %zu bytes", base,
			      sizeof(text) - 1);
	hash_fnv1a_hex(text, key);
	if (pathf(path, err, "%s/initrd-%s.img", cache, key) < 0)
		return -1;
	if (access(path, R_OK) == 0)
		return 0;
	if (pathf(tmp, err, "%s/initrd-%s.XXXXXX", cache, key) < 0 || mkdir_p(cache, err) < 0)
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return errorf(err, "cannot create '%s': %s", tmp, strerror(errno));
	if (image_initrd(base, modules, tmp, err) < 0)
		goto fail;
	/* mkstemp's 0600: QEMU runs as the harness's user (root or not), and the
	 * results directory is no one else's */
	if (rename(tmp, path) < 0) {
		errorf(err, "cannot keep '%s': %s", path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	return -1;
}

uint64_t image_db_bytes(const struct proto_db *d)
{
	/* a field: two 4-byte lengths, "fieldN", the value; a key: "user" + 19 digits;
	 * LevelDB: an 8-byte sequence, varints and block trailers, about 5 % */
	uint64_t rec = 0, f;

	for (f = 0; f < d->fieldcount; f++)
		rec += 8 + 5 + (f < 10 ? 1 : f < 100 ? 2 : f < 1000 ? 3 : 4) + d->fieldlength;
	return (rec + 23 + 16) * d->recordcount / 20 * 21;
}

uint64_t image_need_bytes(const struct proto_job *job)
{
	uint64_t mib = 0;
	unsigned i;

	for (i = 0; i < job->nfiles; i++)
		mib += job->files[i].mib;
	/* a database's runs write too: logs, new tables, a level compacted beside itself */
	for (i = 0; i < job->ndbs; i++)
		mib += (image_db_bytes(&job->dbs[i]) * 5 / 4 >> 20) + 16;
	/* a swap file the guest makes on it (fallocated: its own blocks) */
	if (proto_swap_kind_flags[job->swap.kind] & SWK_FILE)
		mib += job->swap.mib;
	/* ext4 metadata and journal, with room to spare */
	return (mib + mib / 8 + 32) << 20;
}

uint64_t image_disk_bytes(const struct proto_job *job)
{
	return job->disk_mib ? job->disk_mib << 20 : image_need_bytes(job);
}

#define DATA_CHUNK_WORDS (1 << 17)   /* 1 MiB of uint64_t */

/* Deterministic content: incompressible pseudo-random bytes, or zeros. */
static int write_data_file(const char *path, const struct proto_file *f, char *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ uint64_t *buf = malloc(DATA_CHUNK_WORDS * sizeof(*buf));
	uint64_t x = hash_fnv1a(HASH_FNV1A_INIT, f->name, strlen(f->name)) ^ f->mib, i, m;
	const ssize_t len = DATA_CHUNK_WORDS * sizeof(*buf);

	if (!buf)
		return errorf(err, "out of memory");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return errorf(err, "cannot create '%s': %s", path, strerror(errno));
	x |= 1;
	for (m = 0; m < f->mib; m++) {
		for (i = 0; i < DATA_CHUNK_WORDS; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = f->content == CONTENT_ZERO ? 0 : x;
		}
		if (write(fd, buf, len) != len)
			return errorf(err, "cannot write '%s': %s", path, strerror(errno));
	}
	return 0;
}

/* The job's declared files, filled as they declare, into the stage directory. */
static int write_files(const char *stage, const struct proto_job *job, char *err)
{
	char path[PATH_MAX];
	unsigned i;

	for (i = 0; i < job->nfiles; i++)
		if (pathf(path, err, "%s/%s", stage, job->files[i].name) < 0 ||
		    write_data_file(path, &job->files[i], err) < 0)
			return -1;
	return 0;
}

/* ycsb-load, built beside the harness (harness/build/ycsb-load). */
static int loader_path(char *path, char *err)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return errorf(err, "cannot find the running program: %s", strerror(errno));
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	if (pathf(path, err, "%s/ycsb-load", self) < 0)
		return -1;
	if (access(path, X_OK) < 0)
		return errorf(err, "databases need the loader %s (run make build)", path);
	return 0;
}

/* YCSB's load phase for each database, into stage/<name>; its output in log. */
static int load_dbs(const char *stage, const struct proto_job *job, const char *log, char *err)
{
	char loader[PATH_MAX], dir[PATH_MAX], n[24], fc[24], fl[24];
	const struct proto_db *d;
	unsigned i;
	int status;

	if (job->ndbs && loader_path(loader, err) < 0)
		return -1;
	for (i = 0; i < job->ndbs; i++) {
		d = &job->dbs[i];
		/* 20 digits at most: they fit */
		if (fmtbuf(n, sizeof(n), "%llu", (unsigned long long)d->recordcount) < 0 ||
		    fmtbuf(fc, sizeof(fc), "%llu", (unsigned long long)d->fieldcount) < 0 ||
		    fmtbuf(fl, sizeof(fl), "%llu", (unsigned long long)d->fieldlength) < 0)
			return errorf(err, "database '%s': a count over %zu digits", d->name,
				      sizeof(n) - 1);
		if (pathf(dir, err, "%s/%s", stage, d->name) < 0)
			return -1;
		char *argv[] = { loader, dir, n, fc, fl,
				 d->insertorder == YORDER_ORDERED ? "ordered" : "hashed", NULL };
		if (proc_run(argv, log, 24 * 3600 * 1000, &status, err) < 0)
			return -1;
		if (status != 0)
			return errorf(err, "loading database '%s' (%s records) failed (exit %d); see %s",
				      d->name, n, status, log);
	}
	return 0;
}

/* Remove a staged tree: the files, and each database's directory of tables. */
static void remove_tree(const char *path)
{
	char child[PATH_MAX];
	struct dirent *de;
	DIR *dir = opendir(path);

	if (!dir) {
		unlink(path);
		return;
	}
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    pathf(child, NULL, "%s/%s", path, de->d_name) == 0)
			remove_tree(child);
	closedir(dir);
	rmdir(path);
}

static void remove_files(const char *stage, const struct proto_job *job)
{
	(void)job;
	remove_tree(stage);
}

/*
 * What the data disk holds, hashed: its files, its databases, its size and
 * the room a swap file takes;
 * the cached disk's name.
 */
static uint64_t files_hash(const struct proto_job *job)
{
	uint64_t h = HASH_FNV1A_INIT;
	unsigned i;

	for (i = 0; i < job->nfiles; i++) {
		h = hash_fnv1a(h, job->files[i].name, strlen(job->files[i].name) + 1);
		h = hash_fnv1a(h, &job->files[i].mib, sizeof(job->files[i].mib));
		h = hash_fnv1a(h, &job->files[i].content, sizeof(job->files[i].content));
	}
	/* a job without databases keeps the hash (and the cached disk) it had */
	for (i = 0; i < job->ndbs; i++) {
		h = hash_fnv1a(h, "db", 3);
		h = hash_fnv1a(h, job->dbs[i].name, strlen(job->dbs[i].name) + 1);
		h = hash_fnv1a(h, &job->dbs[i].recordcount, sizeof(job->dbs[i].recordcount));
		h = hash_fnv1a(h, &job->dbs[i].fieldcount, sizeof(job->dbs[i].fieldcount));
		h = hash_fnv1a(h, &job->dbs[i].fieldlength, sizeof(job->dbs[i].fieldlength));
		h = hash_fnv1a(h, &job->dbs[i].insertorder, sizeof(job->dbs[i].insertorder));
	}
	if (job->disk_mib)
		h = hash_fnv1a(h, &job->disk_mib, sizeof(job->disk_mib));
	/* room for a swap file (a job without one keeps its hash) */
	if (proto_swap_kind_flags[job->swap.kind] & SWK_FILE) {
		h = hash_fnv1a(h, "swap", 5);
		h = hash_fnv1a(h, &job->swap.mib, sizeof(job->swap.mib));
	}
	return h;
}

/*
 * The job's data disk in the cache (disk-HASH.img), built when missing: its
 * files and databases staged, then an ext4 image made from them by
 * mkfs.ext4 -d into a temporary name and renamed into place.
 */
static int build_data_disk(const char *cache_dir, const struct proto_job *job, char *path,
			   char *err)
{
	char stage[PATH_MAX], tmp[PATH_MAX], size[32], log[PATH_MAX];
	unsigned long long h = (unsigned long long)files_hash(job);
	int status, ret = -1;

	if (pathf(path, err, "%s/disk-%016llx.img", cache_dir, h) < 0)
		return -1;
	if (file_exists(path))
		return 0;
	if (pathf(stage, err, "%s/disk-%016llx.d", cache_dir, h) < 0 ||
	    pathf(tmp, err, "%s.tmp", path) < 0 || pathf(log, err, "%s/mkfs.log", cache_dir) < 0)
		return -1;
	if (fmtbuf(size, sizeof(size), "%lluk",
		   (unsigned long long)(image_disk_bytes(job) >> 10)) < 0)
		return errorf(err, "data disk size over %zu bytes", sizeof(size) - 1);
	remove_tree(stage);     /* what an interrupted build left */
	if (mkdir_p(stage, err) < 0 || write_files(stage, job, err) < 0 ||
	    load_dbs(stage, job, log, err) < 0)
		goto out;
	char *argv[] = { "mkfs.ext4", "-q", "-F", "-m", "0", "-L", "harness-data",
			 "-E", "lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0",
			 "-d", stage, tmp, size, NULL };
	unlink(tmp);
	if (proc_run(argv, log, 1800000, &status, err) < 0)
		goto out;
	if (status != 0) {
		errorf(err, "mkfs.ext4 failed (exit %d) building %s; see %s", status, tmp, log);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		errorf(err, "cannot rename '%s': %s", tmp, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	remove_files(stage, job);
	return ret;
}

/*
 * Two scheduler slots often need the same disk at once (the arms of one cell):
 * one builds it, the other waits on its lock file and then finds it, rather
 * than both staging the same files in one directory. flock() on separately
 * opened descriptors excludes threads as well as processes.
 */
int image_data_disk(const char *cache_dir, const struct proto_job *job, char *path, char *err)
{
	char lock[PATH_MAX];
	_cleanup_close_ int fd = -1;

	if (mkdir_p(cache_dir, err) < 0 ||
	    pathf(lock, err, "%s/disk-%016llx.lock", cache_dir,
		  (unsigned long long)files_hash(job)) < 0)
		return -1;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errorf(err, "cannot create '%s': %s", lock, strerror(errno));
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return errorf(err, "cannot lock '%s': %s", lock, strerror(errno));
	return build_data_disk(cache_dir, job, path, err);
}

int image_overlay(const char *disk, const char *fmt, const char *overlay, char *err)
{
	char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", (char *)fmt,
			 "-b", (char *)disk, (char *)overlay, NULL };
	int status;

	unlink(overlay);
	if (proc_run(argv, NULL, 60000, &status, err) < 0)
		return -1;
	if (status != 0)
		return errorf(err, "qemu-img create of overlay '%s' failed (exit %d)", overlay, status);
	return 0;
}
