/* test_arch.c -- unit tests for the guest architecture axis: the matrix's
 * "arch" key and per-arch kernels (harness/spec/spec.c), the release of an arm64
 * Image (harness/vm/image.c) and the aarch64 domain XML (harness/vm/vm_xml.c), against
 * a fake images tree in a mkdtemp() directory: a bzImage look-alike for
 * x86_64, an arm64 Image look-alike for aarch64, both as alias 6.12. */
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

#include "conf/conf.h"
#include "base/err.h"
#include "vm/image.h"
#include "spec/spec.h"
#include "vm/vm.h"
#include "testlib.h"

#define X86_RELEASE "6.12.99-test"
#define ARM_RELEASE "6.12.99-test-arm64"

static char dir[PATH_MAX];
static char mpath[PATH_MAX];
static struct conf conf;
static char err[ERR_MAX];

/*
 * An arm64 Image look-alike of 2.5 MiB: "ARM\x64" at 0x38, the banner's
 * format string first (as in .rodata), the real banner past the first 1 MiB
 * window's end, so the scan must carry across windows.
 */
static void write_arm64_image(const char *path)
{
	static const char fmt[] = "Linux version %s (%s)";
	static const char ver[] = "Linux version " ARM_RELEASE " (x@y) #1 SMP";
	size_t len = 5 << 19;
	unsigned char *img = calloc(1, len);

	assert_non_null(img);
	memcpy(img + 0x38, "ARM\x64", 4);
	memcpy(img + 0x1000, fmt, sizeof(fmt));
	memcpy(img + (1 << 20) - 20, ver, sizeof(ver));
	write_bytes(path, img, len);
	free(img);
}

