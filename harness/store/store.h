/* store.h -- the SQLite results database: matrices, arms, runs in ABBA order,
 * and every sample as it arrives. Prepared statements only.
 *
 * Folder store/: the SQLite database, and the only place that speaks SQL: runs and
 * samples (store.c), the rows each report and analysis reads (store_*.c), the
 * daemon's listings (store_queue.c). Every statement goes through the folder's
 * private store_db.h; no other folder sees a sqlite3 handle.
 * It may call: base/ common/ conf/ spec/.
 */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include <stdint.h>

#include "spec/abba.h"
#include "common/proto.h"
#include "spec/spec.h"

struct store;

/* Open (creating and migrating) the database at path, in WAL mode. */
int store_open(const char *path, struct store **ret, char *err);
/* store_open of a results directory's database, <results>/harness.db. */
int store_open_results(const char *results, struct store **ret, char *err);
void store_close(struct store *s);

/*
 * Queue a matrix: the matrix, its arms and every run in the given order, in
 * one transaction, so a failure leaves nothing half-queued; unless a live
 * (not cancelled) matrix of the same spec hash is queued: then *ret_id is
 * that one, *ret_added 0 and nothing is written. The lookup and the insert
 * are one transaction, and a unique index on the live matrices' spec hashes
 * holds it: submits of one spec at once queue it once. A matrix only parsed
 * (m->unresolved) is queued "resolving" (store_next_resolving).
 */
int store_add_matrix(struct store *s, const struct matrix *m, const struct abba_slot *slots,
		     size_t n, int64_t *ret_id, int *ret_added, char *err);

struct run_ref {
	int64_t id;
	unsigned arm, cell, block, position, seq;
};

/* Runs of a matrix still queued, in order. *ret is malloc'd. */
int store_queued_runs(struct store *s, int64_t matrix_id, struct run_ref **ret, size_t *ret_n,
		      char *err);

/* The run boots: its accel, host, arch and console log, started now. */
int store_run_booting(struct store *s, int64_t run, const char *accel, const char *host,
		      const char *arch, const char *console, char *err);
/* What measured a run (schema 14), stored as it boots; strings as vm/hostinfo.h has them. */
struct store_machine {
	const char *qemu, *libvirt;     /* "7.2.0", "unknown" */
	const char *tcg_thread;         /* "single", "multi", "" (KVM) */
	const char *kernel, *cpu_model; /* the host's uname -r and CPU model */
	int cpus;                       /* the host's online CPUs, 0 unknown */
	const char *vcpu_pin;           /* "2,3" (vCPU i on the i-th) or "none" */
};

/*
 * How its guest started: "boot", "save" (booted, saved, restored) or
 * "restore" from the save cached under save_key (NULL for boot); for "save",
 * what the save takes on disk (save_bytes; below 0: not known, NULL).
 */
int store_run_start(struct store *s, int64_t run, const char *start, const char *save_key,
		    int64_t save_bytes, char *err);
/* The matrix run belongs to, into *ret_mid. 0, or -1 with err. */
int store_run_matrix(struct store *s, int64_t run, int64_t *ret_mid, char *err);
/*
 * 1 if matrix mid still has runs to do (queued, booting or running) and is
 * neither finished nor cancelled: the queue still needs what it uses; 0 if
 * not; -1 with err.
 */
int store_matrix_pending(struct store *s, int64_t mid, char *err);

/* What measured it (versions, TCG threading, host kernel and CPUs); then the agent's hello (running); then its setup (lru_gen read back, residency, files). */
int store_run_machine(struct store *s, int64_t run, const struct store_machine *m, char *err);
int store_run_hello(struct store *s, int64_t run, const struct proto_hello *h,
		    int64_t agent_ready_ms, char *err);
int store_run_setup(struct store *s, int64_t run, const struct proto_setup *st, char *err);
/*
 * One interval (and its per-file residency), committed on its own: a crash
 * later loses nothing stored here. Likewise a stream's interval, an event.
 */
