/* test_spec.c -- unit tests for harness/spec.c (matrix files) and
 * harness/conf.c (harness.conf), against files written into a mkdtemp()
 * directory with a fake images tree: a 4 KiB file with an x86 bzImage header
 * stands in for IMAGES/x86_64/kernel/6.12/vmlinuz. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <ctype.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"
#include "err.h"
#include "spec.h"

#define RELEASE "6.12.99-test"

static char dir[PATH_MAX];      /* the mkdtemp() directory */
static char mpath[PATH_MAX];    /* dir/m.json, the matrix under test */
static struct conf conf;
static char err[ERR_MAX];

/* snprintf that fails the test on truncation (and keeps -Wformat-truncation quiet). */
static void sfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void sfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < len);
}

/* ---- fixture ---- */

static void write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

static void mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void mkdirs(const char *fmt, ...)
{
	char path[PATH_MAX], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || access(path, F_OK) == 0);
}

/* A 4 KiB bzImage look-alike: "HdrS" at 0x202, version offset - 0x200 at 0x20e. */
static void write_kernel(const char *path)
{
	static const char ver[] = RELEASE " (x@y) #1 SMP";
	unsigned char img[4096];
	unsigned off = 0x400;

	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = (unsigned char)((off - 0x200) & 0xff);
	img[0x20f] = (unsigned char)((off - 0x200) >> 8);
	memcpy(img + off, ver, sizeof(ver));
	write_bytes(path, img, sizeof(img));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	sfmt(dir, sizeof(dir), "/tmp/test_spec.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	conf_defaults(&conf, dir);
	/* the default images path is DIR/images/out */
	sfmt(path, sizeof(path), "%s/images/out", dir);
	if (strcmp(conf.images, path))
		return -1;
	mkdirs("%s/x86_64/kernel/6.12", conf.images);
	sfmt(path, sizeof(path), "%s/x86_64/kernel/6.12/vmlinuz", conf.images);
	write_kernel(path);
	sfmt(path, sizeof(path), "%s/x86_64/kernel/6.12/modules.cpio", conf.images);
	write_text(path, "070701 not really a cpio\n");
	/* kernels named by path */
	mkdirs("%s/k", dir);
	mkdirs("%s/sub", dir);
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	write_kernel(path);
	sfmt(path, sizeof(path), "%s/k/mods.cpio", dir);
	write_text(path, "modules");
	sfmt(path, sizeof(path), "%s/k/garbage", dir);
	write_text(path, "this is not a kernel");
	sfmt(mpath, sizeof(mpath), "%s/m.json", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- helpers ---- */

/* Load text as the matrix file at path. */
static int load_at(struct matrix *m, const char *path, const char *text)
{
	write_text(path, text);
	err[0] = '\0';
	return spec_load(m, path, &conf, err);
}

/* text must be refused with "PATH: ..." naming every given fragment. */
static void refuse(const char *text, ...)
{
	struct matrix *m = malloc(sizeof(*m));
	const char *want;
	va_list ap;
	size_t plen = strlen(mpath);

	assert_non_null(m);
	if (load_at(m, mpath, text) == 0) {
		spec_release(m);
		free(m);
		fail_msg("accepted: %s", text);
	}
	assert_null(m->canonical);
	free(m);
	if (strncmp(err, mpath, plen) || err[plen] != ':')
		fail_msg("error '%s' does not start with the file name", err);
	va_start(ap, text);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(err, want)) {
			va_end(ap);
			fail_msg("error '%s' lacks '%s'", err, want);
		}
	va_end(ap);
}

static void fnv1a_hex(const char *s, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* A valid two-arm matrix; ARMS and WL splice in variations. */
#define MATRIX(arms, wl)                                                   \
	"{\n"                                                              \
	"  \"name\": \"t1\",\n"                                            \
	"  \"description\": \"unit test\",\n"                              \
	"  \"reps\": 4,\n"                                                 \
	"  \"arms\": [" arms "],\n"                                        \
	"  \"workloads\": [" wl "]\n"                                      \
	"}\n"

#define ARM_A "{\"name\": \"base\", \"kernel\": \"6.12\", \"lru_gen\": \"n\"}"
#define ARM_B "{\"name\": \"mglru\", \"kernel\": \"6.12\", \"lru_gen\": \"y\", " \
	      "\"cmdline\": \"mitigations=off quiet\"}"
#define ARMS  ARM_A ", " ARM_B
#define WL    "{\"name\": \"zipf-mmap\", \"access\": \"mmap\", \"distribution\": \"zipf\", " \
	      "\"theta\": 1.1, \"memcg_mib\": 64}"

/* ---- spec_load: valid matrices ---- */

static void test_valid(void **state)
{
	struct matrix *m = malloc(sizeof(*m));
	char path[PATH_MAX], hash[17];
	const struct proto_workload *w;
	int i;

	(void)state;
	assert_non_null(m);
	if (load_at(m, mpath, MATRIX(ARMS, WL)) < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->path, mpath);
	assert_string_equal(m->name, "t1");
	assert_string_equal(m->arch, "x86_64");
	assert_int_equal(m->n_arms, 2);
	assert_int_equal(m->n_cells, 1);
	assert_int_equal(m->reps, 4);
	assert_int_equal(m->memory_mib, 512);   /* from the conf */
	assert_int_equal(m->vcpus, 2);

	assert_string_equal(m->arms[0].name, "base");
	assert_string_equal(m->arms[0].kernel, "6.12");
	assert_string_equal(m->arms[0].lru_gen, "n");
	assert_string_equal(m->arms[0].cmdline, "");
	assert_string_equal(m->arms[1].name, "mglru");
	assert_string_equal(m->arms[1].lru_gen, "y");
	assert_string_equal(m->arms[1].cmdline, "mitigations=off quiet");
	for (i = 0; i < 2; i++) {
		assert_string_equal(m->arms[i].files.release, RELEASE);
		sfmt(path, sizeof(path), "%s/x86_64/kernel/6.12/vmlinuz", conf.images);
		assert_string_equal(m->arms[i].files.kernel, path);
		sfmt(path, sizeof(path), "%s/x86_64/kernel/6.12/modules.cpio", conf.images);
		assert_string_equal(m->arms[i].files.modules, path);
	}

	assert_string_equal(m->cells[0].name, "zipf-mmap");
	w = &m->cells[0].wl;
	assert_int_equal(w->access, WL_MMAP);
	assert_int_equal(w->dist, WL_ZIPF);
	assert_true(w->theta == 1.1);
	assert_int_equal(w->memcg_mib, 64);
	/* defaults for what the file leaves out */
	assert_int_equal(w->threads, 1);
	assert_int_equal(w->duration_s, 10);
	assert_int_equal(w->interval_ms, 1000);
	assert_int_equal(w->file_mib, 64);

	assert_int_equal(spec_run_count(m), 2 * 1 * 4);

	/* canonical: compact, keys sorted; hash: FNV-1a 64 of it, 16 hex digits */
	assert_non_null(m->canonical);
	assert_null(strchr(m->canonical, '\n'));
	assert_true(strncmp(m->canonical, "{\"arms\":[", 9) == 0);
	assert_non_null(strstr(m->canonical, "\"reps\":4"));
	assert_int_equal(strlen(m->hash), 16);
	for (i = 0; i < 16; i++)
		assert_true(isxdigit((unsigned char)m->hash[i]) && !isupper((unsigned char)m->hash[i]));
	fnv1a_hex(m->canonical, hash);
	assert_string_equal(m->hash, hash);
	memcpy(hash, m->hash, sizeof(hash));
	spec_release(m);
	assert_null(m->canonical);
	spec_release(m);   /* twice is harmless */

	/* the same matrix with other whitespace and key order hashes the same */
	if (load_at(m, mpath, "{\"workloads\":[{\"memcg_mib\":64,\"theta\":1.1,"
		    "\"distribution\":\"zipf\",\"access\":\"mmap\",\"name\":\"zipf-mmap\"}],"
		    "\"arms\":[{\"lru_gen\":\"n\",\"kernel\":\"6.12\",\"name\":\"base\"},"
		    "{\"cmdline\":\"mitigations=off quiet\",\"lru_gen\":\"y\",\"kernel\":\"6.12\","
		    "\"name\":\"mglru\"}],\"reps\":4,\"description\":\"unit test\",\"name\":\"t1\"}")
	    < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->hash, hash);
	spec_release(m);

	/* reloading the original gives the same hash again */
	if (load_at(m, mpath, MATRIX(ARMS, WL)) < 0 || strcmp(m->hash, hash))
		fail_msg("reload differs: %s", err);
	spec_release(m);

	/* a matrix that differs in one value hashes differently */
	if (load_at(m, mpath, "{\"name\":\"t1\",\"description\":\"unit test\",\"reps\":5,"
		    "\"arms\":[" ARMS "],\"workloads\":[" WL "]}") < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(m->reps, 5);
	assert_int_equal(spec_run_count(m), 10);
	assert_string_not_equal(m->hash, hash);
	spec_release(m);
	free(m);
}

static void test_valid_more(void **state)
{
	struct matrix *m = malloc(sizeof(*m));

	(void)state;
	assert_non_null(m);
	/* matrix-level memory_mib and vcpus override the conf; memcg 600 then fits */
	if (load_at(m, mpath, "{\"name\":\"big\",\"reps\":3,\"memory_mib\":1024,\"vcpus\":4,"
		    "\"arms\":[{\"name\":\"a\",\"kernel\":\"6.12\",\"lru_gen\":\"default\"}],"
		    "\"workloads\":[{\"name\":\"w1\",\"memcg_mib\":600,\"threads\":\"8\"},"
		    "{\"name\":\"w2\",\"duration_s\":5,\"interval_ms\":250,\"file_mib\":16}]}") < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(m->memory_mib, 1024);
	assert_int_equal(m->vcpus, 4);
	assert_int_equal(m->n_arms, 1);
	assert_int_equal(m->n_cells, 2);
	assert_string_equal(m->arms[0].lru_gen, "");   /* "default" */
	assert_int_equal(m->cells[0].wl.memcg_mib, 600);
	assert_int_equal(m->cells[0].wl.threads, 8);
	assert_int_equal(m->cells[0].wl.access, WL_PREAD);
	assert_int_equal(m->cells[1].wl.duration_s, 5);
	assert_int_equal(m->cells[1].wl.interval_ms, 250);
	assert_int_equal(m->cells[1].wl.file_mib, 16);
	assert_int_equal(m->cells[1].wl.memcg_mib, 32);
	assert_int_equal(spec_run_count(m), 1 * 2 * 3);
	spec_release(m);

	/* memcg exactly at memory_mib - GUEST_RESERVE_MIB fits */
	if (load_at(m, mpath, "{\"name\":\"edge\",\"reps\":1,"
		    "\"arms\":[{\"name\":\"a\",\"kernel\":\"6.12\"}],"
		    "\"workloads\":[{\"name\":\"w\",\"memcg_mib\":416}]}") < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(m->cells[0].wl.memcg_mib, 512 - GUEST_RESERVE_MIB);
	spec_release(m);
	free(m);
}

static void test_kernel_by_path(void **state)
{
	struct matrix *m = malloc(sizeof(*m));
	char path[PATH_MAX], text[PATH_MAX * 2];

	(void)state;
	assert_non_null(m);
	/* relative to the matrix file's directory, not the working directory */
	sfmt(path, sizeof(path), "%s/sub/m.json", dir);
	if (load_at(m, path, "{\"name\":\"p\",\"reps\":2,\"arms\":["
		    "{\"name\":\"a\",\"kernel\":\"../k/bzImage\",\"modules\":\"../k/mods.cpio\"},"
		    "{\"name\":\"b\",\"kernel\":\"../k/bzImage\"}],"
		    "\"workloads\":[{\"name\":\"w\"}]}") < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->arms[0].kernel, "../k/bzImage");
	assert_string_equal(m->arms[0].files.release, RELEASE);
	sfmt(path, sizeof(path), "%s/sub/../k/bzImage", dir);
	assert_string_equal(m->arms[0].files.kernel, path);
	sfmt(path, sizeof(path), "%s/sub/../k/mods.cpio", dir);
	assert_string_equal(m->arms[0].files.modules, path);
	assert_string_equal(m->arms[1].files.modules, "");
	assert_string_equal(m->arms[1].files.release, RELEASE);
	assert_int_equal(spec_run_count(m), 4);
	spec_release(m);

	/* an absolute path */
	sfmt(text, sizeof(text), "{\"name\":\"p\",\"reps\":1,\"arms\":["
		 "{\"name\":\"a\",\"kernel\":\"%s/k/bzImage\"}],\"workloads\":[{\"name\":\"w\"}]}",
		 dir);
	if (load_at(m, mpath, text) < 0)
		fail_msg("refused: %s", err);
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	assert_string_equal(m->arms[0].files.kernel, path);
	assert_string_equal(m->arms[0].files.release, RELEASE);
	spec_release(m);

	/* a bare file name beside the matrix, where no alias of that name is built */
	sfmt(path, sizeof(path), "%s/k/m.json", dir);
	if (load_at(m, path, "{\"name\":\"p\",\"reps\":1,\"arms\":["
		    "{\"name\":\"a\",\"kernel\":\"bzImage\"}],\"workloads\":[{\"name\":\"w\"}]}") < 0)
		fail_msg("refused: %s", err);
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	assert_string_equal(m->arms[0].files.kernel, path);
	spec_release(m);

	/* an alias with a modules override */
	if (load_at(m, mpath, "{\"name\":\"p\",\"reps\":1,\"arms\":["
		    "{\"name\":\"a\",\"kernel\":\"6.12\",\"modules\":\"k/mods.cpio\"}],"
		    "\"workloads\":[{\"name\":\"w\"}]}") < 0)
		fail_msg("refused: %s", err);
	sfmt(path, sizeof(path), "%s/k/mods.cpio", dir);
	assert_string_equal(m->arms[0].files.modules, path);
	spec_release(m);
	free(m);
}

/* ---- spec_load: refusals ---- */

static void test_malformed(void **state)
{
	char want[PATH_MAX + 16];

	(void)state;
	/* line 3, after "reps": */
	sfmt(want, sizeof(want), "%s:3:", mpath);
	refuse("{\n  \"name\": \"x\",\n  \"reps\": ,\n}\n", want, "malformed JSON", NULL);
	sfmt(want, sizeof(want), "%s:1:", mpath);
	refuse("[1, 2", want, "malformed JSON", NULL);
	refuse("", "malformed JSON", NULL);
	/* duplicate keys, at top level and inside an arm */
	refuse("{\"name\":\"a\",\"reps\":1,\"reps\":2,\"arms\":[" ARM_A "],\"workloads\":[" WL "]}",
	       "malformed JSON", "duplicate", "reps", NULL);
	refuse("{\"name\":\"a\",\"reps\":1,\"arms\":[{\"name\":\"a\",\"name\":\"b\",\"kernel\":\"6.12\"}],"
	       "\"workloads\":[" WL "]}", "malformed JSON", "duplicate", NULL);
	/* not an object at top level */
	refuse("[]", "matrix", "expected an object", NULL);
}

static void test_missing_file(void **state)
{
	struct matrix *m = malloc(sizeof(*m));
	char path[PATH_MAX];

	(void)state;
	assert_non_null(m);
	sfmt(path, sizeof(path), "%s/absent.json", dir);
	assert_int_equal(spec_load(m, path, &conf, err), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "cannot read"));
	free(m);
}

static void test_unknown_key_cases(void **state)
{
	(void)state;
	refuse("{\"name\":\"t\",\"reps\":1,\"colour\":\"red\",\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix", "unknown key 'colour'", NULL);
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernal\":\"6.12\"}", WL),
	       "arms[1]", "unknown key 'kernal'", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"threadz\":4}"),
	       "workloads[0]", "threadz", "unknown workload option", NULL);
	refuse(MATRIX(ARMS, WL ", {\"name\":\"w2\",\"speed\":\"fast\"}"),
	       "workloads[1]", "'speed'", NULL);
}

static void test_missing_keys(void **state)
{
	(void)state;
	refuse("{\"name\":\"t\",\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix", "missing key 'reps'", NULL);
	refuse("{\"reps\":1,\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix", "missing key 'name'", NULL);
	refuse("{\"name\":\"t\",\"reps\":1,\"workloads\":[" WL "]}",
	       "matrix", "missing key 'arms'", NULL);
	refuse("{\"name\":\"t\",\"reps\":1,\"arms\":[" ARMS "]}",
	       "matrix", "missing key 'workloads'", NULL);
	refuse(MATRIX("{\"name\":\"a\"}", WL), "arms[0]", "missing key 'kernel'", NULL);
	refuse(MATRIX(ARMS, "{\"theta\":1.0}"), "workloads[0]", "missing key 'name'", NULL);
}

static void test_missing_kernel(void **state)
{
	(void)state;
	/* an alias that was never built */
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.13\"}", WL),
	       "arms[1].kernel", "'6.13' is not built", "6.13/vmlinuz", NULL);
	/* a path that does not exist */
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"k/nope\"}", WL),
	       "arms[0].kernel", "k/nope", "not found", NULL);
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"/nonexistent/vmlinuz\"}", WL),
	       "arms[0].kernel", "/nonexistent/vmlinuz", "not found", NULL);
	/* a file that is not a bzImage */
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"k/garbage\"}", WL),
	       "arms[0].kernel", "not an x86 bzImage", NULL);
	/* a modules cpio that does not exist */
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"modules\":\"k/none.cpio\"}", WL),
	       "arms[0].kernel", "modules cpio", "k/none.cpio", NULL);
}

