/* store_hosts.c -- the host_state table (drained hosts) and the runs per
 * host, for the scheduler and `harness hosts`. */
#include "store/store_hosts.h"
#include "store/store_db.h"

int store_set_host_drained(struct store *s, const char *host, int on, char *err)
{
	return db_run(s, err, "INSERT INTO host_state (name, drained) VALUES (?1, ?2)"
		      " ON CONFLICT (name) DO UPDATE SET drained = ?2", "ti", host, (int64_t)on);
}

int store_host_drained(struct store *s, const char *host, int *on, char *err)
{
	int64_t v = 0;

	if (db_rows(s, "SELECT COALESCE((SELECT drained FROM host_state WHERE name = ?), 0)",
		    db_int, &v, err, "t", host) < 0)
		return -1;
	*on = v != 0;
	return 0;
}

int store_host_runs(struct store *s, const char *host, int64_t *done, int64_t *other, char *err)
{
	*done = *other = 0;
	if (db_rows(s, "SELECT COUNT(*) FROM runs WHERE host = ? AND status = 'done'", db_int, done,
		    err, "t", host) < 0 ||
	    db_rows(s, "SELECT COUNT(*) FROM runs WHERE host = ? AND status NOT IN ('done',"
		    " 'queued', 'booting', 'running')", db_int, other, err, "t", host) < 0)
		return -1;
	return 0;
}
