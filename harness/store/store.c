/* store.c -- the SQLite schema and its upgrades, a database opened and closed.
 * Sample columns come from PROTO_SAMPLE_FIELDS, so the guest protocol and the
 * table cannot drift apart. Queue and claims: store_claim.c; one run's writes:
 * store_run.c; reads for reports: store_read.c; resolution: store_resolve.c. */
#include "store/store.h"
#include "base/err.h"
#include "base/proc.h"
#include "store/store_db.h"
#include "common/fmt.h"

#include <stdarg.h>
#include <math.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>

/*
 * Schema 12: the sample fields of protocol 5, nullable (runs stored before
 * have none), added by the upgrade as they are created here; and the
 * multi-gen LRU per interval: every node's generations (node is the nid, gen
 * the generation's seq), and the rep columns of lru_gen_full's tiers for the
 * generations that had them (NULL for a type that had none).
 */
#define NULLABLE_COLUMN(m, key, max) ", \"" key "\" INTEGER"
#define ADD_SAMPLE_COLUMN(m, key, max) "ALTER TABLE samples ADD COLUMN \"" key "\" INTEGER;"
#define SAMPLE_LRU_COLUMNS PROTO_SAMPLE_LRU_FIELDS(NULLABLE_COLUMN)
#define LRU_TIER_COLUMNS PROTO_LRU_TIER_FIELDS(NULLABLE_COLUMN)
#define SAMPLE_LRU_UPGRADE PROTO_SAMPLE_LRU_FIELDS(ADD_SAMPLE_COLUMN)
#define SAMPLE_THP_COLUMNS PROTO_SAMPLE_THP_FIELDS(NULLABLE_COLUMN)
#define SAMPLE_THP_UPGRADE PROTO_SAMPLE_THP_FIELDS(ADD_SAMPLE_COLUMN)
#define SAMPLE_SWAP_COLUMNS PROTO_SAMPLE_SWAP_FIELDS(NULLABLE_COLUMN)
#define SAMPLE_SWAP_UPGRADE PROTO_SAMPLE_SWAP_FIELDS(ADD_SAMPLE_COLUMN)
/* The monitors (schema 21): memory pressure and kswapd's CPU time per interval. */
#define SAMPLE_MONITOR_COLUMNS PROTO_SAMPLE_MONITOR_FIELDS(NULLABLE_COLUMN)
#define SAMPLE_MONITOR_UPGRADE PROTO_SAMPLE_MONITOR_FIELDS(ADD_SAMPLE_COLUMN)
/*
 * Schema 22: the samples' memory.events and reclaim stall columns; what the
 * run's stall tracing said of itself (runs.stalls, "on: ..." or "off: why");
 * and every named counter the guest sent (PROTO_COUNTERS), one row a source,
 * key and interval: seq -1 holds the value as the workload started, seq -2
 * as it ended, every other seq what changed over that interval (no row: no
 * change), so a key's value at an interval's end is the sum of its rows
 * from -1 up to it, and at the last interval -2's.
 */
#define SAMPLE_STALL_COLUMNS PROTO_SAMPLE_STALL_FIELDS(NULLABLE_COLUMN)
#define COUNTERS_TABLE                                                                    \
	"CREATE TABLE IF NOT EXISTS counters ("                                           \
	" run_id INTEGER NOT NULL REFERENCES runs(id), src TEXT NOT NULL,"                \
	" key TEXT NOT NULL, seq INTEGER NOT NULL, value INTEGER NOT NULL,"               \
	" PRIMARY KEY (run_id, src, key, seq)) WITHOUT ROWID;"
#define STALL_UPGRADE                                                                     \
	PROTO_SAMPLE_STALL_FIELDS(ADD_SAMPLE_COLUMN) "ALTER TABLE runs ADD COLUMN stalls TEXT;" \
	COUNTERS_TABLE
#define LRU_TABLES                                                                        \
	"CREATE TABLE IF NOT EXISTS lru_gens ("                                           \
	" run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"             \
	" node INTEGER NOT NULL, gen INTEGER NOT NULL, age_ms INTEGER NOT NULL,"          \
	" anon INTEGER NOT NULL, file INTEGER NOT NULL,"                                  \
	" PRIMARY KEY (run_id, seq, node, gen)) WITHOUT ROWID;"                           \
	"CREATE TABLE IF NOT EXISTS lru_tiers ("                                          \
	" run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,"             \
	" node INTEGER NOT NULL, gen INTEGER NOT NULL, tier INTEGER NOT NULL"             \
	LRU_TIER_COLUMNS ", PRIMARY KEY (run_id, seq, node, gen, tier)) WITHOUT ROWID;"

/*
 * Sampled folios (schema 13): what each run's trace said of itself (runs.trace,
 * the guest's "on: ..." or "off: why", and its lost and refused counts), each
 * declared file's inode (run_files.ino: the events name inodes), and every
 * event the guest sent, in its order (idx), kind and place by name.
 */
#define TRACE_RUN_COLUMNS " trace TEXT, trace_lost INTEGER, trace_refused INTEGER"
#define TRACE_TABLE                                                                       \
	"CREATE TABLE IF NOT EXISTS trace_events ("                                       \
	" run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,"             \
	" seq INTEGER NOT NULL, kind TEXT NOT NULL, t_ms INTEGER NOT NULL,"               \
	" ino INTEGER NOT NULL, page INTEGER NOT NULL, place TEXT NOT NULL,"              \
	" gen INTEGER NOT NULL, min_seq INTEGER NOT NULL, max_seq INTEGER NOT NULL,"      \
	" PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
