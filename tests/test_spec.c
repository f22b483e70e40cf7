/* test_spec.c -- unit tests for harness/spec/spec.c (matrix files: arms and
 * workload entries of files and streams), harness/spec/preset.c (presets, params,
 * array expansion, scale and time_scale) and harness/conf/conf.c (harness.conf),
 * against files written into a mkdtemp() directory with a fake images tree:
 * a 4 KiB file with an x86 bzImage header stands in for
 * IMAGES/x86_64/kernel/6.12/vmlinuz, and presets live in DIR/presets. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <ctype.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/calibrate.h"
#include "conf/conf.h"
#include "base/err.h"
#include "base/proc.h"
#include "spec/preset.h"
#include "base/hash.h"
#include "spec/spec.h"
#include "spec/swapcheck.h"
#include "store/store.h"
#include "testlib.h"
#include "vm/image.h"

#define RELEASE "6.12.99-test"
#define REAL_FIO "images/out/x86_64/fio"   /* from `make images`, run from the repo root */
#define QUICK    "workloads/examples/quick.json"

static char dir[PATH_MAX];      /* the mkdtemp() directory */
static char mpath[PATH_MAX];    /* dir/m.json, the matrix under test */
static struct conf conf;
static char err[ERR_MAX];

/* ---- fixture ---- */

/* A preset file DIR/presets/NAME.json (text written with '). */
static void write_preset(const char *name, const char *text)
{
	char path[PATH_MAX];

	sfmt(path, sizeof(path), "%s/%s.json", conf.presets, name);
	write_text(path, jq(text));
}

static int setup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	fixture_dir(dir, "test_spec", &conf);   /* resolved, as kernel paths come back */
	/* the default images path is DIR/images/out, presets DIR/workloads/presets */
	sfmt(path, sizeof(path), "%s/images/out", dir);
	if (strcmp(conf.images, path))
		return -1;
	sfmt(path, sizeof(path), "%s/workloads/presets", dir);
	if (strcmp(conf.presets, path))
		return -1;
	/* point presets at a directory of the test's own */
	sfmt(conf.presets, sizeof(conf.presets), "%s/presets", dir);
	mkdirs("%s", conf.presets);
	fixture_kernel(&conf, "6.12", RELEASE, "070701 not really a cpio\n");
	/* kernels named by path */
	mkdirs("%s/k", dir);
	mkdirs("%s/sub", dir);
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	write_bzimage(path, RELEASE);
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
	return fixture_rmdir(dir);
}

/* ---- helpers ---- */

/* Load text as the matrix file at path. */
static int load_at(struct matrix *m, const char *path, const char *text)
{
	write_text(path, text);
	err[0] = '\0';
	return spec_load(m, path, &conf, err);
}

static struct matrix *new_matrix(void)
{
	struct matrix *m = malloc(sizeof(*m));

	assert_non_null(m);
	return m;
}

/* text must be refused with "PATH: ..." naming every given fragment. */
static void refuse(const char *text, ...)
{
	struct matrix *m = new_matrix();
	va_list ap;
	size_t plen = strlen(mpath);

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
	assert_err_has(err, ap);
	va_end(ap);
}

/* A matrix of one arm around workload entries (written with '); must load. */
#define ONE_ARM(wl) "{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}],'workloads':[" wl "]}"

static struct matrix *load_wl(const char *wl_matrix)
{
	struct matrix *m = new_matrix();

	if (load_at(m, mpath, jq(wl_matrix)) < 0)
		fail_msg("refused: %s\n  %s", err, wl_matrix);
	return m;
}

static void done(struct matrix *m)
{
	spec_release(m);
	free(m);
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
/* files and streams of a minimal workload */
#define FS    "\"files\": [{\"name\": \"d\", \"mib\": 8}], " \
	      "\"streams\": [{\"kind\": \"random\", \"file\": \"d\"}]"
#define WL    "{\"name\": \"zipf-mmap\", \"memcg_mib\": 64, "                           \
	      "\"files\": [{\"name\": \"data\", \"mib\": 128}], "                       \
	      "\"streams\": [{\"kind\": \"random\", \"file\": \"data\", \"access\": \"mmap\", " \
	      "\"distribution\": \"zipf\", \"theta\": 1.1}]}"
/* the same, written with ' */
#define FSQ   "'files':[{'name':'d','mib':8}],'streams':[{'kind':'random','file':'d'}]"

/* ---- spec_load: valid matrices ---- */

static void test_valid(void **state)
{
	struct matrix *m = new_matrix();
	char path[PATH_MAX], hash[17];
	const struct proto_job *j;
	const struct proto_stream *st;
	int i;

	(void)state;
	if (load_at(m, mpath, MATRIX(ARMS, WL)) < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->path, mpath);
	assert_string_equal(m->name, "t1");
	assert_int_equal(m->n_archs, 1);
	assert_string_equal(m->archs[0], "x86_64");
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
		assert_string_equal(m->arms[i].files[0].release, RELEASE);
		sfmt(path, sizeof(path), "%s/x86_64/kernel/6.12/vmlinuz", conf.images);
		assert_string_equal(m->arms[i].files[0].kernel, path);
		sfmt(path, sizeof(path), "%s/x86_64/kernel/6.12/modules.cpio", conf.images);
		assert_string_equal(m->arms[i].files[0].modules, path);
	}

	assert_string_equal(m->cells[0].name, "zipf-mmap");
	assert_string_equal(m->cells[0].preset, "");
	assert_string_equal(m->cells[0].params, "");
	assert_null(m->cells[0].table);
	j = &m->cells[0].job;
	assert_int_equal(j->memcg_mib, 64);
	assert_int_equal(j->nfiles, 1);
	assert_string_equal(j->files[0].name, "data");
	assert_int_equal(j->files[0].mib, 128);
	assert_int_equal(j->nstreams, 1);
	st = &j->streams[0];
	assert_int_equal(st->kind, KIND_RANDOM);
	assert_string_equal(st->file, "data");
	assert_int_equal(st->access, ACC_MMAP);
	assert_int_equal(st->dist, DIST_ZIPF);
	assert_true(st->theta == 1.1);
	/* defaults for what the file leaves out */
	assert_string_equal(st->name, "s0");
	assert_int_equal(st->threads, 1);
	assert_int_equal(j->duration_s, 10);
	assert_int_equal(j->interval_ms, 1000);
	assert_int_equal(j->ramp_s, 0);
	assert_int_equal(j->files[0].content, CONTENT_RANDOM);
	/* run and lru_gen are the runner's, not the matrix's */
	assert_int_equal(j->run, 0);
	assert_string_equal(j->lru_gen, "");

	assert_int_equal(spec_run_count(m), 2 * 1 * 4);

	/* canonical: compact, keys sorted; hash: FNV-1a 64 of it without "reps", 16 hex */
	assert_non_null(m->canonical);
	assert_null(strchr(m->canonical, '\n'));
	assert_true(strncmp(m->canonical, "{\"arms\":[", 9) == 0);
	assert_non_null(strstr(m->canonical, "\"reps\":4"));
	assert_int_equal(strlen(m->hash), 16);
	for (i = 0; i < 16; i++)
		assert_true(isxdigit((unsigned char)m->hash[i]) && !isupper((unsigned char)m->hash[i]));
	{
		json_t *c = json_loads(m->canonical, 0, NULL);
		char *norep;

		assert_non_null(c);
		json_object_del(c, "reps");
		norep = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
		hash_fnv1a_hex(norep, hash);
		free(norep);
		json_decref(c);
	}
	assert_string_equal(m->hash, hash);
	memcpy(hash, m->hash, sizeof(hash));
	spec_release(m);
	assert_null(m->canonical);
	spec_release(m);   /* twice is harmless */

	/* the same matrix with other whitespace and key order hashes the same */
	if (load_at(m, mpath, jq("{'workloads':[{'streams':[{'theta':1.1,'distribution':'zipf',"
				 "'access':'mmap','file':'data','kind':'random'}],"
				 "'files':[{'mib':128,'name':'data'}],'memcg_mib':64,"
				 "'name':'zipf-mmap'}],"
				 "'arms':[{'lru_gen':'n','kernel':'6.12','name':'base'},"
				 "{'cmdline':'mitigations=off quiet','lru_gen':'y','kernel':'6.12',"
				 "'name':'mglru'}],'reps':4,'description':'unit test','name':'t1'}"))
	    < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->hash, hash);
	spec_release(m);

	/* reloading the original gives the same hash again */
	if (load_at(m, mpath, MATRIX(ARMS, WL)) < 0 || strcmp(m->hash, hash))
		fail_msg("reload differs: %s", err);
	spec_release(m);

	/* more reps is the same matrix (its runs are appended), another value is not */
	if (load_at(m, mpath, "{\"name\":\"t1\",\"description\":\"unit test\",\"reps\":5,"
		    "\"arms\":[" ARMS "],\"workloads\":[" WL "]}") < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(m->reps, 5);
	assert_int_equal(spec_run_count(m), 10);
	assert_string_equal(m->hash, hash);
	spec_release(m);
	if (load_at(m, mpath, "{\"name\":\"t1\",\"description\":\"unit test!\",\"reps\":4,"
		    "\"arms\":[" ARMS "],\"workloads\":[" WL "]}") < 0)
		fail_msg("refused: %s", err);
	assert_string_not_equal(m->hash, hash);
	done(m);
}

static void test_valid_more(void **state)
{
	struct matrix *m;
	const struct proto_job *j;

	(void)state;
	/* matrix-level memory_mib and vcpus override the conf; memcg 600 then fits */
	m = load_wl("{'name':'big','reps':3,'memory_mib':1024,'vcpus':4,"
		    "'arms':[{'name':'a','kernel':'6.12','lru_gen':'default'}],"
		    "'workloads':[{'name':'w1','memcg_mib':600,'files':[{'name':'d','mib':700}],"
		    "'streams':[{'kind':'random','file':'d','threads':8}]},"
		    "{'name':'w2','duration_s':5,'interval_ms':250,'ramp_s':1,"
		    "'files':[{'name':'a','mib':16},{'name':'b','mib':32,'content':'zero'}],"
		    "'streams':[{'kind':'scan','name':'sc','file':'b','passes':2},"
		    "{'kind':'random','name':'rd','file':'a','start_s':2.5,'duration_s':1}]}]}");
	assert_int_equal(m->memory_mib, 1024);
	assert_int_equal(m->vcpus, 4);
	assert_int_equal(m->n_arms, 1);
	assert_int_equal(m->n_cells, 2);
	assert_string_equal(m->arms[0].lru_gen, "");   /* "default" */
	j = &m->cells[0].job;
	assert_int_equal(j->memcg_mib, 600);
	assert_int_equal(j->streams[0].threads, 8);
	assert_int_equal(j->streams[0].access, ACC_PREAD);
	j = &m->cells[1].job;
	assert_string_equal(m->cells[1].name, "w2");
	assert_int_equal(j->duration_s, 5);
	assert_int_equal(j->interval_ms, 250);
	assert_int_equal(j->ramp_s, 1);
	assert_int_equal(j->memcg_mib, 256);            /* the default */
	assert_int_equal(j->nfiles, 2);
	assert_int_equal(j->files[1].content, CONTENT_ZERO);
	assert_int_equal(j->nstreams, 2);
	assert_string_equal(j->streams[0].name, "sc");
	assert_int_equal(j->streams[0].access, ACC_READ);
	assert_int_equal(j->streams[0].passes, 2);
	assert_string_equal(j->streams[1].name, "rd");
	assert_true(j->streams[1].start_s == 2.5);
	assert_true(j->streams[1].duration_s == 1);
	assert_int_equal(spec_run_count(m), 1 * 2 * 3);
	done(m);

	/* memcg exactly at memory_mib - GUEST_RESERVE_MIB fits */
	m = load_wl(ONE_ARM("{'name':'w','memcg_mib':416," FSQ "}"));
	assert_int_equal(m->cells[0].job.memcg_mib, 512 - GUEST_RESERVE_MIB);
	done(m);
}

/* The example matrix in the repository loads (kernel 6.12 from the fake tree). */
static void test_example_quick(void **state)
{
	struct matrix *m = new_matrix();
	const struct proto_stream *st;

	(void)state;
	if (access(QUICK, R_OK) < 0) {
		free(m);
		skip();
	}
	if (spec_load(m, QUICK, &conf, err) < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->name, "quick");
	assert_int_equal(m->n_arms, 2);
	assert_int_equal(m->n_cells, 1);
	assert_string_equal(m->cells[0].name, "zipf-pread");
	assert_int_equal(m->cells[0].job.memcg_mib, 64);
	assert_int_equal(m->cells[0].job.duration_s, 8);
	assert_int_equal(m->cells[0].job.files[0].mib, 128);
	st = &m->cells[0].job.streams[0];
	assert_int_equal(st->kind, KIND_RANDOM);
	assert_int_equal(st->access, ACC_PREAD);
	assert_int_equal(st->dist, DIST_ZIPF);
	assert_true(st->theta == 0.9);
	assert_int_equal(st->threads, 2);
	assert_int_equal(spec_run_count(m), 2 * 1 * 8);   /* 4 units: a DIFFERENT can be called */
	done(m);
}

static void test_kernel_by_path(void **state)
{
	struct matrix *m = new_matrix();
	char path[PATH_MAX], text[PATH_MAX * 2];

	(void)state;
	/* relative to the matrix file's directory, not the working directory; ".." may
	 * be on the way as long as the file stays in that directory */
	if (load_at(m, mpath, "{\"name\":\"p\",\"reps\":2,\"arms\":["
		    "{\"name\":\"a\",\"kernel\":\"sub/../k/bzImage\",\"modules\":\"k/mods.cpio\"},"
		    "{\"name\":\"b\",\"kernel\":\"k/bzImage\"}],"
		    "\"workloads\":[{\"name\":\"w\"," FS "}]}") < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->arms[0].kernel, "sub/../k/bzImage");
	assert_string_equal(m->arms[0].files[0].release, RELEASE);
	/* the files to boot are the resolved paths, the ones checked */
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	assert_string_equal(m->arms[0].files[0].kernel, path);
	sfmt(path, sizeof(path), "%s/k/mods.cpio", dir);
	assert_string_equal(m->arms[0].files[0].modules, path);
	assert_string_equal(m->arms[1].files[0].modules, "");
	assert_string_equal(m->arms[1].files[0].release, RELEASE);
	assert_int_equal(spec_run_count(m), 4);
	spec_release(m);

	/* an absolute path */
	sfmt(text, sizeof(text), "{\"name\":\"p\",\"reps\":1,\"arms\":["
		 "{\"name\":\"a\",\"kernel\":\"%s/k/bzImage\"}],\"workloads\":[{\"name\":\"w\"," FS "}]}",
		 dir);
	if (load_at(m, mpath, text) < 0)
		fail_msg("refused: %s", err);
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	assert_string_equal(m->arms[0].files[0].kernel, path);
	assert_string_equal(m->arms[0].files[0].release, RELEASE);
	spec_release(m);

	/* a bare file name beside the matrix, where no alias of that name is built */
	sfmt(path, sizeof(path), "%s/k/m.json", dir);
	if (load_at(m, path, "{\"name\":\"p\",\"reps\":1,\"arms\":["
		    "{\"name\":\"a\",\"kernel\":\"bzImage\"}],\"workloads\":[{\"name\":\"w\"," FS "}]}") < 0)
		fail_msg("refused: %s", err);
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	assert_string_equal(m->arms[0].files[0].kernel, path);
	spec_release(m);

	/* an alias with a modules override */
	if (load_at(m, mpath, "{\"name\":\"p\",\"reps\":1,\"arms\":["
		    "{\"name\":\"a\",\"kernel\":\"6.12\",\"modules\":\"k/mods.cpio\"}],"
		    "\"workloads\":[{\"name\":\"w\"," FS "}]}") < 0)
		fail_msg("refused: %s", err);
	sfmt(path, sizeof(path), "%s/k/mods.cpio", dir);
	assert_string_equal(m->arms[0].files[0].modules, path);
	done(m);
}

/* ---- kernels and modules by path: where they may come from ---- */

#define ZERO64 "0000000000000000000000000000000000000000000000000000000000000000"

/* A one-arm matrix at mpath with arm fields (written with '), e.g. "'kernel':'k/bzImage'". */
static int load_arm(struct matrix *m, const char *arm)
{
	char text[PATH_MAX * 3], q[PATH_MAX * 3];

	sfmt(q, sizeof(q), "{'name':'p','reps':1,'arms':[{'name':'a',%s}],"
	     "'workloads':[{'name':'w'," FSQ "}]}", arm);
	sfmt(text, sizeof(text), "%s", jq(q));
	return load_at(m, mpath, text);
}

static void accept_arm(const char *arm)
{
	struct matrix *m = new_matrix();

	if (load_arm(m, arm) < 0)
		fail_msg("refused: %s\n  %s", err, arm);
	done(m);
}

/* The arm must be refused with err naming each fragment. */
static void refuse_arm(const char *arm, ...)
{
	struct matrix *m = new_matrix();
	va_list ap;

	if (load_arm(m, arm) == 0) {
		done(m);
		fail_msg("accepted: %s", arm);
	}
	free(m);
	va_start(ap, arm);
	assert_err_has(err, ap);
	va_end(ap);
}

static void test_kernel_confined(void **state)
{
	char out[PATH_MAX], arm[PATH_MAX * 2], path[PATH_MAX], sha[HASH_SHA256_HEX];
	const char *outside = "is outside the directories kernels may come from";

	(void)state;
	/* a real kernel and modules cpio in a directory of their own, beside dir */
	sfmt(out, sizeof(out), "%s.out", dir);
	mkdirs("%s", out);
	sfmt(path, sizeof(path), "%s/bzImage", out);
	write_bzimage(path, RELEASE);
	sfmt(path, sizeof(path), "%s/mods.cpio", out);
	write_text(path, "modules");
	/* symlinks inside the matrix's directory, pointing out of it */
	sfmt(path, sizeof(path), "%s/k/link", dir);
	assert_int_equal(symlink(out, path), 0);
	sfmt(path, sizeof(path), "%s/k/passwd", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);

	/* kernel_dirs empty: the matrix's directory and the images directory */
	accept_arm("'kernel':'k/bzImage','modules':'k/mods.cpio'");
	sfmt(path, sizeof(path), "%s/bare.bz", dir);
	write_bzimage(path, RELEASE);
	accept_arm("'kernel':'bare.bz'");
	sfmt(arm, sizeof(arm), "'kernel':'%s/x86_64/kernel/6.12/vmlinuz'", conf.images);
	accept_arm(arm);
	/* anything else, however it is named */
	refuse_arm("'kernel':'/etc/passwd'", "arms[0].kernel: /etc/passwd ", outside,
		   "(the images directory, the matrix's directory, kernel_dirs in harness.conf)",
		   NULL);
	sfmt(arm, sizeof(arm), "'kernel':'%s/bzImage'", out);
	refuse_arm(arm, "arms[0].kernel:", outside, NULL);
	sfmt(arm, sizeof(arm), "'kernel':'../%s/bzImage'", strrchr(out, '/') + 1);
	refuse_arm(arm, "arms[0].kernel:", "/../", outside, NULL);
	refuse_arm("'kernel':'k/link/bzImage'", "arms[0].kernel:", "k/link/bzImage (resolving to ",
		   outside, NULL);
	refuse_arm("'kernel':'k/passwd'", "(resolving to /etc/passwd)", outside, NULL);
	/* a path that does not resolve is not found only where kernels may come from */
	refuse_arm("'kernel':'k/absent'", "kernel file", "not found", NULL);
	sfmt(arm, sizeof(arm), "'kernel':'%s/absent'", out);
	refuse_arm(arm, outside, NULL);
	/* modules likewise, named as modules */
	refuse_arm("'kernel':'6.12','modules':'/etc/passwd'", "arms[0].modules: /etc/passwd ",
		   outside, NULL);
	refuse_arm("'kernel':'6.12','modules':'k/link/mods.cpio'", "arms[0].modules:", outside,
		   NULL);
	refuse_arm("'kernel':'k/bzImage','modules':'../../etc/passwd'", "arms[0].modules:",
		   outside, NULL);
	/* a file:// URL is a path by another name */
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	assert_int_equal(hash_sha256_file(path, sha, err), 0);
	refuse_arm("'url':'file:///etc/passwd','sha256':'" ZERO64 "'",
		   "arms[0].url: /etc/passwd ", outside, NULL);
	refuse_arm("'url':'file://localhost/etc/passwd','sha256':'" ZERO64 "'",
		   "arms[0].url:", "expected file:///PATH", NULL);
	sfmt(arm, sizeof(arm), "'url':'file://%s/k/%%2e%%2e/x','sha256':'" ZERO64 "'", dir);
	refuse_arm(arm, "arms[0].url:", "without '%'", NULL);
	sfmt(arm, sizeof(arm), "'url':'file://%s/k/link/bzImage','sha256':'" ZERO64 "'", dir);
	refuse_arm(arm, "arms[0].url:", outside, NULL);
	sfmt(arm, sizeof(arm), "'url':'file://%s/k/bzImage','sha256':'" ZERO64 "'", dir);
	refuse_arm(arm, "arms[0].url:", "sha256 mismatch", NULL);   /* allowed: fetched */
	sfmt(arm, sizeof(arm), "'url':'file://%s/k/bzImage','sha256':'%s',"
	     "'modules_url':'file:///etc/passwd','modules_sha256':'" ZERO64 "'", dir, sha);
	refuse_arm(arm, "arms[0].modules_url: /etc/passwd ", outside, NULL);
	sfmt(arm, sizeof(arm), "'url':'file://%s/k/bzImage','sha256':'%s'", dir, sha);
	accept_arm(arm);
	/* "." and ".." are no aliases */
	refuse_arm("'kernel':'..'", "arms[0].kernel: '..' is neither a kernel alias", NULL);
	refuse_arm("'kernel':'.'", "arms[0].kernel: '.' is neither a kernel alias", NULL);

	/* kernel_dirs set: its entries and the images directory, no longer the matrix's */
	sfmt(conf.kernel_dirs, sizeof(conf.kernel_dirs), "/nonexistent %s", out);
	sfmt(arm, sizeof(arm), "'kernel':'%s/bzImage','modules':'%s/mods.cpio'", out, out);
	accept_arm(arm);
	accept_arm("'kernel':'k/link/bzImage','modules':'k/link/mods.cpio'");
	sfmt(arm, sizeof(arm), "'kernel':'%s/x86_64/kernel/6.12/vmlinuz'", conf.images);
	accept_arm(arm);
	accept_arm("'kernel':'6.12'");
	refuse_arm("'kernel':'k/bzImage'", "arms[0].kernel:", "/k/bzImage ", outside,
		   "(the images directory, kernel_dirs in harness.conf)", NULL);
	refuse_arm("'kernel':'bare.bz'", "arms[0].kernel:", "/bare.bz ", outside, NULL);
	refuse_arm("'kernel':'6.12','modules':'k/mods.cpio'", "arms[0].modules:", outside, NULL);
	conf.kernel_dirs[0] = '\0';
	fixture_rmdir(out);
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
	/* duplicate keys, at top level, inside an arm, a workload, a stream */
	refuse("{\"name\":\"a\",\"reps\":1,\"reps\":2,\"arms\":[" ARM_A "],\"workloads\":[" WL "]}",
	       "malformed JSON", "duplicate", "reps", NULL);
	refuse("{\"name\":\"a\",\"reps\":1,\"arms\":[{\"name\":\"a\",\"name\":\"b\",\"kernel\":\"6.12\"}],"
	       "\"workloads\":[" WL "]}", "malformed JSON", "duplicate", NULL);
	refuse(jq(ONE_ARM("{'name':'w','memcg_mib':64,'memcg_mib':32," FSQ "}")),
	       "malformed JSON", "duplicate", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','file':'d'}]}")),
	       "malformed JSON", "duplicate", NULL);
	/* not an object at top level */
	refuse("[]", "matrix", "expected an object", NULL);
}

static void test_missing_file(void **state)
{
	struct matrix *m = new_matrix();
	char path[PATH_MAX];

	(void)state;
	sfmt(path, sizeof(path), "%s/absent.json", dir);
	assert_int_equal(spec_load(m, path, &conf, err), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "cannot open"));
	free(m);
}

