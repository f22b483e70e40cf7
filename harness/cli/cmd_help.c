/* cmd_help.c -- `harness help [TOPIC]`: a page of docs/ as the file holds it,
 * or the list of pages with their titles; the text is built in (help.h). */
#include "cli/commands.h"
#include "cli/help.h"
#include "base/textline.h"

#include <string.h>

/* A page's title: its first line, without the "# ". */
static void print_title(const struct help_page *p)
{
	const char *t = p->text;

	if (!strncmp(t, "# ", 2))
		t += 2;
	printf("  %-14s %.*s\n", p->topic, (int)strcspn(t, "\n"), t);
}

int cmd_help(const struct conf *c, int argc, char **argv, int json)
{
	unsigned i;

	(void)c;
	(void)json;
	if (argc == 1) {
		printf("harness help TOPIC prints a page of the documentation (docs/TOPIC.md):\n");
		for (i = 0; i < help_npages; i++)
			print_title(&help_pages[i]);
		return 0;
	}
	for (i = 0; i < help_npages; i++) {
		if (!strcmp(help_pages[i].topic, argv[1])) {
			fputs(help_pages[i].text, stdout);
			return 0;
		}
	}
	escape_line(stderr, "harness: help: no page '%s' (harness help lists them)", argv[1]);
	return 1;
}
