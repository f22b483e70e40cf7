/* test_psi.c -- unit tests for the quiet-host gate's inputs: the PSI parser
 * on real captures (base/psi.c), with and without cpu's "full" line and on a
 * kernel without PSI, and the contended flag of a run's pressure series
 * (run/pressure.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/psi.h"
#include "run/pressure.h"
#include "testlib.h"

#define DATA "tests/data/psi/"

/* The capture's text (the test fails if it cannot be read). */
static size_t capture(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	size_t n;

	sfmt(path, sizeof(path), DATA "%s", name);
	f = fopen(path, "re");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n;
}

/* This machine's 6.18 files: cpu with a "full" line of zeros (no cgroup
 * stalls the whole CPU), io with both. */
static void captures_parse(void **state)
{
	char buf[512], err[ERR_MAX];
	struct psi cpu, io;

	(void)state;
	assert_int_equal(psi_parse(buf, capture("cpu-6.18.txt", buf, sizeof(buf)), &cpu, err,
				   sizeof(err)), 0);
	assert_true(cpu.some.present && cpu.full.present);
	assert_true(fabs(cpu.some.avg10 - 3.14) < 1e-9);
	assert_true(fabs(cpu.some.avg300 - 4.85) < 1e-9);
	assert_int_equal(cpu.some.total, 225438301);
	assert_int_equal(cpu.full.total, 0);
	assert_int_equal(psi_parse(buf, capture("io-6.18.txt", buf, sizeof(buf)), &io, err,
				   sizeof(err)), 0);
	assert_int_equal(io.some.total, 46854221);
	assert_int_equal(io.full.total, 35755904);
	assert_true(fabs(io.full.avg10 - 0.29) < 1e-9);
}

/* A kernel before 5.13: cpu has a "some" line only. */
static void no_full_line(void **state)
{
	char buf[512], err[ERR_MAX];
	struct psi cpu;

	(void)state;
	assert_int_equal(psi_parse(buf, capture("cpu-5.10-nofull.txt", buf, sizeof(buf)), &cpu,
				   err, sizeof(err)), 0);
	assert_true(cpu.some.present);
	assert_false(cpu.full.present);
	assert_int_equal(cpu.some.total, 987654321);
}

/* Each malformed text is refused, naming its line; *ret untouched. */
static void malformed_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=0",          /* no newline */
		"some avg10=0.00 avg60=0.00 total=0\n",
		"some avg10=100.01 avg60=0.00 avg300=0.00 total=0\n",
		"some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n",
		"some avg10=1. avg60=0.00 avg300=0.00 total=0\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1 \n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nsome avg10=0.00 avg60=0.00 "
		"avg300=0.00 total=1\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 "
		"avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",
		NULL,
	};
	struct psi v = { .some.total = 7 };
	char err[ERR_MAX];

	(void)state;
	for (unsigned i = 0; bad[i]; i++) {
		assert_int_equal(psi_parse(bad[i], strlen(bad[i]), &v, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "pressure"));
	}
	assert_int_equal(v.some.total, 7);
}

