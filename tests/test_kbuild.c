/* test_kbuild.c -- unit tests for harness/kbuild/: patch series read from b4
 * and format-patch mboxes, directories and quilt series (hostile ones too),
 * config lines and the survived-symbol check, source arm keys in a matrix,
 * and the failures a build meets before it compiles, on a real git tree: a
 * series of the most patches, a download that fails, a failed tool's lines. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/proc.h"
#include "base/textline.h"
#include "kbuild/kbuild.h"
#include "kbuild/kconfig.h"
#include "kbuild/series.h"
#include "conf/conf.h"
#include "daemon/buildgate.h"
#include "spec/gitconfine.h"
#include "spec/spec.h"
#include "store/store.h"
#include "testlib.h"

static char dir[PATH_MAX];
static struct conf conf;

static int setup(void **state)
{
	(void)state;
	fixture_dir(dir, "test_kbuild", &conf);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fixture_rmdir(dir);
}

/* Two messages as b4 am writes them, after a cover letter without a diff. */
#define PATCH(n, subj, id, file, old, new) \
	"From git@z Thu Jan  1 00:00:00 1970\n" \
	"Subject: [PATCH v4 " n "/2] " subj "\n" \
	"From: A Developer <dev@example.org>\n" \
	"Message-Id: <" id ">\n" \
	"\n" \
	"Why it helps.\n" \
	"\n" \
	"From the mailing list, a line that starts with From but is no header\n" \
	"---\n" \
	"diff --git a/" file " b/" file "\n" \
	"--- a/" file "\n" \
	"+++ b/" file "\n" \
	"@@ -1,3 +1,3 @@\n" \
	" one\n" \
	"-" old "\n" \
	"+" new "\n" \
	" three\n" \
	"-- \n" \
	"2.39.5\n" \
	"\n"

static const char cover[] =
	"From git@z Thu Jan  1 00:00:00 1970\n"
	"Subject: [PATCH v4 0/2] mm: a series\n"
	"Message-Id: <cover@example.org>\n"
	"\n"
	"The cover letter.\n"
	"\n";

static const char two[] =
	PATCH("1", "mm: first change", "p1@example.org", "a.txt", "two", "TWO")
	PATCH("2", "mm: second\n change, folded", "p2@example.org", "b.txt", "two", "deux");

static void write_in(const char *name, const char *text, char *path)
{
	sfmt(path, PATH_MAX, "%s/%s", dir, name);
	write_text(path, text);
}

static void test_mbox(void **state)
{
	char path[PATH_MAX], text[4096], err[ERR_MAX];
	struct series s;

	(void)state;
	sfmt(text, sizeof(text), "%s%s", cover, two);
	write_in("v4.mbox", text, path);
	assert_int_equal(series_read(path, &s, err), 0);
	assert_int_equal(s.n, 2);                      /* the cover letter left out */
	assert_string_equal(s.p[0].subject, "mm: first change");
	assert_string_equal(s.p[0].msgid, "p1@example.org");
	assert_string_equal(s.p[1].subject, "mm: second change, folded");
	assert_string_equal(s.p[1].msgid, "p2@example.org");
	assert_non_null(strstr(s.p[0].text, "+TWO"));
	assert_null(strstr(s.p[0].text, "+deux"));      /* split where the second begins */
	assert_non_null(strstr(s.p[0].text, "a line that starts with From"));
	series_free(&s);
}

