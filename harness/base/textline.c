/* textline.c -- one line of a terminal or a log from any text: what a matrix,
 * a file or a guest put in a message cannot drive the terminal or split the line. */
#define _GNU_SOURCE             /* vasprintf */
#include "base/textline.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong 3- and 4-byte forms, surrogates, beyond U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/* A control byte as JSON writes it. */
static void escape_control(FILE *f, unsigned c)
{
	switch (c) {
	case '\n': fputs("\\n", f); break;
	case '\r': fputs("\\r", f); break;
	case '\t': fputs("\\t", f); break;
	default: fprintf(f, "\\u%04x", c);
	}
}

/* Length of the sequence at p (n bytes left) that goes out as it is; 0: escape it. */
static size_t plain_len(const unsigned char *p, size_t n)
{
	size_t k = utf8_len(p, n);

	if (k == 0 || p[0] < 0x20 || p[0] == 0x7f || (p[0] == 0xc2 && p[1] < 0xa0))
		return 0;       /* not UTF-8, C0, DEL, C1 (U+0080..U+009F) */
	return k;
}

void escape_text_n(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, j, k;

	while (i < len) {
		for (j = i; j < len && (k = plain_len(p + j, len - j)); j += k)
			;
		fwrite(p + i, 1, j - i, f);     /* a run of plain text at once */
		if (j == len)
			break;
		k = utf8_len(p + j, len - j);
		if (k == 0)
			fprintf(f, "\\x%02x", p[j]);
		else
			escape_control(f, k == 2 ? p[j + 1] : p[j]);
		i = j + (k ? k : 1);
	}
}

void escape_vline(FILE *f, const char *fmt, va_list ap)
{
	char *text = NULL;
	int n = vasprintf(&text, fmt, ap);

	if (n < 0)
		fputs("(out of memory)", f);
	else
		escape_text_n(f, text, (size_t)n);
	fputc('\n', f);
	free(text);
}

void escape_line(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	escape_vline(f, fmt, ap);
	va_end(ap);
}
