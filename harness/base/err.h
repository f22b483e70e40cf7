/* err.h -- the harness's error convention (common/err.h's) and its cleanup helpers:
 * functions return -1 and leave a one-line message in a caller's char[ERR_MAX].
 *
 * Folder base/: what every stage uses: this error convention, processes with deadlines
 * and small file helpers (proc.c), hashes (hash.c), the results directory's lock
 * (lock.c) and modes (results.c), one escaped line for a terminal or a log (textline.c).
 * It may call: common/.
 */
#ifndef ERR_H
#define ERR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/err.h"   /* ERR_MAX, errorf: the convention host, shared and guest code share */

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd) { if (*fd >= 0) close(*fd); }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }

#define _cleanup_free_   _cleanup_(freep)
#define _cleanup_close_  _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership out of a cleanup variable. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
