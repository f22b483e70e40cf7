/* kbuild.c -- a kernel built from a tree, a base, patches and a config: the
 * tree read through a cache repository, the build out of tree through ccache,
 * the result cached by a key of the source content, .config, compiler and arch.
 *
 * Every step that runs the tree's code (make's config targets, merge_config.sh,
 * olddefconfig, the compile) runs in a jail (base/sandbox.c sandbox_exec):
 * the toolchain, the source read-only, its object directory and ccache
 * writable, nothing else of the host, no network, uid 65534. Git runs
 * outside it, with the user's hooks, filters and external diffs turned off.
 *
 * RESULTS/cache/builds/
 *   trees/<T>/src/         the cache repository's work tree (T: the tree's path
 *                          hashed, or the package name); a git tree's objects
 *                          are borrowed (objects/info/alternates), never written
 *   trees/<T>/in/          what the harness gives the jail: base config, fragment
 *   trees/<T>/obj-<ARCH>/  the O= directory of the tree's own builds (no patch),
 *                          kept: the next build is incremental
 *   trees/<T>/obj-<ARCH>-s<S>/  a series' (S: its scope, the base and every
 *                          patch of the series hashed), first copied from the one above
 *   trees/<T>/config-...   builtin configs made before, a series' with its -s<S>
 *   inputs/<I>             what a request's inputs built to: "key K" or "failed ..."
 *   <K>/                   vmlinuz, config, build.log, patches, info (written last,
 *                          its scope in it: "base" or the series' s<S>)
 *   logs/<I>.log           the log of a build that failed
 *   ccache/                CCACHE_DIR: written by the tree's own builds, read-only to a series'
 *
 * What a series' build ran (its Makefiles, its scripts) can reach only what
 * its own scope keeps: its object directory, its configs, its entries; the
 * tree's own builds and other series never take them. An object directory
 * holding a file dated after the build's start is made anew.
 */
#define _GNU_SOURCE             /* nftw's FTW_PHYS, O_PATH */
#include "kbuild/kbuild.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/sandbox.h"
#include "base/textline.h"
#include "kbuild/kconfig.h"
#include "common/fmt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GIT_MS      (10 * 60 * 1000)   /* a checkout or an import of a whole tree */
#define SHORT_MS    (60 * 1000)
#define TICK_MS     10000
#define ARGS_MAX    32
#define TREE_LS_MAX (16 << 20)   /* git ls-tree of a tree's top: a patch may add any number */
#define SAID_MAX    300          /* a failed tool's last lines in its message */

/* One kbuild_build call. */
struct build {
	const struct kbuild_req *req;
	struct kbuild_result *out;
	char top[PATH_MAX];              /* RESULTS/cache/builds */
	char tdir[PATH_MAX], src[PATH_MAX], obj[PATH_MAX];
	char in[PATH_MAX];               /* the jail's inputs, read-only in it */
	char ccache[PATH_MAX];
	char log[PATH_MAX];              /* this build's log until it has an entry */
	char cc[128];                    /* "gcc" or "aarch64-linux-gnu-gcc" */
	char cc_version[256];
	char commit[64];                 /* what src is checked out at */
	char content[64];                /* a plain tree's git tree id (commits carry a date) */
	char dirty[HASH_SHA256_HEX];     /* a git tree's uncommitted diff, hashed, or "" */
	char inputs[HASH_SHA256_HEX];
	char scope[24];                  /* "base" (no patch applied) or "s" and 16 hex of the series */
	time_t start;                    /* objects dated after it are not trusted */
	const char *phase;
	int64_t phase_start, compile_est_s;
	int lasting;                     /* the failure is the inputs' own: kept in inputs/<I> */
};

static void tell(const struct build *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void compile_tick(void *arg);
static void series_scope(struct build *b);
static int scope_obj(struct build *b, char *err);
static int base_first(struct build *b, char *err);
static int info_value(const char *text, const char *name, char *out, size_t size);

static void tell(const struct build *b, const char *fmt, ...)
{
	char line[ERR_MAX];
	va_list ap;

	if (!b->req->tell)
		return;
	va_start(ap, fmt);
	vfmtcut(line, sizeof(line), fmt, ap);
	va_end(ap);
	b->req->tell(b->req->arg, line);
}

int kbuild_rev_ok(const char *s)
{
	if (!s[0] || s[0] == '-' || strlen(s) >= KBUILD_REV_MAX || strstr(s, ".."))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._/~^@{}-", *s))
			return 0;
	return 1;
}

int kbuild_fragment_line_ok(const char *line)
{
	return kconfig_line_ok(line);
}

static const char *const builtin_configs[] = { "defconfig", "tinyconfig", "allnoconfig",
					       "debian" };

int kbuild_config_builtin(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin_configs); i++)
		if (!strcmp(s, builtin_configs[i]))
			return 1;
	return 0;
}

/* ---- running tools ---- */

/* argv from the NULL-terminated arguments after first. */
static int collect_args(char **argv, const char *first, va_list ap)
{
	int n = 0;

	argv[n++] = (char *)first;
	while (n < ARGS_MAX - 1 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	return n;
}

/* The build log's size now: where what the next step writes will start. */
static long long log_end(const struct build *b)
{
	struct stat st;

	return stat(b->log, &st) == 0 ? (long long)st.st_size : 0;
}

/* -1 "WHAT failed (exit N): its last 3 lines (log: PATH)", from what it wrote after byte FROM of the log. */
static int step_failed(const struct build *b, const char *what, int status, long long from,
		       char *err)
{
	char said[SAID_MAX];

	text_tail(b->log, from, 3, said, sizeof(said));
	return errorf(err, "%s failed (%s %d): %s (log: %s)", what,
		      status < 0 ? "killed or timed out," : "exit", status,
		      said[0] ? said : "it printed nothing", b->log);
}

/*
 * Run argv in cwd, output appended to the build's log; -1 "WHAT failed (exit
 * N): its last 3 lines (log: PATH)": the lines travel with the message to
 * whoever asked, an API client too, who cannot read the host's log.
 */
static int run_argv(struct build *b, const char *cwd, int timeout_ms, const char *what,
		    char *const *argv, char *err)
{
	struct proc_opts o = { .cwd = cwd, .log_path = b->log, .timeout_ms = timeout_ms,
			       .readable = 1 };
	long long from = log_end(b);
	int status;

	if (proc_run_opts(argv, &o, &status, err) < 0)
		return -1;
	return status == 0 ? 0 : step_failed(b, what, status, from, err);
}

/* run_argv with the NULL-terminated arguments from first. */
static int run(struct build *b, const char *cwd, int timeout_ms, const char *what, char *err,
	       const char *first, ...)
{
	char *argv[ARGS_MAX];
	va_list ap;

	va_start(ap, first);
	collect_args(argv, first, ap);
	va_end(ap);
	return run_argv(b, cwd, timeout_ms, what, argv, err);
}

/* What a tool printed, into out. */
static int output(const char *cwd, char *out, size_t len, char *err, const char *first, ...)
{
	char *argv[ARGS_MAX];
	va_list ap;

	va_start(ap, first);
	collect_args(argv, first, ap);
	va_end(ap);
	return proc_output(argv, cwd, SHORT_MS, out, len, err);
}

/* ---- the jail: every step that runs the tree's code ---- */

#define JAIL_NPROC      512     /* make -j2 of a kernel peaks at a few dozen */
#define JAIL_FSIZE_MIB  4096    /* a vmlinux with debug info is under 1 GiB */
#define JAIL_NOFILE     4096    /* open files of one process: make and ld open a few hundred */
#define JAIL_TMP_INODES 16384   /* files in its /tmp: gcc's temporaries, a few per compiler */

/* A build's whole environment in the jail: nothing of the harness's but these (and ccache's two). */
static const char *const jail_env[] = {
	"PATH=/usr/bin:/usr/sbin:/bin:/sbin", "HOME=/nonexistent", "LC_ALL=C", "TMPDIR=/tmp",
	"CCACHE_NOHASHDIR=1", "CCACHE_UMASK=022",
	"CCACHE_DEPEND=1",   /* no preprocessor pass of its own on a miss: 0.73x a cold build (BENCHMARKS.md) */
};

/* nftw: one entry of a directory the jail writes, handed to its uid (not through symlinks). */
static int chown_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if (st->st_uid == SANDBOX_UID)
		return 0;
	return lchown(path, SANDBOX_UID, SANDBOX_UID) < 0 ? -1 : 0;
}

/*
 * As root the jail's uid 65534 is a host uid: the directories it writes
 * (its object directory, ccache) are handed to it, once, if another owns
 * them. Not root, a user namespace maps 65534 to the harness's own uid.
 */
static int give_to_jail(const char *dir, char *err)
{
	struct stat st;

	if (geteuid() != 0)
		return 0;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return errorf(err, "'%s' is not a directory", dir);
	if (st.st_uid == SANDBOX_UID)
		return 0;
	if (nftw(dir, chown_entry, 64, FTW_PHYS | FTW_MOUNT) != 0)
		return errorf(err, "cannot hand '%s' to uid %d: %s", dir, SANDBOX_UID, strerror(errno));
	return 0;
}

/* The build jail's memory limit in bytes: the request's, or half of the host's RAM. */
static uint64_t jail_memory(const struct kbuild_req *r)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (r->memory_mib)
		return r->memory_mib << 20;
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 4ULL << 30;
}

