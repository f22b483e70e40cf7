/* store_read.c -- what the reports read of a matrix: its arms, cells and runs,
 * a cell's layout, a run's series and events (summaries: store_summary.c). */
#include "store/store.h"
#include "base/err.h"
#include "store/store_db.h"

#include <math.h>
#include <string.h>

int store_find_matrix(struct store *s, const char *key, int64_t *ret_id, char *err)
{
	int rc = db_id_by_key(s, "SELECT id FROM matrices WHERE CAST(id AS TEXT) = ?1 OR name = ?1"
			   " ORDER BY (CAST(id AS TEXT) = ?1) DESC, id DESC LIMIT 1", key, ret_id, err);

	if (rc == 1)
		return errorf(err, "no matrix with id or name '%s' in the database", key);
	return rc;
}

static int info_matrix(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;

	return db_text(st, 0, mi->name, sizeof(mi->name)) < 0 ? DB_TOO_LONG : 0;
}

/*
 * An arm's name, release, lru_gen its done runs read back (all of them,
 * comma-separated) and tag, at its index; n_arms grows to cover it.
 */
static int info_arm(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int i = sqlite3_column_int(st, 0);

	if (i < 0 || i >= SPEC_MAX_ARMS)
		return 0;
	if (db_text(st, 1, mi->arm_names[i], sizeof(mi->arm_names[i])) < 0 ||
	    db_text(st, 4, mi->arm_tags[i], sizeof(mi->arm_tags[i])) < 0)
		return DB_TOO_LONG;
	db_text_cut(st, 2, mi->arm_release[i], sizeof(mi->arm_release[i]));
	db_text_cut(st, 3, mi->arm_lru[i], sizeof(mi->arm_lru[i]));
	if ((unsigned)i >= mi->n_arms)
		mi->n_arms = (unsigned)i + 1;
	return 0;
}

/* A cell's name, params and preset at its index; n_cells grows to cover it. */
static int info_cell(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int i = sqlite3_column_int(st, 0);

	if (i < 0 || i >= SPEC_MAX_CELLS)
		return 0;
	if (db_text(st, 1, mi->cell_names[i], sizeof(mi->cell_names[i])) < 0)
		return DB_TOO_LONG;
	db_text_cut(st, 2, mi->cell_params[i], sizeof(mi->cell_params[i]));
	db_text_cut(st, 3, mi->cell_preset[i], sizeof(mi->cell_preset[i]));
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
	db_text_cut(st, 2, mi->cell_lru[c][a], sizeof(mi->cell_lru[c][a]));
	db_text_cut(st, 3, mi->cell_arch[c], sizeof(mi->cell_arch[c]));
	db_text_cut(st, 4, mi->cell_accel[c], sizeof(mi->cell_accel[c]));
	return 0;
}

/* Per cell and arm: its runs the OOM killer ended, and those that ended done or so. */
static int info_cell_oom(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;
	int c = sqlite3_column_int(st, 0), a = sqlite3_column_int(st, 1);

	if (c < 0 || c >= SPEC_MAX_CELLS || a < 0 || a >= SPEC_MAX_ARMS)
		return 0;
	mi->cell_oom[c][a] = (unsigned)sqlite3_column_int(st, 2);
	mi->cell_ended[c][a] = (unsigned)sqlite3_column_int(st, 3);
	return 0;
}

/* The matrix's run counts by status, and the accels and archs its runs had. */
static int info_runs(sqlite3_stmt *st, void *arg)
{
	struct matrix_info *mi = arg;

	mi->runs_total = (unsigned)sqlite3_column_int(st, 0);
	mi->runs_done = (unsigned)sqlite3_column_int(st, 1);
	mi->runs_failed = (unsigned)sqlite3_column_int(st, 2);
	mi->runs_unsupported = (unsigned)sqlite3_column_int(st, 5);
	mi->runs_contended = (unsigned)sqlite3_column_int(st, 6);
	mi->runs_started_busy = (unsigned)sqlite3_column_int(st, 7);
	mi->runs_oom = (unsigned)sqlite3_column_int(st, 8);
	db_text_cut(st, 3, mi->accel, sizeof(mi->accel));
	db_text_cut(st, 4, mi->arch, sizeof(mi->arch));
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
		    " SUM(status = 'done' AND started_busy = 1), SUM(status = 'oom')"
		    " FROM runs WHERE matrix_id = ?", info_runs, mi, err, "i", matrix_id) < 0 ||
	    db_rows(s, "SELECT c.idx, a.idx, SUM(r.status = 'oom'), SUM(r.status IN ('done', 'oom'))"
		    " FROM runs r JOIN cells c ON c.id = r.cell_id JOIN arms a ON a.id = r.arm_id"
		    " WHERE r.matrix_id = ? GROUP BY c.idx, a.idx", info_cell_oom, mi, err, "i",
		    matrix_id) < 0)
		return -1;
	return 0;
}

struct layout_arg {
	struct cell_layout *l;
	unsigned cell;
};

