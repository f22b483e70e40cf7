/* store_queue.h -- what the daemon's API lists (daemon/queue.c shapes it):
 * named statements whose rows come back as JSON objects keyed by column. */
#ifndef STORE_QUEUE_H
#define STORE_QUEUE_H

#include <stdint.h>

#include <jansson.h>

#include "store/store.h"

/* Each listing names one statement; its parameters are the ?N it binds. */
enum store_listing {
	STORE_LIST_MATRICES,      /* every matrix, newest first; ?1 unused (0) */
	STORE_LIST_MATRIX,        /* the same columns, ?1 = matrix id */
	STORE_LIST_RUN_COUNTS,    /* ?1 = matrix: {"status", "n"}, latest attempts only */
	STORE_LIST_HOST_COUNTS,   /* ?1 = matrix: {"host", "status", "n"}, runs a host began */
	STORE_LIST_ARMS,          /* ?1 = matrix: {"name", "release", "lru_gen", "cmdline"} */
	STORE_LIST_CELLS,         /* ?1 = matrix: {"name", "preset", "params"} */
	STORE_LIST_RUNS,          /* ?1 = matrix: each run and attempt, in order */
	STORE_LIST_RUN_STATUS,    /* ?1 = run: {"status", "page_size"}, none if no such run */
	STORE_LIST_SAMPLES,       /* ?1 = run, ?2 = after seq, ?3 = at most: samples rows */
	STORE_LIST_SAMPLE_PARTS,  /* ?1 = run: {"seq", "k" ("f"|"s"), "i", "v", "o", "r"} */
	STORE_LIST_FILE_NAMES,    /* ?1 = run: {"name"} of its cell's files, in order */
	STORE_LIST_STREAM_NAMES,  /* ?1 = run: {"name"} of its cell's streams, in order */
};

/*
 * The rows of listing `which` with its parameters from params (as many as
 * the listing binds): *ret a new JSON array of objects, one per row, keyed
 * by column name (integer, real, string or null). -1 with err.
 */
int store_list(struct store *s, enum store_listing which, const int64_t *params, json_t **ret,
	       char *err);

/* How many matrices, queued runs, and runs booting or running. */
int store_queue_counts(struct store *s, int64_t *ret_matrices, int64_t *ret_queued,
		       int64_t *ret_running, char *err);

#endif
