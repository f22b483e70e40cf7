/* boot_stress.c -- boots one kernel N times through the harness's own libvirt
 * path to the agent's hello and counts the guests that crashed (tests/long_boot_stress.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/proc.h"
#include "vm/channel.h"
#include "vm/console.h"
#include "vm/vm.h"

struct stress {
	const char *dir;         /* the work directory: libvirt's root, consoles, overlays */
	const char *kernel, *initrd, *disk;
	const char *emulator;    /* NULL: the harness's choice (wrapper or the arch's QEMU) */
	const char *thread;      /* "auto": the harness's choice; "multi", "single": as given */
	unsigned long vcpus;
	int timeout_s;
};

enum outcome { OUT_HELLO, OUT_CRASH, OUT_SILENT, OUT_INFRA, OUT_MAX };
static const char *const outcome_name[OUT_MAX] = { "hello", "crash", "silent", "infra" };

static void usage(void)
{
	fprintf(stderr, "usage: boot_stress DIR KERNEL INITRD N auto|multi|single [EMULATOR]\n"
			"  boots KERNEL (x86_64, 2 vCPUs, TCG) N times to the agent's hello;\n"
			"  one line per boot, then the counts\n");
}

/* Wait for the agent's hello on d's channel until deadline: 1 if it came, 0 if not. */
static int hello(struct vm_domain *d, int64_t deadline, char *err)
{
	struct channel ch;
	struct proto_msg msg;
	int fd;

	channel_init(&ch);
	if (vm_open_channel(d, now_ms() + 10000, &fd, err) < 0)
		return 0;
	if (channel_attach(&ch, fd, err) < 0) {
		close(fd);
		return 0;
	}
	for (;;) {
		enum channel_status st = channel_recv(&ch, &msg, deadline, err);

		if (st != CH_MSG || msg.type == PROTO_HELLO) {
			channel_close(&ch);
			return st == CH_MSG;
		}
	}
}

/*
 * One boot: the domain started as a run's is (no pinning: a wrapper as
 * <emulator> cannot tell libvirt its threading), the hello awaited, the
 * console read whatever came. A crash printed before the hello counts too.
 */
static enum outcome boot_once(struct vm_conn *c, const struct stress *s, unsigned i,
			      char *detail, size_t len)
{
	char name[64], console[PATH_MAX], overlay[PATH_MAX], sock[PATH_MAX], err[ERR_MAX];
	struct console_report rep;
	struct vm_domain *d;
	struct vm_config cfg = {
		.name = name, .arch = "x86_64", .accel = "tcg", .memory_mib = 512,
		.vcpus = s->vcpus, .kernel = s->kernel, .initrd = s->initrd,
		.cmdline = "console=ttyS0 loglevel=6 panic=-1", .backing = s->disk,
		.disk = overlay, .console = console, .channel = sock, .first_cpu = -1,
		.tcg_thread = !strcmp(s->thread, "single") && !s->emulator ? "single" : NULL,
		.emulator = s->emulator,
	};
	int got;

	snprintf(name, sizeof(name), "stress-%d-%u", (int)getpid(), i);
	if (pathf(console, err, "%s/console-%u.log", s->dir, i) < 0 ||
	    pathf(overlay, err, "%s/overlay.qcow2", s->dir) < 0 ||
	    pathf(sock, err, "%s/channel.sock", s->dir) < 0)
		goto infra;
	unlink(sock);
	if (vm_start(c, &cfg, &d, err) < 0)
		goto infra;
	got = hello(d, now_ms() + (int64_t)s->timeout_s * 1000, err);
	vm_destroy(d);
	if (console_scan(console, &rep) == 0 && rep.crashed) {
		snprintf(detail, len, "%s", rep.first);
		return OUT_CRASH;
	}
	if (!got) {
		snprintf(detail, len, "no hello: %s", err);
		return OUT_SILENT;
	}
	unlink(console);         /* a good boot's console is not kept */
	snprintf(detail, len, "-");
	return OUT_HELLO;
infra:
	snprintf(detail, len, "%s", err);
	return OUT_INFRA;
}

/* The first line of s, its newlines made spaces, for a one-line record. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

int main(int argc, char **argv)
{
	struct stress s = { .vcpus = 2, .timeout_s = 120 };
	unsigned long n, i, count[OUT_MAX] = { 0 };
	char uri[PATH_MAX + 32], log[PATH_MAX], err[ERR_MAX], detail[1024];
	struct vm_conn *c;
	int64_t t0;

	if (argc < 6 || argc > 7) {
		usage();
		return 2;
	}
	s.dir = argv[1];
	s.kernel = argv[2];
	s.initrd = argv[3];
	n = strtoul(argv[4], NULL, 10);
	s.thread = argv[5];
	s.emulator = argc == 7 ? argv[6] : NULL;
	if (!n || (strcmp(s.thread, "auto") && strcmp(s.thread, "multi") &&
		   strcmp(s.thread, "single"))) {
		usage();
		return 2;
	}
	if (pathf(log, err, "%s/disk.raw", s.dir) < 0 ||
	    write_file(log, "", 0, err) < 0 || truncate(log, 16 << 20) < 0) {
		fprintf(stderr, "boot_stress: %s: %s\n", log, *err ? err : strerror(errno));
		return 1;
	}
	s.disk = strdup(log);
	snprintf(uri, sizeof(uri), "qemu:///embed?root=%s/libvirt", s.dir);
	if (pathf(log, err, "%s/libvirt.log", s.dir) < 0 || vm_connect(uri, log, &c, err) < 0) {
		fprintf(stderr, "boot_stress: %s\n", err);
		return 1;
	}
	if (!strcmp(s.thread, "auto")) {
		struct vm_host_facts f;
		char why[256];

		vm_conn_facts(c, "x86_64", &f);
		s.thread = vm_tcg_threading_on(&f, "tcg", s.vcpus, "auto", why, sizeof(why));
		printf("# threading %s (%s)\n", s.thread, why);
	}
	for (i = 0; i < n; i++) {
		enum outcome o;

		t0 = now_ms();
		o = boot_once(c, &s, (unsigned)i, detail, sizeof(detail));
		one_line(detail);
		count[o]++;
		printf("%lu %s %lld %s\n", i, outcome_name[o], (long long)(now_ms() - t0), detail);
		fflush(stdout);
	}
	vm_disconnect(c);
	printf("boots %lu hello %lu crash %lu silent %lu infra %lu\n", n, count[OUT_HELLO],
	       count[OUT_CRASH], count[OUT_SILENT], count[OUT_INFRA]);
	return 0;
}