static void test_memcg_too_big(void **state)
{
	(void)state;
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"memcg_mib\":600}"),
	       "workloads[0].memcg_mib", "600 MiB", "512 MiB guest", "at most 416", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"memcg_mib\":417}"),
	       "workloads[0].memcg_mib", NULL);
	refuse("{\"name\":\"t\",\"reps\":1,\"memory_mib\":256,\"arms\":[" ARMS "],"
	       "\"workloads\":[" WL ", {\"name\":\"w2\",\"memcg_mib\":200}]}",
	       "workloads[1].memcg_mib", "256 MiB guest", "at most 160", NULL);
}

static void test_reps(void **state)
{
	(void)state;
	refuse("{\"name\":\"t\",\"reps\":0,\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix.reps", "1..1000", "got 0", NULL);
	refuse("{\"name\":\"t\",\"reps\":1001,\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix.reps", "got 1001", NULL);
	refuse("{\"name\":\"t\",\"reps\":-3,\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix.reps", NULL);
	/* not an integer where one is expected */
	refuse("{\"name\":\"t\",\"reps\":2.5,\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix.reps", "whole number", NULL);
	refuse("{\"name\":\"t\",\"reps\":\"4\",\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix.reps", "whole number", NULL);
	refuse("{\"name\":\"t\",\"reps\":4,\"memory_mib\":\"1024\",\"arms\":[" ARMS "],"
	       "\"workloads\":[" WL "]}", "matrix.memory_mib", "whole number", NULL);
	refuse("{\"name\":\"t\",\"reps\":4,\"vcpus\":0,\"arms\":[" ARMS "],"
	       "\"workloads\":[" WL "]}", "matrix.vcpus", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"duration_s\":1.5}"),
	       "workloads[0]", "'duration_s' must be a whole number", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"threads\":\"many\"}"),
	       "workloads[0]", "'threads' must be a number", NULL);
}

