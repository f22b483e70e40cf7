/* vm_priv.h -- what vm.c, vm_xml.c, vm_embed.c and vm_probe.c share;
 * nothing outside vm/ includes it. */
#ifndef VM_PRIV_H
#define VM_PRIV_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include <libvirt/libvirt.h>

struct vm_bridge;
struct vm_config;
struct vm_pool;

#define VM_WATCH_MAX 64
#define VM_DROPS_MAX 64          /* run volumes left to delete once a host is back */

struct vm_domain {
	virDomainPtr dom;
	struct vm_conn *conn;
	char name[128];
	atomic_int stopped;   /* enum vm_stop, set from libvirt's lifecycle events */
	pid_t pid;            /* QEMU, when it is this process's child to reap; else 0 */
	int remote;           /* on a pool of another host: volumes, channel stream */
	unsigned gen;         /* the connection it was started on (vm_conn.gen) */
	struct vm_bridge *bridge;
	int chan_fd;          /* the bridge's socket until vm_open_channel() hands it out */
	char channel[PATH_MAX];   /* QEMU's channel socket (embedded) */
	char console[PATH_MAX];   /* where a remote guest's console log comes home to */
	char vol[128];            /* a remote guest's volumes: VOL.qcow2, VOL.console */
	char disk[PATH_MAX];      /* a remote guest's overlay, its path there */
	int keep_disk;            /* saved: its overlay is the save's disk, not deleted */
	int restored;             /* a remote restore: no autodestroy, destroyed by name */
};

struct vm_conn {
	virConnectPtr conn;
	int embedded;    /* domains die with the connection already */
	int subreaper;   /* QEMU (daemonized by libvirt) is reparented to this process */
	char uri[PATH_MAX];
	int event_id;    /* lifecycle callback, -1 if none */
	pthread_mutex_t lock;   /* conn (reconnect), watch[], drops[], arch */
	struct vm_domain *watch[VM_WATCH_MAX];   /* running domains, for their events */
	atomic_int lost;        /* libvirt closed the connection (keepalive, EOF) */
	unsigned gen;           /* connections opened so far: a domain's is its own */
	struct vm_pool *pool;   /* another host's storage pool; NULL for the embedded driver */
	char host[64];
	char arch[16];          /* the host's own guest arch, "" until asked */
	char drops[VM_DROPS_MAX][128];
	unsigned ndrops;
	char stale[VM_DROPS_MAX][128];   /* restored guests a lost connection left running there */
	unsigned nstale;
};

/* What differs between the guest architectures (the table, vm_archs[], is in vm_xml.c). */
struct vm_arch {
	const char *arch, *machine, *emulator, *console;
	const char *features;   /* <features> for the domain */
	const char *tcg_cpu;    /* <cpu> under TCG, "" for QEMU's default */
	const char *probe_machine, *probe_cpu_kvm, *probe_cpu_tcg;
};

/* vm.c: open c's connection again if it died: 0 alive, 1 opened again, -1; c->lock held. */
int vm_ensure_alive(struct vm_conn *c, char *err);

/* vm.c: the TCG wrapper built beside this program into buf; -1 if not there. */
int vm_local_wrapper(const char *arch, char *buf, size_t len);

/* vm_xml.c: the guest is to run TCG single-threaded (through the wrapper). */
int vm_tcg_single(const struct vm_config *cfg);

/* vm_xml.c: the row of vm_archs[] for arch, or NULL. */
const struct vm_arch *vm_arch_of(const char *arch);

/* vm_embed.c: uri is the embedded driver's (qemu:///embed?root=DIR). */
int vm_is_embedded(const char *uri);

/* vm_embed.c: the embedded driver's qemu.conf, cache and user set up; 0 for any other uri. */
int vm_setup_embedded(const char *uri, char *err);

/*
 * vm_embed.c: the status files (root's run/qemu/harness-*.xml) of domains a
 * killed harness left starting (pid 0: libvirt would load them active with
 * a start job nobody ends, and every later start of that name fails) are
 * dropped, any QEMU still running as one killed; nothing while a driver
 * holds the root. How many were dropped. vm_setup_embedded calls it.
 */
int vm_drop_unstarted(const char *root);

/* vm_embed.c: this process made child subreaper, its reaper thread started; 1 if so. */
int vm_become_subreaper(void);

/* vm_embed.c: QEMU's pid from the embedded driver's pid file, if this process's child; else 0. */
pid_t vm_emulator_child(const struct vm_conn *c, const char *name);

/* vm_embed.c: SIGTERM (SIGKILL after 5 s) to d's QEMU, waiting for the reaper to take it. */
void vm_stop_emulator(struct vm_domain *d);

#endif
