/* store.c -- the SQLite schema and its upgrades, matrices queued, runs and
 * samples as they arrive, the daemon's claims. Sample columns come from
 * PROTO_SAMPLE_FIELDS, so the guest protocol and the table cannot drift apart. */
#include "store/store.h"
#include "base/err.h"
#include "base/proc.h"
#include "store/store_db.h"

#include <math.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

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
#define X(m, key, max) ", \"" key "\" INTEGER NOT NULL"
static const char sample_columns[] = PROTO_SAMPLE_BASE_FIELDS(X) SAMPLE_LRU_COLUMNS;
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
#define CALIBRATIONS_TABLE \
	"CREATE TABLE IF NOT EXISTS calibrations (" \
	" id INTEGER PRIMARY KEY, host TEXT NOT NULL, job TEXT NOT NULL," \
	" memory_mib INTEGER NOT NULL, vcpus INTEGER NOT NULL, arch TEXT NOT NULL," \
	" metric TEXT NOT NULL, matrix_id INTEGER NOT NULL REFERENCES matrices(id)," \
	" cell TEXT NOT NULL, blocks INTEGER NOT NULL, mean REAL, sd REAL, cv REAL," \
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));" \
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
	"   'crashed','timeout','interrupted','cancelled')),"
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
	TRACE_TABLE HOST_PRESSURE_TABLE;

/*
 * Per done run, written once in the transaction that marks it done
 * (store_run_finish): rates over the measured (non-ramp) intervals, refaults
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
 * The summary row of run ?1 if it is done (a run without samples has none).
 * A stream's interval the guest never told (no row: missing) is left out of
 * that stream's time as well as its ops: each stream's ops and reads count
 * at the stream's rate over its told measured intervals times the measured
 * time (exactly its sums when none is missing).
 */
static const char summary_insert[] =
	"WITH w AS (SELECT run_id,"
	"   COALESCE(MAX(CASE WHEN ramp THEN t_ms END), 0) AS ramp_ms, MAX(t_ms) AS end_ms,"
	"   MAX(seq) AS last_seq,"
	"   SUM(CASE WHEN ramp THEN 0 ELSE workingset_refault_file END) AS refaults,"
	"   SUM(CASE WHEN ramp THEN 0 ELSE pgmajfault END) AS majflt,"
	"   SUM(CASE WHEN ramp THEN 0 ELSE workingset_activate_file END) AS activ"
	"   FROM samples WHERE run_id = ?1 GROUP BY run_id),"
	" iv AS (SELECT seq, ramp, t_ms - COALESCE(LAG(t_ms) OVER (ORDER BY seq), 0) AS ms"
	"   FROM samples WHERE run_id = ?1),"
	" k AS (SELECT SUM(t.read_ops + t.write_ops) AS ops, SUM(t.read_ops) AS reads,"
	"   SUM(t.misses) AS misses, SUM(iv.ms) AS ms"
	"   FROM stream_samples t JOIN iv ON iv.seq = t.seq"
	"   WHERE t.run_id = ?1 AND iv.ramp = 0 GROUP BY t.stream),"
	" o AS (SELECT ?1 AS run_id, SUM(k.ops * (w.end_ms - w.ramp_ms) * 1.0 / NULLIF(k.ms, 0)) AS ops,"
	"   SUM(k.reads * (w.end_ms - w.ramp_ms) * 1.0 / NULLIF(k.ms, 0)) AS reads,"
	"   SUM(k.misses) AS misses, SUM(k.reads) AS told_reads FROM k, w),"
	" p AS (SELECT run_id, SUM(pages) AS pages FROM run_files WHERE run_id = ?1"
	"   GROUP BY run_id)"
	" INSERT OR REPLACE INTO run_summary (run_id, matrix_id, arm, cell, block, position,"
	"  seconds, ops_per_s, refault_per_s, majflt_per_s, activate_per_s, refaults_per_read,"
	"  miss_share, resident_share)"
	" SELECT r.id, r.matrix_id, a.idx, c.idx, r.block, r.position,"
	"  (w.end_ms - w.ramp_ms) / 1000.0,"
	"  o.ops * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0),"
	"  w.refaults * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0),"
	"  w.majflt * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0),"
	"  w.activ * 1000.0 / NULLIF(w.end_ms - w.ramp_ms, 0),"
	"  w.refaults * 1.0 / NULLIF(o.reads, 0),"
	"  o.misses * 1.0 / NULLIF(o.told_reads, 0),"
	"  (SELECT SUM(f.resident_pages) FROM file_samples f"
	"   WHERE f.run_id = r.id AND f.seq = w.last_seq) * 1.0 / NULLIF(p.pages, 0)"
	" FROM runs r JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
	"  JOIN w ON w.run_id = r.id LEFT JOIN o ON o.run_id = r.id LEFT JOIN p ON p.run_id = r.id"
	" WHERE r.id = ?1 AND r.status = 'done'";

static int create_schema(struct store *s, char *err)
{
	char sql[4096];

	if (db_exec(s, schema, err) < 0)
		return -1;
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE IF NOT EXISTS samples (run_id INTEGER NOT NULL REFERENCES runs(id)%s,"
		 " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
		 "CREATE TABLE IF NOT EXISTS stream_samples (run_id INTEGER NOT NULL%s,"
		 " PRIMARY KEY (run_id, seq, stream)) WITHOUT ROWID;"
		 "CREATE TABLE IF NOT EXISTS op_samples (run_id INTEGER NOT NULL%s, op TEXT NOT NULL,"
		 " PRIMARY KEY (run_id, total, seq, stream, op)) WITHOUT ROWID;",
		 sample_columns, stream_columns, op_columns);
	if (db_exec(s, sql, err) < 0 || db_exec(s, LIVE_SPEC_INDEX, err) < 0)
		return -1;
	return db_exec(s, summary_table, err);
}

