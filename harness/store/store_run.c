/* store_run.c -- one run's writes as they arrive: booting, hello, setup, each
 * interval's samples, LRU generations, trace events, the end and its console. */
#include "store/store.h"
#include "store/store_db.h"

#include <math.h>


int store_run_booting(struct store *s, int64_t run, const char *accel, const char *host,
		      const char *arch, const char *console, char *err)
{
	return db_run(s, err, "UPDATE runs SET status = 'booting', started_at = " NOW ","
		      " accel = ?, host = ?, arch = ?, console_path = ? WHERE id = ?",
		      "tttti", accel, host, arch, console, run);
}

int store_run_start(struct store *s, int64_t run, const char *start, const char *save_key,
		    int64_t save_bytes, char *err)
{
	return db_run(s, err, "UPDATE runs SET start = ?, save_key = ?, save_bytes = ? WHERE id = ?",
		      "ttdi", start, save_key && *save_key ? save_key : NULL,
		      save_bytes < 0 ? NAN : (double)save_bytes, run);
}

int store_run_machine(struct store *s, int64_t run, const struct store_machine *m, char *err)
{
	return db_run(s, err, "UPDATE runs SET qemu_version = ?, libvirt_version = ?,"
		      " tcg_thread = ?, host_kernel = ?, host_cpu = ?, host_cpus = ?, vcpu_pin = ?"
		      " WHERE id = ?", "tttttiti", m->qemu, m->libvirt, m->tcg_thread, m->kernel,
		      m->cpu_model, (int64_t)m->cpus, m->vcpu_pin, run);
}

int store_run_hello(struct store *s, int64_t run, const struct proto_hello *h,
		    int64_t agent_ready_ms, char *err)
{
	/* arch: the planned one until now, from here on the guest's own uname -m */
	return db_run(s, err, "UPDATE runs SET status = 'running', guest_release = ?,"
		      " arch = ?, lru_gen_caps = ?, page_size = ?, mem_total_kib = ?,"
		      " cachestat = ?, dontcache = ?, fio = ?, agent_ready_ms = ? WHERE id = ?",
		      "tttiiiitii", h->release, h->arch, h->lru_gen_caps, (int64_t)h->page_size,
		      (int64_t)h->mem_total_kib, (int64_t)h->cachestat, (int64_t)h->dontcache,
		      h->fio, agent_ready_ms, run);
}

int store_run_setup(struct store *s, int64_t run, const struct proto_setup *st, char *err)
{
	uint64_t i;

	if (db_run(s, err, "UPDATE runs SET lru_gen_read = ?, residency = ?, trace = ?,"
		   " clock_behind_ms = ?, clock_ahead_ms = ?, rng = ?, thp_enabled_read = ?,"
		   " thp_defrag_read = ?, swap_read = ?, swappiness_read = ?, stalls = ?,"
		   " mthp_read = ? WHERE id = ?",
		   "tttiittttitti", st->lru_gen, st->residency, st->trace[0] ? st->trace : NULL,
		   (int64_t)st->clock_behind_ms, (int64_t)st->clock_ahead_ms, st->rng,
		   st->thp_enabled[0] ? st->thp_enabled : NULL,
		   st->thp_defrag[0] ? st->thp_defrag : NULL, st->swap[0] ? st->swap : NULL,
		   (int64_t)st->swappiness, st->stalls[0] ? st->stalls : NULL,
		   st->mthp[0] ? st->mthp : NULL, run) < 0)
		return -1;
	for (i = 0; i < st->file_pages.n; i++)
		if (db_run(s, err, "INSERT OR REPLACE INTO run_files (run_id, idx, pages, ino)"
			   " VALUES (?,?,?,?)", "iiii", run, (int64_t)i,
			   (int64_t)st->file_pages.v[i],
			   i < st->file_ino.n ? (int64_t)st->file_ino.v[i] : 0) < 0)
			return -1;
	return 0;
}

/* Step a cached insert whose parameters are bound; reset it either way. */
static int step_insert(struct store *s, sqlite3_stmt *st, const char *what, char *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_err(s, err, what);
	return 0;
}

int store_sample(struct store *s, int64_t run, const struct proto_sample *smp, char *err)
{
	sqlite3_stmt *st = s->ins_sample, *fs = s->ins_file_sample;
	uint64_t f;
	int i = 1;

	sqlite3_bind_int64(st, i++, run);
#define X(m, key, max) sqlite3_bind_int64(st, i++, (int64_t)smp->m);
	PROTO_SAMPLE_FIELDS(X)
#undef X
	if (step_insert(s, st, "insert sample", err) < 0)
		return -1;
	for (f = 0; f < smp->resident.n; f++) {
		sqlite3_bind_int64(fs, 1, run);
		sqlite3_bind_int64(fs, 2, (int64_t)smp->seq);
		sqlite3_bind_int64(fs, 3, (int64_t)f);
		sqlite3_bind_int64(fs, 4, (int64_t)smp->resident.v[f]);
		if (step_insert(s, fs, "insert file sample", err) < 0)
			return -1;
	}
	return 0;
}