int store_sample(struct store *s, int64_t run, const struct proto_sample *smp, char *err);
/* One operation sample (an interval's, or the run's total). */
int store_op_sample(struct store *s, int64_t run, const struct proto_op_sample *o, char *err);
/* One node's generations (lru_gens) and, where lru_gen_full had them, tiers (lru_tiers). */
int store_lru(struct store *s, int64_t run, const struct proto_lru *l, char *err);
/* One PROTO_TRACE: its events from *idx on (advanced), the run's lost and refused counts. */
int store_trace(struct store *s, int64_t run, uint64_t *idx, const struct proto_trace *t,
		char *err);

/*
 * One PROTO_COUNTERS message's rows, in one transaction (the start at seq -1,
 * the end at -2): 0; 1 (none stored, err names it) when a key was stored
 * already for its interval, which is the sender's fault; -1 on the database.
 */
int store_counters(struct store *s, int64_t run, const struct proto_counters *c, char *err);
int store_stream_sample(struct store *s, int64_t run, const struct proto_stream_sample *smp,
			char *err);
int store_event(struct store *s, int64_t run, unsigned idx, const struct proto_event *e,
		char *err);
/*
 * fn's store calls as one transaction, for bulk loads (tests/bench_report.c):
 * all of them or, if fn fails, none. fn may call only store functions that
 * make no transaction of their own (store_sample and the like above).
 */
int store_transaction(struct store *s, int (*fn)(struct store *s, void *arg, char *err),
		      void *arg, char *err);
/*
 * status is "done", "failed" or "unsupported"; reason and sum (the guest's
 * summary) may be NULL; sum's multi-size THP counters become run_mthp rows.
 * A done run's figures (seconds, rates and shares of fig, from
 * analysis/summary.c; NAN stored as NULL) become its run_summary row in the
 * same transaction; fig NULL: none (a run without intervals).
 */
struct run_summary;
int store_run_finish(struct store *s, int64_t run, const char *status, const char *reason,
		     const struct proto_summary *sum, const struct run_summary *fig, char *err);

/* How many streams run's cell declares, and its declared files' pages (0: none). */
int store_run_shape(struct store *s, int64_t run, unsigned *ret_nstreams, double *ret_file_pages,
		    char *err);

/* Find a matrix by id or by name (the newest of that name). */
int store_find_matrix(struct store *s, const char *key, int64_t *ret_id, char *err);

/* Per-run summary of a finished run, for reports. */
struct run_summary {
	int64_t run;
	unsigned arm, cell, block, position;
	double seconds;              /* measured: after the ramp */
	double ops_per_s, refault_per_s, majflt_per_s, activate_per_s;
	double refaults_per_read, miss_share;
	double resident_share;       /* NAN: the cell tracks no file */
	char host[32];               /* the host that ran it ("" before hosts were recorded) */
	int contended;               /* runs.contended: its measured window saw host pressure */
	/* filled with SUMMARY_TABLE only (harness table, report); 0 otherwise */
	double lat_p99_us, pass_resident_share;
	double evict_refault_share, gens_per_min, oldest_age_s;   /* MGLRU's, NAN without */
	/* swap and anonymous reclaim over the measured intervals, per second:
	 * pages swapped in and out (pswpin, pswpout), zswap loads (zswpin), and
	 * anonymous refaults; NAN for runs stored before schema 19 */
	double swapin_per_s, swapout_per_s, zswpin_per_s, anon_refault_per_s;
	/* the memcg's memory pressure (some, full) and kswapd's CPU time, % of
	 * the measured time; NAN before schema 21 */
	double psi_some_pct, psi_full_pct, kswapd_pct;
	/* reclaim stalls (direct and memcg) ended per second, and the p99 of
	 * their length, µs (the histogram's bucket bound); NULL with the stall
	 * tracing off, p99 too without stalls */
	double stalls_per_s, stall_p99_us;
	/* filled with SUMMARY_OPS or SUMMARY_TABLE: per operation of streams
	 * that report them (ycsb), over every stream; NAN where none ran */
	double op_per_s[OP_COUNT], op_p99_us[OP_COUNT];
	double op_mean_us[OP_COUNT], op_max_us[OP_COUNT];   /* over the measured run */
};