/* INSERT INTO table (run_id, <columns of an X-macro>) VALUES (?, ...). */
static int prepare_insert(struct store *s, const char *table, const char *const *cols,
			  sqlite3_stmt **st, char *err)
{
	char sql[2048];
	size_t n = 0, i;

	n += (size_t)snprintf(sql + n, sizeof(sql) - n, "INSERT INTO %s (run_id", table);
	for (i = 0; cols[i]; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", \"%s\"", cols[i]);
	n += (size_t)snprintf(sql + n, sizeof(sql) - n, ") VALUES (?");
	for (i = 0; cols[i]; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, ", ?");
	snprintf(sql + n, sizeof(sql) - n, ")");
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
static const char *const lru_gen_keys[] = { "seq", "node", "gen", "age_ms", "anon", "file",
					    NULL };
#define X(m, key, max) key,
static const char *const lru_tier_keys[] = { "seq", "node", "gen", "tier",
					     PROTO_LRU_TIER_FIELDS(X) NULL };
#undef X

static int prepare_inserts(struct store *s, char *err)
{
	if (prepare_insert(s, "samples", sample_keys, &s->ins_sample, err) < 0 ||
	    prepare_insert(s, "stream_samples", stream_keys, &s->ins_stream, err) < 0 ||
	    prepare_insert(s, "op_samples", op_keys, &s->ins_op, err) < 0 ||
	    prepare_insert(s, "file_samples", file_sample_keys, &s->ins_file_sample, err) < 0 ||
	    prepare_insert(s, "lru_gens", lru_gen_keys, &s->ins_lru_gen, err) < 0 ||
	    prepare_insert(s, "lru_tiers", lru_tier_keys, &s->ins_lru_tier, err) < 0 ||
	    prepare_insert(s, "trace_events", trace_keys, &s->ins_trace, err) < 0)
		return -1;
	return 0;
}

#define STORE_SCHEMA 15
#define STR_(x) #x
#define STR(x) STR_(x)
#define STORE_SCHEMA_STR STR(STORE_SCHEMA)

/*
 * Schemas that only add to the one before: such a database is brought up
 * to date in one transaction when first opened, every row in it kept as it
 * was. Any other version is refused.
 */
static const struct { int64_t from; const char *sql; } upgrades[] = {
	{ 4, "ALTER TABLE matrices ADD COLUMN" RESOLVE_COLUMN ";"
	     "ALTER TABLE matrices ADD COLUMN" RESOLVE_MSG_COLUMN ";"
	     "PRAGMA user_version = 5;" },
	/* the older live twins of a spec marked dup_of the newest, then the index */
	{ 5, "ALTER TABLE matrices ADD COLUMN" DUP_OF_COLUMN ";"
	     "UPDATE matrices SET dup_of = (SELECT MAX(n.id) FROM matrices n WHERE"
	     " n.spec_hash = matrices.spec_hash AND n.state != 'cancelled')"
	     " WHERE state != 'cancelled' AND id < (SELECT MAX(n.id) FROM matrices n"
	     " WHERE n.spec_hash = matrices.spec_hash AND n.state != 'cancelled');"
	     LIVE_SPEC_INDEX
	     "PRAGMA user_version = 6;" },
	{ 6, "ALTER TABLE arms ADD COLUMN build TEXT;"
	     "ALTER TABLE arms ADD COLUMN failed TEXT;"
	     "PRAGMA user_version = 7;" },
	{ 7, CALIBRATIONS_TABLE "ALTER TABLE runs ADD COLUMN" HOST_LOAD_COLUMN ";"
	     "PRAGMA user_version = 8;" },
	{ 8, BISECTIONS_TABLE "PRAGMA user_version = 9;" },
	{ 9, RUN_PHASES_TABLE "PRAGMA user_version = 10;" },
	{ 10, "ALTER TABLE cells ADD COLUMN" CELL_ARCH_COLUMN ";" HOST_STATE_TABLE
	      "PRAGMA user_version = 11;" },
	{ 11, SAMPLE_LRU_UPGRADE LRU_TABLES "PRAGMA user_version = 12;" },
	{ 12, TRACE_UPGRADE "PRAGMA user_version = 13;" },
	{ 13, MACHINE_UPGRADE "PRAGMA user_version = 14;" },
	{ 14, CONTENDED_UPGRADE "PRAGMA user_version = 15;" },
};

struct upgrade_arg {
	int64_t version, now;
	const char *sql;
};

/* Inside the transaction: the step, unless another connection took it meanwhile. */
static int upgrade_rows(struct store *s, void *p, char *err)
{
	struct upgrade_arg *a = p;

	if (db_rows(s, "PRAGMA user_version", db_int, &a->now, err, "") < 0)
		return -1;
	return a->now == a->version ? db_exec(s, a->sql, err) : 0;
}

/*
 * One step up from *version, if an upgrade starts there: 1 (*version the
 * new one; another connection may have taken the step meanwhile), 0 if none
 * does, -1 with err.
 */
static int upgrade(struct store *s, const char *path, int64_t *version, char *err)
{
	struct upgrade_arg a = { *version, 0, NULL };
	char msg[ERR_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(upgrades) && upgrades[i].from != *version; i++)
		;
	if (i == ARRAY_SIZE(upgrades))
		return 0;
	a.sql = upgrades[i].sql;
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
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (pathf(real, err, "%s/%s", slash ? (*slash = '\0', dir) : ".", target) < 0)
			return -1;
		snprintf(target, sizeof(target), "%s", real);
	}
	slash = strrchr(target, '/');
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - target), target);
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
	sqlite3_close(s->db);
	free(s);
}

char *store_job_text(const struct proto_job *job)
{
	json_t *j = proto_job_to_json(job);
	char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(j);
	return text;
}

static int add_cell(struct store *s, const struct cell *c, int64_t mid, unsigned idx,
		    char *err)
{
	_cleanup_free_ char *job = store_job_text(&c->job);
	int64_t cid;
	unsigned i;

	if (!job)
		return errorf(err, "cannot encode workload '%s'", c->name);
	if (db_run(s, err, "INSERT INTO cells (matrix_id, idx, name, preset, params, job, report,"
		   " arch) VALUES (?,?,?,?,?,?,?,?)", "iitttttt", mid, (int64_t)idx, c->name,
		   c->preset, c->params, job, c->table, c->arch) < 0)
		return -1;
	cid = sqlite3_last_insert_rowid(s->db);
	for (i = 0; i < c->job.nfiles; i++)
		if (db_run(s, err, "INSERT INTO cell_files VALUES (?,?,?,?)", "iiti", cid,
			   (int64_t)i, c->job.files[i].name, (int64_t)c->job.files[i].mib) < 0)
			return -1;
	for (i = 0; i < c->job.nstreams; i++)
		if (db_run(s, err, "INSERT INTO cell_streams VALUES (?,?,?,?)", "iitt", cid,
			   (int64_t)i, c->job.streams[i].name,
			   proto_kind_names[c->job.streams[i].kind]) < 0)
			return -1;
	return 0;
}

/* arms.kernel for an arm built from source: "linux-source-6.12 @base + patches". */
static const char *arm_kernel(const struct arm *a, char *buf, size_t size)
{
	if (!spec_arm_built(a))
		return a->kernel;
	snprintf(buf, size, "%s%s%s%s%s", a->source[0] ? a->source : a->source_package,
		 a->base[0] ? " @" : "", a->base, a->patches[0] ? " + " : "", a->patches);
	return buf;
}

static int add_arms_cells(struct store *s, const struct matrix *m, int64_t mid, char *err)
{
	char kernel[3 * PATH_MAX];
	unsigned i;

	for (i = 0; i < m->n_arms; i++) {
		const struct arm *a = &m->arms[i];
		if (db_run(s, err, "INSERT INTO arms (matrix_id, idx, name, kernel, kernel_path,"
			   " modules_path, release, lru_gen, cmdline, tag, build, failed)"
			   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", "iitttttttttt", mid, (int64_t)i,
			   a->name, arm_kernel(a, kernel, sizeof(kernel)), a->files[0].kernel, a->files[0].modules,
			   a->files[0].release, a->lru_gen, a->cmdline, a->tag[0] ? a->tag : NULL,
			   a->build_json, a->failed[0] ? a->failed : NULL) < 0)
			return -1;
	}
	for (i = 0; i < m->n_cells; i++)
		if (add_cell(s, &m->cells[i], mid, i, err) < 0)
			return -1;
	return 0;
}

static int add_matrix_rows(struct store *s, const struct matrix *m, const struct abba_slot *slots,
			   size_t n, int64_t *ret_id, char *err)
{
	int64_t mid;

	/* a matrix only parsed waits for the resolver: none of its runs starts before */
	if (db_run(s, err, "INSERT INTO matrices (name, spec_path, spec, spec_hash, base_dir,"
		   " reps, memory_mib, vcpus, resolve) VALUES (?,?,?,?,?,?,?,?,?)", "tttttiiit",
		   m->name, m->path, m->canonical, m->hash, m->base_dir, (int64_t)m->reps,
		   (int64_t)m->memory_mib, (int64_t)m->vcpus,
		   m->unresolved ? "resolving" : "resolved") < 0)
		return -1;
	mid = sqlite3_last_insert_rowid(s->db);
	if (add_arms_cells(s, m, mid, err) < 0 ||
	    db_insert_runs(s, mid, slots, n, 0, err) < 0)
		return -1;
	*ret_id = mid;
	return 0;
}