/*
 * A FIFO (or a directory) as the matrix, harness.conf, a preset, a kernel or
 * a modules cpio: refused at once, before any read. Before, the open blocked
 * until a writer came, and a writer could feed it without end; alarm() fails
 * the test rather than hang it.
 */
static void test_not_regular(void **state)
{
	struct matrix *m = new_matrix();
	char fifo[PATH_MAX], preset[PATH_MAX], initrd[PATH_MAX], release[RELEASE_MAX];
	struct conf c;

	(void)state;
	alarm(20);
	write_text(mpath, "{}");       /* a regular file to put first in the initrd */
	sfmt(fifo, sizeof(fifo), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(spec_load(m, fifo, &conf, err), -1);
	assert_non_null(strstr(err, fifo));
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(conf_load(&c, fifo, err), -1);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(spec_load(m, dir, &conf, err), -1);
	assert_non_null(strstr(err, "not a regular file"));
	sfmt(preset, sizeof(preset), "%s/fifo.json", conf.presets);
	assert_int_equal(mkfifo(preset, 0600), 0);
	refuse(jq(ONE_ARM("{'name':'w','preset':'fifo'}")), "fifo.json: not a regular file", NULL);
	/* a kernel or modules file swapped for a FIFO after it was resolved */
	assert_int_equal(image_kernel_release(fifo, "x86_64", release, sizeof(release), err), -1);
	assert_non_null(strstr(err, "not a regular file"));
	sfmt(initrd, sizeof(initrd), "%s/initrd.img", dir);
	assert_int_equal(image_initrd(mpath, fifo, initrd, err), -1);
	assert_non_null(strstr(err, "not a regular file"));
	alarm(0);
	unlink(preset);
	unlink(fifo);
	free(m);
}

/* A regular file one byte over 1 MiB: the matrix and harness.conf both refused. */
static void test_file_limit(void **state)
{
	struct matrix *m = new_matrix();
	char *big = malloc(SPEC_FILE_MAX + 2);
	struct conf c;

	(void)state;
	assert_non_null(big);
	memset(big, ' ', SPEC_FILE_MAX + 1);
	big[SPEC_FILE_MAX + 1] = '\0';
	assert_int_equal(load_at(m, mpath, big), -1);
	assert_non_null(strstr(err, "larger than 1048576 bytes"));
	assert_int_equal(conf_load(&c, mpath, err), -1);
	assert_non_null(strstr(err, "larger than 1048576 bytes"));
	free(big);
	free(m);
}

static void test_unknown_key_cases(void **state)
{
	(void)state;
	refuse("{\"name\":\"t\",\"reps\":1,\"colour\":\"red\",\"arms\":[" ARMS "],\"workloads\":[" WL "]}",
	       "matrix", "unknown key 'colour'", NULL);
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernal\":\"6.12\"}", WL),
	       "arms[1]", "unknown key 'kernal'", NULL);
	refuse(jq(ONE_ARM("{'name':'w','threadz':4," FSQ "}")),
	       "workloads[0]: unknown key 'threadz'", NULL);
	/* v1's flat workload keys are gone */
	refuse(jq(ONE_ARM("{'name':'w','file_mib':64," FSQ "}")),
	       "workloads[0]: unknown key 'file_mib'", NULL);
	refuse(jq(ONE_ARM("{'name':'w','access':'mmap'," FSQ "}")),
	       "workloads[0]: unknown key 'access'", NULL);
	refuse(MATRIX(ARMS, WL ", {\"name\":\"w2\",\"speed\":\"fast\"," FS "}"),
	       "workloads[1]: unknown key 'speed'", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8,'size':1}],"
			  "'streams':[{'kind':'random','file':'d'}]}")),
	       "workloads[0].files[0]: unknown key 'size'", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d'},{'kind':'scan','file':'d','speed':1}]}")),
	       "workloads[0].streams[1]: unknown key 'speed'", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','passes':2}]}")),
	       "workloads[0].streams[0]: 'passes' is not an option of a random stream", NULL);
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
	refuse(jq(ONE_ARM("{'memcg_mib':64," FSQ "}")), "workloads[0]: missing key 'name'", NULL);
	refuse(jq(ONE_ARM("{'name':7," FSQ "}")), "workloads[0]: missing key 'name'", NULL);
	/* a workload without files or streams */
	refuse(jq(ONE_ARM("{'name':'w','streams':[{'kind':'fio','args':'--name=x'}]}")),
	       "workloads[0].files: expected a non-empty array", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}]}")),
	       "workloads[0].streams: expected a non-empty array", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d'}],"
			  "'streams':[{'kind':'random','file':'d'}]}")),
	       "workloads[0].files[0]: 'name' and 'mib' are required", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],'streams':[{'file':'d'}]}")),
	       "workloads[0].streams[0]: 'kind' is required", NULL);
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
	/* one outside the directories kernels may come from is not looked for */
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"/nonexistent/vmlinuz\"}", WL),
	       "arms[0].kernel: /nonexistent/vmlinuz is outside the directories", NULL);
	/* a file that is not a bzImage */
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"k/garbage\"}", WL),
	       "arms[0].kernel", "not an x86 bzImage", NULL);
	/* a modules cpio that does not exist */
	refuse(MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"modules\":\"k/none.cpio\"}", WL),
	       "arms[0].modules: modules cpio", "k/none.cpio", "not found", NULL);
}