#define TRACE_UPGRADE                                                                     \
	"ALTER TABLE runs ADD COLUMN trace TEXT;"                                         \
	"ALTER TABLE runs ADD COLUMN trace_lost INTEGER;"                                 \
	"ALTER TABLE runs ADD COLUMN trace_refused INTEGER;"                              \
	"ALTER TABLE run_files ADD COLUMN ino INTEGER;" TRACE_TABLE

/*
 * What measured each run (schema 14): QEMU's and libvirt's versions, TCG's
 * threading ("single", "multi", "" under KVM), the host's kernel release,
 * CPU model and online CPUs, and the guest's vCPU pinning ("2,3" or "none");
 * NULL in runs stored before, or not booted yet.
 */
#define MACHINE_RUN_COLUMNS                                                               \
	" qemu_version TEXT, libvirt_version TEXT, tcg_thread TEXT, host_kernel TEXT,"    \
	" host_cpu TEXT, host_cpus INTEGER, vcpu_pin TEXT"
#define MACHINE_UPGRADE                                                                   \
	"ALTER TABLE runs ADD COLUMN qemu_version TEXT;"                                  \
	"ALTER TABLE runs ADD COLUMN libvirt_version TEXT;"                               \
	"ALTER TABLE runs ADD COLUMN tcg_thread TEXT;"                                    \
	"ALTER TABLE runs ADD COLUMN host_kernel TEXT;"                                   \
	"ALTER TABLE runs ADD COLUMN host_cpu TEXT;"                                      \
	"ALTER TABLE runs ADD COLUMN host_cpus INTEGER;"                                  \
	"ALTER TABLE runs ADD COLUMN vcpu_pin TEXT;"

/*
 * The host's contention (schema 15, store_pressure.h): the quiet-host gate's
 * wait before each run and whether it started busy anyway; its measured
 * window's stall shares and the contended flag (NULL: not judged, as runs
 * stored before); and PSI's totals beside every interval's sample.
 */
#define CONTENDED_RUN_COLUMNS \
	" quiet_wait_ms INTEGER, started_busy INTEGER, pressure_cpu_pct REAL," \
	" pressure_io_pct REAL, pressure_load_pct REAL, contended INTEGER, contended_why TEXT"
#define HOST_PRESSURE_TABLE \
	"CREATE TABLE IF NOT EXISTS host_pressure (" \
	" run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL," \
	" host_ms INTEGER NOT NULL, cpu_some_us INTEGER, cpu_full_us INTEGER," \
	" io_some_us INTEGER, io_full_us INTEGER, load REAL," \
	" PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
#define CONTENDED_UPGRADE \
	"ALTER TABLE runs ADD COLUMN quiet_wait_ms INTEGER;" \
	"ALTER TABLE runs ADD COLUMN started_busy INTEGER;" \
	"ALTER TABLE runs ADD COLUMN pressure_cpu_pct REAL;" \
	"ALTER TABLE runs ADD COLUMN pressure_io_pct REAL;" \
	"ALTER TABLE runs ADD COLUMN pressure_load_pct REAL;" \
	"ALTER TABLE runs ADD COLUMN contended INTEGER;" \
	"ALTER TABLE runs ADD COLUMN contended_why TEXT;" HOST_PRESSURE_TABLE
/*
 * How each run's guest started (schema 16): "boot", "restore" from a saved
 * guest (save_key, its cache key), or "save" (booted, then saved for the
 * arm's later runs and restored itself); and what made it fresh: its wall
 * clock's step to the host's and 8 bytes of its CRNG after the host's reseed.
 */
#define START_RUN_COLUMNS \
	" start TEXT, save_key TEXT, clock_behind_ms INTEGER, clock_ahead_ms INTEGER, rng TEXT," \
	SAVE_BYTES_COLUMN "," THP_RUN_COLUMNS
/* What the save a run made takes on disk, bytes (schema 17); NULL for the rest. */
#define SAVE_BYTES_COLUMN " save_bytes INTEGER"
/*
 * transparent_hugepage's enabled and defrag as the guest read them back
 * (schema 18); NULL where the kernel has none, and in older runs.
 */
#define THP_RUN_COLUMNS " thp_enabled_read TEXT, thp_defrag_read TEXT," SWAP_RUN_COLUMNS
/*
 * The swap the guest made for the cell, as it read it back ("zram lz4 96 MiB";
 * NULL for none) and vm.swappiness (schema 19); the samples' swap columns.
 */
#define SWAP_RUN_COLUMNS " swap_read TEXT, swappiness_read INTEGER," OOM_RUN_COLUMN ", stalls TEXT"
/*
 * A run the memcg's OOM killer ended (schema 20): status 'oom', and how many
 * tasks it killed; NULL for every other run.
 */
#define OOM_RUN_COLUMN " oom_kills INTEGER"
#define SWAP_UPGRADE \
	"ALTER TABLE runs ADD COLUMN swap_read TEXT;" \
	"ALTER TABLE runs ADD COLUMN swappiness_read INTEGER;" SAMPLE_SWAP_UPGRADE
#define THP_UPGRADE \
	"ALTER TABLE runs ADD COLUMN thp_enabled_read TEXT;" \
	"ALTER TABLE runs ADD COLUMN thp_defrag_read TEXT;"
