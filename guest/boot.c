/* boot.c -- the agent as the guest's PID 1: mounts, this kernel's virtio
 * modules in the image's order, the data disk, and the poweroff at the end. */
#define _GNU_SOURCE
#include "boot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MODULES_ORDER "/etc/modules.order"
#define DATA_DISK     "/dev/vda"
#define DISK_WAIT_MS  5000

uint64_t boot_uptime_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One line into the kernel's log, so it reaches the console with the kernel's own. */
static void kmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void kmsg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0) {
		/* nowhere left to say it */
	}
	close(fd);
}

static const struct boot_mount {
	const char *source, *target, *type;
	int required;
} boot_mounts[] = {
	{ "proc", "/proc", "proc", 1 },
	{ "sys", "/sys", "sysfs", 1 },
	{ "dev", "/dev", "devtmpfs", 1 },
	{ "debugfs", "/sys/kernel/debug", "debugfs", 0 },
};

/*
 * proc, sys, dev and debugfs mounted (the ones already there kept); a
 * required one that fails is said in the kernel's log.
 */
static void mount_all(void)
{
	size_t i;

	for (i = 0; i < sizeof(boot_mounts) / sizeof(boot_mounts[0]); i++) {
		const struct boot_mount *m = &boot_mounts[i];

		mkdir(m->target, 0755);
		if (mount(m->source, m->target, m->type, 0, NULL) < 0 && errno != EBUSY &&
		    m->required)
			kmsg("harness: mount %s: %s\n", m->target, strerror(errno));
	}
}

int boot_load_modules(const char *list)
{
	char path[512];
	FILE *f = fopen(list, "re");
	int fd;

	if (!f)
		return -1;
	while (fgets(path, sizeof(path), f)) {
		path[strcspn(path, "\n")] = '\0';
		if (!path[0])
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST))
			kmsg("harness: insmod %s failed: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	fclose(f);
	return 0;
}

/*
 * The data disk mounted read-only on dir, waited for up to DISK_WAIT_MS (its
 * driver may still be probing); its absence said in the kernel's log.
 */
static void mount_data(const char *dir)
{
	struct timespec pause = { 0, 5 * 1000000 };
	struct stat st;
	int waited = 0;

	mkdir(dir, 0755);
	while (stat(DATA_DISK, &st) < 0 && waited < DISK_WAIT_MS) {
		nanosleep(&pause, NULL);
		waited += 5;
	}
	if (mount(DATA_DISK, dir, "ext4", MS_RDONLY | MS_NOATIME, NULL) < 0)
		kmsg("harness: no data disk: %s\n", strerror(errno));
}

void boot_init(struct boot_times *t, const char *data_dir)
{
	struct utsname u;

	t->init_ms = boot_uptime_ms();
	mount_all();
	if (uname(&u) == 0)
		kmsg("harness: init %s\n", u.release);
	boot_load_modules(MODULES_ORDER);
	mount_data(data_dir);
	t->ready_ms = boot_uptime_ms();
}

/*
 * The domain ends either way (libvirt: on_poweroff and on_reboot destroy). An
 * x86 kernel without ACPI cannot power off, it would only halt; it resets.
 */
void boot_poweroff(int status)
{
	int off = 1;

#if defined(__x86_64__) || defined(__i386__)
	off = access("/sys/firmware/acpi", F_OK) == 0;
#endif
	/* what the agent wrote to the console (its error) is still in the
	 * UART's buffer: it must leave before the reset, or it is lost */
	tcdrain(STDERR_FILENO);
	kmsg("harness: agent exited %d\n", status);
	sync();
	reboot(off ? RB_POWER_OFF : RB_AUTOBOOT);
	/* PID 1 must not return: the kernel would panic on it */
	for (;;)
		pause();
}
