/* main.c -- the `harness` command: check a matrix, run it in fresh guests,
 * print its ABBA table; the only place that decides to exit.
 *
 * Folder cli/: the `harness` command: main, one cmd_*.c per command (options and
 * printing), the client of harnessd.
 * It may call: base/ common/ vm/ spec/ store/ run/ analysis/ output/ daemon/.
 */
#include "cli/client.h"
#include "cli/commands.h"
#include "analysis/calibrate.h"
#include "analysis/compare.h"
#include "spec/conf.h"
#include "base/err.h"
#include "base/lock.h"
#include "analysis/extend.h"
#include "output/html.h"
#include "output/plot.h"
#include "base/proc.h"
#include "base/textline.h"
#include "output/report.h"
#include "run/runner.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_extend.h"
#include "output/table.h"
#include "vm/vm.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: harness [-c harness.conf] [-j|--json] COMMAND ...\n"
	"  check [--parse-only] [--effect PCT] FILE  validate a matrix file, resolve its kernels\n"
	"                 (download, build, check fio arguments); boots nothing;\n"
	"                 --parse-only: the file alone, nothing fetched or run; then the blocks\n"
	"                 this host's calibrations say an effect of PCT (5) needs\n"
	"  run FILE       queue the matrix, run every run in a fresh guest, print its table\n"
	"  run MATRIX     run what a stored matrix (id or name) has queued, print its table\n"
	"  table [--format F] [--metric M] [--baseline ARM] [--pairs] MATRIX\n"
	"                 the tables of a stored matrix (id or name), any time\n"
	"  compare MATRIX BASE NEW | --matrices M1 M2 | --tags TAG_BASE TAG_NEW\n"
	"                 verdicts per cell and metric; exit 1 on a regression\n"
	"  extend --until-decided --max-blocks N MATRIX [BASE NEW]  queue blocks for the\n"
	"                 cells compare calls UNKNOWN (through harnessd if it runs)\n"
	"  calibrate [--arm ARM] [--cell CELL]... [--blocks N] [--print] FILE | --from MATRIX\n"
	"                 run A/A blocks of FILE's cells on this host and store their noise:\n"
	"                 the noise compare shows, check's and submit's advice\n"
	"  bisect MATRIX --cell CELL --metric METRIC GOOD BAD [--max-blocks N]\n"
	"                 [--max-runs N] [--max-hours H]  the first patch of BAD's series\n"
	"                 that moves METRIC, each prefix built and measured against GOOD\n"
	"  plot MATRIX [-o DIR] [--metric NAME]  SVG time series per cell, arm and file\n"
	"  report MATRIX [-o FILE.html]  one self-contained HTML page: tables, verdicts, plots\n"
	"  lru MATRIX     per cell and arm, its first run's oldest generations: file pages\n"
	"                 evicted, refaulted (and the share) and protected, by tier\n"
	"  phases MATRIX  where each run's time went: prepare, libvirt, firmware, kernel,\n"
	"                 modules, agent, setup, workload, teardown, store (ms)\n"
	"  probe          say which accelerator guests would use, and why\n"
	"through the daemon (harnessd); --json prints its JSON as is:\n"
	"  submit [--wait] FILE  queue a matrix (more reps of a queued one are appended);\n"
	"                 the daemon resolves its kernels first (--wait: until it has)\n"
	"  status [MATRIX]  every matrix, or one matrix's progress, ETA and runs\n"
	"  cancel|pause|resume MATRIX\n"
	"  watch RUN      follow a run's samples live, one line an interval\n";

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
	conf_host_uri(c, &hosts[0], uri, sizeof(uri));
	if (lock_take(c->results, "harness probe", &lock, err) < 0 ||
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

static int cmd_probe(const struct conf *c)
{
	char kernel[PATH_MAX], why[ERR_MAX] = "";
	const char *accel;

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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL;
	struct conf c;
	char err[ERR_MAX];
	int opt, json = 0;

	while ((opt = getopt_long(argc, argv, "+c:hj", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			conf_path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			fputs(usage, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 1;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		fputs(usage, stderr);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (conf_setup(&c, conf_path, err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	if (!strcmp(argv[0], "check"))
		return cmd_check(&c, argc, argv);
	if (!strcmp(argv[0], "run") && argc == 2)
		return cmd_run(&c, argv[1]);
	if (!strcmp(argv[0], "table"))
		return cmd_table(&c, argc, argv, json);
	if (!strcmp(argv[0], "compare"))
		return cmd_compare(&c, argc, argv, json);
	if (!strcmp(argv[0], "plot"))
		return cmd_plot(&c, argc, argv);
	if (!strcmp(argv[0], "report"))
		return cmd_report(&c, argc, argv);
	if (!strcmp(argv[0], "calibrate"))
		return cmd_calibrate(&c, argc, argv);
	if (!strcmp(argv[0], "bisect"))
		return cmd_bisect(&c, argc, argv, json);
	if (!strcmp(argv[0], "phases"))
		return cmd_phases(&c, argc, argv, json);
	if (!strcmp(argv[0], "lru"))
		return cmd_lru(&c, argc, argv);
	if (!strcmp(argv[0], "extend"))
		return cmd_extend(&c, argc, argv, json);
	if (!strcmp(argv[0], "probe") && argc == 1)
		return cmd_probe(&c);
	if (client_handles(argv[0]))
		return client_main(&c, argc, argv, json);
	fputs(usage, stderr);
	return 1;
}