static void test_dir_and_quilt(void **state)
{
	char sub[PATH_MAX], path[PATH_MAX], err[ERR_MAX];
	struct series s;

	(void)state;
	mkdirs("%s/p", dir);
	sfmt(sub, sizeof(sub), "%s/p", dir);
	/* name order, whatever the directory's */
	write_in("p/0002-second.patch", PATCH("2", "two", "b@x", "b.txt", "x", "y"), path);
	write_in("p/0001-first.patch", PATCH("1", "one", "a@x", "a.txt", "x", "y"), path);
	write_in("p/notes.txt", "not a patch", path);
	assert_int_equal(series_read(sub, &s, err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.p[0].subject, "one");
	assert_string_equal(s.p[1].subject, "two");
	series_free(&s);

	/* quilt: comments, -p1, a bare diff named by its file */
	write_in("p/bare.diff", "--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-x\n+y\n", path);
	write_in("p/series", "# the order\n0002-second.patch\nbare.diff -p1\n", path);
	assert_int_equal(series_read(path, &s, err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.p[0].subject, "two");
	assert_string_equal(s.p[1].subject, "bare.diff");
	assert_string_equal(s.p[1].msgid, "");
	series_free(&s);
}

static void expect_refused(const char *name, const char *text, size_t len, const char *want)
{
	char path[PATH_MAX], err[ERR_MAX];
	struct series s;

	sfmt(path, sizeof(path), "%s/%s", dir, name);
	if (len)
		write_bytes(path, text, len);
	else
		write_text(path, text);
	assert_int_equal(series_read(path, &s, err), -1);
	if (!strstr(err, want))
		fail_msg("%s: '%s' lacks '%s'", name, err, want);
	assert_non_null(strstr(err, path));       /* the file named */
	assert_int_equal(s.n, 0);
}

static void test_hostile_series(void **state)
{
	static const char nul[] = "diff --git a/x b/x\n--- a/x\n+++ b/x\n\0@@ -1 +1 @@\n";
	char p[PATH_MAX];

	(void)state;
	expect_refused("cover.mbox", cover, 0, "no patch in it");
	expect_refused("nul.mbox", nul, sizeof(nul) - 1, "NUL byte");
	mkdirs("%s/q", dir);
	write_in("secret.patch", PATCH("1", "s", "s@x", "s.txt", "a", "b"), p);
	expect_refused("q/series", "../secret.patch\n", 0, "beside the series file");
	expect_refused("q/series", "/etc/passwd\n", 0, "beside the series file");
	write_in("q/ok.patch", PATCH("1", "s", "s@x", "s.txt", "a", "b"), p);
	expect_refused("q/series", "ok.patch -p0\n", 0, "only -p1");
	expect_refused("q/series", "# nothing\n", 0, "names no patch");
	mkdirs("%s/empty", dir);
	sfmt(p, sizeof(p), "%s/empty", dir);
	{
		struct series s;
		char err[ERR_MAX];
		assert_int_equal(series_read(p, &s, err), -1);
		assert_non_null(strstr(err, "no *.patch or *.diff"));
	}
}

static void test_fragment_lines(void **state)
{
	static const char *const good[] = { "CONFIG_LRU_GEN=y", "CONFIG_X=n", "CONFIG_X=m",
					    "CONFIG_NR_CPUS=64", "CONFIG_BASE=0x1000",
					    "CONFIG_CMDLINE=\"console=ttyS0\"",
					    "# CONFIG_LOCALVERSION_AUTO is not set" };
	static const char *const bad[] = { "CONFIG_x=y", "CONFIG_=y", "LRU_GEN=y", "CONFIG_X",
					   "CONFIG_X=yes", "CONFIG_X=\"a\"b\"", "CONFIG_X=\"$(rm)\\\"",
					   "CONFIG_X=y\nCONFIG_Y=y", "# CONFIG_X is set",
					   "CONFIG_X=\"tab\there\"", "" };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (!kbuild_fragment_line_ok(good[i]))
			fail_msg("refused: %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (kbuild_fragment_line_ok(bad[i]))
			fail_msg("taken: %s", bad[i]);
}

static void test_config_check(void **state)
{
	char config[PATH_MAX], frag[PATH_MAX], err[ERR_MAX];

	(void)state;
	write_in("dot.config", "CONFIG_A=y\nCONFIG_B=m\n# CONFIG_C is not set\nCONFIG_D=\"x\"\n",
		 config);
	write_in("ok.fragment", "# why: a comment\nCONFIG_A=y\nCONFIG_B=m\n"
		 "# CONFIG_C is not set\n# CONFIG_E is not set\nCONFIG_D=\"x\"\n", frag);
	assert_int_equal(kconfig_check(config, frag, err), 0);
	write_in("lost.fragment", "CONFIG_A=y\nCONFIG_C=y\nCONFIG_Z=y\n", frag);
	assert_int_equal(kconfig_check(config, frag, err), -1);
	assert_non_null(strstr(err, "CONFIG_C=y did not survive olddefconfig"));   /* the first */
	assert_non_null(strstr(err, "CONFIG_C unset"));
	write_in("module.fragment", "CONFIG_B=y\n", frag);
	assert_int_equal(kconfig_check(config, frag, err), -1);
	assert_non_null(strstr(err, "has CONFIG_B=m"));
	write_in("unset.fragment", "# CONFIG_A is not set\n", frag);
	assert_int_equal(kconfig_check(config, frag, err), -1);
	assert_non_null(strstr(err, "# CONFIG_A is not set did not survive"));
}

/* Only Z is unknown to this "kernel" (as CACHESTAT_SYSCALL is to 6.1). */
static int knows_all_but_z(void *arg, const char *sym)
{
	(void)arg;
	return strcmp(sym, "Z") != 0;
}

static void test_config_check_missing_symbol(void **state)
{
	char config[PATH_MAX], frag[PATH_MAX], err[ERR_MAX], skipped[64];

	(void)state;
	write_in("dot6.1.config", "CONFIG_A=y\n# CONFIG_C is not set\n", config);
	/* a symbol the kernel lacks is not required of it, and said so ... */
	write_in("z.fragment", "CONFIG_A=y\nCONFIG_Z=y\n", frag);
	assert_int_equal(kconfig_check_defined(config, frag, knows_all_but_z, NULL, skipped,
					       sizeof(skipped), err), 0);
	assert_string_equal(skipped, "CONFIG_Z");
	/* ... one it has must still survive, absent or not set */
	write_in("y.fragment", "CONFIG_Z=y\nCONFIG_Y=y\n", frag);
	assert_int_equal(kconfig_check_defined(config, frag, knows_all_but_z, NULL, skipped,
					       sizeof(skipped), err), -1);
	assert_non_null(strstr(err, "CONFIG_Y=y did not survive"));
	write_in("c.fragment", "CONFIG_C=y\n", frag);
	assert_int_equal(kconfig_check_defined(config, frag, knows_all_but_z, NULL, skipped,
					       sizeof(skipped), err), -1);
	assert_non_null(strstr(err, "CONFIG_C=y did not survive"));
}

static void test_rev(void **state)
{
	static const char *const good[] = { "v6.12", "HEAD~3", "origin/mm-unstable", "HEAD^2",
					    "1a2b3c4d", "mm@{1}" };
	static const char *const bad[] = { "-c", "--upload-pack=x", "a..b", "a b", "$(x)", "a;b",
					   "" };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_true(kbuild_rev_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (kbuild_rev_ok(bad[i]))
			fail_msg("taken: %s", bad[i]);
}

/* ---- source arms in a matrix ---- */

#define WL "'workloads':[{'name':'w','files':[{'name':'f','mib':8}],'streams':[{'kind':" \
	"'random','file':'f'}]}]"

static int parse(const char *arms, struct matrix *m, char *err)
{
	char text[4096], label[PATH_MAX];

	sfmt(text, sizeof(text), "{'name':'s','reps':1,'arms':[%s]," WL "}", arms);
	sfmt(label, sizeof(label), "%s/s.json", dir);
	memset(m, 0, sizeof(*m));
	if (spec_parse(m, jq(text), label, dir, &conf, err) < 0) {
		print_message("spec_parse: %s\n", err);
		return -1;
	}
	return 0;
}

static void expect_spec_error(const char *arms, const char *want)
{
	struct matrix *m = calloc(1, sizeof(*m));
	char err[ERR_MAX];

	assert_non_null(m);
	if (parse(arms, m, err) == 0)
		fail_msg("taken: %s", arms);
	if (!strstr(err, want))
		fail_msg("'%s' lacks '%s'", err, want);
	free(m);
}

static void test_source_keys(void **state)
{
	struct matrix *m = calloc(1, sizeof(*m));
	char err[ERR_MAX];

	(void)state;
	assert_non_null(m);
	assert_int_equal(parse("{'name':'v','source_package':'linux-source-6.12','tag':'v',"
			       "'patches':['p/v2.mbox','p/v4.mbox'],'config':'tinyconfig',"
			       "'config_fragment':['CONFIG_LRU_GEN=y','# CONFIG_SWAP is not set']}",
			       m, err), 0);
	assert_int_equal(m->n_arms, 2);                 /* the array expands arms */
	assert_string_equal(m->arms[0].name, "v-v2");
	assert_string_equal(m->arms[1].name, "v-v4");
	assert_string_equal(m->arms[1].patches, "p/v4.mbox");
	assert_string_equal(m->arms[0].config, "tinyconfig");
	assert_string_equal(m->arms[0].fragment, "CONFIG_LRU_GEN=y\n# CONFIG_SWAP is not set");
	assert_true(m->unresolved);
	spec_release(m);
	assert_int_equal(parse("{'name':'g','source':'linux','base':'v6.12'}", m, err), 0);
	assert_string_equal(m->arms[0].config, "defconfig");    /* the default */
	spec_release(m);
	free(m);

	expect_spec_error("{'name':'a','kernel':'6.12','source':'t'}", "not both 'kernel' and 'source'");
	expect_spec_error("{'name':'a','kernel':'6.12','patches':'p.mbox'}",
			  "arms[0].patches: only with 'source' or 'source_package'");
	expect_spec_error("{'name':'a','source_package':'linux-source-6.12','base':'v6.12'}",
			  "arms[0].base: only with 'source'");
	expect_spec_error("{'name':'a','source_package':'linux-image-6.12'}",
			  "linux-source-X.Y package name");
	expect_spec_error("{'name':'a','source':'t','base':'--output=/etc/x'}",
			  "arms[0].base: expected a git revision");
	expect_spec_error("{'name':'a','source':'t','config_fragment':['CONFIG_A=y','rm -rf /']}",
			  "arms[0].config_fragment[1]: expected CONFIG_NAME");
	expect_spec_error("{'name':'a','source':'t','config_fragment':'CONFIG_A=y'}",
			  "config_fragment: expected an array");
	/* a prefix of the series (harness bisect's arms): only with patches, a count */
	expect_spec_error("{'name':'a','source_package':'linux-source-6.12','apply':1}",
			  "arms[0].apply: only with 'patches'");
	expect_spec_error("{'name':'a','source':'t','patches':'p.mbox','apply':-1}",
			  "arms[0].apply: expected 0..512");
	expect_spec_error("{'name':'a','source':'t','patches':'p.mbox','apply':'2'}",
			  "arms[0].apply: expected a whole number");
}

/* ---- before the compile, on a real git tree ---- */

static void git(const char *cwd, const char *a, const char *b, const char *c, const char *d)
{
	char *argv[] = { "git", "-C", (char *)cwd, "-c", "user.name=t", "-c", "user.email=t@t",
			 (char *)a, (char *)b, (char *)c, (char *)d, NULL };
	char err[ERR_MAX];
	int st;

	assert_int_equal(proc_run(argv, NULL, 60000, &st, err), 0);
	assert_int_equal(st, 0);
}

/* The kconfig dir of the harness's fragments, in dir. */
static void make_kconfig(char *kconfig)
{
	char p[PATH_MAX];

	sfmt(kconfig, PATH_MAX, "%s/kconfig", dir);
	mkdirs("%s", kconfig);
	sfmt(p, sizeof(p), "%s/common.config", kconfig);
	write_text(p, "CONFIG_LRU_GEN=y\n");
	sfmt(p, sizeof(p), "%s/x86_64.config", kconfig);   /* what an x86_64 build adds */
	write_text(p, "CONFIG_64BIT=y\n");
}

/* A git tree dir/name of two files at one commit, tagged base (made once); the kconfig dir beside. */
static void make_tree_named(const char *name, char *tree, char *kconfig)
{
	char p[PATH_MAX];

	sfmt(tree, PATH_MAX, "%s/%s", dir, name);
	sfmt(kconfig, PATH_MAX, "%s/kconfig", dir);
	sfmt(p, sizeof(p), "%s/.git", tree);
	if (access(p, F_OK) == 0)
		return;     /* made by an earlier test */
	mkdirs("%s", tree);
	for (const char *const *f = (const char *const[]){ "a.txt", "b.txt", NULL }; *f; f++) {
		sfmt(p, sizeof(p), "%s/%s", tree, *f);
		write_text(p, "one\ntwo\nthree\n");
	}
	git(tree, "init", "-q", NULL, NULL);
	git(tree, "add", ".", NULL, NULL);
	git(tree, "commit", "-q", "-m", "base");
	git(tree, "tag", "base", NULL, NULL);
	make_kconfig(kconfig);
}

static void make_tree(char *tree, char *kconfig)
{
	make_tree_named("linux", tree, kconfig);
}

static int tree_state(const char *tree, char *out, size_t len)
{
	char *argv[] = { "git", "-C", (char *)tree, "status", "--porcelain", "--ignored", NULL };
	char err[ERR_MAX];

	return proc_output(argv, NULL, 60000, out, len, err);
}

static void test_build_failures(void **state)
{
	char tree[PATH_MAX], kconfig[PATH_MAX], path[PATH_MAX], err[ERR_MAX], st[4096];
	struct series s;
	struct kbuild_result r;
	struct kbuild_req q = { .arch = "x86_64", .source_package = "", .base = "nope",
				.config = "tinyconfig", .fragment = "", .results = conf.results };

	(void)state;
	make_tree(tree, kconfig);
	q.source = tree;
	q.kconfig_dir = kconfig;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	assert_non_null(strstr(err, "revision 'nope' does not exist"));

	/* patch 2 of 2 does not apply: named, with its subject and first rejected hunk */
	write_in("bad.mbox", PATCH("1", "mm: fine", "f@x", "a.txt", "two", "TWO")
		 PATCH("2", "mm: stale", "s@x", "b.txt", "zwei", "deux"), path);
	assert_int_equal(series_read(path, &s, err), 0);
	q.base = "base";
	q.series = &s;
	q.n_apply = 2;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	if (!strstr(err, "patch 2/2 'mm: stale' does not apply: b.txt: first rejected hunk "
		    "@@ -1,3 +1,3 @@"))
		fail_msg("%s", err);
	/* asked again: the same answer from the cache, at once */
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	assert_non_null(strstr(err, "mm: stale"));
	assert_non_null(strstr(err, "as before"));
	/* the user's tree: nothing changed, nothing added, no new ref */
	assert_int_equal(tree_state(tree, st, sizeof(st)), 0);
	assert_string_equal(st, "");
	{
		char *argv[] = { "git", "-C", tree, "for-each-ref", "--format=%(refname)", NULL };
		assert_int_equal(proc_output(argv, NULL, 60000, st, sizeof(st), err), 0);
		assert_string_equal(st, "refs/heads/master\nrefs/tags/base");
	}
	series_free(&s);

	/* the first patch alone applies; the config step then finds no kernel tree */
	write_in("one.mbox", PATCH("1", "mm: fine", "f@x", "a.txt", "two", "TWO"), path);
	assert_int_equal(series_read(path, &s, err), 0);
	q.series = &s;
	q.n_apply = 1;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	assert_non_null(strstr(err, "make tinyconfig failed"));
	series_free(&s);

	/* a plain tree cannot take a base */
	sfmt(path, sizeof(path), "%s/plain", dir);
	mkdirs("%s", path);
	q.source = path;
	q.series = NULL;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	assert_non_null(strstr(err, "needs a git tree"));
	/* no cross compiler for an arch we cannot build */
	q.arch = "riscv64";
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	assert_non_null(strstr(err, "cannot build for arch 'riscv64'"));
}

/* The file at path holds exactly want. */
static void assert_text(const char *path, const char *want)
{
	char err[ERR_MAX], *text;
	size_t len;

	assert_int_equal(read_regular_file(path, 4096, &text, &len, err), 0);
	assert_string_equal(text, want);
	free(text);
}

/*
 * The database through a symlink: one the harness's own user made (a
 * database kept on another disk) is followed to what it names; one of
 * another user's (planted in a shared results directory) is refused.
 */
static void test_database_symlinks(void)
{
	char link[PATH_MAX], target[PATH_MAX], err[ERR_MAX];
	struct store *st;

	sfmt(link, sizeof(link), "%s/db.link", dir);
	sfmt(target, sizeof(target), "%s/elsewhere.db", dir);
	assert_int_equal(symlink("elsewhere.db", link), 0);
	if (store_open(link, &st, err) < 0)
		fail_msg("%s", err);
	store_close(st);
	assert_int_equal(access(target, F_OK), 0);
	if (geteuid() != 0)
		return;
	assert_int_equal(lchown(link, 65534, 65534), 0);
	assert_int_equal(store_open(link, &st, err), -1);
	assert_non_null(strstr(err, "a symlink owned by uid 65534, not by the harness's user: refused"));
}

/* A symlink planted in the cache (by whoever can write it) is refused, never followed. */
static void test_cache_symlinks(void **state)
{
	char tree[PATH_MAX], kconfig[PATH_MAX], victim[PATH_MAX], trees[PATH_MAX], path[PATH_MAX];
	char tmp[PATH_MAX], t[256], err[ERR_MAX], *argv[] = { "true", NULL };
	char *ls[] = { "sh", "-c", "printf %s \"$0\" | sha256sum | cut -c1-16", tree, NULL };
	struct kbuild_result r;
	struct kbuild_req q = { .arch = "x86_64", .source_package = "", .base = "base",
				.config = "tinyconfig", .fragment = "", .results = conf.results };
	struct proc_opts o = { .log_path = path, .timeout_ms = 10000 };
	int status;

	(void)state;
	make_tree(tree, kconfig);
	q.source = tree;
	q.kconfig_dir = kconfig;
	write_in("victim", "the victim's text\n", victim);
	/* a first build makes trees/<T> (and fails: no kernel tree); then required.tmp is planted */
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	sfmt(trees, sizeof(trees), "%s/%s/trees", conf.results, KBUILD_CACHE);
	assert_int_equal(proc_output(ls, NULL, 10000, t, sizeof(t), err), 0);
	sfmt(path, sizeof(path), "%s/tree-%s/required.tmp", trees, t);   /* T: the tree's path hashed */
	unlink(path);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	if (!strstr(err, "required.tmp' is a symlink, not a file: refused"))
		fail_msg("%s", err);
	assert_text(victim, "the victim's text\n");
	/* write_file: a symlink at its .tmp is refused too; without it, it writes */
	sfmt(path, sizeof(path), "%s/symlink-test.out", dir);
	sfmt(tmp, sizeof(tmp), "%s/symlink-test.out.tmp", dir);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(write_file(path, "x", 1, err), -1);
	assert_non_null(strstr(err, "symlink-test.out.tmp' is a symlink, not a file: refused"));
	assert_int_equal(unlink(tmp), 0);
	if (write_file(path, "x", 1, err) < 0)
		fail_msg("%s", err);
	assert_text(path, "x");
	/* a child's log through a symlink: refused before it runs */
	sfmt(path, sizeof(path), "%s/log", dir);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(proc_run_opts(argv, &o, &status, err), -1);
	assert_non_null(strstr(err, "it is a symlink"));
	assert_text(victim, "the victim's text\n");
	test_database_symlinks();
}

/* ---- #27: the limit of a series, and what a failed tool said ---- */

/* count patches, the i-th adding pNNN.txt at the tree's top, as one mbox at path. */
static void write_adding_series(const char *path, unsigned count)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (unsigned i = 1; i <= count; i++)
		fprintf(f, "From git@z Thu Jan  1 00:00:00 1970\n"
			"Subject: [PATCH %u/%u] add p%03u\n"
			"Message-Id: <p%u@x>\n"
			"\n"
			"---\n"
			"diff --git a/p%03u.txt b/p%03u.txt\n"
			"new file mode 100644\n"
			"--- /dev/null\n"
			"+++ b/p%03u.txt\n"
			"@@ -0,0 +1 @@\n"
			"+%u\n"
			"\n", i, count, i, i, i, i, i, i);
	assert_int_equal(fclose(f), 0);
}

/* 512 patches (the documented limit) read; 513 refused in one line naming the limit. */
static void test_series_limit(void **state)
{
	char path[PATH_MAX], err[ERR_MAX];
	struct series s;

	(void)state;
	sfmt(path, sizeof(path), "%s/512.mbox", dir);
	write_adding_series(path, SERIES_MAX_PATCHES);
	assert_int_equal(series_read(path, &s, err), 0);
	assert_int_equal(s.n, SERIES_MAX_PATCHES);
	assert_string_equal(s.p[511].subject, "add p512");
	series_free(&s);
	sfmt(path, sizeof(path), "%s/513.mbox", dir);
	write_adding_series(path, SERIES_MAX_PATCHES + 1);
	assert_int_equal(series_read(path, &s, err), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "more than 512 patches: a series holds at most 512"));
	assert_null(strchr(err, '\n'));
	/* a directory of 513 patch files: the same */
	mkdirs("%s/d513", dir);
	for (unsigned i = 0; i <= SERIES_MAX_PATCHES; i++) {
		sfmt(path, sizeof(path), "%s/d513/%04u.patch", dir, i);
		write_text(path, PATCH("1", "s", "s@x", "s.txt", "a", "b"));
	}
	sfmt(path, sizeof(path), "%s/d513", dir);
	assert_int_equal(series_read(path, &s, err), -1);
	assert_non_null(strstr(err, "more than 512 patch files: a series holds at most 512"));
}

/*
 * A tree that stands in for a kernel's: its Makefile's tinyconfig and
 * olddefconfig write O's .config, merge_config.sh joins the fragment, and
 * the compile fails at once with an error: line.
 */
static void make_fake_kernel(const char *name, char *tree, char *kconfig)
{
	char p[PATH_MAX];

	make_tree_named(name, tree, kconfig);
	sfmt(p, sizeof(p), "%s/Makefile", tree);
	write_text(p, "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n"
		   "tinyconfig:\n\t@mkdir -p $(O) && echo CONFIG_TINY=y > $(O)/.config\n"
		   "olddefconfig:\n\t@true\n"
		   "bzImage:\n\t@echo 'error: the stand-in tree compiles nothing'; false\n");
	mkdirs("%s/scripts/kconfig", tree);
	sfmt(p, sizeof(p), "%s/scripts/kconfig/merge_config.sh", tree);
	/* merge_config.sh -m -O OBJ BASE FRAGMENT */
	write_text(p, "#!/bin/sh\ncat \"$4\" \"$5\" > \"$3/.merged\" && "
		   "mv \"$3/.merged\" \"$3/.config\"\n");
	assert_int_equal(chmod(p, 0755), 0);
	git(tree, "add", ".", NULL, NULL);
	git(tree, "commit", "-q", "-m", "a stand-in kernel");
	git(tree, "tag", "-f", "base", NULL);
}

/*
 * #27: a series of exactly 512 patches, each adding a file at the top, failed
 * with "'git -C' printed more than 16383 bytes" (the build key's git ls-tree
 * into proc_output's 16 KiB): now it reaches the compile. Fails until
 * kbuild.c's build_key reads ls-tree through a file (the change in #27's notes).
 */
static void test_series_512_builds(void **state)
{
	char tree[PATH_MAX], kconfig[PATH_MAX], path[PATH_MAX], err[ERR_MAX];
	struct series s;
	struct kbuild_result r;
	struct kbuild_req q = { .arch = "x86_64", .source_package = "", .base = "base",
				.config = "tinyconfig", .fragment = "", .results = conf.results,
				.jobs = 1 };

	(void)state;
	make_fake_kernel("stand-in", tree, kconfig);
	sfmt(path, sizeof(path), "%s/512.mbox", dir);
	write_adding_series(path, SERIES_MAX_PATCHES);
	assert_int_equal(series_read(path, &s, err), 0);
	q.source = tree;
	q.kconfig_dir = kconfig;
	q.series = &s;
	q.n_apply = s.n;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	if (strstr(err, "printed more than") || !strstr(err, "the build failed") ||
	    !strstr(err, "error: the stand-in tree compiles nothing"))
		fail_msg("a 512-patch series did not reach the compile: %s", err);
	series_free(&s);
}

/* A one-patch mbox at path adding file (a path in the tree) with one line. */
static void write_adding_one(const char *path, const char *file)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "From git@z Thu Jan  1 00:00:00 1970\nSubject: [PATCH] add %s\n"
		"Message-Id: <%s@x>\n\n---\ndiff --git a/%s b/%s\nnew file mode 100644\n"
		"--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+# added\n\n", file, file, file, file,
		file);
	assert_int_equal(fclose(f), 0);
}

