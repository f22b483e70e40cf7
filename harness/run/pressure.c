/* pressure.c -- the host's pressure read from /proc (PSI totals, else the
 * load average) and judged: the share of a window's wall time stalled. */
#include "run/pressure.h"
#include "base/err.h"
#include "base/psi.h"
#include "common/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void pressure_limits_of(const struct conf *c, struct pressure_limits *ret)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	ret->cpu_pct = (double)c->quiet_cpu_pct;
	ret->io_pct = (double)c->quiet_io_pct;
	ret->load_pct = (double)c->quiet_load_pct;
	ret->window_cpu_pct = (double)c->contended_cpu_pct;
	ret->others_pct = (double)c->contended_others_pct;
	ret->ncpu = n > 0 ? (unsigned)n : 1;
}

int pressure_gate_off(const struct pressure_limits *lim)
{
	return lim->cpu_pct >= 100 && lim->io_pct >= 100;
}

/* The 1-minute load average in proc/loadavg, NAN if it cannot be read. */
static double read_load(const char *proc)
{
	char path[256], buf[64] = "";
	double load = NAN;
	FILE *f;

	if (fmtbuf(path, sizeof(path), "%s/loadavg", proc) < 0 || !(f = fopen(path, "re")))
		return NAN;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%lf", &load) != 1 || load < 0)
		load = NAN;
	fclose(f);
	return load;
}

/* CLOCK_MONOTONIC in ms. */
static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The host's CPU time not idle (user, nice, system, irq, softirq, steal), ms; -1 if unreadable. */
static int read_busy(const char *proc, uint64_t *ret)
{
	unsigned long long v[8] = { 0 };
	char path[256], buf[256] = "";
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int n;

	if (fmtbuf(path, sizeof(path), "%s/stat", proc) < 0 || hz <= 0 ||
	    !(f = fopen(path, "re")))
		return -1;
	n = fgets(buf, sizeof(buf), f) ? sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
						 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
						 &v[7]) : 0;
	fclose(f);
	if (n < 7)
		return -1;
	*ret = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * 1000 / (unsigned long long)hz;
	return 0;
}

/* A process's CPU time, all its threads (utime + stime), ms; -1 if unreadable. */
static int read_proc_cpu(const char *proc, pid_t pid, uint64_t *ret)
{
	unsigned long long ut, st;
	char path[256], buf[1024] = "", *p;
	long hz = sysconf(_SC_CLK_TCK);
	size_t len;
	FILE *f;

	if (fmtbuf(path, sizeof(path), "%s/%d/stat", proc, (int)pid) < 0 || hz <= 0 ||
	    !(f = fopen(path, "re")))
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* after the command's ")" (which may hold spaces): state, then fields 4..13, utime, stime */
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	*ret = (ut + st) * 1000 / (unsigned long long)hz;
	return 0;
}

int pressure_read(const char *proc, pid_t qemu, struct pressure_point *ret, char *err)
{
	struct pressure_point p = { .ms = mono_ms(), .load = read_load(proc) };
	char path[256];
	struct psi cpu, io;
	int rc;

	if (fmtbuf(path, sizeof(path), "%s/pressure/cpu", proc) < 0)
		return errorf(err, "%.64s...: path over %zu bytes", proc, sizeof(path) - 1);
	if ((rc = psi_read(path, &cpu, err)) < 0)
		return -1;
	if (rc == 0) {
		if (fmtbuf(path, sizeof(path), "%s/pressure/io", proc) < 0)
			return errorf(err, "%.64s...: path over %zu bytes", proc,
				      sizeof(path) - 1);
		if ((rc = psi_read(path, &io, err)) < 0)
			return -1;
	}
	if (rc == 0) {
		p.psi = 1;
		p.has_cpu_full = cpu.full.present;
		p.cpu_some = cpu.some.total;
		p.cpu_full = cpu.full.total;
		p.io_some = io.some.total;
		p.io_full = io.full.total;
	}
	p.cpu_known = qemu > 0 && read_busy(proc, &p.busy_ms) == 0 &&
		      read_proc_cpu(proc, qemu, &p.own_ms) == 0;
	*ret = p;
	return 0;
}

