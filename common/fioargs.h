/* fioargs.h -- fio command lines the harness lets a user give: split, checked
 * against an allow-list of fio's options, and completed into the agent's argv. */
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
 * How an allowed option's value is checked (fioargs_opts[].kind). Values are
 * printable ASCII already (fioargs_split, the job-file reader).
 */
enum fioargs_kind {
	FA_FLAG,     /* no value, or a decimal number: --time_based, --thread=1 */
	FA_VALUE,    /* a number, size, time, range, list or one of fio's words:
	              * letters, digits and . _ , : % + / - only */
	FA_TEXT,     /* free text (a description): no '$' */
	FA_CHOICE,   /* exactly one of the words in .choices */
	FA_PATH,     /* file names under the data directory: relative, no "..";
	              * '$' only in $jobname $jobnum $filenum $clientuid */
	FA_NAME,     /* a job name: letters, digits and . _ + - */
};

/* One fio option the harness lets a user give, by fio's own name. */
struct fioargs_opt {
	const char *name;
	const char *alias;     /* fio's other name for it, or NULL */
	enum fioargs_kind kind;
	const char *choices;   /* FA_CHOICE: the allowed words, space-separated */
	const char *engines;   /* an ioengine's own option: the engines that have it */
};

/* The allow-list, in fioargs.c: every option not in it is refused. */
extern const struct fioargs_opt fioargs_opts[];
extern const size_t fioargs_nopts;

/*
 * Accept only the allow-listed options, by their exact names or aliases (fio
 * takes any unambiguous abbreviation on its command line; here only the full
 * name proves which option it is), each given as "--NAME" or "--NAME=VALUE"
 * with its value checked by its kind. Anything else, an argument not starting
 * with "--" included, is refused. Returns 0, or -1 naming the option.
 */
int fioargs_check(char *const argv[], char *err, size_t errlen);

/*
 * The same rules for a job file's text: "[NAME]" section headers (NAME a job
 * name, as fio needs at least one), NAME or NAME=VALUE option lines, ';' and
 * '#' comments (fio cuts a line at either); "include" in any spelling is
 * refused. Returns 0, or -1 with "job file line N: reason".
 */
int fioargs_check_jobfile(const char *text, char *err, size_t errlen);

/* fio forks numjobs processes per job: at most this many per guest vCPU in all. */
#define FIOARGS_JOBS_PER_VCPU 64

/*
 * numjobs wherever a stream gives it (ARGV's --numjobs=N, JOBFILE's numjobs=N
 * lines; either may be NULL): each a whole number from 1, and all of them
 * added up at most VCPUS x FIOARGS_JOBS_PER_VCPU. The other rules are
 * fioargs_check's. Returns 0, or -1 with "numjobs: ...".
 */
int fioargs_check_numjobs(char *const argv[], const char *jobfile, unsigned vcpus, char *err,
			  size_t errlen);

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