/* Did the build of q say its builtin config was taken as made before? */
static void keep_said(void *arg, const char *line)
{
	if (strstr(line, "config: tinyconfig as made before from the same Kconfig inputs"))
		*(int *)arg = 1;
}

static int config_reused(struct kbuild_req *q, const char *adds)
{
	char path[PATH_MAX], err[ERR_MAX];
	struct kbuild_result r;
	struct series s;
	int said = 0;

	q->tell = keep_said;
	q->arg = &said;
	q->series = NULL;
	q->n_apply = 0;
	if (adds) {
		sfmt(path, sizeof(path), "%s/adds.mbox", dir);
		write_adding_one(path, adds);
		assert_int_equal(series_read(path, &s, err), 0);
		q->series = &s;
		q->n_apply = 1;
	}
	/* the stand-in compiles nothing: each build fails after its config step */
	assert_int_equal(kbuild_build(q, &r, err), -1);
	if (!strstr(err, "error: the stand-in tree compiles nothing"))
		fail_msg("%s: not at the compile: %s", adds ? adds : "base", err);
	if (adds)
		series_free(&s);
	return said;
}

/*
 * The builtin config target's copy is kept per state of its inputs: taken
 * again for a patch that leaves them alone, made again for one that adds a
 * Kconfig file, a script Kconfig may run, or a configs/ fragment.
 */