/* argv in the build's jail (src and in read-only; obj and ccache writable); its exit code in *status. */
static int jail_run(struct build *b, char *const *argv, const char *cwd, int timeout_ms,
		    int ticking, int *status, char *err)
{
	int own = !strcmp(b->scope, "base");   /* a series reads ccache, never writes it */
	const struct sandbox_bind binds[] = {
		{ b->src, 0 }, { b->in, 0 }, { b->obj, 1 }, { b->ccache, own },
	};
	char hide[PATH_MAX], ccdir[PATH_MAX + 16], base[PATH_MAX + 32];
	char *env[ARRAY_SIZE(jail_env) + 5];
	struct sandbox_view v = {
		.binds = binds, .nbinds = ARRAY_SIZE(binds), .hide = hide, .env = env,
		.cwd = cwd ? cwd : b->obj, .log_path = b->log, .nproc = JAIL_NPROC,
		.fsize_mib = JAIL_FSIZE_MIB, .nofile = JAIL_NOFILE, .tmp_inodes = JAIL_TMP_INODES,
		.mem_max = jail_memory(b->req), .timeout_ms = timeout_ms,
		.tick = ticking ? compile_tick : NULL, .tick_arg = b, .tick_ms = TICK_MS,
	};
	size_t n = 0;

	if (pathf(hide, err, "%s/.git", b->src) < 0 || give_to_jail(b->obj, err) < 0 ||
	    give_to_jail(b->ccache, err) < 0)
		return -1;
	for (; n < ARRAY_SIZE(jail_env); n++)
		env[n] = (char *)jail_env[n];
	if (fmtbuf(ccdir, sizeof(ccdir), "CCACHE_DIR=%s", b->ccache) < 0 ||
	    fmtbuf(base, sizeof(base), "CCACHE_BASEDIR=%s/trees", b->top) < 0)
		return errorf(err, "the build cache's path %.64s... is too long", b->top);
	env[n++] = ccdir;
	env[n++] = base;
	if (!own) {
		env[n++] = "CCACHE_READONLY=1";
		env[n++] = "CCACHE_TEMPDIR=/tmp";
	}
	env[n] = NULL;
	return sandbox_exec(argv, &v, status, err);
}

/* jail_run of a configuration step: -1 "WHAT failed (exit N): its last lines (log: LOG)" unless it exits 0. */
static int jailed(struct build *b, const char *what, char *const *argv, char *err)
{
	long long from = log_end(b);
	int status;

	if (jail_run(b, argv, NULL, GIT_MS, 0, &status, err) < 0)
		return -1;
	return status == 0 ? 0 : step_failed(b, what, status, from, err);
}

/* ---- the cache repository ---- */

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A directory of the cache with no symlink anywhere in its (real) path: one planted there is refused. */
static int no_symlink_dir(const char *path, char *err)
{
	int fd = open_no_symlinks(path, O_PATH | O_DIRECTORY);

	if (fd < 0)
		return errorf(err, "'%s': %s", path, errno == ELOOP ?
			      "a symlink is in its path: refused" : strerror(errno));
	close(fd);
	return 0;
}

