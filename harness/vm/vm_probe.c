/* vm_probe.c -- the accelerator a guest gets: the KVM probe and its cache, here
 * or on another host, and a connection's host facts (arch, versions, CPU). */
#include "vm/vm.h"
#include "vm/vm_priv.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/utsname.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

/* uname -m, once for every thread (each slot and API connection asks). */
static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static char host_machine[sizeof(((struct utsname *)0)->machine)];

/* The host's uname -m, once (pthread_once). */
static void read_host_arch(void)
{
	struct utsname u;

	/* host_machine is as long as u.machine: it fits */
	if (uname(&u) == 0 && fmtbuf(host_machine, sizeof(host_machine), "%s", u.machine) < 0)
		host_machine[0] = '\0';
}

const char *vm_host_arch(void)
{
	pthread_once(&host_once, read_host_arch);
	return host_machine[0] ? host_machine : "x86_64";
}

const char *vm_accel_for(const char *arch, const char *own_arch, const char *host_accel)
{
	return strcmp(arch, own_arch) ? "tcg" : host_accel;
}

/*
 * The probe boots the arm's real kernel with no root file system and
 * panic=-1: if it reaches its "cannot mount root" panic, QEMU exits on the
 * reboot by itself. A trivial real-mode guest is not proof: on nested hosts
 * KVM runs one fine while a Linux guest hangs after "Booting from ROM".
 */
int vm_probe(const char *accel, const char *arch, const char *kernel, int timeout_ms,
	     char *why, size_t len)
{
	const struct vm_arch *va = vm_arch_of(arch);
	char accel_opt[16], kpath[PATH_MAX], err[ERR_MAX], emu[64], machine[32], cpu[16];
	int64_t t0 = now_ms();
	int status;

	if (!va) {
		fmtcut(why, len, "no QEMU for arch '%s'", arch);
		return 0;
	}
	if (fmtbuf(accel_opt, sizeof(accel_opt), "%s", accel) < 0 ||
	    fmtbuf(kpath, sizeof(kpath), "%s", kernel) < 0 ||
	    fmtbuf(emu, sizeof(emu), "%s", va->emulator) < 0 ||
	    fmtbuf(machine, sizeof(machine), "%s", va->probe_machine) < 0 ||
	    fmtbuf(cpu, sizeof(cpu), "%s",
		   strcmp(accel, "kvm") ? va->probe_cpu_tcg : va->probe_cpu_kvm) < 0) {
		fmtcut(why, len, "qemu -accel %.16s: an argument too long (kernel %s)", accel,
		       kernel);
		return 0;
	}
	char *argv[] = { emu, "-accel", accel_opt, "-M", machine, "-cpu", cpu, "-nodefaults",
			 "-display", "none", "-m", "256", "-kernel", kpath,
			 "-append", "panic=-1 quiet", "-no-reboot", NULL };
	if (proc_run(argv, NULL, timeout_ms, &status, err) < 0) {
		fmtcut(why, len, "%s", err);
		return 0;
	}
	if (status == 0)
		return 1;
	if (status == -1 && now_ms() - t0 < timeout_ms)
		fmtcut(why, len, "qemu -accel %s died on a signal after %lld ms", accel,
			 (long long)(now_ms() - t0));
	else if (status == -1)
		fmtcut(why, len, "a %s guest did not reach its kernel panic within %d ms",
			 accel, timeout_ms);
	else
		fmtcut(why, len, "qemu -accel %s exited %d", accel, status);
	return 0;
}

/* path and its identity, or "none"; -1 if that does not fit */
static int stat_id(const char *path, char *out, size_t len)
{
	char id[128];

	return fmtbuf(out, len, "%s:%s", path,
		      file_identity(path, id, sizeof(id)) < 0 ? "none" : id);
}

/*
 * What decides a probe's answer: this boot of the host (its /dev/kvm, KVM
 * module and settings), the QEMU binary and the kernel. A reboot, another
 * QEMU or another kernel file probes again. -1 if its text does not fit: a
 * cut one could be another kernel's.
 */
