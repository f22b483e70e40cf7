/* pool.h -- the harness's storage pool on a libvirt host: what a guest boots
 * from, uploaded once per content and verified by hash, and each run's volumes.
 *
 * A host reached through libvirt's remote protocol shares no file system with
 * the harness: kernels, initramfs images and data disks travel as volumes
 * named by their SHA-256 (virStorageVolUpload), each run's overlay is created
 * there on its backing volume, and the guest's console file is read back
 * through the connection (virStorageVolDownload).
 */
#ifndef POOL_H
#define POOL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <libvirt/libvirt.h>

struct vm_pool;

/* What a pool reports while it works (an upload's progress); may be NULL. */
typedef void (*vm_note_fn)(void *arg, const char *msg);

/*
 * The pool "mglru-harness" on conn, a directory pool at dir (made if missing,
 * transient: defined again after the daemon there restarts). host names the
 * host in messages.
 */
struct vm_pool *vm_pool_new(const char *host, const char *dir, vm_note_fn note, void *arg);
void vm_pool_free(struct vm_pool *p);

/*
 * The volume holding the local file's content, its path on the host into
 * remote (PATH_MAX): uploaded if the pool has none under the file's hash, or
 * has one whose size or content (downloaded and hashed once per connection)
 * is not that; an upload broken off is deleted and made again next time.
 * kind names it in messages ("kernel", "initrd", "disk").
 */
int vm_pool_stage(struct vm_pool *p, virConnectPtr conn, const char *local, const char *kind,
		  char *remote, char *err);

/*
 * A qcow2 overlay NAME.qcow2 on backing (the path of a volume there: a
 * staged disk, fmt "raw", or a saved guest's, "qcow2"), its path into out.
 */
int vm_pool_overlay(struct vm_pool *p, virConnectPtr conn, const char *name,
		    const char *backing, const char *fmt, char *out, char *err);

/* An empty volume NAME.console for the guest's serial console file, path into out. */
int vm_pool_console(struct vm_pool *p, virConnectPtr conn, const char *name, char *out,
		    char *err);

/*
 * Download NAME.console onto the end of the local file path (made 0600 if
 * missing): a guest saved and then restored by one run has both its consoles
 * there, the boot's first. What came before an error is kept.
 */
int vm_pool_fetch_console(struct vm_pool *p, virConnectPtr conn, const char *name,
			  const char *path, char *err);

/* Delete the run's volumes, NAME.qcow2 (unless keep_disk) and NAME.console, where they exist. */
void vm_pool_drop_run(struct vm_pool *p, virConnectPtr conn, const char *name, int keep_disk);

/* Delete the volume NAME.EXT, if there is one. */
void vm_pool_drop(struct vm_pool *p, virConnectPtr conn, const char *name, const char *ext);

/* The pool's directory read again: a file libvirt wrote there (a saved state) becomes a volume. */
int vm_pool_refresh(struct vm_pool *p, virConnectPtr conn, char *err);

/* The volume NAME.EXT: 1, its path there into out (PATH_MAX) and its bytes on disk; 0 if none; -1. */
int vm_pool_find(struct vm_pool *p, virConnectPtr conn, const char *name, const char *ext,
		 char *out, uint64_t *bytes, char *err);

/* The connection broke: nothing the pool verified on it is trusted any more. */
void vm_pool_forget(struct vm_pool *p);

#endif
