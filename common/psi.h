/* psi.h -- the kernel's pressure stall information (/proc/pressure/cpu, io,
 * memory; a memcg's memory.pressure) parsed strictly: host and guest share it. */
#ifndef COMMON_PSI_H
#define COMMON_PSI_H

#include <stddef.h>
#include <stdint.h>

#define PSI_TEXT_MAX 256     /* a longer file is refused: two lines are ~120 bytes */

/* One line: its averages (percent of wall time, 0 to 100) and its total (µs). */
struct psi_line {
	int present;
	double avg10, avg60, avg300;
	uint64_t total;
};

/* A pressure file: cpu's has no "full" line before Linux 5.13 (full.present 0). */
struct psi {
	struct psi_line some, full;
};

/*
 * Parse len bytes of a pressure file into *ret: "some avg10=A avg60=A
 * avg300=A total=N\n", then optionally the same beginning "full", each
 * average a decimal 0 to 100, N a decimal of at most 19 digits. Returns 0,
 * or -1 with err naming the line; *ret untouched on failure.
 */
int psi_parse(const char *text, size_t len, struct psi *ret, char *err, size_t errlen);

#endif
