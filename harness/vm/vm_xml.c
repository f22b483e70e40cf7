/* vm_xml.c -- the domain XML: each guest architecture's machine, CPU and
 * console, vCPU pinning, paths escaped, the TCG wrapper as the emulator. */
#include "vm/vm.h"
#include "vm/vm_priv.h"
#include "base/err.h"
#include "common/fmt.h"

#include <limits.h>
#include <string.h>
#include <sys/un.h>

/* Paths reach the XML escaped; matrix text is already free of markup. */
static int xml_escape(const char *s, char *out, size_t len)
{
	size_t n = 0;
	const char *rep;

	for (; *s; s++) {
		switch (*s) {
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '&': rep = "&amp;"; break;
		case '\'': rep = "&apos;"; break;
		case '"': rep = "&quot;"; break;
		default: rep = NULL; break;
		}
		if (n + (rep ? strlen(rep) : 1) >= len)
			return -1;
		if (rep) {
			memcpy(out + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	return 0;
}

/* The guest is to run TCG single-threaded: its <emulator> is the wrapper. */
int vm_tcg_single(const struct vm_config *cfg)
{
	return cfg->tcg_thread && !strcmp(cfg->tcg_thread, "single");
}

/*
 * <cputune> pinning vCPU i (and QEMU's own threads) to first_cpu + i. Under
 * single-threaded TCG one thread runs every vCPU and QEMU reports no thread
 * of a vCPU's own, so libvirt refuses <vcpupin> ("cpu affinity is not
 * supported"): QEMU's threads, that one among them, are pinned to the same
 * CPUs as a whole. -1 if it does not fit: a cut one is not XML.
 */
static int cputune(const struct vm_config *cfg, char *buf, size_t len)
{
	size_t n;
	uint64_t i;

	buf[0] = '\0';
	if (cfg->first_cpu < 0)
		return 0;
	if (fmtbuf(buf, len, "  <cputune>\n") < 0)
		return -1;
	for (i = 0; i < cfg->vcpus && !vm_tcg_single(cfg); i++) {
		n = strlen(buf);
		if (fmtbuf(buf + n, len - n, "    <vcpupin vcpu='%llu' cpuset='%llu'/>\n",
			   (unsigned long long)i,
			   (unsigned long long)(cfg->first_cpu + (int)i)) < 0)
			return -1;
	}
	n = strlen(buf);
	return fmtbuf(buf + n, len - n, "    <emulatorpin cpuset='%d-%llu'/>\n  </cputune>\n",
		      cfg->first_cpu, (unsigned long long)(cfg->first_cpu + (int)cfg->vcpus - 1));
}

/*
 * What differs between the guest architectures. aarch64: the virt machine
 * (GICv3, PL011 serial as ttyAMA0, virtio over PCIe), no ACPI (libvirt ties
 * it to UEFI there; direct kernel boot needs neither, and poweroff goes
 * through PSCI), and under TCG QEMU's "max" CPU, which has every feature.
 */
static const struct vm_arch vm_archs[] = {
	{ "x86_64", "pc", "/usr/bin/qemu-system-x86_64", "ttyS0",
	  "  <features><acpi/></features>\n", "",
	  "pc", "host", "qemu64" },
	{ "aarch64", "virt", "/usr/bin/qemu-system-aarch64", "ttyAMA0",
	  "  <features><gic version='3'/></features>\n",
	  "  <cpu mode='custom' match='exact'><model fallback='forbid'>max</model></cpu>\n",
	  "virt,gic-version=3", "host", "max" },
};

const struct vm_arch *vm_arch_of(const char *arch)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vm_archs); i++)
		if (!strcmp(vm_archs[i].arch, arch))
			return &vm_archs[i];
	return NULL;
}

const char *vm_console_device(const char *arch)
{
	const struct vm_arch *va = vm_arch_of(arch);

	return va ? va->console : "ttyS0";
}

