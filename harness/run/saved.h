/* saved.h -- guests saved once per arm as they were ready for a job, and
 * restored for the arm's later runs: the cache key, its lock, the save, pruning. */
#ifndef SAVED_H
#define SAVED_H

#include <limits.h>
#include <stdint.h>

#include "base/hash.h"
#include "common/proto.h"
#include "vm/vm.h"

#define SAVED_DIR "saves"           /* under <results>/cache */
#define SAVED_VOL "save-"           /* another host's volumes: save-KEY.state, save-KEY.qcow2 */
#define SAVED_USERS_MAX 64          /* matrices a save's "users" file names */
#define SAVED_STRIKES 2             /* restores a save may fail before it is made again */

/*
 * One saved guest in <cache>/saves/<key>/: state (libvirt's save image),
 * disk.qcow2 (the guest's disk overlay as it was saved, on the data disk)
 * and hello (the agent's hello line from its boot, written last: a save
 * without it is incomplete). A guest of another host is saved there, never
 * copied: its state and disk are the volumes save-KEY.state and
 * save-KEY.qcow2 in that host's pool, and <key>/ here holds its hello and
 * "host" (the host's name and the volumes' bytes, for pruning). No path of a
 * save is followed through a link: a link where a save's directory or file
 * should be is not a save, and only the link is removed.
 * The key hashes everything the state depends on: the arch, accelerator
 * and TCG threading, guest size, kernel and initramfs (the agent in it; by
 * content too, each file's sum kept in <cache>/sums by inode, size, mtime and
 * ctime, so each version of a file is read once), data
 * disk, command line, the slot (the domain's name and uuid, which a restore
 * must keep, are the key's), the generation (one of the K saves of an arm,
 * each from a boot of its own), QEMU's and libvirt's versions, the host (its
 * name, kernel and CPU) and this cache. Arms that differ only in their job
 * (lru_gen) share their saves: each block's runs of them start from the same
 * image.
 */
struct saved {
	char key[HASH_SHA256_HEX];
	char dir[PATH_MAX], state[PATH_MAX], disk[PATH_MAX], hello[PATH_MAX];
	char name[48], uuid[37];
	struct vm_conn *vm;          /* another host, which keeps the state and disk; NULL: here */
	char host[64];               /* its name */
	char vol[80];                /* there: the volumes VOL.state and VOL.qcow2 */
	uint64_t bytes;              /* there: what they take */
	int lock_fd;                 /* the key's lock: exclusive to make it, shared to use it */
	int ready;                   /* dir holds a complete save */
};

/*
 * Save gen for cfg (kernel, initrd, backing, cmdline, size, accel,
 * tcg_thread, emulator) on host (vm, named host; its facts f), slot slot:
 * its key and paths, and its lock taken exclusive (waiting while another
 * process makes or uses it); s->ready says whether it exists (on another
 * host: whether its volumes are there). A ready one is opened for a
 * restore: one that SAVED_STRIKES restores opened so before did not reach
 * their hello (saved_hello) is dropped, not ready. 0, or -1 with err.
 */
int saved_open(const char *cache, struct vm_conn *vm, const char *host,
	       const struct vm_config *cfg, const struct vm_host_facts *f, int slot, unsigned gen,
	       struct saved *s, char *err);

/*
 * d, booted with overlay as its disk and its agent's hello line (without
 * the newline) read: saved into s (d is gone after), overlay moved in as
 * the save's disk, hello written last. On another host d must have booted
 * with s->vol as its volumes' name (overlay is then not used). 0, or -1
 * with err (nothing kept).
 */
int saved_commit(struct saved *s, struct vm_domain *d, const char *overlay, const char *hello,
		 char *err);

/* What the complete save s takes on disk: its state, disk and hello, in bytes. */
uint64_t saved_bytes(const struct saved *s);

/* The lock turned shared: the save is in use until saved_close (pruning passes it by). */
void saved_share(struct saved *s);

/* The hello the saved guest's agent sent as it booted: the restore went
 * through, its strikes are cleared. 0, or -1 with err. */
int saved_hello(const struct saved *s, struct proto_msg *msg, char *err);

/* Drop the save (it could not be restored): the next run makes it again. */
void saved_drop(struct saved *s);

/* Let go of s's lock; its use is marked for pruning (least recently used first). */
void saved_close(struct saved *s);

/*
 * The queue's hold on saves: live(arg, matrix) is 1 while that matrix is
 * not finished (queued, running or paused), and a save one of those used
 * is not pruned.
 */
struct saved_users {
	int (*live)(void *arg, int64_t matrix_id);
	void *arg;
};

/*
 * A run of matrix_id uses s (made or restored it): the matrix named in the
 * save's "users" file, once. 0, or -1 with err.
 */
int saved_use(const struct saved *s, int64_t matrix_id, char *err);

/*
 * Remove the least recently used saves host keeps (vm; this machine's if
 * vm is NULL or local) until they take at most max_bytes there. One in use (its
 * lock held) is passed by, and so is one a matrix u says is live has used:
 * the queue's needs win over the cap. Returns how many went.
 */
int saved_prune(const char *cache, struct vm_conn *vm, const char *host, uint64_t max_bytes,
		const struct saved_users *u);

#endif
