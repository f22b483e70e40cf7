/* results.h -- the results directory (database, run directories, console
 * logs, reports) and what is made in it: its owner's, or also api_group's. */
#ifndef RESULTS_H
#define RESULTS_H

#include <sys/types.h>

/*
 * Set the process's umask, so that all the harness makes from now on, SQLite's
 * database and its -wal and -shm files included, is 0600/0700 (0640/0750 when
 * group is not empty); then create dir if it is missing: 0700, or 02750
 * owned by group (setgid: what is made inside gets the group too). An
 * existing directory keeps its mode and owner. -1 with a message.
 */
int results_setup(const char *dir, const char *group, char *err);

/* api_group's gid in *ret; -1 with "api_group 'NAME': ..." if there is no such group. */
int results_group_id(const char *name, gid_t *ret, char *err);

#endif