struct found_id {
	int64_t id;
	int found;
};

static int found_row(sqlite3_stmt *st, void *arg)
{
	struct found_id *f = arg;

	if (!f->found)
		f->id = sqlite3_column_int64(st, 0);
	f->found = 1;
	return 0;
}

/* The id the first row of sql (its ?1 bound to key) gives: 0 found, 1 none, -1 error. */
static int id_by_key(struct store *s, const char *sql, const char *key, int64_t *ret_id,
		     char *err)
{
	struct found_id f = { 0, 0 };

	if (db_rows(s, sql, found_row, &f, err, "t", key) < 0)
		return -1;
	if (f.found)
		*ret_id = f.id;
	return f.found ? 0 : 1;
}

/* The newest live matrix with this spec hash: 0 found, 1 none, -1 error. */
static int find_live_spec(struct store *s, const char *hash, int64_t *ret_id, char *err)
{
	return id_by_key(s, "SELECT id FROM matrices WHERE spec_hash = ?1 AND state != 'cancelled'"
			 " ORDER BY id DESC LIMIT 1", hash, ret_id, err);
}

struct add_arg {
	const struct matrix *m;
	const struct abba_slot *slots;
	size_t n;
	int64_t id;
	int added;
};

/* Inside the transaction: the live matrix of m's spec, or m's rows queued new. */
static int find_or_add(struct store *s, void *p, char *err)
{
	struct add_arg *a = p;
	int found = find_live_spec(s, a->m->hash, &a->id, err);

	if (found <= 0)
		return found;
	a->added = 1;
	return add_matrix_rows(s, a->m, a->slots, a->n, &a->id, err);
}

int store_add_matrix(struct store *s, const struct matrix *m, const struct abba_slot *slots,
		     size_t n, int64_t *ret_id, int *ret_added, char *err)
{
	struct add_arg a = { m, slots, n, 0, 0 };

	if (db_transaction(s, find_or_add, &a, err) < 0)
		return -1;
	*ret_id = a.id;
	*ret_added = a.added;
	return 0;
}

static int ref_row(sqlite3_stmt *st, void *arg)
{
	struct run_ref *r = rows_push(arg);

	if (!r)
		return -1;
	r->id = sqlite3_column_int64(st, 0);
	r->arm = (unsigned)sqlite3_column_int(st, 1);
	r->cell = (unsigned)sqlite3_column_int(st, 2);
	r->block = (unsigned)sqlite3_column_int(st, 3);
	r->position = (unsigned)sqlite3_column_int(st, 4);
	r->seq = (unsigned)sqlite3_column_int(st, 5);
	return 0;
}

static int runs_with_status(struct store *s, int64_t matrix_id, const char *sql,
			    struct run_ref **ret, size_t *ret_n, char *err)
{
	struct rows acc = ROWS(struct run_ref);

	return rows_take(&acc, db_rows(s, sql, ref_row, &acc, err, "i", matrix_id), ret, ret_n);
}

#define RUN_REF_SQL(status) \
	"SELECT r.id, a.idx, c.idx, r.block, r.position, r.seq FROM runs r" \
	" JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id" \
	" WHERE r.matrix_id = ? AND r.status = '" status "' ORDER BY r.seq"

int store_queued_runs(struct store *s, int64_t matrix_id, struct run_ref **ret, size_t *ret_n,
		      char *err)
{
	return runs_with_status(s, matrix_id, RUN_REF_SQL("queued"), ret, ret_n, err);
}

int store_done_runs(struct store *s, int64_t matrix_id, struct run_ref **ret, size_t *ret_n,
		    char *err)
{
	return runs_with_status(s, matrix_id, RUN_REF_SQL("done"), ret, ret_n, err);
}

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

int store_run_booting(struct store *s, int64_t run, const char *accel, const char *host,
		      const char *arch, const char *console, char *err)
{
	return db_run(s, err, "UPDATE runs SET status = 'booting', started_at = " NOW ","
		      " accel = ?, host = ?, arch = ?, console_path = ? WHERE id = ?",
		      "tttti", accel, host, arch, console, run);
}

int store_run_machine(struct store *s, int64_t run, const struct store_machine *m, char *err)
{
	return db_run(s, err, "UPDATE runs SET qemu_version = ?, libvirt_version = ?,"
		      " tcg_thread = ?, host_kernel = ?, host_cpu = ?, host_cpus = ?, vcpu_pin = ?"
		      " WHERE id = ?", "tttttiti", m->qemu, m->libvirt, m->tcg_thread, m->kernel,
		      m->cpu_model, (int64_t)m->cpus, m->vcpu_pin, run);
}

int store_run_hello(struct store *s, int64_t run, const struct proto_hello *h,
		    int64_t agent_ready_ms, char *err)
{
	/* arch: the planned one until now, from here on the guest's own uname -m */
	return db_run(s, err, "UPDATE runs SET status = 'running', guest_release = ?,"
		      " arch = ?, lru_gen_caps = ?, page_size = ?, mem_total_kib = ?,"
		      " cachestat = ?, dontcache = ?, fio = ?, agent_ready_ms = ? WHERE id = ?",
		      "tttiiiitii", h->release, h->arch, h->lru_gen_caps, (int64_t)h->page_size,
		      (int64_t)h->mem_total_kib, (int64_t)h->cachestat, (int64_t)h->dontcache,
		      h->fio, agent_ready_ms, run);
}

int store_run_setup(struct store *s, int64_t run, const struct proto_setup *st, char *err)
{
	uint64_t i;

	if (db_run(s, err, "UPDATE runs SET lru_gen_read = ?, residency = ?, trace = ? WHERE id = ?",
		   "ttti", st->lru_gen, st->residency, st->trace[0] ? st->trace : NULL, run) < 0)
		return -1;
	for (i = 0; i < st->file_pages.n; i++)
		if (db_run(s, err, "INSERT OR REPLACE INTO run_files (run_id, idx, pages, ino)"
			   " VALUES (?,?,?,?)", "iiii", run, (int64_t)i,
			   (int64_t)st->file_pages.v[i],
			   i < st->file_ino.n ? (int64_t)st->file_ino.v[i] : 0) < 0)
			return -1;
	return 0;
}

/* Step a cached insert whose parameters are bound; reset it either way. */
static int step_insert(struct store *s, sqlite3_stmt *st, const char *what, char *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_err(s, err, what);
	return 0;
}

int store_sample(struct store *s, int64_t run, const struct proto_sample *smp, char *err)
{
	sqlite3_stmt *st = s->ins_sample, *fs = s->ins_file_sample;
	uint64_t f;
	int i = 1;

	sqlite3_bind_int64(st, i++, run);
#define X(m, key, max) sqlite3_bind_int64(st, i++, (int64_t)smp->m);
	PROTO_SAMPLE_FIELDS(X)
#undef X
	if (step_insert(s, st, "insert sample", err) < 0)
		return -1;
	for (f = 0; f < smp->resident.n; f++) {
		sqlite3_bind_int64(fs, 1, run);
		sqlite3_bind_int64(fs, 2, (int64_t)smp->seq);
		sqlite3_bind_int64(fs, 3, (int64_t)f);
		sqlite3_bind_int64(fs, 4, (int64_t)smp->resident.v[f]);
		if (step_insert(s, fs, "insert file sample", err) < 0)
			return -1;
	}
	return 0;
}

