/* boot.h -- the agent as the guest's PID 1: what the init script did (mounts,
 * modules, data disk, poweroff), without a shell's fork per step. */
#ifndef BOOT_H
#define BOOT_H

#include <stdint.h>

/* The guest's clock (CLOCK_BOOTTIME) in ms, as hello reports it. */
uint64_t boot_uptime_ms(void);

struct boot_times {
	uint64_t init_ms;    /* PID 1 started */
	uint64_t ready_ms;   /* modules loaded, data disk mounted */
};

/*
 * proc, sys, dev and debugfs mounted; /etc/modules.order's modules loaded in
 * order; /dev/vda mounted read-only on data_dir (waited for up to 5 s).
 * Failures go to the kernel log and the agent finds out itself.
 */
void boot_init(struct boot_times *t, const char *data_dir);

/*
 * finit_module each path the file list names, one per line, in order (one
 * already loaded is fine); a failure is said in the kernel's log. -1 if the
 * list cannot be opened.
 */
int boot_load_modules(const char *list);

/* sync and power off; never returns (PID 1 must not exit). */
void boot_poweroff(int status) __attribute__((noreturn));

#endif