static void test_arrays(void **state)
{
	char text[8192], *p;
	int i;

	(void)state;
	refuse(MATRIX("", WL), "arms", "non-empty array", NULL);
	refuse(MATRIX(ARMS, ""), "workloads", "non-empty array", NULL);
	refuse("{\"name\":\"t\",\"reps\":1,\"arms\":{},\"workloads\":[" WL "]}",
	       "arms", "non-empty array", NULL);
	/* more arms than SPEC_MAX_ARMS */
	p = text + sprintf(text, "{\"name\":\"t\",\"reps\":1,\"arms\":[");
	for (i = 0; i <= SPEC_MAX_ARMS; i++)
		p += sprintf(p, "%s{\"name\":\"a%d\",\"kernel\":\"6.12\"}", i ? "," : "", i);
	sprintf(p, "],\"workloads\":[" WL "]}");
	refuse(text, "arms", "at most 16", NULL);
	/* an arm that is not an object */
	refuse(MATRIX(ARM_A ", \"b\"", WL), "arms[1]", "expected an object", NULL);
}

static void test_arm_fields(void **state)
{
	(void)state;
	/* duplicate names */
	refuse(MATRIX(ARM_A ", {\"name\":\"base\",\"kernel\":\"6.12\"}", WL),
	       "arms[1].name", "'base'", "arms[0]", NULL);
	refuse(MATRIX(ARMS, WL ", {\"name\":\"zipf-mmap\"}"),
	       "workloads[1].name", "'zipf-mmap'", "workloads[0]", NULL);
	/* lru_gen */
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.12\",\"lru_gen\":\"maybe\"}", WL),
	       "arms[1].lru_gen", "\"y\", \"n\" or \"default\"", NULL);
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.12\",\"lru_gen\":true}", WL),
	       "arms[1].lru_gen", NULL);
	/* names with a space, empty, too long, not a string */
	refuse(MATRIX("{\"name\":\"my arm\",\"kernel\":\"6.12\"}", WL),
	       "arms[0].name", "'my arm'", NULL);
	refuse(MATRIX("{\"name\":\"\",\"kernel\":\"6.12\"}", WL), "arms[0].name", NULL);
	refuse(MATRIX("{\"name\":\"abcdefghijklmnopqrstuvwxyz0123456\",\"kernel\":\"6.12\"}", WL),
	       "arms[0].name", "longer than 32", NULL);
	refuse(MATRIX("{\"name\":7,\"kernel\":\"6.12\"}", WL),
	       "arms[0].name", "expected a string", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w 1\"}"), "workloads[0].name", "'w 1'", NULL);
	refuse("{\"name\":\"t 1\",\"reps\":1,\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix.name", NULL);
	/* cmdline with a quote or '<' (it ends up in domain XML and a command line) */
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"cmdline\":\"init=\\\"/x\\\"\"}", WL),
	       "arms[0].cmdline", "without quotes", NULL);
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"cmdline\":\"a'b\"}", WL),
	       "arms[0].cmdline", NULL);
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"cmdline\":\"a<b\"}", WL),
	       "arms[0].cmdline", NULL);
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"cmdline\":\"a&b\"}", WL),
	       "arms[0].cmdline", NULL);
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"cmdline\":\"a\\tb\"}", WL),
	       "arms[0].cmdline", NULL);
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"cmdline\":\"caf\\u00e9\"}", WL),
	       "arms[0].cmdline", NULL);
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.1<2\"}", WL), "arms[0].kernel", NULL);
}

