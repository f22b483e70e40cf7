/* source.h -- an arm built from source made ready: its paths confined, its
 * patch series read, a kernel built (or found built) per architecture. */
#ifndef SOURCE_H
#define SOURCE_H

#include "spec/spec.h"

/* What resolving an arm may tell and where its compiles pass (spec_resolve_gated). */
struct source_hooks {
	spec_progress_fn progress;
	kbuild_gate_fn gate;
	void *arg;
};

/*
 * Source arm a (arms[idx]) checked before anything is built: its paths
 * confined (a tree's .git file, commondir and alternates too), its .config
 * file's lines and its series' patches (each entry confined) read; 0 for an
 * arm with nothing to build. -1 with "arms[N].KEY: ..." as source_resolve.
 */
int source_check(const struct matrix *m, const struct arm *a, unsigned idx,
		 const struct conf *conf, char *err);

/*
 * The kernels of source arm a (arms[idx]) for every arch of m, into a->files
 * and a->build_json; taken from a->build_json instead if it is set (a queued
 * matrix's builds). -1 with "arms[N].KEY: ..." for bad input that refuses the
 * matrix (a path outside source_dirs, an unreadable series); 0 otherwise,
 * with a->failed saying why the arm cannot run if its build failed.
 */
int source_resolve(const struct matrix *m, struct arm *a, unsigned idx, const struct conf *conf,
		   const struct source_hooks *hooks, char *err);

#endif
