/* fmt.c -- text into a caller's fixed buffer, never cut without saying so
 * (fmt.h): the one place snprintf's result is judged. */
#include "fmt.h"

#include <stdio.h>
#include <string.h>

int vfmtbuf(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, len, fmt, ap);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int fmtbuf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfmtbuf(buf, len, fmt, ap);
	va_end(ap);
	return rc;
}

/* A cut text's last bytes become "..." (as many dots as fit). */
void vfmtcut(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t dots;
	int n;

	if (!len)
		return;
	n = vsnprintf(buf, len, fmt, ap);
	if (n < 0) {
		buf[0] = '\0';
		return;
	}
	if ((size_t)n < len)
		return;
	dots = len - 1 < 3 ? len - 1 : 3;
	memset(buf + len - 1 - dots, '.', dots);
}

void fmtcut(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmtcut(buf, len, fmt, ap);
	va_end(ap);
}