static void test_memcg_too_big(void **state)
{
	(void)state;
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"memcg_mib\":600," FS "}"),
	       "workloads[0].memcg_mib", "600 MiB", "512 MiB guest", "at most 416", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"memcg_mib\":417," FS "}"),
	       "workloads[0].memcg_mib", NULL);
	/* the default memcg_mib (256) does not fit a 256 MiB guest */
	refuse("{\"name\":\"t\",\"reps\":1,\"memory_mib\":256,\"arms\":[" ARMS "],"
	       "\"workloads\":[" WL ", {\"name\":\"w2\"," FS "}]}",
	       "workloads[1].memcg_mib", "256 MiB does not fit a 256 MiB guest", "at most 160", NULL);
	/* the table's own range */
	refuse(MATRIX(ARMS, "{\"name\":\"w\",\"memcg_mib\":15," FS "}"),
	       "workloads[0].memcg_mib: expected 16..", NULL);
}

/* The files' data disk must fit the free space where results live. */
static void test_disk_space(void **state)
{
	char saved[PATH_MAX];
	struct matrix *m;

	(void)state;
	memcpy(saved, conf.results, sizeof(saved));
	memcpy(conf.results, dir, sizeof(dir));
	/* 2 x 16 TiB */
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'a','mib':16777216},"
			  "{'name':'b','mib':16777216}],'streams':[{'kind':'random','file':'a'}]}")),
	       "workloads[0].files: their data disk needs", dir, "free", NULL);
	/* a small one fits */
	m = load_wl(ONE_ARM("{'name':'w'," FSQ "}"));
	done(m);
	memcpy(conf.results, saved, sizeof(saved));
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
	refuse(jq(ONE_ARM("{'name':'w','duration_s':1.5," FSQ "}")),
	       "workloads[0].duration_s: expected a whole number", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','threads':'many'}]}")),
	       "workloads[0].streams[0].threads: expected a number", NULL);
}

static void test_arrays(void **state)
{
	char *text = malloc(65536), *p;
	int i;

	(void)state;
	assert_non_null(text);
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
	/*
	 * 9 arms with two lru_gen values each expand to 18: the count in the
	 * message was read from the expanded array after it was freed (ASan, with
	 * the instrumented jansson the tests link, reported it).
	 */
	p = text + sprintf(text, "{\"name\":\"t\",\"reps\":1,\"arms\":[");
	for (i = 0; i < 9; i++)
		p += sprintf(p, "%s{\"name\":\"a%d\",\"kernel\":\"6.12\",\"lru_gen\":[\"y\",\"n\"]}",
			     i ? "," : "", i);
	sprintf(p, "],\"workloads\":[" WL "]}");
	refuse(text, "arms: expand to 18 arms, at most 16", NULL);
	/* more workload entries than SPEC_MAX_CELLS */
	p = text + sprintf(text, "{\"name\":\"t\",\"reps\":1,\"arms\":[" ARM_A "],\"workloads\":[");
	for (i = 0; i <= SPEC_MAX_CELLS; i++)
		p += sprintf(p, "%s{\"name\":\"w%d\"," FS "}", i ? "," : "", i);
	sprintf(p, "]}");
	refuse(text, "workloads: at most 64 entries", NULL);
	/* an arm that is not an object */
	refuse(MATRIX(ARM_A ", \"b\"", WL), "arms[1]", "expected an object", NULL);
	free(text);
}

static void test_arm_fields(void **state)
{
	(void)state;
	/* duplicate names */
	refuse(MATRIX(ARM_A ", {\"name\":\"base\",\"kernel\":\"6.12\"}", WL),
	       "arms[1].name", "'base'", "arms[0]", NULL);
	refuse(MATRIX(ARMS, WL ", {\"name\":\"zipf-mmap\"," FS "}"),
	       "workloads[1].name", "'zipf-mmap' is used by another workload", NULL);
	/* lru_gen */
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.12\",\"lru_gen\":\"maybe\"}", WL),
	       "arms[1].lru_gen", "\"y\", \"n\" or \"default\"", NULL);
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.12\",\"lru_gen\":true}", WL),
	       "arms[1].lru_gen", NULL);
	/* transparent hugepages: the kernel's words only */
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.12\",\"thp_enabled\":\"sometimes\"}",
		      WL), "arms[1].thp_enabled: expected one of \"always\", \"madvise\", \"never\", "
	       "or \"default\"", NULL);
	refuse(MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.12\",\"thp_defrag\":3}", WL),
	       "arms[1].thp_defrag: expected one of \"always\", \"defer\", \"defer+madvise\", "
	       "\"madvise\", \"never\", or \"default\"", NULL);
	/* multi-size THP: sizes by allow-list, "<N>K" a power of two from 8K to 2048K,
	 * and the kernel's four policies; the key named */
#define MTHP_ARM(o) MATRIX(ARM_A ", {\"name\":\"b\",\"kernel\":\"6.12\",\"mthp\":" o "}", WL)
	refuse(MTHP_ARM("{\"64k\":\"always\"}"), "arms[1].mthp: key '64k': expected a size like "
	       "\"64K\", a power of two from 8K to 2048K", NULL);
	refuse(MTHP_ARM("{\"3K\":\"always\"}"), "arms[1].mthp: key '3K'", NULL);
	refuse(MTHP_ARM("{\"4K\":\"always\"}"), "arms[1].mthp: key '4K'", NULL);
	refuse(MTHP_ARM("{\"4096K\":\"always\"}"), "arms[1].mthp: key '4096K'", NULL);
	refuse(MTHP_ARM("{\"../x\":\"always\"}"), "arms[1].mthp: key '../x'", NULL);
	refuse(MTHP_ARM("{\"64K\":\"always\",\"2M\":\"never\"}"), "arms[1].mthp: key '2M'", NULL);
	refuse(MTHP_ARM("{\"064K\":\"always\"}"), "arms[1].mthp: key '064K'", NULL);
	refuse(MTHP_ARM("{\"\":\"always\"}"), "arms[1].mthp: key ''", NULL);
	refuse(MTHP_ARM("{\"64K\":\"sometimes\"}"), "arms[1].mthp: key '64K': expected "
	       "\"always\", \"inherit\", \"madvise\" or \"never\"", NULL);
	refuse(MTHP_ARM("{\"64K\":\"default\"}"), "arms[1].mthp: key '64K'", NULL);
	refuse(MTHP_ARM("{\"64K\":true}"), "arms[1].mthp: key '64K'", NULL);
	refuse(MTHP_ARM("{\"64K\":[\"always\",\"never\"]}"), "arms[1].mthp: key '64K'", NULL);
	refuse(MTHP_ARM("\"64K:always\""), "arms[1].mthp: expected an object of sizes to policies",
	       NULL);
	refuse(MTHP_ARM("[{\"64K\":\"always\"}]"), "arms[1].mthp: expected an object", NULL);
	refuse(MTHP_ARM("null"), "arms[1].mthp: expected an object", NULL);
#undef MTHP_ARM
	/* names with a space, empty, too long, not a string */
	refuse(MATRIX("{\"name\":\"my arm\",\"kernel\":\"6.12\"}", WL),
	       "arms[0].name", "'my arm'", NULL);
	refuse(MATRIX("{\"name\":\"\",\"kernel\":\"6.12\"}", WL), "arms[0].name", NULL);
	refuse(MATRIX("{\"name\":\"abcdefghijklmnopqrstuvwxyz0123456\",\"kernel\":\"6.12\"}", WL),
	       "arms[0].name", "longer than 32", NULL);
	refuse(MATRIX("{\"name\":7,\"kernel\":\"6.12\"}", WL),
	       "arms[0].name", "expected a string", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"w 1\"," FS "}"), "workloads[0].name", "'w 1'", NULL);
	refuse(MATRIX(ARMS, "{\"name\":\"\"," FS "}"), "workloads[0].name", NULL);
	/*
	 * A workload name of CELL_NAME_MAX (64) or more characters is not tested:
	 * add_cell() copies it into the 64-byte cell name first and checks the
	 * truncated copy, so it is accepted cut to 63 (harness/spec/spec.c).
	 */
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

/* The job's own rules, named by workload, stream and key. */
static void test_workload_fields(void **state)
{
	(void)state;
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','theta':5.5}]}")),
	       "workloads[0].streams[0].theta: expected 0..5", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','threads':0}]}")),
	       "workloads[0].streams[0].threads: expected 1..256, got 0", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d'},{'kind':'scan','file':'e'}]}")),
	       "workloads[0].streams[1].file: 'e' is not a declared file", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','access':'read'}]}")),
	       "workloads[0].streams[0].access: a random stream reads by pread or mmap", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'scan','file':'d','access':'pread'}]}")),
	       "workloads[0].streams[0].access: a scan reads by read or mmap", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'scan','file':'d','access':'mmap','mode':'dontcache'}]}")),
	       "workloads[0].streams[0].mode: dontcache needs access read", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'fio'}]}")),
	       "workloads[0].streams[0]: a fio stream needs 'args' or 'jobfile'", NULL);
	refuse(jq(ONE_ARM("{'name':'w','duration_s':20,'files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','start_s':20}]}")),
	       "workloads[0].streams[0].start_s: 20 is not before the workload's end (20 s)", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8},{'name':'d','mib':9}],"
			  "'streams':[{'kind':'random','file':'d'}]}")),
	       "workloads[0].files[1].name: 'd' is declared twice", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','name':'x'},"
			  "{'kind':'random','file':'d','name':'x'}]}")),
	       "workloads[0].streams[1].name: 'x' is used by streams[0] too", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'a/b','mib':8}],"
			  "'streams':[{'kind':'random','file':'a/b'}]}")),
	       "workloads[0].files[0].name", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','threads':null}]}")),
	       "workloads[0].streams[0].threads", NULL);
	refuse(MATRIX(ARMS, "\"w\""), "workloads[0]", "expected an object", NULL);
}

/* ---- presets, params, expansion, scaling ---- */

/* theta and file_mib, as a number (whole-string placeholders) and as text. */
#define PRESET_ZIPF                                                                     \
	"{'description':'zipf reader','params':{'theta':0.9,'file_mib':64},"           \
	"'table':{'kind':'grid','metrics':['ops/s']},'memcg_mib':32,'duration_s':20,"  \
	"'files':[{'name':'data','mib':'${file_mib}'},{'name':'f${file_mib}','mib':4}],"\
	"'streams':[{'kind':'random','name':'z-${theta}','file':'data',"                \
	"'distribution':'zipf','theta':'${theta}'}]}"

static int presets_setup(void **state)
{
	(void)state;
	write_preset("zipf", PRESET_ZIPF);
	/* times: literal and through *_s params */
	write_preset("timed", "{'params':{'warm_s':25,'pause_s':3},'duration_s':100,'ramp_s':25,"
		     "'files':[{'name':'a','mib':8}],'streams':["
		     "{'kind':'random','file':'a','start_s':15,'duration_s':42},"
		     "{'kind':'scan','file':'a','start_s':'${warm_s}','gap_s':7,'passes':2},"
		     "{'kind':'scan','file':'a','gap_s':'${pause_s}'}]}");
	write_preset("noparams", "{'memcg_mib':48," FSQ "}");
	write_preset("unknown", "{'params':{'x':1},'memcg_mib':48,'files':[{'name':'d','mib':8}],"
		     "'streams':[{'kind':'random','file':'d','theta':'${y}'}]}");
	write_preset("unterminated", "{'params':{'x':1},'files':[{'name':'d${x','mib':8}],"
		     "'streams':[{'kind':'random','file':'d'}]}");
	write_preset("grid", "{'params':{'a':[1,2,3,4,5,6,7,8,9],'b':[1,2,3,4,5,6,7,8,9]},"
		     "'memcg_mib':16,'files':[{'name':'d','mib':8}],"
		     "'streams':[{'kind':'random','file':'d','threads':'${a}','rate':'${b}'}]}");
	write_preset("bad", "{'params':{'x':1},");
	write_preset("array", "[1,2]");
	write_preset("badparams", "{'params':[1]," FSQ "}");
	write_preset("extra", "{'colour':'red'," FSQ "}");
	/* a preset's own table, by its kind's keys */
	write_preset("t-kind", "{'table':{'kind':'pie'}," FSQ "}");
	write_preset("t-key", "{'table':{'kind':'grid','metrics':['ops/s'],'step_s':5}," FSQ "}");
	write_preset("t-step", "{'table':{'kind':'series','step_s':0,'columns':['ops/s']}," FSQ "}");
	write_preset("t-cols", "{'table':{'kind':'series','columns':['<b>']}," FSQ "}");
	write_preset("t-event", "{'table':{'kind':'events','stream':'s','columns':['ops/s']}," FSQ "}");
	write_preset("t-ok", "{'table':{'kind':'events','stream':'s','event':'pass_end',"
		     "'columns':['resid%:d','MB:d']}," FSQ "}");
	return 0;
}