/* PROTO_LRU_TIER_FIELDS lists anon's three counters, then file's. */
#define TIER_COLS 6
#define TIER_TYPE(col) ((col) < 3 ? LRUGEN_ANON : LRUGEN_FILE)

/* The tier rows of generation g: a type's columns NULL where it had no rep columns. */
static int store_lru_tiers(struct store *s, int64_t run, const struct proto_lru *l, uint64_t g,
			   char *err)
{
	const struct proto_u64s *col[TIER_COLS] = {
#define X(m, key, max) &l->m,
		PROTO_LRU_TIER_FIELDS(X)
#undef X
	};
	sqlite3_stmt *st = s->ins_lru_tier;
	uint64_t k;
	int c;

	for (k = 0; k < LRUGEN_TIERS; k++) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, (int64_t)l->seq);
		sqlite3_bind_int64(st, 3, (int64_t)l->nid);
		sqlite3_bind_int64(st, 4, (int64_t)l->gen.v[g]);
		sqlite3_bind_int64(st, 5, (int64_t)k);
		for (c = 0; c < TIER_COLS; c++)
			if ((l->rep.v[g] >> TIER_TYPE(c)) & 1)
				sqlite3_bind_int64(st, 6 + c,
						   (int64_t)col[c]->v[g * LRUGEN_TIERS + k]);
			else
				sqlite3_bind_null(st, 6 + c);
		if (step_insert(s, st, "insert lru tier", err) < 0)
			return -1;
	}
	return 0;
}

struct lru_arg {
	int64_t run;
	const struct proto_lru *l;
};

/* One node's generation rows and their tiers (store_lru's transaction). */
static int lru_rows(struct store *s, void *p, char *err)
{
	const struct lru_arg *a = p;
	const struct proto_lru *l = a->l;
	sqlite3_stmt *st = s->ins_lru_gen;
	uint64_t g;

	for (g = 0; g < l->gen.n; g++) {
		sqlite3_bind_int64(st, 1, a->run);
		sqlite3_bind_int64(st, 2, (int64_t)l->seq);
		sqlite3_bind_int64(st, 3, (int64_t)l->nid);
		sqlite3_bind_int64(st, 4, (int64_t)l->gen.v[g]);
		sqlite3_bind_int64(st, 5, (int64_t)l->age_ms.v[g]);
		sqlite3_bind_int64(st, 6, (int64_t)l->anon.v[g]);
		sqlite3_bind_int64(st, 7, (int64_t)l->file.v[g]);
		if (step_insert(s, st, "insert lru generation", err) < 0)
			return -1;
		if (l->anon_refaulted.n && l->rep.v[g] && store_lru_tiers(s, a->run, l, g, err) < 0)
			return -1;
	}
	return 0;
}

int store_lru(struct store *s, int64_t run, const struct proto_lru *l, char *err)
{
	struct lru_arg a = { run, l };

	return db_transaction(s, lru_rows, &a, err);
}

struct trace_arg {
	int64_t run;
	uint64_t *idx;
	const struct proto_trace *t;
};

/* One message's events and the run's counts (store_trace's transaction). */
static int trace_rows(struct store *s, void *p, char *err)
{
	const struct trace_arg *a = p;
	const struct proto_trace *t = a->t;
	sqlite3_stmt *st = s->ins_trace;
	uint64_t e;

	for (e = 0; e < t->kind.n; e++) {
		sqlite3_bind_int64(st, 1, a->run);
		sqlite3_bind_int64(st, 2, (int64_t)(*a->idx)++);
		sqlite3_bind_int64(st, 3, (int64_t)t->seq);
		sqlite3_bind_text(st, 4, proto_trace_kind_names[t->kind.v[e]], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, (int64_t)t->t_ms.v[e]);
		sqlite3_bind_int64(st, 6, (int64_t)t->ino.v[e]);
		sqlite3_bind_int64(st, 7, (int64_t)t->page.v[e]);
		sqlite3_bind_text(st, 8, proto_place_names[t->place.v[e]], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, (int64_t)t->gen.v[e]);
		sqlite3_bind_int64(st, 10, (int64_t)t->min_seq.v[e]);
		sqlite3_bind_int64(st, 11, (int64_t)t->max_seq.v[e]);
		if (step_insert(s, st, "insert trace event", err) < 0)
			return -1;
	}
	return db_run(s, err, "UPDATE runs SET trace_lost = ?, trace_refused = ? WHERE id = ?",
		      "iii", (int64_t)t->lost, (int64_t)t->refused, a->run);
}