/* PROTO_LRU_TIER_FIELDS lists anon's three counters, then file's. */
#define TIER_COLS 6
#define TIER_TYPE(col) ((col) < 3 ? LRUGEN_ANON : LRUGEN_FILE)

/* The tier rows of generation g: a type's columns NULL where it had no rep columns. */
static int store_lru_tiers(struct store *s, int64_t run, const struct proto_lru *l, uint64_t g,
			   char *err)
{
	const struct proto_u64s *col[TIER_COLS] = {
#define X(m, key, max) &l->m,
		PROTO_LRU_TIER_FIELDS(X)
#undef X
	};
	sqlite3_stmt *st = s->ins_lru_tier;
	uint64_t k;
	int c;

	for (k = 0; k < LRUGEN_TIERS; k++) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, (int64_t)l->seq);
		sqlite3_bind_int64(st, 3, (int64_t)l->nid);
		sqlite3_bind_int64(st, 4, (int64_t)l->gen.v[g]);
		sqlite3_bind_int64(st, 5, (int64_t)k);
		for (c = 0; c < TIER_COLS; c++)
			if ((l->rep.v[g] >> TIER_TYPE(c)) & 1)
				sqlite3_bind_int64(st, 6 + c,
						   (int64_t)col[c]->v[g * LRUGEN_TIERS + k]);
			else
				sqlite3_bind_null(st, 6 + c);
		if (step_insert(s, st, "insert lru tier", err) < 0)
			return -1;
	}
	return 0;
}

struct lru_arg {
	int64_t run;
	const struct proto_lru *l;
};

/* One node's generation rows and their tiers (store_lru's transaction). */
static int lru_rows(struct store *s, void *p, char *err)
{
	const struct lru_arg *a = p;
	const struct proto_lru *l = a->l;
	sqlite3_stmt *st = s->ins_lru_gen;
	uint64_t g;

	for (g = 0; g < l->gen.n; g++) {
		sqlite3_bind_int64(st, 1, a->run);
		sqlite3_bind_int64(st, 2, (int64_t)l->seq);
		sqlite3_bind_int64(st, 3, (int64_t)l->nid);
		sqlite3_bind_int64(st, 4, (int64_t)l->gen.v[g]);
		sqlite3_bind_int64(st, 5, (int64_t)l->age_ms.v[g]);
		sqlite3_bind_int64(st, 6, (int64_t)l->anon.v[g]);
		sqlite3_bind_int64(st, 7, (int64_t)l->file.v[g]);
		if (step_insert(s, st, "insert lru generation", err) < 0)
			return -1;
		if (l->anon_refaulted.n && l->rep.v[g] && store_lru_tiers(s, a->run, l, g, err) < 0)
			return -1;
	}
	return 0;
}

int store_lru(struct store *s, int64_t run, const struct proto_lru *l, char *err)
{
	struct lru_arg a = { run, l };

	return db_transaction(s, lru_rows, &a, err);
}

struct trace_arg {
	int64_t run;
	uint64_t *idx;
	const struct proto_trace *t;
};

/* One message's events and the run's counts (store_trace's transaction). */
static int trace_rows(struct store *s, void *p, char *err)
{
	const struct trace_arg *a = p;
	const struct proto_trace *t = a->t;
	sqlite3_stmt *st = s->ins_trace;
	uint64_t e;

	for (e = 0; e < t->kind.n; e++) {
		sqlite3_bind_int64(st, 1, a->run);
		sqlite3_bind_int64(st, 2, (int64_t)(*a->idx)++);
		sqlite3_bind_int64(st, 3, (int64_t)t->seq);
		sqlite3_bind_text(st, 4, proto_trace_kind_names[t->kind.v[e]], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, (int64_t)t->t_ms.v[e]);
		sqlite3_bind_int64(st, 6, (int64_t)t->ino.v[e]);
		sqlite3_bind_int64(st, 7, (int64_t)t->page.v[e]);
		sqlite3_bind_text(st, 8, proto_place_names[t->place.v[e]], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, (int64_t)t->gen.v[e]);
		sqlite3_bind_int64(st, 10, (int64_t)t->min_seq.v[e]);
		sqlite3_bind_int64(st, 11, (int64_t)t->max_seq.v[e]);
		if (step_insert(s, st, "insert trace event", err) < 0)
			return -1;
	}
	return db_run(s, err, "UPDATE runs SET trace_lost = ?, trace_refused = ? WHERE id = ?",
		      "iii", (int64_t)t->lost, (int64_t)t->refused, a->run);
}

int store_trace(struct store *s, int64_t run, uint64_t *idx, const struct proto_trace *t,
		char *err)
{
	struct trace_arg a = { run, idx, t };

	return db_transaction(s, trace_rows, &a, err);
}

int store_stream_sample(struct store *s, int64_t run, const struct proto_stream_sample *smp,
			char *err)
{
	sqlite3_stmt *st = s->ins_stream;
	int i = 1;

	sqlite3_bind_int64(st, i++, run);
#define X(m, key, max) sqlite3_bind_int64(st, i++, (int64_t)smp->m);
	PROTO_STREAM_FIELDS(X)
#undef X
	return step_insert(s, st, "insert stream sample", err);
}

int store_op_sample(struct store *s, int64_t run, const struct proto_op_sample *o, char *err)
{
	sqlite3_stmt *st = s->ins_op;
	int i = 1;

	sqlite3_bind_int64(st, i++, run);
#define X(m, key, max) sqlite3_bind_int64(st, i++, (int64_t)o->m);
	PROTO_OP_FIELDS(X)
#undef X
	sqlite3_bind_text(st, i, o->op, -1, SQLITE_TRANSIENT);
	return step_insert(s, st, "insert operation sample", err);
}

int store_event(struct store *s, int64_t run, unsigned idx, const struct proto_event *e,
		char *err)
{
	uint64_t f;

	if (db_run(s, err, "INSERT INTO events VALUES (?,?,?,?,?,?,?)", "iiiitii", run,
		   (int64_t)idx, (int64_t)e->t_ms, (int64_t)e->stream, e->kind,
		   (int64_t)e->pass, (int64_t)e->value) < 0)
		return -1;
	for (f = 0; f < e->resident.n; f++)
		if (db_run(s, err, "INSERT INTO event_files VALUES (?,?,?,?)", "iiii", run,
			   (int64_t)idx, (int64_t)f, (int64_t)e->resident.v[f]) < 0)
			return -1;
	return 0;
}

int store_batch(struct store *s, int (*fn)(struct store *s, void *arg, char *err), void *arg,
		char *err)
{
	return db_transaction(s, fn, arg, err);
}

struct finish_arg {
	int64_t run;
	const char *status, *reason;
	const struct proto_summary *sum;
};

/* The run's end and, if it is done, its summary: both or neither. */
static int run_end_rows(struct store *s, void *p, char *err)
{
	struct finish_arg *a = p;

	if (db_run(s, err, "UPDATE runs SET status = ?, reason = ?, finished_at = " NOW ","
		   " duration_ms = ?, samples = ? WHERE id = ?", "ttiii", a->status, a->reason,
		   (int64_t)a->sum->duration_ms, (int64_t)a->sum->samples, a->run) < 0 ||
	    db_run(s, err, summary_insert, "i", a->run) < 0)
		return -1;
	return 0;
}

int store_run_finish(struct store *s, int64_t run, const char *status, const char *reason,
		     const struct proto_summary *sum, char *err)
{
	struct proto_summary none = { 0 };
	struct finish_arg a = { run, status, reason, sum ? sum : &none };

	return db_transaction(s, run_end_rows, &a, err);
}

