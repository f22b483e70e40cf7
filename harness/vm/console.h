/* console.h -- what a guest's serial console log says about its kernel:
 * a panic, an oops or a BUG (the run crashed), and how many WARNINGs. */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stddef.h>

struct console_report {
	int crashed;            /* a panic, oops, BUG or fault was printed */
	int warnings;           /* "WARNING:" lines */
	char first[1024];       /* the crash's first lines, as printed */
	char last[160];         /* the last line with a printable character, cut */
	char agent[160];        /* the agent's last own line ("agent: ..."), cut */
};

/*
 * Read path line by line (long lines cut, any size of file) and report.
 * A missing file reports nothing. Returns 0, or -1 if it cannot be read.
 */
int console_scan(const char *path, struct console_report *out);

/* Does this one line start a crash report? (exposed for tests) */
int console_line_is_crash(const char *line);

#endif
