/* proc.h -- run a helper program from an argv array (never a shell), with a
 * deadline; and small file-system helpers the harness needs around it. */
#ifndef PROC_H
#define PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Run argv[0] (looked up in PATH) with stdin from /dev/null and stdout+stderr
 * appended to log_path (or discarded if NULL; a symlink there is refused). Waits at most timeout_ms, then
 * kills it. Returns 0 and the exit code in *ret_status (-1 if killed by a
 * signal or the deadline), or -1 with a message if it could not be run.
 */
int proc_run(char *const argv[], const char *log_path, int timeout_ms, int *ret_status,
	     char *err);

/*
 * proc_run with more say over the child: its working directory, extra
 * environment (NAME=VALUE entries, NULL-terminated, added to the inherited
 * one), and a tick called about every tick_ms while it runs (a build's
 * progress line). Fields left 0/NULL behave as proc_run.
 */
struct proc_opts {
	const char *cwd;
	char *const *env;
	const char *log_path;
	int timeout_ms;
	void (*tick)(void *arg);
	void *tick_arg;
	int tick_ms;
	int log_new;        /* the log made anew (what was there removed), not appended */
	int stdout_only;    /* stderr discarded: the log holds what it printed on stdout */
	int readable;       /* umask 022: what it writes, another uid may read (a jail's) */
};
int proc_run_opts(char *const argv[], const struct proc_opts *o, int *ret_status, char *err);

/*
 * Run argv (cwd may be NULL) and return what it printed (stdout and
 * stderr), at most len-1 bytes, NUL-terminated and with trailing newlines
 * removed, in out. -1 with a message if it could not run, exited non-zero or
 * printed more than fits.
 */
int proc_output(char *const argv[], const char *cwd, int timeout_ms, char *out, size_t len,
		char *err);

/*
 * Wait for child PID (WHAT names it in messages) at most timeout_ms, then
 * SIGKILL its process group and it. Returns 0 with its wait status, 1 if the
 * deadline killed it, or -1 with a message.
 */
int proc_wait(pid_t pid, const char *what, int timeout_ms, int *ret_wstatus, char *err);

/* proc_wait in steps of o->tick_ms (o's timeout_ms), calling o->tick between them. */
int proc_wait_ticking(pid_t pid, const char *what, const struct proc_opts *o, int *ret_wstatus,
		      char *err);

/* snprintf into a PATH_MAX buffer; -1 with a message if it does not fit. */
int pathf(char *buf, char *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* mkdir -p; returns 0 or -1 with a message. */
int mkdir_p(const char *path, char *err);

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t now_ms(void);

/*
 * A file's identity as text (device, inode, size, mtime, rdev): a file
 * replaced or rewritten reads differently. -1 (errno set) if it cannot be
 * stat'ed, or (ERANGE) if it does not fit len bytes.
 */
int file_identity(const char *path, char *out, size_t len);

/*
 * Write a whole file atomically: PATH.tmp made anew beside it (O_EXCL,
 * O_NOFOLLOW), then renamed over it. A symlink at PATH or PATH.tmp, or at the
 * end of its directory's path, is refused with a message naming it.
 */
int write_file(const char *path, const void *buf, size_t len, char *err);

/* open(2) with no symlink followed anywhere in path (openat2's RESOLVE_NO_SYMLINKS); -1, errno ELOOP, if one is there. */
int open_no_symlinks(const char *path, int flags);

/*
 * Copy the regular file src (no symlink anywhere in its path) to dst as
 * write_file writes one; -1 with a message naming what was refused.
 */
int copy_regular_file(const char *src, const char *dst, char *err);

/* Write all n bytes to fd, again after EINTR and short writes; 0, or -1 (errno set). */
int write_all(int fd, const void *buf, size_t n);

/*
 * Read path whole, if it is a regular file of at most max bytes, into a
 * malloc'd buffer (*ret, NUL-terminated; its length in *ret_len). It is opened
 * without blocking and checked before any read, so a FIFO, a device or a
 * directory is refused at once; -1 with "PATH: ..." otherwise.
 */
int read_regular_file(const char *path, size_t max, char **ret, size_t *ret_len, char *err);

#endif
