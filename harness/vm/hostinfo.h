/* hostinfo.h -- what measured a run: QEMU's and libvirt's versions, the host's
 * kernel, CPU model and count, and the TCG threading a guest gets there. */
#ifndef HOSTINFO_H
#define HOSTINFO_H

#include <stddef.h>
#include <stdint.h>

/* QEMU 8.1.0 locks pages before translating: no stale code after text patching. */
#define VM_QEMU_TCG_FIXED 8001000UL

struct vm_host_facts {
	unsigned long qemu_version;     /* major * 1e6 + minor * 1e3 + micro; 0 unknown */
	unsigned long libvirt_version;  /* the same encoding; 0 unknown */
	char qemu[24], libvirt[24];     /* "7.2.0", or "unknown" */
	char kernel[80];                /* the host's uname -r, or "unknown (why)" */
	char cpu_model[128];            /* /proc/cpuinfo's model name, or what the host says */
	int cpus;                       /* online CPUs; 0 unknown */
	int wrapper;                    /* guests can run TCG single-threaded there */
	char wrapper_why[160];          /* why not, when wrapper is 0 */
};

/*
 * libvirt's version number (major * 1,000,000 + minor * 1,000 + micro) as
 * "7.2.0" into buf; "unknown" for 0. Returns buf.
 */
char *vm_version_str(unsigned long v, char *buf, size_t len);

/* "7.2.0" or "10.0.2" (a suffix after the numbers ignored) in libvirt's encoding; 0 if not one. */
unsigned long vm_version_parse(const char *s);

/*
 * The TCG threading a guest with vcpus vCPUs gets under accel on a QEMU of
 * qemu_version: "" under KVM (not TCG), "single" for more than one vCPU on a
 * QEMU older than 8.1.0 (or of an unknown version), else "multi". why (may be
 * NULL) gets the reason in a phrase.
 */
const char *vm_tcg_threading(unsigned long qemu_version, const char *accel, uint64_t vcpus,
			     char *why, size_t len);

/*
 * vm_tcg_threading() for a host of facts f, or what want (harness.conf's
 * tcg_thread: "single" or "multi"; "auto" or NULL: the choice above) asks
 * for: where that is "single" but the host has no wrapper to run it so
 * (f->wrapper 0), "multi", and why says the race is possible there.
 */
const char *vm_tcg_threading_on(const struct vm_host_facts *f, const char *accel,
				uint64_t vcpus, const char *want, char *why, size_t len);

/* This machine's facts (uname, /proc/cpuinfo, online CPUs); the versions are left as they are. */
void vm_local_facts(struct vm_host_facts *f);

/* The CPU model in cpuinfo's text: x86's "model name", else arm64's implementer and part. */
void vm_cpuinfo_model(const char *cpuinfo, char *out, size_t len);

/*
 * The vCPU pinning a domain XML asks for: "2,3" (vCPU i on the i-th CPU),
 * "all on 2-3" when one_thread (single-threaded TCG: QEMU's threads pinned
 * as a whole), or "none".
 */
void vm_pinning_str(int first_cpu, uint64_t vcpus, int one_thread, char *buf, size_t len);

#endif