struct matrix_info {
	char name[64];
	unsigned n_arms, n_cells;
	char arm_names[SPEC_MAX_ARMS][64];
	char arm_release[SPEC_MAX_ARMS][RELEASE_MAX];
	char arm_lru[SPEC_MAX_ARMS][32];     /* lru_gen read back, over all cells */
	char arm_tags[SPEC_MAX_ARMS][SPEC_TAG_MAX];   /* the matrix's "tag", "" if none */
	char cell_lru[SPEC_MAX_CELLS][SPEC_MAX_ARMS][32];   /* ... in this cell's runs */
	char cell_arch[SPEC_MAX_CELLS][32];  /* the guests' arch in this cell's runs */
	char cell_accel[SPEC_MAX_CELLS][32];
	char cell_names[SPEC_MAX_CELLS][CELL_NAME_MAX];
	char cell_params[SPEC_MAX_CELLS][256];
	char cell_preset[SPEC_MAX_CELLS][SPEC_NAME_MAX];
	char accel[64], arch[32];
	unsigned runs_total, runs_done, runs_failed, runs_unsupported, runs_oom;
	/* per cell and arm: runs the memcg's OOM killer ended, and runs that
	 * ended as the kernel had it (done or oom) */
	unsigned cell_oom[SPEC_MAX_CELLS][SPEC_MAX_ARMS], cell_ended[SPEC_MAX_CELLS][SPEC_MAX_ARMS];
	unsigned runs_contended;     /* done runs whose measured window was contended */
	unsigned runs_started_busy;  /* done runs the quiet-host gate started busy anyway */
};

/* A cell's job as the store keeps it (cells.job): malloc'd JSON, NULL if out of memory. */
char *store_job_text(const struct proto_job *job);

/* A matrix's name, arms, cells and their done runs' lru_gen and arch, for the tables. */
int store_matrix_info(struct store *s, int64_t matrix_id, struct matrix_info *mi, char *err);

/* What store_summaries fills beyond the stored figures. */
enum {
	SUMMARY_OPS = 1,     /* op_per_s and the operations' latencies (ycsb, reclaim) */
	SUMMARY_TABLE = 2,   /* the table's extras (lat_p99_us, pass_resident_share, the
			      * MGLRU figures), and SUMMARY_OPS's */
};

/*
 * Summaries of the matrix's done runs, in run id order, as written when each
 * ended, and what with asks beyond them (NAN where a run has none; 0 where
 * not asked); *ret is malloc'd. The one filler of struct run_summary
 * (store_summary.c).
 */
int store_summaries(struct store *s, int64_t matrix_id, unsigned with, struct run_summary **ret,
		    size_t *ret_n, char *err);

/* Done runs of a matrix, in order. *ret is malloc'd. */
int store_done_runs(struct store *s, int64_t matrix_id, struct run_ref **ret, size_t *ret_n,
		    char *err);

/* A cell's declared files and streams by name, and its preset's table layout. */
struct cell_layout {
	unsigned nfiles, nstreams;
	char files[PROTO_MAX_FILES][PROTO_NAME_MAX];
	uint64_t file_mib[PROTO_MAX_FILES];
	char streams[PROTO_MAX_STREAMS][PROTO_NAME_MAX];
	char report[1024];            /* the preset's "table" JSON, "" for none */
};

/* Cell cell's files, streams and report kind. */
int store_cell_layout(struct store *s, int64_t matrix_id, unsigned cell, struct cell_layout *l,
		      char *err);

/*
 * One run's intervals, with every stream and file of it. A stream's numbers
 * are NAN where its interval is missing (the guest never told it: stored as
 * no row, never as 0); 0 for stream indexes the cell does not have.
 */
struct series_point {
	uint64_t seq, t_ms;
	int ramp;
	double majflt, refault, activate;
	double ops[PROTO_MAX_STREAMS], reads[PROTO_MAX_STREAMS], misses[PROTO_MAX_STREAMS];
	double resident[PROTO_MAX_FILES];   /* pages */
	uint32_t page_size;                 /* the run's guest's, bytes (4096 if it never said) */
	/* over the interval, NAN where the row has none (stored before schema 19, 21):
	 * pages swapped in and out (/proc/vmstat), loaded from and stored to zswap
	 * (memcg), and the memcg's memory.pressure stalls, some and full, in us */
	double pswpin, pswpout, zswpin, zswpout;
	double psi_some_us, psi_full_us;
};

struct event_row {
	uint64_t t_ms, stream, pass, value;
	char kind[16];
	double resident[PROTO_MAX_FILES];   /* pages */
	uint32_t page_size;                 /* as series_point's */
};