/*
 * A row of the cell layout's union (kind 0: a file and its MiB, 1: a stream,
 * 2: the preset's table layout) into la->l, if it is la->cell's.
 */
static int layout_row(sqlite3_stmt *st, void *arg)
{
	struct layout_arg *la = arg;
	struct cell_layout *l = la->l;
	int kind = sqlite3_column_int(st, 0), idx = sqlite3_column_int(st, 1);

	if ((unsigned)sqlite3_column_int(st, 3) != la->cell)
		return 0;
	if (kind == 0 && idx >= 0 && idx < PROTO_MAX_FILES) {
		if (db_text(st, 2, l->files[idx], sizeof(l->files[idx])) < 0)
			return DB_TOO_LONG;
		l->file_mib[idx] = (uint64_t)sqlite3_column_int64(st, 4);
		if ((unsigned)idx >= l->nfiles)
			l->nfiles = (unsigned)idx + 1;
	} else if (kind == 1 && idx >= 0 && idx < PROTO_MAX_STREAMS) {
		if (db_text(st, 2, l->streams[idx], sizeof(l->streams[idx])) < 0)
			return DB_TOO_LONG;
		if ((unsigned)idx >= l->nstreams)
			l->nstreams = (unsigned)idx + 1;
	} else if (kind == 2 && db_text(st, 2, l->report, sizeof(l->report)) < 0) {
		return DB_TOO_LONG;
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
	int64_t page_size;
};

/*
 * An interval's sample row; its swap and pressure counters NAN where NULL. A
 * stream's numbers are NAN (missing) until its row for the interval is read.
 */
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
	p->page_size = (uint32_t)sa->page_size;
	p->pswpin = db_real_or_nan(st, 6);
	p->pswpout = db_real_or_nan(st, 7);
	p->zswpin = db_real_or_nan(st, 8);
	p->zswpout = db_real_or_nan(st, 9);
	p->psi_some_us = db_real_or_nan(st, 10);
	p->psi_full_us = db_real_or_nan(st, 11);
	for (k = 0; k < sa->nstreams && k < PROTO_MAX_STREAMS; k++)
		p->ops[k] = p->reads[k] = p->misses[k] = NAN;
	return 0;
}

/*
 * Rows (seq, index, value...) land in the point of that seq, if there is one.
 * The points are in seq order but need not be dense (a run whose agent
 * skipped a seq), so the seq is searched, not used as an index.
 */
static struct series_point *point_of(struct series_arg *sa, sqlite3_stmt *st)
{
	struct series_point *v = sa->a.v;
	int64_t seq = sqlite3_column_int64(st, 0);
	size_t lo = 0, hi = sa->a.n, mid;

	if (seq < 0)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].seq == (uint64_t)seq)
			return &v[mid];
		if (v[mid].seq < (uint64_t)seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A stream's ops, reads and misses in the interval its row names. */
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

/* A file's resident pages in the interval its row names. */
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
	struct series_arg sa = { ROWS(struct series_point), 0, 4096 };
	unsigned nstreams = 0;
	double file_pages;
	int rc;

	rc = store_run_shape(s, run, &nstreams, &file_pages, err);
	sa.nstreams = (int)nstreams;
	if (rc == 0)
		rc = db_rows(s, "SELECT page_size FROM runs WHERE id = ? AND page_size > 0"
			     " AND page_size <= 1048576", db_int, &sa.page_size, err, "i", run);
	if (rc == 0)
		rc = db_rows(s, "SELECT seq, t_ms, ramp, pgmajfault, workingset_refault_file,"
			     " workingset_activate_file, pswpin, pswpout, zswpin, zswpout,"
			     " memcg_psi_some_us, memcg_psi_full_us FROM samples WHERE run_id = ?"
			     " ORDER BY seq",
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

/*
 * An event's row: the first of its files starts a new event_row, each file's
 * residency lands in the event it belongs to. An event of a cell without
 * files comes once, with file -1 (an inner join lost it).
 */
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
		if (db_text(st, 2, e->kind, sizeof(e->kind)) < 0)
			return DB_TOO_LONG;
		e->pass = (uint64_t)sqlite3_column_int64(st, 3);
		e->value = (uint64_t)sqlite3_column_int64(st, 4);
		e->page_size = (uint32_t)sqlite3_column_int64(st, 8);
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
				      " COALESCE(f.file, -1), ROW_NUMBER() OVER (PARTITION BY e.idx"
				      " ORDER BY f.file) - 1, f.resident_pages,"
				      " IIF(r.page_size BETWEEN 1 AND 1048576, r.page_size, 4096)"
				      " FROM events e JOIN runs r ON r.id = e.run_id LEFT JOIN"
				      " event_files f ON f.run_id = e.run_id AND f.idx = e.idx"
				      " WHERE e.run_id = ?"
				     " ORDER BY e.idx, f.file", event_row_fn, &a, err, "i", run),
			 ret, ret_n);
}