static int probe_key(const struct vm_arch *va, const char *kernel, char out[HASH_FNV1A_HEX])
{
	char boot[64] = "", emu[PATH_MAX + 96], kern[PATH_MAX + 96], dev[160], text[3 * PATH_MAX];
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, boot, sizeof(boot) - 1) : -1;

	if (fd >= 0)
		close(fd);
	boot[n > 0 ? n : 0] = '\0';
	boot[strcspn(boot, "\n")] = '\0';
	if (stat_id(va->emulator, emu, sizeof(emu)) < 0 ||
	    stat_id(kernel, kern, sizeof(kern)) < 0 || stat_id("/dev/kvm", dev, sizeof(dev)) < 0 ||
	    fmtbuf(text, sizeof(text), "%s|%s|%s|%s|%s", va->arch, boot, emu, kern, dev) < 0)
		return -1;
	hash_fnv1a_hex(text, out);
	return 0;
}

/* A cached answer: "kvm", or "tcg" and its reason; 1 if there was one. */
static int probe_cached(const char *path, int *kvm, char *why, size_t len)
{
	char buf[ERR_MAX + 8] = "";
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return 0;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (!ok || (strcmp(buf, "kvm") && strncmp(buf, "tcg ", 4)))
		return 0;
	*kvm = !strcmp(buf, "kvm");
	fmtcut(why, len, "%s%s", *kvm ? "" : buf + 4, *kvm ? "" : " (cached)");
	return 1;
}

/*
 * The KVM probe's answer cached in path ("kvm", or "tcg WHY"); a cache, so
 * a failed write only means probing again next time.
 */
static void probe_store(const char *dir, const char *path, int kvm, const char *why)
{
	char text[ERR_MAX + 8], err[ERR_MAX];

	/* a cache: unwritten (a reason too long too), it probes again */
	if (fmtbuf(text, sizeof(text), "%s%s\n", kvm ? "kvm" : "tcg ", kvm ? "" : why) == 0 &&
	    mkdir_p(dir, err) == 0)
		write_file(path, text, strlen(text), err);
}

const char *vm_pick_accel(const char *arch, const char *kernel, const char *cache_dir,
			  char *why, size_t len)
{
	const struct vm_arch *va = vm_arch_of(arch);
	char key[HASH_FNV1A_HEX], path[PATH_MAX] = "";
	int kvm;

	if (strcmp(arch, vm_host_arch()) || !va) {
		fmtcut(why, len, "an %s guest on an %s host: no KVM", arch, vm_host_arch());
		return "tcg";
	}
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		fmtcut(why, len, "no usable /dev/kvm");
		return "tcg";
	}
	if (cache_dir && probe_key(va, kernel, key) == 0 &&
	    snprintf(path, sizeof(path), "%s/accel-%s", cache_dir, key) >= (int)sizeof(path))
		path[0] = '\0';
	if (path[0] && probe_cached(path, &kvm, why, len))
		return kvm ? "kvm" : "tcg";
	kvm = vm_probe("kvm", arch, kernel, 2000, why, len);
	if (path[0])
		probe_store(cache_dir, path, kvm, why);
	return kvm ? "kvm" : "tcg";
}

/* <arch> of <host><cpu> in libvirt's capabilities XML, into out. */
static void caps_arch(const char *caps, char *out, size_t len)
{
	const char *h = strstr(caps, "<host>"), *a = h ? strstr(h, "<arch>") : NULL, *e;

	if (!a || !(e = strstr(a, "</arch>")) || (size_t)(e - a - 6) >= len)
		return;
	if (fmtbuf(out, len, "%.*s", (int)(e - a - 6), a + 6) < 0)
		out[0] = '\0';         /* cannot be: its length was checked */
}

