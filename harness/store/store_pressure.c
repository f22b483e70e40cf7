/* store_pressure.c -- host pressure rows and each run's quiet-gate and
 * contended columns (schema 15), written as the run goes. */
#include "store/store_pressure.h"
#include "store/store_db.h"

int store_host_pressure(struct store *s, int64_t run, const struct store_pressure *p, char *err)
{
	return db_run(s, err, "INSERT OR REPLACE INTO host_pressure (run_id, seq, host_ms,"
		      " cpu_some_us, cpu_full_us, io_some_us, io_full_us, load)"
		      " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "iiiddddd", run, p->seq, p->ms,
		      p->cpu_some, p->cpu_full, p->io_some, p->io_full, p->load);
}

int store_run_quiet(struct store *s, int64_t run, int64_t waited_ms, int busy, char *err)
{
	return db_run(s, err, "UPDATE runs SET quiet_wait_ms = ?, started_busy = ? WHERE id = ?",
		      "iii", waited_ms, (int64_t)busy, run);
}

int store_run_contended(struct store *s, int64_t run, double cpu_pct, double io_pct,
			double load_pct, int contended, const char *why, char *err)
{
	return db_run(s, err, "UPDATE runs SET pressure_cpu_pct = ?, pressure_io_pct = ?,"
		      " pressure_load_pct = ?, contended = ?, contended_why = ? WHERE id = ?",
		      "ddditi", cpu_pct, io_pct, load_pct, (int64_t)contended, why, run);
}
