/* sandbox.h -- run a program on untrusted input with no access to host files:
 * fresh namespaces, an empty read-only root holding only the files or directories given, uid 65534. */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#define SANDBOX_FILES_MAX 8
#define SANDBOX_NAME_MAX  64
#define SANDBOX_UID       65534   /* nobody / nogroup */

/* One file the jail's root holds, copied in before the program starts. */
struct sandbox_file {
	const char *name;   /* its name in the jail's root: no '/', not "." or ".." */
	const char *src;    /* a regular host file to copy, or NULL for ... */
	const char *data;   /* ... these len bytes */
	size_t len;
	int exec;           /* mode 0555 rather than 0444 */
};

struct sandbox_limits {
	unsigned cpu_s;     /* RLIMIT_CPU: SIGKILL after this much CPU time */
	unsigned as_mib;    /* RLIMIT_AS */
	unsigned out_kib;   /* RLIMIT_FSIZE: what it may print */
	unsigned nofile;    /* RLIMIT_NOFILE */
	int timeout_ms;     /* wall clock, then SIGKILL */
};

/* fio --parse-only fits: a static fio maps about 150 MiB of pools. */
#define SANDBOX_LIMITS_DEFAULT \
	{ .cpu_s = 5, .as_mib = 512, .out_kib = 1024, .nofile = 32, .timeout_ms = 10000 }

struct sandbox_result {
	int code;           /* its exit code, or -1 */
	int signal;         /* the signal that ended it (SIGKILL for the CPU limit), or 0 */
	int timed_out;      /* killed at the wall-clock deadline */
};

/*
 * Run /ARGV[0] (one of FILES) in a jail: new mount, pid, network, IPC, UTS
 * and cgroup namespaces (and a user namespace when the caller is not root),
 * a tmpfs root holding only FILES, read-only, pivoted into (nothing of the
 * host's tree stays mounted), uid and gid 65534 with no supplementary
 * groups, no_new_privs, an empty environment, stdin /dev/null, no other open
 * files, no new processes (RLIMIT_NPROC 0) and the limits in LIM. Its stdout
 * and stderr go to a memory file, whose first outlen - 1 bytes are returned
 * in OUT, NUL-terminated. Returns 0 with RES filled, or -1 with a message if
 * the jail could not be made: then nothing was run.
 */
int sandbox_run(char *const argv[], const struct sandbox_file *files, size_t nfiles,
		const struct sandbox_limits *lim, char *out, size_t outlen,
		struct sandbox_result *res, char *err);

/*
 * A build jail: the same namespaces and user as sandbox_run, but a view of
 * host directories rather than copied files, for a kernel tree's make.
 */

/* One host directory the jail shows, at the same path. */
struct sandbox_bind {
	const char *path;   /* absolute, without a symlink anywhere in it */
	int writable;       /* else read-only */
};

#define SANDBOX_BINDS_MAX 8

struct sandbox_view {
	const struct sandbox_bind *binds;   /* at most SANDBOX_BINDS_MAX */
	size_t nbinds;
	const char *hide;        /* a directory inside a bind shown empty (a tree's .git), or NULL */
	char *const *env;        /* the whole environment, NAME=VALUE, NULL-terminated */
	const char *cwd;         /* inside a bind */
	const char *log_path;    /* stdout and stderr appended by the harness from a pipe, at
				  * most fsize_mib; never through a symlink */
	unsigned nproc;          /* RLIMIT_NPROC */
	unsigned fsize_mib;      /* RLIMIT_FSIZE */
	unsigned nofile;         /* RLIMIT_NOFILE (0: 1024) */
	unsigned tmp_inodes;     /* files and directories its /tmp may hold (0: 65536) */
	uint64_t mem_max;        /* bytes its own cgroup may use, /tmp's pages too, which take
				  * at most half of it and 1 GiB (0: no cgroup, /tmp 1 GiB) */
	int timeout_ms;          /* wall clock, then the jail is killed */
	void (*tick)(void *arg); /* about every tick_ms while it runs */
	void *tick_arg;
	int tick_ms;
};

/*
 * Run argv (argv[0] looked up in the view's PATH) in a jail: sandbox_run's
 * namespaces, user and no_new_privs, with a read-only tmpfs root that holds
 * the toolchain read-only (/usr, the merged-/usr links, /etc/alternatives and
 * ld.so.cache), /dev/null, zero, full, random and urandom, a fresh /proc of its
 * own pid namespace, a private /tmp, and V's binds; nothing else of the host.
 * Every process of the jail ends when argv[0] does (pid namespace) or at the
 * deadline. Its memory is a cgroup's of its own, limited to V's mem_max: one
 * that cannot be made fails the jail as root; not root (no cgroup of its own
 * to give), the jail runs without and its log says so. Its output reaches
 * the log through a pipe: it cannot truncate or seek the log. Returns 0 with
 * its exit code in *ret_status (-1 if a signal or the deadline ended it), or
 * -1 with a message if the jail could not be made.
 */
int sandbox_exec(char *const argv[], const struct sandbox_view *v, int *ret_status, char *err);

#endif
