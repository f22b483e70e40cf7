/* fiocheck.h -- refuse a stream's fio options on the host, before any guest
 * boots: the harness's own rules, then the same static fio with --parse-only. */
#ifndef FIOCHECK_H
#define FIOCHECK_H

/* fio's own error text kept in a message: at most this many lines. */
#define FIOCHECK_LINES 2

/*
 * Check stream NAME's fio command line ARGS_TEXT and job file JOBFILE_TEXT
 * (either may be NULL or empty, not both): split and fioargs_check them,
 * their numjobs against a guest of VCPUS (fioargs_check_numjobs), then
 * run FIO_BIN --parse-only with them in a sandbox (sandbox.h: no host files,
 * uid 65534, 5 s of CPU, 10 s in all). Returns 0, or -1 with "stream 'NAME':
 * ..." in err (ERR_MAX bytes); when fio refuses, the rest is fio's own first
 * lines; when no sandbox can be made, the reason (fio is then not run).
 */
int fiocheck_args(const char *fio_bin, const char *args_text, const char *jobfile_text,
		  unsigned vcpus, const char *name, char *err);

#endif