int store_find_matrix(struct store *s, const char *key, int64_t *ret_id, char *err)
{
	int rc = id_by_key(s, "SELECT id FROM matrices WHERE CAST(id AS TEXT) = ?1 OR name = ?1"
			   " ORDER BY (CAST(id AS TEXT) = ?1) DESC, id DESC LIMIT 1", key, ret_id, err);

	if (rc == 1)
		return errorf(err, "no matrix with id or name '%s' in the database", key);
	return rc;
}

static int info_matrix(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;

	db_text(st, 0, mi->name, sizeof(mi->name));
	return 0;
}

static int info_arm(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int i = sqlite3_column_int(st, 0);

	if (i < 0 || i >= SPEC_MAX_ARMS)
		return 0;
	db_text(st, 1, mi->arm_names[i], sizeof(mi->arm_names[i]));
	db_text(st, 2, mi->arm_release[i], sizeof(mi->arm_release[i]));
	db_text(st, 3, mi->arm_lru[i], sizeof(mi->arm_lru[i]));
	db_text(st, 4, mi->arm_tags[i], sizeof(mi->arm_tags[i]));
	if ((unsigned)i >= mi->n_arms)
		mi->n_arms = (unsigned)i + 1;
	return 0;
}

static int info_cell(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int i = sqlite3_column_int(st, 0);

	if (i < 0 || i >= SPEC_MAX_CELLS)
		return 0;
	db_text(st, 1, mi->cell_names[i], sizeof(mi->cell_names[i]));
	db_text(st, 2, mi->cell_params[i], sizeof(mi->cell_params[i]));
	db_text(st, 3, mi->cell_preset[i], sizeof(mi->cell_preset[i]));
	if ((unsigned)i >= mi->n_cells)
		mi->n_cells = (unsigned)i + 1;
	return 0;
}

/* Per cell and arm: what the guests read back, which arch and accel they were. */
static int info_cell_runs(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int c = sqlite3_column_int(st, 0), a = sqlite3_column_int(st, 1);

	if (c < 0 || c >= SPEC_MAX_CELLS || a < 0 || a >= SPEC_MAX_ARMS)
		return 0;
	db_text(st, 2, mi->cell_lru[c][a], sizeof(mi->cell_lru[c][a]));
	db_text(st, 3, mi->cell_arch[c], sizeof(mi->cell_arch[c]));
	db_text(st, 4, mi->cell_accel[c], sizeof(mi->cell_accel[c]));
	return 0;
}

static int info_runs(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;

	mi->runs_total = (unsigned)sqlite3_column_int(st, 0);
	mi->runs_done = (unsigned)sqlite3_column_int(st, 1);
	mi->runs_failed = (unsigned)sqlite3_column_int(st, 2);
	mi->runs_unsupported = (unsigned)sqlite3_column_int(st, 5);
	mi->runs_contended = (unsigned)sqlite3_column_int(st, 6);
	mi->runs_started_busy = (unsigned)sqlite3_column_int(st, 7);
	db_text(st, 3, mi->accel, sizeof(mi->accel));
	db_text(st, 4, mi->arch, sizeof(mi->arch));
	return 0;
}

int store_matrix_info(struct store *s, int64_t matrix_id, struct matrix_info *mi, char *err)
{
	memset(mi, 0, sizeof(*mi));
	if (db_rows(s, "SELECT name FROM matrices WHERE id = ?", info_matrix, mi,
		    err, "i", matrix_id) < 0 ||
	    db_rows(s, "SELECT a.idx, a.name, a.release,"
		    " (SELECT group_concat(DISTINCT r.lru_gen_read) FROM runs r"
		    "  WHERE r.arm_id = a.id AND r.status = 'done'), a.tag"
		    " FROM arms a WHERE a.matrix_id = ? ORDER BY a.idx", info_arm, mi,
		    err, "i", matrix_id) < 0 ||
	    db_rows(s, "SELECT idx, name, params, preset FROM cells WHERE matrix_id = ? ORDER BY idx",
		    info_cell, mi, err, "i", matrix_id) < 0 ||
	    db_rows(s, "SELECT c.idx, a.idx, group_concat(DISTINCT r.lru_gen_read),"
		    " (SELECT group_concat(DISTINCT r2.arch) FROM runs r2 WHERE r2.cell_id = c.id"
		    "  AND r2.status = 'done'),"
		    " (SELECT group_concat(DISTINCT r3.accel) FROM runs r3 WHERE r3.cell_id = c.id"
		    "  AND r3.status = 'done')"
		    " FROM runs r JOIN cells c ON c.id = r.cell_id JOIN arms a ON a.id = r.arm_id"
		    " WHERE r.matrix_id = ? AND r.status = 'done' GROUP BY c.idx, a.idx",
		    info_cell_runs, mi, err, "i", matrix_id) < 0 ||
	    db_rows(s, "SELECT COUNT(*), SUM(status = 'done'), SUM(status = 'failed'),"
		    " group_concat(DISTINCT accel), group_concat(DISTINCT arch),"
		    " SUM(status = 'unsupported'), SUM(status = 'done' AND contended = 1),"
		    " SUM(status = 'done' AND started_busy = 1)"
		    " FROM runs WHERE matrix_id = ?", info_runs, mi, err, "i", matrix_id) < 0)
		return -1;
	return 0;
}

static int summary_row(sqlite3_stmt *st, void *arg)
{
	struct run_summary *r = rows_push(arg);

	if (!r)
		return -1;
	r->run = sqlite3_column_int64(st, 0);
	r->arm = (unsigned)sqlite3_column_int(st, 1);
	r->cell = (unsigned)sqlite3_column_int(st, 2);
	r->block = (unsigned)sqlite3_column_int(st, 3);
	r->position = (unsigned)sqlite3_column_int(st, 4);
	r->seconds = sqlite3_column_double(st, 5);
	r->ops_per_s = sqlite3_column_double(st, 6);
	r->refault_per_s = sqlite3_column_double(st, 7);
	r->majflt_per_s = sqlite3_column_double(st, 8);
	r->activate_per_s = sqlite3_column_double(st, 9);
	r->refaults_per_read = sqlite3_column_double(st, 10);
	r->miss_share = sqlite3_column_double(st, 11);
	r->resident_share = db_real_or_nan(st, 12);   /* NULL: the cell tracks no file */
	db_text(st, 13, r->host, sizeof(r->host));
	r->contended = sqlite3_column_int(st, 14) != 0;
	return 0;
}

int store_summaries(struct store *s, int64_t matrix_id, struct run_summary **ret,
		    size_t *ret_n, char *err)
{
	struct rows acc = ROWS(struct run_summary);

	return rows_take(&acc, db_rows(s, "SELECT s.run_id, s.arm, s.cell, s.block, s.position,"
					 " s.seconds, s.ops_per_s, s.refault_per_s, s.majflt_per_s,"
					 " s.activate_per_s, s.refaults_per_read, s.miss_share,"
					 " s.resident_share, r.host, COALESCE(r.contended, 0)"
					 " FROM run_summary s JOIN runs r"
					 " ON r.id = s.run_id WHERE s.matrix_id = ? ORDER BY s.run_id",
					summary_row, &acc, err, "i", matrix_id), ret, ret_n);
}

struct layout_arg {
	struct cell_layout *l;
	unsigned cell;
};

