/* log.c -- one line per event on stderr, UTC time first, whole lines only
 * (stdio's lock keeps threads from interleaving them), control bytes escaped. */
#include "daemon/log.h"
#include "base/textline.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

void hlog(const char *fmt, ...)
{
	char stamp[32];
	struct tm tm;
	time_t now = time(NULL);
	va_list ap;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	flockfile(stderr);
	fprintf(stderr, "%s harnessd: ", stamp);
	va_start(ap, fmt);
	escape_vline(stderr, fmt, ap);
	va_end(ap);
	funlockfile(stderr);
}
