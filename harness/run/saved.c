/* saved.c -- guests saved once per arm and restored for its later runs: the
 * cache key and lock, making a save, reading it back, pruning (see saved.h). */
#include "run/saved.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* One line "what=identity" of the key's text; a file's identity if path is one. */
static void key_line(struct hash_sha256 *h, const char *what, const char *value)
{
	hash_sha256_update(h, what, strlen(what));
	hash_sha256_update(h, "=", 1);
	hash_sha256_update(h, value ? value : "", value ? strlen(value) : 0);
	hash_sha256_update(h, "\n", 1);
}

/*
 * The directory dir names, opened without following a link at its last two
 * components (saves/ and the key's directory): an fd, or -1 with errno
 * (ELOOP or ENOTDIR: a link or a file is there).
 */
static int dir_open(const char *dir)
{
	char parent[PATH_MAX], *slash;
	_cleanup_close_ int pfd = -1;

	if (fmtbuf(parent, sizeof(parent), "%s", dir) < 0 || !(slash = strrchr(parent, '/'))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*slash = '\0';
	pfd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	return openat(pfd, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* A file's identity for its sum: size, mtime and ctime, which no one can set back. */
static int sum_identity(const struct stat *st, char *buf, size_t len)
{
	return fmtbuf(buf, len, "%llu %lld.%09ld %lld.%09ld", (unsigned long long)st->st_size,
		      (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		      (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/*
 * The sum kept in <cache>/sums/DEV-INO for a file of identity id, into hex;
 * 0 if there is none or it is another's.
 */
static int sum_cached(const char *kept, const char *id, char hex[HASH_SHA256_HEX])
{
	char line[256];
	size_t n = strlen(id);
	ssize_t got;
	_cleanup_close_ int fd = open(kept, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || (got = read(fd, line, sizeof(line) - 1)) <= 0)
		return 0;
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, id, n) || line[n] != ' ' || !hash_sha256_hex_ok(line + n + 1))
		return 0;
	memcpy(hex, line + n + 1, HASH_SHA256_HEX);
	return 1;
}

/*
 * The SHA-256 of the file at path, read once per version of it: kept in
 * <cache>/sums by device and inode with its size, mtime and ctime, and used
 * while those stay (a file rewritten in place, its mtime put back, has
 * another ctime). A sum read while the file changed is not kept.
 */
static int content_sum(const char *cache, const char *path, char hex[HASH_SHA256_HEX],
		       char *err)
{
	char dir[PATH_MAX], kept[PATH_MAX], id[128], line[256], msg[ERR_MAX];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat a, b;

	if (fd < 0 || fstat(fd, &a) < 0)
		return errorf(err, "saved guest: '%s': %s", path, strerror(errno));
	if (sum_identity(&a, id, sizeof(id)) < 0 || pathf(dir, err, "%s/sums", cache) < 0 ||
	    pathf(kept, err, "%s/%llu-%llu", dir, (unsigned long long)a.st_dev,
		  (unsigned long long)a.st_ino) < 0)
		return -1;
	if (sum_cached(kept, id, hex))
		return 0;
	if (hash_sha256_fd(fd, path, hex, msg) < 0)
		return errorf(err, "saved guest: %s", msg);
	if (fstat(fd, &b) == 0 && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
	    a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ctim.tv_sec == b.st_ctim.tv_sec &&
	    a.st_ctim.tv_nsec == b.st_ctim.tv_nsec && a.st_size == b.st_size &&
	    fmtbuf(line, sizeof(line), "%s %s\n", id, hex) == 0) {
		if (mkdir(dir, 0700) == 0 || errno == EEXIST)
			write_file(kept, line, strlen(line), msg);   /* a cache: failing costs a read */
	}
	return 0;
}

/*
 * A file into the save's key: its path, its identity (device, inode, size,
 * mtime) and, for what the guest's memory holds (kernel, initramfs), its
 * content's sum, so a changed kernel or image makes another save.
 */
static int key_file(struct hash_sha256 *h, const char *cache, const char *what,
		    const char *path, int by_content, char *err)
{
	char id[256], sum[HASH_SHA256_HEX];

	if (file_identity(path, id, sizeof(id)) < 0)
		return errorf(err, "saved guest: '%s': %s", path, strerror(errno));
	key_line(h, what, path);
	key_line(h, what, id);
	if (by_content) {
		if (content_sum(cache, path, sum, err) < 0)
			return -1;
		key_line(h, what, sum);
	}
	return 0;
}

/* The key of cfg's save into s->key, its domain name and uuid from it. */
static int make_key(const char *cache, const struct vm_config *cfg,
		    const struct vm_host_facts *f, int slot, unsigned gen, struct saved *s, char *err)
{
	struct hash_sha256 h;
	struct utsname u;
	char num[64];
	const char *k = s->key;

	hash_sha256_init(&h);
	key_line(&h, "format", "3");
	key_line(&h, "cache", cache);     /* two results directories never share a save */
	key_line(&h, "host", s->host);
	if (key_file(&h, cache, "kernel", cfg->kernel, 1, err) < 0 ||
	    key_file(&h, cache, "initrd", cfg->initrd, 1, err) < 0 ||
	    key_file(&h, cache, "disk", cfg->backing, 0, err) < 0)
		return -1;
	key_line(&h, "arch", cfg->arch);
	key_line(&h, "accel", cfg->accel);
	key_line(&h, "tcg_thread", cfg->tcg_thread);
	key_line(&h, "emulator", cfg->emulator);
	key_line(&h, "cmdline", cfg->cmdline);
	if (fmtbuf(num, sizeof(num), "%llu %llu %d %u", (unsigned long long)cfg->memory_mib,
		   (unsigned long long)cfg->vcpus, slot, gen) < 0)
		return errorf(err, "saved guest: size, slot and gen over %zu bytes",
			      sizeof(num) - 1);
	key_line(&h, "size slot gen", num);
	key_line(&h, "qemu", f->qemu);
	key_line(&h, "libvirt", f->libvirt);
	if (uname(&u) == 0)
		key_line(&h, "controller", u.nodename);
	key_line(&h, "host kernel", f->kernel);
	key_line(&h, "host cpu", f->cpu_model);
	hash_sha256_final_hex(&h, s->key);
	if (fmtbuf(s->name, sizeof(s->name), "harness-save-%.16s", k) < 0 ||
	    fmtbuf(s->vol, sizeof(s->vol), SAVED_VOL "%s", k) < 0 ||
	    fmtbuf(s->uuid, sizeof(s->uuid), "%.8s-%.4s-%.4s-%.4s-%.12s", k, k + 8, k + 12,
		   k + 16, k + 20) < 0)
		return errorf(err, "saved guest: domain name or uuid too long");
	return 0;
}

/* Every file of a save here, and its directory; a link or file in its place, itself. */
static void remove_dir(const char *dir)
{
	const char *const names[] = { "state", "state.tmp", "disk.qcow2", "hello", "hello.tmp",
				      "host", "host.tmp", "users", "strikes", "strikes.tmp" };
	char parent[PATH_MAX], *base;
	_cleanup_close_ int pfd = -1, dfd = -1;
	size_t i;

	if (fmtbuf(parent, sizeof(parent), "%s", dir) < 0 || !(base = strrchr(parent, '/')))
		return;
	*base++ = '\0';
	pfd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return;
	dfd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			unlinkat(pfd, base, 0);   /* the link, never what it points to */
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++)
		unlinkat(dfd, names[i], 0);
	unlinkat(pfd, base, AT_REMOVEDIR);
}

/* Is name in the directory dfd a regular file (not a link) it may read? */
static int regular_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/*
 * A ready save's restores that have not reached their hello, one more
 * counted (the file "strikes"; saved_hello clears it). The count before
 * this one.
 */
static int strike(int dfd)
{
	char c = '0';
	_cleanup_close_ int rfd = openat(dfd, "strikes", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int wfd = -1;

	if (rfd >= 0 && (read(rfd, &c, 1) != 1 || c < '0' || c > '9'))
		c = '9';     /* not as written: as many as it takes */
	if (c - '0' >= SAVED_STRIKES)
		return c - '0';
	wfd = openat(dfd, "strikes", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	c++;
	if (wfd >= 0 && write(wfd, &c, 1) != 1)
		return SAVED_STRIKES;   /* cannot count: made again, as if it had failed */
	return c - '1';
}

/*
 * Is s complete? Here: its three files. On another host: its hello here and
 * both volumes there (their paths and bytes taken); a half-made one's
 * leftovers go. 1, 0, or -1 with err (the host cannot be asked).
 */
static int ready(struct saved *s, char *err)
{
	_cleanup_close_ int dfd = dir_open(s->dir);
	int rc;

	if (dfd < 0)
		remove_dir(s->dir);   /* none, or a link in its place: the link goes */
	if (!s->vm)
		return dfd >= 0 && regular_at(dfd, "state") && regular_at(dfd, "disk.qcow2") &&
		       regular_at(dfd, "hello");
	rc = vm_saved_find(s->vm, s->vol, s->state, s->disk, &s->bytes, err);
	if (rc < 0)
		return -1;
	if (rc == 1 && dfd >= 0 && regular_at(dfd, "hello"))
		return 1;
	vm_saved_delete(s->vm, s->vol);
	remove_dir(s->dir);
	return 0;
}

/*
 * A ready save opened for a restore: one more strike, and one that has
 * failed SAVED_STRIKES restores dropped (the run makes it again). s->ready.
 */
static int judge(struct saved *s)
{
	_cleanup_close_ int dfd = dir_open(s->dir);

	if (dfd < 0 || strike(dfd) >= SAVED_STRIKES)
		saved_drop(s);
	return s->ready;
}

int saved_open(const char *cache, struct vm_conn *vm, const char *host,
	       const struct vm_config *cfg, const struct vm_host_facts *f, int slot, unsigned gen,
	       struct saved *s, char *err)
{
	char top[PATH_MAX], lock[PATH_MAX];
	int rc;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	s->vm = vm && !vm_is_local(vm) ? vm : NULL;
	if (fmtbuf(s->host, sizeof(s->host), "%s", host) < 0)
		return errorf(err, "saved guest: host name %.32s... too long", host);
	if (pathf(top, err, "%s/" SAVED_DIR, cache) < 0 || mkdir_p(top, err) < 0 ||
	    make_key(cache, cfg, f, slot, gen, s, err) < 0 ||
	    pathf(lock, err, "%s/%s.lock", top, s->key) < 0 ||
	    pathf(s->dir, err, "%s/%s", top, s->key) < 0 ||
	    pathf(s->state, err, "%s/state", s->dir) < 0 ||
	    pathf(s->disk, err, "%s/disk.qcow2", s->dir) < 0 ||
	    pathf(s->hello, err, "%s/hello", s->dir) < 0)
		return -1;
	s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->lock_fd < 0)
		return errorf(err, "saved guest: cannot open '%s': %s", lock, strerror(errno));
	while (flock(s->lock_fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			errorf(err, "saved guest: cannot lock '%s': %s", lock, strerror(errno));
			saved_close(s);
			return -1;
		}
	}
	if ((rc = ready(s, err)) < 0) {
		saved_close(s);
		return -1;
	}
	s->ready = rc;
	if (s->ready)
		judge(s);
	return 0;
}

/* Another host's save, made: where its volumes are, and its record here ("host": name, bytes). */
static int commit_remote(struct saved *s, struct vm_domain *d, char *err)
{
	char line[128], path[PATH_MAX];
	int rc;

	if (vm_save(d, NULL, err) < 0)
		return -1;
	rc = vm_saved_find(s->vm, s->vol, s->state, s->disk, &s->bytes, err);
	if (rc == 0)
		return errorf(err, "saved guest: host %s has no volumes %s.* after the save",
			      s->host, s->vol);
	if (rc < 0 || pathf(path, err, "%s/host", s->dir) < 0)
		return -1;
	/* the name is under 64 bytes and the number 20 */
	fmtcut(line, sizeof(line), "%s %llu\n", s->host, (unsigned long long)s->bytes);
	return write_file(path, line, strlen(line), err);
}

/* This machine's save, made: the state written beside, the overlay moved in. */
static int commit_local(struct saved *s, struct vm_domain *d, const char *overlay, char *err)
{
	char tmp[PATH_MAX];

	if (pathf(tmp, err, "%s.tmp", s->state) < 0) {
		vm_destroy(d);
		return -1;
	}
	if (vm_save(d, tmp, err) < 0)
		return -1;
	if (rename(tmp, s->state) < 0 || rename(overlay, s->disk) < 0)
		return errorf(err, "saved guest: cannot move it into '%s': %s", s->dir,
			      strerror(errno));
	return 0;
}

int saved_commit(struct saved *s, struct vm_domain *d, const char *overlay, const char *hello,
		 char *err)
{
	remove_dir(s->dir);
	if (mkdir(s->dir, 0700) < 0 && errno != EEXIST) {
		vm_destroy(d);
		return errorf(err, "saved guest: cannot make '%s': %s", s->dir, strerror(errno));
	}
	if ((s->vm ? commit_remote(s, d, err) : commit_local(s, d, overlay, err)) < 0 ||
	    write_file(s->hello, hello, strlen(hello), err) < 0) {
		saved_drop(s);
		return -1;
	}
	s->ready = 1;
	return 0;
}

void saved_share(struct saved *s)
{
	if (s->lock_fd >= 0)
		flock(s->lock_fd, LOCK_SH);
}

int saved_hello(const struct saved *s, struct proto_msg *msg, char *err)
{
	char line[PROTO_LINE_MAX], perr[PROTO_ERR_MAX];
	_cleanup_close_ int dfd = dir_open(s->dir), fd = -1;
	ssize_t n = 0;

	if (dfd >= 0)
		fd = openat(dfd, "hello", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		n = read(fd, line, sizeof(line) - 1);
	if (fd < 0 || n <= 0)
		return errorf(err, "saved guest %.16s: no hello kept", s->key);
	line[n] = '\0';
	if (proto_parse(line, strcspn(line, "\n"), msg, perr, sizeof(perr)) < 0 ||
	    msg->type != PROTO_HELLO)
		return errorf(err, "saved guest %.16s: its kept hello: %s", s->key,
			      msg->type != PROTO_HELLO ? "not a hello" : perr);
	unlinkat(dfd, "strikes", 0);   /* restored: its strikes are forgiven */
	return 0;
}

void saved_drop(struct saved *s)
{
	if (s->vm)
		vm_saved_delete(s->vm, s->vol);
	remove_dir(s->dir);
	s->ready = 0;
}

void saved_close(struct saved *s)
{
	if (s->ready)
		utimensat(AT_FDCWD, s->hello, NULL, AT_SYMLINK_NOFOLLOW);   /* used now: pruned last */
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	s->lock_fd = -1;
}

struct save_entry {
	char key[HASH_SHA256_HEX];
	uint64_t bytes;
	int64_t used;                /* the hello's mtime: the save's last use */
};

/* The blocks a save's file takes on disk (0 if it has none, or a link), and its mtime. */
static uint64_t file_bytes(int dfd, const char *name, int64_t *mtime)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (mtime)
		*mtime = (int64_t)st.st_mtime;
	return (uint64_t)st.st_blocks * 512;
}

/* A save directory's files on disk, bytes; its last use (the hello's mtime) in *used. */
static uint64_t dir_bytes(const char *dir, int64_t *used)
{
	_cleanup_close_ int dfd = dir_open(dir);

	if (dfd < 0)
		return 0;
	return file_bytes(dfd, "state", NULL) + file_bytes(dfd, "disk.qcow2", NULL) +
	       file_bytes(dfd, "hello", used);
}

uint64_t saved_bytes(const struct saved *s)
{
	return s->vm ? s->bytes : dir_bytes(s->dir, NULL);
}

/*
 * A small text file of the save directory dir into buf (NUL-ended, at most
 * len - 1 bytes); "" if there is none.
 */
static void read_small(const char *dir, const char *name, char *buf, size_t len)
{
	_cleanup_close_ int dfd = dir_open(dir), fd = -1;
	ssize_t n = -1;

	buf[0] = '\0';
	if (dfd < 0 || (fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * Is the save in dir kept by host (NULL: this machine)? What it takes there
 * into *bytes (another host's: the figure its "host" file recorded).
 */
static int kept_by(const char *dir, const char *host, uint64_t *bytes)
{
	char text[128], name[64];
	unsigned long long b;

	read_small(dir, "host", text, sizeof(text));
	if (!host)
		return !text[0];
	if (sscanf(text, "%63s %llu", name, &b) != 2 || strcmp(name, host))
		return 0;
	*bytes = b;
	return 1;
}

static int by_use(const void *a, const void *b)
{
	const struct save_entry *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

/*
 * Does a matrix the queue has not finished use the save in dir? Its "users"
 * file names every matrix a run of which made or restored it.
 */
static int queue_holds(const char *dir, const struct saved_users *u)
{
	char text[SAVED_USERS_MAX * 24], *p, *end;
	long long mid;

	if (!u || !u->live)
		return 0;
	read_small(dir, "users", text, sizeof(text));
	for (p = text; *p; p = end) {
		mid = strtoll(p, &end, 10);
		if (end == p || *end != '\n')
			return 1;      /* not as written: kept, as in use */
		end++;
		if (u->live(u->arg, mid))
			return 1;
	}
	return 0;
}

/* Remove the save e if nobody holds its lock and no unfinished matrix uses it. 1 if it went. */
static int prune_one(const char *top, const struct save_entry *e, struct vm_conn *vm,
		     const struct saved_users *u)
{
	char lock[PATH_MAX], dir[PATH_MAX], vol[80];
	int fd, gone = 0;

	if (snprintf(lock, sizeof(lock), "%s/%s.lock", top, e->key) >= (int)sizeof(lock) ||
	    snprintf(dir, sizeof(dir), "%s/%s", top, e->key) >= (int)sizeof(dir) ||
	    snprintf(vol, sizeof(vol), SAVED_VOL "%s", e->key) >= (int)sizeof(vol))
		return 0;
	fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && !queue_holds(dir, u)) {
		if (vm)
			vm_saved_delete(vm, vol);
		remove_dir(dir);
		unlink(lock);
		gone = 1;
	}
	if (fd >= 0)
		close(fd);
	return gone;
}

/* Is dir a directory itself, not a link to one? */
static int is_dir(const char *dir)
{
	_cleanup_close_ int dfd = dir_open(dir);

	return dfd >= 0;
}

/* The saves under top that host keeps (NULL: here) into *ret, with their bytes and last use. */
static size_t list_saves(const char *top, const char *host, struct save_entry **ret)
{
	char dir[PATH_MAX];
	struct save_entry *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	uint64_t bytes = 0;
	int tfd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = tfd >= 0 ? fdopendir(tfd) : NULL;

	while (d && (de = readdir(d))) {
		if (!hash_sha256_hex_ok(de->d_name) ||
		    snprintf(dir, sizeof(dir), "%s/%s", top, de->d_name) >= (int)sizeof(dir) ||
		    !is_dir(dir) || !kept_by(dir, host, &bytes))
			continue;   /* a link or a file is no save: nothing through it is pruned */
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if (!(nv = realloc(v, cap * sizeof(*v))))
				break;
			v = nv;
		}
		memcpy(v[n].key, de->d_name, HASH_SHA256_HEX);
		v[n].used = 0;
		v[n].bytes = dir_bytes(dir, &v[n].used);
		if (host)
			v[n].bytes = bytes;
		n++;
	}
	if (d)
		closedir(d);
	*ret = v;
	return n;
}

int saved_prune(const char *cache, struct vm_conn *vm, const char *host, uint64_t max_bytes,
		const struct saved_users *u)
{
	char top[PATH_MAX];
	struct save_entry *v = NULL;
	size_t n, i;
	uint64_t total = 0;
	int gone = 0;

	if (!vm || vm_is_local(vm)) {
		vm = NULL;
		host = NULL;
	}
	if (snprintf(top, sizeof(top), "%s/" SAVED_DIR, cache) >= (int)sizeof(top))
		return 0;
	n = list_saves(top, host, &v);
	for (i = 0; i < n; i++)
		total += v[i].bytes;
	if (n)
		qsort(v, n, sizeof(*v), by_use);
	for (i = 0; i < n && total > max_bytes; i++)
		if (prune_one(top, &v[i], vm, u)) {
			total -= v[i].bytes;
			gone++;
		}
	free(v);
	return gone;
}

int saved_use(const struct saved *s, int64_t matrix_id, char *err)
{
	char text[SAVED_USERS_MAX * 24], line[24], path[PATH_MAX], *p;
	_cleanup_close_ int dfd = -1, fd = -1;
	size_t n;

	if (fmtbuf(line, sizeof(line), "%lld\n", (long long)matrix_id) < 0 ||
	    pathf(path, err, "%s/users", s->dir) < 0)
		return -1;
	read_small(s->dir, "users", text, sizeof(text));
	for (p = text, n = 0; p && *p; n++) {
		if (!strncmp(p, line, strlen(line)))
			return 0;
		if ((p = strchr(p, '\n')))
			p++;
	}
	if (n >= SAVED_USERS_MAX - 1)
		return 0;      /* a save so widely used is kept while any of those first is live */
	dfd = dir_open(s->dir);
	if (dfd >= 0)
		fd = openat(dfd, "users", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			    0600);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return errorf(err, "saved guest: cannot write '%s': %s", path, strerror(errno));
	return 0;
}
