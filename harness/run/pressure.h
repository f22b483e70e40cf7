/* pressure.h -- the host's CPU and I/O pressure as a run sees it: points read
 * from /proc/pressure (or the load average where there is no PSI), and the
 * share of a window's wall time they stalled, against harness.conf's limits. */
#ifndef PRESSURE_H
#define PRESSURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf/conf.h"

/* The host at one moment: PSI's stall totals (µs since its boot) or, without PSI, its load. */
struct pressure_point {
	int64_t ms;                  /* the host's monotonic clock */
	int psi;                     /* 1: the totals were read; 0: the host has no PSI */
	int has_cpu_full;            /* /proc/pressure/cpu has a "full" line (Linux 5.13+) */
	uint64_t cpu_some, cpu_full, io_some, io_full;
	double load;                 /* 1-minute load average; NAN if unreadable */
	int ramp;                    /* before the measured window: it starts at the last such */
	int cpu_known;               /* busy_ms and own_ms were read (proc/stat, the guest's pid) */
	uint64_t busy_ms;            /* the host's CPU time not idle, all CPUs, since boot */
	uint64_t own_ms;             /* the run's own QEMU's CPU time (all its threads) */
};

/*
 * What counts as busy: % of wall time stalled ("some"), or load per core
 * without PSI; cpu_pct before a run (no guest of ours running), window_cpu_pct
 * over a run's measured window (its own guest's vCPUs stall the host too).
 */
struct pressure_limits {
	double cpu_pct, io_pct, load_pct;
	unsigned ncpu;
	double window_cpu_pct;
	double others_pct;           /* a window's cpu stall counts only if others used this much of a CPU */
};

/* What a window saw, and whether that is over the limits. */
struct pressure_share {
	int psi;                     /* the shares are PSI's; 0: load_pct stands in */
	double cpu_pct, io_pct;      /* of the window's wall time stalled; NAN without PSI */
	double load_pct;             /* mean 1-minute load per core over the window, % */
	double others_pct;           /* CPU time of all but the run's guest, % of one CPU; NAN if unknown */
	double seconds;              /* the window's length */
	int contended;
	char why[160];               /* "cpu some 37.2% > 25%", or "" */
};

/* harness.conf's quiet_* keys and this host's online CPUs. */
void pressure_limits_of(const struct conf *c, struct pressure_limits *ret);

/* Is the gate off (cpu and io thresholds 100: nothing can exceed them; the load's is then off too)? */
int pressure_gate_off(const struct pressure_limits *lim);

/*
 * The host now, from proc ("/proc"; tests give a directory of captures):
 * 0 with psi 1, 0 with psi 0 where the kernel has none (load only), -1 with
 * err when a pressure file exists but cannot be read or parsed. qemu: the
 * run's QEMU (0 before a run, or when it is not this process's child): with
 * it, the host's busy CPU time and QEMU's are read too (cpu_known).
 */
int pressure_read(const char *proc, pid_t qemu, struct pressure_point *ret, char *err);

/* The shares between a and b (b later), judged against lim (cpu_pct: the gate's look). */
void pressure_between(const struct pressure_point *a, const struct pressure_point *b,
		      const struct pressure_limits *lim, struct pressure_share *ret);

/*
 * A run's measured window from its series v[0..n) (one point as the job was
 * sent, marked ramp, then one per interval the guest reported, the ramp's
 * marked): from the last point marked ramp (the first point if none is) to
 * the last. Returns 0, or -1 when there is no window (fewer than two points
 * after its start); *ret is then zeroed, not contended. Judged against
 * window_cpu_pct, io_pct and load_pct; a cpu stall over window_cpu_pct is
 * contention only if something but the run's own QEMU used more than
 * others_pct of a CPU meanwhile (when both ends know): a guest whose QEMU
 * wants more threads than the host has cores stalls the host by itself.
 */
int pressure_window(const struct pressure_point *v, size_t n, const struct pressure_limits *lim,
		    struct pressure_share *ret);

/*
 * Was a guest's silence from a to b the host's doing? Judged as a measured
 * window is (window_cpu_pct, others_pct, io_pct, load_pct) even with the
 * gate off: a guest that said nothing while the host took its cores is no
 * hung kernel. 1 with the reason in ret->why, else 0.
 */
int pressure_starved(const struct pressure_point *a, const struct pressure_point *b,
		     const struct pressure_limits *lim, struct pressure_share *ret);

#endif