#define START_UPGRADE \
	"ALTER TABLE runs ADD COLUMN start TEXT;" \
	"ALTER TABLE runs ADD COLUMN save_key TEXT;" \
	"ALTER TABLE runs ADD COLUMN clock_behind_ms INTEGER;" \
	"ALTER TABLE runs ADD COLUMN clock_ahead_ms INTEGER;" \
	"ALTER TABLE runs ADD COLUMN rng TEXT;"
/*
 * Multi-size THP (schema 23): every size's enabled as the guest read it back
 * ("16K:never 32K:never 64K:always ..."; NULL where the kernel has none, and
 * in older runs), and per done run, each size the setup read back as other
 * than never: its anonymous faults that got a folio of that size and its
 * folios swapped out whole, over the workload (none where the kernel does
 * not count them per size, before 6.10).
 */
#define MTHP_RUN_COLUMNS " mthp_read TEXT"
#define MTHP_TABLE \
	"CREATE TABLE IF NOT EXISTS run_mthp (" \
	" run_id INTEGER NOT NULL REFERENCES runs(id), kib INTEGER NOT NULL," \
	" anon_fault_alloc INTEGER NOT NULL, swpout INTEGER NOT NULL," \
	" PRIMARY KEY (run_id, kib)) WITHOUT ROWID;"
#define MTHP_UPGRADE "ALTER TABLE runs ADD COLUMN" MTHP_RUN_COLUMNS ";" MTHP_TABLE
#define X(m, key, max) ", \"" key "\" INTEGER NOT NULL"
static const char sample_columns[] =
	PROTO_SAMPLE_BASE_FIELDS(X) SAMPLE_LRU_COLUMNS SAMPLE_THP_COLUMNS SAMPLE_SWAP_COLUMNS
	SAMPLE_MONITOR_COLUMNS SAMPLE_STALL_COLUMNS;
static const char stream_columns[] = PROTO_STREAM_FIELDS(X);
static const char op_columns[] = PROTO_OP_FIELDS(X);
#undef X

/*
 * Whether a matrix's kernels are ready (schema 5): a submitted matrix is
 * "resolving" until the daemon's resolver has fetched, built and checked
 * them; no run of it starts before it is "resolved"; "unresolved" keeps why
 * not (one line naming the field). resolve_msg: the step in hand, or why.
 */
#define RESOLVE_COLUMN \
	" resolve TEXT NOT NULL DEFAULT 'resolved'" \
	"  CHECK (resolve IN ('resolving','resolved','unresolved'))"
#define RESOLVE_MSG_COLUMN " resolve_msg TEXT"

/*
 * One live (not cancelled) matrix per spec (schema 6): what store_add_matrix
 * looks up before it inserts, so the schema itself refuses a second. dup_of
 * is set only by the upgrade from schema 5, whose racing submits could queue
 * a spec twice: the older live twins are kept, runs and all, and point at the
 * newest, the one later submits find and append to.
 */
#define DUP_OF_COLUMN " dup_of INTEGER"   /* a matrices.id */
/*
 * Schema 7: an arm built from source keeps what was built (spec.h's
 * build_json: key, tree, base, patches, config, image hash per arch) and, if
 * its build failed, why; its runs are then failed with that reason.
 */
#define ARM_BUILD_COLUMNS " build TEXT, failed TEXT"
/*
 * Schema 8: A/A calibrations (store_noise.h), one row per cell, metric and
 * calibration, keyed by what makes the noise: the job, the guest's size,
 * the architecture and the host.
 */
#define CALIBRATIONS_TABLE_8 \
	"CREATE TABLE IF NOT EXISTS calibrations (" \
	" id INTEGER PRIMARY KEY, host TEXT NOT NULL, job TEXT NOT NULL," \
	" memory_mib INTEGER NOT NULL, vcpus INTEGER NOT NULL, arch TEXT NOT NULL," \
	" metric TEXT NOT NULL, matrix_id INTEGER NOT NULL REFERENCES matrices(id)," \
	" cell TEXT NOT NULL, blocks INTEGER NOT NULL, mean REAL, sd REAL, cv REAL," \
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));" \
	"CREATE INDEX IF NOT EXISTS calibrations_key ON calibrations (host, arch, metric);"
/*
 * Schema 24: the scale a calibration's mean and sd are on. 'log' (the
 * verdict's own statistic: the log ratio, or for miss% the difference in
 * points / 100); 'ratio', the ratio minus 1 that calibrations before it
 * stored: converted where it can be (log1p(mean), sd / (1 + mean)), kept
 * and never read where it cannot (miss%, whose verdict is a difference).
 */
#define CALIBRATION_SCALE_COLUMN " scale TEXT NOT NULL DEFAULT 'ratio'"
#define CALIBRATIONS_TABLE \
	"CREATE TABLE IF NOT EXISTS calibrations (" \
	" id INTEGER PRIMARY KEY, host TEXT NOT NULL, job TEXT NOT NULL," \
	" memory_mib INTEGER NOT NULL, vcpus INTEGER NOT NULL, arch TEXT NOT NULL," \
	" metric TEXT NOT NULL, matrix_id INTEGER NOT NULL REFERENCES matrices(id)," \
	" cell TEXT NOT NULL, blocks INTEGER NOT NULL, mean REAL, sd REAL, cv REAL," \
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))," \
	CALIBRATION_SCALE_COLUMN ");" \
	"CREATE INDEX IF NOT EXISTS calibrations_key ON calibrations (host, arch, metric);"
/*
 * Schema 9: harnessd's bisections (store_bisect.h): what was asked, where it
 * is, and its result (JSON and the table as text) once it has one. The steps
 * are matrices of their own; a bisection is only its options and outcome.
 */