static void test_preset_plain(void **state)
{
	struct matrix *m;
	const struct proto_job *j;

	(void)state;
	/* the preset's defaults */
	m = load_wl(ONE_ARM("{'name':'z','preset':'zipf'}"));
	assert_int_equal(m->n_cells, 1);
	assert_string_equal(m->cells[0].name, "z");
	assert_string_equal(m->cells[0].preset, "zipf");
	assert_string_equal(m->cells[0].params, "theta=0.9 file_mib=64");
	assert_non_null(m->cells[0].table);
	assert_string_equal(m->cells[0].table, "{\"kind\":\"grid\",\"metrics\":[\"ops/s\"]}");
	j = &m->cells[0].job;
	assert_int_equal(j->memcg_mib, 32);
	assert_int_equal(j->duration_s, 20);
	/* a whole-string placeholder becomes the number */
	assert_int_equal(j->files[0].mib, 64);
	assert_true(j->streams[0].theta == 0.9);
	/* inside a longer string, the value as text */
	assert_string_equal(j->files[1].name, "f64");
	assert_string_equal(j->streams[0].name, "z-0.9");
	done(m);

	/* params given override the defaults; job keys of the entry override the preset's */
	m = load_wl(ONE_ARM("{'name':'z','preset':'zipf','params':{'theta':1.25},"
			    "'memcg_mib':40,'duration_s':30}"));
	assert_string_equal(m->cells[0].params, "theta=1.25 file_mib=64");
	j = &m->cells[0].job;
	assert_true(j->streams[0].theta == 1.25);
	assert_string_equal(j->streams[0].name, "z-1.25");
	assert_int_equal(j->files[0].mib, 64);
	assert_int_equal(j->memcg_mib, 40);
	assert_int_equal(j->duration_s, 30);
	done(m);

	/* a preset without params; no preset but params of the entry's own */
	m = load_wl(ONE_ARM("{'name':'n','preset':'noparams'},"
			    "{'name':'p','params':{'mib':12},'files':[{'name':'d','mib':'${mib}'}],"
			    "'streams':[{'kind':'scan','file':'d'}]}"));
	assert_int_equal(m->n_cells, 2);
	assert_int_equal(m->cells[0].job.memcg_mib, 48);
	assert_string_equal(m->cells[0].params, "");
	assert_null(m->cells[0].table);
	assert_string_equal(m->cells[1].preset, "");
	assert_string_equal(m->cells[1].params, "mib=12");
	assert_int_equal(m->cells[1].job.files[0].mib, 12);
	done(m);
}

static void test_preset_expand_arrays(void **state)
{
	static const struct {
		const char *name, *params;
		double theta;
		uint64_t mib;
	} want[] = {
		{ "grid/0.8/32", "theta=0.8 file_mib=32", 0.8, 32 },
		{ "grid/1.1/32", "theta=1.1 file_mib=32", 1.1, 32 },
		{ "grid/0.8/64", "theta=0.8 file_mib=64", 0.8, 64 },
		{ "grid/1.1/64", "theta=1.1 file_mib=64", 1.1, 64 },
	};
	struct matrix *m;
	unsigned i;

	(void)state;
	m = load_wl(ONE_ARM("{'name':'grid','preset':'zipf',"
			    "'params':{'theta':[0.8,1.1],'file_mib':[32,64]}},"
			    "{'name':'after','preset':'zipf'}"));
	assert_int_equal(m->n_cells, 5);
	for (i = 0; i < 4; i++) {
		const struct cell *c = &m->cells[i];
		char fname[16];

		assert_string_equal(c->name, want[i].name);
		assert_string_equal(c->preset, "zipf");
		assert_string_equal(c->params, want[i].params);
		assert_true(c->job.streams[0].theta == want[i].theta);
		assert_int_equal(c->job.files[0].mib, want[i].mib);
		sfmt(fname, sizeof(fname), "f%llu", (unsigned long long)want[i].mib);
		assert_string_equal(c->job.files[1].name, fname);
		assert_non_null(c->table);
	}
	assert_string_equal(m->cells[4].name, "after");
	assert_int_equal(spec_run_count(m), 5);
	done(m);

	/* one array param: "<name>/<value>"; a one-value array still names the cell */
	m = load_wl(ONE_ARM("{'name':'t','preset':'zipf','params':{'theta':[1.5]}}"));
	assert_int_equal(m->n_cells, 1);
	assert_string_equal(m->cells[0].name, "t/1.5");
	done(m);
	/* strings as values */
	m = load_wl(ONE_ARM("{'name':'c','params':{'content':['zero','random']},"
			    "'files':[{'name':'d','mib':8,'content':'${content}'}],"
			    "'streams':[{'kind':'random','file':'d'}]}"));
	assert_int_equal(m->n_cells, 2);
	assert_string_equal(m->cells[0].name, "c/zero");
	assert_int_equal(m->cells[0].job.files[0].content, CONTENT_ZERO);
	assert_string_equal(m->cells[1].name, "c/random");
	assert_int_equal(m->cells[1].job.files[0].content, CONTENT_RANDOM);
	done(m);
	/* two entries expanding to the same cell name */
	refuse(jq(ONE_ARM("{'name':'g','preset':'zipf','params':{'theta':[0.8]}},"
			  "{'name':'g/0.8','preset':'zipf'}")),
	       "workloads[1].name", "'g/0.8' is used by another workload", NULL);
}

/* "cells" keeps the named expanded cells; a name of none is refused. */
static void test_cells_kept(void **state)
{
	struct matrix *m;

	(void)state;
	m = load_wl("{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}],"
		    "'cells':['g/1.1','after'],'workloads':["
		    "{'name':'g','preset':'zipf','params':{'theta':[0.8,1.1]}},"
		    "{'name':'after','preset':'zipf'}]}");
	assert_int_equal(m->n_cells, 2);
	assert_string_equal(m->cells[0].name, "g/1.1");
	assert_true(m->cells[0].job.streams[0].theta == 1.1);
	assert_non_null(m->cells[0].table);
	assert_string_equal(m->cells[1].name, "after");
	assert_int_equal(spec_run_count(m), 2);
	done(m);
	refuse(jq("{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}],'cells':['g/0.9'],"
		  "'workloads':[{'name':'g','preset':'zipf','params':{'theta':[0.8,1.1]}}]}"),
	       "cells[0]: expected the name of a cell the workloads expand to, such as 'g/0.8'",
	       NULL);
	refuse(jq("{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}],'cells':[],"
		  "'workloads':[{'name':'g','preset':'zipf'}]}"), "cells: expected an array", NULL);
	refuse(jq("{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}],'cells':'g',"
		  "'workloads':[{'name':'g','preset':'zipf'}]}"), "cells: expected an array", NULL);
}

/*
 * harness calibrate's A/A matrix: two copies of the chosen (expanded) arm,
 * named to end in -aa, 2 x blocks reps, the chosen cells; it parses.
 */
static void test_calibrate_spec(void **state)
{
	static const char *const cells[] = { "g/1.1" };
	const char *text = jq("{'name':'t','reps':2,'arms':[{'name':'a','kernel':'6.12',"
			      "'lru_gen':['y','n']}],'workloads':["
			      "{'name':'g','preset':'zipf','params':{'theta':[0.8,1.1]}}]}");
	struct matrix *m = new_matrix();
	char *aa = NULL;

	(void)state;
	assert_int_equal(calibrate_spec(text, "t.json", "a-n", cells, 1, 6, &aa, err), 0);
	if (load_at(m, mpath, aa) < 0)
		fail_msg("the A/A matrix is refused: %s\n%s", err, aa);
	assert_string_equal(m->name, "t-aa");
	assert_int_equal(m->n_arms, 2);
	assert_string_equal(m->arms[0].name, "a-n-1-aa");
	assert_string_equal(m->arms[1].name, "a-n-2-aa");
	assert_string_equal(m->arms[1].lru_gen, "n");
	assert_int_equal(m->reps, 12);
	assert_int_equal(m->n_cells, 1);
	assert_string_equal(m->cells[0].name, "g/1.1");
	free(aa);
	done(m);
	assert_int_equal(calibrate_spec(text, "t.json", "b", cells, 1, 6, &aa, err), -1);
	assert_non_null(strstr(err, "t.json: --arm b: expected the name of one of its arms"));
}

/* An arm's lru_gen or cmdline array stands for one arm per value. */
static void test_arm_arrays(void **state)
{
	struct matrix *m;

	(void)state;
	m = load_wl("{'name':'t','reps':1,'arms':[{'name':'v','kernel':'6.12',"
		    "'lru_gen':['y','n'],'cmdline':['a=1','a=2'],'tag':'rotate/v3'}],"
		    "'workloads':[{'name':'w','files':[{'name':'d','mib':8}],"
		    "'streams':[{'kind':'random','file':'d'}]}]}");
	assert_int_equal(m->n_arms, 4);
	assert_string_equal(m->arms[0].name, "v-y-0");
	assert_string_equal(m->arms[0].lru_gen, "y");
	assert_string_equal(m->arms[0].cmdline, "a=1");
	assert_string_equal(m->arms[1].name, "v-y-1");
	assert_string_equal(m->arms[1].cmdline, "a=2");
	assert_string_equal(m->arms[3].name, "v-n-1");
	assert_string_equal(m->arms[3].lru_gen, "n");
	assert_string_equal(m->arms[0].tag, "rotate/v3");   /* every expanded arm keeps the tag */
	assert_string_equal(m->arms[3].tag, "rotate/v3");
	assert_int_equal(spec_run_count(m), 4);
	done(m);
	/* transparent hugepages: one arm per value, named by it, "default" the kernel's */
	m = load_wl("{'name':'t','reps':1,'arms':[{'name':'h','kernel':'6.12',"
		    "'thp_enabled':['always','never','default'],'thp_defrag':'defer+madvise'}],"
		    "'workloads':[{'name':'w','files':[{'name':'d','mib':8}],"
		    "'streams':[{'kind':'random','file':'d'}]}]}");
	assert_int_equal(m->n_arms, 3);
	assert_string_equal(m->arms[0].name, "h-always");
	assert_string_equal(m->arms[0].thp_enabled, "always");
	assert_string_equal(m->arms[1].name, "h-never");
	assert_string_equal(m->arms[2].name, "h-default");
	assert_string_equal(m->arms[2].thp_enabled, "");
	assert_string_equal(m->arms[2].thp_defrag, "defer+madvise");
	done(m);
	/* multi-size THP: every allowed size, written as one list, sizes ascending;
	 * kept through the thp_enabled expansion; {} and no key are the kernel's */
	m = load_wl("{'name':'t','reps':1,'arms':[{'name':'m','kernel':'6.12',"
		    "'thp_enabled':['never','always'],"
		    "'mthp':{'2048K':'inherit','64K':'always','8K':'never','16K':'madvise','32K':'never',"
		    "'128K':'never','256K':'never','512K':'never','1024K':'never'}},"
		    "{'name':'e','kernel':'6.12','mthp':{}},{'name':'n','kernel':'6.12'}],"
		    "'workloads':[{'name':'w','files':[{'name':'d','mib':8}],"
		    "'streams':[{'kind':'random','file':'d'}]}]}");
	assert_int_equal(m->n_arms, 4);
	assert_string_equal(m->arms[0].name, "m-never");
	assert_string_equal(m->arms[0].mthp, "8K:never 16K:madvise 32K:never 64K:always 128K:never "
			    "256K:never 512K:never 1024K:never 2048K:inherit");
	assert_string_equal(m->arms[1].name, "m-always");
	assert_string_equal(m->arms[1].mthp, m->arms[0].mthp);
	assert_string_equal(m->arms[2].mthp, "");
	assert_string_equal(m->arms[3].mthp, "");
	/* part of the matrix's identity: the stored spec holds it */
	assert_non_null(strstr(m->canonical, "\"mthp\":{\"1024K\":\"never\""));
	done(m);
}

#define TAG62 "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"
#define TAGGED(tag) MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\",\"tag\":" tag "}", WL)

/* An arm's tag: a name that may hold '/' and ':', at most 63 characters, part of the hash. */
static void test_arm_tag(void **state)
{
	struct matrix *m = new_matrix(), *plain = new_matrix();

	(void)state;
	if (load_at(m, mpath, TAGGED("\"mglru-rotate/v3:rc1_x.2\"")) < 0 ||
	    load_at(plain, mpath, MATRIX("{\"name\":\"a\",\"kernel\":\"6.12\"}", WL)) < 0)
		fail_msg("refused: %s", err);
	assert_string_equal(m->arms[0].tag, "mglru-rotate/v3:rc1_x.2");
	assert_string_equal(plain->arms[0].tag, "");
	assert_string_not_equal(m->hash, plain->hash);   /* the tag is part of what was declared */
	done(m);
	done(plain);
	m = new_matrix();
	if (load_at(m, mpath, TAGGED("\"" TAG62 "0\"")) < 0)
		fail_msg("63 characters refused: %s", err);
	done(m);
	refuse(TAGGED("\"" TAG62 "01\""),
	       "arms[0].tag", "longer than 63", NULL);
	refuse(TAGGED("\"rotate v3\""), "arms[0].tag", "'/' or ':'", "'rotate v3'", NULL);
	refuse(TAGGED("\"rotate@v3\""), "arms[0].tag", NULL);
	refuse(TAGGED("\"v3;rm\""), "arms[0].tag", NULL);
	refuse(TAGGED("\"caf\\u00e9\""), "arms[0].tag", NULL);
	refuse(TAGGED("\"\""), "arms[0].tag", NULL);
	refuse(TAGGED("3"), "arms[0].tag", "expected a string", NULL);
}

