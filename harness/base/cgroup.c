/* cgroup.c -- a jail's own memory cgroup: the memory hierarchy found in
 * mountinfo (v1's memory controller, else cgroup2), a child of this process's cgroup there. */
#define _GNU_SOURCE
#include "base/cgroup.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_LEN 4096

/* Is w one of the comma-separated words of list? */
static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS] - FSTYPE
 * SOURCE SUPEROPTS". 1 with root and mnt filled if it is the memory
 * hierarchy of kind v2 (cgroup2) or v1 (cgroup with the memory option).
 */
static int memory_mount(char *line, int v2, char *root, char *mnt)
{
	char *sep = strstr(line, " - "), fs[32], opts[LINE_MAX_LEN];

	if (!sep || sscanf(sep + 3, "%31s %*s %4095s", fs, opts) != 2 ||
	    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
		return 0;
	if (v2)
		return !strcmp(fs, "cgroup2");
	return !strcmp(fs, "cgroup") && has_word(opts, "memory");
}

/* The memory hierarchy's mount point and the root it shows, of kind v2 or v1: 0, or -1. */
static int find_mount(int v2, char *root, char *mnt)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[LINE_MAX_LEN * 2];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = memory_mount(line, v2, root, mnt);
	fclose(f);
	return found ? 0 : -1;
}

/* This process's cgroup in the hierarchy of kind v2 ("0::PATH") or v1 (memory's line). */
static int own_path(int v2, char *path)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[LINE_MAX_LEN], *c1, *c2;
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!(c1 = strchr(line, ':')) || !(c2 = strchr(c1 + 1, ':')))
			continue;
		*c2 = '\0';
		if (v2 ? !strcmp(line, "0") && c2 == c1 + 1 : has_word(c1 + 1, "memory"))
			found = fmtbuf(path, PATH_MAX, "%s", c2 + 1) == 0;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* text into dir/name, whole; -1 with errno. */
static int put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	int fd, r;

	if (fmtbuf(path, sizeof(path), "%s/%s", dir, name) < 0)
		return errno = ENAMETOOLONG, -1;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return r;
}

/* Does dir/name hold the word w (space-separated)? */
static int lists(const char *dir, const char *name, const char *w)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	size_t len;

	if (pathf(path, NULL, "%s/%s", dir, name) < 0 ||
	    read_regular_file(path, LINE_MAX_LEN, &text, &len, NULL) < 0)
		return 0;
	for (char *p = text; (p = strstr(p, w)); p++)
		if ((p == text || p[-1] == ' ') && strchr(" \n", p[strlen(w)]))
			return 1;
	return 0;
}

/* The directory of this process's cgroup in the memory hierarchy, into dir (v2 set). */
static int parent_dir(char *dir, int *v2, char *err)
{
	char root[LINE_MAX_LEN], mnt[LINE_MAX_LEN], own[PATH_MAX];
	const char *rel;

	*v2 = find_mount(0, root, mnt) < 0;
	if (*v2 && find_mount(1, root, mnt) < 0)
		return errorf(err, "no cgroup memory controller is mounted (/proc/self/mountinfo)");
	if (own_path(*v2, own) < 0)
		return errorf(err, "/proc/self/cgroup names no cgroup of the memory hierarchy");
	/* a mount of a subtree (a container's) shows own's path below its root */
	rel = own;
	if (strcmp(root, "/") && !strncmp(own, root, strlen(root)))
		rel = own + strlen(root);
	if (pathf(dir, err, "%s%s", mnt, strcmp(rel, "/") ? rel : "") < 0)
		return -1;
	if (*v2 && !lists(dir, "cgroup.subtree_control", "memory") &&
	    put(dir, "cgroup.subtree_control", "+memory") < 0)
		return errorf(err, "cannot give the memory controller to %s's children "
			      "(cgroup.subtree_control): %s", dir, strerror(errno));
	return 0;
}

/* The limit (and no swap beyond it) written into the new cgroup cg->dir. */
static int set_limit(const struct cgroup_jail *cg, uint64_t max_bytes, char *err)
{
	char num[32];
	const char *file = cg->v2 ? "memory.max" : "memory.limit_in_bytes";

	if (fmtbuf(num, sizeof(num), "%" PRIu64, max_bytes) < 0 || put(cg->dir, file, num) < 0)
		return errorf(err, "cannot write %s/%s: %s", cg->dir, file, strerror(errno));
	/* best effort: a host without swap accounting has no such file */
	if (cg->v2)
		put(cg->dir, "memory.swap.max", "0");
	else
		put(cg->dir, "memory.memsw.limit_in_bytes", num);
	return 0;
}

int cgroup_jail_make(struct cgroup_jail *cg, uint64_t max_bytes, char *err)
{
	char parent[PATH_MAX], path[PATH_MAX];

	cg->dir[0] = '\0';
	cg->procs_fd = -1;
	if (parent_dir(parent, &cg->v2, err) < 0 ||
	    pathf(path, err, "%s/harness-jail-%ld-%ld", parent, (long)getpid(),
		  (long)syscall(SYS_gettid)) < 0)
		return -1;
	rmdir(path);   /* one a killed harness left, empty */
	if (mkdir(path, 0700) < 0)
		return errorf(err, "cannot make the cgroup %s: %s", path, strerror(errno));
	memcpy(cg->dir, path, sizeof(path));
	if (set_limit(cg, max_bytes, err) < 0 || pathf(path, err, "%s/cgroup.procs", cg->dir) < 0)
		goto fail;
	cg->procs_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (cg->procs_fd >= 0)
		return 0;
	errorf(err, "cannot open %s: %s", path, strerror(errno));
fail:
	cgroup_jail_remove(cg);
	return -1;
}

int cgroup_jail_enter(const struct cgroup_jail *cg)
{
	return write(cg->procs_fd, "0", 1) == 1 ? 0 : -1;
}

long cgroup_jail_oom_kills(const struct cgroup_jail *cg)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	const char *p;
	size_t len;

	if (!cg->dir[0] || pathf(path, NULL, "%s/%s", cg->dir,
				 cg->v2 ? "memory.events" : "memory.oom_control") < 0 ||
	    read_regular_file(path, LINE_MAX_LEN, &text, &len, NULL) < 0)
		return 0;
	p = strstr(text, "oom_kill ");
	return p ? strtol(p + 9, NULL, 10) : 0;
}

void cgroup_jail_remove(struct cgroup_jail *cg)
{
	struct timespec ts = { 0, 20 * 1000000L };

	if (cg->procs_fd >= 0)
		close(cg->procs_fd);
	cg->procs_fd = -1;
	if (!cg->dir[0])
		return;
	/* the jail's last processes may still be exiting: 2 s at most */
	for (int i = 0; i < 100 && rmdir(cg->dir) < 0 && errno == EBUSY; i++)
		nanosleep(&ts, NULL);
	cg->dir[0] = '\0';
}
