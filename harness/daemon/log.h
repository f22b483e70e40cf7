/* log.h -- the daemon's event log: one line per event on stderr, with the
 * time; safe from every thread. Library code does not log; the edges do. */
#ifndef LOG_H
#define LOG_H

/* One line of the daemon's log on stderr: UTC-stamped, escaped, whole (threads do not interleave). */
void hlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