/* A file the jail made, to be read by the harness: regular, no symlink in its path. */
static int jail_output_ok(const char *path, char *err)
{
	_cleanup_close_ int fd = open_no_symlinks(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return errorf(err, "the build's '%s' is %s: refused", path,
			      fd < 0 && errno == ELOOP ? "reached through a symlink" :
			      fd < 0 ? strerror(errno) : "not a regular file");
	return 0;
}

/* trees/<T>: T is the package's name, or 16 hex of the tree's path. */
static int tree_dirs(struct build *b, char *err)
{
	const struct kbuild_req *r = b->req;
	char h[HASH_SHA256_HEX], name[IMAGE_PACKAGE_MAX + 8];
	struct hash_sha256 s;

	if (r->source_package[0]) {
		if (fmtbuf(name, sizeof(name), "pkg-%s", r->source_package) < 0)
			return errorf(err, "package name '%.64s' too long", r->source_package);
	} else {
		hash_sha256_init(&s);
		hash_sha256_update(&s, r->source, strlen(r->source));
		hash_sha256_final_hex(&s, h);
		if (fmtbuf(name, sizeof(name), "tree-%.16s", h) < 0)
			return errorf(err, "tree directory name over %zu bytes", sizeof(name) - 1);
	}
	if (pathf(b->tdir, err, "%s/trees/%s", b->top, name) < 0 ||
	    pathf(b->src, err, "%s/src", b->tdir) < 0 ||
	    pathf(b->in, err, "%s/in", b->tdir) < 0 ||
	    pathf(b->ccache, err, "%s/ccache", b->top) < 0 ||
	    pathf(b->obj, err, "%s/obj-%s", b->tdir, r->arch) < 0)
		return -1;
	if (mkdir_p(b->tdir, err) < 0 || mkdir_p(b->in, err) < 0 || mkdir_p(b->ccache, err) < 0)
		return -1;
	return no_symlink_dir(b->tdir, err);
}

/* git in the cache repository, committing as the harness. */
#define GIT(b) "git", "-C", (b)->src, "-c", "user.name=harness", "-c", \
	"user.email=harness@localhost", "-c", "core.autocrlf=false"

/* git reading the user's tree, which may be another user's (a daemon's own user),
 * with nothing of its configuration that runs a program: no hooks, no fsmonitor,
 * no pager (filters and external diffs: see git_identity). */
#define USER_GIT(b) "git", "--no-pager", "-c", "safe.directory=*", "-c", "core.fsmonitor=false", \
	"-c", "core.hooksPath=/dev/null", "-C", (char *)(b)->req->source

/* A cache repository for a user's git tree: its objects borrowed, nothing of it written. */
static int prepare_git(struct build *b, char *err)
{
	char common[PATH_MAX], top[PATH_MAX], alt[PATH_MAX], objects[PATH_MAX + 16];

	/* a plain tree inside some other repository is not that repository's tree */
	if (output(NULL, top, sizeof(top), err, USER_GIT(b), "rev-parse",
		   "--show-toplevel", NULL) < 0 || strcmp(top, b->req->source) ||
	    output(NULL, common, sizeof(common), err, USER_GIT(b), "rev-parse",
		   "--path-format=absolute", "--git-common-dir", NULL) < 0)
		return errorf(err, "'%s' is not the top of a git work tree", b->req->source);
	if (is_dir(b->src))
		return 0;
	if (run(b, NULL, SHORT_MS, "git init", err, "git", "init", "-q", b->src, NULL) < 0 ||
	    pathf(alt, err, "%s/.git/objects/info/alternates", b->src) < 0)
		return -1;
	if (fmtbuf(objects, sizeof(objects), "%s/objects\n", common) < 0)
		return errorf(err, "%s: its git directory's path is too long", b->req->source);
	return write_file(alt, objects, strlen(objects), err);
}

/* Import the tree at from (the work tree itself for a package) and commit it. */
static int import_tree(struct build *b, const char *from, int all, char *err)
{
	char gitdir[PATH_MAX], wt[PATH_MAX + 16];

	if (pathf(gitdir, err, "%s/.git", b->src) < 0)
		return -1;
	if (fmtbuf(wt, sizeof(wt), "--work-tree=%s", from) < 0)
		return errorf(err, "git add: work tree path %.64s... too long", from);
	tell(b, "import %s into the build cache (git add)", from);
	if (run(b, NULL, GIT_MS, "git add (import)", err, "git", "--git-dir", gitdir, wt,
		"-c", "core.autocrlf=false", "add", "-A", all ? "-f" : "-A", ".", NULL) < 0 ||
	    output(NULL, b->content, sizeof(b->content), err, "git", "--git-dir", gitdir,
		   "write-tree", NULL) < 0)
		return -1;
	return output(NULL, b->commit, sizeof(b->commit), err, GIT(b), "commit-tree",
		      b->content, "-m", "tree as imported by the harness", NULL);
}

/* A plain tree: imported (git's stat cache makes a second import quick). */
static int prepare_plain(struct build *b, char *err)
{
	if (!is_dir(b->src) &&
	    run(b, NULL, SHORT_MS, "git init", err, "git", "init", "-q", b->src, NULL) < 0)
		return -1;
	return import_tree(b, b->req->source, 0, err);
}

/*
 * Debian package pkg fetched with apt-get download into dir (emptied first)
 * and unpacked with dpkg-deb -x into dir/x: never installed.
 */
static int fetch_deb(struct build *b, const char *pkg, const char *dir, char *err)
{
	char deb[PATH_MAX];

	if (run(b, NULL, SHORT_MS, "rm", err, "rm", "-rf", dir, NULL) < 0 || mkdir_p(dir, err) < 0 ||
	    run(b, dir, GIT_MS, "apt-get download", err, "apt-get", "download", "-q", pkg,
		NULL) < 0 ||
	    output(dir, deb, sizeof(deb), err, "find", ".", "-maxdepth", "1", "-name", "*.deb",
		   NULL) < 0)
		return -1;
	if (!deb[0] || strchr(deb, '\n'))
		return errorf(err, "apt-get download %s left no single .deb in %s", pkg, dir);
	return run(b, dir, GIT_MS, "dpkg-deb -x", err, "dpkg-deb", "-x", deb, "x", NULL);
}

/* A Debian linux-source-X.Y package: downloaded, unpacked and imported once. */
static int unpack_package(struct build *b, char *err)
{
	char dl[PATH_MAX], x[PATH_MAX], tar[PATH_MAX + 64];
	const char *pkg = b->req->source_package;

	if (pathf(dl, err, "%s/download", b->tdir) < 0 || pathf(x, err, "%s/x", dl) < 0)
		return -1;
	tell(b, "unpack: apt-get download %s", pkg);
	if (fetch_deb(b, pkg, dl, err) < 0 ||
	    output(x, tar, sizeof(tar), err, "find", "usr/src", "-maxdepth", "1", "-name",
		   "linux-source-*.tar.*", NULL) < 0)
		return -1;
	if (!tar[0] || strchr(tar, '\n'))
		return errorf(err, "package %s holds no single usr/src/linux-source-*.tar.*", pkg);
	tell(b, "unpack: %s", tar);
	if (mkdir_p(b->src, err) < 0 ||
	    run(b, x, GIT_MS, "tar -x", err, "tar", "-xf", tar, "-C", b->src,
		"--strip-components=1", NULL) < 0 ||
	    run(b, NULL, SHORT_MS, "git init", err, "git", "init", "-q", b->src, NULL) < 0)
		return -1;
	return run(b, NULL, SHORT_MS, "rm", err, "rm", "-rf", dl, NULL);
}

/* The package's import commit, kept in trees/<T>/commit once it is made. */
static int prepare_package(struct build *b, char *err)
{
	char path[PATH_MAX], *text = NULL;
	size_t len;
	int rc;

	if (pathf(path, err, "%s/commit", b->tdir) < 0)
		return -1;
	if (read_regular_file(path, 63, &text, &len, NULL) == 0) {
		/* at most 63 bytes read: they fit */
		rc = fmtbuf(b->commit, sizeof(b->commit), "%.*s", (int)strcspn(text, "\n"), text);
		free(text);
		return rc < 0 ? errorf(err, "%s: a commit id over %zu bytes", path,
				       sizeof(b->commit) - 1) : 0;
	}
	if (is_dir(b->src) && run(b, NULL, GIT_MS, "rm", err, "rm", "-rf", b->src, NULL) < 0)
		return -1;
	if (unpack_package(b, err) < 0 || import_tree(b, b->src, 1, err) < 0)
		return -1;
	b->content[0] = '\0';   /* a package is known by its import commit, kept */
	return write_file(path, b->commit, strlen(b->commit), err);
}

#define FILTERS_MAX 16

/*
 * The user's filter drivers (filter.NAME.clean, .smudge, .process in its git
 * configuration) made no-ops for one git command: GIT_CONFIG_KEY_n/VALUE_n
 * entries in ENV (storage in VARS), so a worktree's .gitattributes runs
 * nothing of the tree's. -1 with a message past FILTERS_MAX.
 */
static int filters_off(struct build *b, char vars[][PATH_MAX], char **env, char *err)
{
	char path[PATH_MAX], *argv[] = { USER_GIT(b), "config", "--name-only", "--get-regexp",
					 "^filter\\.", NULL };
	struct proc_opts o = { .log_path = path, .log_new = 1, .stdout_only = 1,
			       .timeout_ms = SHORT_MS };
	_cleanup_free_ char *text = NULL;
	size_t len, n = 0, v = 0;
	char *pos;
	int status;

	if (pathf(path, err, "%s/filters", b->tdir) < 0 || proc_run_opts(argv, &o, &status, err) < 0 ||
	    read_regular_file(path, 64 << 10, &text, &len, err) < 0)
		return -1;
	/* strtok_r: the daemon's resolver and bisector may build at once */
	for (char *line = strtok_r(text, "\n", &pos); line; line = strtok_r(NULL, "\n", &pos)) {
		const char *dot = strrchr(line, '.');
		int process = dot && !strcmp(dot, ".process");

		if (!dot || (!process && strcmp(dot, ".clean") && strcmp(dot, ".smudge")))
			continue;
		if (n == FILTERS_MAX)
			return errorf(err, "%s sets more than %d git filter commands", b->req->source,
				      FILTERS_MAX);
		/* a cut key would leave that filter's command in force: refused */
		if (fmtbuf(vars[v], PATH_MAX, "GIT_CONFIG_KEY_%zu=%s", n, line) < 0)
			return errorf(err, "%s: a git filter key of over %d bytes: %.64s...",
				      b->req->source, PATH_MAX - 32, line);
		env[v] = vars[v], v++;
		if (fmtbuf(vars[v], PATH_MAX, "GIT_CONFIG_VALUE_%zu=%s", n,
			   process ? "" : "cat") < 0)   /* under 32 bytes */
			return errorf(err, "GIT_CONFIG_VALUE_%zu: over %d bytes", n, PATH_MAX);
		env[v] = vars[v], v++;
		n++;
	}
	if (fmtbuf(vars[v], PATH_MAX, "GIT_CONFIG_COUNT=%zu", n) < 0)   /* under 32 bytes */
		return errorf(err, "GIT_CONFIG_COUNT: over %d bytes", PATH_MAX);
	env[v] = vars[v], v++;
	env[v] = NULL;
	return 0;
}

/* The user's uncommitted diff into PATH: no external diff, textconv, filter or hook runs. */
static int user_diff(struct build *b, const char *path, char *err)
{
	char vars[2 * FILTERS_MAX + 1][PATH_MAX], *env[2 * FILTERS_MAX + 2];
	char *argv[] = { USER_GIT(b), "--no-optional-locks", "diff", "--binary", "--no-ext-diff",
			 "--no-textconv", "HEAD", NULL };
	struct proc_opts o = { .env = env, .log_path = path, .log_new = 1, .stdout_only = 1,
			       .timeout_ms = GIT_MS };
	int status;

	if (filters_off(b, vars, env, err) < 0 || proc_run_opts(argv, &o, &status, err) < 0)
		return -1;
	if (status != 0)
		return errorf(err, "git diff HEAD in %s failed (exit %d)", b->req->source, status);
	return 0;
}

/* A git tree's revision (base, or HEAD and its uncommitted diff, hashed). */
static int git_identity(struct build *b, char *err)
{
	const char *base = b->req->base[0] ? b->req->base : "HEAD";
	char rev[KBUILD_REV_MAX + 16], diff[PATH_MAX];
	struct stat st;

	if (fmtbuf(rev, sizeof(rev), "%s^{commit}", base) < 0)
		return errorf(err, "revision '%.64s' too long", base);
	if (output(NULL, b->commit, sizeof(b->commit), NULL, USER_GIT(b),
		   "rev-parse", "--verify", "-q", rev, NULL) < 0 || !b->commit[0])
		return errorf(err, "revision '%s' does not exist in %s", base, b->req->source);
	b->dirty[0] = '\0';
	if (b->req->base[0])
		return 0;       /* a named base: the work tree's edits are not built */
	if (pathf(diff, err, "%s/uncommitted.diff", b->tdir) < 0 || user_diff(b, diff, err) < 0)
		return -1;
	if (stat(diff, &st) == 0 && st.st_size > 0)
		return hash_sha256_file(diff, b->dirty, err);
	return 0;
}

/* The tree as it will be built, before patches: into the cache repository. */
static int prepare_tree(struct build *b, char *err)
{
	const struct kbuild_req *r = b->req;

	b->content[0] = '\0';
	if (r->source_package[0])
		return prepare_package(b, err);
	if (!is_dir(r->source))
		return errorf(err, "'%s' is not a directory", r->source);
	if (prepare_git(b, NULL) == 0)
		return git_identity(b, err);
	if (r->base[0])
		return errorf(err, "base '%s' needs a git tree; '%s' is not one", r->base,
			      r->source);
	return prepare_plain(b, err);
}

/* "name value" into the build key's hash, a line of its own. */
static void hash_line(struct hash_sha256 *s, const char *name, const char *value)
{
	hash_sha256_update(s, name, strlen(name));
	hash_sha256_update(s, " ", 1);
	hash_sha256_update(s, value, strlen(value));
	hash_sha256_update(s, "\n", 1);
}

/* The hash of everything a build's inputs are, before anything is checked out. */
static int input_key(struct build *b, const char *required, char *err)
{
	const struct kbuild_req *r = b->req;
	char h[HASH_SHA256_HEX];
	struct hash_sha256 s, p;

	hash_sha256_init(&s);
	hash_line(&s, "kbuild", "1");
	hash_line(&s, "arch", r->arch);
	hash_line(&s, "cc", b->cc_version);
	hash_line(&s, "source", r->source_package[0] ? r->source_package : r->source);
	hash_line(&s, "tree", b->content[0] ? b->content : b->commit);
	hash_line(&s, "dirty", b->dirty);
	for (unsigned i = 0; r->series && i < r->n_apply; i++) {
		hash_sha256_init(&p);
		hash_sha256_update(&p, r->series->p[i].text, r->series->p[i].len);
		hash_sha256_final_hex(&p, h);
		hash_line(&s, "patch", h);
	}
	if (kbuild_config_builtin(r->config))
		hash_line(&s, "config", r->config);
	else if (hash_sha256_file(r->config, h, err) < 0)
		return -1;
	else
		hash_line(&s, "config-file", h);
	hash_line(&s, "fragment", r->fragment);
	if (hash_sha256_file(required, h, err) < 0)
		return -1;
	hash_line(&s, "required", h);
	hash_sha256_final_hex(&s, b->inputs);
	series_scope(b);
	return 0;
}

/*
 * The build's scope in the cache: "base" for the tree as it is (no patch
 * applied), else "s" and 16 hex of the tree, its base and every patch of
 * the series (not only those applied: a bisection's prefixes share it).
 */
static void series_scope(struct build *b)
{
	const struct kbuild_req *r = b->req;
	char h[HASH_SHA256_HEX];
	struct hash_sha256 s, p;

	if (!r->series || !r->n_apply) {
		memcpy(b->scope, "base", 5);
		return;
	}
	hash_sha256_init(&s);
	hash_line(&s, "scope", "1");
	hash_line(&s, "source", r->source_package[0] ? r->source_package : r->source);
	hash_line(&s, "tree", b->content[0] ? b->content : b->commit);
	hash_line(&s, "dirty", b->dirty);
	for (unsigned i = 0; i < r->series->n; i++) {
		hash_sha256_init(&p);
		hash_sha256_update(&p, r->series->p[i].text, r->series->p[i].len);
		hash_sha256_final_hex(&p, h);
		hash_line(&s, "patch", h);
	}
	hash_sha256_final_hex(&s, h);
	b->scope[0] = 's';
	memcpy(b->scope + 1, h, 16);
	b->scope[17] = '\0';
}

/* ---- the cache: entries and what inputs built to ---- */

/* The scope an entry's info names ("" for an entry of before scopes, trusted by none). */
static void entry_scope(const char *top, const char *key, char *out, size_t size)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	size_t len;

	out[0] = '\0';
	if (pathf(path, NULL, "%s/%.64s/info", top, key) == 0 &&
	    read_regular_file(path, 4096, &text, &len, NULL) == 0 &&
	    info_value(text, "scope", out, size) < 0)
		out[0] = '\0';
}

