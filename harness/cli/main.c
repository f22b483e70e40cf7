/* main.c -- the `harness` command: its commands in one table (name, usage,
 * where it goes), the usage text made from it; the only place that exits.
 *
 * Folder cli/: the `harness` command: main, one cmd_*.c per command (options and
 * printing), the client of harnessd.
 * It may call: base/ common/ conf/ vm/ spec/ store/ run/ analysis/ output/ daemon/.
 */
#include "cli/client.h"
#include "cli/commands.h"
#include "base/err.h"
#include "base/textline.h"
#include "conf/conf.h"

#include <getopt.h>
#include <string.h>

#define ARGS_ANY  (-1)   /* the command parses its own arguments */
#define USAGE_COL   15   /* a synopsis this long or shorter shares its line */
#define USAGE_WIDTH 78   /* where a long synopsis wraps */

/* One command: what it takes and does (for the usage text), and its function. */
struct command {
	const char *name;
	const char *args;             /* after the name: the synopsis */
	const char *what;             /* what it does, lines apart at '\n' */
	int min_args, max_args;       /* after the name; ARGS_ANY: the command checks */
	int daemon;                   /* through harnessd (libcurl set up first) */
	int (*fn)(const struct conf *c, int argc, char **argv, int json);
};

static const struct command commands[] = {
	{ "check", "[--parse-only] [--effect PCT] FILE",
	  "validate a matrix file, resolve its kernels\n"
	  "(download, build, check fio arguments); boots nothing;\n"
	  "--parse-only: the file alone, nothing fetched or run; then the blocks\n"
	  "this host's calibrations say an effect of PCT (5) needs",
	  ARGS_ANY, ARGS_ANY, 0, cmd_check },
	{ "run", "FILE | MATRIX",
	  "queue the matrix file, run every run in a fresh guest, print its table;\n"
	  "a stored matrix (id or name): run what it has queued",
	  1, 1, 0, cmd_run },
	{ "table", "[--format F] [--metric M] [--baseline ARM] [--pairs] MATRIX",
	  "the tables of a stored matrix (id or name), any time",
	  ARGS_ANY, ARGS_ANY, 0, cmd_table },
	{ "compare", "MATRIX BASE NEW | --matrices M1 M2 | --tags TAG_BASE TAG_NEW",
	  "verdicts per cell and metric; exit 1 on a regression",
	  ARGS_ANY, ARGS_ANY, 0, cmd_compare },
	{ "extend", "--until-decided --max-blocks N MATRIX [BASE NEW]",
	  "queue blocks for the cells compare calls UNKNOWN (through harnessd if it runs)",
	  ARGS_ANY, ARGS_ANY, 0, cmd_extend },
	{ "calibrate", "[--arm ARM] [--cell CELL]... [--blocks N] [--print] FILE | --from MATRIX",
	  "run A/A blocks of FILE's cells on this host and store their noise:\n"
	  "the noise compare shows, check's and submit's advice",
	  ARGS_ANY, ARGS_ANY, 0, cmd_calibrate },
	{ "bisect", "MATRIX --cell CELL --metric METRIC GOOD BAD [--max-blocks N] "
		    "[--max-runs N] [--max-hours H]",
	  "the first patch of BAD's series that moves METRIC, each prefix built\n"
	  "and measured against GOOD",
	  ARGS_ANY, ARGS_ANY, 0, cmd_bisect },
	{ "plot", "MATRIX [-o DIR] [--metric NAME]", "SVG time series per cell, arm and file",
	  ARGS_ANY, ARGS_ANY, 0, cmd_plot },
	{ "report", "MATRIX [-o FILE.html]", "one self-contained HTML page: tables, verdicts, plots",
	  ARGS_ANY, ARGS_ANY, 0, cmd_report },
	{ "lru", "MATRIX",
	  "per cell and arm, its first run's oldest generations: file pages\n"
	  "evicted, refaulted (and the share) and protected, by tier",
	  ARGS_ANY, ARGS_ANY, 0, cmd_lru },
	{ "vmstat", "[--key KEY] [--src vmstat|zram|zswap|stall] MATRIX",
	  "per cell and arm, each /proc/vmstat counter's change over the measured\n"
	  "intervals (zram's, zswap's, the reclaim stall histogram's with --src);\n"
	  "--key: one counter, interval by interval",
	  ARGS_ANY, ARGS_ANY, 0, cmd_vmstat },
	{ "phases", "MATRIX",
	  "where each run's time went: prepare, libvirt, firmware, kernel,\n"
	  "modules, agent, setup, workload, teardown, store (ms)",
	  ARGS_ANY, ARGS_ANY, 0, cmd_phases },
	{ "probe", "", "say which accelerator guests would use, and why", 0, 0, 0, cmd_probe },
	{ "help", "[TOPIC]", "a page of the documentation (docs/TOPIC.md); without TOPIC, the pages",
	  0, 1, 0, cmd_help },
	{ "submit", "[--wait] FILE",
	  "queue a matrix (more reps of a queued one are appended); the daemon\n"
	  "resolves its kernels first (--wait: until it has)", 1, 2, 1, cmd_submit },
	{ "status", "[MATRIX]", "every matrix, or one matrix's progress, ETA and runs",
	  0, 1, 1, cmd_status },
	{ "cancel", "MATRIX", "its runs not yet begun are cancelled", 1, 1, 1, cmd_control },
	{ "pause", "MATRIX", "no new block of it starts until resume", 1, 1, 1, cmd_control },
	{ "resume", "MATRIX", "its blocks may start again", 1, 1, 1, cmd_control },
	{ "watch", "RUN", "follow a run's samples live, one line an interval", 1, 1, 1, cmd_watch },
	{ "hosts", "", "the daemon's hosts: state, slots, accelerators, runs", 0, 0, 1, cmd_hosts },
	{ "host", "drain|resume NAME", "a host takes no new block (drain), or takes them again",
	  2, 2, 1, cmd_host },
};

