/* store_queue.c -- the daemon's listings (store_queue.h): a table of named
 * statements, each row turned into a JSON object by its column names. */
#include "store/store_queue.h"
#include "base/err.h"
#include "store/store_db.h"

#include <string.h>

#define MATRIX_COLUMNS \
	"m.id, m.name, m.state, m.resolve, m.resolve_msg, m.created_at, m.reps, m.spec_hash," \
	" (SELECT AVG((julianday(r.finished_at) - julianday(r.started_at)) * 86400.0)" \
	"  FROM runs r WHERE r.matrix_id = m.id AND r.started_at IS NOT NULL" \
	"  AND r.finished_at IS NOT NULL AND r.status NOT IN ('cancelled', 'interrupted'))" \
	" AS mean_run_s"

/* Each listing's statement and its parameters' binding format (store_db.h). */
static const struct { const char *fmt, *sql; } listings[] = {
	[STORE_LIST_MATRICES] = { "", "SELECT " MATRIX_COLUMNS " FROM matrices m"
				  " ORDER BY m.id DESC" },
	[STORE_LIST_MATRIX] = { "i", "SELECT " MATRIX_COLUMNS " FROM matrices m WHERE m.id = ?1" },
	[STORE_LIST_RUN_COUNTS] = { "i", "SELECT status, COUNT(*) AS n FROM runs r WHERE matrix_id"
				    " = ?1 AND attempt = (SELECT MAX(attempt) FROM runs r2 WHERE"
				    " r2.matrix_id = r.matrix_id AND r2.seq = r.seq) GROUP BY status" },
	[STORE_LIST_HOST_COUNTS] = { "i", "SELECT host, status, COUNT(*) AS n FROM runs WHERE"
				     " matrix_id = ?1 AND host IS NOT NULL GROUP BY host, status"
				     " ORDER BY host" },
	[STORE_LIST_ARMS] = { "i", "SELECT name, release, lru_gen, cmdline FROM arms WHERE"
			      " matrix_id = ?1 ORDER BY idx" },
	[STORE_LIST_CELLS] = { "i", "SELECT name, preset, params FROM cells WHERE matrix_id = ?1"
			       " ORDER BY idx" },
	[STORE_LIST_RUNS] = { "i", "SELECT r.id, a.name AS arm, c.name AS cell, r.block,"
			      " r.position, r.attempt, r.status, r.reason, r.accel,"
			      " r.guest_release, r.agent_ready_ms, r.started_at, r.finished_at,"
			      " r.samples, r.warnings, r.contended, r.contended_why,"
			      " r.quiet_wait_ms, r.started_busy"
			      " FROM runs r JOIN arms a ON a.id = r.arm_id"
			      " JOIN cells c ON c.id = r.cell_id WHERE r.matrix_id = ?1"
			      " ORDER BY r.seq, r.attempt" },
	[STORE_LIST_RUN_STATUS] = { "i", "SELECT status, page_size FROM runs WHERE id = ?1" },
	/* while the run goes on, an interval once every stream has told it (fio's come late) */
	[STORE_LIST_SAMPLES] = { "iii", "SELECT * FROM samples WHERE run_id = ?1 AND seq > ?2"
				 " AND ((SELECT status FROM runs WHERE id = ?1) NOT IN"
				 " ('queued', 'booting', 'running') OR seq <= (SELECT CASE WHEN"
				 " COUNT(*) < (SELECT COUNT(*) FROM cell_streams t JOIN runs r ON"
				 " r.cell_id = t.cell_id WHERE r.id = ?1) THEN -1 ELSE MIN(m) END"
				 " FROM (SELECT MAX(seq) AS m FROM stream_samples WHERE run_id = ?1"
				 " GROUP BY stream)))"
				 " ORDER BY seq LIMIT ?3" },
	[STORE_LIST_SAMPLE_PARTS] = { "i", "SELECT seq, 'f' AS k, file AS i, resident_pages AS v,"
				      " NULL AS o, NULL AS r FROM file_samples WHERE run_id = ?1"
				      " UNION ALL SELECT seq, 's', stream, read_ops + write_ops,"
				      " misses, read_ops FROM stream_samples WHERE run_id = ?1"
				      " ORDER BY 1, 2, 3" },
	[STORE_LIST_FILE_NAMES] = { "i", "SELECT f.name FROM cell_files f JOIN runs r ON"
				    " r.cell_id = f.cell_id WHERE r.id = ?1 ORDER BY f.idx" },
	[STORE_LIST_STREAM_NAMES] = { "i", "SELECT t.name FROM cell_streams t JOIN runs r ON"
				      " r.cell_id = t.cell_id WHERE r.id = ?1 ORDER BY t.idx" },
};

/* Column i as JSON of its SQLite type (NULL as null; NULL out of memory). */
static json_t *col_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_string((const char *)sqlite3_column_text(st, i));
	default:
		return json_null();
	}
}

/* A row as an object keyed by its column names, appended to the array arg. */
static int row_object(sqlite3_stmt *st, void *arg)
{
	json_t *o = json_object();
	int i;

	if (!o)
		return -1;
	for (i = 0; i < sqlite3_column_count(st); i++)
		json_object_set_new(o, sqlite3_column_name(st, i), col_json(st, i));
	return json_array_append_new(arg, o);
}

int store_list(struct store *s, enum store_listing which, const int64_t *params, json_t **ret,
	       char *err)
{
	int64_t p[3] = { 0 };
	json_t *rows;
	size_t n;

	if ((size_t)which >= ARRAY_SIZE(listings) || !listings[which].sql)
		return errorf(err, "no listing %d", (int)which);
	n = strlen(listings[which].fmt);
	if (params)
		memcpy(p, params, (n < 3 ? n : 3) * sizeof(*p));
	rows = json_array();
	if (!rows)
		return errorf(err, "out of memory");
	if (db_rows(s, listings[which].sql, row_object, rows, err, listings[which].fmt, p[0], p[1],
		    p[2]) < 0) {
		json_decref(rows);
		return -1;
	}
	*ret = rows;
	return 0;
}

int store_queue_counts(struct store *s, int64_t *ret_matrices, int64_t *ret_queued,
		       int64_t *ret_running, char *err)
{
	if (db_rows(s, "SELECT COUNT(*) FROM matrices", db_int, ret_matrices, err, "") < 0 ||
	    db_rows(s, "SELECT COUNT(*) FROM runs WHERE status = 'queued'", db_int, ret_queued,
		    err, "") < 0 ||
	    db_rows(s, "SELECT COUNT(*) FROM runs WHERE status IN ('booting', 'running')", db_int,
		    ret_running, err, "") < 0)
		return -1;
	return 0;
}