#define BISECTIONS_TABLE \
	"CREATE TABLE IF NOT EXISTS bisections (" \
	" id INTEGER PRIMARY KEY, matrix_id INTEGER NOT NULL REFERENCES matrices(id)," \
	" cell TEXT NOT NULL, metric TEXT NOT NULL, good TEXT NOT NULL, bad TEXT NOT NULL," \
	" max_blocks INTEGER NOT NULL, max_runs INTEGER NOT NULL, max_hours REAL NOT NULL," \
	" state TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running','done','failed'))," \
	" progress TEXT, result TEXT, result_text TEXT," \
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')), ended_at TEXT);"
/*
 * Schema 10: where each run's time went (run/phases.h): per run and phase,
 * the host's wall clock in ms since the epoch at which the phase ended.
 */
#define RUN_PHASES_TABLE \
	"CREATE TABLE IF NOT EXISTS run_phases (" \
	" run_id INTEGER NOT NULL REFERENCES runs(id), phase TEXT NOT NULL," \
	" at_ms INTEGER NOT NULL, PRIMARY KEY (run_id, phase)) WITHOUT ROWID;"
/*
 * Schema 11: several hosts. A cell's guest arch, which hosts may claim its
 * blocks (NULL for a cell queued before: any host), and a host an operator
 * drained, which claims nothing new until resumed, across daemon restarts.
 */
#define CELL_ARCH_COLUMN " arch TEXT"
#define HOST_STATE_TABLE \
	"CREATE TABLE IF NOT EXISTS host_state (name TEXT PRIMARY KEY," \
	" drained INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;" \
	QUEUE_INDEXES
/*
 * What a slot's claim reads, without a scan of every run ever queued: the
 * queue's order over the claimable runs of an arch (runs.arch is the cell's
 * from the queueing on), a block's runs, a slot's runs (bench_sched: 100 000
 * runs queued, 800 slots, x86_64 work run out before aarch64's).
 */
#define QUEUE_INDEXES \
	"CREATE INDEX IF NOT EXISTS runs_claimable ON runs (arch, matrix_id, seq, attempt)" \
	" WHERE status = 'queued' AND slot IS NULL;" \
	"CREATE INDEX IF NOT EXISTS runs_block ON runs (matrix_id, cell_id, block);" \
	"CREATE INDEX IF NOT EXISTS runs_slot ON runs (slot) WHERE slot IS NOT NULL;"
