#!/bin/sh
# embed_docs.sh -- the pages of docs/ as C strings, for `harness help TOPIC`
# (the same text the files hold). usage: tools/embed_docs.sh OUT.c PAGE.md...
set -eu
out=$1
shift
{
	echo '/* docs.c -- made by tools/embed_docs.sh from the pages of docs/; do not edit:'
	echo ' * the pages `harness help TOPIC` prints. */'
	echo '#include "cli/help.h"'
	echo
	echo 'const struct help_page help_pages[] = {'
	for f in "$@"; do
		printf '\t{ "%s",\n' "$(basename "$f" .md)"
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' -e 's/^/\t  "/' -e 's/$/\\n"/' "$f"
		printf '\t},\n'
	done
	echo '};'
	echo 'const unsigned help_npages = sizeof(help_pages) / sizeof(help_pages[0]);'
} > "$out.tmp"
mv "$out.tmp" "$out"