const char *vm_conn_arch(struct vm_conn *c)
{
	char *caps;

	if (c->embedded)
		return vm_host_arch();
	pthread_mutex_lock(&c->lock);
	if (!c->arch[0] && c->conn && (caps = virConnectGetCapabilities(c->conn))) {
		caps_arch(caps, c->arch, sizeof(c->arch));
		free(caps);
	}
	pthread_mutex_unlock(&c->lock);
	return c->arch[0] ? c->arch : "x86_64";
}

/* Boot kernel (staged there) under KVM with no root: 1 if it panicked and ended within 3 s. */
static int remote_probe(struct vm_conn *c, virConnectPtr conn, const struct vm_arch *va,
			const char *kernel, char *why, size_t len)
{
	char xml[PATH_MAX + 1024], path[PATH_MAX], err[ERR_MAX];
	virDomainPtr dom;
	int i, gone = 0;

	if (!c->pool || vm_pool_stage(c->pool, conn, kernel, "kernel", path, err) < 0) {
		fmtcut(why, len, "%s", c->pool ? err : "no storage pool");
		return 0;
	}
	if (fmtbuf(xml, sizeof(xml), "<domain type='kvm'><name>harness-probe-%d</name>"
		   "<memory unit='MiB'>256</memory><vcpu>1</vcpu><os><type arch='%s' machine='%s'>"
		   "hvm</type><kernel>%s</kernel><cmdline>panic=-1 quiet</cmdline></os>%s"
		   "<cpu mode='host-passthrough'/><on_reboot>destroy</on_reboot>"
		   "<on_crash>destroy</on_crash><devices><memballoon model='none'/></devices>"
		   "</domain>", (int)getpid(), va->arch, va->machine, path, va->features) < 0) {
		fmtcut(why, len, "the probe's domain XML is over %zu bytes (kernel %s)",
		       sizeof(xml) - 1, path);
		return 0;
	}
	dom = virDomainCreateXML(conn, xml, VIR_DOMAIN_START_AUTODESTROY);
	if (!dom) {
		fmtcut(why, len, "a kvm guest does not start there: %s", virGetLastErrorMessage());
		return 0;
	}
	for (i = 0; i < 60 && !gone; i++) {
		usleep(50000);
		gone = virDomainIsActive(dom) != 1;
	}
	if (!gone) {
		virDomainDestroy(dom);
		fmtcut(why, len, "a kvm guest did not reach its kernel panic within 3 s");
	}
	virDomainFree(dom);
	return gone;
}

/* KVM on another host: offered by its libvirt for arch, and proven by a boot. */
static const char *remote_accel(struct vm_conn *c, virConnectPtr conn, const char *arch,
				const char *kernel, char *why, size_t len)
{
	const struct vm_arch *va = vm_arch_of(arch);
	char *caps;

	if (!va) {
		fmtcut(why, len, "no QEMU for arch '%s'", arch);
		return "tcg";
	}
	caps = virConnectGetDomainCapabilities(conn, NULL, arch, NULL, "kvm", 0);
	if (!caps) {
		fmtcut(why, len, "host %s offers no KVM for %s: %s", c->host, arch,
			 virGetLastErrorMessage());
		return "tcg";
	}
	free(caps);
	return remote_probe(c, conn, va, kernel, why, len) ? "kvm" : "tcg";
}

const char *vm_conn_accel(struct vm_conn *c, const char *arch, const char *kernel,
			  const char *cache_dir, char *why, size_t len)
{
	virConnectPtr conn = NULL;
	const char *accel;
	char err[ERR_MAX];

	why[0] = '\0';
	if (c->embedded)
		return vm_pick_accel(arch, kernel, cache_dir, why, len);
	pthread_mutex_lock(&c->lock);
	if (vm_ensure_alive(c, err) >= 0) {
		conn = c->conn;
		virConnectRef(conn);
	}
	pthread_mutex_unlock(&c->lock);
	if (!conn) {
		fmtcut(why, len, "%s", err);
		return "tcg";
	}
	/* not under the lock: a guest's start needs the event thread, whose callbacks take it */
	accel = remote_accel(c, conn, arch, kernel, why, len);
	virConnectClose(conn);
	return accel;
}

