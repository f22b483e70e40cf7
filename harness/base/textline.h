/* textline.h -- text quoted from matrices, files and guests made safe for one
 * line of a terminal or a log: control bytes escaped as JSON writes them. */
#ifndef TEXTLINE_H
#define TEXTLINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), 0 if none. */
size_t utf8_len(const unsigned char *s, size_t n);

/*
 * Write the first len bytes of s to f for a terminal: control bytes as JSON
 * writes them (\n, \r, \t, else \u001b and so on), DEL and the C1 controls
 * U+0080..U+009F likewise, bytes that are not well-formed UTF-8 as \xHH;
 * the rest as is. No escape sequence reaches the terminal, no newline splits
 * the line.
 */
void escape_text_n(FILE *f, const char *s, size_t len);

/*
 * One line to f: fmt's text escaped (escape_text_n), then a newline. Every
 * error the CLI prints, and the daemon's log (hlog), go through it.
 */
void escape_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void escape_vline(FILE *f, const char *fmt, va_list ap);

#endif
