/* store_compare.c -- read-only queries for `harness compare`, kept apart from
 * store.c: each arm's kernel, lru_gen and command line, and arms by tag. */
#include "store/store_compare.h"
#include "base/err.h"

#include <string.h>

#include <sqlite3.h>

static void copy_col(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

int store_arm_identities(struct store *s, int64_t matrix_id, struct arm_identity *ret,
			 unsigned *ret_n, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;
	unsigned n = 0;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT idx, name, kernel_path, modules_path, lru_gen, cmdline"
			       " FROM arms WHERE matrix_id = ? ORDER BY idx", -1, &st, NULL)
	    != SQLITE_OK)
		return errorf(err, "database: prepare: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, matrix_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == SPEC_MAX_ARMS || sqlite3_column_int(st, 0) != (int)n)
			continue;
		copy_col(st, 1, ret[n].name, sizeof(ret[n].name));
		copy_col(st, 2, ret[n].kernel, sizeof(ret[n].kernel));
		copy_col(st, 3, ret[n].modules, sizeof(ret[n].modules));
		copy_col(st, 4, ret[n].lru_gen, sizeof(ret[n].lru_gen));
		copy_col(st, 5, ret[n].cmdline, sizeof(ret[n].cmdline));
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return errorf(err, "database: read: %s", sqlite3_errmsg(db));
	*ret_n = n;
	return 0;
}

int store_tag_matrices(struct store *s, const char *tag, const char *also, int64_t *ret_newest,
		       unsigned *ret_n, char *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT COUNT(*), COALESCE(MAX(matrix_id), 0) FROM"
			       " (SELECT matrix_id FROM arms WHERE tag = ?1 INTERSECT"
			       "  SELECT matrix_id FROM arms WHERE tag = COALESCE(?2, ?1))",
			       -1, &st, NULL) != SQLITE_OK)
		return errorf(err, "database: prepare: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, tag, -1, SQLITE_TRANSIENT);
	if (also)
		sqlite3_bind_text(st, 2, also, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret_n = (unsigned)sqlite3_column_int(st, 0);
		*ret_newest = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return errorf(err, "database: read: %s", sqlite3_errmsg(db));
	return 0;
}
