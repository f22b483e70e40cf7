/* pool.c -- content-addressed volumes on a libvirt host: stage (hash, look up,
 * verify, upload), per-run overlay and console volumes, and their removal. */
#include "vm/pool.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/virterror.h>

#define POOL_NAME      "mglru-harness"
#define HASHES_MAX     64          /* local files whose hash is remembered */
#define VERIFIED_MAX   256         /* volumes checked on this connection */
#define CONSOLE_MAX    (64u << 20) /* a console log longer than this is cut */
#define CHUNK          (1u << 20)

struct file_hash {
	char identity[128];          /* file_identity(): device, inode, size, mtime */
	char hex[HASH_SHA256_HEX];
};

struct vm_pool {
	char host[64];
	char dir[PATH_MAX];
	vm_note_fn note;
	void *note_arg;
	pthread_mutex_t lock;        /* everything below; held through a stage */
	struct file_hash hashes[HASHES_MAX];
	unsigned next_hash;
	char verified[VERIFIED_MAX][HASH_SHA256_HEX + 16];
	unsigned nverified;
};

struct vm_pool *vm_pool_new(const char *host, const char *dir, vm_note_fn note, void *arg)
{
	struct vm_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	fmtcut(p->host, sizeof(p->host), "%s", host);
	/* harness.conf's storage directories are under 256 bytes; without a
	 * pool, a guest's start says there is none */
	if (fmtbuf(p->dir, sizeof(p->dir), "%s", dir) < 0) {
		free(p);
		return NULL;
	}
	p->note = note;
	p->note_arg = arg;
	pthread_mutex_init(&p->lock, NULL);
	return p;
}

