/* fmt.h -- text into a caller's fixed buffer, never cut without saying so:
 * fmtbuf fails when the text does not fit, fmtcut cuts on purpose and marks it. */
#ifndef FMT_H
#define FMT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * snprintf into buf (len bytes) that fails: 0, or -1 when the text did not
 * fit (buf then holds what fit). For paths, names, SQL and protocol lines,
 * where a cut text is a wrong one; the caller says what did not fit.
 */
int fmtbuf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), warn_unused_result));
int vfmtbuf(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0), warn_unused_result));

/*
 * snprintf into buf for text a person reads (a message, a reason, a table
 * cell): a text too long is cut to fit and ends in "...", so the cut shows.
 */
void fmtcut(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void vfmtcut(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
