/* err.h -- the one error convention of host, shared and guest code: a function
 * that can fail returns -1 and leaves one line in a buffer its caller owns. */
#ifndef COMMON_ERR_H
#define COMMON_ERR_H

#include <stddef.h>

#define ERR_MAX 512

/*
 * Format one line into err (len bytes; a longer one is cut and ends in
 * "...") unless err is NULL; returns -1, for "return errorfn(...)". Shared
 * and guest code, whose buffers may be a wire field's size, pass it.
 */
int errorfn(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* errorfn into a char[ERR_MAX]: the host's buffers, every one of them. */
#define errorf(err, ...) errorfn((err), ERR_MAX, __VA_ARGS__)

#endif