void vm_pool_free(struct vm_pool *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void vm_pool_forget(struct vm_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->nverified = 0;
	pthread_mutex_unlock(&p->lock);
}

static void notef(struct vm_pool *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line for the caller's note hook (progress, volumes made again), if set. */
static void notef(struct vm_pool *p, const char *fmt, ...)
{
	char msg[ERR_MAX];
	va_list ap;

	if (!p->note)
		return;
	va_start(ap, fmt);
	vfmtcut(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->note(p->note_arg, msg);
}

static int lverr(char *err, const char *host, const char *what)
{
	return errorf(err, "host %s: %s: %s", host, what, virGetLastErrorMessage());
}

/* The pool, started if it is not running (a transient one, made if missing). */
static virStoragePoolPtr open_pool(struct vm_pool *p, virConnectPtr conn, char *err)
{
	char xml[PATH_MAX + 256];
	virStoragePoolPtr pool = virStoragePoolLookupByName(conn, POOL_NAME);
	int active;

	if (pool) {
		active = virStoragePoolIsActive(pool);
		if (active == 1 || (active == 0 && virStoragePoolCreate(pool, 0) == 0))
			return pool;
		lverr(err, p->host, "cannot start storage pool " POOL_NAME);
		virStoragePoolFree(pool);
		return NULL;
	}
	if (fmtbuf(xml, sizeof(xml), "<pool type='dir'><name>" POOL_NAME "</name>"
		   "<target><path>%s</path></target></pool>", p->dir) < 0) {
		errorf(err, "host %s: the storage directory's path is too long", p->host);
		return NULL;
	}
	pool = virStoragePoolCreateXML(conn, xml, VIR_STORAGE_POOL_CREATE_WITH_BUILD);
	if (!pool)
		lverr(err, p->host, "cannot create storage pool " POOL_NAME " at its storage "
		      "directory");
	return pool;
}

/* The SHA-256 of a local file, remembered by its identity (one hashing per change). */
static int local_hash(struct vm_pool *p, const char *path, char hex[HASH_SHA256_HEX],
		      char *err)
{
	char id[128];
	unsigned i;

	if (file_identity(path, id, sizeof(id)) < 0)
		return errorf(err, "cannot stat '%s': %s", path, strerror(errno));
	for (i = 0; i < HASHES_MAX; i++)
		if (!strcmp(p->hashes[i].identity, id)) {
			memcpy(hex, p->hashes[i].hex, HASH_SHA256_HEX);
			return 0;
		}
	if (hash_sha256_file(path, hex, err) < 0)
		return -1;
	i = p->next_hash++ % HASHES_MAX;
	/* as long as id: it fits; a cut one could be another file's */
	if (fmtbuf(p->hashes[i].identity, sizeof(p->hashes[i].identity), "%s", id) < 0) {
		p->hashes[i].identity[0] = '\0';
		return errorf(err, "'%s': its identity is over %zu bytes", path,
			      sizeof(p->hashes[i].identity) - 1);
	}
	memcpy(p->hashes[i].hex, hex, HASH_SHA256_HEX);
	return 0;
}

/* 1 if volume name was hashed and found right on this connection already. */
static int is_verified(struct vm_pool *p, const char *name)
{
	unsigned i;

	for (i = 0; i < p->nverified; i++)
		if (!strcmp(p->verified[i], name))
			return 1;
	return 0;
}

static void set_verified(struct vm_pool *p, const char *name)
{
	/* a name too long to hold is not remembered: it is verified again */
	if (p->nverified < VERIFIED_MAX &&
	    fmtbuf(p->verified[p->nverified], sizeof(p->verified[0]), "%s", name) == 0)
		p->nverified++;
}

struct xfer {
	int fd;
	struct vm_pool *p;
	const char *name;
	uint64_t done, size;
	unsigned quarter;            /* progress noted at each 25 % */
	struct hash_sha256 h;
	int hashing;
};

/*
 * libvirt's upload source: the next bytes of the local file, progress noted
 * at each quarter.
 */
static int send_chunk(virStreamPtr st, char *data, size_t n, void *arg)
{
	struct xfer *x = arg;
	ssize_t got;

	(void)st;
	got = read(x->fd, data, n);
	if (got > 0) {
		x->done += (uint64_t)got;
		while (x->size && x->quarter < 3 && x->done * 4 >= x->size * (x->quarter + 1))
			notef(x->p, "host %s: uploading %s: %u %%", x->p->host, x->name,
			      25 * ++x->quarter);
	}
	return (int)got;
}

/*
 * libvirt's download sink: hashed when asked, and written to fd up to
 * CONSOLE_MAX bytes (a console volume's copy is bounded).
 */
static int recv_chunk(virStreamPtr st, const char *data, size_t n, void *arg)
{
	struct xfer *x = arg;

	(void)st;
	if (x->hashing)
		hash_sha256_update(&x->h, data, n);
	if (x->fd >= 0 && x->done < CONSOLE_MAX &&
	    write_all(x->fd, data, n < CONSOLE_MAX - x->done ? n : CONSOLE_MAX - x->done) < 0)
		return -1;
	x->done += n;
	return (int)n;
}

/* Download vol, hashing it (hex) and/or writing it to fd (-1: none). */
static int download(struct vm_pool *p, virConnectPtr conn, virStorageVolPtr vol, int fd,
		    char hex[HASH_SHA256_HEX], char *err)
{
	struct xfer x = { .fd = fd, .p = p, .hashing = hex != NULL };
	virStreamPtr st = virStreamNew(conn, 0);
	int rc = -1;

	if (!st)
		return lverr(err, p->host, "cannot open a stream");
	hash_sha256_init(&x.h);
	if (virStorageVolDownload(vol, st, 0, 0, 0) < 0 || virStreamRecvAll(st, recv_chunk, &x) < 0)
		lverr(err, p->host, "cannot download a volume");
	else if (virStreamFinish(st) < 0)
		lverr(err, p->host, "download did not finish");
	else
		rc = 0;
	if (rc < 0)
		virStreamAbort(st);
	virStreamFree(st);
	if (rc == 0 && hex)
		hash_sha256_final_hex(&x.h, hex);
	return rc;
}

/* Is vol the file's content: its size, then (once per connection) its hash? */
static int volume_matches(struct vm_pool *p, virConnectPtr conn, virStorageVolPtr vol,
			  const char *name, const char *want, uint64_t size, char *err)
{
	virStorageVolInfo info;
	char got[HASH_SHA256_HEX];

	if (is_verified(p, name))
		return 1;
	if (virStorageVolGetInfo(vol, &info) < 0)
		return lverr(err, p->host, "cannot read a volume's size");
	if (info.capacity != size)
		return 0;
	if (download(p, conn, vol, -1, got, err) < 0)
		return -1;
	if (strcmp(got, want))
		return 0;
	set_verified(p, name);
	return 1;
}

/*
 * local as a new raw volume called name in the pool (its size declared),
 * streamed; -1 with err, and a half-made volume deleted.
 */
static int upload(struct vm_pool *p, virConnectPtr conn, virStoragePoolPtr pool,
		  const char *local, const char *name, uint64_t size, char *err)
{
	char xml[512];
	struct xfer x = { .p = p, .name = name, .size = size };
	virStorageVolPtr vol;
	virStreamPtr st = NULL;
	int64_t t0 = now_ms();
	int rc = -1;

	if (fmtbuf(xml, sizeof(xml), "<volume><name>%s</name><capacity unit='bytes'>%llu"
		   "</capacity><target><format type='raw'/></target></volume>", name,
		   (unsigned long long)size) < 0)
		return errorf(err, "host %s: volume name %.64s... too long", p->host, name);
	x.fd = open(local, O_RDONLY | O_CLOEXEC);
	if (x.fd < 0)
		return errorf(err, "cannot open '%s': %s", local, strerror(errno));
	vol = virStorageVolCreateXML(pool, xml, 0);
	if (!vol) {
		lverr(err, p->host, "cannot create a volume");
		goto out;
	}
	notef(p, "host %s: uploading %s (%.1f MiB)", p->host, name, (double)size / 1048576.0);
	st = virStreamNew(conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, size, 0) < 0 ||
	    virStreamSendAll(st, send_chunk, &x) < 0 || virStreamFinish(st) < 0) {
		lverr(err, p->host, "upload broken off");
		if (st)
			virStreamAbort(st);
		/* half a volume under a content's name is deleted now, or found by its hash later */
		virStorageVolDelete(vol, 0);
		goto out;
	}
	if (x.done != size) {
		errorf(err, "host %s: '%s' changed while it was uploaded", p->host, local);
		virStorageVolDelete(vol, 0);
		goto out;
	}
	notef(p, "host %s: uploaded %s in %.1f s", p->host, name, (double)(now_ms() - t0) / 1000);
	set_verified(p, name);
	rc = 0;
out:
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	close(x.fd);
	return rc;
}

/* A volume's path on its host into out (PATH_MAX); -1 with err. */
static int vol_path(struct vm_pool *p, virStorageVolPtr vol, char *out, char *err)
{
	char *path = virStorageVolGetPath(vol);
	int rc = 0;

	if (!path)
		return lverr(err, p->host, "a volume has no path");
	if (snprintf(out, PATH_MAX, "%s", path) >= PATH_MAX)
		rc = errorf(err, "host %s: volume path too long", p->host);
	free(path);
	return rc;
}

/*
 * local in the pool as "SHA256.kind", uploaded only when no volume of that
 * name holds those bytes (one that does not is made again); its path on the
 * host into remote. Called with the pool's lock held.
 */
static int stage_locked(struct vm_pool *p, virConnectPtr conn, const char *local,
			const char *kind, char *remote, char *err)
{
	char hex[HASH_SHA256_HEX], name[HASH_SHA256_HEX + 16];
	virStoragePoolPtr pool;
	virStorageVolPtr vol;
	struct stat sb;
	int rc = -1, ok = 0;

	if (stat(local, &sb) < 0)
		return errorf(err, "cannot stat '%s': %s", local, strerror(errno));
	if (local_hash(p, local, hex, err) < 0 || !(pool = open_pool(p, conn, err)))
		return -1;
	if (fmtbuf(name, sizeof(name), "%s.%s", hex, kind) < 0) {
		errorf(err, "host %s: volume name for a %.32s over %zu bytes", p->host, kind,
		       sizeof(name) - 1);
		virStoragePoolFree(pool);
		return -1;
	}
	vol = virStorageVolLookupByName(pool, name);
	if (vol && (ok = volume_matches(p, conn, vol, name, hex, (uint64_t)sb.st_size, err)) < 0)
		goto out;
	if (vol && !ok) {
		notef(p, "host %s: volume %s is not what its name says: made again", p->host, name);
		virStorageVolDelete(vol, 0);
	}
	if (!ok && upload(p, conn, pool, local, name, (uint64_t)sb.st_size, err) < 0)
		goto out;
	if (!ok) {
		if (vol)
			virStorageVolFree(vol);
		vol = virStorageVolLookupByName(pool, name);
	}
	rc = vol ? vol_path(p, vol, remote, err) : lverr(err, p->host, "uploaded volume vanished");
out:
	if (vol)
		virStorageVolFree(vol);
	virStoragePoolFree(pool);
	return rc;
}

int vm_pool_stage(struct vm_pool *p, virConnectPtr conn, const char *local, const char *kind,
		  char *remote, char *err)
{
	int rc;

	pthread_mutex_lock(&p->lock);
	rc = stage_locked(p, conn, local, kind, remote, err);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* Create a volume from xml in the pool, its path into out. */
static int create_volume(struct vm_pool *p, virConnectPtr conn, const char *xml, char *out,
			 char *err)
{
	virStoragePoolPtr pool = open_pool(p, conn, err);
	virStorageVolPtr vol;
	int rc;

	if (!pool)
		return -1;
	vol = virStorageVolCreateXML(pool, xml, 0);
	virStoragePoolFree(pool);
	if (!vol)
		return lverr(err, p->host, "cannot create a run's volume");
	rc = vol_path(p, vol, out, err);
	virStorageVolFree(vol);
	return rc;
}

int vm_pool_overlay(struct vm_pool *p, virConnectPtr conn, const char *name,
		    const char *backing, const char *fmt, char *out, char *err)
{
	virStorageVolPtr base = virStorageVolLookupByPath(conn, backing);
	virStorageVolInfo info;
	char xml[PATH_MAX + 512];
	int ok;

	if (!base)
		return lverr(err, p->host, "no volume for the overlay's backing disk");
	ok = virStorageVolGetInfo(base, &info) == 0;
	virStorageVolFree(base);
	if (!ok)
		return lverr(err, p->host, "cannot read the data disk's size");
	if (fmtbuf(xml, sizeof(xml), "<volume><name>%s.qcow2</name>"
		   "<capacity unit='bytes'>%llu</capacity><target><format type='qcow2'/></target>"
		   "<backingStore><path>%s</path><format type='%s'/></backingStore></volume>",
		   name, (unsigned long long)info.capacity, backing, fmt) < 0)
		return errorf(err, "host %s: overlay %.64s...: its name or backing path is too long",
			      p->host, name);
	return create_volume(p, conn, xml, out, err);
}

int vm_pool_console(struct vm_pool *p, virConnectPtr conn, const char *name, char *out,
		    char *err)
{
	char xml[256];

	if (fmtbuf(xml, sizeof(xml), "<volume><name>%s.console</name><capacity unit='bytes'>0"
		   "</capacity><target><format type='raw'/></target></volume>", name) < 0)
		return errorf(err, "host %s: console volume %.64s...: name too long", p->host, name);
	return create_volume(p, conn, xml, out, err);
}

/*
 * The volume called "name.ext" in pool, or NULL. A name too long is none: cut,
 * it could be another run's volume, deleted by vm_pool_drop_run.
 */
static virStorageVolPtr volume_in(virStoragePoolPtr pool, const char *name, const char *ext)
{
	char vname[160];

	if (fmtbuf(vname, sizeof(vname), "%s.%s", name, ext) < 0)
		return NULL;
	return virStorageVolLookupByName(pool, vname);
}

/* A run's volume called "name.ext" in the pool, or NULL. */
static virStorageVolPtr run_volume(virConnectPtr conn, const char *name, const char *ext)
{
	virStoragePoolPtr pool = virStoragePoolLookupByName(conn, POOL_NAME);
	virStorageVolPtr vol;

	if (!pool)
		return NULL;
	vol = volume_in(pool, name, ext);
	virStoragePoolFree(pool);
	return vol;
}

int vm_pool_fetch_console(struct vm_pool *p, virConnectPtr conn, const char *name,
			  const char *path, char *err)
{
	virStorageVolPtr vol = run_volume(conn, name, "console");
	int fd, rc;

	if (!vol)
		return lverr(err, p->host, "no console volume");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		virStorageVolFree(vol);
		return errorf(err, "cannot write '%s': %s", path, strerror(errno));
	}
	rc = download(p, conn, vol, fd, NULL, err);
	virStorageVolFree(vol);
	if (close(fd) < 0 && rc == 0)
		rc = errorf(err, "cannot write '%s': %s", path, strerror(errno));
	return rc;
}

void vm_pool_drop(struct vm_pool *p, virConnectPtr conn, const char *name, const char *ext)
{
	virStorageVolPtr vol = run_volume(conn, name, ext);

	(void)p;
	if (!vol)
		return;
	virStorageVolDelete(vol, 0);
	virStorageVolFree(vol);
}

void vm_pool_drop_run(struct vm_pool *p, virConnectPtr conn, const char *name, int keep_disk)
{
	if (!keep_disk)
		vm_pool_drop(p, conn, name, "qcow2");
	vm_pool_drop(p, conn, name, "console");
}

int vm_pool_refresh(struct vm_pool *p, virConnectPtr conn, char *err)
{
	virStoragePoolPtr pool = open_pool(p, conn, err);
	int rc = 0;

	if (!pool)
		return -1;
	if (virStoragePoolRefresh(pool, 0) < 0)
		rc = lverr(err, p->host, "cannot read storage pool " POOL_NAME " again");
	virStoragePoolFree(pool);
	return rc;
}

int vm_pool_find(struct vm_pool *p, virConnectPtr conn, const char *name, const char *ext,
		 char *out, uint64_t *bytes, char *err)
{
	virStoragePoolPtr pool = open_pool(p, conn, err);   /* defined again if its daemon restarted */
	virStorageVolPtr vol;
	virStorageVolInfo info;
	int rc;

	if (!pool)
		return -1;
	vol = volume_in(pool, name, ext);
	virStoragePoolFree(pool);
	if (!vol) {
		virResetLastError();
		return 0;
	}
	rc = vol_path(p, vol, out, err);
	if (rc == 0 && virStorageVolGetInfo(vol, &info) < 0)
		rc = lverr(err, p->host, "cannot read a saved guest's volume");
	else if (rc == 0)
		*bytes = info.allocation;
	virStorageVolFree(vol);
	return rc < 0 ? -1 : 1;
}