/*
 * Is entry key complete and this build's to take: made by a build of the
 * tree as it is, or of this build's own series? Another series' entry of the
 * same key is built again (what its own Makefiles did may be in it).
 */
static int entry_usable(const struct build *b, const char *key)
{
	char scope[sizeof(b->scope)];

	entry_scope(b->top, key, scope, sizeof(scope));
	return !strcmp(scope, "base") || !strcmp(scope, b->scope);
}

/* inputs/<I>: "key K" (0, K in key) or "failed WHY" (-1, WHY in err); 1 if none. */
static int memo_read(struct build *b, char key[HASH_SHA256_HEX], char *err)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	size_t len;

	if (pathf(path, err, "%s/inputs/%s", b->top, b->inputs) < 0)
		return -1;
	if (read_regular_file(path, ERR_MAX + 16, &text, &len, NULL) < 0)
		return 1;
	text[strcspn(text, "\n")] = '\0';
	if (!strncmp(text, "key ", 4) && hash_sha256_hex_ok(text + 4) &&
	    entry_usable(b, text + 4)) {
		memcpy(key, text + 4, HASH_SHA256_HEX);
		return 0;
	}
	if (!strncmp(text, "failed ", 7))
		return errorf(err, "%s (as before: remove %s to try again)", text + 7, path);
	return 1;
}

/*
 * "what text" remembered for this build's inputs (a key, or why it failed),
 * so the same inputs are not built again for nothing.
 */
static int memo_write(struct build *b, const char *what, const char *text)
{
	char path[PATH_MAX], line[ERR_MAX + 16];

	/* a memo that does not fit is not written: the next build tries again */
	if (fmtbuf(line, sizeof(line), "%s %s\n", what, text) < 0 ||
	    pathf(path, NULL, "%s/inputs", b->top) < 0 || mkdir_p(path, NULL) < 0 ||
	    pathf(path, NULL, "%s/inputs/%s", b->top, b->inputs) < 0)
		return -1;
	return write_file(path, line, strlen(line), NULL);
}

/* ---- checkout, patches, config ---- */

static int checkout(struct build *b, char *err)
{
	char diff[PATH_MAX];

	tell(b, "checkout %.12s", b->commit);
	if (run(b, NULL, GIT_MS, "git checkout", err, GIT(b), "checkout", "-q", "--detach",
		"--force", b->commit, NULL) < 0 ||
	    run(b, NULL, GIT_MS, "git clean", err, GIT(b), "clean", "-q", "-f", "-d", "-x",
		NULL) < 0)
		return -1;
	if (!b->dirty[0])
		return 0;
	if (pathf(diff, err, "%s/uncommitted.diff", b->tdir) < 0)
		return -1;
	return run(b, NULL, GIT_MS, "applying the tree's uncommitted diff", err, GIT(b),
		   "apply", "--binary", diff, NULL);
}

/* The first hunk header of path's diff in a patch's text, for a message. */
static void first_hunk(const char *text, const char *file, char *out, size_t size)
{
	char head[PATH_MAX + 8];
	const char *p, *h;

	out[0] = '\0';
	if (fmtbuf(head, sizeof(head), "+++ b/%s\n", file) < 0)
		return;         /* a cut header could find another file's diff */
	p = strstr(text, head);
	if (!p || !(h = strstr(p, "\n@@ ")))
		return;
	fmtcut(out, size, "%.*s", (int)strcspn(h + 1, "\n"), h + 1);
}

/* Why git apply refused patch i: "FILE: hunk @@ ... @@" from its log lines. */
static void apply_failure(const struct build *b, const struct series_patch *p, char *why,
			  size_t size)
{
	_cleanup_free_ char *log = NULL;
	char file[PATH_MAX], hunk[160];
	const char *e = NULL;
	size_t len;

	fmtcut(why, size, "see %.400s", b->log);
	if (read_regular_file(b->log, 16 << 20, &log, &len, NULL) < 0)
		return;
	/* the last failure in the log is this patch's */
	for (const char *f = log; (f = strstr(f, "error: patch failed: ")); f++)
		e = f;
	if (!e) {
		e = strstr(log, "error: ");
		if (e)
			fmtcut(why, size, "%.*s", (int)strcspn(e, "\n"), e);
		return;
	}
	e += strlen("error: patch failed: ");
	hunk[0] = '\0';
	/* looked up only whole: a cut name could find another file's hunk */
	if (fmtbuf(file, sizeof(file), "%.*s", (int)strcspn(e, ":\n"), e) == 0)
		first_hunk(p->text, file, hunk, sizeof(hunk));
	fmtcut(why, size, "%.120s: first rejected hunk %s (patch failed at %.*s)", file,
		 hunk[0] ? hunk : "?", (int)strcspn(e, "\n"), e);
}

/*
 * The arm's patches applied in order with git apply; the first that does not
 * apply fails the arm, naming it and its first rejected hunk, and is
 * remembered.
 */
static int apply_patches(struct build *b, char *err)
{
	const struct kbuild_req *r = b->req;
	char path[PATH_MAX], why[ERR_MAX];

	if (pathf(path, err, "%s/patch", b->tdir) < 0)
		return -1;
	for (unsigned i = 0; r->series && i < r->n_apply; i++) {
		const struct series_patch *p = &r->series->p[i];

		tell(b, "apply %u/%u %.80s", i + 1, r->n_apply, p->subject);
		if (write_file(path, p->text, p->len, err) < 0)
			return -1;
		if (run(b, NULL, GIT_MS, "git apply", NULL, GIT(b), "apply", "--whitespace=nowarn",
			path, NULL) < 0) {
			apply_failure(b, p, why, sizeof(why));
			b->lasting = 1;
			return errorf(err, "patch %u/%u '%.100s' does not apply: %s", i + 1,
				      r->n_apply, p->subject, why);
		}
	}
	return 0;
}

/*
 * make -C src O=obj ARCH=... CROSS_COMPILE=... CC="ccache CC", then extra and
 * NULL; -1 with err if an argument does not fit.
 */
#define MAKE_VARS 8
static int make_argv(const struct build *b, char vars[MAKE_VARS][PATH_MAX + 32], char **argv,
		     const char *const *extra, char *err)
{
	int x86 = !strcmp(b->req->arch, "x86_64"), n = 0, v = 0, cut = 0;
	int ccache = access("/usr/bin/ccache", X_OK) == 0;

	argv[n++] = "make";
	cut |= fmtbuf(vars[v], sizeof(vars[v]), "-C%s", b->src);
	argv[n++] = vars[v++];
	cut |= fmtbuf(vars[v], sizeof(vars[v]), "O=%s", b->obj);
	argv[n++] = vars[v++];
	cut |= fmtbuf(vars[v], sizeof(vars[v]), "ARCH=%s", x86 ? "x86_64" : "arm64");
	argv[n++] = vars[v++];
	if (!x86)
		argv[n++] = "CROSS_COMPILE=aarch64-linux-gnu-";
	cut |= fmtbuf(vars[v], sizeof(vars[v]), "CC=%s%s", ccache ? "ccache " : "", b->cc);
	argv[n++] = vars[v++];
	cut |= fmtbuf(vars[v], sizeof(vars[v]), "HOSTCC=%sgcc", ccache ? "ccache " : "");
	argv[n++] = vars[v++];
	if (cut)
		return errorf(err, "make -C %.64s...: its source or object directory too long",
			      b->src);
	for (; extra && *extra && n < ARGS_MAX - 1; extra++)
		argv[n++] = (char *)*extra;
	argv[n] = NULL;
	return 0;
}