int store_trace(struct store *s, int64_t run, uint64_t *idx, const struct proto_trace *t,
		char *err)
{
	struct trace_arg a = { run, idx, t };

	return db_transaction(s, trace_rows, &a, err);
}

struct counters_arg {
	int64_t run;
	const struct proto_counters *c;
	int again;                      /* out: a key stored already for its interval */
};

/* One message's counters (store_counters' transaction): the start at seq -1, the end at -2. */
static int counter_rows(struct store *s, void *p, char *err)
{
	struct counters_arg *a = p;
	const struct proto_counters *c = a->c;
	sqlite3_stmt *st = s->ins_counter;
	uint64_t i;

	for (i = 0; i < c->values.n; i++) {
		sqlite3_bind_int64(st, 1, a->run);
		sqlite3_bind_text(st, 2, c->src, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, c->values.key[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, c->at == CA_START ? -1 : c->at == CA_END ? -2 :
				   (int64_t)c->seq);
		sqlite3_bind_int64(st, 5, c->values.value[i]);
		if (step_insert(s, st, "insert counter", err) == 0)
			continue;
		/* the step's code outlives its reset and the message's formatting */
		if (sqlite3_extended_errcode(s->db) != SQLITE_CONSTRAINT_PRIMARYKEY)
			return -1;
		a->again = 1;
		return errorf(err, "%s counter '%s' twice for %s %llu", c->src, c->values.key[i],
			      c->at == CA_CHANGE ? "interval" : c->at == CA_START ?
			      "the start at interval" : "the end at interval",
			      (unsigned long long)c->seq);
	}
	return 0;
}

int store_counters(struct store *s, int64_t run, const struct proto_counters *c, char *err)
{
	struct counters_arg a = { run, c, 0 };

	if (db_transaction(s, counter_rows, &a, err) < 0)
		return a.again ? 1 : -1;
	return 0;
}

int store_stream_sample(struct store *s, int64_t run, const struct proto_stream_sample *smp,
			char *err)
{
	sqlite3_stmt *st = s->ins_stream;
	int i = 1;

	sqlite3_bind_int64(st, i++, run);
#define X(m, key, max) sqlite3_bind_int64(st, i++, (int64_t)smp->m);
	PROTO_STREAM_FIELDS(X)
#undef X
	return step_insert(s, st, "insert stream sample", err);
}

int store_op_sample(struct store *s, int64_t run, const struct proto_op_sample *o, char *err)
{
	sqlite3_stmt *st = s->ins_op;
	int i = 1;

	sqlite3_bind_int64(st, i++, run);
#define X(m, key, max) sqlite3_bind_int64(st, i++, (int64_t)o->m);
	PROTO_OP_FIELDS(X)
#undef X
	sqlite3_bind_text(st, i, o->op, -1, SQLITE_TRANSIENT);
	return step_insert(s, st, "insert operation sample", err);
}

int store_event(struct store *s, int64_t run, unsigned idx, const struct proto_event *e,
		char *err)
{
	uint64_t f;

	if (db_run(s, err, "INSERT INTO events VALUES (?,?,?,?,?,?,?)", "iiiitii", run,
		   (int64_t)idx, (int64_t)e->t_ms, (int64_t)e->stream, e->kind,
		   (int64_t)e->pass, (int64_t)e->value) < 0)
		return -1;
	for (f = 0; f < e->resident.n; f++)
		if (db_run(s, err, "INSERT INTO event_files VALUES (?,?,?,?)", "iiii", run,
			   (int64_t)idx, (int64_t)f, (int64_t)e->resident.v[f]) < 0)
			return -1;
	return 0;
}

int store_transaction(struct store *s, int (*fn)(struct store *s, void *arg, char *err),
		      void *arg, char *err)
{
	return db_transaction(s, fn, arg, err);
}

struct finish_arg {
	int64_t run;
	const char *status, *reason;
	const struct proto_summary *sum;
	const struct run_summary *fig;
};

/* The summary row of run ?1 if it is done, its figures bound as computed. */
static const char summary_insert[] =
	"INSERT OR REPLACE INTO run_summary (run_id, matrix_id, arm, cell, block, position,"
	" seconds, ops_per_s, refault_per_s, majflt_per_s, activate_per_s, refaults_per_read,"
	" miss_share, resident_share)"
	" SELECT r.id, r.matrix_id, a.idx, c.idx, r.block, r.position, ?, ?, ?, ?, ?, ?, ?, ?"
	" FROM runs r JOIN arms a ON a.id = r.arm_id JOIN cells c ON c.id = r.cell_id"
	" WHERE r.id = ? AND r.status = 'done'";

/* The summary's multi-size THP counters of run, a row per size (proto.c checked their lengths). */
static int mthp_rows(struct store *s, int64_t run, const struct proto_summary *sum, char *err)
{
	uint64_t i;

	for (i = 0; i < sum->mthp_kib.n; i++)
		if (db_run(s, err, "INSERT OR REPLACE INTO run_mthp (run_id, kib, anon_fault_alloc,"
			   " swpout) VALUES (?,?,?,?)", "iiii", run, (int64_t)sum->mthp_kib.v[i],
			   (int64_t)sum->mthp_anon_fault_alloc.v[i],
			   (int64_t)sum->mthp_swpout.v[i]) < 0)
			return -1;
	return 0;
}

/*
 * The run's end with its summary's counters and, if it is done with figures,
 * its summary row: all or none.
 */
static int run_end_rows(struct store *s, void *p, char *err)
{
	struct finish_arg *a = p;
	const struct run_summary *f = a->fig;

	if (db_run(s, err, "UPDATE runs SET status = ?, reason = ?, finished_at = " NOW ","
		   " duration_ms = ?, samples = ? WHERE id = ?", "ttiii", a->status, a->reason,
		   (int64_t)a->sum->duration_ms, (int64_t)a->sum->samples, a->run) < 0 ||
	    mthp_rows(s, a->run, a->sum, err) < 0)
		return -1;
	if (f && db_run(s, err, summary_insert, "ddddddddi", f->seconds, f->ops_per_s,
			f->refault_per_s, f->majflt_per_s, f->activate_per_s,
			f->refaults_per_read, f->miss_share, f->resident_share, a->run) < 0)
		return -1;
	return 0;
}

int store_run_finish(struct store *s, int64_t run, const char *status, const char *reason,
		     const struct proto_summary *sum, const struct run_summary *fig, char *err)
{
	struct proto_summary none = { 0 };
	struct finish_arg a = { run, status, reason, sum ? sum : &none, fig };

	return db_transaction(s, run_end_rows, &a, err);
}

int store_run_shape(struct store *s, int64_t run, unsigned *ret_nstreams, double *ret_file_pages,
		    char *err)
{
	int64_t nstreams = 0, pages = 0;

	if (db_rows(s, "SELECT COUNT(*) FROM cell_streams t JOIN runs r ON r.cell_id = t.cell_id"
		    " WHERE r.id = ?", db_int, &nstreams, err, "i", run) < 0 ||
	    db_rows(s, "SELECT COALESCE(SUM(pages), 0) FROM run_files WHERE run_id = ?", db_int,
		    &pages, err, "i", run) < 0)
		return -1;
	*ret_nstreams = nstreams > 0 ? (unsigned)nstreams : 0;
	*ret_file_pages = (double)pages;
	return 0;
}

int store_run_console(struct store *s, int64_t run, const char *crash, int64_t warnings,
		      char *err)
{
	return db_run(s, err, "UPDATE runs SET crash = ?, warnings = ? WHERE id = ?", "tii",
		      crash, warnings, run);
}

int store_run_oom(struct store *s, int64_t run, int64_t kills, char *err)
{
	return db_run(s, err, "UPDATE runs SET oom_kills = ? WHERE id = ?", "ii", kills, run);
}

/* The first row's first column, an integer, into *(int64_t *)arg. */
static int int64_row(sqlite3_stmt *st, void *arg)
{
	*(int64_t *)arg = sqlite3_column_int64(st, 0);
	return 0;
}

int store_run_matrix(struct store *s, int64_t run, int64_t *ret_mid, char *err)
{
	*ret_mid = -1;
	if (db_rows(s, "SELECT matrix_id FROM runs WHERE id = ?", int64_row, ret_mid, err, "i",
		    run) < 0)
		return -1;
	return *ret_mid < 0 ? errorf(err, "no run %lld", (long long)run) : 0;
}

int store_matrix_pending(struct store *s, int64_t mid, char *err)
{
	int64_t n = 0;

	if (db_rows(s, "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id"
		    " WHERE r.matrix_id = ? AND r.status IN ('queued', 'booting', 'running')"
		    " AND m.state IN ('active', 'paused')", int64_row, &n, err, "i", mid) < 0)
		return -1;
	return n > 0;
}
