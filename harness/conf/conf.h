/* conf.h -- harness.conf: where results and images live, which libvirt URI to
 * use, and how big a guest is. One table describes every key.
 *
 * Folder conf/: the machine's settings, as harness.conf says them (conf.c)
 * and the libvirt URIs it may name, allow-listed (uri.c).
 * It may call: base/ common/.
 */
#ifndef CONF_H
#define CONF_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/uri.h"

#define CONF_KERNEL_DIRS_MAX (2 * PATH_MAX)
#define CONF_TOKEN_MIN       32   /* characters in an api_token, if set */

/*
 * A machine guests run on: a libvirt URI (the embedded driver under results
 * when "embedded"), how many guests at once, which guest architectures, and
 * the directory of the harness's storage pool there. Written in harness.conf
 * as `host = NAME URI [slots=N] [arch=A[,B]] [storage=/DIR]`.
 */
#define CONF_HOSTS_MAX     32
#define CONF_HOST_NAME_MAX 32
#define CONF_HOST_URI_MAX  1024
#define CONF_HOST_DIR_MAX  256

struct conf_host {
	char name[CONF_HOST_NAME_MAX];  /* [a-z0-9][a-z0-9._-]*, unique */
	char uri[CONF_HOST_URI_MAX];    /* "" = embedded */
	uint64_t slots;                 /* 0: cores / vcpus (the embedded host only) */
	char archs[32];                 /* "x86_64 aarch64", space-separated; "" = its own */
	char storage[CONF_HOST_DIR_MAX];
	int line;                       /* of harness.conf, for messages */
};

struct conf {
	char results[PATH_MAX];   /* database, run directories, caches */
	char images[PATH_MAX];    /* output of `make images` */
	char presets[PATH_MAX];   /* workload presets, <name>.json */
	char uri[PATH_MAX];       /* libvirt URI; "" = embedded driver under results */
	int uri_line;             /* of harness.conf, for messages */
	uint64_t memory_mib;      /* guest RAM */
	uint64_t vcpus;
	uint64_t boot_timeout_s;  /* fresh boot to the agent's hello */
	uint64_t slack_s;         /* beyond the workload's duration before a run times out */
	char accel[8];            /* "auto", "kvm" or "tcg" */
	char tcg_thread[8];       /* "auto", "single" or "multi" (vm_tcg_threading_on) */
	char start[8];            /* a run's guest: "boot" or "restore" (from a saved guest) */
	uint64_t saves;           /* saved guests per arm, each booted anew, rotated over blocks */
	uint64_t saves_max_mib;   /* saved guests kept in the cache, MiB; the oldest go */
	/* the daemon */
	char api_socket[PATH_MAX];  /* unix socket of the HTTP API, mode 0600 */
	char api_group[64];       /* if set: socket mode 0660, owned by this group */
	char api_tcp[64];         /* "" (off) or "127.0.0.1:PORT"; needs api_token */
	char api_token[128];      /* bearer token for TCP requests, CONF_TOKEN_MIN..127 */
	uint64_t guests;          /* guests at once; 0: as many as the cores allow */
	uint64_t pin;             /* 1: pin each guest's vCPUs to its own cores */
	uint64_t watchdog_intervals;  /* no sample for this many intervals: timeout */
	uint64_t watchdog_min_s;      /* ... and for at least this long */
	uint64_t retries;         /* re-runs after an infrastructure failure */
	uint64_t bisections_max;  /* bisections queued or running at once in harnessd */
	uint64_t build_memory_mib;  /* a kernel build's jail, its cgroup's memory; 0: half the host's */
	char webhook[PATH_MAX];   /* URL POSTed JSON when a matrix ends or a run crashes */
	/* the quiet-host gate (run/quiet.h): thresholds in % of wall time stalled */
	uint64_t quiet_cpu_pct, quiet_io_pct;  /* cpu and io "some"; 100: off */
	uint64_t contended_cpu_pct;  /* cpu "some" of a measured window, its guest running */
	uint64_t contended_others_pct;  /* ... and others' CPU meanwhile, % of one CPU */
	uint64_t quiet_load_pct;  /* without PSI: 1-minute load per core, % */
	uint64_t quiet_wait_s;    /* the longest a run waits before it starts anyway */
	/* absolute directories, one space apart, that kernels and modules named by
	 * path may come from besides the images directory; "" adds the matrix's own */
	char kernel_dirs[CONF_KERNEL_DIRS_MAX];
	/* the same for source arms' trees, patch series and config files (no images
	 * directory: a tree there is not the user's); "" is the matrix's own */
	char source_dirs[CONF_KERNEL_DIRS_MAX];
	/* the same for the files a URI names (keyfile=, known_hosts=, pkipath=);
	 * "" is ~/.ssh of the user the harness runs as */
	char key_dirs[CONF_KERNEL_DIRS_MAX];
	/* the machines guests run on, in conf order; none: this one (conf_hosts) */
	unsigned nhosts;
	struct conf_host hosts[CONF_HOSTS_MAX];
};

/* Defaults, with relative paths resolved against dir. */
void conf_defaults(struct conf *c, const char *dir);

/*
 * Read path (key = value lines, '#' comments) over the defaults. Every error
 * is "path:line: message", said once: with one bad line, -1 and it in err
 * (nothing on stderr); with more, each on stderr and -1 with "path: N lines
 * refused, each above" in err.
 */
int conf_load(struct conf *c, const char *path, char *err);

#define CONF_FILE_MAX (1 << 20)        /* a larger harness.conf is refused */
#define CONF_LINE_MAX (PATH_MAX + 62)  /* bytes in a line, without its newline */

/*
 * The same from text (len bytes, lines split on '\n'): what conf_load does
 * with the file's contents. label stands for the file in messages; relative
 * paths start at dir. A line longer than CONF_LINE_MAX stops the parse; one
 * with a NUL byte is refused.
 */
int conf_load_text(struct conf *c, const char *text, size_t len, const char *label,
		   const char *dir, char *err);

/*
 * What the commands and the daemon do first: load path, else ./harness.conf
 * if there is one, else the defaults; create the results directory and make
 * results, images and presets absolute (libvirt and QEMU resolve paths from
 * elsewhere).
 */
int conf_setup(struct conf *c, const char *path, char *err);

/*
 * What the daemon needs beyond conf_setup: a TCP listener (api_tcp) lets
 * network clients choose the directory a matrix's paths start from, so it
 * needs kernel_dirs. path is the file conf_setup read, or NULL.
 */
int conf_check_daemon(const struct conf *c, const char *path, char *err);

/* The URI to connect to (the embedded driver's when uri is empty): 0, or -1 with err when
 * it is len bytes or longer. */
int conf_uri(const struct conf *c, char *buf, size_t len, char *err);

/*
 * The hosts guests run on: conf's host lines, or, without any, this machine
 * alone (named as gethostname() says, conf's uri, guests slots) in *one.
 * Returns how many; *ret points into c or at one.
 */
unsigned conf_hosts(const struct conf *c, struct conf_host *one, const struct conf_host **ret);

/* 1 if s is a host's name: [a-z0-9][a-z0-9._-]*, shorter than CONF_HOST_NAME_MAX. */
int conf_host_name_ok(const char *s);

/* The URI to open for h: its own, or the embedded driver's under results: 0, or -1 with
 * err when it is len bytes or longer. */
int conf_host_uri(const struct conf *c, const struct conf_host *h, char *buf, size_t len,
		  char *err);

#endif