static void test_config_cache_follows_kconfig(void **state)
{
	char tree[PATH_MAX], kconfig[PATH_MAX];
	struct kbuild_req q = { .arch = "x86_64", .source_package = "", .base = "base",
				.config = "tinyconfig", .fragment = "", .results = conf.results,
				.jobs = 1 };

	(void)state;
	make_fake_kernel("kconfig-inputs", tree, kconfig);
	q.source = tree;
	q.kconfig_dir = kconfig;
	assert_false(config_reused(&q, NULL));
	assert_true(config_reused(&q, NULL));
	assert_true(config_reused(&q, "mm/added.c"));
	assert_false(config_reused(&q, "init/Kconfig.added"));
	assert_false(config_reused(&q, "scripts/added.sh"));
	assert_false(config_reused(&q, "arch/x86/configs/added.config"));
	assert_false(config_reused(&q, "arch/x86/Makefile"));
	assert_true(config_reused(&q, "Documentation/added.rst"));
}

/*
 * A stand-in kernel that compiles: its bzImage target builds payload.c
 * through $(CC) (ccache gcc) into O's payload.o, then an image with a real
 * bzImage header whose release is 6.12.0$(LOCALVERSION), payload.o appended.
 */
static const char compiling_makefile[] =
	"VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n"
	"tinyconfig:\n\t@mkdir -p $(O) && echo CONFIG_TINY=y > $(O)/.config\n"
	"olddefconfig:\n\t@true\n"
	"$(O)/payload.o: payload.c\n\t$(CC) -c payload.c -o $@\n"
	"bzImage: $(O)/payload.o\n\tsh mkimage.sh $(O) $(LOCALVERSION)\n";

static const char mkimage_sh[] =
	"#!/bin/sh\n# mkimage.sh O LOCALVERSION: a bzImage header (HdrS, the release at 0x300)\n"
	"mkdir -p \"$1/arch/x86/boot\"\n"
	"{ head -c 514 /dev/zero; printf HdrS; head -c 8 /dev/zero; printf '\\000\\001';\n"
	"  head -c 240 /dev/zero; printf '6.12.0%s (harness@harness) #1\\000' \"$2\";\n"
	"  cat \"$1/payload.o\"; } > \"$1/arch/x86/boot/bzImage\"\n";

