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
 * A file into the save's key: its path and its identity (device, inode,
 * size, mtime), so a changed kernel or image makes another save.
 */
static int key_file(struct hash_sha256 *h, const char *what, const char *path, char *err)
{
	char id[256];

	if (file_identity(path, id, sizeof(id)) < 0)
		return errorf(err, "saved guest: '%s': %s", path, strerror(errno));
	key_line(h, what, path);
	key_line(h, what, id);
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
	key_line(&h, "format", "2");
	key_line(&h, "cache", cache);     /* two results directories never share a save */
	key_line(&h, "host", s->host);
	if (key_file(&h, "kernel", cfg->kernel, err) < 0 ||
	    key_file(&h, "initrd", cfg->initrd, err) < 0 ||
	    key_file(&h, "disk", cfg->backing, err) < 0)
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

/* Every file of a save here, and its directory. */
static void remove_dir(const char *dir)
{
	const char *const names[] = { "state", "state.tmp", "disk.qcow2", "hello", "hello.tmp",
				      "host", "host.tmp", "users" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path))
			unlink(path);
	rmdir(dir);
}

/*
 * Is s complete? Here: its three files. On another host: its hello here and
 * both volumes there (their paths and bytes taken); a half-made one's
 * leftovers go. 1, 0, or -1 with err (the host cannot be asked).
 */
static int ready(struct saved *s, char *err)
{
	int rc;

	if (!s->vm)
		return access(s->state, R_OK) == 0 && access(s->disk, R_OK) == 0 &&
		       access(s->hello, R_OK) == 0;
	rc = vm_saved_find(s->vm, s->vol, s->state, s->disk, &s->bytes, err);
	if (rc < 0)
		return -1;
	if (rc == 1 && access(s->hello, R_OK) == 0)
		return 1;
	vm_saved_delete(s->vm, s->vol);
	remove_dir(s->dir);
	return 0;
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
	if (make_key(cache, cfg, f, slot, gen, s, err) < 0 ||
	    pathf(top, err, "%s/" SAVED_DIR, cache) < 0 || mkdir_p(top, err) < 0 ||
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
	FILE *f = fopen(s->hello, "re");
	size_t n = 0;

	if (f) {
		n = fread(line, 1, sizeof(line) - 1, f);
		fclose(f);
	}
	if (!f || n == 0)
		return errorf(err, "saved guest %.16s: no hello kept", s->key);
	line[n] = '\0';
	if (proto_parse(line, strcspn(line, "\n"), msg, perr, sizeof(perr)) < 0 ||
	    msg->type != PROTO_HELLO)
		return errorf(err, "saved guest %.16s: its kept hello: %s", s->key,
			      msg->type != PROTO_HELLO ? "not a hello" : perr);
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
		utimensat(AT_FDCWD, s->hello, NULL, 0);   /* used now: the last to be pruned */
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	s->lock_fd = -1;
}

struct save_entry {
	char key[HASH_SHA256_HEX];
	uint64_t bytes;
	int64_t used;                /* the hello's mtime: the save's last use */
};

/* The blocks a save's file takes on disk (0 if it has none), and its mtime. */
static uint64_t file_bytes(const char *dir, const char *name, int64_t *mtime)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    stat(path, &st) < 0)
		return 0;
	if (mtime)
		*mtime = (int64_t)st.st_mtime;
	return (uint64_t)st.st_blocks * 512;
}

/* A save directory's files on disk, bytes; its last use (the hello's mtime) in *used. */
static uint64_t dir_bytes(const char *dir, int64_t *used)
{
	return file_bytes(dir, "state", NULL) + file_bytes(dir, "disk.qcow2", NULL) +
	       file_bytes(dir, "hello", used);
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
	char path[PATH_MAX];
	ssize_t n = -1;
	int fd;

	buf[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
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

/* The saves under top that host keeps (NULL: here) into *ret, with their bytes and last use. */
static size_t list_saves(const char *top, const char *host, struct save_entry **ret)
{
	char dir[PATH_MAX];
	struct save_entry *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	uint64_t bytes = 0;
	DIR *d = opendir(top);

	while (d && (de = readdir(d))) {
		if (!hash_sha256_hex_ok(de->d_name) ||
		    snprintf(dir, sizeof(dir), "%s/%s", top, de->d_name) >= (int)sizeof(dir) ||
		    !kept_by(dir, host, &bytes))
			continue;
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
	size_t n;
	int fd;

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
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		if (fd >= 0)
			close(fd);
		return errorf(err, "saved guest: cannot write '%s': %s", path, strerror(errno));
	}
	close(fd);
	return 0;
}
