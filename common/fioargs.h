/* fioargs.h -- fio command lines the harness lets a user give: split, checked
 * against the options the harness controls, and completed into the agent's argv. */
#ifndef FIOARGS_H
#define FIOARGS_H

#include <stddef.h>

#define FIOARGS_MAX       64     /* arguments in one command line */
#define FIOARGS_ARG_MAX   256    /* bytes in one argument */
#define FIOARGS_TEXT_MAX  4096   /* bytes in the whole command line */
#define FIOARGS_JOB_MAX   65536  /* bytes in a job file */
#define FIOARGS_LINE_MAX  1024   /* bytes in one job-file line */

/*
 * Split TEXT on ASCII whitespace (no quoting, no shell) into a malloc'd
 * NULL-terminated argv. Printable ASCII only. Returns 0, or -1 with a
 * one-line reason in err; *ret_argv and *ret_argc are untouched on failure.
 */
int fioargs_split(const char *text, char ***ret_argv, int *ret_argc, char *err, size_t errlen);

/* Free an argv from fioargs_split or fioargs_build; NULL is fine. */
void fioargs_free(char **argv);

/*
 * Refuse what the harness controls or what would leave the guest's rules:
 * args not starting with "--", output/status/server/trigger/exec/cgroup/log
 * options (and unambiguous abbreviations of them, which fio accepts), and
 * absolute, "..", "${" or '/'-carrying paths and job names. Returns 0, or -1
 * naming the option.
 */
int fioargs_check(char *const argv[], char *err, size_t errlen);

/* The same rules for a job file's text ([section], key=value, ; and # comments;
 * "include" is refused). Returns 0, or -1 with "line N: reason". */
int fioargs_check_jobfile(const char *text, char *err, size_t errlen);

/*
 * The argv the agent execs: "fio", --directory=DIR (global: before the
 * first job), the user's args, then --output-format=json+ --output=OUTPUT
 * --status-interval=<N>ms (fio takes a
 * time with a unit suffix, millisecond resolution, at least 1 ms). Returns 0
 * and a malloc'd argv (fioargs_free), or -1 if interval_ms is 0 or memory
 * runs out.
 */
int fioargs_build(char *const user[], const char *dir, const char *output,
		  unsigned interval_ms, char ***ret);

#endif