/* The compiling stand-in at dir/name (made once), tagged base. */
static void make_compiling_kernel(const char *name, char *tree, char *kconfig)
{
	char p[PATH_MAX];

	make_fake_kernel(name, tree, kconfig);
	sfmt(p, sizeof(p), "%s/mkimage.sh", tree);
	if (access(p, F_OK) == 0)
		return;
	write_text(p, mkimage_sh);
	sfmt(p, sizeof(p), "%s/Makefile", tree);
	write_text(p, compiling_makefile);
	sfmt(p, sizeof(p), "%s/payload.c", tree);
	write_text(p, "const char payload[] = \"clean-payload\";\n");
	git(tree, "add", ".", NULL, NULL);
	git(tree, "commit", "-q", "-m", "a stand-in kernel that compiles");
	git(tree, "tag", "-f", "base", NULL);
}

/*
 * The hostile patch, as a one-patch mbox at path: its Makefile, at the
 * compile, compiles EVIL-payload through ccache and copies that result over
 * every result in $CCACHE_DIR, and leaves an EVIL payload.o dated 2099 in O.
 */
static void write_poisoning_patch(const char *tree, const char *path)
{
	char *argv[] = { "git", "-C", (char *)tree, "format-patch", "-1", "--stdout", NULL };
	char p[PATH_MAX], err[ERR_MAX];
	char text[16384];

	sfmt(p, sizeof(p), "%s/poison.sh", tree);
	write_text(p, "#!/bin/sh\n# poison.sh O: through ccache and O, into other builds\n"
		   "echo 'const char payload[] = \"EVIL-payload\";' > /tmp/evil.c\n"
		   "$CC_ -c /tmp/evil.c -o /tmp/evil.o\n"
		   "e=$(ls -t $(find \"$CCACHE_DIR\" -name '*R') | head -1)\n"
		   "for f in $(find \"$CCACHE_DIR\" -name '*R'); do [ \"$f\" = \"$e\" ] || cp \"$e\" \"$f\"; done\n"
		   "cp /tmp/evil.o \"$1/payload.o\" && touch -d 2099-01-01 \"$1/payload.o\"\n");
	sfmt(p, sizeof(p), "%s/Makefile", tree);
	write_text(p, "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n"
		   "tinyconfig:\n\t@mkdir -p $(O) && echo CONFIG_TINY=y > $(O)/.config\n"
		   "olddefconfig:\n\t@true\n"
		   "$(O)/payload.o: payload.c\n\t$(CC) -c payload.c -o $@\n"
		   "bzImage: $(O)/payload.o\n\tCC_='$(CC)' sh poison.sh $(O)\n"
		   "\tsh mkimage.sh $(O) $(LOCALVERSION)\n");
	git(tree, "add", ".", NULL, NULL);
	git(tree, "commit", "-q", "-m", "kbuild: poison other builds");
	assert_int_equal(proc_output(argv, NULL, 60000, text, sizeof(text), err), 0);
	strcat(text, "\n");
	write_text(path, text);
	git(tree, "reset", "-q", "--hard", "base");
}

/* Build q; 1 if its image holds the EVIL payload, 0 if the clean one. */
static int poisoned(struct kbuild_req *q, const char *what)
{
	char err[ERR_MAX], *img;
	struct kbuild_result r;
	size_t len;
	int evil;

	if (kbuild_build(q, &r, err) < 0)
		fail_msg("%s: %s", what, err);
	assert_int_equal(read_regular_file(r.files.kernel, 1 << 20, &img, &len, err), 0);
	evil = memmem(img, len, "EVIL-payload", 12) != NULL;
	if (!evil && !memmem(img, len, "clean-payload", 13))
		fail_msg("%s: neither payload in %s", what, r.files.kernel);
	free(img);
	return evil;
}

/* The shared ccache's results and manifests, each "HASH  PATH" on a line. */
static void ccache_results(char *out, size_t len)
{
	char script[PATH_MAX + 128], err[ERR_MAX];
	char *argv[] = { "sh", "-c", script, NULL };

	sfmt(script, sizeof(script), "cd %s/%s/ccache && find . -type f -name '*[RM]' | sort | "
	     "xargs sha256sum", conf.results, KBUILD_CACHE);
	assert_int_equal(proc_output(argv, NULL, 60000, out, len, err), 0);
	strcat(out, "\n");
}

/* Did a build say it made its object directory anew? */
static void anew_said(void *arg, const char *line)
{
	if (strstr(line, "is dated after this build's start: the object directory is made anew"))
		*(int *)arg = 1;
}

/*
 * #48: a series' patch whose Makefile writes its own result over every
 * result in ccache and leaves an object dated 2099 changes nothing in ccache
 * (so no clean build of another tree takes it) and does not reach the same
 * tree's next clean build through its objects; its own series' next build
 * makes its object directory anew.
 */
static void test_series_cannot_poison(void **state)
{
	char tree[PATH_MAX], other[PATH_MAX], kconfig[PATH_MAX], path[PATH_MAX], err[ERR_MAX];
	char before[8192], after[8192];
	struct kbuild_req q = { .arch = "x86_64", .source_package = "", .base = "base",
				.config = "tinyconfig", .fragment = "", .results = conf.results,
				.jobs = 1 };
	struct series s;
	int anew = 0;

	(void)state;
	if (access("/usr/bin/ccache", X_OK) != 0)
		skip();
	make_compiling_kernel("clean", tree, kconfig);
	make_compiling_kernel("other", other, kconfig);
	q.kconfig_dir = kconfig;
	q.source = tree;
	assert_false(poisoned(&q, "the tree's own build"));
	sfmt(path, sizeof(path), "%s/poison.mbox", dir);
	write_poisoning_patch(tree, path);
	assert_int_equal(series_read(path, &s, err), 0);
	ccache_results(before, sizeof(before));
	assert_non_null(strstr(before, "R\n"));
	q.series = &s;
	q.n_apply = 1;
	assert_true(poisoned(&q, "the hostile series"));   /* its own kernel is its own */
	ccache_results(after, sizeof(after));
	if (strcmp(before, after))
		fail_msg("the series wrote ccache's results:\n%s\nthen:\n%s", before, after);
	q.series = NULL;
	q.n_apply = 0;
	q.source = other;
	if (poisoned(&q, "another tree's clean build"))
		fail_msg("the series reached another tree's build through ccache");
	q.source = tree;
	q.fragment = "CONFIG_OTHER=y";   /* another key: compiled in the tree's objects */
	if (poisoned(&q, "the same tree's next clean build"))
		fail_msg("the series reached the tree's next clean build through its objects");
	q.fragment = "CONFIG_THIRD=y";
	q.series = &s;
	q.n_apply = 1;
	q.tell = anew_said;
	q.arg = &anew;
	poisoned(&q, "the series again, another config");
	assert_true(anew);
	series_free(&s);
}

/* A gate that counts its calls and, when refuse is set, cannot be taken. */
struct gate_calls {
	int refuse, entered, left;
};

static int counting_gate(void *arg, int busy, char *err)
{
	struct gate_calls *g = arg;

	if (!busy) {
		g->left++;
		return 0;
	}
	g->entered++;
	return g->refuse ? errorf(err, "build gate: lock broken") : 0;
}

/* A build gate that cannot be taken stops the build before its compile; one that can is left after it. */
static void test_gate_refused_stops(void **state)
{
	char tree[PATH_MAX], kconfig[PATH_MAX], err[ERR_MAX];
	struct gate_calls g = { .refuse = 1 };
	struct kbuild_result r;
	struct kbuild_req q = { .arch = "x86_64", .source_package = "", .base = "base",
				.config = "tinyconfig", .fragment = "", .results = conf.results,
				.jobs = 1, .gate = counting_gate, .arg = &g };

	(void)state;
	make_fake_kernel("gated", tree, kconfig);
	q.source = tree;
	q.kconfig_dir = kconfig;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	if (!strstr(err, "build gate: lock broken") || strstr(err, "the build failed"))
		fail_msg("a refused gate: %s", err);
	assert_int_equal(g.entered, 1);
	assert_int_equal(g.left, 0);
	g = (struct gate_calls){ 0 };
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	assert_non_null(strstr(err, "error: the stand-in tree compiles nothing"));
	assert_int_equal(g.entered, 1);
	assert_int_equal(g.left, 1);
}

