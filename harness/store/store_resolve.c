/* store_resolve.c -- a submitted matrix's kernels made ready in the background:
 * its resolve state, its arms' builds stored, finished matrices marked. */
#include "store/store.h"
#include "base/err.h"
#include "store/store_db.h"

#include <string.h>

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

/*
 * What resolving found, per arm (kernel, modules, release, build or failure),
 * the runs of failed arms failed with their reason, and the matrix resolved:
 * one transaction.
 */
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
	if (db_rows(s, "SELECT resolve FROM matrices WHERE id = ?", db_state_row, resolve,
		    err, "i", mid) < 0)
		return -1;
	return resolve[0] ? 0 : errorf(err, "no matrix %lld", (long long)mid);
}

struct id_acc {
	int64_t ids[256];
	size_t n;
};

/* One matrix id, up to 256 (the rest wait for the next call). */
static int id_row(sqlite3_stmt *st, void *arg)
{
	struct id_acc *a = arg;

	if (a->n < ARRAY_SIZE(a->ids))
		a->ids[a->n++] = sqlite3_column_int64(st, 0);
	return 0;
}

/* Every active matrix with no run left to do marked finished; their ids in a. */
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
