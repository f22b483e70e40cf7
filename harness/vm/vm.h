/* vm.h -- guests through libvirt's C API: one transient, autodestroyed domain
 * per run, direct kernel boot, a virtio-serial channel and a serial console log.
 *
 * Folder vm/: guests and what they boot: libvirt (vm.c; vm_xml.c, vm_embed.c and
 * vm_probe.c beside it), the channel and console, kernels and initramfs images
 * (image.c), downloads into the cache (fetch.c).
 * It may call: base/ common/.
 */
#ifndef VM_H
#define VM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vm/hostinfo.h"
#include "vm/pool.h"

struct vm_conn;
struct vm_domain;

struct vm_config {
	const char *name;
	const char *arch;        /* "x86_64" or "aarch64" */
	const char *accel;       /* "kvm" or "tcg" */
	uint64_t memory_mib, vcpus;
	const char *kernel, *initrd, *cmdline;
	const char *backing;     /* the data disk the run's overlay starts from */
	const char *backing_fmt; /* its format: NULL "raw", or "qcow2" (a saved guest's disk:
				  * on another host, a volume there already) */
	const char *uuid;        /* the domain's; NULL: libvirt's (a restore needs the save's) */
	const char *disk;        /* qcow2 overlay (made by vm_start), virtio-blk cache=none */
	const char *vol;         /* another host: the run's volumes are VOL.qcow2 and
				  * VOL.console; NULL: named as the domain */
	const char *console;     /* serial console log file, here */
	const char *channel;     /* unix socket QEMU binds for the agent's port; NULL: libvirt's */
	int first_cpu;           /* vCPU i pinned to host CPU first_cpu + i; -1: none */
	const char *tcg_thread;  /* "single": through the wrapper (vm_conn_facts); else NULL */
	const char *emulator;    /* NULL: the arch's QEMU (the wrapper when tcg_thread is single) */
};

/* Where another host keeps the wrapper that runs TCG single-threaded (tools/qemu-tcg-single.c). */
#define VM_REMOTE_TCG_SINGLE "/usr/local/libexec/mglru-harness/qemu-tcg-single-"

/*
 * Connect to uri, starting libvirt's event loop first. For the embedded
 * driver (qemu:///embed?root=DIR) this also sets up what it needs: DIR's
 * qemu.conf and a libvirt-qemu user. libvirt's own warnings go to log_path
 * (unless LIBVIRT_LOG_OUTPUTS says otherwise).
 */
int vm_connect(const char *uri, const char *log_path, struct vm_conn **ret, char *err);
void vm_disconnect(struct vm_conn *c);

/*
 * A connection to another host (anything but the embedded driver) keeps what
 * its guests boot from in a storage pool at dir there, named host in
 * messages; note (may be NULL) hears of uploads. Call before the first guest.
 */
void vm_set_storage(struct vm_conn *c, const char *host, const char *dir, vm_note_fn note,
		    void *arg);

/* 1 if guests run on this machine's files (the embedded driver), 0 if on a pool. */
int vm_is_local(const struct vm_conn *c);

/*
 * Is the host there? The connection is opened again if it died. 0, or -1
 * with why (the daemon there gone, the network down: libvirt's keepalive
 * closes a silent connection within 15 s).
 */
int vm_check(struct vm_conn *c, char *err);

/* The guest architecture the host runs natively ("x86_64"; uname -m for the embedded driver). */
const char *vm_conn_arch(struct vm_conn *c);

/*
 * The accelerator arch guests get on c's host: for the embedded driver
 * vm_pick_accel() with the local kernel; for another host "kvm" only if
 * libvirt there offers KVM for arch and a guest of kernel (staged there)
 * reaches its panic within 3 s under it, else "tcg" with why.
 */
const char *vm_conn_accel(struct vm_conn *c, const char *arch, const char *kernel,
			  const char *cache_dir, char *why, size_t len);

/*
 * What measures arch guests on c's host: QEMU's and libvirt's versions
 * (virConnectGetVersion, virConnectGetLibVersion), the host's kernel, CPU
 * model and count (this machine's own for the embedded driver; for another
 * host its capabilities and node info, its kernel "unknown"), and whether a
 * guest can run TCG single-threaded there (the wrapper beside this program,
 * or VM_REMOTE_TCG_SINGLE<arch> on another host). Unknown facts stay so.
 */
void vm_conn_facts(struct vm_conn *c, const char *arch, struct vm_host_facts *f);

/*
 * Destroy every running domain whose name starts with prefix: guests a
 * killed daemon left behind (the embedded driver finds them again at
 * connect). Returns how many, or -1 with err.
 */
int vm_destroy_leftovers(struct vm_conn *c, const char *prefix, char *err);

