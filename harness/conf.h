/* conf.h -- harness.conf: where results and images live, which libvirt URI to
 * use, and how big a guest is. One table describes every key. */
#ifndef CONF_H
#define CONF_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct conf {
	char results[PATH_MAX];   /* database, run directories, caches */
	char images[PATH_MAX];    /* output of `make images` */
	char presets[PATH_MAX];   /* workload presets, <name>.json */
	char uri[PATH_MAX];       /* libvirt URI; "" = embedded driver under results */
	uint64_t memory_mib;      /* guest RAM */
	uint64_t vcpus;
	uint64_t boot_timeout_s;  /* fresh boot to the agent's hello */
	uint64_t slack_s;         /* beyond the workload's duration before a run times out */
	char accel[8];            /* "auto", "kvm" or "tcg" */
};

/* Defaults, with relative paths resolved against dir. */
void conf_defaults(struct conf *c, const char *dir);

/*
 * Read path (key = value lines, '#' comments) over the defaults. Every error
 * is "path:line: message"; all are reported on stderr, then -1 is returned
 * with the first in err.
 */
int conf_load(struct conf *c, const char *path, char *err);

/* The URI to connect to (the embedded driver's when uri is empty). */
void conf_uri(const struct conf *c, char *buf, size_t len);

#endif