/* Array-valued options of the job itself expand the cell, no preset needed. */
static void test_job_arrays(void **state)
{
	static const struct {
		const char *name;
		uint64_t memcg, mib;
		double theta;
	} want[] = {
		{ "w/32/48/0.8", 32, 48, 0.8 }, { "w/64/48/0.8", 64, 48, 0.8 },
		{ "w/32/96/0.8", 32, 96, 0.8 }, { "w/64/96/0.8", 64, 96, 0.8 },
		{ "w/32/48/1.1", 32, 48, 1.1 },
	};
	struct matrix *m;
	unsigned i;

	(void)state;
	m = load_wl(ONE_ARM("{'name':'w','memcg_mib':[32,64],'duration_s':5,"
			    "'files':[{'name':'d','mib':[48,96]}],"
			    "'streams':[{'kind':'random','file':'d','distribution':'zipf',"
			    "'theta':[0.8,1.1]}]}"));
	assert_int_equal(m->n_cells, 8);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		const struct cell *c = &m->cells[i];

		assert_string_equal(c->name, want[i].name);
		assert_int_equal(c->job.memcg_mib, want[i].memcg);
		assert_int_equal(c->job.files[0].mib, want[i].mib);
		assert_true(c->job.streams[0].theta == want[i].theta);
	}
	done(m);
}

/*
 * Found by fuzz_spec: an empty array anywhere in a job expanded the workload
 * to no cell, so the matrix was accepted with 0 runs and its job (here an
 * unknown key) never checked. A lifted array follows the params' rule.
 */
static void test_job_arrays_bad(void **state)
{
	(void)state;
	refuse(jq(ONE_ARM("{'name':'w','memcg_mib':64,'bogus':[]," FSQ "}")),
	       "workloads[0]: 'bogus': an array of values expands cells", NULL);
	refuse(jq(ONE_ARM("{'name':'w','memcg_mib':[]," FSQ "}")), "'memcg_mib'", "1..16", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':[]}],"
			  "'streams':[{'kind':'random','file':'d'}]}")), "'d_mib'", NULL);
	refuse(jq(ONE_ARM("{'name':'w','files':[{'name':'d','mib':8}],"
			  "'streams':[{'kind':'random','file':'d','theta':[[1.1]]}]}")), "'theta'",
	       NULL);
}

/* What the verdicts read ("margins", "primary"): kept in the stored spec, its shape checked here. */
#define VERDICT_KEYS(k) "{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}]," k \
			"'workloads':[{'name':'w','memcg_mib':64," FSQ "}]}"

static void test_verdict_keys(void **state)
{
	struct matrix *m;

	(void)state;
	m = load_wl(VERDICT_KEYS("'margins':{'ops/s':3,'miss%':0.5},'primary':'ops/s',"));
	assert_non_null(strstr(m->canonical, "\"margins\":{\"miss%\":0.5,\"ops/s\":3}"));
	done(m);
	refuse(jq(VERDICT_KEYS("'margins':{'ops/s':0},")),
	       "margins: 'ops/s': expected a percentage above 0 and at most 100", NULL);
	refuse(jq(VERDICT_KEYS("'margins':[3],")), "margins: expected an object", NULL);
	refuse(jq(VERDICT_KEYS("'primary':3,")), "primary: expected the name of a compared metric",
	       NULL);
}

static void test_preset_scale(void **state)
{
	struct matrix *m;
	const struct proto_job *j;

	(void)state;
	/* scale 0.5: memcg_mib, files[].mib and *_mib params halved, rounded up */
	m = load_wl(ONE_ARM("{'name':'s','scale':0.5,'memcg_mib':75,"
			    "'files':[{'name':'a','mib':33},{'name':'b','mib':1}],"
			    "'streams':[{'kind':'random','file':'a','threads':3}]},"
			    "{'name':'z','preset':'zipf','scale':0.5,'params':{'file_mib':33}},"
			    "{'name':'small','scale':0.5,'memcg_mib':20," FSQ "}"));
	j = &m->cells[0].job;
	assert_int_equal(j->memcg_mib, 38);
	assert_int_equal(j->files[0].mib, 17);
	assert_int_equal(j->files[1].mib, 1);
	assert_int_equal(j->streams[0].threads, 3);    /* not a size */
	j = &m->cells[1].job;
	assert_int_equal(j->memcg_mib, 16);
	assert_int_equal(j->files[0].mib, 17);         /* through ${file_mib} */
	assert_string_equal(j->files[1].name, "f17");
	assert_true(j->streams[0].theta == 0.9);       /* not a size */
	assert_string_equal(m->cells[1].params, "theta=0.9 file_mib=17");
	assert_int_equal(m->cells[2].job.memcg_mib, 16);  /* never below the table's minimum */
	done(m);

	/* scale 2 doubles; a memcg that then does not fit is refused */
	m = load_wl(ONE_ARM("{'name':'s','scale':2,'memcg_mib':100,"
			    "'files':[{'name':'a','mib':300}],'streams':[{'kind':'random','file':'a'}]}"));
	assert_int_equal(m->cells[0].job.memcg_mib, 200);
	assert_int_equal(m->cells[0].job.files[0].mib, 600);
	done(m);
	refuse(jq(ONE_ARM("{'name':'s','scale':2,'memcg_mib':300," FSQ "}")),
	       "workloads[0].memcg_mib", "600 MiB does not fit", NULL);
}

static void test_preset_time_scale(void **state)
{
	struct matrix *m;
	const struct proto_job *j;

	(void)state;
	/* time_scale 1: as written */
	m = load_wl(ONE_ARM("{'name':'t','preset':'timed'}"));
	j = &m->cells[0].job;
	assert_int_equal(j->duration_s, 100);
	assert_int_equal(j->ramp_s, 25);
	assert_true(j->streams[0].start_s == 15);
	assert_true(j->streams[0].duration_s == 42);
	assert_true(j->streams[1].start_s == 25);
	assert_true(j->streams[1].gap_s == 7);
	assert_true(j->streams[2].gap_s == 3);
	done(m);

	/* time_scale 0.1: duration_s, ramp_s (whole, rounded up), start_s, duration_s,
	 * gap_s, and *_s params (rounded up) */
	m = load_wl(ONE_ARM("{'name':'t','preset':'timed','time_scale':0.1}"));
	assert_string_equal(m->cells[0].params, "warm_s=3 pause_s=1");
	j = &m->cells[0].job;
	assert_int_equal(j->duration_s, 10);
	assert_int_equal(j->ramp_s, 3);
	assert_true(j->streams[0].start_s == 15 * 0.1);
	assert_true(j->streams[0].duration_s == 42 * 0.1);
	assert_true(j->streams[1].start_s == 3);
	assert_true(j->streams[1].gap_s == 7 * 0.1);
	assert_true(j->streams[2].gap_s == 1);
	assert_int_equal(j->interval_ms, 1000);        /* the sampling interval is not scaled */
	assert_int_equal(j->files[0].mib, 8);          /* nor sizes */
	assert_int_equal(j->streams[1].passes, 2);
	done(m);

	/* a duration never scales below 1 s */
	m = load_wl(ONE_ARM("{'name':'t','time_scale':0.01,'duration_s':20," FSQ "}"));
	assert_int_equal(m->cells[0].job.duration_s, 1);
	done(m);
	/* both at once, on the same entry */
	m = load_wl(ONE_ARM("{'name':'z','preset':'zipf','scale':0.25,'time_scale':0.5}"));
	assert_int_equal(m->cells[0].job.memcg_mib, 16);  /* 8, raised to the minimum */
	assert_int_equal(m->cells[0].job.files[0].mib, 16);
	assert_int_equal(m->cells[0].job.duration_s, 10);
	done(m);
}

static void test_preset_refusals(void **state)
{
	char want[PATH_MAX + 64];
	char *text = malloc(8192), *p;
	int i, v;

	(void)state;
	assert_non_null(text);
	/* unknown presets, bad names */
	refuse(jq(ONE_ARM("{'name':'z','preset':'nope'}")),
	       "workloads[0].preset: no preset 'nope'", "nope.json missing", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'../zipf'}")),
	       "workloads[0].preset: expected a preset name", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':''}")), "workloads[0].preset", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':3}")),
	       "workloads[0].preset: expected a string", NULL);
	/* a preset file that is not JSON, not an object, or has bad keys */
	sfmt(want, sizeof(want), "%s/bad.json:", conf.presets);
	refuse(jq(ONE_ARM("{'name':'z','preset':'bad'}")), want, "malformed JSON", NULL);
	sfmt(want, sizeof(want), "%s/array.json: expected an object", conf.presets);
	refuse(jq(ONE_ARM("{'name':'z','preset':'array'}")), want, NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'badparams'}")),
	       "workloads[0]: the preset's params must be an object", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'extra'}")),
	       "workloads[0]: unknown key 'colour'", NULL);
	/* a preset's table: its kind, its kind's keys, their values */
	refuse(jq(ONE_ARM("{'name':'z','preset':'t-kind'}")),
	       "t-kind.json: table.kind: expected \"series\", \"events\" or \"grid\"", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'t-key'}")),
	       "t-key.json: table.step_s: not a key of a grid table", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'t-step'}")),
	       "t-step.json: table.step_s: expected whole seconds, 1 to 3600", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'t-cols'}")),
	       "t-cols.json: table.columns: expected 1 to 16 names", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'t-event'}")),
	       "t-event.json: table.event: missing (an events table needs it)", NULL);
	done(load_wl(ONE_ARM("{'name':'z','preset':'t-ok'}")));
	/* params: not the preset's, ${unknown}, malformed placeholders, bad values */
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','params':{'zeta':1}}")),
	       "workloads[0].params.zeta: not a parameter of this preset", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'unknown'}")),
	       "workloads[0]: ${y} is not a parameter", NULL);
	refuse(jq(ONE_ARM("{'name':'z','files':[{'name':'d','mib':'${nope}'}],"
			  "'streams':[{'kind':'random','file':'d'}]}")),
	       "workloads[0]: ${nope} is not a parameter", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'unterminated'}")),
	       "workloads[0]: unterminated or empty ${...}", NULL);
	refuse(jq(ONE_ARM("{'name':'z','params':{'x':1},'files':[{'name':'d${}','mib':8}],"
			  "'streams':[{'kind':'random','file':'d'}]}")),
	       "unterminated or empty", NULL);
	/* a value too long for where it is substituted: refused, not cut */
	refuse(jq(ONE_ARM("{'name':'z','params':{'x':'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
			  "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv'},'files':[{'name':'d${x}','mib':8}],"
			  "'streams':[{'kind':'random','file':'d'}]}")),
	       "workloads[0]: ${x}: a value of over 63 characters inside a string", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','params':[1]}")),
	       "workloads[0].params: expected an object", NULL);
	/*
	 * A param value that is not a number, a string or an array of 1..16 of
	 * them ({}, [], [[1]], null, 17 values) is not tested: collect_params()
	 * frees the params object before formatting the message with one of its
	 * keys (harness/spec/preset.c, heap-use-after-free under ASan).
	 */
	/* a value substituted where the job cannot take it */
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','params':{'theta':[0.8,9]}}")),
	       "workloads[0].streams[0].theta: expected 0..5", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','params':{'file_mib':'big'}}")),
	       "workloads[0].files[0].mib: expected a number", NULL);
	/* scale and time_scale: positive numbers up to 1000 */
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','scale':0}")),
	       "workloads[0].scale: expected a number in (0, 1000]", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','scale':-0.5}")), "workloads[0].scale", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','scale':'0.5'}")), "workloads[0].scale", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','scale':1001}")), "workloads[0].scale", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','time_scale':0}")),
	       "workloads[0].time_scale: expected a number in (0, 1000]", NULL);
	refuse(jq(ONE_ARM("{'name':'z','preset':'zipf','time_scale':-1}")),
	       "workloads[0].time_scale", NULL);
	/* too many combinations: 16 x 16 x 2 = 512 > 256 */
	p = text + sprintf(text, "{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}],"
			   "'workloads':[{'name':'z','params':{");
	for (i = 0; i < 3; i++) {
		p += sprintf(p, "%s'p%d':[", i ? "," : "", i);
		for (v = 0; v < (i == 2 ? 2 : 16); v++)
			p += sprintf(p, "%s%d", v ? "," : "", v);
		p += sprintf(p, "]");
	}
	sprintf(p, "}," FSQ "}]}");
	refuse(jq(text), "workloads[0].params: 512 combinations, at most 256", NULL);
	/* within the preset's bound, beyond the matrix's cells: 9 x 9 = 81 > 64 */
	refuse(jq(ONE_ARM("{'name':'g','preset':'grid'}")),
	       "workloads[0]: the matrix expands to more than 64 workload cells", NULL);
	free(text);
}

/* SPEC_MAX_CELLS cells from one entry are fine. */
static void test_preset_max_cells(void **state)
{
	struct matrix *m;

	(void)state;
	m = load_wl(ONE_ARM("{'name':'g','preset':'grid',"
			    "'params':{'a':[1,2,3,4,5,6,7,8],'b':[1,2,3,4,5,6,7,8]}}"));
	assert_int_equal(m->n_cells, SPEC_MAX_CELLS);
	assert_string_equal(m->cells[0].name, "g/1/1");
	assert_string_equal(m->cells[1].name, "g/2/1");
	assert_string_equal(m->cells[63].name, "g/8/8");
	assert_int_equal(m->cells[63].job.streams[0].threads, 8);
	assert_true(m->cells[63].job.streams[0].rate == 8);
	done(m);
}

