/* testlib.h -- fixtures the cmocka tests share: checked formatting, JSON
 * written with ', files and directories, a fake x86 bzImage and images tree,
 * a scratch directory with its conf, and a results database filled with
 * done runs. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_BZIMAGE_SIZE 4096

/* snprintf that fails the test on truncation. */
void sfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Fail the test unless err holds each string of ap up to a NULL, naming the first it lacks. */
void assert_err_has(const char *err, va_list ap);

/* JSON written with ' for " so tests read better; the copy lives until eight more calls. */
const char *jq(const char *s);

/* Write a file (failing the test if it cannot); write_text for a string. */
void write_bytes(const char *path, const void *buf, size_t len);
void write_text(const char *path, const char *text);

/* mkdir -p of a formatted path, failing the test if it cannot. */
void mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An x86 bzImage look-alike reporting release: "HdrS" at 0x202, the version's offset - 0x200 at 0x20e. */
void fake_bzimage(unsigned char img[FAKE_BZIMAGE_SIZE], const char *release);
void write_bzimage(const char *path, const char *release);


/* ---- a scratch directory and what lives in it ---- */

struct conf;
struct api;

/*
 * A new directory /tmp/PREFIX.XXXXXX, its real path in dir (PATH_MAX bytes),
 * and conf's defaults over it (results DIR/results, images DIR/images/out).
 */
void fixture_dir(char *dir, const char *prefix, struct conf *conf);

/* rm -rf dir: 0, or -1 (a teardown's return). */
int fixture_rmdir(const char *dir);

/*
 * Kernel alias ALIAS for x86_64 in conf's images tree: an x86 bzImage look-
 * alike of release as its vmlinuz and, if modules is not NULL, that text as
 * its modules.cpio.
 */
void fixture_kernel(const struct conf *conf, const char *alias, const char *release,
		    const char *modules);

/* The API server on conf (api_start), or the test fails. */
struct api *fixture_api(const struct conf *conf);


/* ---- a results database filled through the store API, as the runner would ---- */

struct store;
struct matrix;
struct run_ref;

struct fixture_arm {
	const char *name, *kernel, *lru_gen;
	const char *cmdline, *tag;   /* NULL: none */
};

/* conf's results directory made and its harness.db opened, or the test fails. */
struct store *fixture_store(const struct conf *conf);

/* sql run on conf's harness.db through a connection of the test's own, or the test fails. */
void fixture_sql(const struct conf *conf, const char *sql);

/* The first column of the first row sql gives on conf's harness.db, as an integer; -1: no row. */
int64_t fixture_sql_int(const struct conf *conf, const char *sql);

/*
 * A matrix of no arms and no cells yet, for reps repetitions: name, NAME.json
 * in dir, hash "0", x86_64, 512 MiB and 2 vCPUs; calloc'd.
 */
struct matrix *fixture_matrix_new(const char *name, const char *dir, unsigned reps);

/*
 * A matrix of arms x cells, each cell one random-read stream 'r' over one
 * 8 MiB file 'd' (2048 pages) for 11 s, the first second ramp; calloc'd.
 */
struct matrix *fixture_matrix(const char *name, const char *dir, const struct fixture_arm *arms,
			      unsigned n_arms, const char *const *cells, unsigned n_cells,
			      unsigned reps);

/* Queue m in ABBA order; its runs in order in *ret_runs (malloc'd); returns how many. */
size_t fixture_queue(struct store *s, const struct matrix *m, int64_t *ret_mid,
		     struct run_ref **ret_runs);

/* What a done run measured in every interval (= every second): */
struct fixture_rates {
	uint64_t ops, refault, majflt;    /* reads, workingset_refault_file, pgmajfault */
	uint64_t p99_ns;                  /* the stream's p99 latency */
	uint64_t misses;                  /* the stream's misses */
	uint64_t resident;                /* pages of 'd' resident (at the end) */
	uint64_t pass_resident;           /* 0, or pages resident at one pass_end event */
	int no_files;                     /* the cell tracks no file (a YCSB cell's runs) */
};

/* Boot, sample (1 ramp + 10 measured intervals) and finish run as done. */
void fixture_run(struct store *s, int64_t run, const struct fixture_rates *r);

#endif