static int setup(void **state)
{
	char path[PATH_MAX];
	static const unsigned char gz[64] = { 0x1f, 0x8b, 8 };

	(void)state;
	fixture_dir(dir, "test_arch", &conf);
	fixture_kernel(&conf, "6.12", X86_RELEASE, NULL);
	mkdirs("%s/aarch64/kernel/6.12", conf.images);
	sfmt(path, sizeof(path), "%s/aarch64/kernel/6.12/vmlinuz", conf.images);
	write_arm64_image(path);
	/* build.sh writes the release beside the kernel; the alias reads it */
	sfmt(path, sizeof(path), "%s/aarch64/kernel/6.12/release", conf.images);
	write_text(path, ARM_RELEASE "\n");
	sfmt(path, sizeof(path), "%s/aarch64/kernel/6.12/modules.cpio", conf.images);
	write_text(path, "070701 not really a cpio\n");
	sfmt(path, sizeof(path), "%s/k", dir);
	mkdirs("%s", path);
	sfmt(path, sizeof(path), "%s/k/bzImage", dir);
	write_bzimage(path, X86_RELEASE);
	sfmt(path, sizeof(path), "%s/k/Image", dir);
	write_arm64_image(path);
	sfmt(path, sizeof(path), "%s/k/Image.gz", dir);
	write_bytes(path, gz, sizeof(gz));
	sfmt(mpath, sizeof(mpath), "%s/m.json", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return fixture_rmdir(dir);
}

static struct matrix *load(const char *text)
{
	struct matrix *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	write_text(mpath, jq(text));
	err[0] = '\0';
	if (spec_load(m, mpath, &conf, err) < 0) {
		free(m);
		return NULL;
	}
	return m;
}

static void done(struct matrix *m)
{
	spec_release(m);
	free(m);
}

/* The matrix text must be refused with an error naming want. */
static void refuse(const char *text, const char *want)
{
	struct matrix *m = load(text);

	if (m) {
		done(m);
		fail_msg("accepted: %s", text);
	}
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

#define WL "'workloads':[{'name':'w','files':[{'name':'d','mib':8}]," \
	   "'streams':[{'kind':'random','file':'d'}]}]"

static void test_default_arch(void **state)
{
	struct matrix *m;

	(void)state;
	m = load("{'name':'t','reps':1,'arms':[{'name':'a','kernel':'6.12'}]," WL "}");
	if (!m)
		fail_msg("refused: %s", err);
	assert_int_equal(m->n_archs, 1);
	assert_string_equal(m->archs[0], "x86_64");
	assert_int_equal(m->n_cells, 1);
	assert_string_equal(m->cells[0].name, "w");
	assert_string_equal(m->cells[0].arch, "x86_64");
	assert_string_equal(spec_files(&m->arms[0], &m->cells[0])->release, X86_RELEASE);
	done(m);
}

static void test_both_archs(void **state)
{
	struct matrix *m;
	const struct kernel_files *f;

	(void)state;
	m = load("{'name':'t','reps':2,'arch':['x86_64','aarch64'],"
		 "'arms':[{'name':'a','kernel':'6.12','lru_gen':'y'},"
		 "{'name':'b','kernel':{'x86_64':'6.12','aarch64':'6.12'},'lru_gen':'n'}],"
		 WL "}");
	if (!m)
		fail_msg("refused: %s", err);
	assert_int_equal(m->n_archs, 2);
	assert_int_equal(m->n_cells, 2);
	/* every workload on each arch; the aarch64 cell is named apart */
	assert_string_equal(m->cells[0].name, "w");
	assert_string_equal(m->cells[0].arch, "x86_64");
	assert_int_equal(m->cells[0].arch_idx, 0);
	assert_string_equal(m->cells[1].name, "w@aarch64");
	assert_string_equal(m->cells[1].arch, "aarch64");
	assert_int_equal(m->cells[1].arch_idx, 1);
	assert_int_equal(spec_run_count(m), 2 * 2 * 2);
	f = spec_files(&m->arms[1], &m->cells[1]);
	assert_string_equal(f->release, ARM_RELEASE);
	assert_non_null(strstr(f->kernel, "/aarch64/kernel/6.12/vmlinuz"));
	assert_non_null(strstr(f->modules, "/aarch64/kernel/6.12/modules.cpio"));
	assert_string_equal(spec_files(&m->arms[1], &m->cells[0])->release, X86_RELEASE);
	/* the object is stored as written, compact and sorted */
	assert_string_equal(m->arms[1].kernel, "{\"aarch64\":\"6.12\",\"x86_64\":\"6.12\"}");
	assert_string_equal(m->arms[0].kernel, "6.12");
	assert_string_equal(spec_arch_suffix("x86_64"), "");
	assert_int_equal(spec_arch_index(m, "aarch64"), 1);
	assert_int_equal(spec_arch_index(m, "riscv64"), -1);
	done(m);
}

static void test_aarch64_by_path(void **state)
{
	struct matrix *m;

	(void)state;
	/* a path names one arch's kernel: its release comes from the Image's banner */
	m = load("{'name':'t','reps':1,'arch':'aarch64','arms':[{'name':'a','kernel':'k/Image'}],"
		 WL "}");
	if (!m)
		fail_msg("refused: %s", err);
	assert_string_equal(m->cells[0].name, "w@aarch64");
	assert_string_equal(m->arms[0].files[0].release, ARM_RELEASE);
	assert_string_equal(m->arms[0].files[0].modules, "");
	done(m);
	/* per arch, a path beside an alias */
	m = load("{'name':'t','reps':1,'arch':['aarch64','x86_64'],"
		 "'arms':[{'name':'a','kernel':{'aarch64':'k/Image','x86_64':'6.12'}}]," WL "}");
	if (!m)
		fail_msg("refused: %s", err);
	assert_string_equal(m->cells[0].name, "w@aarch64");
	assert_string_equal(m->cells[1].name, "w");
	assert_string_equal(m->arms[0].files[0].release, ARM_RELEASE);
	assert_string_equal(m->arms[0].files[1].release, X86_RELEASE);
	done(m);
}

static void test_refusals(void **state)
{
	(void)state;
	refuse("{'name':'t','reps':1,'arch':'riscv64','arms':[{'name':'a','kernel':'6.12'}]," WL "}",
	       "arch[0]: expected \"x86_64\" or \"aarch64\"");
	refuse("{'name':'t','reps':1,'arch':[],'arms':[{'name':'a','kernel':'6.12'}]," WL "}",
	       "arch: expected");
	refuse("{'name':'t','reps':1,'arch':['aarch64','aarch64'],"
	       "'arms':[{'name':'a','kernel':'6.12'}]," WL "}", "listed twice");
	refuse("{'name':'t','reps':1,'arch':['x86_64','aarch64'],"
	       "'arms':[{'name':'a','kernel':'k/bzImage'}]," WL "}",
	       "arms[0].kernel: a kernel path fits one architecture");
	refuse("{'name':'t','reps':1,'arch':['x86_64','aarch64'],"
	       "'arms':[{'name':'a','kernel':{'x86_64':'6.12'}}]," WL "}",
	       "arms[0].kernel: no kernel for arch 'aarch64'");
	refuse("{'name':'t','reps':1,'arms':[{'name':'a','kernel':{'sparc':'6.12'}}]," WL "}",
	       "unknown arch 'sparc'");
	refuse("{'name':'t','reps':1,'arch':'aarch64','arms':[{'name':'a','kernel':'k/bzImage'}],"
	       WL "}", "is not an arm64 Image");
	refuse("{'name':'t','reps':1,'arch':'aarch64','arms':[{'name':'a','kernel':'k/Image.gz'}],"
	       WL "}", "is gzip-compressed");
	refuse("{'name':'t','reps':1,'arms':[{'name':'a','kernel':'k/Image'}]," WL "}",
	       "not an x86 bzImage");
	refuse("{'name':'t','reps':1,'arch':['x86_64','aarch64'],"
	       "'arms':[{'name':'a','package':'linux-image-6.12.99-cloud-amd64'}]," WL "}",
	       "arms[0].package: fits one architecture");
	refuse("{'name':'t','reps':1,'arch':['x86_64','aarch64'],"
	       "'arms':[{'name':'a','kernel':'6.12','modules':'k/bzImage'}]," WL "}",
	       "arms[0].modules: a modules cpio fits one architecture");
	/* the name with its "@aarch64" must fit */
	refuse("{'name':'t','reps':1,'arch':'aarch64','arms':[{'name':'a','kernel':'6.12'}],"
	       "'workloads':[{'name':'w23456789012345678901234567890123456789012345678901234567890',"
	       "'files':[{'name':'d','mib':8}],'streams':[{'kind':'random','file':'d'}]}]}",
	       "expected up to 55 letters");
}

static void test_domain_xml(void **state)
{
	static char xml[16384];
	struct vm_config cfg = {
		.name = "n", .arch = "aarch64", .accel = "tcg", .memory_mib = 512, .vcpus = 2,
		.kernel = "/k", .initrd = "/i", .cmdline = "console=ttyAMA0", .disk = "/d",
		.console = "/c", .channel = "/s", .first_cpu = -1,
	};

	(void)state;
	assert_int_equal(vm_domain_xml(&cfg, xml, sizeof(xml), err), 0);
	assert_non_null(strstr(xml, "<type arch='aarch64' machine='virt'>hvm</type>"));
	assert_non_null(strstr(xml, "<model fallback='forbid'>max</model>"));
	assert_non_null(strstr(xml, "<emulator>/usr/bin/qemu-system-aarch64</emulator>"));
	assert_non_null(strstr(xml, "<gic version='3'/>"));
	assert_non_null(strstr(xml, "<target type='virtio' name='harness.0'/>"));
	assert_null(strstr(xml, "<acpi/>"));       /* libvirt ties ACPI to UEFI on aarch64 */
	cfg.arch = "x86_64";
	assert_int_equal(vm_domain_xml(&cfg, xml, sizeof(xml), err), 0);
	assert_non_null(strstr(xml, "<type arch='x86_64' machine='pc'>hvm</type>"));
	assert_non_null(strstr(xml, "<acpi/>"));
	assert_null(strstr(xml, "<cpu"));
	cfg.arch = "mips";
	assert_int_equal(vm_domain_xml(&cfg, xml, sizeof(xml), err), -1);
	assert_string_equal(vm_console_device("aarch64"), "ttyAMA0");
	assert_string_equal(vm_console_device("x86_64"), "ttyS0");
	/* a guest of another arch than the host's never gets KVM */
	assert_string_equal(vm_accel_for(vm_host_arch(), vm_host_arch(), "kvm"), "kvm");
	assert_string_equal(vm_accel_for(strcmp(vm_host_arch(), "x86_64") ? "x86_64" : "aarch64",
					 vm_host_arch(), "kvm"), "tcg");
	/* another host's own arch is its own: an aarch64 board's aarch64 guests get its accel */
	assert_string_equal(vm_accel_for("aarch64", "aarch64", "kvm"), "kvm");
	assert_string_equal(vm_accel_for("x86_64", "aarch64", "kvm"), "tcg");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_arch),
		cmocka_unit_test(test_both_archs),
		cmocka_unit_test(test_aarch64_by_path),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_domain_xml),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
