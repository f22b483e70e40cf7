/* store_report.c -- read-only queries for plots and the HTML report, kept
 * apart from store.c: matrix and arm details, failed runs, cell limits. */
#include "store/store_report.h"
#include "base/err.h"

#include <string.h>

#include <sqlite3.h>

static void text_col(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

/* Run a query whose ?1 is the matrix id, calling fn per row until it returns < 0. */
static int query(struct store *s, const char *sql, int64_t mid,
		 int (*fn)(sqlite3_stmt *st, void *arg), void *arg, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return errorf(err, "database: prepare: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, mid);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn(st, arg) < 0) {
			sqlite3_finalize(st);
			return errorf(err, "out of memory");
		}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return errorf(err, "database: read: %s", sqlite3_errmsg(db));
	return 0;
}

static int matrix_row(sqlite3_stmt *st, void *arg)
{
	struct report_matrix *m = arg;

	text_col(st, 0, m->name, sizeof(m->name));
	text_col(st, 1, m->created_at, sizeof(m->created_at));
	text_col(st, 2, m->state, sizeof(m->state));
	text_col(st, 3, m->spec_path, sizeof(m->spec_path));
	m->reps = (uint64_t)sqlite3_column_int64(st, 4);
	m->memory_mib = (uint64_t)sqlite3_column_int64(st, 5);
	m->vcpus = (uint64_t)sqlite3_column_int64(st, 6);
	text_col(st, 7, m->hosts, sizeof(m->hosts));
	text_col(st, 8, m->accels, sizeof(m->accels));
	text_col(st, 9, m->archs, sizeof(m->archs));
	text_col(st, 10, m->statuses, sizeof(m->statuses));
	return 0;
}

int store_report_matrix(struct store *s, int64_t mid, struct report_matrix *ret, char *err)
{
	memset(ret, 0, sizeof(*ret));
	if (query(s, "SELECT m.name, m.created_at, m.state, m.spec_path, m.reps, m.memory_mib,"
		  " m.vcpus,"
		  " (SELECT group_concat(DISTINCT host) FROM runs WHERE matrix_id = m.id),"
		  " (SELECT group_concat(DISTINCT accel) FROM runs WHERE matrix_id = m.id),"
		  " (SELECT group_concat(DISTINCT arch) FROM runs WHERE matrix_id = m.id),"
		  " (SELECT group_concat(n || ' ' || status, ', ') FROM (SELECT status, COUNT(*) n"
		  "   FROM runs WHERE matrix_id = m.id GROUP BY status ORDER BY n DESC))"
		  " FROM matrices m WHERE m.id = ?1", mid, matrix_row, ret, err) < 0)
		return -1;
	return ret->name[0] ? 0 : errorf(err, "no matrix %lld in the database", (long long)mid);
}

struct arm_acc {
	struct report_arm *v;
	unsigned n;
};

static int arm_row(sqlite3_stmt *st, void *arg)
{
	struct arm_acc *a = arg;
	struct report_arm *r;

	if (a->n == SPEC_MAX_ARMS || sqlite3_column_int(st, 0) != (int)a->n)
		return 0;
	r = &a->v[a->n++];
	text_col(st, 1, r->name, sizeof(r->name));
	text_col(st, 2, r->kernel, sizeof(r->kernel));
	text_col(st, 3, r->release, sizeof(r->release));
	text_col(st, 4, r->lru_gen, sizeof(r->lru_gen));
	text_col(st, 5, r->cmdline, sizeof(r->cmdline));
	text_col(st, 6, r->guest_releases, sizeof(r->guest_releases));
	text_col(st, 7, r->lru_read, sizeof(r->lru_read));
	return 0;
}

int store_report_arms(struct store *s, int64_t mid, struct report_arm *ret, unsigned *ret_n,
		      char *err)
{
	struct arm_acc a = { ret, 0 };

	if (query(s, "SELECT a.idx, a.name, a.kernel, a.release, a.lru_gen, a.cmdline,"
		  " (SELECT group_concat(DISTINCT r.guest_release) FROM runs r WHERE r.arm_id = a.id),"
		  " (SELECT group_concat(DISTINCT r.lru_gen_read) FROM runs r WHERE r.arm_id = a.id)"
		  " FROM arms a WHERE a.matrix_id = ?1 ORDER BY a.idx", mid, arm_row, &a, err) < 0)
		return -1;
	*ret_n = a.n;
	return 0;
}

struct run_acc {
	struct report_run *v;
	size_t n, cap;
};

static int bad_row(sqlite3_stmt *st, void *arg)
{
	struct run_acc *a = arg;
	struct report_run *r, *nv;

	if (a->n == a->cap) {
		nv = realloc(a->v, (a->cap ? 2 * a->cap : 16) * sizeof(*nv));
		if (!nv)
			return -1;
		a->v = nv;
		a->cap = a->cap ? 2 * a->cap : 16;
	}
	r = memset(&a->v[a->n++], 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->attempt = sqlite3_column_int64(st, 1);
	r->warnings = sqlite3_column_int64(st, 2);
	text_col(st, 3, r->arm, sizeof(r->arm));
	text_col(st, 4, r->cell, sizeof(r->cell));
	text_col(st, 5, r->status, sizeof(r->status));
	text_col(st, 6, r->reason, sizeof(r->reason));
	text_col(st, 7, r->crash, sizeof(r->crash));
	text_col(st, 8, r->guest_release, sizeof(r->guest_release));
	text_col(st, 9, r->console, sizeof(r->console));
	return 0;
}

int store_report_bad_runs(struct store *s, int64_t mid, struct report_run **ret, size_t *ret_n,
			  char *err)
{
	struct run_acc a = { 0 };

	if (query(s, "SELECT r.id, r.attempt, COALESCE(r.warnings, 0), a.name, c.name, r.status,"
		  " r.reason, r.crash, r.guest_release, r.console_path FROM runs r"
		  " JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
		  " WHERE r.matrix_id = ?1 AND r.status IN ('failed', 'crashed', 'timeout')"
		  " ORDER BY r.seq, r.attempt", mid, bad_row, &a, err) < 0) {
		free(a.v);
		return -1;
	}
	*ret = a.v;
	*ret_n = a.n;
	return 0;
}

static int memcg_row(sqlite3_stmt *st, void *arg)
{
	uint64_t *mib = arg;
	int c = sqlite3_column_int(st, 0);

	if (c >= 0 && c < SPEC_MAX_CELLS)
		mib[c] = (uint64_t)sqlite3_column_int64(st, 1);
	return 0;
}

int store_report_memcg(struct store *s, int64_t mid, uint64_t memcg_mib[SPEC_MAX_CELLS],
		       char *err)
{
	memset(memcg_mib, 0, SPEC_MAX_CELLS * sizeof(*memcg_mib));
	return query(s, "SELECT idx, COALESCE(json_extract(job, '$.memcg_mib'), 0) FROM cells"
		     " WHERE matrix_id = ?1", mid, memcg_row, memcg_mib, err);
}