/* preset_expand's own output: name, preset, params text, table, job. */
static void test_preset_expand_direct(void **state)
{
	json_t *entry, *cells = NULL, *c, *job, *st;
	char e[ERR_MAX];

	(void)state;
	entry = json_loads(jq("{'name':'x','preset':'zipf','scale':0.5,"
			      "'params':{'theta':[1,2]},'ramp_s':2}"), 0, NULL);
	assert_non_null(entry);
	if (preset_expand(entry, conf.presets, "wl", &cells, e) < 0)
		fail_msg("refused: %s", e);
	assert_int_equal(json_array_size(cells), 2);
	c = json_array_get(cells, 1);
	assert_string_equal(json_string_value(json_object_get(c, "name")), "x/2");
	assert_string_equal(json_string_value(json_object_get(c, "preset")), "zipf");
	assert_string_equal(json_string_value(json_object_get(c, "params")), "theta=2 file_mib=32");
	assert_true(json_is_object(json_object_get(c, "table")));
	job = json_object_get(c, "job");
	assert_int_equal(json_integer_value(json_object_get(job, "memcg_mib")), 16);
	assert_int_equal(json_integer_value(json_object_get(job, "ramp_s")), 2);
	assert_null(json_object_get(job, "params"));
	assert_null(json_object_get(job, "description"));
	assert_null(json_object_get(job, "table"));
	assert_null(json_object_get(job, "scale"));
	assert_null(json_object_get(job, "name"));
	st = json_array_get(json_object_get(job, "streams"), 0);
	assert_true(json_is_number(json_object_get(st, "theta")));
	assert_true(json_number_value(json_object_get(st, "theta")) == 2);
	assert_string_equal(json_string_value(json_object_get(st, "name")), "z-2");
	json_decref(cells);
	json_decref(entry);

	/* no preset: no table (the key is left out) */
	entry = json_loads(jq("{'name':'y'," FSQ "}"), 0, NULL);
	assert_int_equal(preset_expand(entry, conf.presets, "wl", &cells, e), 0);
	assert_false(json_is_object(json_object_get(json_array_get(cells, 0), "table")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(cells, 0), "preset")), "");
	json_decref(cells);
	json_decref(entry);
	/* the error names the caller's prefix */
	entry = json_loads(jq("{'name':'y','preset':'zipf','params':{'q':1}}"), 0, NULL);
	assert_int_equal(preset_expand(entry, conf.presets, "wl", &cells, e), -1);
	assert_non_null(strstr(e, "wl.params.q"));
	json_decref(entry);
	entry = json_string("x");
	assert_int_equal(preset_expand(entry, conf.presets, "wl", &cells, e), -1);
	assert_non_null(strstr(e, "wl: expected an object"));
	json_decref(entry);
}

/* ---- fio streams: the guest's fio checks them on the host ---- */

static void link_fio(int on)
{
	char real[PATH_MAX], link[PATH_MAX];

	sfmt(link, sizeof(link), "%s/x86_64/fio", conf.images);
	if (!on) {
		unlink(link);
		return;
	}
	assert_non_null(realpath(REAL_FIO, real));
	assert_int_equal(symlink(real, link), 0);
}

#define FIO_WL(args) ONE_ARM("{'name':'f','files':[{'name':'d','mib':8}],"                 \
			     "'streams':[{'kind':'random','file':'d'},{'kind':'fio','args':'" args "'}]}")

static void test_fio_stream(void **state)
{
	struct matrix *m;
	const struct proto_stream *st;

	(void)state;
	/* the fake images tree has no fio */
	refuse(jq(FIO_WL("--name=x --rw=randread --bs=4k --size=8M")),
	       "workloads[0].streams[1]: fio is not built", "x86_64/fio missing", "make images",
	       NULL);
	if (access(REAL_FIO, X_OK) < 0) {
		print_message("skipping fio --parse-only cases: no %s (make images)\n", REAL_FIO);
		skip();
	}
	link_fio(1);
	m = load_wl(FIO_WL("--name=x --rw=randread --bs=4k --size=8M"));
	st = &m->cells[0].job.streams[1];
	assert_int_equal(st->kind, KIND_FIO);
	assert_string_equal(st->args, "--name=x --rw=randread --bs=4k --size=8M");
	assert_string_equal(st->name, "s1");
	done(m);
	/* fio's own words */
	refuse(jq(FIO_WL("--name=x --hipri --ioengine=io_uring")),
	       "workloads[0].streams[1]: stream 's1': fio: unrecognized option '--hipri'", NULL);
	refuse(jq(FIO_WL("--name=x --rw=bogus")), "workloads[0].streams[1]",
	       "failed parsing rw=bogus", NULL);
	/* the harness's rules (an allow-list) come first */
	refuse(jq(FIO_WL("--name=x --directory=/etc")), "workloads[0].streams[1]: stream 's1'",
	       "directory", NULL);
	refuse(jq(FIO_WL("--name=x --bogus=1")), "workloads[0].streams[1]: stream 's1': "
	       "option '--bogus' is not allowed", NULL);
	/* a preset's fio args with ${file_mib} as text, scaled */
	write_preset("fio", "{'params':{'file_mib':64,'rw':'randread'},'memcg_mib':32,"
		     "'files':[{'name':'d','mib':8}],'streams':[{'kind':'fio','name':'f',"
		     "'args':'--name=x --rw=${rw} --bs=4k --size=${file_mib}M'}]}");
	m = load_wl(ONE_ARM("{'name':'p','preset':'fio'},"
			    "{'name':'q','preset':'fio','scale':0.25,'params':{'rw':['read','randread']}}"));
	assert_int_equal(m->n_cells, 3);
	assert_string_equal(m->cells[0].job.streams[0].args,
			    "--name=x --rw=randread --bs=4k --size=64M");
	assert_string_equal(m->cells[1].name, "q/read");
	assert_string_equal(m->cells[1].job.streams[0].args, "--name=x --rw=read --bs=4k --size=16M");
	assert_string_equal(m->cells[2].name, "q/randread");
	assert_string_equal(m->cells[2].job.streams[0].args,
			    "--name=x --rw=randread --bs=4k --size=16M");
	done(m);
	/* one expanded value fio refuses */
	refuse(jq(ONE_ARM("{'name':'q','preset':'fio','params':{'rw':['read','bogus']}}")),
	       "workloads[0].streams[0]: stream 'f'", "rw=bogus", NULL);
	link_fio(0);
}

/* ---- parsing apart from resolving ---- */

/* What spec_resolve told its progress callback, one line after the other. */
struct heard {
	char lines[1024];
	unsigned n;
};

static void hear(void *arg, const char *line)
{
	struct heard *h = arg;
	size_t len = strlen(h->lines);

	assert_null(strchr(line, '\n'));
	sfmt(h->lines + len, sizeof(h->lines) - len, "%s\n", line);
	h->n++;
}

/*
 * text (written with ') must parse, with nothing resolved, then fail
 * spec_resolve with "PATH: " and every given fragment; what progress heard
 * is in *h.
 */
static void parse_then_unresolved(struct heard *h, const char *text, ...)
{
	struct matrix *m = new_matrix();
	size_t plen = strlen(mpath);
	va_list ap;

	memset(h, 0, sizeof(*h));
	if (spec_parse(m, jq(text), mpath, dir, &conf, err) < 0)
		fail_msg("not parsed: %s\n  %s", err, text);
	assert_int_equal(m->unresolved, 1);
	assert_string_equal(m->arms[0].files[0].kernel, "");
	assert_string_equal(m->arms[0].files[0].release, "");
	assert_int_equal(spec_resolve(m, &conf, hear, h, err), -1);
	assert_int_equal(m->unresolved, 1);
	done(m);
	if (strncmp(err, mpath, plen) || err[plen] != ':')
		fail_msg("error '%s' does not start with the file name", err);
	assert_null(strchr(err, '\n'));
	va_start(ap, text);
	assert_err_has(err, ap);
	va_end(ap);
}

static void test_parse_apart(void **state)
{
	char cache[PATH_MAX], text[PATH_MAX * 2];
	struct matrix *m = new_matrix(), *again = new_matrix();
	struct heard h;

	(void)state;
	/* arms[0] resolves, arms[1] as given: errors name it */
#define TWO(arm) "{'name':'p','reps':1,'arms':[{'name':'a','kernel':'6.12'},{'name':'b'," \
		 arm "}],'workloads':[{'name':'w'," FSQ "}]}"
	/* a kernel path that does not exist, an alias never built */
	parse_then_unresolved(&h, TWO("'kernel':'k/nope'"), "arms[1].kernel", "k/nope",
			      "not found", NULL);
	parse_then_unresolved(&h, TWO("'kernel':'6.13'"), "arms[1].kernel",
			      "'6.13' is not built", NULL);
	parse_then_unresolved(&h, TWO("'kernel':'6.12','modules':'k/none.cpio'"),
			      "arms[1].modules", "not found", NULL);
	assert_int_equal(h.n, 0);   /* paths are looked up quietly */
	/* a URL nothing answers at and a package: parsing fetches and builds nothing */
	sfmt(cache, sizeof(cache), "%s/" IMAGE_KERNEL_CACHE, conf.results);
	if (spec_parse(m, jq("{'name':'p','reps':1,'arms':[{'name':'a','package':'linux-image-x'},"
			     "{'name':'b','url':'http://127.0.0.1:1/bzImage','sha256':'" ZERO64 "'}],"
			     "'workloads':[{'name':'w'," FSQ "}]}"), mpath, dir, &conf, err) < 0)
		fail_msg("not parsed: %s", err);
	assert_int_equal(access(cache, F_OK), -1);
	spec_release(m);
	parse_then_unresolved(&h, TWO("'url':'http://127.0.0.1:1/bzImage','sha256':'" ZERO64 "'"),
			      "arms[1].url: ", "http://127.0.0.1:1/bzImage", NULL);
	assert_int_equal(h.n, 1);
	assert_non_null(strstr(h.lines, "arms[1].url: fetching http://127.0.0.1:1/bzImage"));
	/* a file:// URL to a file that is not there */
	sfmt(text, sizeof(text), TWO("'url':'file://%s/k/absent','sha256':'" ZERO64 "'"), dir);
	parse_then_unresolved(&h, text, "arms[1].url: ", "not found", NULL);
	/* a package, with no images/build.sh to build it */
	parse_then_unresolved(&h, TWO("'package':'linux-image-test'"), "arms[1].package: ",
			      "needs images/build.sh", NULL);
	assert_non_null(strstr(h.lines, "arms[1].package: linux-image-test: built once"));
	/* fio streams are checked by fio, which the fake images tree lacks */
	parse_then_unresolved(&h, ONE_ARM("{'name':'w'," FSQ "},{'name':'f','files':[{'name':'d',"
					  "'mib':8}],'streams':[{'kind':'fio','args':'--name=x'}]}"),
			      "workloads[1].streams[0]: fio is not built", NULL);
	/* the data disk against the free space where results live: 2 x 16 TiB */
	parse_then_unresolved(&h, ONE_ARM("{'name':'w','files':[{'name':'a','mib':16777216},"
					  "{'name':'b','mib':16777216}],"
					  "'streams':[{'kind':'random','file':'a'}]}"),
			      "workloads[0].files: their data disk needs", NULL);

	/* a matrix that resolves: the same identity either way */
	if (spec_parse(m, jq(TWO("'kernel':'k/bzImage'")), mpath, dir, &conf, err) < 0)
		fail_msg("not parsed: %s", err);
	if (spec_resolve(m, &conf, hear, &h, err) < 0)
		fail_msg("not resolved: %s", err);
	assert_int_equal(m->unresolved, 0);
	assert_string_equal(m->arms[1].files[0].release, RELEASE);
	assert_non_null(strstr(m->arms[1].files[0].kernel, "/k/bzImage"));
	if (load_at(again, mpath, jq(TWO("'kernel':'k/bzImage'"))) < 0)
		fail_msg("not loaded: %s", err);
	assert_string_equal(again->hash, m->hash);
	assert_string_equal(again->canonical, m->canonical);
	done(again);
	done(m);
#undef TWO
}

/* A results directory of its own (earlier tests downloaded into the other), put back after. */
static char saved_results[PATH_MAX];

static int apart_setup(void **state)
{
	(void)state;
	memcpy(saved_results, conf.results, sizeof(saved_results));
	sfmt(conf.results, sizeof(conf.results), "%s/apart", dir);
	mkdirs("%s", conf.results);
	return 0;
}

static int apart_teardown(void **state)
{
	(void)state;
	memcpy(conf.results, saved_results, sizeof(saved_results));
	return 0;
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
				  "accel = tcg\n"
				  "tcg_thread = multi\n",
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
	assert_string_equal(c.tcg_thread, "multi");
	assert_string_equal(c.uri, "");
	assert_int_equal(conf_uri(&c, uri, sizeof(uri), err), 0);
	assert_string_equal(uri, "qemu:///embed?root=/var/tmp/results/libvirt");
	/* a URI that does not fit is an error, never a cut URI to connect to */
	assert_int_equal(conf_uri(&c, uri, 16, err), -1);
	assert_non_null(strstr(err, "is 16 bytes or longer"));

	/* kernel_dirs: absolute entries as they are, relative ones from the file's directory */
	assert_int_equal(conf_run(&c, path, "kernel_dirs =  /srv/kernels\tk  /a/b \n", out,
				  sizeof(out)), 0);
	sfmt(want, sizeof(want), "/srv/kernels %s/k /a/b", dir);
	assert_string_equal(c.kernel_dirs, want);
	assert_int_equal(conf_run(&c, path, "kernel_dirs =\n", out, sizeof(out)), 0);
	assert_string_equal(c.kernel_dirs, "");

	/* a last line without its newline counts */
	assert_int_equal(conf_run(&c, path, "uri = qemu:///system\nvcpus = 3", out, sizeof(out)), 0);
	assert_int_equal(c.vcpus, 3);
	assert_string_equal(c.uri, "qemu:///system");
	assert_int_equal(conf_uri(&c, uri, sizeof(uri), err), 0);
	assert_string_equal(uri, "qemu:///system");
}