static int layout_row(sqlite3_stmt *st, void *arg)
{
	struct layout_arg *la = arg;
	struct cell_layout *l = la->l;
	int kind = sqlite3_column_int(st, 0), idx = sqlite3_column_int(st, 1);

	if ((unsigned)sqlite3_column_int(st, 3) != la->cell)
		return 0;
	if (kind == 0 && idx >= 0 && idx < PROTO_MAX_FILES) {
		db_text(st, 2, l->files[idx], sizeof(l->files[idx]));
		l->file_mib[idx] = (uint64_t)sqlite3_column_int64(st, 4);
		if ((unsigned)idx >= l->nfiles)
			l->nfiles = (unsigned)idx + 1;
	} else if (kind == 1 && idx >= 0 && idx < PROTO_MAX_STREAMS) {
		db_text(st, 2, l->streams[idx], sizeof(l->streams[idx]));
		if ((unsigned)idx >= l->nstreams)
			l->nstreams = (unsigned)idx + 1;
	} else if (kind == 2) {
		db_text(st, 2, l->report, sizeof(l->report));
	}
	return 0;
}

int store_cell_layout(struct store *s, int64_t matrix_id, unsigned cell, struct cell_layout *l,
		      char *err)
{
	struct layout_arg la = { l, cell };

	memset(l, 0, sizeof(*l));
	return db_rows(s, "SELECT 0, f.idx, f.name, c.idx, f.mib FROM cell_files f JOIN cells c"
		       " ON c.id = f.cell_id WHERE c.matrix_id = ?1"
		       " UNION ALL SELECT 1, t.idx, t.name, c.idx, 0 FROM cell_streams t JOIN cells c"
		       " ON c.id = t.cell_id WHERE c.matrix_id = ?1"
		       " UNION ALL SELECT 2, 0, COALESCE(report, ''), idx, 0 FROM cells"
		       " WHERE matrix_id = ?1", layout_row, &la, err, "i", matrix_id);
}

/* A run's intervals as they are read: the points, and how many streams its cell has. */
struct series_arg {
	struct rows a;
	int nstreams;
};

/* A stream's numbers are NAN (missing) until its row for the interval is read. */
static int series_row(sqlite3_stmt *st, void *arg)
{
	struct series_arg *sa = arg;
	struct series_point *p = rows_push(&sa->a);
	int k;

	if (!p)
		return -1;
	p->seq = (uint64_t)sqlite3_column_int64(st, 0);
	p->t_ms = (uint64_t)sqlite3_column_int64(st, 1);
	p->ramp = sqlite3_column_int(st, 2);
	p->majflt = sqlite3_column_double(st, 3);
	p->refault = sqlite3_column_double(st, 4);
	p->activate = sqlite3_column_double(st, 5);
	for (k = 0; k < sa->nstreams && k < PROTO_MAX_STREAMS; k++)
		p->ops[k] = p->reads[k] = p->misses[k] = NAN;
	return 0;
}

/* Rows (seq, index, value...) land in the point of that seq, if there is one. */
static struct series_point *point_of(struct series_arg *sa, sqlite3_stmt *st)
{
	struct series_point *v = sa->a.v;
	int64_t seq = sqlite3_column_int64(st, 0);

	return seq >= 0 && (size_t)seq < sa->a.n && v[seq].seq == (uint64_t)seq ? &v[seq] : NULL;
}

static int series_stream_row(sqlite3_stmt *st, void *arg)
{
	struct series_point *p = point_of(arg, st);
	int k = sqlite3_column_int(st, 1);

	if (!p || k < 0 || k >= PROTO_MAX_STREAMS)
		return 0;
	p->ops[k] = sqlite3_column_double(st, 2);
	p->reads[k] = sqlite3_column_double(st, 3);
	p->misses[k] = sqlite3_column_double(st, 4);
	return 0;
}

static int series_file_row(sqlite3_stmt *st, void *arg)
{
	struct series_point *p = point_of(arg, st);
	int f = sqlite3_column_int(st, 1);

	if (p && f >= 0 && f < PROTO_MAX_FILES)
		p->resident[f] = sqlite3_column_double(st, 2);
	return 0;
}

int store_run_series(struct store *s, int64_t run, struct series_point **ret, size_t *ret_n,
		     char *err)
{
	struct series_arg sa = { ROWS(struct series_point), 0 };
	int64_t nstreams = 0;
	int rc;

	rc = db_rows(s, "SELECT COUNT(*) FROM cell_streams t JOIN runs r ON r.cell_id = t.cell_id"
		     " WHERE r.id = ?", db_int, &nstreams, err, "i", run);
	sa.nstreams = (int)nstreams;
	if (rc == 0)
		rc = db_rows(s, "SELECT seq, t_ms, ramp, pgmajfault, workingset_refault_file,"
			     " workingset_activate_file FROM samples WHERE run_id = ? ORDER BY seq",
			     series_row, &sa, err, "i", run);
	if (rc == 0)
		rc = db_rows(s, "SELECT seq, stream, read_ops + write_ops, read_ops, misses"
			     " FROM stream_samples WHERE run_id = ?", series_stream_row, &sa, err,
			     "i", run);
	if (rc == 0)
		rc = db_rows(s, "SELECT seq, file, resident_pages FROM file_samples WHERE run_id = ?",
			     series_file_row, &sa, err, "i", run);
	return rows_take(&sa.a, rc, ret, ret_n);
}

static int event_row_fn(sqlite3_stmt *st, void *arg)
{
	struct rows *a = arg;
	struct event_row *e;
	int f = sqlite3_column_int(st, 5);

	if (sqlite3_column_int(st, 6) == 0 || a->n == 0) {   /* first file of a new event */
		e = rows_push(a);
		if (!e)
			return -1;
		e->t_ms = (uint64_t)sqlite3_column_int64(st, 0);
		e->stream = (uint64_t)sqlite3_column_int64(st, 1);
		db_text(st, 2, e->kind, sizeof(e->kind));
		e->pass = (uint64_t)sqlite3_column_int64(st, 3);
		e->value = (uint64_t)sqlite3_column_int64(st, 4);
	}
	e = (struct event_row *)a->v + a->n - 1;
	if (f >= 0 && f < PROTO_MAX_FILES)
		e->resident[f] = sqlite3_column_double(st, 7);
	return 0;
}

int store_run_events(struct store *s, int64_t run, struct event_row **ret, size_t *ret_n,
		     char *err)
{
	struct rows a = ROWS(struct event_row);

	return rows_take(&a, db_rows(s, "SELECT e.t_ms, e.stream, e.kind, e.pass, e.value,"
				      " f.file, ROW_NUMBER() OVER (PARTITION BY e.idx ORDER BY"
				      " f.file) - 1, f.resident_pages FROM events e JOIN event_files"
				      " f ON f.run_id = e.run_id AND f.idx = e.idx WHERE e.run_id = ?"
				     " ORDER BY e.idx, f.file", event_row_fn, &a, err, "i", run),
			 ret, ret_n);
}

/* ---- the daemon's queue ---- */

struct spec_arg {
	char *text;
	char *base_dir;
	int found;
};

static int spec_row(sqlite3_stmt *st, void *arg)
{
	struct spec_arg *a = arg;
	const unsigned char *t = sqlite3_column_text(st, 0);

	a->text = t ? strdup((const char *)t) : NULL;
	db_text(st, 1, a->base_dir, PATH_MAX);
	a->found = 1;
	return 0;
}

int store_matrix_spec(struct store *s, int64_t mid, char **ret_text, char *base_dir, char *err)
{
	struct spec_arg a = { NULL, base_dir, 0 };

	if (db_rows(s, "SELECT spec, base_dir FROM matrices WHERE id = ?", spec_row, &a,
		    err, "i", mid) < 0)
		return -1;
	if (!a.found || !a.text)
		return errorf(err, "matrix %lld: no stored spec", (long long)mid);
	*ret_text = a.text;
	return 0;
}