/* The daemon's gate (daemon/buildgate.c) over a results directory's build.lock. */
struct daemon_gate {
	struct buildgate g;
	struct buildlock l;
};

static int daemon_gate(void *arg, int busy, char *err)
{
	struct daemon_gate *d = arg;

	return buildgate_build(&d->g, &d->l, busy, NULL, NULL, err);
}

/*
 * #48: through harnessd's own gate: a build.lock that cannot be locked
 * stops the build before its compile, and leaves the daemon's gate open to
 * blocks; a lock that can be taken is let go after the compile.
 */
static void test_daemon_gate_error_stops(void **state)
{
	char tree[PATH_MAX], kconfig[PATH_MAX], err[ERR_MAX];
	struct daemon_gate d;
	struct kbuild_result r;
	struct kbuild_req q = { .arch = "x86_64", .source_package = "", .base = "base",
				.config = "tinyconfig", .fragment = "", .results = conf.results,
				.jobs = 1, .gate = daemon_gate, .arg = &d };
	int lock;

	(void)state;
	make_fake_kernel("daemon-gated", tree, kconfig);
	q.source = tree;
	q.kconfig_dir = kconfig;
	buildgate_init(&d.g);
	assert_int_equal(buildlock_open(&d.l, conf.results, "test_kbuild", err), 0);
	lock = d.l.lock;
	d.l.lock = 1000;   /* no such descriptor: flock fails as a broken lock would */
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	if (!strstr(err, "build gate: cannot lock") || strstr(err, "the build failed"))
		fail_msg("a gate error did not stop the compile: %s", err);
	assert_int_equal(d.g.building, 0);
	d.l.lock = lock;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	assert_non_null(strstr(err, "error: the stand-in tree compiles nothing"));
	assert_int_equal(d.l.held, 0);
	assert_int_equal(d.g.building, 0);
	buildlock_close(&d.l);
	buildgate_destroy(&d.g);
}

/*
 * #27: a package apt-get cannot download: the message carries apt-get's own
 * last lines (an API client cannot read the host's log), not only a path.
 * Fails until kbuild.c's run_argv puts them in (the change in #27's notes).
 */
static void test_apt_failure_said(void **state)
{
	char kconfig[PATH_MAX], err[ERR_MAX];
	struct kbuild_result r;
	struct kbuild_req q = { .arch = "x86_64", .source_package = "linux-source-0.0",
				.source = "", .base = "", .config = "tinyconfig", .fragment = "",
				.results = conf.results };

	(void)state;
	if (access("/usr/bin/apt-get", X_OK) != 0)
		skip();
	make_kconfig(kconfig);
	q.kconfig_dir = kconfig;
	assert_int_equal(kbuild_build(&q, &r, err), -1);
	if (!strstr(err, "apt-get download failed (exit 100): ") ||
	    !strstr(err, "Unable to locate package linux-source-0.0"))
		fail_msg("apt-get's own words missing: %s", err);
	assert_null(strstr(err, "; see /"));
	for (const char *p = err; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

/* text_tail: the last non-empty lines after an offset, in order, printable, bounded. */
static void test_text_tail(void **state)
{
	char path[PATH_MAX], out[512], small[24], link[PATH_MAX];
	static const char text[] = "before\nE: one\n\n  \t\nE: two \x1b[31mred\r\n"
				   "E: three\n\n";

	(void)state;
	sfmt(path, sizeof(path), "%s/tail.log", dir);
	write_text(path, text);
	text_tail(path, 0, 3, out, sizeof(out));
	assert_string_equal(out, "E: one | E: two ?[31mred | E: three");
	text_tail(path, 0, 1, out, sizeof(out));
	assert_string_equal(out, "E: three");
	/* from an offset: what the last command appended, nothing before it */
	text_tail(path, (long long)strlen("before\nE: one\n"), 5, out, sizeof(out));
	assert_string_equal(out, "E: two ?[31mred | E: three");
	text_tail(path, (long long)strlen(text), 3, out, sizeof(out));
	assert_string_equal(out, "");
	text_tail(path, 0, 3, small, sizeof(small));
	assert_string_equal(small, "E: one | E: two ?[31mre");
	sfmt(link, sizeof(link), "%s/tail.link", dir);
	assert_int_equal(symlink(path, link), 0);
	text_tail(link, 0, 3, out, sizeof(out));
	assert_string_equal(out, "");
	text_tail("/nonexistent/x.log", 0, 3, out, sizeof(out));
	assert_string_equal(out, "");
	/* a long line is cut at TEXT_TAIL_LINE */
	{
		char longline[TEXT_TAIL_LINE * 2 + 2];
		memset(longline, 'x', sizeof(longline) - 2);
		longline[sizeof(longline) - 2] = '\n';
		longline[sizeof(longline) - 1] = '\0';
		write_text(path, longline);
		text_tail(path, 0, 3, out, sizeof(out));
		assert_int_equal(strlen(out), TEXT_TAIL_LINE);
	}
}

/* ---- #27: config lines by allow-list; source arms confined after realpath() ---- */

/* The arm {'source':'t','config_fragment':['CONFIG_A=y', line]} as JSON, into buf. */
static void fragment_arm(const char *line, char *buf, size_t size)
{
	char esc[1024];
	size_t o = 0;

	for (const char *p = line; *p && o + 3 < sizeof(esc); p++) {
		if (*p == '"' || *p == '\\')
			esc[o++] = '\\';
		esc[o++] = *p;
	}
	esc[o] = '\0';
	sfmt(buf, size, "{'name':'a','source':'t','config_fragment':['CONFIG_A=y','%s']}", esc);
}

static void test_fragment_allow_list(void **state)
{
	static const char *const bad[][2] = {
		{ "CONFIG_INITRAMFS_SOURCE=\"$(shell id > /tmp/x)\"",
		  "CONFIG_INITRAMFS_SOURCE: expected a string without '$'" },
		{ "CONFIG_LOCALVERSION=\"$(shell id)\"", "CONFIG_LOCALVERSION: expected a string "
		  "without '$'" },
		{ "CONFIG_LOCALVERSION=\"`id`\"", "CONFIG_LOCALVERSION: expected a string without "
		  "'$', '`'" },
		{ "CONFIG_INITRAMFS_SOURCE=\"x\"",
		  "CONFIG_INITRAMFS_SOURCE names a file kbuild reads on the build host: expected \"\"" },
		{ "CONFIG_INITRAMFS_SOURCE=\"/etc\"", "CONFIG_INITRAMFS_SOURCE names a file" },
		{ "CONFIG_EXTRA_FIRMWARE=\"regulatory.db\"", "CONFIG_EXTRA_FIRMWARE names a file" },
		{ "CONFIG_EXTRA_FIRMWARE_DIR=\"/lib/firmware\"", "CONFIG_EXTRA_FIRMWARE_DIR names" },
		{ "CONFIG_MODULE_SIG_KEY=\"/root/key.pem\"",
		  "CONFIG_MODULE_SIG_KEY names a file kbuild reads on the build host: expected \"\" "
		  "or \"certs/signing_key.pem\", got" },
		{ "CONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs/k.pem\"", "CONFIG_SYSTEM_TRUSTED_KEYS names" },
		{ "CONFIG_SYSTEM_REVOCATION_KEYS=\"r.pem\"", "CONFIG_SYSTEM_REVOCATION_KEYS names" },
		{ "CONFIG_SYSTEM_BLACKLIST_HASH_LIST=\"h\"", "CONFIG_SYSTEM_BLACKLIST_HASH_LIST names" },
		{ "CONFIG_BOOT_CONFIG_EMBED_FILE=\"b\"", "CONFIG_BOOT_CONFIG_EMBED_FILE names" },
		{ "CONFIG_ACPI_CUSTOM_DSDT_FILE=\"d.hex\"", "CONFIG_ACPI_CUSTOM_DSDT_FILE names" },
		{ "CONFIG_UNUSED_KSYMS_WHITELIST=\"w\"", "CONFIG_UNUSED_KSYMS_WHITELIST names" },
		{ "CONFIG_FOO=\"/etc/shadow\"", "CONFIG_FOO: expected a string naming no path outside" },
		{ "CONFIG_FOO=\"a,/etc/shadow\"", "CONFIG_FOO: expected a string naming no path" },
		{ "CONFIG_FOO=\"../../etc/shadow\"", "CONFIG_FOO: expected a string naming no path" },
		{ "CONFIG_MODPROBE_PATH=\"/sbin/../tmp/x\"", "CONFIG_MODPROBE_PATH: expected a "
		  "string naming no path outside the tree (none absolute, no '..')" },
		{ "CONFIG_X=abc", "expected CONFIG_NAME=y|n|m|a number|0xHEX" },   /* hex needs 0x */
		{ "CONFIG_X=-0x10", "expected CONFIG_NAME=" },
		{ "CONFIG_X=0x", "expected CONFIG_NAME=" },
		{ "CONFIG_X=0xfg", "expected CONFIG_NAME=" },
	};
	static const char *const good[] = {
		"CONFIG_BASE=0x1000", "CONFIG_BASE=0xDEADbeef", "CONFIG_PANIC_TIMEOUT=-1",
		"CONFIG_INITRAMFS_SOURCE=\"\"", "# CONFIG_INITRAMFS_SOURCE is not set",
		"CONFIG_MODULE_SIG_KEY=\"certs/signing_key.pem\"",
		"CONFIG_CMDLINE=\"console=ttyS0 root=/dev/vda\"", "CONFIG_MODPROBE_PATH=\"/sbin/modprobe\"",
		"CONFIG_LOCALVERSION=\"-mglru\"", "CONFIG_LSM=\"landlock,lockdown,yama\"",
	};
	char arm[2048], want[256];
	struct matrix *m = calloc(1, sizeof(*m));

	(void)state;
	assert_non_null(m);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		fragment_arm(bad[i][0], arm, sizeof(arm));
		sfmt(want, sizeof(want), "arms[0].config_fragment[1]: %s", bad[i][1]);
		expect_spec_error(arm, want);
	}
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		fragment_arm(good[i], arm, sizeof(arm));
		if (parse(arm, m, want) < 0)
			fail_msg("refused: %s", good[i]);
		spec_release(m);
	}
	free(m);
}