/* host lines: each machine a libvirt URI by allow-list, its slots, archs and storage */
static void test_conf_hosts(void **state)
{
	static const struct { const char *line, *why; } bad[] = {
		{ "host = a", "expected NAME URI" },
		{ "host = A qemu:///system", "name 'A'" },
		{ "host = a qemu+ext:///system?command=/bin/sh", "expected qemu:// or" },
		{ "host = a qemu+ssh://box/system?command=/bin/sh", "parameter 'command=/bin/sh'" },
		{ "host = a qemu+ssh://box/system?netcat=nc", "parameter 'netcat=nc'" },
		{ "host = a qemu+ssh://u:pw@box/system", "no password" },
		{ "host = a qemu+ssh://box/system;id", "character 0x3b" },
		{ "host = a qemu+ssh://box/other", "the path /system or /session" },
		{ "host = a qemu+ssh://box/systemd", "the path /system or /session" },
		{ "host = a qemu://box/system", "names no host" },
		{ "host = a qemu:///system slots=0", "slots: expected 1..64" },
		{ "host = a qemu:///system arch=riscv64", "expected x86_64 or aarch64" },
		/* six make 41 bytes: refused (cut at five, the sixth was written past the list) */
		{ "host = a qemu:///system arch=x86_64,x86_64,x86_64,x86_64,x86_64,x86_64",
		  "archs: at most 31 characters" },
		{ "host = a qemu:///system storage=rel/dir", "storage: expected an absolute" },
		{ "host = a qemu:///system storage=/a/../etc", "storage: expected an absolute" },
		{ "host = a qemu:///system colour=red", "expected slots=N" },
		{ "host = a embedded\nhost = a qemu:///system", "'a' is named twice" },
		{ "uri = qemu+ssh://box/system?command=x", "parameter 'command=x'" },
	};
	const struct conf_host *h;
	struct conf_host one;
	struct conf c;
	char path[PATH_MAX], out[4096], uri[PATH_MAX * 2], key[PATH_MAX], text[PATH_MAX * 3];
	size_t i;

	(void)state;
	sfmt(path, sizeof(path), "%s/harness.conf", dir);
	sfmt(key, sizeof(key), "%s/hostkey", dir);
	write_text(key, "key\n");
	sfmt(text, sizeof(text), "host = here embedded slots=2\n"
	     "host = box1 qemu+ssh://bench@box1.lab/system?keyfile=%s&no_tty=1 "
	     "slots=4 arch=x86_64,aarch64 storage=/srv/pool\n"
	     "host = pi qemu+tls://10.0.0.7/system arch=aarch64\n"
	     "host = lo qemu+unix:///session?socket=/tmp/s/libvirt-sock\n"
	     "key_dirs = %s\n", key, dir);
	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(conf_hosts(&c, &one, &h), 4);
	assert_string_equal(h[0].name, "here");
	assert_string_equal(h[0].uri, "");
	assert_int_equal(h[0].slots, 2);
	assert_int_equal(conf_host_uri(&c, &h[0], uri, sizeof(uri), err), 0);
	assert_non_null(strstr(uri, "qemu:///embed?root="));
	sfmt(text, sizeof(text), "qemu+ssh://bench@box1.lab/system?keyfile=%s&no_tty=1", key);
	assert_string_equal(h[1].uri, text);
	assert_string_equal(h[1].archs, "x86_64 aarch64");
	assert_string_equal(h[1].storage, "/srv/pool");
	assert_int_equal(h[1].slots, 4);
	assert_string_equal(h[2].archs, "aarch64");
	assert_int_equal(h[2].slots, 1);
	assert_string_equal(h[2].storage, "/var/lib/mglru-harness/pool");
	assert_string_equal(h[3].uri, "qemu+unix:///session?socket=/tmp/s/libvirt-sock");

	/* no host line: this machine alone, through conf's uri */
	assert_int_equal(conf_run(&c, path, "vcpus = 1\n", out, sizeof(out)), 0);
	assert_int_equal(conf_hosts(&c, &one, &h), 1);
	assert_ptr_equal(h, &one);
	assert_string_equal(one.uri, "");
	assert_true(one.name[0] != '\0');

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(conf_run(&c, path, bad[i].line, out, sizeof(out)), -1);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': got '%s', expected '%s'", bad[i].line, err, bad[i].why);
		assert_non_null(strstr(err, "harness.conf:"));
	}
}

/* A host URI's query by allow-list, each value %-decoded and held to its syntax. */
static void test_conf_uri_params(void **state)
{
	static const struct { const char *uri, *why; } bad[] = {
		/* libvirt's netcat command leaves socket= unquoted for the remote shell */
		{ "qemu+ssh://h/system?socket=%27%3Btouch%20%2Ftmp%2FX%3B%27",
		  "parameter 'socket': expected an absolute path of A-Za-z0-9._/- without '..'" },
		{ "qemu+ssh://h/system?socket=/a/%2E%2E/b", "parameter 'socket': expected" },
		{ "qemu+ssh://h/system?socket=relative/sock", "parameter 'socket': expected" },
		{ "qemu+ssh://h/system?socket=/a%24%28id%29", "parameter 'socket': expected" },
		{ "qemu+ssh://h/system?command=/bin/sh", "parameter 'command=/bin/sh'" },
		{ "qemu+ssh://h/system?netcat=nc", "parameter 'netcat=nc'" },
		{ "qemu+ssh://h/system?name=qemu:///system", "parameter 'name=qemu:///system'" },
		{ "qemu+ssh://h/system?comm%61nd=x", "parameter 'comm%61nd=x'" },
		{ "qemu+ssh://h/system?socket=/a%2", "'%' not followed by two hex digits" },
		{ "qemu+ssh://h/system?socket=/a%zz", "'%' not followed by two hex digits" },
		{ "qemu+ssh://h/system?socket=/a%00b", "'%' not followed by two hex digits" },
		{ "qemu+ssh://h/system?no_tty=yes", "parameter 'no_tty': expected one of 0|1" },
		{ "qemu+ssh://h/system?mode=fast", "expected one of auto|legacy|direct" },
		{ "qemu+ssh://h/system?proxy=%2Fbin%2Fsh", "expected one of auto|netcat|native" },
		{ "qemu+libssh://h/system?sshauth=agent,password", "a comma-separated list of" },
		{ "qemu+ssh://h/system?socket=/a&socket=/b", "'socket' given twice" },
		{ "qemu+tls://h/system?keyfile=/k", "parameter 'keyfile=/k' is not one" },
		{ "qemu+ssh://h/system?socket", "expected NAME=VALUE" },
		{ "qemu+ssh://h/system?", "no parameter after it" },
		/* user and host: plain characters, never an option to ssh */
		{ "qemu+ssh://-oProxyCommand=x/system", "expected a host of A-Za-z0-9.-" },
		{ "qemu+ssh://-oProxyCommand=x@h/system", "expected a user of A-Za-z0-9._-" },
		{ "qemu+ssh://b%65nch@h/system", "expected a user" },
		{ "qemu+ssh://h%2Eevil/system", "expected a host" },
		{ "qemu+ssh://a@b@h/system", "expected one '@' at most" },
		{ "qemu+ssh://h:99999/system", "expected a host" },
	};
	char path[PATH_MAX], keys[PATH_MAX], key[PATH_MAX], text[PATH_MAX * 3], out[4096];
	struct conf c;
	size_t i;

	(void)state;
	sfmt(path, sizeof(path), "%s/harness.conf", dir);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sfmt(text, sizeof(text), "host = a %s\n", bad[i].uri);
		assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), -1);
		if (!strstr(err, bad[i].why) || strncmp(err, path, strlen(path)) ||
		    !strstr(err, ":1: host 'a': ") || strchr(err, '\n'))
			fail_msg("'%s': got '%s', expected '%s'", bad[i].uri, err, bad[i].why);
		assert_int_equal(conf_uri_check(bad[i].uri, err), -1);
	}

	/* the good one: the daemon's socket there, a key inside key_dirs */
	sfmt(keys, sizeof(keys), "%s/keys", dir);
	assert_int_equal(mkdir(keys, 0700), 0);
	sfmt(key, sizeof(key), "%s/lab", keys);
	write_text(key, "-----BEGIN OPENSSH PRIVATE KEY-----\n");
	sfmt(text, sizeof(text), "host = box1 qemu+ssh://bench@box1.lab:22/system?"
	     "socket=/var/run/libvirt/libvirt-sock&keyfile=%s&no_tty=1&mode=legacy&proxy=netcat\n"
	     "host = box2 qemu+libssh2://10.0.0.2/system?keyfile=%s&sshauth=agent,privkey"
	     "&known_hosts_verify=normal\n"
	     "key_dirs = %s\n", key, key, keys);
	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), 0);
	assert_string_equal(out, "");

	/* keyfile outside key_dirs, as written or through a symlink: refused by name */
	sfmt(text, sizeof(text), "key_dirs = %s\nhost = a qemu+ssh://h/system?keyfile=/etc/passwd\n",
	     keys);
	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), -1);
	sfmt(text, sizeof(text), "%s:2: host 'a': URI parameter 'keyfile': '/etc/passwd' is "
	     "outside the directories ssh and TLS files may come from (key_dirs in harness.conf: %s)",
	     path, keys);
	assert_string_equal(err, text);
	sfmt(key, sizeof(key), "%s/evil", keys);
	assert_int_equal(symlink("/etc/passwd", key), 0);
	sfmt(text, sizeof(text), "host = a qemu+ssh://h/system?keyfile=%s\nkey_dirs = %s\n", key,
	     keys);
	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), -1);
	if (!strstr(err, ":1: host 'a': URI parameter 'keyfile': ") ||
	    !strstr(err, "(resolving to /etc/passwd) is outside"))
		fail_msg("symlinked keyfile: '%s'", err);
	/* the same key_dirs rule for uri = */
	sfmt(text, sizeof(text), "key_dirs = %s\nuri = qemu+ssh://h/system?keyfile=%s/../x\n",
	     keys, keys);
	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), -1);
	assert_non_null(strstr(err, ":2: 'uri': URI parameter 'keyfile': expected"));
	sfmt(text, sizeof(text), "key_dirs = %s\nuri = qemu+ssh://h/system?keyfile=%s/none\n",
	     keys, keys);
	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), -1);
	assert_non_null(strstr(err, ":2: 'uri': URI parameter 'keyfile': "));
	assert_non_null(strstr(err, "No such file"));
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
	assert_string_equal(c.tcg_thread, "auto");
	assert_int_equal(c.bisections_max, 8);
	sfmt(want, sizeof(want), "%s/results", dir);
	assert_string_equal(conf.results, want);
}

/* harnessd with a TCP listener needs kernel_dirs: network clients choose base_dir. */
static void test_conf_daemon(void **state)
{
	struct conf c;

	(void)state;
	conf_defaults(&c, dir);
	assert_int_equal(conf_check_daemon(&c, NULL, err), 0);
	sfmt(c.api_tcp, sizeof(c.api_tcp), "127.0.0.1:7000");
	sfmt(c.api_token, sizeof(c.api_token), "t0ken");
	assert_int_equal(conf_check_daemon(&c, "/etc/h.conf", err), -1);
	assert_string_equal(err, "/etc/h.conf: api_tcp is set but kernel_dirs is empty: network "
			    "clients choose where a matrix's paths start, so kernel_dirs must name "
			    "the directories kernels may come from");
	assert_int_equal(conf_check_daemon(&c, NULL, err), -1);
	assert_non_null(strstr(err, "harness.conf: api_tcp"));
	sfmt(c.kernel_dirs, sizeof(c.kernel_dirs), "/srv/kernels");
	/* source arms' trees and patches: their own directories, named too */
	assert_int_equal(conf_check_daemon(&c, NULL, err), -1);
	assert_non_null(strstr(err, "api_tcp is set but source_dirs is empty"));
	sfmt(c.source_dirs, sizeof(c.source_dirs), "/srv/src");
	assert_int_equal(conf_check_daemon(&c, NULL, err), 0);
}

/*
 * One bad line at line lineno: -1, and "path:lineno: want" in err, said once:
 * nothing on stderr (the caller prints err; #27 printed it twice).
 */
static void conf_refuse_line(const char *path, const char *text, int lineno, const char *want)
{
	struct conf c;
	char line[PATH_MAX + 256], out[4096];

	assert_int_equal(conf_run(&c, path, text, out, sizeof(out)), -1);
	sfmt(line, sizeof(line), "%s:%d: %s", path, lineno, want);
	if (strncmp(err, line, strlen(line)))
		fail_msg("err '%s' does not start with '%s'", err, line);
	if (out[0])
		fail_msg("stderr '%s': the line is said in err, once", out);
}

#define TOKEN_K "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"

/* api_token: at least CONF_TOKEN_MIN characters once set; empty leaves TCP off. */
static void test_conf_token(void **state)
{
	char path[PATH_MAX], line[256], tok[CONF_TOKEN_MIN + 1], out[4096];
	struct conf c;

	(void)state;
	sfmt(path, sizeof(path), "%s/token.conf", dir);
	conf_refuse_line(path, "api_token = x\n", 1,
			 "'api_token': expected at least 32 characters, got 1");
	memset(tok, 'k', CONF_TOKEN_MIN - 1);
	tok[CONF_TOKEN_MIN - 1] = '\0';
	sfmt(line, sizeof(line), "api_token = %s\n", tok);
	conf_refuse_line(path, line, 1, "'api_token': expected at least 32 characters, got 31");
	tok[CONF_TOKEN_MIN - 1] = 'k';
	tok[CONF_TOKEN_MIN] = '\0';
	sfmt(line, sizeof(line), "api_token = %s\n", tok);
	assert_int_equal(conf_run(&c, path, line, out, sizeof(out)), 0);
	assert_string_equal(c.api_token, tok);
	assert_int_equal(conf_run(&c, path, "api_token =\n", out, sizeof(out)), 0);
	assert_string_equal(c.api_token, "");
}

