/* series.h -- a patch series as users have it: an mbox (`b4 am`, an archive's
 * download, `git format-patch --stdout`), a directory of format-patch files,
 * or a quilt "series" file; read strictly into patches in order. */
#ifndef SERIES_H
#define SERIES_H

#include <limits.h>
#include <stddef.h>

#define SERIES_MAX_PATCHES 512
#define SERIES_FILE_MAX    (32 << 20)   /* an mbox or a patch file larger than this is refused */
#define SERIES_SUBJECT_MAX 200
#define SERIES_MSGID_MAX   200

struct series_patch {
	char subject[SERIES_SUBJECT_MAX];  /* "[PATCH v4 2/3]" prefixes taken off; printable ASCII */
	char msgid[SERIES_MSGID_MAX];      /* without <>, "" if the patch had none */
	char *text;                        /* the whole message or file, as given (heap) */
	size_t len;
};

struct series {
	struct series_patch *p;
	unsigned n;
};

struct image_roots;

/*
 * Read path into s: a directory is a set of *.patch / *.diff files taken in
 * name order; a file named "series" is a quilt series (one patch file per
 * line, beside it, '#' comments, -p1 only); any other file is an mbox. A
 * message without a diff (a cover letter) is left out. Each patch file of a
 * directory or a series must be a regular file named in that directory (no
 * '/' in series entries), and resolved (realpath) it must stay in roots
 * (vm/image.h), or with roots NULL below the series' own directory: a link
 * leading out is refused naming the entry ("DIR: 'NAME': ..." or
 * "SERIES:LINE: 'NAME': ..."); it is then opened without following links.
 * path itself is the caller's to confine. Returns 0, or -1 with "PATH: ..."
 * (s empty).
 */
int series_read_confined(const char *path, const struct image_roots *roots, struct series *s,
			 char *err);

/* series_read_confined with roots NULL: patches below the series' directory. */
int series_read(const char *path, struct series *s, char *err);

/* Free what series_read put in s. */
void series_free(struct series *s);

#endif
