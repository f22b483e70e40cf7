/* store_lru.c -- read-only queries of a run's LRU insides (lru_gens, lru_tiers and the
 * samples' list sizes) for the generations chart and the oldest generations' table. */
#include "store/store_lru.h"
#include "store/store_db.h"
#include "common/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Per interval, its generations youngest first, file pages summed over the
 * nodes (one row with gen NULL when it has none), beside the list sizes.
 */
static const char points_sql[] =
	"SELECT s.seq, s.t_ms, s.ramp, s.lru_gen_valid, s.lru_gen_max_seq, g.gen,"
	" SUM(g.file) * r.page_size / 1048576.0,"
	" s.active_file / 1048576.0, s.inactive_file / 1048576.0,"
	" s.active_anon / 1048576.0, s.inactive_anon / 1048576.0"
	" FROM samples s JOIN runs r ON r.id = s.run_id"
	" LEFT JOIN lru_gens g ON g.run_id = s.run_id AND g.seq = s.seq"
	" WHERE s.run_id = ? GROUP BY s.seq, g.gen ORDER BY s.seq, g.gen DESC";

struct points_read {
	struct rows rows;
	int64_t seq;
	unsigned rank;
};

/*
 * A row of points_sql: an interval's first row starts its lru_point (time,
 * max_seq, list sizes); each generation's file MiB goes to the next rank,
 * youngest first, the oldest ranks summed into the last.
 */
static int point_row(sqlite3_stmt *st, void *arg)
{
	struct points_read *pr = arg;
	struct lru_point *p = pr->rows.n ? (struct lru_point *)pr->rows.v + pr->rows.n - 1 : NULL;
	int64_t seq = sqlite3_column_int64(st, 0);

	if (!p || seq != pr->seq) {
		if (!(p = rows_push(&pr->rows)))
			return -1;
		pr->seq = seq;
		pr->rank = 0;
		p->t_s = sqlite3_column_int64(st, 1) / 1000.0;
		p->ramp = sqlite3_column_int(st, 2);
		p->max_seq = (uint64_t)sqlite3_column_int64(st, 4);
		p->active_file = db_real_or_nan(st, 7);
		p->inactive_file = db_real_or_nan(st, 8);
		p->active_anon = db_real_or_nan(st, 9);
		p->inactive_anon = db_real_or_nan(st, 10);
	}
	if (sqlite3_column_type(st, 5) == SQLITE_NULL)
		return 0;
	p->gens = 1;
	p->file_mib[pr->rank < LRU_RANKS ? pr->rank : LRU_RANKS - 1] += db_real_or_nan(st, 6);
	pr->rank++;
	return 0;
}

int store_lru_points(struct store *s, int64_t run, struct lru_point **ret, size_t *ret_n,
		     char *err)
{
	struct points_read pr = { .rows = ROWS(struct lru_point), .seq = -1 };
	int rc = db_rows(s, points_sql, point_row, &pr, err, "i", run);

	return rows_take(&pr.rows, rc, ret, ret_n);
}

/*
 * Per measured interval, each generation with tiers and each of its tiers,
 * the file counters summed over the nodes.
 */
static const char oldest_sql[] =
	"SELECT t.gen, t.tier, s.t_ms, SUM(t.file_evicted), SUM(t.file_refaulted),"
	" SUM(COALESCE(t.file_protected, 0))"
	" FROM lru_tiers t JOIN samples s ON s.run_id = t.run_id AND s.seq = t.seq"
	" WHERE t.run_id = ? AND s.ramp = 0 AND t.file_evicted IS NOT NULL"
	" GROUP BY t.seq, t.gen, t.tier ORDER BY t.gen, t.seq, t.tier";

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The generation being gathered from oldest_sql's rows, and whom to hand it to. */
struct oldest_walk {
	struct lru_oldest cur;
	int have;                      /* cur holds a generation */
	lru_oldest_fn fn;
	void *arg;
};

/*
 * A row of oldest_sql into the oldest generation it is about: a new gen
 * hands the last one over and starts its own; per tier the largest counts
 * seen while it was the oldest (its counters only grow until it stops
 * being so).
 */
static int oldest_row(sqlite3_stmt *st, void *arg)
{
	struct oldest_walk *w = arg;
	struct lru_oldest *o = &w->cur;
	uint64_t gen = (uint64_t)sqlite3_column_int64(st, 0);
	int tier = sqlite3_column_int(st, 1);
	double t = sqlite3_column_int64(st, 2) / 1000.0;

	if (!w->have || o->gen != gen) {
		if (w->have && w->fn(w->arg, o) < 0)
			return -1;
		*o = (struct lru_oldest){ .gen = gen, .first_s = t };
		w->have = 1;
	}
	o->last_s = t;
	if (tier < 0 || tier >= LRU_TIERS)
		return 0;
	o->evicted[tier] = max_u64(o->evicted[tier], (uint64_t)sqlite3_column_int64(st, 3));
	o->refaulted[tier] = max_u64(o->refaulted[tier], (uint64_t)sqlite3_column_int64(st, 4));
	o->protected_[tier] = max_u64(o->protected_[tier], (uint64_t)sqlite3_column_int64(st, 5));
	return 0;
}

