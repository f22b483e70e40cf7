/* hostinfo.c -- versions in libvirt's encoding, the TCG threading a guest
 * gets for its QEMU, and this machine's kernel, CPU model and CPU count. */
#include "vm/hostinfo.h"
#include "common/fmt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

char *vm_version_str(unsigned long v, char *buf, size_t len)
{
	if (!v)
		fmtcut(buf, len, "unknown");
	else
		fmtcut(buf, len, "%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
	return buf;
}

/* One number of at most 3 digits (libvirt's encoding keeps 3 a part); -1 if none. */
static long version_part(const char **s)
{
	char *end;
	long n;

	if (!isdigit((unsigned char)**s))
		return -1;
	n = strtol(*s, &end, 10);
	if (end - *s > 3 || n > 999)
		return -1;
	*s = end;
	return n;
}

unsigned long vm_version_parse(const char *s)
{
	long part[3] = { 0, 0, 0 };
	int i;

	for (i = 0; i < 3; i++) {
		if (i && *s != '.')
			break;
		s += i > 0;
		if ((part[i] = version_part(&s)) < 0)
			return 0;
	}
	if (i < 2 || (*s && !strchr(" -+~(", *s)))
		return 0;
	return (unsigned long)(part[0] * 1000000 + part[1] * 1000 + part[2]);
}

const char *vm_tcg_threading(unsigned long qemu_version, const char *accel, uint64_t vcpus,
			     char *why, size_t len)
{
	char tmp[200], v[24];

	if (!why) {
		why = tmp;
		len = sizeof(tmp);
	}
	vm_version_str(qemu_version, v, sizeof(v));
	if (strcmp(accel, "tcg")) {
		fmtcut(why, len, "%s: not TCG", accel);
		return "";
	}
	if (vcpus <= 1) {
		fmtcut(why, len, "one vCPU: no other vCPU thread runs beside it");
		return "multi";
	}
	if (qemu_version >= VM_QEMU_TCG_FIXED) {
		fmtcut(why, len, "QEMU %s >= 8.1: translation locks the pages it reads", v);
		return "multi";
	}
	fmtcut(why, len, "QEMU %s < 8.1: multi-threaded TCG can run stale code after the "
		 "kernel patches itself", v);
	return "single";
}

const char *vm_tcg_threading_on(const struct vm_host_facts *f, const char *accel,
				uint64_t vcpus, const char *want, char *why, size_t len)
{
	const char *t = vm_tcg_threading(f->qemu_version, accel, vcpus, why, len);
	char v[24];

	if (want && strcmp(want, "auto") && !strcmp(accel, "tcg") && vcpus > 1) {
		if (!strcmp(want, "multi")) {
			fmtcut(why, len, "tcg_thread = multi in harness.conf%s", strcmp(t, "single") ?
				 "" : "; on this QEMU before 8.1 it can run stale code after the "
				 "kernel patches itself");
			return "multi";
		}
		fmtcut(why, len, "tcg_thread = single in harness.conf");
		t = "single";
	}
	if (strcmp(t, "single") || f->wrapper)
		return t;
	vm_version_str(f->qemu_version, v, sizeof(v));
	if (f->qemu_version >= VM_QEMU_TCG_FIXED)
		fmtcut(why, len, "tcg_thread = single but %s: multi-threaded TCG (QEMU %s >= 8.1: "
			 "no race)", f->wrapper_why[0] ? f->wrapper_why : "no wrapper", v);
	else
		fmtcut(why, len, "QEMU %s < 8.1 but %s: multi-threaded TCG, which can run stale "
			 "code after the kernel patches itself", v,
			 f->wrapper_why[0] ? f->wrapper_why : "no wrapper");
	return "multi";
}

/* "model name : Intel(R) ..." or arm64's "CPU implementer : 0x41" and "CPU part : 0xd0c". */
static int cpuinfo_field(const char *text, const char *key, char *out, size_t len)
{
	const char *p = text, *colon, *end;
	size_t k = strlen(key);

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, k) || (p[k] != ' ' && p[k] != '\t' && p[k] != ':'))
			continue;
		if (!(colon = strchr(p, ':')) || (end = strchr(p, '\n'), end && end < colon))
			continue;
		for (colon++; *colon == ' ' || *colon == '\t'; colon++)
			;
		end = strchr(colon, '\n');
		fmtcut(out, len, "%.*s", (int)(end ? end - colon : (long)strlen(colon)), colon);
		return 1;
	}
	return 0;
}

void vm_cpuinfo_model(const char *cpuinfo, char *out, size_t len)
{
	char impl[32], part[32];

	if (cpuinfo_field(cpuinfo, "model name", out, len) && out[0])
		return;
	if (cpuinfo_field(cpuinfo, "CPU implementer", impl, sizeof(impl)) &&
	    cpuinfo_field(cpuinfo, "CPU part", part, sizeof(part))) {
		fmtcut(out, len, "implementer %s part %s", impl, part);
		return;
	}
	fmtcut(out, len, "unknown");
}

void vm_local_facts(struct vm_host_facts *f)
{
	struct utsname u;
	char buf[16384];
	size_t n = 0;
	FILE *in = fopen("/proc/cpuinfo", "re");

	if (in) {
		n = fread(buf, 1, sizeof(buf) - 1, in);
		fclose(in);
	}
	buf[n] = '\0';
	vm_cpuinfo_model(buf, f->cpu_model, sizeof(f->cpu_model));
	if (uname(&u) == 0)
		fmtcut(f->kernel, sizeof(f->kernel), "%s", u.release);
	else
		fmtcut(f->kernel, sizeof(f->kernel), "unknown (uname failed)");
	f->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (f->cpus < 0)
		f->cpus = 0;
}

void vm_pinning_str(int first_cpu, uint64_t vcpus, int one_thread, char *buf, size_t len)
{
	size_t n = 0;
	uint64_t i;

	fmtcut(buf, len, "none");
	if (first_cpu < 0 || !vcpus)
		return;
	if (one_thread) {
		fmtcut(buf, len, "all on %d-%llu", first_cpu,
			 (unsigned long long)first_cpu + vcpus - 1);
		return;
	}
	for (i = 0; i < vcpus && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%llu", i ? "," : "",
				      (unsigned long long)first_cpu + i);
}