/* Schema 8 too: the host's 1-minute load average as each run ended (store_noise.h). */
#define HOST_LOAD_COLUMN " host_load REAL"
#define LIVE_SPEC_INDEX \
	"CREATE UNIQUE INDEX IF NOT EXISTS matrices_live_spec ON matrices (spec_hash)" \
	" WHERE state != 'cancelled' AND dup_of IS NULL;"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS matrices ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL,"
	" spec_path TEXT NOT NULL,"
	" spec TEXT NOT NULL,"
	" spec_hash TEXT NOT NULL,"       /* of the spec without "reps": appends find it */
	" base_dir TEXT NOT NULL,"        /* relative paths in the spec start here */
	" reps INTEGER NOT NULL,"
	" memory_mib INTEGER NOT NULL,"
	" vcpus INTEGER NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'active'"
	"  CHECK (state IN ('active','paused','cancelled','finished')),"
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	RESOLVE_COLUMN "," RESOLVE_MSG_COLUMN "," DUP_OF_COLUMN ");"
	"CREATE TABLE IF NOT EXISTS arms ("
	" id INTEGER PRIMARY KEY,"
	" matrix_id INTEGER NOT NULL REFERENCES matrices(id),"
	" idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" kernel TEXT NOT NULL,"          /* as written in the matrix */
	" kernel_path TEXT NOT NULL,"
	" modules_path TEXT NOT NULL,"
	" release TEXT NOT NULL,"         /* read from the kernel image */
	" lru_gen TEXT NOT NULL,"         /* y, n or '' (kernel default) */
	" cmdline TEXT NOT NULL,"
	" tag TEXT,"                      /* the matrix's "tag", NULL if none: compare --tags */
	ARM_BUILD_COLUMNS ","
	" UNIQUE (matrix_id, idx));"
	"CREATE TABLE IF NOT EXISTS cells ("
	" id INTEGER PRIMARY KEY,"
	" matrix_id INTEGER NOT NULL REFERENCES matrices(id),"
	" idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" preset TEXT NOT NULL,"
	" params TEXT NOT NULL,"          /* the expanded params, "theta=1.1 ..." */
	" job TEXT NOT NULL,"             /* the whole job as the guest gets it, JSON */
	" report TEXT,"                   /* the preset's table layout, JSON */
	CELL_ARCH_COLUMN ","              /* the last column, as the upgrade adds it */
	" UNIQUE (matrix_id, idx));"
	"CREATE TABLE IF NOT EXISTS cell_files ("
	" cell_id INTEGER NOT NULL REFERENCES cells(id), idx INTEGER NOT NULL,"
	" name TEXT NOT NULL, mib INTEGER NOT NULL, PRIMARY KEY (cell_id, idx));"
	"CREATE TABLE IF NOT EXISTS cell_streams ("
	" cell_id INTEGER NOT NULL REFERENCES cells(id), idx INTEGER NOT NULL,"
	" name TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (cell_id, idx));"
	"CREATE TABLE IF NOT EXISTS runs ("
	" id INTEGER PRIMARY KEY,"
	" matrix_id INTEGER NOT NULL REFERENCES matrices(id),"
	" arm_id INTEGER NOT NULL REFERENCES arms(id),"
	" cell_id INTEGER NOT NULL REFERENCES cells(id),"
	" seq INTEGER NOT NULL,"          /* order within the matrix */
	" block INTEGER NOT NULL,"        /* ABBA block within the cell */
	" position INTEGER NOT NULL,"     /* position within the block */
	" attempt INTEGER NOT NULL DEFAULT 0,"  /* 1, 2...: re-runs of the same slot */
	" retry_of INTEGER REFERENCES runs(id),"
	" slot INTEGER,"                  /* the daemon's guest slot that claimed it */
	" status TEXT NOT NULL DEFAULT 'queued'"
	"  CHECK (status IN ('queued','booting','running','done','failed','unsupported',"
	"   'crashed','timeout','interrupted','cancelled','oom')),"
	" reason TEXT,"
	" crash TEXT,"                    /* first lines of a panic, oops or BUG */
	" warnings INTEGER,"              /* WARNINGs in the console log */
	" accel TEXT, host TEXT, arch TEXT,"
	" guest_release TEXT, lru_gen_caps TEXT, lru_gen_read TEXT,"
	" page_size INTEGER, mem_total_kib INTEGER, cachestat INTEGER, dontcache INTEGER,"
	" fio TEXT, residency TEXT,"
	" console_path TEXT,"
	" started_at TEXT, finished_at TEXT,"
	" agent_ready_ms INTEGER,"        /* domain start to the agent's hello */
	" duration_ms INTEGER, samples INTEGER,"
	HOST_LOAD_COLUMN ","
	TRACE_RUN_COLUMNS ","
	MACHINE_RUN_COLUMNS ","
	CONTENDED_RUN_COLUMNS ","
	START_RUN_COLUMNS ","
	MTHP_RUN_COLUMNS ","
	" UNIQUE (matrix_id, seq, attempt));"
	"CREATE INDEX IF NOT EXISTS runs_matrix ON runs (matrix_id, status);"
	"CREATE TABLE IF NOT EXISTS run_files ("
	" run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,"
	" pages INTEGER NOT NULL, ino INTEGER, PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS file_samples ("
	" run_id INTEGER NOT NULL, seq INTEGER NOT NULL, file INTEGER NOT NULL,"
	" resident_pages INTEGER NOT NULL, PRIMARY KEY (run_id, seq, file)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS events ("
	" run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,"
	" t_ms INTEGER NOT NULL, stream INTEGER NOT NULL, kind TEXT NOT NULL,"
	" pass INTEGER NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS event_files ("
	" run_id INTEGER NOT NULL, idx INTEGER NOT NULL, file INTEGER NOT NULL,"
	" resident_pages INTEGER NOT NULL, PRIMARY KEY (run_id, idx, file)) WITHOUT ROWID;"
	CALIBRATIONS_TABLE BISECTIONS_TABLE RUN_PHASES_TABLE HOST_STATE_TABLE LRU_TABLES
	TRACE_TABLE HOST_PRESSURE_TABLE COUNTERS_TABLE MTHP_TABLE;

/*
 * Per done run, written once in the transaction that marks it done
 * (store_run_finish), as analysis/summary.c computes them from the run's
 * intervals: rates over the measured (non-ramp) intervals, refaults
 * per read, and residency at the end as a share of the declared files.
 * Reports read these rows and never aggregate samples. NULL where a rate has
 * no denominator.
 */
static const char summary_table[] =
	"CREATE TABLE IF NOT EXISTS run_summary ("
	" run_id INTEGER PRIMARY KEY REFERENCES runs(id),"
	" matrix_id INTEGER NOT NULL REFERENCES matrices(id),"
	" arm INTEGER NOT NULL, cell INTEGER NOT NULL,"
	" block INTEGER NOT NULL, position INTEGER NOT NULL,"
	" seconds REAL, ops_per_s REAL, refault_per_s REAL, majflt_per_s REAL,"
	" activate_per_s REAL, refaults_per_read REAL, miss_share REAL, resident_share REAL);"
	"CREATE INDEX IF NOT EXISTS run_summary_matrix ON run_summary (matrix_id, run_id);"
	/* what the tables say per arm and per cell beside the summaries (store_matrix_info) */
	"CREATE INDEX IF NOT EXISTS runs_arm ON runs (arm_id, status);"
	"CREATE INDEX IF NOT EXISTS runs_cell ON runs (cell_id, status);";

/*
 * A new database's tables: the fixed schema, the sample tables whose columns
 * come from the protocol's X-macros, and the summaries.
 */
static int create_schema(struct store *s, char *err)
{
	char sql[4096];

	if (db_exec(s, schema, err) < 0)
		return -1;
	if (fmtbuf(sql, sizeof(sql),
		   "CREATE TABLE IF NOT EXISTS samples (run_id INTEGER NOT NULL REFERENCES runs(id)%s,"
		   " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
		   "CREATE TABLE IF NOT EXISTS stream_samples (run_id INTEGER NOT NULL%s,"
		   " PRIMARY KEY (run_id, seq, stream)) WITHOUT ROWID;"
		   "CREATE TABLE IF NOT EXISTS op_samples (run_id INTEGER NOT NULL%s, op TEXT NOT NULL,"
		   " PRIMARY KEY (run_id, total, seq, stream, op)) WITHOUT ROWID;",
		   sample_columns, stream_columns, op_columns) < 0)
		return errorf(err, "database: the samples' schema is over %zu bytes", sizeof(sql));
	if (db_exec(s, sql, err) < 0 || db_exec(s, LIVE_SPEC_INDEX, err) < 0)
		return -1;
	return db_exec(s, summary_table, err);
}

