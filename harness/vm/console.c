/* console.c -- scan a guest's console log for the kernel's crash reports.
 * The markers are the ones the kernel prints at the start of each report. */
#include "vm/console.h"

#include <stdio.h>
#include <string.h>

#define EXCERPT_LINES 20

/* Substrings that open a crash report, x86_64 and arm64 alike. */
static const char *const crash_markers[] = {
	"Kernel panic - not syncing",
	"Oops:",
	"Oops -",
	"BUG: ",
	"kernel BUG at",
	"general protection fault",
	"Unable to handle kernel",
	"Internal error:",
	NULL,
};

int console_line_is_crash(const char *line)
{
	const char *const *m;

	for (m = crash_markers; *m; m++)
		if (strstr(line, *m))
			return 1;
	return 0;
}

/* Append line to the excerpt while it has room for whole lines. */
static void excerpt_add(struct console_report *out, const char *line)
{
	size_t used = strlen(out->first), n = strlen(line);

	if (used + n + 2 > sizeof(out->first))
		return;
	memcpy(out->first + used, line, n);
	out->first[used + n] = '\n';
	out->first[used + n + 1] = '\0';
}

/*
 * The line into to (size len) if it says anything, from its first printable
 * character: printable ASCII only (the rest shown as '?'), cut.
 */
static void keep_line(char *to, size_t len, const char *line)
{
	size_t i, n = 0;

	for (i = 0; line[i] && !(line[i] > ' ' && line[i] < 0x7f); i++)
		;
	if (!line[i])
		return;
	for (; line[i] && n < len - 1; i++)
		to[n++] = line[i] >= ' ' && line[i] < 0x7f ? line[i] : '?';
	to[n] = '\0';
}

int console_scan(const char *path, struct console_report *out)
{
	char line[512];
	int taking = 0, cut = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (cut) {   /* the rest of a line longer than the buffer */
			cut = !strchr(line, '\n');
			continue;
		}
		cut = !strchr(line, '\n');
		line[strcspn(line, "\r\n")] = '\0';
		keep_line(out->last, sizeof(out->last), line);
		if (!strncmp(line, "agent: ", 7))   /* the agent's stderr, as its error says */
			keep_line(out->agent, sizeof(out->agent), line);
		if (strstr(line, "WARNING:"))
			out->warnings++;
		if (!out->crashed && console_line_is_crash(line))
			out->crashed = 1;
		if (out->crashed && taking < EXCERPT_LINES) {
			excerpt_add(out, line);
			taking++;
		}
	}
	fclose(f);
	return 0;
}
