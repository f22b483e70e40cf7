/* series.c -- reading a patch series: mbox messages split on their "From "
 * lines, headers unfolded for the subject and message-id, cover letters left out. */
#include "kbuild/series.h"
#include "base/err.h"
#include "base/proc.h"
#include "vm/image.h"
#include "common/fmt.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* One series_read: where its patch files may resolve to. */
struct reading {
	const struct image_roots *roots;   /* NULL: below dir */
	char dir[PATH_MAX];                /* the series' directory, resolved */
};

/* Does the line at p (len bytes to the end) start with s? */
static int starts(const char *p, size_t len, const char *s)
{
	size_t n = strlen(s);

	return len >= n && !memcmp(p, s, n);
}

/* The start of the line after the one at p, or end. */
static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

/* Does a header line ("Name: value") start at p? */
static int header_line(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (isalnum((unsigned char)*q) || *q == '-'))
		q++;
	return q > p && q < end && *q == ':';
}

/* A message starts at p: a "From " line at the start or after an empty line, then a header. */
static int message_start(const char *text, const char *p, const char *end)
{
	if (!starts(p, (size_t)(end - p), "From "))
		return 0;
	if (p != text && !(p >= text + 2 && p[-1] == '\n' && p[-2] == '\n'))
		return 0;
	return header_line(next_line(p, end), end);
}

/* Does the message hold a diff (a cover letter does not)? */
static int has_diff(const char *p, const char *end)
{
	for (; p < end; p = next_line(p, end)) {
		if (starts(p, (size_t)(end - p), "diff --git "))
			return 1;
		if (starts(p, (size_t)(end - p), "--- ") &&
		    starts(next_line(p, end), (size_t)(end - next_line(p, end)), "+++ "))
			return 1;
	}
	return 0;
}

/*
 * The value of header name (unfolded, one space per fold) in the headers
 * between p and end into out (size bytes, truncated); "" if absent.
 */
