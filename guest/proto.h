/* proto.h -- the host <-> guest channel: one JSON object per line, both ways.
 * harness/ and guest/ both compile proto.c; no other file defines a message. */
#ifndef PROTO_H
#define PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define PROTO_VERSION    1
#define PROTO_PORT_NAME  "harness.0"
#define PROTO_LINE_MAX   4096   /* longer lines are refused, never truncated */
#define PROTO_STR_MAX    128    /* bound on every string field */
#define PROTO_ERR_MAX    256

/*
 * Per-interval sample fields, described once. Columns: struct member, JSON key,
 * upper bound accepted from a guest. Every field is a non-negative integer; the
 * counters are deltas over the interval, resident_pages is a level.
 */
#define PROTO_SAMPLE_FIELDS(X)                                              \
	X(seq,            "seq",                      UINT64_C(1) << 32)        \
	X(t_ms,           "t_ms",                     UINT64_C(1) << 40)        \
	X(ops,            "ops",                      UINT64_C(1) << 40)        \
	X(pgmajfault,     "pgmajfault",               UINT64_C(1) << 40)        \
	X(refault_file,   "workingset_refault_file",  UINT64_C(1) << 40)        \
	X(activate_file,  "workingset_activate_file", UINT64_C(1) << 40)        \
	X(resident_pages, "resident_pages",           UINT64_C(1) << 40)

struct proto_sample {
#define X(m, key, max) uint64_t m;
	PROTO_SAMPLE_FIELDS(X)
#undef X
};

/* Workload option types, for the option table below. */
enum proto_opt_type { OPT_UINT, OPT_DOUBLE, OPT_ENUM };

struct proto_opt {
	const char *name;            /* key in the matrix and in the job */
	enum proto_opt_type type;
	size_t off;                  /* offsetof() into struct proto_workload */
	double min, max;             /* inclusive range (OPT_UINT, OPT_DOUBLE) */
	const char *const *choices;  /* NULL-terminated (OPT_ENUM) */
	const char *def;             /* default as text; NULL means required */
	const char *help;
};

enum wl_access { WL_PREAD, WL_MMAP };
enum wl_dist   { WL_UNIFORM, WL_ZIPF };

/* One native workload: N threads of random 4 KiB reads over one file. */
struct proto_workload {
	unsigned access;        /* enum wl_access */
	unsigned dist;          /* enum wl_dist */
	double   theta;         /* zipf exponent, ignored for uniform */
	uint64_t threads;
	uint64_t duration_s;
	uint64_t interval_ms;
	uint64_t file_mib;      /* size of the data file the reads go to */
	uint64_t memcg_mib;     /* memory.max of the workload's cgroup */
};

extern const struct proto_opt proto_workload_opts[];

/* Fill every option with its default; returns 0. */
int proto_workload_defaults(struct proto_workload *w);

/*
 * Set option NAME from text VAL (range-checked). Returns 0, or -1 with a one
 * line reason in err naming the option and what was expected.
 */
int proto_workload_set(struct proto_workload *w, const char *name, const char *val,
		       char *err, size_t errlen);

/* The same from a JSON string or number (matrix files, the job message). */
int proto_workload_set_json(struct proto_workload *w, const char *key, json_t *v,
			    char *err, size_t errlen);

/* Name of an enum option's current value, for tables and logs. */
const char *proto_workload_enum_name(const struct proto_workload *w, const char *opt);

enum proto_type {
	PROTO_HELLO = 1,  /* guest: agent is up, what the kernel is */
	PROTO_JOB,        /* host: what to run */
	PROTO_SETUP,      /* guest: lru_gen read back, memcg made, file opened */
	PROTO_SAMPLE,     /* guest: one interval */
	PROTO_SUMMARY,    /* guest: workload ended */
	PROTO_ERROR,      /* guest: the job cannot run; msg says why */
};

struct proto_hello {
	uint64_t proto;
	char release[PROTO_STR_MAX];   /* uname -r */
	char arch[32];                 /* uname -m */
	uint64_t page_size;
	uint64_t mem_total_kib;
	char lru_gen_caps[32];         /* /sys/kernel/mm/lru_gen/enabled, "" if absent */
	uint64_t cachestat;            /* 1 if cachestat(2) works */
};

struct proto_job {
	uint64_t run;
	char lru_gen[8];               /* "y", "n" or "" to leave the kernel default */
	struct proto_workload wl;
};

struct proto_setup {
	char lru_gen[32];              /* value read back after writing */
	uint64_t file_pages;
	char residency[16];            /* "cachestat" or "mincore" */
};

struct proto_summary {
	uint64_t ops;
	uint64_t duration_ms;
	uint64_t samples;
};

struct proto_msg {
	enum proto_type type;
	union {
		struct proto_hello hello;
		struct proto_job job;
		struct proto_setup setup;
		struct proto_sample sample;
		struct proto_summary summary;
		char error[PROTO_ERR_MAX];
	} u;
};

/*
 * Parse one line (without its newline). Strict: the object must have exactly
 * the fields of its type, each of the right JSON type and in range; strings
 * must fit and hold printable ASCII only. Returns 0, or -1 with a reason in err.
 */
int proto_parse(const char *line, size_t len, struct proto_msg *out,
		char *err, size_t errlen);

/*
 * Format a message as one line ending in '\n' into buf. Returns the length,
 * or -1 if it does not fit in buflen (always < PROTO_LINE_MAX for valid input).
 */
int proto_format(const struct proto_msg *m, char *buf, size_t buflen);

#endif
