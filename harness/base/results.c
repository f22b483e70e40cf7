/* results.c -- the results directory made private: a umask for all the
 * harness writes, and the directory itself created 0700 (02750 for api_group). */
#include "base/results.h"
#include "base/err.h"
#include "base/proc.h"

#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>

int results_group_id(const char *name, gid_t *ret, char *err)
{
	struct group gr, *g = NULL;
	char buf[4096];
	int rc = getgrnam_r(name, &gr, buf, sizeof(buf), &g);

	if (!g)
		return errorf(err, "api_group '%s': %s", name, rc ? strerror(rc) : "no such group");
	*ret = g->gr_gid;
	return 0;
}

/* dir, new: given to group (chown before chmod, so it is never 02750 under another group). */
static int give_to_group(const char *dir, const char *group, char *err)
{
	gid_t gid;

	if (results_group_id(group, &gid, err) < 0)
		return -1;
	if (chown(dir, (uid_t)-1, gid) < 0 || chmod(dir, 02750) < 0)
		return errorf(err, "'%s' to group '%s': %s", dir, group, strerror(errno));
	return 0;
}

int results_setup(const char *dir, const char *group, char *err)
{
	struct stat st;

	umask(group[0] ? 027 : 077);
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : errorf(err, "results '%s': not a directory", dir);
	if (mkdir_p(dir, err) < 0)
		return -1;
	return group[0] ? give_to_group(dir, group, err) : 0;
}
