/* err.c -- the one error convention's formatter (err.h): one line into the
 * caller's buffer, cut visibly when it does not fit. */
#include "common/err.h"
#include "common/fmt.h"

#include <stdarg.h>

int errorfn(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vfmtcut(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}
