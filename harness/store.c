/* store.c -- SQLite schema and every statement the harness runs against it.
 * Sample columns come from PROTO_SAMPLE_FIELDS, so the guest protocol and the
 * table cannot drift apart. */
#include "store.h"
#include "err.h"

#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

struct store {
	sqlite3 *db;
	sqlite3_stmt *ins_sample;
};

#define X(m, key, max) ", \"" key "\" INTEGER NOT NULL"
static const char sample_columns[] = PROTO_SAMPLE_FIELDS(X);
#undef X

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS matrices ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL,"
	" spec_path TEXT NOT NULL,"
	" spec TEXT NOT NULL,"
	" spec_hash TEXT NOT NULL,"
	" memory_mib INTEGER NOT NULL,"
	" vcpus INTEGER NOT NULL,"
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));"
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
	" UNIQUE (matrix_id, idx));"
	"CREATE TABLE IF NOT EXISTS cells ("
	" id INTEGER PRIMARY KEY,"
	" matrix_id INTEGER NOT NULL REFERENCES matrices(id),"
	" idx INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" params TEXT NOT NULL,"          /* the full workload option set, JSON */
	" UNIQUE (matrix_id, idx));"
	"CREATE TABLE IF NOT EXISTS runs ("
	" id INTEGER PRIMARY KEY,"
	" matrix_id INTEGER NOT NULL REFERENCES matrices(id),"
	" arm_id INTEGER NOT NULL REFERENCES arms(id),"
	" cell_id INTEGER NOT NULL REFERENCES cells(id),"
	" seq INTEGER NOT NULL,"          /* order within the matrix */
	" block INTEGER NOT NULL,"        /* ABBA block within the cell */
	" position INTEGER NOT NULL,"     /* position within the block */
	" status TEXT NOT NULL DEFAULT 'queued'"
	"  CHECK (status IN ('queued','booting','running','done','failed')),"
	" reason TEXT,"
	" accel TEXT, host TEXT, arch TEXT,"
	" guest_release TEXT, lru_gen_caps TEXT, lru_gen_read TEXT,"
	" page_size INTEGER, mem_total_kib INTEGER,"
	" residency TEXT, file_pages INTEGER,"
	" console_path TEXT,"
	" started_at TEXT, finished_at TEXT,"
	" agent_ready_ms INTEGER,"        /* domain start to the agent's hello */
	" ops_total INTEGER, duration_ms INTEGER, samples INTEGER,"
	" UNIQUE (matrix_id, seq));"
	"CREATE INDEX IF NOT EXISTS runs_matrix ON runs (matrix_id, status);";

static const char summary_view[] =
	"CREATE VIEW IF NOT EXISTS run_summary AS"
	" SELECT r.id AS run_id, r.matrix_id, a.idx AS arm, c.idx AS cell, r.block, r.position,"
	"  SUM(s.ops) * 1000.0 / MAX(s.t_ms) AS ops_per_s,"
	"  SUM(s.workingset_refault_file) * 1000.0 / MAX(s.t_ms) AS refault_per_s,"
	"  SUM(s.pgmajfault) * 1000.0 / MAX(s.t_ms) AS majflt_per_s,"
	"  (SELECT e.resident_pages FROM samples e WHERE e.run_id = r.id"
	"   ORDER BY e.seq DESC LIMIT 1) AS resident_end,"
	"  r.file_pages"
	" FROM runs r JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
	"  JOIN samples s ON s.run_id = r.id"
	" WHERE r.status = 'done' GROUP BY r.id;";

static int db_err(struct store *s, char *err, const char *what)
{
	return errorf(err, "database: %s: %s", what, sqlite3_errmsg(s->db));
}