/* Append to sql[0..cap) at *n; -1 when it does not fit (and from then on). */
static int sql_add(char *sql, size_t cap, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int sql_add(char *sql, size_t cap, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (*n + 1 >= cap)
		return -1;   /* full: the last append did not fit */
	va_start(ap, fmt);
	rc = vfmtbuf(sql + *n, cap - *n, fmt, ap);
	va_end(ap);
	*n += strlen(sql + *n);
	return rc;
}

/* INSERT INTO table (run_id, <columns of an X-macro>) VALUES (?, ...). */
static int prepare_insert(struct store *s, const char *table, const char *const *cols,
			  sqlite3_stmt **st, char *err)
{
	char sql[2048];
	size_t n = 0, i;
	int rc;

	rc = sql_add(sql, sizeof(sql), &n, "INSERT INTO %s (run_id", table);
	for (i = 0; cols[i]; i++)
		rc |= sql_add(sql, sizeof(sql), &n, ", \"%s\"", cols[i]);
	rc |= sql_add(sql, sizeof(sql), &n, ") VALUES (?");
	for (i = 0; cols[i]; i++)
		rc |= sql_add(sql, sizeof(sql), &n, ", ?");
	rc |= sql_add(sql, sizeof(sql), &n, ")");
	if (rc)
		return errorf(err, "database: the insert into %s is over %zu bytes", table, sizeof(sql));
	return db_prepare(s, sql, st, err);
}

#define X(m, key, max) key,
static const char *const sample_keys[] = { PROTO_SAMPLE_FIELDS(X) NULL };
static const char *const stream_keys[] = { PROTO_STREAM_FIELDS(X) NULL };
static const char *const op_keys[] = { PROTO_OP_FIELDS(X) "op", NULL };
#undef X
static const char *const file_sample_keys[] = { "seq", "file", "resident_pages", NULL };
static const char *const trace_keys[] = { "idx", "seq", "kind", "t_ms", "ino", "page", "place",
					  "gen", "min_seq", "max_seq", NULL };
static const char *const counter_keys[] = { "src", "key", "seq", "value", NULL };
static const char *const lru_gen_keys[] = { "seq", "node", "gen", "age_ms", "anon", "file",
					    NULL };
#define X(m, key, max) key,
static const char *const lru_tier_keys[] = { "seq", "node", "gen", "tier",
					     PROTO_LRU_TIER_FIELDS(X) NULL };
#undef X

/* The cached inserts of one interval's samples, stream samples and operations. */
static int prepare_inserts(struct store *s, char *err)
{
	if (prepare_insert(s, "samples", sample_keys, &s->ins_sample, err) < 0 ||
	    prepare_insert(s, "stream_samples", stream_keys, &s->ins_stream, err) < 0 ||
	    prepare_insert(s, "op_samples", op_keys, &s->ins_op, err) < 0 ||
	    prepare_insert(s, "file_samples", file_sample_keys, &s->ins_file_sample, err) < 0 ||
	    prepare_insert(s, "lru_gens", lru_gen_keys, &s->ins_lru_gen, err) < 0 ||
	    prepare_insert(s, "lru_tiers", lru_tier_keys, &s->ins_lru_tier, err) < 0 ||
	    prepare_insert(s, "trace_events", trace_keys, &s->ins_trace, err) < 0 ||
	    prepare_insert(s, "counters", counter_keys, &s->ins_counter, err) < 0)
		return -1;
	return 0;
}

#define STORE_SCHEMA 24
#define STR_(x) #x
#define STR(x) STR_(x)
#define STORE_SCHEMA_STR STR(STORE_SCHEMA)

/*
 * Schemas that only add to the one before: such a database is brought up
 * to date in one transaction when first opened, every row in it kept as it
 * was. Any other version is refused.
 */
static int allow_oom_status(struct store *s, char *err);
static int calibrations_to_log(struct store *s, char *err);

static const struct {
	int64_t from;
	const char *sql;
	int (*fn)(struct store *s, char *err);   /* after sql, in its transaction */
} upgrades[] = {
	{ 4, "ALTER TABLE matrices ADD COLUMN" RESOLVE_COLUMN ";"
	     "ALTER TABLE matrices ADD COLUMN" RESOLVE_MSG_COLUMN ";"
	     "PRAGMA user_version = 5;" , NULL },
	/* the older live twins of a spec marked dup_of the newest, then the index */
	{ 5, "ALTER TABLE matrices ADD COLUMN" DUP_OF_COLUMN ";"
	     "UPDATE matrices SET dup_of = (SELECT MAX(n.id) FROM matrices n WHERE"
	     " n.spec_hash = matrices.spec_hash AND n.state != 'cancelled')"
	     " WHERE state != 'cancelled' AND id < (SELECT MAX(n.id) FROM matrices n"
	     " WHERE n.spec_hash = matrices.spec_hash AND n.state != 'cancelled');"
	     LIVE_SPEC_INDEX
	     "PRAGMA user_version = 6;" , NULL },
	{ 6, "ALTER TABLE arms ADD COLUMN build TEXT;"
	     "ALTER TABLE arms ADD COLUMN failed TEXT;"
	     "PRAGMA user_version = 7;" , NULL },
	{ 7, CALIBRATIONS_TABLE_8 "ALTER TABLE runs ADD COLUMN" HOST_LOAD_COLUMN ";"
	     "PRAGMA user_version = 8;" , NULL },
	{ 8, BISECTIONS_TABLE "PRAGMA user_version = 9;" , NULL },
	{ 9, RUN_PHASES_TABLE "PRAGMA user_version = 10;" , NULL },
	{ 10, "ALTER TABLE cells ADD COLUMN" CELL_ARCH_COLUMN ";" HOST_STATE_TABLE
	      "PRAGMA user_version = 11;" , NULL },
	{ 11, SAMPLE_LRU_UPGRADE LRU_TABLES "PRAGMA user_version = 12;" , NULL },
	{ 12, TRACE_UPGRADE "PRAGMA user_version = 13;" , NULL },
	{ 13, MACHINE_UPGRADE "PRAGMA user_version = 14;" , NULL },
	{ 14, CONTENDED_UPGRADE "PRAGMA user_version = 15;" , NULL },
	{ 15, START_UPGRADE "PRAGMA user_version = 16;" , NULL },
	{ 16, "ALTER TABLE runs ADD COLUMN" SAVE_BYTES_COLUMN ";" "PRAGMA user_version = 17;" , NULL },
	{ 17, THP_UPGRADE SAMPLE_THP_UPGRADE "PRAGMA user_version = 18;" , NULL },
	{ 18, SWAP_UPGRADE "PRAGMA user_version = 19;" , NULL },
	{ 19, "ALTER TABLE runs ADD COLUMN" OOM_RUN_COLUMN ";" "PRAGMA user_version = 20;",
	  allow_oom_status },
	{ 20, SAMPLE_MONITOR_UPGRADE "PRAGMA user_version = 21;", NULL },
	{ 21, STALL_UPGRADE "PRAGMA user_version = 22;", NULL },
	{ 22, MTHP_UPGRADE "PRAGMA user_version = 23;", NULL },
	{ 23, "ALTER TABLE calibrations ADD COLUMN" CALIBRATION_SCALE_COLUMN ";"
	      "PRAGMA user_version = 24;", calibrations_to_log },
};

/* One 'ratio' calibration row (id, mean, sd) put on the log scale. */
static int calibration_to_log(sqlite3_stmt *st, void *arg)
{
	struct store *s = arg;
	double mean = sqlite3_column_double(st, 1), sd = sqlite3_column_double(st, 2);
	char err[ERR_MAX];

	return db_run(s, err, "UPDATE calibrations SET mean = ?2, sd = ?3, scale = 'log'"
		      " WHERE id = ?1", "idd", sqlite3_column_int64(st, 0), log1p(mean),
		      sd / (1 + mean));
}

/*
 * Schema 24's conversion of the calibrations before it (the ratio minus 1)
 * to the log ratio, to first order: the mean's log, the sd over 1 + mean.
 * miss%'s rows (a difference in points now) stay 'ratio', never read.
 */
static int calibrations_to_log(struct store *s, char *err)
{
	return db_rows(s, "SELECT id, mean, sd FROM calibrations WHERE scale = 'ratio'"
		       " AND metric <> 'miss%' AND mean > -1 AND sd IS NOT NULL",
		       calibration_to_log, s, err, "");
}

/* The runs table's status CHECK as schemas 1 to 19 wrote it, and as 20 does. */
#define STATUS_CHECK_OLD "'interrupted','cancelled'))"
#define STATUS_CHECK_NEW "'interrupted','cancelled','oom'))"

/*
 * Schema 20's status 'oom' in the runs table's CHECK. SQLite cannot alter a
 * CHECK; a constraint that only allows more changes no row, so the table's
 * stored definition is edited in place as SQLite's documentation describes
 * (writable_schema, the schema version bumped in the same transaction), not
 * copied into a new table (every other table references runs). Exactly one
 * definition must change, or the upgrade is refused and rolled back.
 */
static int allow_oom_status(struct store *s, char *err)
{
	int64_t version = 0, changed = 0;
	char sql[128], scratch[ERR_MAX];

	if (db_rows(s, "PRAGMA schema_version", db_int, &version, err, "") < 0 ||
	    db_exec(s, "PRAGMA writable_schema = ON;", err) < 0)
		return -1;
	if (db_run(s, err, "UPDATE sqlite_master SET sql = replace(sql, ?, ?)"
		   " WHERE type = 'table' AND name = 'runs' AND instr(sql, ?) > 0",
		   "ttt", STATUS_CHECK_OLD, STATUS_CHECK_NEW, STATUS_CHECK_OLD) < 0 ||
	    db_rows(s, "SELECT changes()", db_int, &changed, err, "") < 0)
		goto fail;
	if (changed != 1) {
		errorf(err, "the runs table's status CHECK is not schema 19's (no \"%s\"): left "
		       "as it is", STATUS_CHECK_OLD);
		goto fail;
	}
	fmtcut(sql, sizeof(sql), "PRAGMA schema_version = %lld;", (long long)version + 1);
	if (db_exec(s, sql, err) < 0)
		goto fail;
	return db_exec(s, "PRAGMA writable_schema = OFF;", err);
fail:
	db_exec(s, "PRAGMA writable_schema = OFF;", scratch);
	return -1;
}

struct upgrade_arg {
	int64_t version, now;
	const char *sql;
	int (*fn)(struct store *s, char *err);
};

/* Inside the transaction: the step, unless another connection took it meanwhile. */
static int upgrade_rows(struct store *s, void *p, char *err)
{
	struct upgrade_arg *a = p;

	if (db_rows(s, "PRAGMA user_version", db_int, &a->now, err, "") < 0)
		return -1;
	if (a->now != a->version || db_exec(s, a->sql, err) < 0)
		return a->now == a->version ? -1 : 0;
	return a->fn ? a->fn(s, err) : 0;
}

/*
 * One step up from *version, if an upgrade starts there: 1 (*version the
 * new one; another connection may have taken the step meanwhile), 0 if none
 * does, -1 with err.
 */
static int upgrade(struct store *s, const char *path, int64_t *version, char *err)
{
	struct upgrade_arg a = { *version, 0, NULL, NULL };
	char msg[ERR_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(upgrades) && upgrades[i].from != *version; i++)
		;
	if (i == ARRAY_SIZE(upgrades))
		return 0;
	a.sql = upgrades[i].sql;
	a.fn = upgrades[i].fn;
	if (db_transaction(s, upgrade_rows, &a, msg) < 0)
		return errorf(err, "%s: upgrading schema %lld: %s", path, (long long)*version, msg);
	*version = a.now == *version ? *version + 1 : a.now;
	return 1;
}

/*
 * A database from a schema no upgrade starts from is left as it is: nothing
 * committed is ever rewritten behind its owner's back.
 */
static int check_version(struct store *s, const char *path, int *ret_fresh, char *err)
{
	int64_t version = 0, tables = 0;
	int rc = 0;

	if (db_rows(s, "PRAGMA user_version", db_int, &version, err, "") < 0 ||
	    db_rows(s, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs'",
		    db_int, &tables, err, "") < 0)
		return -1;
	*ret_fresh = version == 0;
	while (version != STORE_SCHEMA && (rc = upgrade(s, path, &version, err)) > 0)
		;
	if (rc < 0)
		return -1;
	if (version == STORE_SCHEMA || (version == 0 && tables == 0))
		return 0;
	return errorf(err, "%s has schema %lld, this harness writes schema %d: move it aside "
		      "(or set results in harness.conf) and keep it for its tables", path,
		      (long long)version, STORE_SCHEMA);
}

/*
 * The file to open for the database at PATH: PATH itself; or, where it is a
 * symlink the harness's own user made (a database kept on another disk),
 * the file it names, resolved now (its directory by realpath) so that what
 * is opened is what was checked. A symlink of another user's (one planted by
 * whoever else can write the results directory) is refused by name.
 */
static int db_file(const char *path, char out[PATH_MAX], char *err)
{
	char target[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], *slash;
	struct stat st;
	ssize_t n;

	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return pathf(out, err, "%s", path);
	if (st.st_uid != geteuid())
		return errorf(err, "%s: a symlink owned by uid %u, not by the harness's user: refused",
			      path, (unsigned)st.st_uid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return errorf(err, "%s: cannot read the symlink: %s", path, strerror(errno));
	target[n] = '\0';
	if (target[0] != '/') {
		if (pathf(dir, err, "%s", path) < 0)
			return -1;
		slash = strrchr(dir, '/');
		if (pathf(real, err, "%s/%s", slash ? (*slash = '\0', dir) : ".", target) < 0 ||
		    pathf(target, err, "%s", real) < 0)
			return -1;
	}
	slash = strrchr(target, '/');
	if (pathf(dir, err, "%.*s", (int)(slash - target), target) < 0)
		return -1;
	if (!realpath(dir[0] ? dir : "/", real))
		return errorf(err, "%s: its directory %s: %s", path, dir, strerror(errno));
	return pathf(out, err, "%s/%s", real, slash + 1);
}

int store_open(const char *path, struct store **ret, char *err)
{
	struct store *s = calloc(1, sizeof(*s));
	char file[PATH_MAX];
	int fresh = 0;

	if (!s)
		return errorf(err, "out of memory");
	if (db_file(path, file, err) < 0)
		goto fail;
	/* whatever stands at file now is opened as it is: a symlink there is refused */
	if (sqlite3_open_v2(file, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		struct stat st;

		errorf(err, "%s: cannot open database: %s", path,
		       lstat(file, &st) == 0 && S_ISLNK(st.st_mode) ? "a symlink, refused" :
		       sqlite3_errmsg(s->db));
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	if (db_exec(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
		    " PRAGMA foreign_keys=ON;", err) < 0 ||
	    check_version(s, path, &fresh, err) < 0 || create_schema(s, err) < 0 ||
	    /* written once: opening must not write, or a full disk refuses readers */
	    (fresh && db_exec(s, "PRAGMA user_version = " STORE_SCHEMA_STR ";", err) < 0) ||
	    prepare_inserts(s, err) < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	store_close(s);
	return -1;
}

int store_open_results(const char *results, struct store **ret, char *err)
{
	char db[PATH_MAX];

	if (pathf(db, err, "%s/harness.db", results) < 0)
		return -1;
	return store_open(db, ret, err);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->ins_sample);
	sqlite3_finalize(s->ins_stream);
	sqlite3_finalize(s->ins_op);
	sqlite3_finalize(s->ins_file_sample);
	sqlite3_finalize(s->ins_lru_gen);
	sqlite3_finalize(s->ins_lru_tier);
	sqlite3_finalize(s->ins_trace);
	sqlite3_finalize(s->ins_counter);
	sqlite3_close(s->db);
	free(s);
}