/* Progress lines counted: a build that started said so. */
static void count_told(void *arg, const char *line)
{
	(void)line;
	(*(int *)arg)++;
}

/*
 * The matrix of arms (as parse) resolved with source_dirs "DIR/in": -1 expected,
 * with err holding each of the NULL-terminated fragments; no build told.
 */
static void expect_resolve_error(const char *arms, ...)
{
	struct matrix *m = calloc(1, sizeof(*m));
	char err[ERR_MAX], saved[sizeof(conf.source_dirs)];
	const char *want;
	int told = 0;
	va_list ap;

	assert_non_null(m);
	memcpy(saved, conf.source_dirs, sizeof(saved));
	sfmt(conf.source_dirs, sizeof(conf.source_dirs), "%s/in", dir);
	assert_int_equal(parse(arms, m, err), 0);
	if (spec_resolve(m, &conf, count_told, &told, err) == 0)
		fail_msg("resolved: %s", arms);
	memcpy(conf.source_dirs, saved, sizeof(saved));
	va_start(ap, arms);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(err, want))
			fail_msg("'%s' lacks '%s'", err, want);
	va_end(ap);
	assert_int_equal(told, 0);      /* refused before any build */
	spec_release(m);
	free(m);
}

#define OUTSIDE "is outside the directories sources and patches may come from"

/* DIR/in (source_dirs in these tests) with a tree in/linux, DIR/out, the kconfig dir. */
static void source_fixture(void)
{
	char p[PATH_MAX], k[PATH_MAX], err[ERR_MAX];

	mkdirs("%s/in/linux", dir);
	mkdirs("%s/out", dir);
	assert_int_equal(image_beside(conf.images, "kconfig", k, err), 0);
	mkdirs("%s", k);
	sfmt(p, sizeof(p), "%s/common.config", k);
	write_text(p, "CONFIG_LRU_GEN=y\n");
	sfmt(p, sizeof(p), "%s/x86_64.config", k);
	write_text(p, "CONFIG_64BIT=y\n");
}

static void test_config_file_checked(void **state)
{
	char path[PATH_MAX], want[PATH_MAX + 64];

	(void)state;
	source_fixture();
	write_in("in/bad.config", "# a comment\n\nCONFIG_A=y\nCONFIG_INITRAMFS_SOURCE=\"/etc\"\n",
		 path);
	sfmt(want, sizeof(want), "arms[0].config: %s:4: CONFIG_INITRAMFS_SOURCE names a file", path);
	expect_resolve_error("{'name':'a','source':'in/linux','config':'in/bad.config'}", want, NULL);
	write_in("in/cmd.config", "CONFIG_A=y\nCONFIG_LOCALVERSION=\"$(shell id)\"\n", path);
	sfmt(want, sizeof(want), "arms[0].config: %s:2: CONFIG_LOCALVERSION: expected a string "
	     "without '$'", path);
	expect_resolve_error("{'name':'a','source':'in/linux','config':'in/cmd.config'}", want, NULL);
	write_in("in/junk.config", "CONFIG_A=y\n# CONFIG_B is not\nCONFIG_C=abc\n", path);
	sfmt(want, sizeof(want), "%s:2: expected CONFIG_NAME=", path);
	expect_resolve_error("{'name':'a','source':'in/linux','config':'in/junk.config'}", want, NULL);
	/* a second arm's bad .config refuses the matrix before the first arm builds */
	expect_resolve_error("{'name':'a','source':'in/linux','config':'tinyconfig'},"
			     "{'name':'b','source':'in/linux','config':'in/bad.config'}",
			     "arms[1].config:", ":4: CONFIG_INITRAMFS_SOURCE names", NULL);
	/* a whole .config as make writes it passes */
	write_in("in/good.config", "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
		 "CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14+deb12u1) 12.2.0\"\n"
		 "CONFIG_INITRAMFS_SOURCE=\"\"\nCONFIG_MODPROBE_PATH=\"/sbin/modprobe\"\n"
		 "# CONFIG_EXTRA_FIRMWARE is not set\nCONFIG_NR_CPUS=64\nCONFIG_BASE=0x1000\n", path);
	{
		char err[ERR_MAX];
		assert_int_equal(kconfig_file_check(path, err), 0);
	}
}

static void test_git_file_confined(void **state)
{
	char out[PATH_MAX], path[PATH_MAX], want[PATH_MAX + 64], text[PATH_MAX + 16];

	(void)state;
	source_fixture();
	/* a repository outside source_dirs, and a worktree of it inside */
	sfmt(out, sizeof(out), "%s/out/repo", dir);
	mkdirs("%s", out);
	sfmt(path, sizeof(path), "%s/a.txt", out);
	write_text(path, "secret\n");
	git(out, "init", "-q", NULL, NULL);
	git(out, "add", ".", NULL, NULL);
	git(out, "commit", "-q", "-m", "outside");
	sfmt(path, sizeof(path), "%s/in/wt", dir);
	git(out, "worktree", "add", "-q", path);
	sfmt(want, sizeof(want), "arms[0].source: %s/in/wt/.git: %s/.git/worktrees/wt " OUTSIDE,
	     dir, out);
	expect_resolve_error("{'name':'a','source':'in/wt'}", want, NULL);

	/* a hand-written .git file */
	mkdirs("%s/in/plain", dir);
	sfmt(path, sizeof(path), "%s/in/plain/.git", dir);
	sfmt(text, sizeof(text), "gitdir: %s/.git\n", out);
	write_text(path, text);
	sfmt(want, sizeof(want), "%s/in/plain/.git: %s/.git " OUTSIDE, dir, out);
	expect_resolve_error("{'name':'a','source':'in/plain'}", want, NULL);
	write_text(path, "gitdir: ../../out/repo/.git\n");    /* relative to the tree */
	expect_resolve_error("{'name':'a','source':'in/plain'}", "resolving to", OUTSIDE, NULL);

	/* a gitdir inside whose commondir leads out */
	mkdirs("%s/in/gd", dir);
	write_text(path, "gitdir: ../gd\n");
	sfmt(path, sizeof(path), "%s/in/gd/commondir", dir);
	sfmt(text, sizeof(text), "%s/.git\n", out);
	write_text(path, text);
	sfmt(want, sizeof(want), "%s/in/gd/commondir: %s/.git " OUTSIDE, dir, out);
	expect_resolve_error("{'name':'a','source':'in/plain'}", want, NULL);

	/* a repository inside whose objects borrow from one outside */
	sfmt(path, sizeof(path), "%s/in/borrow", dir);
	mkdirs("%s", path);
	git(path, "init", "-q", NULL, NULL);
	sfmt(path, sizeof(path), "%s/in/borrow/.git/objects/info/alternates", dir);
	sfmt(text, sizeof(text), "%s/.git/objects\n", out);
	write_text(path, text);
	sfmt(want, sizeof(want), "%s: %s/.git/objects " OUTSIDE, path, out);
	expect_resolve_error("{'name':'a','source':'in/borrow'}", want, NULL);
	/* .git itself a link out */
	sfmt(path, sizeof(path), "%s/in/linked", dir);
	mkdirs("%s", path);
	sfmt(path, sizeof(path), "%s/in/linked/.git", dir);
	sfmt(text, sizeof(text), "%s/.git", out);
	assert_int_equal(symlink(text, path), 0);
	expect_resolve_error("{'name':'a','source':'in/linked'}", "(resolving to", OUTSIDE, NULL);
}

