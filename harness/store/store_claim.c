/* store_claim.c -- matrices queued (a matrix, its arms, cells and runs in ABBA
 * order) and the daemon's claims on their blocks: claim, requeue, resume, states. */
#include "store/store.h"
#include "base/err.h"
#include "store/store_db.h"
#include "common/fmt.h"

#include <string.h>

char *store_job_text(const struct proto_job *job)
{
	json_t *j = proto_job_to_json(job);
	char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(j);
	return text;
}

/* Cell idx of matrix mid, with its job as JSON, its files and its streams. */
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
	fmtcut(buf, size, "%s%s%s%s%s", a->source[0] ? a->source : a->source_package,
		 a->base[0] ? " @" : "", a->base, a->patches[0] ? " + " : "", a->patches);
	return buf;
}

/* Every arm and every cell of m, under matrix mid. */
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

/*
 * The matrix row of m (resolving or resolved), its arms, cells and the runs
 * of slots[0..n) in ABBA order; *ret_id is the new matrix.
 */
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

/* The newest live matrix with this spec hash: 0 found, 1 none, -1 error. */
static int find_live_spec(struct store *s, const char *hash, int64_t *ret_id, char *err)
{
	return db_id_by_key(s, "SELECT id FROM matrices WHERE spec_hash = ?1 AND state != 'cancelled'"
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

/* One run_ref from RUN_REF_SQL's row. */
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

/* ---- the daemon's queue ---- */

struct spec_arg {
	char *text;
	char *base_dir;
	int found;
};

/* The stored spec (strdup'd; NULL if none) and base directory of a matrix. */
static int spec_row(sqlite3_stmt *st, void *arg)
{
	struct spec_arg *a = arg;
	const unsigned char *t = sqlite3_column_text(st, 0);

	if (db_text(st, 1, a->base_dir, PATH_MAX) < 0)
		return DB_TOO_LONG;
	a->found = 1;
	if (!t)
		return 0;   /* said below: no stored spec */
	a->text = strdup((const char *)t);
	return a->text ? 0 : -1;
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

	*ret_matrix = 0;
	if (fmtbuf(a.archs[0], sizeof(a.archs[0]), "%.*s", (int)n, archs) < 0 ||
	    fmtbuf(a.archs[1], sizeof(a.archs[1]), "%s", archs[n] ? archs + n + 1 : "") < 0)
		return errorf(err, "claim: archs '%.64s': expected two of at most %zu characters",
			      archs, sizeof(a.archs[0]) - 1);
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

/*
 * End run a->run as a->status and queue its seq again as the next attempt
 * (a retry_of it, in its slot if a->keep_slot); the new run's id in a->new_id.
 */
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

/* One run id into a growing array. */
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

/* One id of a run in flight when the daemon stopped. */
static int resume_row(sqlite3_stmt *st, void *arg)
{
	struct resume_acc *a = arg;

	if (a->n < ARRAY_SIZE(a->ids))
		a->ids[a->n++] = sqlite3_column_int64(st, 0);
	return 0;
}

/*
 * Every run a stopped daemon left booting or running re-queued as a fresh
 * attempt, and every queued run's slot released: the restart's transaction.
 */
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

int store_matrix_state(struct store *s, int64_t mid, char state[16], char *err)
{
	state[0] = '\0';
	if (db_rows(s, "SELECT state FROM matrices WHERE id = ?", db_state_row, state, err, "i",
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

/*
 * A source arm's stored build (JSON) or failure back into its struct arm;
 * b->oom set when the copy cannot be made.
 */
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
	fmtcut(a->failed, sizeof(a->failed), "%s", failed ? failed : "");
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