/* delta µs as % of ms of wall time; a counter that went back (never) reads 0. */
static double share(uint64_t a, uint64_t b, int64_t ms)
{
	return b < a || ms <= 0 ? 0 : (double)(b - a) / 10.0 / (double)ms;
}

/*
 * why and contended from the shares in r, against lim and cpu (none when the
 * gate is off). others: the window's rule, where a cpu stall is contention
 * only if something but the run's guest used over lim->others_pct of a CPU
 * (when r knows; else the stall alone says).
 */
static void judge(struct pressure_share *r, const struct pressure_limits *lim, double cpu,
		  int others)
{
	int stall = r->psi && r->cpu_pct > cpu, known = others && !isnan(r->others_pct);

	r->why[0] = '\0';
	if (pressure_gate_off(lim))
		;
	else if (stall && known && r->others_pct > lim->others_pct)
		fmtcut(r->why, sizeof(r->why), "cpu some %.1f%% > %.0f%%, others used %.0f%% of a"
			 " CPU > %.0f%%", r->cpu_pct, cpu, r->others_pct, lim->others_pct);
	else if (stall && !known)
		fmtcut(r->why, sizeof(r->why), "cpu some %.1f%% > %.0f%%", r->cpu_pct, cpu);
	else if (r->psi && r->io_pct > lim->io_pct)
		fmtcut(r->why, sizeof(r->why), "io some %.1f%% > %.0f%%", r->io_pct, lim->io_pct);
	else if (!r->psi && r->load_pct > lim->load_pct)
		fmtcut(r->why, sizeof(r->why), "load %.2f per core (%.0f%%) > %.0f%% (no PSI)",
			 r->load_pct / 100, r->load_pct, lim->load_pct);
	r->contended = r->why[0] != '\0';
}

void pressure_between(const struct pressure_point *a, const struct pressure_point *b,
		      const struct pressure_limits *lim, struct pressure_share *ret)
{
	int64_t ms = b->ms - a->ms;

	memset(ret, 0, sizeof(*ret));
	ret->psi = a->psi && b->psi;
	ret->seconds = (double)ms / 1000.0;
	ret->cpu_pct = ret->psi ? share(a->cpu_some, b->cpu_some, ms) : NAN;
	ret->io_pct = ret->psi ? share(a->io_some, b->io_some, ms) : NAN;
	ret->load_pct = b->load * 100.0 / (lim->ncpu ? lim->ncpu : 1);
	ret->others_pct = NAN;
	if (a->cpu_known && b->cpu_known && ms > 0 && b->busy_ms >= a->busy_ms &&
	    b->own_ms >= a->own_ms) {
		double others = (double)(b->busy_ms - a->busy_ms) - (double)(b->own_ms - a->own_ms);

		ret->others_pct = (others > 0 ? others : 0) * 100.0 / (double)ms;
	}
	judge(ret, lim, lim->cpu_pct, 0);
}

int pressure_window(const struct pressure_point *v, size_t n, const struct pressure_limits *lim,
		    struct pressure_share *ret)
{
	size_t start = 0, i, k = 0;
	double load = 0;

	memset(ret, 0, sizeof(*ret));
	for (i = 0; i < n; i++)
		if (v[i].ramp)
			start = i;
	if (n < 2 || start + 1 >= n)
		return -1;
	pressure_between(&v[start], &v[n - 1], lim, ret);
	for (i = start + 1; i < n; i++)
		if (!isnan(v[i].load)) {
			load += v[i].load;
			k++;
		}
	ret->load_pct = k ? load / (double)k * 100.0 / (lim->ncpu ? lim->ncpu : 1) : NAN;
	judge(ret, lim, lim->window_cpu_pct, 1);
	return 0;
}

int pressure_starved(const struct pressure_point *a, const struct pressure_point *b,
		     const struct pressure_limits *lim, struct pressure_share *ret)
{
	struct pressure_limits on = *lim;

	/* the gate's switch (cpu and io at 100) is not this judgement's */
	on.cpu_pct = lim->window_cpu_pct < 100 ? lim->window_cpu_pct : 99;
	on.io_pct = lim->io_pct < 100 ? lim->io_pct : 99;
	pressure_between(a, b, &on, ret);
	judge(ret, &on, on.cpu_pct, 1);
	return ret->contended;
}
