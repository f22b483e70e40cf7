/* sandbox.h -- run a program on untrusted input with no access to host files:
 * fresh namespaces, an empty read-only root holding only the files given, uid 65534. */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>

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

#endif