static void test_git_file_inside(void **state)
{
	char main_tree[PATH_MAX], path[PATH_MAX], err[ERR_MAX];
	struct image_roots r = { conf.images, "", dir, "source_dirs" };

	(void)state;
	/* a linked worktree whose repository is inside too: taken */
	sfmt(main_tree, sizeof(main_tree), "%s/in/main", dir);
	mkdirs("%s", main_tree);
	sfmt(path, sizeof(path), "%s/a.txt", main_tree);
	write_text(path, "x\n");
	git(main_tree, "init", "-q", NULL, NULL);
	git(main_tree, "add", ".", NULL, NULL);
	git(main_tree, "commit", "-q", "-m", "inside");
	sfmt(path, sizeof(path), "%s/in/wt-inside", dir);
	git(main_tree, "worktree", "add", "-q", path);
	if (gitconfine_tree(&r, path, err) < 0)
		fail_msg("refused: %s", err);
	assert_int_equal(gitconfine_tree(&r, main_tree, err), 0);
	sfmt(path, sizeof(path), "%s/in", dir);        /* no .git at all: a plain tree */
	assert_int_equal(gitconfine_tree(&r, path, err), 0);
}

static void test_patch_links_confined(void **state)
{
	char path[PATH_MAX], target[PATH_MAX], want[PATH_MAX * 2], err[ERR_MAX];
	struct series s;

	(void)state;
	source_fixture();
	mkdirs("%s/in/p", dir);
	write_in("out/secret.patch", PATCH("1", "secret", "s@x", "a.txt", "two", "TWO"), target);
	write_in("in/p/0001-fine.patch", PATCH("1", "fine", "f@x", "a.txt", "two", "TWO"), path);
	sfmt(path, sizeof(path), "%s/in/p/0002-evil.patch", dir);
	assert_int_equal(symlink(target, path), 0);
	sfmt(want, sizeof(want), "arms[0].patches: %s/in/p: '0002-evil.patch': %s (resolving to %s) "
	     OUTSIDE, dir, path, target);
	expect_resolve_error("{'name':'a','source':'in/linux','patches':'in/p'}", want, NULL);
	/* without roots: the series' own directory bounds it */
	sfmt(path, sizeof(path), "%s/in/p", dir);
	assert_int_equal(series_read(path, &s, err), -1);
	assert_non_null(strstr(err, "'0002-evil.patch' resolves to"));
	assert_non_null(strstr(err, "outside the series' directory"));
	assert_int_equal(s.n, 0);

	/* a quilt series entry: named with its line */
	mkdirs("%s/in/q", dir);
	write_in("in/q/ok.patch", PATCH("1", "ok", "o@x", "a.txt", "two", "TWO"), path);
	sfmt(path, sizeof(path), "%s/in/q/shadow.patch", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	write_in("in/q/series", "ok.patch\n# why\nshadow.patch\n", path);
	sfmt(want, sizeof(want), "arms[0].patches: %s:3: 'shadow.patch': ", path);
	expect_resolve_error("{'name':'a','source':'in/linux','patches':'in/q/series'}", want,
			     "(resolving to /etc/passwd) " OUTSIDE, NULL);
	assert_int_equal(series_read(path, &s, err), -1);
	assert_non_null(strstr(err, ":3: 'shadow.patch' resolves to /etc/passwd, outside"));

	/* a link that stays in the series' directory is read */
	sfmt(path, sizeof(path), "%s/in/q/alias.patch", dir);
	assert_int_equal(symlink("ok.patch", path), 0);
	write_in("in/q/series", "alias.patch\n", path);
	assert_int_equal(series_read(path, &s, err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.p[0].subject, "ok");
	series_free(&s);
}

/* A failed compile is remembered only for the compiler's error in a file of the tree. */
static void test_compile_error_lasting(void **state)
{
	const char *src = "/c/trees/t/src";

	(void)state;
	assert_true(kbuild_compile_error_lasting(
		"  CC      mm/filemap.o\n/c/trees/t/src/mm/filemap.c:1070:40: error: 'W' "
		"undeclared (first use in this function)\nmake[3]: *** Error 1\n", src));
	assert_true(kbuild_compile_error_lasting("mm/workingset.c:844:1: error: unknown type\n",
						 src));
	assert_true(kbuild_compile_error_lasting("ld: x\nmm/a.c:3: error: no line column\n", src));
	/* the host's: the compiler killed or broken, no space, a header missing */
	assert_false(kbuild_compile_error_lasting(
		"mm/a.c:3:1: error: x\ngcc: fatal error: Killed signal terminated program cc1\n",
		src));
	assert_false(kbuild_compile_error_lasting(
		"mm/a.c:3:1: error: x\nmm/a.c: internal compiler error: Segmentation fault\n", src));
	assert_false(kbuild_compile_error_lasting(
		"mm/a.c:3:1: error: x\n/tmp/cc.s: No space left on device\n", src));
	assert_false(kbuild_compile_error_lasting(
		"tools/objtool/elf.c:10:10: fatal error: gelf.h: No such file or directory\n", src));
	/* host tools, a file outside the tree, no error at all */
	assert_false(kbuild_compile_error_lasting("tools/objtool/elf.c:9:2: error: x\n", src));
	assert_false(kbuild_compile_error_lasting("scripts/sign-file.c:2:2: error: x\n", src));
	assert_false(kbuild_compile_error_lasting("/usr/include/x.h:1:1: error: x\n", src));
	assert_false(kbuild_compile_error_lasting("/c/trees/t/src/../../e.c:1:1: error: x\n",
						  src));
	assert_false(kbuild_compile_error_lasting("make: *** [Makefile:1] Error 2\n", src));
	assert_false(kbuild_compile_error_lasting("mm/a.c: error: no line\n", src));
	assert_false(kbuild_compile_error_lasting("", src));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbox),
		cmocka_unit_test(test_dir_and_quilt),
		cmocka_unit_test(test_hostile_series),
		cmocka_unit_test(test_fragment_lines),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_config_check_missing_symbol),
		cmocka_unit_test(test_rev),
		cmocka_unit_test(test_source_keys),
		cmocka_unit_test(test_build_failures),
		cmocka_unit_test(test_cache_symlinks),
		cmocka_unit_test(test_series_limit),
		cmocka_unit_test(test_series_512_builds),
		cmocka_unit_test(test_config_cache_follows_kconfig),
		cmocka_unit_test(test_gate_refused_stops),
		cmocka_unit_test(test_series_cannot_poison),
		cmocka_unit_test(test_daemon_gate_error_stops),
		cmocka_unit_test(test_apt_failure_said),
		cmocka_unit_test(test_text_tail),
		cmocka_unit_test(test_fragment_allow_list),
		cmocka_unit_test(test_config_file_checked),
		cmocka_unit_test(test_git_file_confined),
		cmocka_unit_test(test_git_file_inside),
		cmocka_unit_test(test_patch_links_confined),
		cmocka_unit_test(test_compile_error_lasting),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