/* The first claimable run of an active, resolved matrix where cond holds. */
#define CLAIM_FIRST(cond) \
	"SELECT * FROM (SELECT r.id, r.matrix_id, r.seq, r.attempt FROM runs r" \
	" INDEXED BY runs_claimable JOIN matrices m ON m.id = r.matrix_id" \
	" WHERE " cond " AND r.status = 'queued' AND r.slot IS NULL AND" \
	" m.state = 'active' AND m.resolve = 'resolved'" \
	" ORDER BY r.arch, r.matrix_id, r.seq, r.attempt LIMIT 1)"

struct claim_arg {
	int slot;
	char archs[2][16];           /* the archs the host runs; "" (NULL bound) matches none */
	int64_t mid;
	struct rows refs;
};

/* The first queued run of an active, resolved matrix, and the rest of its ABBA block. */
static int claim_rows(struct store *s, void *p, char *err)
{
	struct claim_arg *a = p;
	int64_t first = 0;

	/* the first in queue order of each arch the host runs (and of no arch:
	 * queued before schema 11), each an index lookup; then the first of those */
	if (db_rows(s, "SELECT COALESCE((SELECT id FROM ("
		    CLAIM_FIRST("r.arch = ?1") " UNION ALL " CLAIM_FIRST("r.arch = ?2")
		    " UNION ALL " CLAIM_FIRST("r.arch IS NULL")
		    ") ORDER BY matrix_id, seq, attempt LIMIT 1), 0)",
		    db_int, &first, err, "tt", a->archs[0][0] ? a->archs[0] : NULL,
		    a->archs[1][0] ? a->archs[1] : NULL) < 0)
		return -1;
	if (!first)
		return 0;
	if (db_run(s, err, "UPDATE runs SET slot = ?1 WHERE status = 'queued' AND slot IS NULL"
		   " AND (matrix_id, cell_id, block) = (SELECT matrix_id, cell_id, block FROM runs"
		   " WHERE id = ?2)", "ii", (int64_t)a->slot, first) < 0 ||
	    db_rows(s, "SELECT matrix_id FROM runs WHERE id = ?", db_int, &a->mid,
		    err, "i", first) < 0)
		return -1;
	return db_rows(s, "SELECT r.id, a.idx, c.idx, r.block, r.position, r.seq FROM runs r"
		       " JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
		       " WHERE r.slot = ? AND r.status = 'queued' ORDER BY r.seq, r.attempt",
		       ref_row, &a->refs, err, "i", (int64_t)a->slot);
}

int store_claim_block(struct store *s, int slot, const char *archs, int64_t *ret_matrix,
		      struct run_ref **ret, size_t *ret_n, char *err)
{
	struct claim_arg a = { .slot = slot, .refs = ROWS(struct run_ref) };
	size_t n = strcspn(archs, " ");

	snprintf(a.archs[0], sizeof(a.archs[0]), "%.*s", (int)n, archs);
	snprintf(a.archs[1], sizeof(a.archs[1]), "%s", archs[n] ? archs + n + 1 : "");
	*ret_matrix = 0;
	if (rows_take(&a.refs, db_transaction(s, claim_rows, &a, err), ret, ret_n) < 0)
		return -1;
	*ret_matrix = a.mid;
	return 0;
}

int store_unclaim(struct store *s, int slot, char *err)
{
	return db_run(s, err, "UPDATE runs SET slot = NULL WHERE slot = ? AND status = 'queued'",
		      "i", (int64_t)slot);
}

struct requeue_arg {
	int64_t run;
	const char *status, *reason;
	int keep_slot;
	int64_t new_id;
};