/* One make step of the build, run in the build jail. */
static int make(struct build *b, const char *what, const char *const *extra, char *err)
{
	char vars[MAKE_VARS][PATH_MAX + 32], *argv[ARGS_MAX], label[64];

	if (make_argv(b, vars, argv, extra, err) < 0)
		return -1;
	fmtcut(label, sizeof(label), "make %s", what);
	return jailed(b, label, argv, err);
}

/* Debian's config for this tree's series (linux-config-X.Y, the cloud flavour). */
static int debian_config(struct build *b, const char *series, const char *dst, char *err)
{
	char dl[PATH_MAX], pkg[64], xz[PATH_MAX], name[96], msg[ERR_MAX], path[PATH_MAX];
	const char *darch = !strcmp(b->req->arch, "x86_64") ? "amd64" : "arm64";

	if (strlen(series) > 16)
		return errorf(err, "config debian: no kernel series in this tree's Makefile");
	if (fmtbuf(pkg, sizeof(pkg), "linux-config-%s", series) < 0 ||
	    fmtbuf(name, sizeof(name), "config.%s_none_cloud-%s.xz", darch, darch) < 0)
		return errorf(err, "config debian: package or file name for series %s too long",
			      series);
	if (pathf(dl, err, "%s/debian-config", b->tdir) < 0)
		return -1;
	tell(b, "config: apt-get download %s", pkg);
	if (fetch_deb(b, pkg, dl, msg) < 0)
		return errorf(err, "config debian: cannot download %s: %.400s", pkg, msg);
	if (output(dl, xz, sizeof(xz), msg, "find", "x", "-name", name, NULL) < 0)
		return errorf(err, "config debian: %s has no %s for this tree (%.300s)", pkg, name,
			      msg);
	if (!xz[0] || strchr(xz, '\n'))
		return errorf(err, "config debian: %s holds no single %s", pkg, name);
	if (run(b, dl, SHORT_MS, "xz -d", err, "xz", "-d", "-k", xz, NULL) < 0)
		return -1;
	xz[strlen(xz) - 3] = '\0';
	if (pathf(path, err, "%s/%s", dl, xz) < 0)
		return -1;
	return copy_regular_file(path, dst, err);
}

/* VERSION.PATCHLEVEL.SUBLEVEL from the tree's Makefile, into out ("" if unreadable). */
static void tree_version(const struct build *b, char *out, size_t size)
{
	_cleanup_free_ char *text = NULL;
	static const char *const keys[] = { "VERSION = ", "PATCHLEVEL = ", "SUBLEVEL = " };
	char path[PATH_MAX];
	size_t len, o = 0;

	out[0] = '\0';
	if (pathf(path, NULL, "%s/Makefile", b->src) < 0 || jail_output_ok(path, NULL) < 0 ||
	    read_regular_file(path, 1 << 20, &text, &len, NULL) < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *p = strstr(text, keys[i]);
		size_t n = p ? strspn(p + strlen(keys[i]), "0123456789") : 0;

		if (!n || o + n + 2 >= size)
			return;
		o += (size_t)snprintf(out + o, size - o, "%s%.*s", i ? "." : "", (int)n,
				      p + strlen(keys[i]));
	}
}

/* Does this tree's Kconfig define sym? (git grep over its Kconfig files) */
static int symbol_defined(void *arg, const char *sym)
{
	struct build *b = arg;
	char pattern[160], *argv[] = { "git", "-C", b->src, "grep", "-q", "-E", pattern, "--",
				       "*Kconfig*", NULL };
	struct proc_opts o = { .timeout_ms = SHORT_MS };
	int status;

	/* sym is under 128 bytes (missing_symbol); cut, it counts as defined, as on an error */
	if (fmtbuf(pattern, sizeof(pattern), "^(menu)?config %s$", sym) < 0)
		return 1;
	return proc_run_opts(argv, &o, &status, NULL) < 0 || status != 1;
}

/* A file the harness gives the jail (in/NAME), readable by the jail's uid. */
static int jail_input_readable(const char *path, char *err)
{
	if (chmod(path, 0644) < 0)
		return errorf(err, "cannot chmod '%s': %s", path, strerror(errno));
	return 0;
}

/*
 * What git (argv) printed, through trees/<T>/NAME (a listing may be of any
 * size: 512 patches each adding a file printed more than 16 KiB), into *ret.
 */
static int git_listing(struct build *b, char *const *argv, const char *name, char **ret,
		       size_t *ret_len, char *err)
{
	char path[PATH_MAX];
	struct proc_opts o = { .log_path = path, .log_new = 1, .stdout_only = 1,
			       .timeout_ms = SHORT_MS };
	int status, r;

	if (pathf(path, err, "%s/%s", b->tdir, name) < 0 ||
	    proc_run_opts(argv, &o, &status, err) < 0)
		return -1;
	r = status == 0 ? read_regular_file(path, TREE_LS_MAX, ret, ret_len, err) :
	    errorf(err, "git %s failed (exit %d)", argv[9], status);   /* after GIT(b) */
	unlink(path);
	return r;
}

/*
 * 16 hex of what a builtin config target reads of the tree as patched: its
 * Kconfig files, every configs/ fragment, scripts/ (Kconfig's $(shell) calls
 * run them) and the Makefiles that define the targets (git's blob ids, from
 * the index), with the arch, the target and the compiler that Kconfig probes.
 */
static int config_inputs(struct build *b, char out[17], char *err)
{
	char h[HASH_SHA256_HEX];
	char *argv[] = { GIT(b), "ls-files", "-s", "--", ":(glob)**/Kconfig*",
			 ":(glob)**/configs/**", "scripts", "Makefile", ":(glob)arch/*/Makefile",
			 NULL };
	_cleanup_free_ char *ls = NULL;
	struct hash_sha256 s;
	size_t len;

	if (run(b, NULL, GIT_MS, "git add", err, GIT(b), "add", "-A", ".", NULL) < 0 ||
	    git_listing(b, argv, "config-inputs.tmp", &ls, &len, err) < 0)
		return -1;
	hash_sha256_init(&s);
	hash_line(&s, "config-inputs", "1");
	hash_line(&s, "arch", b->req->arch);
	hash_line(&s, "target", b->req->config);
	hash_line(&s, "cc", b->cc_version);
	hash_sha256_update(&s, ls, len);
	hash_sha256_final_hex(&s, h);
	memcpy(out, h, 16);
	out[16] = '\0';
	return 0;
}

/*
 * obj/.config from make CONFIG (tinyconfig, defconfig, allnoconfig), or in/base.config
 * from the copy kept of an earlier make of the same inputs (config_inputs): the
 * target parses Kconfig twice, about 13 s a build, the same for every prefix of a
 * series that leaves Kconfig alone. Returns 1 when base is to be merged, 0 for .config.
 */
static int builtin_config(struct build *b, const char *dot, const char *base, char *err)
{
	const char *target[] = { b->req->config, NULL };
	char in[17], kept[PATH_MAX], own[PATH_MAX];
	int series = strcmp(b->scope, "base") != 0;

	/* the tree's own is any build's to take; a series' only its own */
	if (config_inputs(b, in, err) < 0 ||
	    pathf(kept, err, "%s/config-%s-%s-%s", b->tdir, b->req->arch, b->req->config, in) < 0 ||
	    pathf(own, err, "%s%s%s", kept, series ? "-" : "", series ? b->scope : "") < 0)
		return -1;
	if (!is_file(kept))
		memcpy(kept, own, sizeof(own));
	if (is_file(kept)) {
		tell(b, "config: %s as made before from the same Kconfig inputs", b->req->config);
		return copy_regular_file(kept, base, err) < 0 ? -1 : 1;
	}
	if (make(b, b->req->config, target, err) < 0 || jail_output_ok(dot, err) < 0)
		return -1;
	copy_regular_file(dot, own, NULL);   /* not kept: made again next time */
	return 0;
}

/*
 * The config the fragments are merged into, *from: in/base.config from
 * r->config or Debian's, or a builtin target's (builtin_config: obj/.config
 * or the copy kept in in/base.config).
 */
static int base_config(struct build *b, const char *dot, const char *base, const char **from,
		       char *err)
{
	const struct kbuild_req *r = b->req;
	char ver[32], series[32];
	int rc;

	*from = base;
	if (!strcmp(r->config, "debian")) {
		tree_version(b, ver, sizeof(ver));
		if (fmtbuf(series, sizeof(series), "%s", ver) < 0)
			return errorf(err, "config debian: version '%s' too long", ver);
		if (strchr(series, '.') && strchr(strchr(series, '.') + 1, '.'))
			*strchr(strchr(series, '.') + 1, '.') = '\0';   /* 6.12.57 -> 6.12 */
		return debian_config(b, series, base, err);
	}
	if (kbuild_config_builtin(r->config)) {
		if ((rc = builtin_config(b, dot, base, err)) < 0)
			return -1;
		*from = rc ? base : dot;
		return 0;
	}
	/* the copy checked again: the file checked before the build may have changed since */
	if (copy_regular_file(r->config, base, err) < 0 || kconfig_file_check(base, err) < 0)
		return -1;
	return 0;
}

