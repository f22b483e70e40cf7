/* report.h -- tables regenerated from the database at any time: per workload
 * cell, each arm's mean of every metric, its Delta against the first arm, n.
 *
 * Folder output/: what a user reads: text tables and sheets, CSV/JSON, SVG plots, the
 * HTML report, escaping.
 * It may call: base/ common/ conf/ spec/ store/ analysis/.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/* Print the ABBA table of a matrix to f. Returns 0 or -1 with err. */
int report_table(FILE *f, struct store *s, int64_t matrix_id, char *err);

/*
 * The arms built from source, one line each: build key, tree, config, the
 * patches' subjects, build time, "same kernel as" an earlier arm whose image
 * is byte-identical, or why the build failed. Nothing if no arm is. arg is
 * unused (the shape of the HTML report's text sections).
 */
int report_builds(FILE *f, struct store *s, int64_t matrix_id, const void *arg, char *err);

/* What each fact of struct store_machines is called in reports, by enum store_machine_fact. */
extern const char *const report_machine_labels[];

/*
 * "measured with: QEMU 7.2.0, libvirt 9.0.0, ..." for matrix_id's done runs
 * (a fact's several values joined by " | "), one line; nothing if no run
 * recorded any (stored before schema 14).
 */
int report_machines(FILE *f, struct store *s, int64_t matrix_id, char *err);

#endif