/* No PSI: no files (ENOENT), or EOPNOTSUPP as with psi=0; other errors are errors. */
static void no_psi(void **state)
{
	struct pressure_point p;
	char dir[] = "/tmp/test_psi.XXXXXX", path[256], err[ERR_MAX];
	struct psi v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sfmt(path, sizeof(path), "%s/pressure/cpu", dir);
	assert_int_equal(psi_read(path, &v, err), 1);
	assert_true(psi_absent(EOPNOTSUPP) && psi_absent(ENOENT) && !psi_absent(EACCES));
	sfmt(path, sizeof(path), "%s/loadavg", dir);
	write_text(path, "1.50 1.20 1.00 2/300 4000\n");
	assert_int_equal(pressure_read(dir, 0, &p, err), 0);
	assert_int_equal(p.psi, 0);
	assert_true(fabs(p.load - 1.5) < 1e-9);
	/* a file that is there but garbled is an error, not "no PSI" */
	mkdirs("%s/pressure", dir);
	sfmt(path, sizeof(path), "%s/pressure/cpu", dir);
	write_text(path, "some avg10=x\n");
	assert_int_equal(pressure_read(dir, 0, &p, err), -1);
	assert_non_null(strstr(err, "pressure/cpu"));
	sfmt(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* A point at ms with totals cpu and io some (µs), full 0. */
static struct pressure_point pt(int64_t ms, uint64_t cpu, uint64_t io, int ramp)
{
	return (struct pressure_point){ .ms = ms, .psi = 1, .cpu_some = cpu, .io_some = io,
					.load = 1.0, .ramp = ramp };
}

/* the gate's cpu limit 15, the window's 25, others' CPU 25 % of one */
static const struct pressure_limits limits = { 15, 25, 75, 2, 25, 25 };

/* The window starts at the last ramp point: a busy ramp does not count. */
static void window_after_ramp(void **state)
{
	/* baseline, two ramp intervals at 90 % cpu stall, three measured at 10 % */
	struct pressure_point v[] = {
		pt(0, 0, 0, 1), pt(1000, 900000, 0, 1), pt(2000, 1800000, 0, 1),
		pt(3000, 1900000, 0, 0), pt(4000, 2000000, 0, 0), pt(5000, 2100000, 50000, 0),
	};
	struct pressure_share sh;

	(void)state;
	assert_int_equal(pressure_window(v, 6, &limits, &sh), 0);
	assert_true(fabs(sh.cpu_pct - 10.0) < 1e-9);
	assert_true(fabs(sh.io_pct - 50000 / 10.0 / 3000) < 1e-9);
	assert_true(fabs(sh.seconds - 3.0) < 1e-9);
	assert_false(sh.contended);
	assert_string_equal(sh.why, "");
}

/* One busy core for half the window: cpu some 40 % > 25 %: contended. */
static void window_contended(void **state)
{
	struct pressure_point v[] = {
		pt(0, 5000, 0, 1), pt(1000, 5000, 0, 0), pt(2000, 805000, 0, 0),
		pt(3000, 1605000, 0, 0), pt(4000, 1605000, 0, 0), pt(5000, 2005000, 0, 0),
	};
	struct pressure_share sh;

	(void)state;
	assert_int_equal(pressure_window(v, 6, &limits, &sh), 0);
	assert_true(fabs(sh.cpu_pct - 40.0) < 1e-9);
	assert_true(sh.contended);
	assert_string_equal(sh.why, "cpu some 40.0% > 25%");
	/* io alone over its limit */
	v[5].cpu_some = v[0].cpu_some;
	v[5].io_some = 1500000;
	assert_int_equal(pressure_window(v, 6, &limits, &sh), 0);
	assert_true(sh.contended);
	assert_string_equal(sh.why, "io some 30.0% > 25%");
}

/*
 * A window stalled by its own guest: cpu some 40 % > 25 %, but everything
 * but the run's QEMU used 5 % of a CPU: not contended. The same stall with
 * others at 60 % of a CPU is, and says so; unknown others: the stall alone.
 */
static void window_own_guest(void **state)
{
	struct pressure_point v[] = {
		pt(0, 5000, 0, 1), pt(1000, 5000, 0, 0), pt(2000, 805000, 0, 0),
		pt(3000, 1605000, 0, 0), pt(4000, 1605000, 0, 0), pt(5000, 2005000, 0, 0),
	};
	struct pressure_share sh;
	unsigned i;

	(void)state;
	for (i = 0; i < 6; i++) {   /* QEMU takes 1.9 of 2 CPUs; the host's busy time is that + 5 % */
		v[i].cpu_known = 1;
		v[i].own_ms = 100000 + 1900 * (uint64_t)i;
		v[i].busy_ms = 500000 + 1950 * (uint64_t)i;
	}
	assert_int_equal(pressure_window(v, 6, &limits, &sh), 0);
	assert_true(fabs(sh.cpu_pct - 40.0) < 1e-9);
	assert_true(fabs(sh.others_pct - 5.0) < 1e-9);
	assert_false(sh.contended);
	assert_string_equal(sh.why, "");
	for (i = 0; i < 6; i++)     /* a busy loop beside it: others 60 % of a CPU */
		v[i].busy_ms = 500000 + 2500 * (uint64_t)i;
	assert_int_equal(pressure_window(v, 6, &limits, &sh), 0);
	assert_true(fabs(sh.others_pct - 60.0) < 1e-9);
	assert_true(sh.contended);
	assert_string_equal(sh.why, "cpu some 40.0% > 25%, others used 60% of a CPU > 25%");
	v[5].cpu_known = 0;         /* the end unknown: the stall alone says */
	assert_int_equal(pressure_window(v, 6, &limits, &sh), 0);
	assert_true(isnan(sh.others_pct));
	assert_true(sh.contended);
	assert_string_equal(sh.why, "cpu some 40.0% > 25%");
}

/* The host's busy time and a process's from a proc directory (a command with spaces and ")"). */
static void read_cpu_times(void **state)
{
	struct pressure_point p;
	char dir[] = "/tmp/test_psi.XXXXXX", path[256], err[ERR_MAX];
	long hz = sysconf(_SC_CLK_TCK);

	(void)state;
	assert_non_null(mkdtemp(dir));
	sfmt(path, sizeof(path), "%s/stat", dir);
	/* user nice system idle iowait irq softirq steal: busy 100+2+30+4+5+6 = 147 ticks */
	write_text(path, "cpu  100 2 30 9000 50 4 5 6 0 0\ncpu0 50 1 15 4500 25 2 2 3 0 0\n");
	mkdirs("%s/4242", dir);
	sfmt(path, sizeof(path), "%s/4242/stat", dir);
	write_text(path, "4242 (qemu (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 70 20 0 0 20 0 5 0\n");
	assert_int_equal(pressure_read(dir, 4242, &p, err), 0);
	assert_true(p.cpu_known);
	assert_int_equal(p.busy_ms, 147 * 1000 / hz);
	assert_int_equal(p.own_ms, 90 * 1000 / hz);
	assert_int_equal(pressure_read(dir, 4243, &p, err), 0);   /* no such process */
	assert_false(p.cpu_known);
	assert_int_equal(pressure_read(dir, 0, &p, err), 0);      /* none asked */
	assert_false(p.cpu_known);
	sfmt(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* Without PSI: the mean load over the window's points, per core, against load_pct. */
static void window_load(void **state)
{
	struct pressure_point v[] = { pt(0, 0, 0, 1), pt(1000, 0, 0, 0), pt(2000, 0, 0, 0) };
	struct pressure_share sh;

	(void)state;
	for (unsigned i = 0; i < 3; i++)
		v[i].psi = 0;
	v[1].load = 1.0;
	v[2].load = 1.6;    /* mean 1.3 on 2 cores: 65 % */
	assert_int_equal(pressure_window(v, 3, &limits, &sh), 0);
	assert_false(sh.psi);
	assert_true(isnan(sh.cpu_pct));
	assert_true(fabs(sh.load_pct - 65.0) < 1e-9);
	assert_false(sh.contended);
	v[2].load = 2.4;    /* mean 1.7: 85 % */
	assert_int_equal(pressure_window(v, 3, &limits, &sh), 0);
	assert_true(sh.contended);
	assert_non_null(strstr(sh.why, "no PSI"));
	/* the gate off (cpu and io at 100): the load's threshold is off too */
	assert_int_equal(pressure_window(v, 3, &(struct pressure_limits){ 100, 100, 75, 2, 100, 25 }, &sh), 0);
	assert_false(sh.contended);
}

/* No window: fewer than two points, or none after the last ramp point. */
static void window_none(void **state)
{
	struct pressure_point v[] = { pt(0, 0, 0, 1), pt(1000, 900000, 0, 1) };
	struct pressure_share sh;

	(void)state;
	assert_int_equal(pressure_window(v, 1, &limits, &sh), -1);
	assert_int_equal(pressure_window(v, 2, &limits, &sh), -1);
	assert_false(sh.contended);
}

/* The gate's view over a short window: counters that went back read 0. */
static void between_points(void **state)
{
	struct pressure_point a = pt(0, 1000000, 0, 0), b = pt(1000, 1200000, 0, 0);
	struct pressure_share sh;

	(void)state;
	pressure_between(&a, &b, &limits, &sh);
	assert_true(fabs(sh.cpu_pct - 20.0) < 1e-9);
	assert_true(sh.contended);        /* the gate's limit, 15, not the window's 25 */
	assert_string_equal(sh.why, "cpu some 20.0% > 15%");
	b.cpu_some = 10;
	pressure_between(&a, &b, &limits, &sh);
	assert_true(sh.cpu_pct == 0 && !sh.contended);
	assert_true(pressure_gate_off(&(struct pressure_limits){ 100, 100, 75, 2, 100, 25 }));
	assert_false(pressure_gate_off(&limits));
}

/*
 * A guest's silence is the host's when the window's rule says contended,
 * even with the gate off; its own QEMU's stall alone is not.
 */
static void silence_starved(void **state)
{
	const struct pressure_limits off = { 100, 100, 75, 2, 50, 25 };
	struct pressure_point a = pt(0, 0, 0, 0), b = pt(5000, 3000000, 0, 0);
	struct pressure_share sh;

	(void)state;
	a.cpu_known = b.cpu_known = 1;
	a.own_ms = 1000;
	b.own_ms = 1000 + 2000;         /* its QEMU had 0.4 of a CPU over 5 s */
	a.busy_ms = 50000;
	b.busy_ms = 50000 + 9000;       /* others: 7 s of CPU, 140 % of one */
	assert_true(pressure_starved(&a, &b, &off, &sh));
	assert_string_equal(sh.why, "cpu some 60.0% > 50%, others used 140% of a CPU > 25%");
	b.busy_ms = 50000 + 2500;       /* only its own QEMU stalled the host */
	assert_false(pressure_starved(&a, &b, &off, &sh));
	b.cpu_some = 1000000;           /* 20 %: under the window's limit */
	b.busy_ms = 50000 + 9000;
	assert_false(pressure_starved(&a, &b, &off, &sh));
	assert_string_equal(sh.why, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(captures_parse),
		cmocka_unit_test(no_full_line),
		cmocka_unit_test(malformed_refused),
		cmocka_unit_test(no_psi),
		cmocka_unit_test(window_after_ramp),
		cmocka_unit_test(window_contended),
		cmocka_unit_test(window_own_guest),
		cmocka_unit_test(read_cpu_times),
		cmocka_unit_test(window_load),
		cmocka_unit_test(window_none),
		cmocka_unit_test(between_points),
		cmocka_unit_test(silence_starved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