/* obj/.config from the base config, the fragments merged, olddefconfig, checked. */
static int configure(struct build *b, char *err)
{
	const struct kbuild_req *r = b->req;
	char dot[PATH_MAX], frag[PATH_MAX], base[PATH_MAX], merge[PATH_MAX], skipped[256];
	const char *old[] = { "olddefconfig", NULL }, *from;
	char *argv[] = { merge, "-m", "-O", b->obj, NULL, frag, NULL };

	tell(b, "config: %s + the harness's fragment", r->config);
	if (pathf(dot, err, "%s/.config", b->obj) < 0 ||
	    pathf(frag, err, "%s/harness.fragment", b->in) < 0 ||
	    pathf(base, err, "%s/base.config", b->in) < 0 ||
	    pathf(merge, err, "%s/scripts/kconfig/merge_config.sh", b->src) < 0)
		return -1;
	if (base_config(b, dot, base, &from, err) < 0 ||
	    (from == base && jail_input_readable(base, err) < 0))
		return -1;
	argv[4] = (char *)from;
	if (kconfig_write_fragment(r->kconfig_dir, r->arch, r->fragment, frag, err) < 0 ||
	    jail_input_readable(frag, err) < 0 ||
	    jailed(b, "merge_config.sh", argv, err) < 0 || make(b, "olddefconfig", old, err) < 0 ||
	    jail_output_ok(dot, err) < 0)
		return -1;
	/* a required symbol this kernel has not got (CACHESTAT_SYSCALL before 6.5) is
	 * not required of it; one it has must survive */
	if (kconfig_check_defined(dot, frag, symbol_defined, b, skipped, sizeof(skipped),
				  err) < 0)
		return b->lasting = 1, -1;
	if (skipped[0])
		tell(b, "config: not in this kernel, so not required: %s", skipped);
	return 0;
}

/*
 * git ls-tree of tree (the top of the patched source) into s, as it prints it
 * less trailing newlines and Documentation's line. Through a file, not
 * proc_output's buffer: a series may add any number of top-level files (512
 * patches each adding one printed more than 16 KiB).
 */
static int hash_top(struct build *b, const char *tree, struct hash_sha256 *s, char *err)
{
	char *argv[] = { GIT(b), "ls-tree", (char *)tree, NULL }, *doc;
	_cleanup_free_ char *ls = NULL;
	size_t len;

	if (git_listing(b, argv, "ls-tree.tmp", &ls, &len, err) < 0)
		return -1;
	while (len > 0 && (ls[len - 1] == '\n' || ls[len - 1] == '\r'))
		ls[--len] = '\0';
	/* a patch to Documentation/ alone builds the same kernel: the same key */
	if ((doc = strstr(ls, "\tDocumentation\n"))) {
		char *start = doc;
		while (start > ls && start[-1] != '\n')
			start--;
		memmove(start, doc + 15, strlen(doc + 15) + 1);
	}
	hash_sha256_update(s, ls, strlen(ls));
	return 0;
}

/* The build key: arch, compiler, .config and the patched source without Documentation/. */
static int build_key(struct build *b, char *err)
{
	char tree[64], dot[PATH_MAX], h[HASH_SHA256_HEX];
	struct hash_sha256 s;

	if (run(b, NULL, GIT_MS, "git add", err, GIT(b), "add", "-A", ".", NULL) < 0 ||
	    output(NULL, tree, sizeof(tree), err, GIT(b), "write-tree", NULL) < 0)
		return -1;
	hash_sha256_init(&s);
	hash_line(&s, "kbuild-key", "1");
	hash_line(&s, "arch", b->req->arch);
	hash_line(&s, "cc", b->cc_version);
	if (pathf(dot, err, "%s/.config", b->obj) < 0 ||
	    hash_sha256_file(dot, b->out->config_sha256, err) < 0)
		return -1;
	hash_line(&s, "config", b->out->config_sha256);
	if (hash_top(b, tree, &s, err) < 0)
		return -1;
	hash_sha256_final_hex(&s, h);
	memcpy(b->out->key, h, sizeof(h));
	return 0;
}

/* ---- compile ---- */

/* trees/<T>/last-<ARCH>: seconds the last compile of this tree took, for estimates. */
static int64_t last_compile_s(const struct build *b)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	size_t len;

	if (pathf(path, NULL, "%s/last-%s", b->tdir, b->req->arch) < 0 ||
	    read_regular_file(path, 32, &text, &len, NULL) < 0)
		return 0;
	return strtoll(text, NULL, 10);
}

/* Has the log reached the link of vmlinux? (its last 8 KiB) */
static int linking(const char *log)
{
	_cleanup_close_ int fd = open(log, O_RDONLY | O_CLOEXEC);
	char buf[8193];
	off_t end;
	ssize_t n;

	if (fd < 0 || (end = lseek(fd, 0, SEEK_END)) < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf) - 1, end > 8192 ? end - 8192 : 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, " vmlinux\n") != NULL;   /* "  LD      vmlinux" */
}

/*
 * The compile's progress, every TICK_MS: its phase (compile, then link) and
 * time, against the last build of this tree when there was one.
 */
static void compile_tick(void *arg)
{
	struct build *b = arg;
	int64_t s = (now_ms() - b->phase_start) / 1000;

	if (linking(b->log))
		b->phase = "link";
	if (b->compile_est_s)
		tell(b, "%s %lldm%02llds (last build of this tree: %lldm%02llds)", b->phase,
		     (long long)s / 60, (long long)s % 60, (long long)b->compile_est_s / 60,
		     (long long)b->compile_est_s % 60);
	else
		tell(b, "%s %lldm%02llds (first build of this tree)", b->phase, (long long)s / 60,
		     (long long)s % 60);
}

/* The last lines of the log's text that say error (at most three), for a message. */
static void last_errors(const char *text, char *out, size_t size)
{
	const char *hits[3] = { NULL }, *p;
	size_t n = 0, o = 0;

	out[0] = '\0';
	for (p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
		const char *e = strstr(p, "error:");
		if (e && e < p + strcspn(p, "\n"))
			hits[n++ % 3] = p;
	}
	for (size_t i = n > 3 ? n - 3 : 0; i < n && o + 4 < size; i++) {
		p = hits[i % 3];
		o += (size_t)snprintf(out + o, size - o, "%s%.*s", o ? " | " : "",
				      (int)strcspn(p, "\n"), p);
	}
}

/* Does s[0..n) hold ".."? (memmem here made -O1 with UBSan warn of a null argument) */
static int has_dotdot(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '.' && s[i + 1] == '.')
			return 1;
	return 0;
}

/* Does one log line say "FILE:LINE:COL: error:" of a tree file outside tools/ and scripts/? */
static int tree_error_line(const char *line, size_t len, const char *src)
{
	size_t n = strlen(src), f;
	const char *e;

	if (len > n && !strncmp(line, src, n) && line[n] == '/')
		line += n + 1, len -= n + 1;
	else if (len && line[0] == '/')
		return 0;   /* a file outside the tree: a host header, say */
	f = strcspn(line, ":\n");
	if (!f || f >= len || line[f] != ':' || has_dotdot(line, f) ||
	    !strncmp(line, "tools/", 6) || !strncmp(line, "scripts/", 8))
		return 0;
	e = line + f + 1;
	if (!isdigit((unsigned char)*e))
		return 0;
	while (isdigit((unsigned char)*e))
		e++;
	if (*e == ':' && isdigit((unsigned char)e[1]))
		for (e++; isdigit((unsigned char)*e); e++)
			;
	return !strncmp(e, ": error: ", 9);
}

int kbuild_compile_error_lasting(const char *log, const char *src)
{
	static const char *const host[] = { "internal compiler error", "Killed signal",
					    "No space left on device", "Cannot allocate memory",
					    "virtual memory exhausted", "fatal error:",
					    "Segmentation fault" };
	const char *p;
	int found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(host); i++)
		if (strstr(log, host[i]))
			return 0;
	for (p = log; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
		found |= tree_error_line(p, strcspn(p, "\n"), src);
	return found;
}

/*
 * A failed compile (status as jail_run's) said: its log's last errors into
 * why, and whether the failure is the source's own, to be remembered.
 */
static void failed_compile(struct build *b, int status, char *why, size_t size)
{
	_cleanup_free_ char *text = NULL;
	size_t len;

	why[0] = '\0';
	if (read_regular_file(b->log, 64 << 20, &text, &len, NULL) < 0)
		return;
	b->lasting = status > 0 && kbuild_compile_error_lasting(text, b->src);
	last_errors(text, why, size);
}

/*
 * The kernel compiled in the jail (LOCALVERSION the key's, reproducible
 * build stamps, the arch's image), its time kept for the next estimate; a
 * failure names the log's last errors.
 */
static int compile(struct build *b, char *err)
{
	const struct kbuild_req *r = b->req;
	char vars[MAKE_VARS][PATH_MAX + 32], *argv[ARGS_MAX], lv[32], jobs[16], why[ERR_MAX];
	const char *extra[] = { lv, jobs, "KBUILD_BUILD_USER=harness", "KBUILD_BUILD_HOST=harness",
				"KBUILD_BUILD_TIMESTAMP=1970-01-01 00:00:00 UTC",
				"KBUILD_BUILD_VERSION=1",   /* else "#N" counts builds per O= */
				!strcmp(r->arch, "x86_64") ? "bzImage" : "Image", NULL };
	int status, rc;

	if (fmtbuf(lv, sizeof(lv), "LOCALVERSION=-h%.8s", b->out->key) < 0 ||
	    fmtbuf(jobs, sizeof(jobs), "-j%d",
		   r->jobs > 0 ? r->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN)) < 0)
		return errorf(err, "make's LOCALVERSION= or -j does not fit %zu or %zu bytes",
			      sizeof(lv), sizeof(jobs));
	if (make_argv(b, vars, argv, extra, err) < 0)
		return -1;
	b->phase = "compile";
	b->phase_start = now_ms();
	b->compile_est_s = last_compile_s(b);
	compile_tick(b);
	if (r->gate && r->gate(r->arg, 1, err) < 0)
		return -1;
	rc = jail_run(b, argv, NULL, KBUILD_TIMEOUT_MS, 1, &status, err);
	if (r->gate)
		r->gate(r->arg, 0, why);
	if (rc < 0)
		return -1;
	b->out->build_s = (double)(now_ms() - b->phase_start) / 1000.0;
	if (status != 0) {
		failed_compile(b, status, why, sizeof(why));
		return errorf(err, "the build failed (%s %d, log kept in %s): %s",
			      status < 0 ? "killed or timed out," : "exit", status, b->log,
			      why[0] ? why : "no 'error:' line");
	}
	return 0;
}

