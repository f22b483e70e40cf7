/* psi.h -- the host's pressure files read (/proc/pressure/cpu, io): the
 * parse is common/psi.h's, shared with the guest. */
#ifndef PSI_H
#define PSI_H

#include "common/psi.h"

/*
 * Read and parse path. Returns 0; 1 when the kernel has no PSI (no such
 * file, or EOPNOTSUPP, as with psi=0 on its command line); -1 with err.
 */
int psi_read(const char *path, struct psi *ret, char *err);

/* Does errno e from opening or reading a pressure file mean "no PSI here"? */
int psi_absent(int e);

#endif
