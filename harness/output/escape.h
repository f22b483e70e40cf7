/* escape.h -- text from the database (names, reasons, console logs) made safe
 * to put inside SVG and HTML: markup characters as entities, bytes XML forbids replaced. */
#ifndef ESCAPE_H
#define ESCAPE_H

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

#endif
