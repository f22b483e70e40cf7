/* cmd_probe.c -- `harness probe`: which accelerator guests would use and why,
 * the first host's QEMU and libvirt, and how TCG guests get their threads. */
#include "cli/commands.h"
#include "base/err.h"
#include "base/lock.h"
#include "base/proc.h"
#include "base/textline.h"
#include "conf/conf.h"
#include "vm/vm.h"

#include <string.h>
#include <unistd.h>

/*
 * The first host's QEMU and libvirt (its connection, opened only while no
 * harness run or harnessd holds the results directory) and the TCG
 * threading guests of more than one vCPU get there, with why.
 */
static void probe_versions(const struct conf *c, const char *accel)
{
	const struct conf_host *hosts;
	struct conf_host one;
	struct vm_host_facts f;
	struct vm_conn *vm = NULL;
	char uri[PATH_MAX], log[PATH_MAX], err[ERR_MAX], why[256];
	_cleanup_close_ int lock = -1;

	conf_hosts(c, &one, &hosts);
	if (conf_host_uri(c, &hosts[0], uri, sizeof(uri), err) < 0 ||
	    lock_take(c->results, "harness probe", &lock, err) < 0 ||
	    pathf(log, err, "%s/libvirt.log", c->results) < 0 || vm_connect(uri, log, &vm, err) < 0) {
		escape_line(stdout, "qemu: unknown (%s)", err);
		return;
	}
	vm_set_storage(vm, hosts[0].name, hosts[0].storage, NULL, NULL);
	vm_conn_facts(vm, vm_conn_arch(vm), &f);
	printf("qemu: %s, libvirt: %s (host %s: %s, %s, %d CPUs)\n", f.qemu, f.libvirt,
	       hosts[0].name, f.kernel, f.cpu_model, f.cpus);
	if (!strcmp(accel, "tcg"))
		printf("tcg threading: %s with more than one vCPU (%s)\n",
		       vm_tcg_threading_on(&f, accel, 2, c->tcg_thread, why, sizeof(why)), why);
	else
		printf("tcg threading: none (%s runs the host's own arch; other arches' guests: %s, "
		       "%s)\n", accel, vm_tcg_threading_on(&f, "tcg", 2, c->tcg_thread, why, sizeof(why)), why);
	vm_disconnect(vm);
}

int cmd_probe(const struct conf *c, int argc, char **argv, int json)
{
	char kernel[PATH_MAX], why[ERR_MAX] = "";
	const char *accel;

	(void)argc;
	(void)argv;
	(void)json;
	if (pathf(kernel, why, "%s/%s/kernel/6.12/vmlinuz", c->images, vm_host_arch()) < 0 ||
	    access(kernel, R_OK) < 0) {
		escape_line(stderr, "harness: %s missing (run make images)", kernel);
		return 1;
	}
	accel = vm_pick_accel(vm_host_arch(), kernel, NULL, why, sizeof(why));
	printf("%s%s%s\n", accel, why[0] ? ": " : "", why);
	probe_versions(c, accel);
	return 0;
}
