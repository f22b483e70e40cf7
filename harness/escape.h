/* escape.h -- text from matrices, the database and guests made safe: for SVG
 * and HTML (entities), and for a terminal or a log line (JSON's escapes). */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Write the first len bytes of s to f escaped for XML/HTML text and attribute
 * values: & < > " ' as entities; carriage returns dropped; other control
 * bytes (NUL too) but tab and newline, and bytes that are not well-formed
 * UTF-8, as '?'.
 */
void escape_xml_n(FILE *f, const char *s, size_t len);

/* The same for a NUL-terminated string (NULL writes nothing). */
void escape_xml(FILE *f, const char *s);

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
