/* pressure.c -- the host's pressure read from /proc (PSI totals, else the
 * load average) and judged: the share of a window's wall time stalled. */
#include "run/pressure.h"
#include "base/err.h"
#include "base/psi.h"

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

	snprintf(path, sizeof(path), "%s/loadavg", proc);
	if (!(f = fopen(path, "re")))
		return NAN;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%lf", &load) != 1 || load < 0)
		load = NAN;
	fclose(f);
	return load;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int pressure_read(const char *proc, struct pressure_point *ret, char *err)
{
	struct pressure_point p = { .ms = mono_ms(), .load = read_load(proc) };
	char path[256];
	struct psi cpu, io;
	int rc;

	snprintf(path, sizeof(path), "%s/pressure/cpu", proc);
	if ((rc = psi_read(path, &cpu, err)) < 0)
		return -1;
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/pressure/io", proc);
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
	*ret = p;
	return 0;
}

/* delta µs as % of ms of wall time; a counter that went back (never) reads 0. */
static double share(uint64_t a, uint64_t b, int64_t ms)
{
	return b < a || ms <= 0 ? 0 : (double)(b - a) / 10.0 / (double)ms;
}

/* why and contended from the shares in r, against lim and cpu (none when the gate is off). */
static void judge(struct pressure_share *r, const struct pressure_limits *lim, double cpu)
{
	r->why[0] = '\0';
	if (pressure_gate_off(lim))
		;
	else if (r->psi && r->cpu_pct > cpu)
		snprintf(r->why, sizeof(r->why), "cpu some %.1f%% > %.0f%%", r->cpu_pct, cpu);
	else if (r->psi && r->io_pct > lim->io_pct)
		snprintf(r->why, sizeof(r->why), "io some %.1f%% > %.0f%%", r->io_pct, lim->io_pct);
	else if (!r->psi && r->load_pct > lim->load_pct)
		snprintf(r->why, sizeof(r->why), "load %.2f per core (%.0f%%) > %.0f%% (no PSI)",
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
	judge(ret, lim, lim->cpu_pct);
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
	judge(ret, lim, lim->window_cpu_pct);
	return 0;
}
