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

/*
 * What a failed command said last, for a message that travels (an API
 * client cannot read the host's log): the last n non-empty lines of the file
 * at path from byte offset from on (only its last TEXT_TAIL_READ bytes are
 * read), in order, " | "-joined into out (size bytes): each line trimmed and
 * cut at TEXT_TAIL_LINE bytes, every byte that is not printable ASCII a '?'.
 * "" if the file cannot be read or holds no such line. A symlink is not
 * followed.
 */
#define TEXT_TAIL_READ (64 << 10)
#define TEXT_TAIL_LINE 160
void text_tail(const char *path, long long from, unsigned n, char *out, size_t size);

#endif
