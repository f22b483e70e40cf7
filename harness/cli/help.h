/* help.h -- the pages of docs/, built into `harness` (build/gen/docs.c, made
 * by tools/embed_docs.sh), so `harness help TOPIC` prints what docs/TOPIC.md says. */
#ifndef HELP_H
#define HELP_H

/* One page: docs/TOPIC.md's name without .md, and its whole text. */
struct help_page {
	const char *topic;
	const char *text;
};

extern const struct help_page help_pages[];
extern const unsigned help_npages;

#endif