static int requeue_rows(struct store *s, void *p, char *err)
{
	struct requeue_arg *a = p;

	if (db_run(s, err, "UPDATE runs SET status = ?, reason = ?, finished_at = " NOW
		   " WHERE id = ?", "tti", a->status, a->reason, a->run) < 0 ||
	    db_run(s, err, "INSERT INTO runs (matrix_id, arm_id, cell_id, seq, block, position,"
		   " attempt, retry_of, slot, arch) SELECT matrix_id, arm_id, cell_id, seq, block,"
		   " position, (SELECT MAX(attempt) + 1 FROM runs r2 WHERE r2.matrix_id ="
		   " runs.matrix_id AND r2.seq = runs.seq), id, CASE WHEN ?2 THEN slot END,"
		   " (SELECT NULLIF(c.arch, '') FROM cells c WHERE c.id = runs.cell_id)"
		   " FROM runs WHERE id = ?1", "ii", a->run, (int64_t)a->keep_slot) < 0)
		return -1;
	a->new_id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int store_requeue(struct store *s, int64_t run, const char *status, const char *reason,
		  int keep_slot, int64_t *ret_new, char *err)
{
	struct requeue_arg a = { run, status, reason, keep_slot, 0 };

	if (db_transaction(s, requeue_rows, &a, err) < 0)
		return -1;
	if (ret_new)
		*ret_new = a.new_id;
	return 0;
}

struct block_arg {
	int64_t run;
	const char *host, *reason;
	struct rows ids;
	unsigned n;
};

static int block_id_row(sqlite3_stmt *st, void *arg)
{
	int64_t *id = rows_push(arg);

	if (!id)
		return -1;
	*id = sqlite3_column_int64(st, 0);
	return 0;
}

/* Every run of run's block the host did or was doing, the latest attempt of its seq. */
static int requeue_block_rows(struct store *s, void *p, char *err)
{
	struct block_arg *a = p;
	struct requeue_arg r = { 0, "interrupted", a->reason, 0, 0 };
	const int64_t *ids;
	size_t i;

	if (db_rows(s, "SELECT r.id FROM runs r JOIN runs b ON b.id = ?1"
		    " WHERE r.matrix_id = b.matrix_id AND r.cell_id = b.cell_id AND r.block = b.block"
		    " AND r.host = ?2 AND r.status IN ('done', 'booting', 'running', 'failed', 'timeout')"
		    " AND NOT EXISTS (SELECT 1 FROM runs n WHERE n.matrix_id = r.matrix_id AND"
		    " n.seq = r.seq AND n.attempt > r.attempt) ORDER BY r.seq",
		    block_id_row, &a->ids, err, "it", a->run, a->host) < 0)
		return -1;
	ids = a->ids.v;
	for (i = 0; i < a->ids.n; i++) {
		r.run = ids[i];
		if (db_run(s, err, "DELETE FROM run_summary WHERE run_id = ?", "i", ids[i]) < 0 ||
		    requeue_rows(s, &r, err) < 0)
			return -1;
	}
	a->n = (unsigned)a->ids.n;
	return 0;
}

int store_requeue_block(struct store *s, int64_t run, const char *host, const char *reason,
			unsigned *ret_n, char *err)
{
	struct block_arg a = { run, host, reason, ROWS(int64_t), 0 };
	int rc = db_transaction(s, requeue_block_rows, &a, err);

	free(a.ids.v);
	if (ret_n)
		*ret_n = a.n;
	return rc;
}

struct resume_acc {
	int64_t ids[4096];
	size_t n;
};

static int resume_row(sqlite3_stmt *st, void *arg)
{
	struct resume_acc *a = arg;

	if (a->n < ARRAY_SIZE(a->ids))
		a->ids[a->n++] = sqlite3_column_int64(st, 0);
	return 0;
}

static int resume_rows(struct store *s, void *p, char *err)
{
	struct resume_acc *a = p;
	struct requeue_arg r = { 0, "interrupted", "the daemon stopped during this run; "
				 "re-queued as a fresh boot", 0, 0 };
	size_t i;

	if (db_rows(s, "SELECT id FROM runs WHERE status IN ('booting', 'running')",
		    resume_row, a, err, "") < 0)
		return -1;
	for (i = 0; i < a->n; i++) {
		r.run = a->ids[i];
		if (requeue_rows(s, &r, err) < 0)
			return -1;
	}
	return db_run(s, err, "UPDATE runs SET slot = NULL WHERE status = 'queued'", "");
}

int store_resume(struct store *s, unsigned *ret_interrupted, char *err)
{
	_cleanup_free_ struct resume_acc *a = calloc(1, sizeof(*a));

	if (!a)
		return errorf(err, "out of memory");
	if (db_transaction(s, resume_rows, a, err) < 0)
		return -1;
	*ret_interrupted = (unsigned)a->n;
	return 0;
}

static int state_row(sqlite3_stmt *st, void *arg)
{
	db_text(st, 0, arg, 16);
	return 0;
}

int store_matrix_state(struct store *s, int64_t mid, char state[16], char *err)
{
	state[0] = '\0';
	if (db_rows(s, "SELECT state FROM matrices WHERE id = ?", state_row, state, err, "i",
		    mid) < 0)
		return -1;
	return state[0] ? 0 : errorf(err, "no matrix %lld", (long long)mid);
}

int store_set_matrix_state(struct store *s, int64_t mid, const char *state, char *err)
{
	if (db_run(s, err, "UPDATE matrices SET state = ? WHERE id = ?", "ti", state, mid) < 0)
		return -1;
	if (strcmp(state, "cancelled"))
		return 0;
	return db_run(s, err, "UPDATE runs SET status = 'cancelled', slot = NULL,"
		      " finished_at = " NOW " WHERE matrix_id = ? AND status = 'queued'", "i", mid);
}

struct builds_arg {
	struct matrix *m;
	int oom;
};

static int build_row(sqlite3_stmt *st, void *arg)
{
	struct builds_arg *b = arg;
	int64_t idx = sqlite3_column_int64(st, 0);
	const char *json = (const char *)sqlite3_column_text(st, 1);
	const char *failed = (const char *)sqlite3_column_text(st, 2);
	struct arm *a;

	if (idx < 0 || idx >= b->m->n_arms)
		return 0;
	a = &b->m->arms[idx];
	if (!spec_arm_built(a))
		return 0;
	snprintf(a->failed, sizeof(a->failed), "%s", failed ? failed : "");
	if (!json)
		return 0;
	free(a->build_json);
	a->build_json = strdup(json);
	b->oom |= !a->build_json;
	return 0;
}

int store_arm_builds(struct store *s, int64_t mid, struct matrix *m, int64_t *ret_mid,
		     char *err)
{
	struct builds_arg b = { m, 0 };

	if (!mid && db_rows(s, "SELECT COALESCE((SELECT id FROM matrices WHERE spec_hash = ?"
			    " AND state != 'cancelled' AND dup_of IS NULL), 0)", db_int, &mid,
			    err, "t", m->hash) < 0)
		return -1;
	if (ret_mid)
		*ret_mid = mid;
	if (!mid)
		return 0;
	if (db_rows(s, "SELECT idx, build, failed FROM arms WHERE matrix_id = ? AND"
		    " (build IS NOT NULL OR failed IS NOT NULL)", build_row, &b, err, "i", mid) < 0)
		return -1;
	return b.oom ? errorf(err, "out of memory") : 0;
}

/* ---- resolving: a submitted matrix's kernels made ready in the background ---- */

int store_next_resolving(struct store *s, int64_t *ret_mid, char *err)
{
	*ret_mid = 0;
	return db_rows(s, "SELECT COALESCE((SELECT id FROM matrices WHERE resolve = 'resolving'"
		       " AND state != 'cancelled' ORDER BY id LIMIT 1), 0)", db_int,
		       ret_mid, err, "");
}

int store_set_resolve(struct store *s, int64_t mid, const char *from, const char *to,
		      const char *msg, char *err)
{
	return db_run(s, err, "UPDATE matrices SET resolve = ?, resolve_msg = ? WHERE id = ?"
		      " AND resolve = ?", "ttit", to, msg, mid, from);
}

struct resolved_arg {
	int64_t mid;
	const struct matrix *m;
};

static int resolved_rows(struct store *s, void *p, char *err)
{
	struct resolved_arg *a = p;
	const struct kernel_files *f;
	unsigned i;

	for (i = 0; i < a->m->n_arms; i++) {
		const struct arm *arm = &a->m->arms[i];
		f = &arm->files[0];
		if (db_run(s, err, "UPDATE arms SET kernel_path = ?, modules_path = ?, release = ?,"
			   " build = ?, failed = ? WHERE matrix_id = ? AND idx = ?", "tttttii",
			   f->kernel, f->modules, f->release, arm->build_json,
			   arm->failed[0] ? arm->failed : NULL, a->mid, (int64_t)i) < 0)
			return -1;
	}
	if (db_fail_arm_runs(s, a->mid, err) < 0)
		return -1;
	return store_set_resolve(s, a->mid, "resolving", "resolved", NULL, err);
}

int store_resolved(struct store *s, int64_t mid, const struct matrix *m, char *err)
{
	struct resolved_arg a = { mid, m };

	return db_transaction(s, resolved_rows, &a, err);
}

int store_matrix_resolve(struct store *s, int64_t mid, char resolve[16], char *err)
{
	resolve[0] = '\0';
	if (db_rows(s, "SELECT resolve FROM matrices WHERE id = ?", state_row, resolve,
		    err, "i", mid) < 0)
		return -1;
	return resolve[0] ? 0 : errorf(err, "no matrix %lld", (long long)mid);
}

struct id_acc {
	int64_t ids[256];
	size_t n;
};

static int id_row(sqlite3_stmt *st, void *arg)
{
	struct id_acc *a = arg;

	if (a->n < ARRAY_SIZE(a->ids))
		a->ids[a->n++] = sqlite3_column_int64(st, 0);
	return 0;
}

static int finish_rows(struct store *s, void *p, char *err)
{
	struct id_acc *a = p;
	size_t i;

	if (db_rows(s, "SELECT m.id FROM matrices m WHERE m.state = 'active' AND NOT EXISTS"
		    " (SELECT 1 FROM runs r WHERE r.matrix_id = m.id AND r.status IN"
		    " ('queued', 'booting', 'running'))", id_row, a, err, "") < 0)
		return -1;
	for (i = 0; i < a->n; i++)
		if (db_run(s, err, "UPDATE matrices SET state = 'finished' WHERE id = ?", "i",
			   a->ids[i]) < 0)
			return -1;
	return 0;
}

int store_finish_matrices(struct store *s, int64_t *ids, size_t max, size_t *ret_n, char *err)
{
	struct id_acc a = { .n = 0 };

	if (db_transaction(s, finish_rows, &a, err) < 0)
		return -1;
	*ret_n = a.n < max ? a.n : max;
	memcpy(ids, a.ids, *ret_n * sizeof(*ids));
	return 0;
}

int store_run_console(struct store *s, int64_t run, const char *crash, int64_t warnings,
		      char *err)
{
	return db_run(s, err, "UPDATE runs SET crash = ?, warnings = ? WHERE id = ?", "tii",
		      crash, warnings, run);
}
