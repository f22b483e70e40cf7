/* test_embed.c -- the embedded libvirt root a killed harness left behind: the status
 * file of a guest it was starting (a real one, tests/data/libvirt-status-unstarted.xml)
 * dropped before the driver opens, nothing else touched, nothing while a driver runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include "slurp.h"
#include "vm/vm.h"
#include "vm/vm_priv.h"

static char root[64], qdir[128];

/* root/run/qemu/NAME holding text. */
static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", qdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int there(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", qdir, name);
	return access(path, F_OK) == 0;
}

static int setup(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_embed.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(qdir, sizeof(qdir), "%s/run/qemu", root);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", qdir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

/* The real leftover goes; a started guest's, another program's and a non-status file stay. */
static void test_drop(void **state)
{
	size_t len;
	char *real = test_slurp("tests/data/libvirt-status-unstarted.xml", &len);

	(void)state;
	put("harness-save-57eace9da0d53654.xml", real);
	put("harness-1-run-3.xml", "<domstatus state='running' reason='booted' pid='4242'>\n");
	put("other-vm.xml", "<domstatus state='paused' reason='starting up' pid='0'>\n");
	put("harness-save-x.log", "<domstatus pid='0'>\n");
	put("driver.pid", "1\n");
	assert_int_equal(vm_drop_unstarted(root), 1);
	assert_false(there("harness-save-57eace9da0d53654.xml"));
	assert_true(there("harness-1-run-3.xml"));
	assert_true(there("other-vm.xml"));
	assert_true(there("harness-save-x.log"));
	/* once is enough: nothing left to drop */
	assert_int_equal(vm_drop_unstarted(root), 0);
	free(real);
}

/* While a driver holds the root (its pid file locked), nothing is touched. */
static void test_driver_running(void **state)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[256], c = 0;
	int ready[2], release[2], fd;
	pid_t pid;

	(void)state;
	put("harness-save-a.xml", "<domstatus state='paused' reason='starting up' pid='0'>\n");
	put("driver.pid", "1\n");
	snprintf(path, sizeof(path), "%s/driver.pid", qdir);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(release), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {          /* the driver: holds the lock until released */
		close(ready[0]);
		close(release[1]);
		fd = open(path, O_RDWR);
		if (fd < 0 || fcntl(fd, F_SETLK, &fl) < 0 || write(ready[1], "x", 1) != 1 ||
		    read(release[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(release[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);   /* the child holds the lock */
	assert_int_equal(vm_drop_unstarted(root), 0);
	assert_true(there("harness-save-a.xml"));
	close(release[1]);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	assert_int_equal(vm_drop_unstarted(root), 1);
	assert_false(there("harness-save-a.xml"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_drop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_driver_running, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
