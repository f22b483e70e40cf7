/* gitconfine.h -- where a source tree's git data really lies: a .git file's
 * gitdir, its commondir, objects and alternates, each confined like the tree. */
#ifndef GITCONFINE_H
#define GITCONFINE_H

#include "vm/image.h"

/*
 * The git metadata of tree (resolved, already confined to r): tree/.git, a
 * directory or a link to one or a file "gitdir: PATH" (relative to tree);
 * the gitdir's "commondir" (relative to the gitdir), its objects directory and
 * every objects/info/alternates entry (relative to that objects directory, and
 * theirs, 5 deep) are resolved with realpath() and must lie in r, so that no
 * commit of a repository outside r is built. 0 for a tree without .git. -1
 * with one line naming the file and the path that leads out.
 */
int gitconfine_tree(const struct image_roots *r, const char *tree, char *err);

#endif