/* The text of the first <tag>...</tag> after from in xml, or "" into out. */
static void xml_text(const char *xml, const char *from, const char *tag, char *out, size_t len)
{
	char open[32], close[32];
	const char *a = xml ? strstr(xml, from) : NULL, *e;

	out[0] = '\0';
	/* a cut tag could find another element */
	if (fmtbuf(open, sizeof(open), "<%s>", tag) < 0 ||
	    fmtbuf(close, sizeof(close), "</%s>", tag) < 0)
		return;
	if (!a || !(a = strstr(a, open)) || !(e = strstr(a, close)))
		return;
	a += strlen(open);
	fmtcut(out, len, "%.*s", (int)(e - a), a);
}

/* Another host's CPU (vendor and model from its capabilities) and count, its kernel unknown. */
static void remote_facts(struct vm_conn *c, virConnectPtr conn, const char *arch,
			 struct vm_host_facts *f)
{
	char *caps = virConnectGetCapabilities(conn), vendor[64], model[64], path[PATH_MAX];
	virNodeInfo ni;

	xml_text(caps, "<host>", "vendor", vendor, sizeof(vendor));
	xml_text(caps, "<host>", "model", model, sizeof(model));
	free(caps);
	if (model[0])
		fmtcut(f->cpu_model, sizeof(f->cpu_model), "%s%s%s", vendor, vendor[0] ? " " : "",
			 model);
	if (virNodeGetInfo(conn, &ni) == 0)
		f->cpus = (int)ni.cpus;
	fmtcut(f->kernel, sizeof(f->kernel), "unknown (libvirt does not tell host %.32s's)",
		 c->host);
	if (fmtbuf(path, sizeof(path), "%s%s", VM_REMOTE_TCG_SINGLE, arch) < 0) {
		fmtcut(f->wrapper_why, sizeof(f->wrapper_why), "the wrapper's path for %.32s is "
		       "too long", arch);
		return;
	}
	caps = virConnectGetDomainCapabilities(conn, path, arch, NULL, "qemu", 0);
	f->wrapper = caps != NULL;
	if (!caps)
		fmtcut(f->wrapper_why, sizeof(f->wrapper_why), "host %s has no %.80s", c->host,
			 path);
	free(caps);
}

void vm_conn_facts(struct vm_conn *c, const char *arch, struct vm_host_facts *f)
{
	virConnectPtr conn = NULL;
	char err[ERR_MAX], path[PATH_MAX];
	unsigned long v;

	memset(f, 0, sizeof(*f));
	fmtcut(f->kernel, sizeof(f->kernel), "unknown");
	fmtcut(f->cpu_model, sizeof(f->cpu_model), "unknown");
	pthread_mutex_lock(&c->lock);
	if (vm_ensure_alive(c, err) >= 0) {
		conn = c->conn;
		virConnectRef(conn);
	}
	pthread_mutex_unlock(&c->lock);
	if (conn && virConnectGetVersion(conn, &v) == 0)
		f->qemu_version = v;
	if (conn && virConnectGetLibVersion(conn, &v) == 0)
		f->libvirt_version = v;
	vm_version_str(f->qemu_version, f->qemu, sizeof(f->qemu));
	vm_version_str(f->libvirt_version, f->libvirt, sizeof(f->libvirt));
	if (c->embedded) {
		vm_local_facts(f);
		f->wrapper = vm_local_wrapper(arch, path, sizeof(path)) == 0;
		if (!f->wrapper)
			fmtcut(f->wrapper_why, sizeof(f->wrapper_why), "no %.120s (make builds it)",
				 path);
	} else if (conn) {
		remote_facts(c, conn, arch, f);
	} else {
		fmtcut(f->wrapper_why, sizeof(f->wrapper_why), "%.150s", err);
	}
	if (conn)
		virConnectClose(conn);
}