static void test_workload_fields(void **state)
{
	(void)state;
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"theta\":5.5}"),
	       "workloads[0]", "'theta' must be between 0 and 5", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"theta\":-1}"), "workloads[0]", "'theta'", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"threads\":0}"),
	       "workloads[0]", "'threads' must be between 1 and 256", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"access\":\"read\"}"),
	       "workloads[0]", "'access' must be one of pread, mmap", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"threads\":null}"),
	       "workloads[0]", "'threads'", NULL);
	refuse(MATRIX(ARMS, "\"w\""), "workloads[0]", "expected an object", NULL);
}

/* ---- conf_load ---- */

/* Run conf_load on text with stderr captured into out. */
static int conf_run(struct conf *c, const char *path, const char *text, char *out, size_t outlen)
{
	char cap[PATH_MAX];
	int fd, saved, ret;
	ssize_t n;

	write_text(path, text);
	sfmt(cap, sizeof(cap), "%s/stderr.txt", dir);
	fd = open(cap, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fd, 2) == 2);
	err[0] = '\0';
	ret = conf_load(c, path, err);
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	n = pread(fd, out, outlen - 1, 0);
	assert_true(n >= 0);
	out[n] = '\0';
	close(fd);
	return ret;
}

static void test_conf_good(void **state)
{
	struct conf c;
	char path[PATH_MAX], want[PATH_MAX], out[4096], uri[PATH_MAX * 2];

	(void)state;
	sfmt(path, sizeof(path), "%s/harness.conf", dir);
	assert_int_equal(conf_run(&c, path,
				  "# a comment\n"
				  "\n"
				  "memory_mib = 1024\n"
				  "   vcpus=4   \n"
				  "boot_timeout_s = 30\n"
				  "results = /var/tmp/results\n"
				  "images = imgs\n"
				  "accel = tcg\n",
				  out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(c.memory_mib, 1024);
	assert_int_equal(c.vcpus, 4);
	assert_int_equal(c.boot_timeout_s, 30);
	assert_int_equal(c.slack_s, 60);      /* default kept */
	assert_string_equal(c.results, "/var/tmp/results");
	sfmt(want, sizeof(want), "%s/imgs", dir);
	assert_string_equal(c.images, want);
	assert_string_equal(c.accel, "tcg");
	assert_string_equal(c.uri, "");
	conf_uri(&c, uri, sizeof(uri));
	assert_string_equal(uri, "qemu:///embed?root=/var/tmp/results/libvirt");

	/* a last line without its newline counts */
	assert_int_equal(conf_run(&c, path, "uri = qemu:///system\nvcpus = 3", out, sizeof(out)), 0);
	assert_int_equal(c.vcpus, 3);
	assert_string_equal(c.uri, "qemu:///system");
	conf_uri(&c, uri, sizeof(uri));
	assert_string_equal(uri, "qemu:///system");
}

static void test_conf_defaults(void **state)
{
	struct conf c;
	char want[PATH_MAX];

	(void)state;
	conf_defaults(&c, "/srv/h");
	assert_string_equal(c.results, "/srv/h/results");
	assert_string_equal(c.images, "/srv/h/images/out");
	assert_string_equal(c.uri, "");
	assert_int_equal(c.memory_mib, 512);
	assert_int_equal(c.vcpus, 2);
	assert_int_equal(c.boot_timeout_s, 120);
	assert_int_equal(c.slack_s, 60);
	assert_string_equal(c.accel, "auto");
	sfmt(want, sizeof(want), "%s/results", dir);
	assert_string_equal(conf.results, want);
}

/* One bad line at line lineno: -1, and "path:lineno: want" in err and on stderr. */
static void conf_refuse_line(const char *path, const char *text, int lineno, const char *want)
{
	struct conf c;
	char line[PATH_MAX + 256], out[4096];

	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), -1);
	sfmt(line, sizeof(line), "%s:%d: %s", path, lineno, want);
	if (strncmp(err, line, strlen(line)))
		fail_msg("err '%s' does not start with '%s'", err, line);
	if (!strstr(out, line))
		fail_msg("stderr '%s' lacks '%s'", out, line);
}

