/* gitconfine.c -- a source tree's git metadata resolved and confined like the tree:
 * its .git (a directory, or a file's "gitdir:"), the commondir, objects and alternates. */
#include "spec/gitconfine.h"
#include "base/err.h"
#include "base/proc.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define GITFILE_MAX    4096   /* a .git file or a commondir: one line */
#define ALTERNATES_MAX 65536
#define ALTERNATE_HOPS 5      /* as git: alternates of alternates, this deep */

/*
 * The small file at path, itself confined to r first (a link out is not read,
 * so nothing of a file outside reaches a message), whole into *text.
 */
static int read_confined(const struct image_roots *r, const char *path, size_t max,
			 char **text, char *err)
{
	char real[PATH_MAX];
	size_t len;

	if (image_confine(r, path, "git file", 0, real, err) < 0 ||
	    read_regular_file(real, max, text, &len, err) < 0)
		return -1;
	if (memchr(*text, '\0', len))
		return errorf(err, "%s: holds a NUL byte", path);
	return 0;
}

/* The one line of the small file at path (its line end taken off) into line (PATH_MAX). */
static int one_line(const struct image_roots *r, const char *path, char *line, char *err)
{
	_cleanup_free_ char *text = NULL;
	size_t n;

	if (read_confined(r, path, GITFILE_MAX, &text, err) < 0)
		return -1;
	n = strcspn(text, "\r\n");
	if (!n || n >= PATH_MAX)
		return errorf(err, "%s: expected one line naming a path", path);
	memcpy(line, text, n);
	line[n] = '\0';
	return 0;
}

/*
 * The directory name that file names (absolute, or relative to dir as git
 * takes it) resolved into real: it must lie in roots. -1 with "FILE: ..." if
 * it does not, or is not a directory.
 */
static int confine_dir(const struct image_roots *r, const char *file, const char *dir,
		       const char *name, char *real, char *err)
{
	char path[PATH_MAX], msg[ERR_MAX];

	if ((name[0] == '/' ? pathf(path, err, "%s", name) :
	     pathf(path, err, "%s/%s", dir, name)) < 0)
		return -1;
	if (image_confine(r, path, "git directory", 1, real, msg) < 0)
		return errorf(err, "%.200s: %s", file, msg);
	return 0;
}

/* The entries of objects/info/alternates below objects (resolved), and theirs, hops deep. */
static int confine_alternates(const struct image_roots *r, const char *objects, int hops,
			      char *err)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX], real[PATH_MAX], *line, *next;

	if (pathf(path, err, "%s/info/alternates", objects) < 0)
		return -1;
	if (access(path, F_OK) < 0)
		return 0;
	if (!hops)
		return errorf(err, "%s: alternates more than %d deep", path, ALTERNATE_HOPS);
	if (read_confined(r, path, ALTERNATES_MAX, &text, err) < 0)
		return -1;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (line[0] == '"')
			return errorf(err, "%s: '%.80s': expected an unquoted path", path, line);
		if (confine_dir(r, path, objects, line, real, err) < 0 ||
		    confine_alternates(r, real, hops - 1, err) < 0)
			return -1;
	}
	return 0;
}

/* tree/.git resolved into gitdir: the directory it is or leads to, or its file's "gitdir:". */
static int git_dir(const struct image_roots *r, const char *tree, char *gitdir, char *err)
{
	char dotgit[PATH_MAX], real[PATH_MAX], line[PATH_MAX], msg[ERR_MAX];
	struct stat st;

	if (pathf(dotgit, err, "%s/.git", tree) < 0)
		return -1;
	if (image_confine(r, dotgit, "git directory", 2, real, msg) < 0)
		return errorf(err, "%s", msg);
	if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
		strcpy(gitdir, real);
		return 0;
	}
	if (one_line(r, real, line, err) < 0)
		return -1;
	if (strncmp(line, "gitdir: ", 8))
		return errorf(err, "%.200s: expected a directory or a file saying \"gitdir: PATH\"",
			      dotgit);
	return confine_dir(r, dotgit, tree, line + 8, gitdir, err);
}

int gitconfine_tree(const struct image_roots *r, const char *tree, char *err)
{
	char gitdir[PATH_MAX], common[PATH_MAX], objects[PATH_MAX], path[PATH_MAX],
	     line[PATH_MAX];
	struct stat st;

	if (pathf(path, err, "%s/.git", tree) < 0)
		return -1;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : errorf(err, "%s: %s", path, strerror(errno));
	if (git_dir(r, tree, gitdir, err) < 0 || pathf(path, err, "%s/commondir", gitdir) < 0)
		return -1;
	if (access(path, F_OK) < 0)
		strcpy(common, gitdir);
	else if (one_line(r, path, line, err) < 0 ||
		 confine_dir(r, path, gitdir, line, common, err) < 0)
		return -1;
	if (pathf(path, err, "%s/objects", common) < 0)
		return -1;
	if (access(path, F_OK) < 0)
		return 0;
	if (image_confine(r, path, "git directory", 1, objects, err) < 0)
		return -1;
	return confine_alternates(r, objects, ALTERNATE_HOPS, err);
}
