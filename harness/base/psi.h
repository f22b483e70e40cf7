/* psi.h -- the kernel's pressure stall information (/proc/pressure/cpu, io)
 * parsed strictly: a "some" line, an optional "full" line, nothing else. */
#ifndef PSI_H
#define PSI_H

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
int psi_parse(const char *text, size_t len, struct psi *ret, char *err);

/*
 * Read and parse path. Returns 0; 1 when the kernel has no PSI (no such
 * file, or EOPNOTSUPP, as with psi=0 on its command line); -1 with err.
 */
int psi_read(const char *path, struct psi *ret, char *err);

/* Does errno e from opening or reading a pressure file mean "no PSI here"? */
int psi_absent(int e);

#endif