/* *ret malloc'd, in seq (resp. event) order. */
int store_run_series(struct store *s, int64_t run, struct series_point **ret, size_t *ret_n,
		     char *err);
int store_run_events(struct store *s, int64_t run, struct event_row **ret, size_t *ret_n,
		     char *err);

/* ---- the daemon's queue ---- */

/* The spec a matrix was queued with, and its base directory (PATH_MAX). */
int store_matrix_spec(struct store *s, int64_t mid, char **ret_text, char *base_dir, char *err);

/*
 * What the source arms of matrix mid were built to (arms.build), into each
 * parsed arm's build_json (or why their build failed, into failed), so spec_resolve boots those kernels again rather
 * than building the tree as it is now. mid 0: the live matrix of m's spec,
 * if any (*ret_mid its id, 0 if none). Arms not built from source are left.
 */
int store_arm_builds(struct store *s, int64_t mid, struct matrix *m, int64_t *ret_mid,
		     char *err);

/*
 * Claim for a guest slot the next ABBA block: the first queued run of an
 * active, resolved matrix whose cell runs on one of archs (space-separated)
 * and the queued runs of its block. *ret_n 0: nothing queued.
 */
int store_claim_block(struct store *s, int slot, const char *archs, int64_t *ret_matrix,
		      struct run_ref **ret, size_t *ret_n, char *err);

/*
 * The host was lost during run's block: every run of the block it did or was
 * doing ends interrupted (never paired: the block runs again whole, on one
 * host) and is queued again as a fresh attempt any host may claim. *ret_n:
 * how many. The block's runs not started yet are the slot's to give back.
 */
int store_requeue_block(struct store *s, int64_t run, const char *host, const char *reason,
			unsigned *ret_n, char *err);
/* Give back a slot's claimed, not yet started runs (pause, shutdown). */
int store_unclaim(struct store *s, int slot, char *err);
/*
 * End a run with status and reason, and queue a fresh attempt of it (same
 * place in its block); keep_slot: the same slot runs it next.
 */
int store_requeue(struct store *s, int64_t run, const char *status, const char *reason,
		  int keep_slot, int64_t *ret_new, char *err);
/* At daemon start: runs left booting or running become interrupted and re-queued. */
int store_resume(struct store *s, unsigned *ret_interrupted, char *err);

/* A matrix's state (active, paused, finished, cancelled); -1 with err if there is no such matrix. */
int store_matrix_state(struct store *s, int64_t mid, char state[16], char *err);
/* cancelled also cancels the matrix's queued runs. */
int store_set_matrix_state(struct store *s, int64_t mid, const char *state, char *err);
/*
 * Resolving (schema 5): a matrix queued only parsed (m->unresolved) is
 * "resolving" until its kernels are fetched, built and checked; only then,
 * "resolved", may its runs be claimed. "unresolved": resolving failed,
 * resolve_msg says why in one line; while resolving it names the step.
 */
/* The oldest matrix still resolving and not cancelled; *ret_mid 0 if none. */
int store_next_resolving(struct store *s, int64_t *ret_mid, char *err);
/* If the matrix's resolve is `from`, make it `to` with msg (may be NULL); else nothing. */
int store_set_resolve(struct store *s, int64_t mid, const char *from, const char *to,
		      const char *msg, char *err);
/* Resolving ends well: the arms' kernel files as m has them, and "resolved", at once. */
int store_resolved(struct store *s, int64_t mid, const struct matrix *m, char *err);
/* "resolving", "resolved" or "unresolved". */
int store_matrix_resolve(struct store *s, int64_t mid, char resolve[16], char *err);

/* Active matrices with nothing left to run become finished; their ids (at most max). */
int store_finish_matrices(struct store *s, int64_t *ids, size_t max, size_t *ret_n, char *err);
/* A run the memcg's OOM killer ended: how many tasks it killed (runs.oom_kills). */
int store_run_oom(struct store *s, int64_t run, int64_t kills, char *err);
/* What the console log showed: a crash excerpt (or NULL) and the WARNING count. */
int store_run_console(struct store *s, int64_t run, const char *crash, int64_t warnings,
		      char *err);

#endif
