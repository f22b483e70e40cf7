/* escape.c -- one escaper for everything plot.c and html.c write from the
 * database: no name, reason or console line can open a tag or break the XML. */
#include "output/escape.h"
#include "base/textline.h"

#include <string.h>

/* The XML entity that stands for c, or NULL when c needs none. */
static const char *entity(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default: return NULL;
	}
}

void escape_xml_n(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < len) {
		k = utf8_len(p + i, len - i);
		if (p[i] == '\r')            /* serial consoles end lines with \r\n */
			;
		else if (entity(p[i]))
			fputs(entity(p[i]), f);
		else if (k == 0 || p[i] == 0x7f || (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n'))
			fputc('?', f);
		else
			fwrite(p + i, 1, k, f);
		i += k ? k : 1;
	}
}

void escape_xml(FILE *f, const char *s)
{
	if (s)
		escape_xml_n(f, s, strlen(s));
}