/* ---- the cache entry ---- */

/* KEY/info: "name value" lines, written last: an entry without it is not one. */
static int write_info(const struct build *b, const char *dir, char *err)
{
	const struct kbuild_result *o = b->out;
	char path[PATH_MAX], text[4096];

	if (fmtbuf(text, sizeof(text),
		   "key %s\narch %s\ntree %s\nrelease %s\nimage_sha256 %s\nconfig_sha256 %s\n"
		   "build_s %.1f\nscope %s\n", o->key, b->req->arch, o->tree, o->files.release,
		   o->image_sha256, o->config_sha256, o->build_s, b->scope) < 0)
		return errorf(err, "build %s: its info is over %zu bytes", o->key, sizeof(text));
	if (pathf(path, err, "%s/info", dir) < 0)
		return -1;
	return write_file(path, text, strlen(text), err);
}

/* The value of name in an info text, into out ("" if none); -1 if it does not fit. */
static int info_value(const char *text, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	const char *p;

	out[0] = '\0';
	for (p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
		if (!strncmp(p, name, n) && p[n] == ' ')
			return fmtbuf(out, size, "%.*s", (int)strcspn(p + n + 1, "\n"), p + n + 1);
	return 0;
}

/* out from the entry of out->key. */
static int read_entry(struct build *b, char *err)
{
	struct kbuild_result *o = b->out;
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX], num[32];
	size_t len;

	if (pathf(o->dir, err, "%s/%s", b->top, o->key) < 0 ||
	    pathf(path, err, "%s/info", o->dir) < 0 ||
	    read_regular_file(path, 4096, &text, &len, err) < 0 ||
	    pathf(o->files.kernel, err, "%s/vmlinuz", o->dir) < 0)
		return -1;
	if (info_value(text, "tree", o->tree, sizeof(o->tree)) < 0 ||
	    info_value(text, "image_sha256", o->image_sha256, sizeof(o->image_sha256)) < 0 ||
	    info_value(text, "config_sha256", o->config_sha256, sizeof(o->config_sha256)) < 0 ||
	    info_value(text, "build_s", num, sizeof(num)) < 0)
		return errorf(err, "%s: its tree, image_sha256, config_sha256 or build_s is "
			      "longer than the harness keeps", path);
	o->build_s = strtod(num, NULL);
	o->files.modules[0] = '\0';
	return image_kernel_release(o->files.kernel, b->req->arch, o->files.release,
				    sizeof(o->files.release), err);
}

/* KEY/patches: "N<TAB>subject<TAB>message-id" per applied patch. */
static int write_patches(const struct build *b, const char *dir, char *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char path[PATH_MAX];
	size_t len = 0;

	if (pathf(path, err, "%s/patches", dir) < 0 || !(f = open_memstream(&text, &len)))
		return errorf(err, "cannot write the patch list in %s", dir);
	for (unsigned i = 0; b->req->series && i < b->req->n_apply; i++)
		fprintf(f, "%u\t%s\t%s\n", i + 1, b->req->series->p[i].subject,
			b->req->series->p[i].msgid);
	if (fflush(f) != 0)
		return errorf(err, "cannot write %s", path);
	return write_file(path, text, len, err);
}

/*
 * KEY.tmp renamed to KEY; an entry of that key this build may not take (of
 * another scope) is moved aside first and removed.
 */
static int replace_entry(struct build *b, const char *tmp, char *err)
{
	char old[PATH_MAX];
	int e;

	if (rename(tmp, b->out->dir) == 0)
		return 0;
	e = errno;
	if (e != ENOTEMPTY && e != EEXIST)
		return errorf(err, "cannot rename %s: %s", tmp, strerror(e));
	if (pathf(old, err, "%s.old", b->out->dir) < 0 ||
	    run(b, NULL, SHORT_MS, "rm", err, "rm", "-rf", old, NULL) < 0)
		return -1;
	tell(b, "entry %.8s: made by another scope's build, replaced", b->out->key);
	if (rename(b->out->dir, old) < 0 || rename(tmp, b->out->dir) < 0)
		return errorf(err, "cannot put %s in place of %s: %s", tmp, b->out->dir,
			      strerror(errno));
	return run(b, NULL, SHORT_MS, "rm", err, "rm", "-rf", old, NULL);
}

/* The built image, .config, log and lists into KEY.tmp, then renamed to KEY. */
static int store_entry(struct build *b, char *err)
{
	struct kbuild_result *o = b->out;
	char tmp[PATH_MAX], img[PATH_MAX], file[PATH_MAX], dot[PATH_MAX], suffix[16];
	int x86 = !strcmp(b->req->arch, "x86_64");

	if (pathf(o->dir, err, "%s/%s", b->top, o->key) < 0 ||
	    pathf(tmp, err, "%s.tmp", o->dir) < 0 ||
	    pathf(img, err, "%s/arch/%s/boot/%s", b->obj, x86 ? "x86" : "arm64",
		  x86 ? "bzImage" : "Image") < 0 ||
	    pathf(dot, err, "%s/.config", b->obj) < 0 ||
	    run(b, NULL, SHORT_MS, "rm", err, "rm", "-rf", tmp, NULL) < 0 || mkdir_p(tmp, err) < 0 ||
	    pathf(file, err, "%s/vmlinuz", tmp) < 0 || copy_regular_file(img, file, err) < 0 ||
	    hash_sha256_file(file, o->image_sha256, err) < 0 ||
	    image_kernel_release(file, b->req->arch, o->files.release, sizeof(o->files.release),
				 err) < 0)
		return -1;
	if (fmtbuf(suffix, sizeof(suffix), "-h%.8s", o->key) < 0)
		return errorf(err, "release suffix over %zu bytes", sizeof(suffix) - 1);
	if (strlen(o->files.release) < strlen(suffix) ||
	    strcmp(o->files.release + strlen(o->files.release) - strlen(suffix), suffix))
		return errorf(err, "the built kernel's release '%s' does not end in %s (is "
			      "CONFIG_LOCALVERSION_AUTO on?)", o->files.release, suffix);
	if (pathf(file, err, "%s/config", tmp) < 0 || copy_regular_file(dot, file, err) < 0 ||
	    pathf(file, err, "%s/build.log", tmp) < 0 || rename(b->log, file) < 0 ||
	    pathf(b->log, err, "%s/build.log", o->dir) < 0 ||
	    write_patches(b, tmp, err) < 0 || write_info(b, tmp, err) < 0)
		return -1;
	if (replace_entry(b, tmp, err) < 0)
		return -1;
	return pathf(o->files.kernel, err, "%s/vmlinuz", o->dir);
}

/* This tree's compile time, for the next build's estimate (best effort). */
static void save_compile_time(const struct build *b)
{
	char path[PATH_MAX], text[32];

	if (fmtbuf(text, sizeof(text), "%.0f\n", b->out->build_s) == 0 &&
	    pathf(path, NULL, "%s/last-%s", b->tdir, b->req->arch) == 0)
		write_file(path, text, strlen(text), NULL);
}

/* ---- one build ---- */

/* The compiler for the arch, present, and its version (part of every key). */
static int find_compiler(struct build *b, char *err)
{
	int x86 = !strcmp(b->req->arch, "x86_64");

	if (!x86 && strcmp(b->req->arch, "aarch64"))
		return errorf(err, "cannot build for arch '%s' (x86_64 or aarch64)", b->req->arch);
	if (fmtbuf(b->cc, sizeof(b->cc), "%s", x86 ? "gcc" : "aarch64-linux-gnu-gcc") < 0)
		return errorf(err, "compiler name over %zu bytes", sizeof(b->cc) - 1);
	if (output(NULL, b->cc_version, sizeof(b->cc_version), NULL, b->cc, "--version",
		   NULL) < 0)
		return errorf(err, "%s builds need %s, which does not run here (apt-get install "
			      "%s)", b->req->arch, b->cc, x86 ? "gcc" : "gcc-aarch64-linux-gnu");
	b->cc_version[strcspn(b->cc_version, "\n")] = '\0';
	return 0;
}