/* api_token of visible characters only: a space, DEL or a control byte is refused. */
static void test_conf_token_chars(void **state)
{
	static const char *const bad[] = { " ", "\x7f", "\x01", "\xc3\xa9" };
	char path[PATH_MAX], line[256], want[96];
	size_t i;

	(void)state;
	sfmt(path, sizeof(path), "%s/token.conf", dir);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sfmt(line, sizeof(line), "api_token = %.20s%s%.20s\n", TOKEN_K, bad[i], TOKEN_K);
		sfmt(want, sizeof(want), "'api_token': expected visible characters (0x21-0x7e), "
		     "got 0x%02x at 21", (unsigned char)bad[i][0]);
		conf_refuse_line(path, line, 1, want);
	}
}

/*
 * key_dirs: each an absolute directory that exists, not the root, of
 * printable characters; the refused one named.
 */
static void test_conf_key_dirs(void **state)
{
	char path[PATH_MAX], keys[PATH_MAX], line[PATH_MAX * 2], out[4096];
	struct conf c;

	(void)state;
	sfmt(path, sizeof(path), "%s/keys.conf", dir);
	sfmt(keys, sizeof(keys), "%s/keydir", dir);
	assert_int_equal(mkdir(keys, 0700), 0);
	conf_refuse_line(path, "key_dirs = keydir\n", 1,
			 "'key_dirs': 'keydir': expected an absolute path");
	conf_refuse_line(path, "key_dirs = /\n", 1, "'key_dirs': '/': expected a directory "
			 "below the root");
	conf_refuse_line(path, "key_dirs = //.\n", 1, "'key_dirs': '//.': expected a directory "
			 "below the root");
	sfmt(line, sizeof(line), "key_dirs = %s %s/none\n", keys, dir);
	sfmt(out, sizeof(out), "'key_dirs': '%s/none': No such file or directory", dir);
	conf_refuse_line(path, line, 1, out);
	sfmt(line, sizeof(line), "key_dirs = %s/a\x01" "b\n", dir);
	conf_refuse_line(path, line, 1, "'key_dirs': expected printable characters, got 0x01");
	sfmt(line, sizeof(line), "key_dirs = %s/keys.conf\n", dir);
	sfmt(out, sizeof(out), "'key_dirs': '%s/keys.conf': expected a directory", dir);
	conf_refuse_line(path, line, 1, out);
	sfmt(line, sizeof(line), "key_dirs = %s\n", keys);
	assert_int_equal(conf_run(&c, path, line, out, sizeof(out)), 0);
	assert_string_equal(c.key_dirs, keys);
}

/* A key given twice is refused, both lines named (host lines may repeat). */
static void test_conf_twice(void **state)
{
	char path[PATH_MAX];
	struct conf c;

	(void)state;
	sfmt(path, sizeof(path), "%s/twice.conf", dir);
	conf_refuse_line(path, "vcpus = 2\n# a comment\nmemory_mib = 512\nvcpus = 2\n", 4,
			 "'vcpus': given twice, on lines 1 and 4");
	conf_refuse_line(path, "uri =\nstart = boot\nuri = qemu:///system\n", 3,
			 "'uri': given twice, on lines 1 and 3");
	/* the shipped one, which names every key (run from the repo root) */
	if (conf_load(&c, "harness.conf", err) < 0)
		fail_msg("the shipped harness.conf: %s", err);
}

/* path has mode (permission bits, setgid) and group gid. */
static void assert_mode(const char *path, unsigned mode, gid_t gid)
{
	struct stat st;

	if (stat(path, &st) < 0)
		fail_msg("stat '%s': %m", path);
	if ((st.st_mode & 07777) != mode || st.st_gid != gid)
		fail_msg("%s: mode %o group %u, expected %o group %u", path, st.st_mode & 07777,
			 (unsigned)st.st_gid, mode, (unsigned)gid);
}

/* A fresh results directory as conf_setup makes it, and what a run adds to it. */
static void check_fresh_results(const char *conf_text, unsigned dmode, unsigned fmode, gid_t gid)
{
	char path[PATH_MAX], db[PATH_MAX], err2[ERR_MAX];
	const char *const sqlite_files[] = { "", "-wal", "-shm" };
	struct store *s = NULL;
	struct conf c;
	size_t i;

	sfmt(path, sizeof(path), "%s/perm.conf", dir);
	write_text(path, conf_text);
	assert_int_equal(conf_setup(&c, path, err2), 0);
	assert_mode(c.results, dmode, gid);
	sfmt(db, sizeof(db), "%s/harness.db", c.results);
	assert_int_equal(store_open(db, &s, err2), 0);
	for (i = 0; i < ARRAY_SIZE(sqlite_files); i++) {   /* while the connection is open */
		sfmt(path, sizeof(path), "%s%s", db, sqlite_files[i]);
		assert_mode(path, fmode, gid);
	}
	store_close(s);
	/* a run's directory and its console log, as the runner makes them */
	sfmt(path, sizeof(path), "%s/runs/1", c.results);
	assert_int_equal(mkdir_p(path, err2), 0);
	assert_mode(path, dmode, gid);
	sfmt(path, sizeof(path), "%s/runs/1/console.log", c.results);
	write_text(path, "boot\n");
	assert_mode(path, fmode, gid);
}

/*
 * A results directory the harness creates is its owner's: 0700, the database
 * 0600 (and its -wal, -shm); with api_group 02750 owned by the group, 0640.
 */
static void test_results_private(void **state)
{
	struct group gr, *g = NULL;
	char buf[4096];
	mode_t old = umask(022);

	(void)state;
	check_fresh_results("results = fresh/results\n", 0700, 0600, getegid());
	if (getgrnam_r("daemon", &gr, buf, sizeof(buf), &g) == 0 && g)
		check_fresh_results("results = fresh-g/results\napi_group = daemon\n", 02750, 0640,
				    g->gr_gid);
	else
		print_message("skipping api_group: no group 'daemon'\n");
	umask(old);
}

static void test_conf_bad(void **state)
{
	struct conf c;
	char path[PATH_MAX], want[PATH_MAX + 64], out[4096];
	int i;

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
	conf_refuse_line(path, "bisections_max = 0\n", 1,
			 "'bisections_max': expected 1..1000, got 0");
	conf_refuse_line(path, "vcpus 2\n", 1, "expected 'key = value'");
	conf_refuse_line(path, "accel = fast\n", 1, "'accel': expected one of auto kvm tcg, got 'fast'");
	conf_refuse_line(path, "tcg_thread = sing\n", 1,
			 "'tcg_thread': expected one of auto single multi, got 'sing'");
	conf_refuse_line(path, "tcg_thread = \n", 1, "'tcg_thread': expected one of");
	conf_refuse_line(path, "x = 1", 1, "unknown key 'x'");   /* no final newline */
	/* relative kernel_dirs grow by the directory each: past the buffer, refused */
	memset(want, 0, sizeof(want));
	memcpy(want, "kernel_dirs =", 13);
	for (i = 0; i < 800; i++)
		memcpy(want + 13 + 2 * i, " k", 2);
	conf_refuse_line(path, want, 1, "'kernel_dirs': longer than");

	/* an unknown key and a bad number in one file: each on stderr once, in
	 * order, and err says how many (the caller prints it: no line twice) */
	assert_int_equal(conf_run(&c, path,
				  "vcpus = 2\n"
				  "colour = blue\n"
				  "# fine\n"
				  "memory_mib = 12x\n",
				  out, sizeof(out)), -1);
	sfmt(want, sizeof(want), "%s: 2 lines refused, each above", path);
	assert_string_equal(err, want);
	sfmt(want, sizeof(want), "%s:2: unknown key 'colour'\n"
	     "%s:4: 'memory_mib': expected a whole number, got '12x'\n", path, path);
	assert_string_equal(out, want);

	/* a missing file */
	sfmt(path, sizeof(path), "%s/none.conf", dir);
	assert_int_equal(conf_load(&c, path, err), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "cannot open"));
}


/*
 * swapcheck_config against configs in the forms of Debian's 6.1 and 6.12
 * cloud kernels (their lines as those files have them): zram's compressors
 * from the crypto API before 6.12 and from its own backends after; zswap
 * built in or not at all.
 */
static void test_swapcheck(void **state)
{
	static const char k61[] =
		"CONFIG_SWAP=y\nCONFIG_ZSMALLOC=m\nCONFIG_ZRAM=m\nCONFIG_ZRAM_DEF_COMP=\"lzo-rle\"\n"
		"CONFIG_CRYPTO_LZO=m\nCONFIG_CRYPTO_LZ4=m\nCONFIG_CRYPTO_ZSTD=m\n"
		"# CONFIG_CRYPTO_842 is not set\n# CONFIG_ZSWAP is not set\n";
	static const char k612[] =
		"CONFIG_SWAP=y\nCONFIG_ZSMALLOC=m\nCONFIG_ZRAM=m\nCONFIG_ZRAM_BACKEND_LZ4=y\n"
		"CONFIG_ZRAM_BACKEND_ZSTD=y\n# CONFIG_ZRAM_BACKEND_LZO is not set\n"
		"CONFIG_CRYPTO_LZO=y\nCONFIG_CRYPTO_LZ4=m\nCONFIG_ZSWAP=y\nCONFIG_ZBUD=m\n";
	static const struct {
		const char *config, *kind, *comp, *pool;
		int want;
		const char *why;
	} cases[] = {
		{ k61, "zram", "lz4", NULL, 0, NULL },
		{ k61, "zram", "lzo-rle", NULL, 0, NULL },
		{ k61, "zram", "842", NULL, 1, "compressor 842 needs CONFIG_CRYPTO_842" },
		{ k61, "zswap", NULL, NULL, 1, "zswap swap needs CONFIG_ZSWAP=y" },
		{ k61, "disk", NULL, NULL, 0, NULL },
		{ k612, "zram", "zstd", NULL, 0, NULL },
		/* lzo is in the crypto API, but 6.12's zram has no lzo backend */
		{ k612, "zram", "lzo", NULL, 1, "compressor lzo needs CONFIG_ZRAM_BACKEND_LZO" },
		{ k612, "zswap", "lzo", "zbud", 0, NULL },
		{ k612, "zswap", "lz4", "z3fold", 1, "zswap_pool z3fold needs CONFIG_Z3FOLD" },
		{ "CONFIG_ZRAM=m\n", "zram", NULL, NULL, 1, "zram swap needs CONFIG_SWAP=y" },
		{ "CONFIG_SWAP=y\nCONFIG_ZRAM=y\n", "zram", "default", NULL, 0, NULL },
	};
	char path[PATH_MAX], why[160];
	struct proto_swap w;
	size_t i;
	int k;

	(void)state;
	sfmt(path, sizeof(path), "%s/config", dir);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		write_text(path, cases[i].config);
		memset(&w, 0, sizeof(w));
		for (k = 0; proto_swap_kind_names[k]; k++)
			if (!strcmp(proto_swap_kind_names[k], cases[i].kind))
				w.kind = (unsigned)k;
		for (k = 0; cases[i].comp && proto_swap_compressors[k]; k++)
			if (!strcmp(proto_swap_compressors[k], cases[i].comp))
				w.compressor = (unsigned)k;
		for (k = 0; cases[i].pool && proto_swap_zpools[k]; k++)
			if (!strcmp(proto_swap_zpools[k], cases[i].pool))
				w.zpool = (unsigned)k;
		why[0] = '\0';
		if (swapcheck_config(&w, path, why, sizeof(why)) != cases[i].want)
			fail_msg("case %zu (%s %s): expected %d, why '%s'", i, cases[i].kind,
				 cases[i].comp ? cases[i].comp : "-", cases[i].want, why);
		if (cases[i].why)
			assert_string_equal(why, cases[i].why);
	}
	/* no config file: not known, the guest says at run time */
	sfmt(path, sizeof(path), "%s/no-such-config", dir);
	assert_int_equal(swapcheck_config(&w, path, why, sizeof(why)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_valid_more),
		cmocka_unit_test(test_example_quick),
		cmocka_unit_test(test_kernel_by_path),
		cmocka_unit_test(test_kernel_confined),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_file_limit),
		cmocka_unit_test(test_unknown_key_cases),
		cmocka_unit_test(test_missing_keys),
		cmocka_unit_test(test_missing_kernel),
		cmocka_unit_test(test_memcg_too_big),
		cmocka_unit_test(test_disk_space),
		cmocka_unit_test(test_reps),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_arm_fields),
		cmocka_unit_test(test_workload_fields),
		cmocka_unit_test_setup(test_preset_plain, presets_setup),
		cmocka_unit_test_setup(test_preset_expand_arrays, presets_setup),
		cmocka_unit_test(test_job_arrays),
		cmocka_unit_test(test_job_arrays_bad),
		cmocka_unit_test(test_verdict_keys),
		cmocka_unit_test(test_arm_arrays),
		cmocka_unit_test(test_arm_tag),
		cmocka_unit_test_setup(test_preset_scale, presets_setup),
		cmocka_unit_test_setup(test_preset_time_scale, presets_setup),
		cmocka_unit_test_setup(test_preset_refusals, presets_setup),
		cmocka_unit_test_setup(test_preset_max_cells, presets_setup),
		cmocka_unit_test_setup(test_preset_expand_direct, presets_setup),
		cmocka_unit_test(test_fio_stream),
		cmocka_unit_test_setup_teardown(test_parse_apart, apart_setup, apart_teardown),
		cmocka_unit_test(test_conf_good),
		cmocka_unit_test(test_conf_hosts),
		cmocka_unit_test(test_conf_uri_params),
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_daemon),
		cmocka_unit_test(test_conf_bad),
		cmocka_unit_test(test_results_private),
		cmocka_unit_test(test_swapcheck),
		cmocka_unit_test(test_conf_token),
		cmocka_unit_test(test_conf_token_chars),
		cmocka_unit_test(test_conf_key_dirs),
		cmocka_unit_test(test_conf_twice),
		cmocka_unit_test(test_cells_kept),
		cmocka_unit_test(test_calibrate_spec),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