static int exec_sql(struct store *s, const char *sql, char *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		errorf(err, "database: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int create_schema(struct store *s, char *err)
{
	char sql[2048];

	if (exec_sql(s, schema, err) < 0 || exec_sql(s, summary_view, err) < 0)
		return -1;
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE IF NOT EXISTS samples (run_id INTEGER NOT NULL REFERENCES runs(id)%s,"
		 " PRIMARY KEY (run_id, seq)) WITHOUT ROWID;", sample_columns);
	return exec_sql(s, sql, err);
}

static int prepare_sample_insert(struct store *s, char *err)
{
	char sql[1024];
	size_t n = 0, cols = 0;

	n += snprintf(sql + n, sizeof(sql) - n, "INSERT INTO samples (run_id");
#define X(m, key, max) n += snprintf(sql + n, sizeof(sql) - n, ", \"%s\"", key); cols++;
	PROTO_SAMPLE_FIELDS(X)
#undef X
	n += snprintf(sql + n, sizeof(sql) - n, ") VALUES (?");
	while (cols--)
		n += snprintf(sql + n, sizeof(sql) - n, ", ?");
	snprintf(sql + n, sizeof(sql) - n, ")");
	if (sqlite3_prepare_v2(s->db, sql, -1, &s->ins_sample, NULL) != SQLITE_OK)
		return db_err(s, err, "prepare sample insert");
	return 0;
}

int store_open(const char *path, struct store **ret, char *err)
{
	struct store *s = calloc(1, sizeof(*s));

	if (!s)
		return errorf(err, "out of memory");
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		errorf(err, "%s: cannot open database: %s", path, sqlite3_errmsg(s->db));
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	if (exec_sql(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
		     " PRAGMA foreign_keys=ON;", err) < 0 ||
	    create_schema(s, err) < 0 || prepare_sample_insert(s, err) < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	store_close(s);
	return -1;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->ins_sample);
	sqlite3_close(s->db);
	free(s);
}

/* Bind "?" parameters from a format: i = int64, t = text (NULL ok), d = double. */
static int bind_args(sqlite3_stmt *st, const char *fmt, va_list ap)
{
	const char *t;
	int i, rc = SQLITE_OK;

	for (i = 1; *fmt && rc == SQLITE_OK; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		case 't':
			t = va_arg(ap, const char *);
			rc = t ? sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i);
			break;
		}
	}
	return rc;
}

/* Run one statement that returns no rows. */
static int run_stmt(struct store *s, char *err, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "prepare");
	va_start(ap, fmt);
	rc = bind_args(st, fmt, ap);
	va_end(ap);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s, err, "write");
	return 0;
}