/* The tree's identity in words, for tables: "6.12.57, git 1a2b3c4d5e6f + uncommitted 9f8e7d6c". */
static void describe_tree(struct build *b)
{
	const struct kbuild_req *r = b->req;
	char ver[32];

	tree_version(b, ver, sizeof(ver));
	if (r->source_package[0])
		fmtcut(b->out->tree, sizeof(b->out->tree), "%s, %s", ver, r->source_package);
	else if (b->content[0])
		fmtcut(b->out->tree, sizeof(b->out->tree), "%s, tree %.12s", ver, b->content);
	else
		fmtcut(b->out->tree, sizeof(b->out->tree), "%s, git %.12s%s%.8s", ver, b->commit,
			 b->dirty[0] ? " + uncommitted " : "", b->dirty);
}

/*
 * The source and the jail's inputs readable by the jail's uid (as root, a
 * host uid): a tree unpacked or checked out under the harness's umask 077
 * is opened up once; git then writes under umask 022 (run_argv).
 */
static int readable_by_jail(struct build *b, char *err)
{
	struct stat st;

	if (chmod(b->in, 0755) < 0 || lstat(b->src, &st) < 0)
		return errorf(err, "cannot open up '%s' to the build's jail: %s", b->tdir,
			      strerror(errno));
	if ((st.st_mode & 0005) == 0005)
		return 0;
	return run(b, NULL, GIT_MS, "chmod", err, "chmod", "-R", "a+rX", b->src, NULL);
}

/* Checkout, patches, config and the key: a cache hit ends here (1), else 0 to compile. */
static int prepare_source(struct build *b, char *err)
{
	if (checkout(b, err) < 0 || apply_patches(b, err) < 0 || base_first(b, err) < 0 ||
	    scope_obj(b, err) < 0 || readable_by_jail(b, err) < 0)
		return -1;
	describe_tree(b);
	if (configure(b, err) < 0 || build_key(b, err) < 0)
		return -1;
	return entry_usable(b, b->out->key);
}

/* nftw: stop (1) at the first entry dated after the build's start, kept in the walk's state. */
struct future_walk {
	time_t start;
	char path[PATH_MAX];
};

/* What nftw cannot pass its callback: per thread, as the daemon's builds run in threads. */
static __thread struct future_walk *future_walk;

static int future_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if (st->st_mtime <= future_walk->start)
		return 0;
	fmtcut(future_walk->path, sizeof(future_walk->path), "%s", path);
	return 1;
}

/*
 * The object directory made anew if anything in it is dated after this
 * build's start (make would take such an object as newer than any source
 * the patches change): a file dated 2099 left by an earlier build.
 */
static int distrust_future(struct build *b, char *err)
{
	struct future_walk w = { .start = b->start };

	future_walk = &w;
	if (nftw(b->obj, future_entry, 64, FTW_PHYS | FTW_MOUNT) != 1)
		return 0;
	tell(b, "obj: '%.200s' is dated after this build's start: the object directory is made "
	     "anew", w.path);
	if (run(b, NULL, GIT_MS, "rm", err, "rm", "-rf", b->obj, NULL) < 0)
		return -1;
	return mkdir_p(b->obj, err);
}

/*
 * This build's object directory: the tree's own (obj-ARCH), or its series'
 * (obj-ARCH-sS), made the first time as a copy of the tree's own (its
 * config and host tools; objtool, which records its absolute path, and so
 * every object are built again, from ccache); never the other way.
 */
static int scope_obj(struct build *b, char *err)
{
	char base[PATH_MAX], tmp[PATH_MAX + 8];
	int series = strcmp(b->scope, "base") != 0;

	if (pathf(base, err, "%s/obj-%s", b->tdir, b->req->arch) < 0 ||
	    pathf(b->obj, err, "%s%s%s", base, series ? "-" : "", series ? b->scope : "") < 0)
		return -1;
	if (series && !is_dir(b->obj) && is_dir(base)) {
		if (fmtbuf(tmp, sizeof(tmp), "%s.tmp", b->obj) < 0)
			return errorf(err, "'%.64s...': too long", b->obj);
		tell(b, "obj: the tree's own object directory copied for series %s", b->scope);
		if (run(b, NULL, GIT_MS, "rm", err, "rm", "-rf", tmp, NULL) < 0 ||
		    run(b, NULL, GIT_MS, "cp", err, "cp", "-a", "--reflink=auto", base, tmp,
			NULL) < 0)
			return -1;
		if (rename(tmp, b->obj) < 0)
			return errorf(err, "cannot rename %s: %s", tmp, strerror(errno));
	}
	if (mkdir_p(b->obj, err) < 0 || no_symlink_dir(b->obj, err) < 0)
		return -1;
	return distrust_future(b, err);
}

/*
 * A series' first build on a tree that has no object directory of its own
 * yet (its patches applied, so they do): the tree as it is configured and
 * compiled first, in its own scope (writing ccache), into its own log
 * beside this one, so the series starts from a copy of its objects, as
 * every later series will. A failure there is said and the series goes on
 * from nothing. Then the tree is checked out and patched again.
 */
static int base_first(struct build *b, char *err)
{
	char series[sizeof(b->scope)], log[PATH_MAX], msg[ERR_MAX];
	int rc;

	if (!strcmp(b->scope, "base") || pathf(b->obj, err, "%s/obj-%s", b->tdir, b->req->arch) < 0 ||
	    is_dir(b->obj))
		return 0;
	tell(b, "obj: the tree's own build first, for its series to start from");
	memcpy(series, b->scope, sizeof(series));
	memcpy(log, b->log, sizeof(log));
	memcpy(b->scope, "base", 5);
	rc = pathf(b->log, err, "%s.base", log);
	if (rc == 0) {
		unlink(b->log);
		rc = checkout(b, msg) < 0 || scope_obj(b, msg) < 0 || readable_by_jail(b, msg) < 0 ||
		     configure(b, msg) < 0 || build_key(b, msg) < 0 || compile(b, msg) < 0 ? 1 : 0;
		if (rc)
			tell(b, "obj: the tree's own build failed, the series starts from nothing: %.300s",
			     msg);
		rc = 0;
	}
	memcpy(b->scope, series, sizeof(series));
	memcpy(b->log, log, sizeof(log));
	b->lasting = 0;
	if (rc < 0)
		return -1;
	return checkout(b, err) < 0 || apply_patches(b, err) < 0 ? -1 : 0;
}

/* One build at a time in a tree's cache repository, whichever process asks. */
static int lock_tree(const struct build *b, int *ret_fd, char *err)
{
	char path[PATH_MAX];
	int fd;

	if (pathf(path, err, "%s/lock", b->tdir) < 0)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		if (fd >= 0)
			close(fd);
		return errorf(err, "cannot lock %s: %s", path, strerror(errno));
	}
	*ret_fd = fd;
	return 0;
}

/*
 * The whole build under the tree's lock: its inputs hashed into a key, a
 * build remembered under that key (or a lasting failure) taken as is, else
 * prepared, configured, compiled and kept in the cache.
 */
static int build_steps(struct build *b, char *err)
{
	char required[PATH_MAX], key[HASH_SHA256_HEX] = "";
	_cleanup_close_ int lock = -1;
	int r;

	if (find_compiler(b, err) < 0 || tree_dirs(b, err) < 0 || lock_tree(b, &lock, err) < 0 ||
	    pathf(required, err, "%s/required.tmp", b->tdir) < 0 ||
	    kconfig_write_fragment(b->req->kconfig_dir, b->req->arch, "", required, err) < 0 ||
	    prepare_tree(b, err) < 0 || input_key(b, required, err) < 0)
		return -1;
	unlink(required);
	r = memo_read(b, key, err);
	if (r <= 0) {
		memcpy(b->out->key, key, sizeof(key));
		b->out->cached = 1;
		return r < 0 ? -1 : read_entry(b, err);
	}
	if (pathf(b->log, err, "%s/logs/%s.log", b->top, b->inputs) < 0)
		return -1;
	unlink(b->log);
	/* a patch that does not apply, a symbol lost or the compiler's error in a file
	 * of the tree stays so: kept; a config step or a compile that failed otherwise
	 * may be the host's (a package missing, the jail, a killed compiler), so it is
	 * tried again next time */
	r = prepare_source(b, err);
	if (r < 0 && b->lasting)
		memo_write(b, "failed", err);
	if (r < 0)
		return -1;
	if (r == 0 && compile(b, err) < 0) {
		if (b->lasting)
			memo_write(b, "failed", err);
		return -1;
	}
	if (r == 0 && (store_entry(b, err) < 0 || (save_compile_time(b), 0)))
		return -1;
	b->out->cached = r;
	memo_write(b, "key", b->out->key);
	return read_entry(b, err);
}

int kbuild_build(const struct kbuild_req *req, struct kbuild_result *out, char *err)
{
	struct build b = { .req = req, .out = out, .start = time(NULL) };
	char logs[PATH_MAX], real[PATH_MAX];

	memset(out, 0, sizeof(*out));
	if (pathf(b.top, err, "%s/%s", req->results, KBUILD_CACHE) < 0 ||
	    pathf(logs, err, "%s/logs", b.top) < 0 || mkdir_p(logs, err) < 0)
		return -1;
	/* the cache by its real path: make records the object directory's command
	 * lines, and ccache hashes the directory, so a cache reached by another
	 * path (a symlink, another working directory) would compile it all again */
	if (!realpath(b.top, real))
		return errorf(err, "%s: %s", b.top, strerror(errno));
	if (pathf(b.top, err, "%s", real) < 0 || pathf(logs, err, "%s/logs", b.top) < 0 ||
	    pathf(b.log, err, "%s/prepare.log", logs) < 0)
		return -1;
	return build_steps(&b, err);
}
