/* textline.c -- one line of a terminal or a log from any text: what a matrix,
 * a file or a guest put in a message cannot drive the terminal or split the line. */
#define _GNU_SOURCE             /* vasprintf */
#include "base/textline.h"
#include "base/err.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The bytes of path from max(from, its end - TEXT_TAIL_READ) on (malloc'd, *len), or NULL. */
static char *read_end(const char *path, long long from, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	long long start;
	ssize_t r;

	*len = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= from)
		goto out;
	start = st.st_size - TEXT_TAIL_READ > from ? st.st_size - TEXT_TAIL_READ : from;
	buf = malloc((size_t)(st.st_size - start) + 1);
	while (buf && *len < (size_t)(st.st_size - start)) {
		r = pread(fd, buf + *len, (size_t)(st.st_size - start) - *len,
			  (off_t)(start + (long long)*len));
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	if (buf)
		buf[*len] = '\0';
out:
	close(fd);
	return buf;
}

/* Line [p, p + n) trimmed, cut and made printable ASCII, after " | " unless first. */
static size_t tail_line(const char *p, size_t n, int first, char *out, size_t size)
{
	size_t o = 0;

	while (n && (p[0] == ' ' || p[0] == '\t'))
		p++, n--;
	while (n && strchr(" \t\r", p[n - 1]))
		n--;
	if (n > TEXT_TAIL_LINE)
		n = TEXT_TAIL_LINE;
	if (!first)
		for (const char *s = " | "; *s && o + 1 < size; s++)
			out[o++] = *s;
	for (size_t i = 0; i < n && o + 1 < size; i++)
		out[o++] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	out[o] = '\0';
	return o;
}

void text_tail(const char *path, long long from, unsigned n, char *out, size_t size)
{
	const char *starts[16], *ends[16];
	_cleanup_free_ char *buf = NULL;
	size_t len, o = 0;
	unsigned k = 0;

	if (!size)
		return;
	out[0] = '\0';
	if (n > 16)
		n = 16;
	if (!(buf = read_end(path, from < 0 ? 0 : from, &len)))
		return;
	/* from the end back: the last n lines with something besides blanks on them */
	for (const char *e = buf + len; e > buf && k < n;) {
		const char *s = e;
		while (s > buf && s[-1] != '\n')
			s--;
		if (strspn(s, " \t\r") < (size_t)(e - s)) {
			starts[k] = s;
			ends[k++] = e;
		}
		e = s > buf ? s - 1 : buf;
	}
	while (k-- > 0 && o + 1 < size)
		o += tail_line(starts[k], (size_t)(ends[k] - starts[k]), o == 0, out + o, size - o);
}