static char *workload_json(const struct proto_workload *w)
{
	struct proto_msg m = { .type = PROTO_JOB };
	char line[PROTO_LINE_MAX];
	json_t *root, *wl;
	char *out = NULL;

	m.u.job.wl = *w;
	if (proto_format(&m, line, sizeof(line)) < 0)
		return NULL;
	root = json_loads(line, 0, NULL);
	wl = json_object_get(root, "workload");
	if (wl)
		out = json_dumps(wl, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(root);
	return out;
}

static int add_arms_cells(struct store *s, const struct matrix *m, int64_t mid,
			  int64_t *arm_ids, int64_t *cell_ids, char *err)
{
	unsigned i;

	for (i = 0; i < m->n_arms; i++) {
		const struct arm *a = &m->arms[i];
		if (run_stmt(s, err, "INSERT INTO arms (matrix_id, idx, name, kernel, kernel_path,"
			     " modules_path, release, lru_gen, cmdline) VALUES (?,?,?,?,?,?,?,?,?)",
			     "iittttttt", mid, (int64_t)i, a->name, a->kernel, a->files.kernel,
			     a->files.modules, a->files.release, a->lru_gen, a->cmdline) < 0)
			return -1;
		arm_ids[i] = sqlite3_last_insert_rowid(s->db);
	}
	for (i = 0; i < m->n_cells; i++) {
		_cleanup_free_ char *params = workload_json(&m->cells[i].wl);
		if (!params)
			return errorf(err, "cannot encode workloads[%u]", i);
		if (run_stmt(s, err, "INSERT INTO cells (matrix_id, idx, name, params)"
			     " VALUES (?,?,?,?)", "iitt", mid, (int64_t)i, m->cells[i].name,
			     params) < 0)
			return -1;
		cell_ids[i] = sqlite3_last_insert_rowid(s->db);
	}
	return 0;
}

static int add_matrix_rows(struct store *s, const struct matrix *m, const struct abba_slot *slots,
			   size_t n, int64_t *ret_id, char *err)
{
	int64_t arm_ids[SPEC_MAX_ARMS], cell_ids[SPEC_MAX_CELLS], mid;
	size_t i;

	if (run_stmt(s, err, "INSERT INTO matrices (name, spec_path, spec, spec_hash, memory_mib,"
		     " vcpus) VALUES (?,?,?,?,?,?)", "ttttii", m->name, m->path, m->canonical,
		     m->hash, (int64_t)m->memory_mib, (int64_t)m->vcpus) < 0)
		return -1;
	mid = sqlite3_last_insert_rowid(s->db);
	if (add_arms_cells(s, m, mid, arm_ids, cell_ids, err) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (run_stmt(s, err, "INSERT INTO runs (matrix_id, arm_id, cell_id, seq, block,"
			     " position) VALUES (?,?,?,?,?,?)", "iiiiii", mid,
			     arm_ids[slots[i].arm], cell_ids[slots[i].cell], (int64_t)i,
			     (int64_t)slots[i].block, (int64_t)slots[i].position) < 0)
			return -1;
	*ret_id = mid;
	return 0;
}

int store_add_matrix(struct store *s, const struct matrix *m, const struct abba_slot *slots,
		     size_t n, int64_t *ret_id, char *err)
{
	if (exec_sql(s, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	if (add_matrix_rows(s, m, slots, n, ret_id, err) < 0) {
		exec_sql(s, "ROLLBACK", NULL);
		return -1;
	}
	return exec_sql(s, "COMMIT", err);
}

static int each_row(struct store *s, const char *sql, int64_t matrix_id,
		    void (*fn)(sqlite3_stmt *st, void *arg), void *arg, char *err);

struct ref_acc {
	struct run_ref *v;
	size_t n;
	int oom;
};

static void ref_row(sqlite3_stmt *st, void *arg)
{
	struct ref_acc *acc = arg;
	struct run_ref *nv = realloc(acc->v, (acc->n + 1) * sizeof(*nv));

	if (!nv) {
		acc->oom = 1;
		return;
	}
	acc->v = nv;
	nv[acc->n].id = sqlite3_column_int64(st, 0);
	nv[acc->n].arm = (unsigned)sqlite3_column_int(st, 1);
	nv[acc->n].cell = (unsigned)sqlite3_column_int(st, 2);
	nv[acc->n].block = (unsigned)sqlite3_column_int(st, 3);
	nv[acc->n].position = (unsigned)sqlite3_column_int(st, 4);
	nv[acc->n].seq = (unsigned)sqlite3_column_int(st, 5);
	acc->n++;
}

int store_queued_runs(struct store *s, int64_t matrix_id, struct run_ref **ret, size_t *ret_n,
		      char *err)
{
	struct ref_acc acc = { 0 };

	if (each_row(s, "SELECT r.id, a.idx, c.idx, r.block, r.position, r.seq FROM runs r"
		     " JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
		     " WHERE r.matrix_id = ? AND r.status = 'queued' ORDER BY r.seq",
		     matrix_id, ref_row, &acc, err) < 0 || acc.oom) {
		free(acc.v);
		return acc.oom ? errorf(err, "out of memory") : -1;
	}
	*ret = acc.v;
	*ret_n = acc.n;
	return 0;
}

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

int store_run_booting(struct store *s, int64_t run, const char *accel, const char *host,
		      const char *arch, const char *console, char *err)
{
	return run_stmt(s, err, "UPDATE runs SET status = 'booting', started_at = " NOW ","
			" accel = ?, host = ?, arch = ?, console_path = ? WHERE id = ?",
			"tttti", accel, host, arch, console, run);
}

int store_run_hello(struct store *s, int64_t run, const struct proto_hello *h,
		    int64_t agent_ready_ms, char *err)
{
	return run_stmt(s, err, "UPDATE runs SET status = 'running', guest_release = ?,"
			" lru_gen_caps = ?, page_size = ?, mem_total_kib = ?, agent_ready_ms = ?"
			" WHERE id = ?", "ttiiii", h->release, h->lru_gen_caps,
			(int64_t)h->page_size, (int64_t)h->mem_total_kib, agent_ready_ms, run);
}

int store_run_setup(struct store *s, int64_t run, const struct proto_setup *st, char *err)
{
	return run_stmt(s, err, "UPDATE runs SET lru_gen_read = ?, residency = ?, file_pages = ?"
			" WHERE id = ?", "ttii", st->lru_gen, st->residency,
			(int64_t)st->file_pages, run);
}

int store_sample(struct store *s, int64_t run, const struct proto_sample *smp, char *err)
{
	sqlite3_stmt *st = s->ins_sample;
	int i = 1, rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, i++, run);
#define X(m, key, max) sqlite3_bind_int64(st, i++, (int64_t)smp->m);
	PROTO_SAMPLE_FIELDS(X)
#undef X
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_err(s, err, "insert sample");
	return 0;
}

int store_run_finish(struct store *s, int64_t run, const char *status, const char *reason,
		     const struct proto_summary *sum, char *err)
{
	struct proto_summary none = { 0 };

	if (!sum)
		sum = &none;
	return run_stmt(s, err, "UPDATE runs SET status = ?, reason = ?, finished_at = " NOW ","
			" ops_total = ?, duration_ms = ?, samples = ? WHERE id = ?", "ttiiii",
			status, reason, (int64_t)sum->ops, (int64_t)sum->duration_ms,
			(int64_t)sum->samples, run);
}

int store_find_matrix(struct store *s, const char *key, int64_t *ret_id, char *err)
{
	static const char sql[] =
		"SELECT id FROM matrices WHERE CAST(id AS TEXT) = ?1 OR name = ?1"
		" ORDER BY (CAST(id AS TEXT) = ?1) DESC, id DESC LIMIT 1";
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "prepare");
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return errorf(err, "no matrix with id or name '%s' in the database", key);
	return db_err(s, err, "find matrix");
}

static void col_text(sqlite3_stmt *st, int col, char *dst, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

/* Step a prepared query over a matrix, calling fn for each row. */
static int each_row(struct store *s, const char *sql, int64_t matrix_id,
		    void (*fn)(sqlite3_stmt *st, void *arg), void *arg, char *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "prepare");
	sqlite3_bind_int64(st, 1, matrix_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn(st, arg);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s, err, "read");
	return 0;
}

static void info_matrix(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;

	col_text(st, 0, mi->name, sizeof(mi->name));
}

static void info_arm(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int i = sqlite3_column_int(st, 0);

	if (i < 0 || i >= SPEC_MAX_ARMS)
		return;
	col_text(st, 1, mi->arm_names[i], sizeof(mi->arm_names[i]));
	col_text(st, 2, mi->arm_release[i], sizeof(mi->arm_release[i]));
	col_text(st, 3, mi->arm_lru[i], sizeof(mi->arm_lru[i]));
	if ((unsigned)i >= mi->n_arms)
		mi->n_arms = (unsigned)i + 1;
}

static void info_cell(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int i = sqlite3_column_int(st, 0);

	if (i < 0 || i >= SPEC_MAX_CELLS)
		return;
	col_text(st, 1, mi->cell_names[i], sizeof(mi->cell_names[i]));
	col_text(st, 2, mi->cell_params[i], sizeof(mi->cell_params[i]));
	if ((unsigned)i >= mi->n_cells)
		mi->n_cells = (unsigned)i + 1;
}

static void info_runs(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;

	mi->runs_total = (unsigned)sqlite3_column_int(st, 0);
	mi->runs_done = (unsigned)sqlite3_column_int(st, 1);
	mi->runs_failed = (unsigned)sqlite3_column_int(st, 2);
	col_text(st, 3, mi->accel, sizeof(mi->accel));
	col_text(st, 4, mi->arch, sizeof(mi->arch));
}

int store_matrix_info(struct store *s, int64_t matrix_id, struct matrix_info *mi, char *err)
{
	memset(mi, 0, sizeof(*mi));
	if (each_row(s, "SELECT name FROM matrices WHERE id = ?", matrix_id, info_matrix, mi,
		     err) < 0 ||
	    each_row(s, "SELECT a.idx, a.name, a.release,"
		     " (SELECT group_concat(DISTINCT r.lru_gen_read) FROM runs r"
		     "  WHERE r.arm_id = a.id AND r.status = 'done')"
		     " FROM arms a WHERE a.matrix_id = ? ORDER BY a.idx", matrix_id, info_arm, mi,
		     err) < 0 ||
	    each_row(s, "SELECT idx, name, params FROM cells WHERE matrix_id = ? ORDER BY idx",
		     matrix_id, info_cell, mi, err) < 0 ||
	    each_row(s, "SELECT COUNT(*), SUM(status = 'done'), SUM(status = 'failed'),"
		     " group_concat(DISTINCT accel), group_concat(DISTINCT arch)"
		     " FROM runs WHERE matrix_id = ?", matrix_id, info_runs, mi, err) < 0)
		return -1;
	return 0;
}

struct summary_acc {
	struct run_summary *v;
	size_t n, cap;
	int oom;
};

static void summary_row(sqlite3_stmt *st, void *arg)
{
	struct summary_acc *acc = arg;
	struct run_summary *r, *nv;

	if (acc->n == acc->cap) {
		acc->cap = acc->cap ? acc->cap * 2 : 64;
		nv = realloc(acc->v, acc->cap * sizeof(*nv));
		if (!nv) {
			acc->oom = 1;
			return;
		}
		acc->v = nv;
	}
	r = &acc->v[acc->n++];
	r->run = sqlite3_column_int64(st, 0);
	r->arm = (unsigned)sqlite3_column_int(st, 1);
	r->cell = (unsigned)sqlite3_column_int(st, 2);
	r->block = (unsigned)sqlite3_column_int(st, 3);
	r->position = (unsigned)sqlite3_column_int(st, 4);
	r->ops_per_s = sqlite3_column_double(st, 5);
	r->refault_per_s = sqlite3_column_double(st, 6);
	r->majflt_per_s = sqlite3_column_double(st, 7);
	r->resident_end = sqlite3_column_double(st, 8);
	r->file_pages = sqlite3_column_double(st, 9);
}

int store_summaries(struct store *s, int64_t matrix_id, struct run_summary **ret,
		    size_t *ret_n, char *err)
{
	struct summary_acc acc = { 0 };

	if (each_row(s, "SELECT run_id, arm, cell, block, position, ops_per_s, refault_per_s,"
		     " majflt_per_s, resident_end, file_pages FROM run_summary"
		     " WHERE matrix_id = ? ORDER BY run_id", matrix_id, summary_row, &acc, err) < 0 ||
	    acc.oom) {
		free(acc.v);
		return acc.oom ? errorf(err, "out of memory") : -1;
	}
	*ret = acc.v;
	*ret_n = acc.n;
	return 0;
}
