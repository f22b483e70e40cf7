/* store_report.c -- read-only queries for plots and the HTML report, kept
 * apart from store.c: matrix and arm details, failed runs, cell limits. */
#include "store/store_report.h"
#include "base/err.h"
#include "store/store_db.h"

#include <string.h>

/* The text columns of each query below and the fields they fill. */
static const struct db_text_col matrix_text[] = {
	DB_TEXT(0, struct report_matrix, name), DB_TEXT(1, struct report_matrix, created_at),
	DB_TEXT(2, struct report_matrix, state), DB_TEXT(3, struct report_matrix, spec_path),
	DB_TEXT(7, struct report_matrix, hosts), DB_TEXT(8, struct report_matrix, accels),
	DB_TEXT(9, struct report_matrix, archs), DB_TEXT(10, struct report_matrix, statuses),
};

static const struct db_text_col arm_text[] = {
	DB_TEXT(1, struct report_arm, name), DB_TEXT(2, struct report_arm, kernel),
	DB_TEXT(3, struct report_arm, release), DB_TEXT(4, struct report_arm, lru_gen),
	DB_TEXT(5, struct report_arm, cmdline), DB_TEXT(6, struct report_arm, guest_releases),
	DB_TEXT(7, struct report_arm, lru_read), DB_TEXT(8, struct report_arm, build_key),
	DB_TEXT(9, struct report_arm, tree), DB_TEXT(10, struct report_arm, source),
	DB_TEXT(11, struct report_arm, base), DB_TEXT(12, struct report_arm, config),
	DB_TEXT(13, struct report_arm, config_sha256), DB_TEXT(14, struct report_arm, image_sha256),
	DB_TEXT(15, struct report_arm, patches), DB_TEXT(16, struct report_arm, failed),
};

static const struct db_text_col bad_run_text[] = {
	DB_TEXT(3, struct report_run, arm), DB_TEXT(4, struct report_run, cell),
	DB_TEXT(5, struct report_run, status), DB_TEXT(6, struct report_run, reason),
	DB_TEXT(7, struct report_run, crash), DB_TEXT(8, struct report_run, guest_release),
	DB_TEXT(9, struct report_run, console),
};

/* The report's matrix: its texts by matrix_text's table, then its sizes. */
static int matrix_row(sqlite3_stmt *st, void *arg)
{
	struct report_matrix *m = arg;

	db_texts(st, m, matrix_text, ARRAY_SIZE(matrix_text));
	m->reps = (uint64_t)sqlite3_column_int64(st, 4);
	m->memory_mib = (uint64_t)sqlite3_column_int64(st, 5);
	m->vcpus = (uint64_t)sqlite3_column_int64(st, 6);
	return 0;
}

int store_report_matrix(struct store *s, int64_t mid, struct report_matrix *ret, char *err)
{
	memset(ret, 0, sizeof(*ret));
	if (db_rows(s, "SELECT m.name, m.created_at, m.state, m.spec_path, m.reps, m.memory_mib,"
		    " m.vcpus,"
		    " (SELECT group_concat(DISTINCT host) FROM runs WHERE matrix_id = m.id),"
		    " (SELECT group_concat(DISTINCT accel) FROM runs WHERE matrix_id = m.id),"
		    " (SELECT group_concat(DISTINCT arch) FROM runs WHERE matrix_id = m.id),"
		    " (SELECT group_concat(n || ' ' || status, ', ') FROM (SELECT status, COUNT(*) n"
		    "   FROM runs WHERE matrix_id = m.id GROUP BY status ORDER BY n DESC))"
		    " FROM matrices m WHERE m.id = ?1", matrix_row, ret, err, "i", mid) < 0)
		return -1;
	return ret->name[0] ? 0 : errorf(err, "no matrix %lld in the database", (long long)mid);
}

struct arm_acc {
	struct report_arm *v;
	unsigned n;
};

/*
 * An arm of the report, in index order (a gap ends the list), its texts by
 * arm_text's table and its build's time, patches and cache hit.
 */
static int arm_row(sqlite3_stmt *st, void *arg)
{
	struct arm_acc *a = arg;
	struct report_arm *r;

	if (a->n == SPEC_MAX_ARMS || sqlite3_column_int(st, 0) != (int)a->n)
		return 0;
	r = &a->v[a->n++];
	db_texts(st, r, arm_text, ARRAY_SIZE(arm_text));
	r->build_s = sqlite3_column_double(st, 17);
	r->n_patches = sqlite3_column_int64(st, 18);
	r->cached = sqlite3_column_int64(st, 19);
	return 0;
}

int store_report_arms(struct store *s, int64_t mid, struct report_arm *ret, unsigned *ret_n,
		      char *err)
{
	struct arm_acc a = { ret, 0 };

	if (db_rows(s, "SELECT a.idx, a.name, a.kernel, a.release, a.lru_gen, a.cmdline,"
		    " (SELECT group_concat(DISTINCT r.guest_release) FROM runs r WHERE r.arm_id = a.id),"
		    " (SELECT group_concat(DISTINCT r.lru_gen_read) FROM runs r WHERE r.arm_id = a.id),"
		    /* a source arm's build, as spec.h's build_json describes it */
		    " json_extract(a.build, '$[0].key'), json_extract(a.build, '$[0].tree'),"
		    " json_extract(a.build, '$[0].source'), json_extract(a.build, '$[0].base'),"
		    " json_extract(a.build, '$[0].config'), json_extract(a.build, '$[0].config_sha256'),"
		    " json_extract(a.build, '$[0].image_sha256'),"
		    " (SELECT group_concat(json_extract(p.value, '$.subject'), '; ')"
		    "  FROM json_each(a.build, '$[0].patches') p), a.failed,"
		    " json_extract(a.build, '$[0].build_s'),"
		    " json_array_length(a.build, '$[0].patches'), json_extract(a.build, '$[0].cached')"
		    " FROM arms a WHERE a.matrix_id = ?1 ORDER BY a.idx", arm_row, &a, err, "i",
		    mid) < 0)
		return -1;
	*ret_n = a.n;
	return 0;
}

/* A run that did not end well (failed, crashed, timed out), for the report. */
static int bad_row(sqlite3_stmt *st, void *arg)
{
	struct report_run *r = rows_push(arg);

	if (!r)
		return -1;
	r->id = sqlite3_column_int64(st, 0);
	r->attempt = sqlite3_column_int64(st, 1);
	r->warnings = sqlite3_column_int64(st, 2);
	db_texts(st, r, bad_run_text, ARRAY_SIZE(bad_run_text));
	return 0;
}

int store_report_bad_runs(struct store *s, int64_t mid, struct report_run **ret, size_t *ret_n,
			  char *err)
{
	struct rows a = ROWS(struct report_run);
	int rc;

	rc = db_rows(s, "SELECT r.id, r.attempt, COALESCE(r.warnings, 0), a.name, c.name, r.status,"
		     " r.reason, r.crash, r.guest_release, r.console_path FROM runs r"
		     " JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
		     " WHERE r.matrix_id = ?1 AND r.status IN ('failed', 'crashed', 'timeout', 'oom')"
		     " ORDER BY r.seq, r.attempt", bad_row, &a, err, "i", mid);
	return rows_take(&a, rc, ret, ret_n);
}

/* A cell's memcg MiB, at the cell's index. */
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
	return db_rows(s, "SELECT idx, COALESCE(json_extract(job, '$.memcg_mib'), 0) FROM cells"
		       " WHERE matrix_id = ?1", memcg_row, memcg_mib, err, "i", mid);
}