/* The domain XML for cfg; -1 if it does not fit or a path is unusable. */
int vm_domain_xml(const struct vm_config *cfg, char *buf, size_t len, char *err);

/*
 * Start a transient domain that dies with the connection (opened again first
 * if it died: a remote libvirtd restarted), with cfg->disk made on
 * cfg->backing. On another host its files are staged into the pool first,
 * its overlay and console are volumes there, and the channel is a stream
 * opened while the guest is still paused.
 */
int vm_start(struct vm_conn *c, const struct vm_config *cfg, struct vm_domain **ret, char *err);

/*
 * Save d's whole state (memory, devices) and end it: d is destroyed either
 * way. The guest's disk must be kept as it is for a restore to see what the
 * saved kernel believes is there. On this machine the state goes to path
 * (the caller moves the overlay beside it); on another host path is NULL:
 * the state becomes the volume VOL.state beside the guest's overlay
 * VOL.qcow2, which is kept (vm_saved_find finds both).
 */
int vm_save(struct vm_domain *d, const char *path, char *err);

/*
 * Start cfg's guest from the state at save, saved by a domain of the same
 * name, uuid and devices (cfg may change only host-side paths: overlay,
 * console, channel), running on from where it was saved. On another host,
 * save and cfg->backing are the save's volumes there.
 */
int vm_restore(struct vm_conn *c, const struct vm_config *cfg, const char *save,
	       struct vm_domain **ret, char *err);

/*
 * A save another host keeps (VOL.state and VOL.qcow2 in its pool, made by
 * vm_save): 1 and their paths there in state and disk (PATH_MAX each) and
 * the bytes they take in *bytes; 0 if either is missing; -1 with err if the
 * host cannot be asked. Saves stay on the host that made them.
 */
int vm_saved_find(struct vm_conn *c, const char *vol, char *state, char *disk, uint64_t *bytes,
		  char *err);

/* Delete save vol's volumes on c's host, where they exist. */
void vm_saved_delete(struct vm_conn *c, const char *vol);

/*
 * The guest channel as a socket *fd (the caller closes it): QEMU's socket
 * connected (retried until deadline_ms), or the remote stream's bridge.
 */
int vm_open_channel(struct vm_domain *d, int64_t deadline_ms, int *fd, char *err);

/* The connection of d's host died under it (not the guest's doing). */
int vm_domain_host_lost(struct vm_domain *d);

/* d's QEMU when it is this process's child (the embedded driver, reaped here); else 0. */
pid_t vm_domain_pid(const struct vm_domain *d);

/*
 * QEMU's last word on d (a guest of the embedded driver): the last line of
 * its log naming qemu-system-*, such as a failed assertion or "terminating
 * on signal 9", cut to len and to printable ASCII. 1 with it in buf, else 0.
 */
int vm_emulator_said(const struct vm_domain *d, char *buf, size_t len);

/* 1 while the domain exists and runs, 0 once it is gone or shut off. */
int vm_running(struct vm_domain *d);

enum vm_stop { VM_STOP_NOT, VM_STOP_NORMAL, VM_STOP_EMULATOR_DIED };

/*
 * How the domain stopped, from libvirt's lifecycle events, waiting up to
 * wait_ms for the event: VM_STOP_EMULATOR_DIED when QEMU itself went away
 * (killed or crashed on the host), not by the guest's poweroff or reboot.
 */
enum vm_stop vm_stopped(struct vm_domain *d, int wait_ms);

/* Destroy (if still there), bring a remote guest's console log home, drop its volumes, free. */
void vm_destroy(struct vm_domain *d);

/*
 * Does a guest actually run with accel ("kvm" or "tcg")? Boots kernel (an
 * image for arch) without a root file system and waits up to timeout_ms for
 * its panic to end QEMU. Returns 1 if it did, 0 if not, with the reason in why.
 */
int vm_probe(const char *accel, const char *arch, const char *kernel, int timeout_ms,
	     char *why, size_t len);

/*
 * "kvm" if arch is the host's, /dev/kvm exists and the probe proves it
 * within 2 s, else "tcg" (always, without probing, for a foreign arch).
 * With cache_dir, the answer is kept there per host boot, QEMU binary and
 * kernel file, and a second call with the same three does not probe.
 */
const char *vm_pick_accel(const char *arch, const char *kernel, const char *cache_dir,
			  char *why, size_t len);

/* The host's architecture, as uname -m says it ("x86_64", "aarch64"). */
const char *vm_host_arch(void);

/* The accelerator an arch guest gets on a host of own_arch: host_accel for its own, else "tcg". */
const char *vm_accel_for(const char *arch, const char *own_arch, const char *host_accel);

/* The guest's serial console device for console=: ttyS0, or ttyAMA0 on aarch64. */
const char *vm_console_device(const char *arch);

#endif