static void test_conf_bad(void **state)
{
	struct conf c;
	char path[PATH_MAX], want[PATH_MAX + 64], out[4096];

	(void)state;
	sfmt(path, sizeof(path), "%s/bad.conf", dir);
	/* each kind of bad line, alone, is reported as path:line: */
	conf_refuse_line(path, "vcpus = 2\ncolour = blue\n", 2, "unknown key 'colour'");
	conf_refuse_line(path, "# c\n\n\nmemory_mib = 12x\n", 4,
			 "'memory_mib': expected a whole number, got '12x'");
	conf_refuse_line(path, "memory_mib = 99999999999999999999999\n", 1,
			 "'memory_mib': expected a whole number");
	conf_refuse_line(path, "memory_mib = -5\n", 1, "'memory_mib': expected a whole number");
	conf_refuse_line(path, "memory_mib =\n", 1, "'memory_mib': expected a whole number");
	conf_refuse_line(path, "\n\nmemory_mib = 64\n", 3,
			 "'memory_mib': expected 128..1048576, got 64");
	conf_refuse_line(path, "slack_s = 1\n", 1, "'slack_s': expected 5..3600, got 1");
	conf_refuse_line(path, "vcpus 2\n", 1, "expected 'key = value'");
	conf_refuse_line(path, "accel = fast\n", 1, "'accel': expected auto, kvm or tcg");
	conf_refuse_line(path, "x = 1", 1, "unknown key 'x'");   /* no final newline */

	/* an unknown key and a bad number in one file: -1, the first in err */
	assert_int_equal(conf_run(&c, path,
				  "vcpus = 2\n"
				  "colour = blue\n"
				  "# fine\n"
				  "memory_mib = 12x\n",
				  out, sizeof(out)), -1);
	sfmt(want, sizeof(want), "%s:2: unknown key 'colour'", path);
	assert_string_equal(err, want);
	sfmt(want, sizeof(want), "%s:2: unknown key 'colour'\n", path);
	assert_non_null(strstr(out, want));
	sfmt(want, sizeof(want), "%s:1:", path);
	assert_null(strstr(out, want));
	sfmt(want, sizeof(want), "%s:3:", path);
	assert_null(strstr(out, want));
	/* every bad line is reported, not just the first */
	sfmt(want, sizeof(want), "%s:4: 'memory_mib': expected a whole number", path);
	assert_non_null(strstr(out, want));

	/* a missing file */
	sfmt(path, sizeof(path), "%s/none.conf", dir);
	assert_int_equal(conf_load(&c, path, err), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_valid_more),
		cmocka_unit_test(test_kernel_by_path),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_unknown_key_cases),
		cmocka_unit_test(test_missing_keys),
		cmocka_unit_test(test_missing_kernel),
		cmocka_unit_test(test_memcg_too_big),
		cmocka_unit_test(test_reps),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_arm_fields),
		cmocka_unit_test(test_workload_fields),
		cmocka_unit_test(test_conf_good),
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_bad),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
