/* test_console.c -- what a guest's console log says: a crash and its lines,
 * the WARNINGs counted, and the last line printed (a silent boot's reason). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "vm/console.h"

static char path[64];

/* The log holds exactly len bytes of text. */
static void log_of(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void test_silent_boot_last_line(void **state)
{
	static const char text[] = "[    1.0] Linux version 6.12\r\n[    2.5] Run /init as init "
				   "process\n\n   \r\n\x1b\n";
	struct console_report rep;

	(void)state;
	log_of(text, sizeof(text) - 1);
	assert_int_equal(console_scan(path, &rep), 0);
	assert_false(rep.crashed);
	assert_string_equal(rep.last, "[    2.5] Run /init as init process");
}

static void test_last_line_cut_and_printable(void **state)
{
	char text[600];
	struct console_report rep;

	(void)state;
	memset(text, 'a', sizeof(text));
	memcpy(text, "  \x01z\xc3", 5);   /* what leads up to a printable character dropped */
	text[sizeof(text) - 1] = '\n';
	log_of(text, sizeof(text));
	assert_int_equal(console_scan(path, &rep), 0);
	assert_int_equal(strlen(rep.last), sizeof(rep.last) - 1);
	assert_memory_equal(rep.last, "z?a", 3);   /* then the unprintable shown as '?' */
}

/* the agent's own last error kept apart: a line the kernel printed after it
 * (its exit, the reset) is the console's last, not the agent's words */
static void test_agent_line(void **state)
{
	static const char text[] = "agent: first\n[    3.7] harness: init 6.12\n"
				   "agent: no virtio port named 'harness.0'\n"
				   "[   18.8] harness: agent exited 1\n";
	struct console_report rep;

	(void)state;
	log_of(text, sizeof(text) - 1);
	assert_int_equal(console_scan(path, &rep), 0);
	assert_string_equal(rep.agent, "agent: no virtio port named 'harness.0'");
	assert_string_equal(rep.last, "[   18.8] harness: agent exited 1");
	log_of("[    1.0] Linux version 6.12\n", 29);
	assert_int_equal(console_scan(path, &rep), 0);
	assert_string_equal(rep.agent, "");
}

static void test_crash_and_warnings(void **state)
{
	static const char text[] = "WARNING: CPU: 0 PID: 1 at mm/vmscan.c:1\n"
				   "Kernel panic - not syncing: sysrq triggered crash\n"
				   "CPU: 1 PID: 88 Comm: agent\n";
	struct console_report rep;

	(void)state;
	log_of(text, sizeof(text) - 1);
	assert_int_equal(console_scan(path, &rep), 0);
	assert_true(rep.crashed);
	assert_int_equal(rep.warnings, 1);
	assert_non_null(strstr(rep.first, "sysrq triggered crash"));
	assert_string_equal(rep.last, "CPU: 1 PID: 88 Comm: agent");
}

static void test_missing_log(void **state)
{
	struct console_report rep;

	(void)state;
	unlink(path);
	assert_int_equal(console_scan(path, &rep), 0);
	assert_false(rep.crashed);
	assert_string_equal(rep.last, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_silent_boot_last_line),
		cmocka_unit_test(test_last_line_cut_and_printable),
		cmocka_unit_test(test_agent_line),
		cmocka_unit_test(test_crash_and_warnings),
		cmocka_unit_test(test_missing_log),
	};
	int fd, rc;

	snprintf(path, sizeof(path), "/tmp/test_console.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}