static void header_value(const char *p, const char *end, const char *name, char *out,
			 size_t size)
{
	size_t n = strlen(name), o = 0;
	const char *q, *eol;

	out[0] = '\0';
	for (; p < end && *p != '\n'; p = next_line(p, end)) {
		if ((size_t)(end - p) <= n || strncasecmp(p, name, n) || p[n] != ':')
			continue;
		for (q = p + n + 1; q < end; q = eol + 1) {
			eol = memchr(q, '\n', (size_t)(end - q));
			eol = eol ? eol : end;
			if (q != p + n + 1 && *q != ' ' && *q != '\t')
				break;
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			for (; q < eol && o + 1 < size; q++)
				if (*q != '\r')
					out[o++] = *q >= 0x20 && *q < 0x7f ? *q : '?';
			if (o + 1 < size)
				out[o++] = ' ';
			if (eol == end)
				break;
		}
		break;
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

/* "[PATCH v4 2/3] mm: x" -> "mm: x": bracketed prefixes and "Re:" taken off. */
static void clean_subject(char *s)
{
	char *p = s, *close;

	for (;;) {
		while (*p == ' ')
			p++;
		if (*p == '[' && (close = strchr(p, ']'))) {
			p = close + 1;
			continue;
		}
		if (!strncasecmp(p, "re:", 3)) {
			p += 3;
			continue;
		}
		break;
	}
	memmove(s, p, strlen(p) + 1);
}

/* "<abc@x>" -> "abc@x", only the characters a message-id may hold. */
static void clean_msgid(char *s)
{
	char *p = s, *o = s;

	while (*p == ' ' || *p == '<')
		p++;
	for (; *p && *p != '>' && *p != ' '; p++)
		if (isalnum((unsigned char)*p) || strchr("!#$%&'*+-/=?^_`{|}~.@", *p))
			*o++ = *p;
	*o = '\0';
}

/*
 * One message of len bytes as the series' next patch: its Subject (fallback
 * when it has none) and Message-Id cleaned, its text copied; at most
 * SERIES_MAX_PATCHES.
 */
static int add_patch(struct series *s, const char *text, size_t len, const char *fallback,
		     const char *label, char *err)
{
	struct series_patch *p;
	const char *end = text + len, *hdr = text;

	if (s->n == SERIES_MAX_PATCHES)
		return errorf(err, "%s: more than %d patches: a series holds at most %d", label,
			      SERIES_MAX_PATCHES, SERIES_MAX_PATCHES);
	if (!(s->n & (s->n - 1))) {     /* 0, 1, 2, 4...: double */
		p = realloc(s->p, (s->n ? 2 * s->n : 1) * sizeof(*p));
		if (!p)
			return errorf(err, "out of memory");
		s->p = p;
	}
	p = &s->p[s->n];
	memset(p, 0, sizeof(*p));
	if (starts(hdr, len, "From "))
		hdr = next_line(hdr, end);
	header_value(hdr, end, "Subject", p->subject, sizeof(p->subject));
	header_value(hdr, end, "Message-Id", p->msgid, sizeof(p->msgid));
	clean_subject(p->subject);
	clean_msgid(p->msgid);
	if (!p->subject[0])
		fmtcut(p->subject, sizeof(p->subject), "%s", fallback);
	p->text = malloc(len + 1);
	if (!p->text)
		return errorf(err, "out of memory");
	memcpy(p->text, text, len);
	p->text[len] = '\0';
	p->len = len;
	s->n++;
	return 0;
}

/* Every message of an mbox (or the one patch of a plain file) that holds a diff. */
static int split_mbox(struct series *s, const char *text, size_t len, const char *fallback,
		      const char *label, char *err)
{
	const char *end = text + len, *start = text, *p;
	unsigned before = s->n;

	if (memchr(text, '\0', len))
		return errorf(err, "%s: holds a NUL byte: not a patch or an mbox", label);
	for (p = next_line(text, end); start < end; p = next_line(p, end)) {
		if (p < end && !message_start(text, p, end))
			continue;
		if (has_diff(start, p) && add_patch(s, start, (size_t)(p - start), fallback,
						     label, err) < 0)
			return -1;
		start = p;
	}
	if (s->n == before)
		return errorf(err, "%s: no patch in it (no 'diff --git' or '---'/'+++' lines)",
			      label);
	return 0;
}

/* real (a resolved path) opened read-only without following a link put in its way since. */
static int open_resolved(const char *real)
{
	int fd = open_no_symlinks(real, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd;      /* older kernels and some seccomp filters: O_NOFOLLOW below */
	return open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
}

/* The patch file at real, a regular file of at most SERIES_FILE_MAX bytes, whole. */
static int read_patch_file(const char *real, char **ret, size_t *ret_len, char *err)
{
	_cleanup_close_ int fd = open_resolved(real);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0, size;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0)
		return errorf(err, "%s: cannot open: %s", real, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errorf(err, "%s: not a regular file", real);
	if ((uintmax_t)st.st_size > SERIES_FILE_MAX)
		return errorf(err, "%s: larger than %d bytes", real, SERIES_FILE_MAX);
	size = (size_t)st.st_size;
	if (!(buf = malloc(size + 2)))
		return errorf(err, "%s: out of memory", real);
	/* one byte more than its size: a file that grew since fstat is refused */
	while (len <= size && (n = read(fd, buf + len, size + 1 - len)) != 0) {
		if (n < 0 && errno != EINTR)
			return errorf(err, "%s: cannot read: %s", real, strerror(errno));
		len += n > 0 ? (size_t)n : 0;
	}
	if (len > size)
		return errorf(err, "%s: grew while it was read", real);
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

/* Every patch of an mbox (or a single patch file) at path. */
static int read_mbox(struct series *s, const char *path, const char *fallback, char *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	if (read_patch_file(path, &text, &len, err) < 0)
		return -1;
	return split_mbox(s, text, len, fallback, path, err);
}

/* 1 if real (resolved) lies below dir (resolved). */
static int below_dir(const char *real, const char *dir)
{
	size_t n = strcmp(dir, "/") ? strlen(dir) : 0;

	return !strncmp(real, dir, n) && real[n] == '/';
}

/*
 * The patch file name of a directory or a series file (label: "DIR" or
 * "SERIES:LINE"), resolved: it must stay below rd->dir, or in rd->roots if
 * given; then read without following a link. Refused naming the entry.
 */
static int read_entry(struct series *s, const struct reading *rd, const char *name,
		      const char *label, char *err)
{
	char path[PATH_MAX], real[PATH_MAX], msg[ERR_MAX];

	if (pathf(path, err, "%s/%s", rd->dir, name) < 0)
		return -1;
	if (rd->roots) {
		if (image_confine(rd->roots, path, "patch", 0, real, msg) < 0)
			return errorf(err, "%s: '%.80s': %s", label, name, msg);
	} else if (!realpath(path, real)) {
		return errorf(err, "%s: '%.80s': cannot resolve: %s", label, name, strerror(errno));
	} else if (!below_dir(real, rd->dir)) {
		return errorf(err, "%s: '%.80s' resolves to %.150s, outside the series' directory",
			      label, name, real);
	}
	return read_mbox(s, real, name, err);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 if a directory entry is a patch: *.patch or *.diff, not hidden. */
static int patch_name(const char *n)
{
	size_t len = strlen(n);

	return n[0] != '.' && ((len > 6 && !strcmp(n + len - 6, ".patch")) ||
			       (len > 5 && !strcmp(n + len - 5, ".diff")));
}

/* The names of DIR's *.patch and *.diff files, sorted (heap array, NULL-terminated). */
static int dir_names(const char *dir, char ***ret, size_t *ret_n, char *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, **grown;
	size_t n = 0;
	int rc = 0;

	if (!d)
		return errorf(err, "%s: cannot open: %s", dir, strerror(errno));
	while (rc == 0 && (e = readdir(d))) {
		if (!patch_name(e->d_name))
			continue;
		if (n == SERIES_MAX_PATCHES)
			rc = errorf(err, "%s: more than %d patch files: a series holds at most %d",
				    dir, SERIES_MAX_PATCHES, SERIES_MAX_PATCHES);
		else if (!(grown = realloc(names, (n + 2) * sizeof(*names))))
			rc = errorf(err, "%s: out of memory", dir);
		else if (!((names = grown)[n] = strdup(e->d_name)))
			rc = errorf(err, "%s: out of memory", dir);
		else
			names[++n] = NULL;
	}
	closedir(d);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return -1;
	}
	if (names)
		qsort(names, n, sizeof(*names), cmp_names);
	*ret = names;
	*ret_n = n;
	return 0;
}

/* Every patch file of a directory, in name order; none is an error. */
static int read_dir(struct series *s, const struct reading *rd, char *err)
{
	char **names = NULL;
	size_t n = 0, i;
	int rc = 0;

	if (dir_names(rd->dir, &names, &n, err) < 0)
		return -1;
	if (!n)
		rc = errorf(err, "%s: no *.patch or *.diff files in this directory", rd->dir);
	for (i = 0; i < n && rc == 0; i++)
		rc = read_entry(s, rd, names[i], rd->dir, err);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* One line of a quilt series: "NAME" or "NAME -p1", '#' comments; name in *name. */
static int series_entry(char *line, const char *path, unsigned lineno, char **name,
			char *err)
{
	char *opt, *end;

	line[strcspn(line, "#")] = '\0';
	*name = line + strspn(line, " \t");
	end = *name + strcspn(*name, " \t");
	opt = end + strspn(end, " \t");
	*end = '\0';
	if (!**name)
		return 0;
	opt[strcspn(opt, " \t\r")] = '\0';
	if (*opt && strcmp(opt, "-p1"))
		return errorf(err, "%s:%u: '%.40s': only -p1 patches are taken", path, lineno, opt);
	if (strchr(*name, '/') || !strcmp(*name, "..") || !strcmp(*name, "."))
		return errorf(err, "%s:%u: '%.80s': a patch must lie beside the series file",
			      path, lineno, *name);
	return 1;
}

/* A quilt series file: each patch it names, from beside it, in its order. */
static int read_quilt(struct series *s, const struct reading *rd, const char *path, char *err)
{
	_cleanup_free_ char *text = NULL;
	char label[PATH_MAX + 16], *line, *next, *name;
	unsigned lineno = 0;
	size_t len;
	int r;

	if (read_regular_file(path, 1 << 20, &text, &len, err) < 0)
		return -1;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		r = series_entry(line, path, lineno, &name, err);
		fmtcut(label, sizeof(label), "%s:%u", path, lineno);
		if (r < 0 || (r == 1 && read_entry(s, rd, name, label, err) < 0))
			return -1;
	}
	if (!s->n)
		return errorf(err, "%s: the series names no patch", path);
	return 0;
}

int series_read_confined(const char *path, const struct image_roots *roots, struct series *s,
			 char *err)
{
	const char *base = strrchr(path, '/');
	struct reading rd = { .roots = roots };
	char real[PATH_MAX];
	struct stat st;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!base)
		return errorf(err, "%s: expected an absolute path", path);
	if (!realpath(path, real) || stat(real, &st) < 0)
		return errorf(err, "%s: %s", path, strerror(errno));
	if (fmtbuf(rd.dir, sizeof(rd.dir), "%s", real) < 0)
		return errorf(err, "%s: its real path is over %zu bytes", path,
			      sizeof(rd.dir) - 1);
	if (!S_ISDIR(st.st_mode))
		*strrchr(rd.dir, '/') = '\0';   /* its directory ("" for one in "/") */
	if (S_ISDIR(st.st_mode))
		rc = read_dir(s, &rd, err);
	else if (!strcmp(base + 1, "series"))
		rc = read_quilt(s, &rd, real, err);
	else
		rc = read_mbox(s, real, base + 1, err);
	if (rc < 0)
		series_free(s);
	return rc;
}

int series_read(const char *path, struct series *s, char *err)
{
	return series_read_confined(path, NULL, s, err);
}

void series_free(struct series *s)
{
	for (unsigned i = 0; i < s->n; i++)
		free(s->p[i].text);
	free(s->p);
	memset(s, 0, sizeof(*s));
}
