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

/*
 * One saved guest in <cache>/saves/<key>/: state (libvirt's save image),
 * disk.qcow2 (the guest's disk overlay as it was saved, on the data disk)
 * and hello (the agent's hello line from its boot, written last: a save
 * without it is incomplete). The key hashes everything the state depends
 * on: the arch, accelerator and TCG threading, guest size, kernel, initramfs
 * (the agent in it), data disk, command line, the slot (the domain's name and
 * uuid, which a restore must keep, are the key's), the generation (one of
 * the K saves of an arm, each from a boot of its own), QEMU's and libvirt's
 * versions and this host. Arms that differ only in their job (lru_gen)
 * share their saves: each block's runs of them start from the same image.
 */
struct saved {
	char key[HASH_SHA256_HEX];
	char dir[PATH_MAX], state[PATH_MAX], disk[PATH_MAX], hello[PATH_MAX];
	char name[48], uuid[37];
	int lock_fd;                 /* the key's lock: exclusive to make it, shared to use it */
	int ready;                   /* dir holds a complete save */
};

/*
 * Save gen for cfg (kernel, initrd, backing, cmdline, size, accel,
 * tcg_thread, emulator) with the host's facts f, slot slot: its key and
 * paths, and its lock taken exclusive (waiting while another process makes
 * or uses it); s->ready says whether it exists. 0, or -1 with err.
 */
int saved_open(const char *cache, const struct vm_config *cfg, const struct vm_host_facts *f,
	       int slot, unsigned gen, struct saved *s, char *err);

/*
 * d, booted with overlay as its disk and its agent's hello line (without
 * the newline) read: saved into s (d is gone after), overlay moved in as
 * the save's disk, hello written last. 0, or -1 with err (nothing kept).
 */
int saved_commit(struct saved *s, struct vm_domain *d, const char *overlay, const char *hello,
		 char *err);

/* What the complete save s takes on disk: its state, disk and hello, in bytes. */
uint64_t saved_bytes(const struct saved *s);

/* The lock turned shared: the save is in use until saved_close (pruning passes it by). */
void saved_share(struct saved *s);

/* The hello the saved guest's agent sent as it booted. 0, or -1 with err. */
int saved_hello(const struct saved *s, struct proto_msg *msg, char *err);

/* Drop the save (it could not be restored): the next run makes it again. */
void saved_drop(struct saved *s);

/* Let go of s's lock; its use is marked for pruning (least recently used first). */
void saved_close(struct saved *s);

/*
 * Remove the least recently used saves of cache until they take at most
 * max_bytes; one in use (its lock held) is passed by. Returns how many went.
 */
int saved_prune(const char *cache, uint64_t max_bytes);

#endif