int vm_domain_xml(const struct vm_config *cfg, char *buf, size_t len, char *err)
{
	const struct vm_arch *va = vm_arch_of(cfg->arch);
	int kvm = !strcmp(cfg->accel, "kvm");
	char tune[2048], chan[PATH_MAX + 32], uuid[64] = "";
	char e[7][PATH_MAX];
	const char *src[7] = { cfg->name, cfg->kernel, cfg->initrd, cfg->cmdline, cfg->disk,
			       cfg->console, cfg->channel ? cfg->channel : "" };
	struct sockaddr_un sun;
	int i, n;

	if (!va)
		return errorf(err, "no domain XML for arch '%s' (x86_64 or aarch64)", cfg->arch);
	if (cfg->channel && strlen(cfg->channel) >= sizeof(sun.sun_path))
		return errorf(err, "channel socket path '%s' is longer than %zu bytes", cfg->channel,
			      sizeof(sun.sun_path) - 1);
	if (cputune(cfg, tune, sizeof(tune)) < 0)
		return errorf(err, "the <cputune> of %llu vCPUs does not fit %zu bytes",
			      (unsigned long long)cfg->vcpus, sizeof(tune));
	if (cfg->uuid && (strlen(cfg->uuid) != 36 || strspn(cfg->uuid, "0123456789abcdef-") != 36))
		return errorf(err, "domain uuid '%.40s' is not a UUID", cfg->uuid);
	if (cfg->uuid && fmtbuf(uuid, sizeof(uuid), "  <uuid>%s</uuid>\n", cfg->uuid) < 0)
		return errorf(err, "domain uuid '%.40s' too long", cfg->uuid);
	for (i = 0; i < 7; i++)
		if (xml_escape(src[i], e[i], sizeof(e[i])) < 0)
			return errorf(err, "path too long for the domain XML: '%.64s'", src[i]);
	/* no path: libvirt makes the socket where it keeps its own (another host's) */
	if (fmtbuf(chan, sizeof(chan), "%s%s%s", e[6][0] ? " path='" : "", e[6],
		   e[6][0] ? "'" : "") < 0)
		return errorf(err, "channel socket path too long for the domain XML: '%.64s'",
			      src[6]);
	n = snprintf(buf, len,
		"<domain type='%s'>\n"
		"  <name>%s</name>\n"
		"%s"
		"  <memory unit='MiB'>%llu</memory>\n"
		"  <vcpu>%llu</vcpu>\n"
		"%s"
		"  <os>\n"
		"    <type arch='%s' machine='%s'>hvm</type>\n"
		"    <kernel>%s</kernel>\n"
		"    <initrd>%s</initrd>\n"
		"    <cmdline>%s</cmdline>\n"
		"  </os>\n"
		"%s"
		"%s"
		"  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>destroy</on_crash>\n"
		"  <devices>\n"
		"    <emulator>%s</emulator>\n"
		"    <disk type='file' device='disk'>\n"
		"      <driver name='qemu' type='qcow2' cache='none'/>\n"
		"      <source file='%s'/>\n"
		"      <target dev='vda' bus='virtio'/>\n"
		"    </disk>\n"
		"    <serial type='file'><source path='%s' append='on'/><target port='0'/></serial>\n"
		"    <console type='file'><source path='%s' append='on'/><target type='serial' port='0'/></console>\n"
		"    <channel type='unix'>\n"
		"      <source mode='bind'%s/>\n"
		"      <target type='virtio' name='harness.0'/>\n"
		"    </channel>\n"
		"    <memballoon model='none'/>\n"
		/* no USB (libvirt's default controller costs its firmware and the
		 * kernel a probe each, 0.3 s under TCG), and a virtio-serial of 2
		 * ports, not 31: the kernel sets up two queues a port */
		"    <controller type='usb' model='none'/>\n"
		"    <controller type='virtio-serial' index='0' ports='2'/>\n"
		"  </devices>\n"
		"</domain>\n",
		kvm ? "kvm" : "qemu", e[0], uuid,
		(unsigned long long)cfg->memory_mib, (unsigned long long)cfg->vcpus, tune,
		va->arch, va->machine, e[1], e[2], e[3], va->features,
		kvm ? "  <cpu mode='host-passthrough'/>\n" : va->tcg_cpu,
		cfg->emulator ? cfg->emulator : va->emulator, e[4], e[5], e[5], chan);
	if (n < 0 || (size_t)n >= len)
		return errorf(err, "domain XML does not fit %zu bytes", len);
	return 0;
}