/*
 * One command's lines of the usage text: the synopsis, wrapped at WIDTH
 * under the command's name; then what it does, from USAGE_COL, on the
 * synopsis's line if it ends before.
 */
static void usage_of(FILE *f, const struct command *cmd)
{
	const char *p = cmd->args, *nl;
	int col = fprintf(f, "  %s", cmd->name);
	size_t w;

	while (*p) {
		p += *p == ' ';
		w = strcspn(p, " ");
		if (col + 1 + (int)w > USAGE_WIDTH)
			col = fprintf(f, "\n%*s", USAGE_COL + 1, "") - 1;
		col += fprintf(f, " %.*s", (int)w, p);
		p += w;
	}
	if (col > USAGE_COL + 1)
		fprintf(f, "\n%*s", USAGE_COL + 2, "");
	else
		fprintf(f, "%*s", USAGE_COL + 2 - col, "");
	for (p = cmd->what; (nl = strchr(p, '\n')); p = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - p), p, USAGE_COL + 2, "");
	fprintf(f, "%s\n", p);
}

/*
 * harness's usage, made from the command table (daemon commands last, under
 * their heading).
 */
static void usage(FILE *f)
{
	size_t i;

	fputs("usage: harness [-c harness.conf] [-j|--json] COMMAND ...\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (commands[i].daemon && (i == 0 || !commands[i - 1].daemon))
			fputs("through the daemon (harnessd); --json prints its JSON as is:\n", f);
		usage_of(f, &commands[i]);
	}
}

/* The command called name, or NULL. */
static const struct command *find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* The command with its arguments checked, libcurl set up for the daemon's. */
static int dispatch(const struct conf *c, const struct command *cmd, int argc, char **argv,
		    int json)
{
	char err[ERR_MAX];
	int rc;

	if (cmd->min_args != ARGS_ANY && (argc - 1 < cmd->min_args || argc - 1 > cmd->max_args)) {
		escape_line(stderr, "usage: harness%s %s %s", cmd->daemon ? " [--json]" : "",
			    cmd->name, cmd->args);
		return 1;
	}
	if (!cmd->daemon)
		return cmd->fn(c, argc, argv, json);
	if (client_start(err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	rc = cmd->fn(c, argc, argv, json);
	client_stop();
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
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
			usage(opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 1;
		}
	}
	argc -= optind;
	argv += optind;
	cmd = argc >= 1 ? find(argv[0]) : NULL;
	if (!cmd) {
		usage(stderr);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (conf_setup(&c, conf_path, err) < 0) {
		escape_line(stderr, "harness: %s", err);
		return 1;
	}
	return dispatch(&c, cmd, argc, argv, json);
}
