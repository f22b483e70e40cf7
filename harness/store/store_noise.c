/* store_noise.c -- A/A calibrations, one row per cell, metric and calibration,
 * found again by the cell's job, guest size, architecture and host; host loads. */
#include "store/store_noise.h"
#include "base/err.h"
#include "store/store_db.h"

#include <math.h>
#include <string.h>

/* A stored cell's architecture: its name's "@arch" suffix (spec.h), x86_64 without. */
#define CELL_ARCH "CASE WHEN instr(c.name, '@') > 0 THEN substr(c.name, instr(c.name, '@') + 1)" \
		  " ELSE 'x86_64' END"
/* The host most of matrix ?1's done runs ran on. */
#define MATRIX_HOST "(SELECT host FROM runs WHERE matrix_id = ?1 AND status = 'done'" \
		    " AND host IS NOT NULL GROUP BY host ORDER BY COUNT(*) DESC LIMIT 1)"
#define CAL_COLUMNS "k.metric, k.host, k.created_at, k.matrix_id, k.blocks, k.mean, k.sd, k.cv"

int store_calibration_add(struct store *s, int64_t mid, unsigned cell, const char *metric,
			  unsigned blocks, double mean, double sd, double cv, char *err)
{
	return db_run(s, err, "INSERT INTO calibrations (host, job, memory_mib, vcpus, arch, metric,"
		      " matrix_id, cell, blocks, mean, sd, cv, scale)"
		      " SELECT " MATRIX_HOST ", c.job, m.memory_mib, m.vcpus, " CELL_ARCH ", ?3,"
		      " m.id, c.name, ?4, ?5, ?6, ?7, 'log' FROM cells c JOIN matrices m ON m.id = c.matrix_id"
		      " WHERE c.matrix_id = ?1 AND c.idx = ?2 AND " MATRIX_HOST " IS NOT NULL",
		      "iitiddd", mid, (int64_t)cell, metric, (int64_t)blocks, mean, sd, cv);
}

struct cal_rows {
	struct rows r;
	unsigned cell;              /* store_calibrations_for: the cell being read */
	int cell_col;               /* column of the cell index, -1: use cell */
};

/* Columns from first on: CAL_COLUMNS; rows by cell and metric, the newest of each first. */
static int cal_row(sqlite3_stmt *st, void *arg)
{
	struct cal_rows *a = arg;
	unsigned cell = a->cell_col < 0 ? a->cell : (unsigned)sqlite3_column_int(st, a->cell_col);
	int first = a->cell_col + 1;
	struct calibration *k, *v = a->r.v;
	char metric[sizeof(k->metric)];
	size_t i;

	if (db_text(st, first, metric, sizeof(metric)) < 0)
		return DB_TOO_LONG;
	for (i = 0; i < a->r.n; i++)
		if (v[i].cell == cell && !strcmp(v[i].metric, metric))
			return 0;
	if (!(k = rows_push(&a->r)))
		return -1;
	k->cell = cell;
	memcpy(k->metric, metric, sizeof(metric));
	db_text_cut(st, first + 1, k->host, sizeof(k->host));
	db_text_cut(st, first + 2, k->at, sizeof(k->at));
	k->matrix_id = sqlite3_column_int64(st, first + 3);
	k->blocks = (unsigned)sqlite3_column_int(st, first + 4);
	k->mean = db_real_or_nan(st, first + 5);
	k->sd = db_real_or_nan(st, first + 6);
	k->cv = db_real_or_nan(st, first + 7);
	return 0;
}

int store_calibrations(struct store *s, int64_t mid, const char *host, struct calibration **ret,
		       size_t *ret_n, char *err)
{
	struct cal_rows a = { ROWS(struct calibration), 0, 0 };
	int rc;

	rc = db_rows(s, "SELECT c.idx, " CAL_COLUMNS " FROM cells c"
		     " JOIN matrices m ON m.id = c.matrix_id"
		     " JOIN calibrations k ON k.job = c.job AND k.memory_mib = m.memory_mib"
		     "  AND k.vcpus = m.vcpus AND k.arch = " CELL_ARCH
		     " WHERE c.matrix_id = ?1 AND k.host = COALESCE(?2, " MATRIX_HOST ")"
		     " AND k.scale = 'log'"
		     " ORDER BY c.idx, k.metric, k.id DESC", cal_row, &a, err, "it", mid, host);
	return rows_take(&a.r, rc, ret, ret_n);
}

int store_calibrations_for(struct store *s, const struct matrix *m, const char *host,
			   struct calibration **ret, size_t *ret_n, char *err)
{
	struct cal_rows a = { ROWS(struct calibration), 0, -1 };
	char *job;
	int rc = 0;

	for (a.cell = 0; a.cell < m->n_cells && rc == 0; a.cell++) {
		if (!(job = store_job_text(&m->cells[a.cell].job))) {
			rc = errorf(err, "out of memory");
			break;
		}
		rc = db_rows(s, "SELECT " CAL_COLUMNS " FROM calibrations k WHERE k.job = ?"
			     " AND k.memory_mib = ? AND k.vcpus = ? AND k.arch = ? AND k.host = ?"
			     " AND k.scale = 'log'"
			     " ORDER BY k.metric, k.id DESC", cal_row, &a, err, "tiitt", job,
			     (int64_t)m->memory_mib, (int64_t)m->vcpus, m->cells[a.cell].arch, host);
		free(job);
	}
	return rows_take(&a.r, rc, ret, ret_n);
}

int store_run_host_load(struct store *s, int64_t run, double load, char *err)
{
	return db_run(s, err, "UPDATE runs SET host_load = ? WHERE id = ?", "di", load, run);
}

/* A cell's host load (NAN: none recorded), at the cell's index. */
static int load_row(sqlite3_stmt *st, void *arg)
{
	double *load = arg;
	int cell = sqlite3_column_int(st, 0);

	if (cell >= 0 && cell < SPEC_MAX_CELLS)
		load[cell] = db_real_or_nan(st, 1);
	return 0;
}

int store_cell_host_loads(struct store *s, int64_t mid, double load[SPEC_MAX_CELLS], char *err)
{
	for (unsigned i = 0; i < SPEC_MAX_CELLS; i++)
		load[i] = NAN;
	return db_rows(s, "SELECT c.idx, MAX(r.host_load) FROM runs r JOIN cells c ON c.id = r.cell_id"
		       " WHERE r.matrix_id = ? AND r.status = 'done' GROUP BY c.idx", load_row, load,
		       err, "i", mid);
}
