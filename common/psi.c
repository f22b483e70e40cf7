/* psi.c -- a pressure file parsed strictly: bounded text, fixed keys in
 * their order, averages in range, totals without overflow (common/psi.h). */
#include "common/psi.h"
#include "common/err.h"

#include <string.h>

/* "D+" or "D+.D+" at *p, at most 100; advances *p. -1 if not. */
static int parse_avg(const char **p, const char *end, double *ret)
{
	const char *s = *p;
	double v = 0, scale = 1;
	int digits = 0;

	while (s < end && *s >= '0' && *s <= '9' && digits < 3) {
		v = v * 10 + (*s++ - '0');
		digits++;
	}
	if (!digits)
		return -1;
	if (s < end && *s == '.') {
		s++;
		for (digits = 0; s < end && *s >= '0' && *s <= '9' && digits < 2; digits++) {
			scale /= 10;
			v += (*s++ - '0') * scale;
		}
		if (!digits)
			return -1;
	}
	if (v > 100)
		return -1;
	*ret = v;
	*p = s;
	return 0;
}

/* At most 19 decimal digits at *p (no overflow of uint64_t); advances *p. */
static int parse_total(const char **p, const char *end, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		if (++digits > 19)
			return -1;
		v = v * 10 + (uint64_t)(*s++ - '0');
	}
	if (!digits)
		return -1;
	*ret = v;
	*p = s;
	return 0;
}

/* The literal word at *p; advances *p. */
static int expect_word(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return -1;
	*p += n;
	return 0;
}

/* One line beginning with name, up to and including its '\n'; advances *p. */
static int parse_line(const char **p, const char *end, const char *name, struct psi_line *l)
{
	const char *s = *p;

	if (expect_word(&s, end, name) < 0 || expect_word(&s, end, " avg10=") < 0 ||
	    parse_avg(&s, end, &l->avg10) < 0 || expect_word(&s, end, " avg60=") < 0 ||
	    parse_avg(&s, end, &l->avg60) < 0 || expect_word(&s, end, " avg300=") < 0 ||
	    parse_avg(&s, end, &l->avg300) < 0 || expect_word(&s, end, " total=") < 0 ||
	    parse_total(&s, end, &l->total) < 0 || expect_word(&s, end, "\n") < 0)
		return -1;
	l->present = 1;
	*p = s;
	return 0;
}

int psi_parse(const char *text, size_t len, struct psi *ret, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	struct psi v = { { 0 }, { 0 } };

	if (len > PSI_TEXT_MAX)
		return errorfn(err, errlen, "pressure file of %zu bytes, expected at most %d", len,
			       PSI_TEXT_MAX);
	if (parse_line(&p, end, "some", &v.some) < 0)
		return errorfn(err, errlen, "pressure line 1: expected 'some avg10=.. avg60=.. "
			       "avg300=.. total=N'");
	if (p < end && parse_line(&p, end, "full", &v.full) < 0)
		return errorfn(err, errlen, "pressure line 2: expected 'full avg10=.. avg60=.. "
			       "avg300=.. total=N'");
	if (p != end)
		return errorfn(err, errlen, "pressure file: unexpected text after line %d",
			       v.full.present ? 2 : 1);
	*ret = v;
	return 0;
}