int store_lru_oldest_each(struct store *s, int64_t run, lru_oldest_fn fn, void *arg,
			  char *err)
{
	struct oldest_walk w = { .fn = fn, .arg = arg };

	if (db_rows(s, oldest_sql, oldest_row, &w, err, "i", run) < 0)
		return -1;
	if (w.have && fn(arg, &w.cur) < 0)
		return errorf(err, "out of memory");
	return 0;
}

static const char cell_runs_sql[] =
	"SELECT a.idx, MIN(r.id) FROM runs r JOIN arms a ON a.id = r.arm_id"
	" JOIN cells c ON c.id = r.cell_id"
	" WHERE r.matrix_id = ? AND c.idx = ? AND r.status = 'done' GROUP BY a.idx";

/* The first done run of an arm, at the arm's index. */
static int cell_run_row(sqlite3_stmt *st, void *arg)
{
	int64_t *run = arg;
	int arm = sqlite3_column_int(st, 0);

	if (arm >= 0 && arm < SPEC_MAX_ARMS)
		run[arm] = sqlite3_column_int64(st, 1);
	return 0;
}

int store_lru_cell_runs(struct store *s, int64_t mid, unsigned cell,
			int64_t run[SPEC_MAX_ARMS], char *err)
{
	memset(run, 0, SPEC_MAX_ARMS * sizeof(*run));
	return db_rows(s, cell_runs_sql, cell_run_row, run, err, "ii", mid, (int64_t)cell);
}

/* ---- sampled folios ---- */

static const char trace_status_sql[] =
	"SELECT COALESCE(trace, ''), COALESCE(trace_lost, 0), COALESCE(trace_refused, 0)"
	" FROM runs WHERE id = ?";
static const char trace_events_sql[] =
	"SELECT ino, page, kind, place FROM trace_events WHERE run_id = ? ORDER BY ino, page, idx";

/* A run's trace setting and its lost and refused event counts. */
static int trace_status_row(sqlite3_stmt *st, void *arg)
{
	struct trace_folios *t = arg;

	fmtcut(t->status, sizeof(t->status), "%s", (const char *)sqlite3_column_text(st, 0));
	t->lost = (uint64_t)sqlite3_column_int64(st, 1);
	t->refused = (uint64_t)sqlite3_column_int64(st, 2);
	return 0;
}

/* One page's life so far, as its events go by. */
struct folio_walk {
	struct trace_folios *t;
	int64_t ino, page;
	int live, placed, removed;     /* in the page cache; its add seen; last life removed */
	unsigned accesses;
};

/* The index of s in the NULL-ended names, or -1. */
static int name_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; s && names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* A load of the walked page: a new life, a reload if the last one was removed. */
static void walk_load(struct folio_walk *w)
{
	w->t->lives++;
	w->t->reloaded += w->removed;
	w->live = 1;
	w->placed = w->removed = 0;
	w->accesses = 0;
}

/*
 * The walked page's removal, counted once per life, and whether it was read
 * once at most before it went.
 */
static void walk_remove(struct folio_walk *w)
{
	if (!w->live)
		return;
	w->t->removed++;
	w->t->removed_one += w->accesses <= 1;
	w->live = 0;
	w->removed = 1;
}

/*
 * One trace event, in (inode, page, order) order: a new page resets the walk,
 * and each kind moves the page's life and the counts of out.
 */
static int folio_row(sqlite3_stmt *st, void *arg)
{
	struct folio_walk *w = arg;
	int64_t ino = sqlite3_column_int64(st, 0), page = sqlite3_column_int64(st, 1);
	int kind = name_index(proto_trace_kind_names, (const char *)sqlite3_column_text(st, 2));
	int place = name_index(proto_place_names, (const char *)sqlite3_column_text(st, 3));

	if (ino != w->ino || page != w->page) {
		w->t->pages++;
		w->ino = ino;
		w->page = page;
		w->live = w->placed = w->removed = 0;
	}
	switch (kind) {
	case TR_LOAD: walk_load(w); break;
	case TR_ADD:
		if (w->live && !w->placed && place > PL_NONE)
			w->t->placed[place]++;
		w->placed = 1;
		break;
	case TR_ACCESS: w->accesses++; break;
	case TR_PROMOTE: w->t->promoted++; break;
	case TR_ACTIVATE: w->t->activated++; break;
	case TR_REMOVE: walk_remove(w); break;
	}
	return 0;
}

int store_trace_folios(struct store *s, int64_t run, struct trace_folios *out, char *err)
{
	struct folio_walk w = { .t = out, .ino = -1, .page = -1 };

	memset(out, 0, sizeof(*out));
	if (db_rows(s, trace_status_sql, trace_status_row, out, err, "i", run) < 0)
		return -1;
	return db_rows(s, trace_events_sql, folio_row, &w, err, "i", run);
}
