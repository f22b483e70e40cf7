/* store_compare.c -- read-only queries for `harness compare`, kept apart from
 * store.c: each arm's kernel, lru_gen and command line, and arms by tag. */
#include "store/store_compare.h"
#include "base/err.h"
#include "store/store_db.h"

#include <string.h>

struct identities {
	struct arm_identity *v;
	unsigned n;
};

/* An arm's identity (name, kernel, modules, lru_gen, cmdline), in index order. */
static int identity_row(sqlite3_stmt *st, void *arg)
{
	struct identities *a = arg;
	struct arm_identity *r;

	if (a->n == SPEC_MAX_ARMS || sqlite3_column_int(st, 0) != (int)a->n)
		return 0;
	r = &a->v[a->n++];
	/* compared (same_boot): a cut one is a wrong one */
	if (db_text(st, 1, r->name, sizeof(r->name)) < 0 ||
	    db_text(st, 2, r->kernel, sizeof(r->kernel)) < 0 ||
	    db_text(st, 3, r->modules, sizeof(r->modules)) < 0 ||
	    db_text(st, 4, r->lru_gen, sizeof(r->lru_gen)) < 0 ||
	    db_text(st, 5, r->cmdline, sizeof(r->cmdline)) < 0)
		return DB_TOO_LONG;
	return 0;
}

int store_arm_identities(struct store *s, int64_t matrix_id, struct arm_identity *ret,
			 unsigned *ret_n, char *err)
{
	struct identities a = { ret, 0 };

	if (db_rows(s, "SELECT idx, name, kernel_path, modules_path, lru_gen, cmdline"
		    " FROM arms WHERE matrix_id = ? ORDER BY idx", identity_row, &a, err, "i",
		    matrix_id) < 0)
		return -1;
	*ret_n = a.n;
	return 0;
}

struct tagged {
	int64_t newest;
	unsigned n;
};

/* How many matrices hold both tags, and the newest of them. */
static int tagged_row(sqlite3_stmt *st, void *arg)
{
	struct tagged *t = arg;

	t->n = (unsigned)sqlite3_column_int(st, 0);
	t->newest = sqlite3_column_int64(st, 1);
	return 0;
}

int store_tag_matrices(struct store *s, const char *tag, const char *also, int64_t *ret_newest,
		       unsigned *ret_n, char *err)
{
	struct tagged t = { 0, 0 };

	if (db_rows(s, "SELECT COUNT(*), COALESCE(MAX(matrix_id), 0) FROM"
		    " (SELECT matrix_id FROM arms WHERE tag = ?1 INTERSECT"
		    "  SELECT matrix_id FROM arms WHERE tag = COALESCE(?2, ?1))", tagged_row, &t,
		    err, "tt", tag, also) < 0)
		return -1;
	*ret_newest = t.newest;
	*ret_n = t.n;
	return 0;
}

/* One fact's distinct values over the runs r (the WITH below), ordered, " | " between. */
#define MACHINE_FACT(col)                                                                 \
	"(SELECT group_concat(v, ' | ') FROM (SELECT DISTINCT CAST(" col " AS TEXT) AS v"  \
	" FROM r WHERE " col " IS NOT NULL AND " col " != '' ORDER BY 1))"

/* In enum store_machine_fact's order. */
static const char machines_sql[] =
	"WITH r AS (SELECT * FROM runs WHERE matrix_id = ?1 AND status = 'done' AND"
	" (?2 < 0 OR arm_id IN (SELECT id FROM arms WHERE matrix_id = ?1 AND idx = ?2)))"
	" SELECT " MACHINE_FACT("qemu_version") ", " MACHINE_FACT("libvirt_version") ", "
	MACHINE_FACT("accel") ", " MACHINE_FACT("tcg_thread") ", " MACHINE_FACT("host_kernel") ", "
	MACHINE_FACT("host_cpu") ", " MACHINE_FACT("host_cpus") ", " MACHINE_FACT("vcpu_pin") ", "
	MACHINE_FACT("CASE start WHEN 'save' THEN 'restore' ELSE start END") ", "
	MACHINE_FACT("thp_enabled_read || ', defrag ' || COALESCE(thp_defrag_read, '?')") ", "
	MACHINE_FACT("mthp_read") ", "
	/* no swap_read once the run stored what it read back: it had none */
	MACHINE_FACT("CASE WHEN swappiness_read IS NOT NULL THEN COALESCE(swap_read, 'none') END")
	", " MACHINE_FACT("swappiness_read");

/* Each machine fact's distinct values, in enum store_machine_fact's order. */
static int machines_row(sqlite3_stmt *st, void *arg)
{
	struct store_machines *m = arg;
	int i;

	for (i = 0; i < MACHINE_FACTS; i++)
		db_text_cut(st, i, m->v[i], sizeof(m->v[i]));
	return 0;
}

int store_matrix_machines(struct store *s, int64_t matrix_id, int arm, struct store_machines *ret,
			  char *err)
{
	memset(ret, 0, sizeof(*ret));
	return db_rows(s, machines_sql, machines_row, ret, err, "ii", matrix_id, (int64_t)arm);
}
