/* commands.h -- the `harness` commands, one module each in cli/: their option
 * parsing and what they print; the stages below do the work. */
#ifndef COMMANDS_H
#define COMMANDS_H

#include "analysis/metric.h"
#include "conf/conf.h"

#include <stdint.h>

/*
 * The commands, each named in main.c's table: the command's argv (argv[0]
 * is its name) in, the exit code out. compare: 0, 1 (a regression) or 2
 * (errors); bisect: 0 found, 2 not, 1 errors; watch: 1 unless the run ended
 * done; the others 0 or 1, with the message on stderr. json: print JSON
 * instead of text, where the command has it.
 */
int cmd_check(const struct conf *c, int argc, char **argv, int json);
int cmd_run(const struct conf *c, int argc, char **argv, int json);
int cmd_table(const struct conf *c, int argc, char **argv, int json);
int cmd_compare(const struct conf *c, int argc, char **argv, int json);
/* through harnessd when one answers on its socket, else into the database */
int cmd_extend(const struct conf *c, int argc, char **argv, int json);
int cmd_calibrate(const struct conf *c, int argc, char **argv, int json);
int cmd_bisect(const struct conf *c, int argc, char **argv, int json);
int cmd_plot(const struct conf *c, int argc, char **argv, int json);
int cmd_report(const struct conf *c, int argc, char **argv, int json);
int cmd_lru(const struct conf *c, int argc, char **argv, int json);
/* any named counter's change per cell and arm (output/countertable.h) */
int cmd_vmstat(const struct conf *c, int argc, char **argv, int json);
/* where each run's time went (run/phases.h), from the stored timestamps */
int cmd_phases(const struct conf *c, int argc, char **argv, int json);
/* the accelerator guests would use, QEMU's and libvirt's versions, TCG threading */
int cmd_probe(const struct conf *c, int argc, char **argv, int json);
/* a page of docs/ (built in), or their list */
int cmd_help(const struct conf *c, int argc, char **argv, int json);
/* harnessd's (cmd_daemon.c, cmd_watch.c): a request each over its API */
int cmd_submit(const struct conf *c, int argc, char **argv, int json);
int cmd_status(const struct conf *c, int argc, char **argv, int json);
/* cancel, pause and resume: argv[0] says which */
int cmd_control(const struct conf *c, int argc, char **argv, int json);
int cmd_hosts(const struct conf *c, int argc, char **argv, int json);
int cmd_host(const struct conf *c, int argc, char **argv, int json);
int cmd_watch(const struct conf *c, int argc, char **argv, int json);

/*
 * The arguments plot and report share: MATRIX, -o PATH (*out, NULL if not
 * given), --metric NAME up to max times into ms[*n]. Returns 0 to go on, or
 * -1 with the exit code in *rc after printing usage (cmd's) or the error.
 */
int plot_args(int argc, char **argv, const char *cmd, const char *usage, const char **out,
	      const struct metric **ms, unsigned max, unsigned *n, int *rc);

/* "5" or "2.5" (0 to 100) as a fraction into *ret; -1 if it is not one. */
int cli_percent(const char *s, double *ret);

/*
 * kbuild's gate for a command's compiles (arg: its open struct buildlock):
 * the results directory's build gate taken as building (busy 1), waiting
 * while a block is measured anywhere and saying so on stderr; let go (0).
 */
int cli_build_gate(void *arg, int busy, char *err);

/*
 * What this host's calibrations (harness calibrate) say of m's blocks for an
 * effect: lines on stdout, "warning: " before each warning. Nothing if the
 * results directory has no database yet. Returns 0, or -1 with err.
 */
struct matrix;
int cli_noise_advice(const struct conf *c, const struct matrix *m, double effect, char *err);

/*
 * harness run of a matrix: file's matrix parsed into m (parsed: m is already,
 * file only names it), or the stored matrix called file; queued, run, its
 * table printed; m released. *ret_mid (may be NULL) the matrix's id when it
 * ran. Returns 0, 2 if runs failed, 1 with the message printed.
 */
int cli_run(const struct conf *c, const char *file, struct matrix *m, int parsed,
	    int64_t *ret_mid);

#endif
