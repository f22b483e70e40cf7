/* test_runner.c -- unit tests for the runner's message loop (run/runner.c) driven over
 * a socketpair by a scripted guest: the guest's budgets (run/budget.c) and counter sums,
 * refused as the guest's with nothing beyond them stored, and `harness vmstat`'s read. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"
#include "conf/conf.h"
#include "output/countertable.h"
#include "run/budget.h"
#include "run/runner.h"
#include "spec/spec.h"
#include "store/store.h"
#include "testlib.h"

#define SAMPLES 11                  /* the fixture's cell: 11 s of 1 s intervals */
#define BIG     (PROTO_COUNTER_ABS_MAX - 1)
/* RELIABILITY.md's bound on a run's growth of the database, untraced, no scan */
#define GROWTH_RUN        INT64_C(200000)
#define GROWTH_INTERVAL   INT64_C(72000)
#define GROWTH_TRACE_VCPU INT64_C(6700000)   /* a traced interval, per vCPU */

/* A scripted guest: after its hello, the job and its setup, what it sends. */
struct guest {
	int fd;
	void (*script)(struct guest *g);
	unsigned n;                      /* the script's size: how many of what it floods */
	int traced;                      /* its setup says its trace is on */
	int broken;                      /* a write failed: the host closed the channel */
};

struct fix {
	char dir[PATH_MAX];
	struct conf conf;
	struct store *s;
	struct matrix *m;
	struct run_ref *runs;
	int64_t mid;
	struct run_outcome out;
};

/* One message to the host as the agent writes it; a closed channel ends the script. */
static void send_msg(struct guest *g, const struct proto_msg *m)
{
	char line[PROTO_LINE_MAX];
	int n = proto_format(m, line, sizeof(line));

	assert_true(n > 0);
	if (!g->broken && write_all(g->fd, line, (size_t)n) < 0)
		g->broken = 1;
}

/* The job's line read and dropped (its content is the runner's business). */
static void read_job(struct guest *g)
{
	char c = 0;

	while (c != '\n' && !g->broken)
		if (read(g->fd, &c, 1) != 1)
			g->broken = 1;   /* the host ended the run at the hello */
}

static void hello_and_setup(struct guest *g)
{
	struct proto_msg m = { .type = PROTO_HELLO };

	m.u.hello.proto = PROTO_VERSION;
	snprintf(m.u.hello.release, sizeof(m.u.hello.release), "6.12-test");
	snprintf(m.u.hello.arch, sizeof(m.u.hello.arch), "x86_64");
	m.u.hello.page_size = 4096;
	m.u.hello.mem_total_kib = 500000;
	send_msg(g, &m);
	read_job(g);
	memset(&m, 0, sizeof(m));
	m.type = PROTO_SETUP;
	snprintf(m.u.setup.lru_gen, sizeof(m.u.setup.lru_gen), "0x0007");
	snprintf(m.u.setup.residency, sizeof(m.u.setup.residency), "cachestat");
	m.u.setup.file_pages.n = m.u.setup.file_ino.n = 1;
	m.u.setup.file_pages.v[0] = 2048;
	m.u.setup.file_ino.v[0] = 12;
	snprintf(m.u.setup.rng, sizeof(m.u.setup.rng), "0123456789abcdef");
	snprintf(m.u.setup.stalls, sizeof(m.u.setup.stalls), "off: a test");
	if (g->traced)
		snprintf(m.u.setup.trace, sizeof(m.u.setup.trace), "on: 1/1, a test");
	send_msg(g, &m);
}

static void sample(struct guest *g, uint64_t seq, uint64_t t_ms)
{
	struct proto_msg m = { .type = PROTO_SAMPLE };

	m.u.sample.seq = seq;
	m.u.sample.t_ms = t_ms;
	m.u.sample.ramp = seq == 0;
	m.u.sample.resident.n = 1;
	send_msg(g, &m);
}

/* vmstat counters of one message: keys key<first>.. of value v each. */
static void counters(struct guest *g, enum proto_counters_at at, uint64_t seq, unsigned first,
		     unsigned n, int64_t v)
{
	struct proto_msg *m = calloc(1, sizeof(*m));
	unsigned i;

	assert_non_null(m);
	m->type = PROTO_COUNTERS;
	m->u.counters.at = at;
	m->u.counters.seq = seq;
	snprintf(m->u.counters.src, sizeof(m->u.counters.src), "vmstat");
	for (i = 0; i < n; i++) {
		snprintf(m->u.counters.values.key[i], PROTO_COUNTER_KEY_MAX, "key%u", first + i);
		m->u.counters.values.value[i] = v;
	}
	m->u.counters.values.n = n;
	send_msg(g, m);
	free(m);
}

static void event(struct guest *g, unsigned pass)
{
	struct proto_msg m = { .type = PROTO_EVENT };

	m.u.event.t_ms = 10;
	m.u.event.pass = pass;
	snprintf(m.u.event.kind, sizeof(m.u.event.kind), "start");
	m.u.event.resident.n = 1;
	send_msg(g, &m);
}

static void summary(struct guest *g, uint64_t samples)
{
	struct proto_msg m = { .type = PROTO_SUMMARY };

	m.u.summary.samples = samples;
	m.u.summary.duration_ms = samples * 1000;
	send_msg(g, &m);
}

/* A trace message of interval seq: PROTO_TRACE_MAX folios' accesses. */
static void trace(struct guest *g, uint64_t seq)
{
	struct proto_msg m = { .type = PROTO_TRACE };
	unsigned i;

	m.u.trace.seq = seq;
#define X(f, key, mx) m.u.trace.f.n = PROTO_TRACE_MAX;
	PROTO_TRACE_EVENT_FIELDS(X)
#undef X
	for (i = 0; i < PROTO_TRACE_MAX; i++) {
		m.u.trace.kind.v[i] = TR_ACCESS;
		m.u.trace.t_ms.v[i] = 500;
		m.u.trace.ino.v[i] = 12;
		m.u.trace.page.v[i] = i;
	}
	send_msg(g, &m);
}

static void *guest_main(void *arg)
{
	struct guest *g = arg;

	hello_and_setup(g);
	if (!g->broken)
		g->script(g);
	close(g->fd);
	return NULL;
}

static int64_t db_bytes(struct fix *f)
{
	return fixture_sql_int(&f->conf, "SELECT page_count * page_size FROM pragma_page_count(),"
			       " pragma_page_size()");
}

/*
 * The fixture's one run driven by a guest playing script; its outcome in
 * f->out. The database grew within RELIABILITY.md's bound.
 */
static void drive(struct fix *f, void (*script)(struct guest *), unsigned n)
{
	int64_t before = db_bytes(f), grown, bound;
	uint64_t trace = proto_job_trace(&f->m->cells[0].job, &(unsigned){ 0 }, &(int){ 0 });
	struct runner r = { .conf = &f->conf, .store = f->s, .accel = "tcg", .first_cpu = -1 };
	struct guest g = { .script = script, .n = n, .traced = trace != 0 };
	char err[ERR_MAX];
	pthread_t t;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	g.fd = sv[1];
	assert_int_equal(pthread_create(&t, NULL, guest_main, &g), 0);
	if (runner_run_channel(&r, f->m, &f->runs[0], sv[0], &f->out, err) < 0)
		fail_msg("runner: %s", err);
	pthread_join(t, NULL);
	grown = db_bytes(f) - before;
	bound = GROWTH_RUN +
		SAMPLES * (GROWTH_INTERVAL + (trace ? f->m->vcpus * GROWTH_TRACE_VCPU : 0));
	if (grown > bound)
		fail_msg("the run grew the database by %lld bytes, over %lld", (long long)grown,
			 (long long)bound);
}

/* A number the query over the fixture's database gives. */
static int64_t query(struct fix *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int64_t query(struct fix *f, const char *fmt, ...)
{
	char sql[1024];
	va_list ap;

	va_start(ap, fmt);
	assert_int_equal(vfmtbuf(sql, sizeof(sql), fmt, ap), 0);
	va_end(ap);
	return fixture_sql_int(&f->conf, sql);
}

/* The run failed as the guest's (not retried), its reason naming want. */
static void assert_guest_failed(const struct fix *f, const char *want)
{
	if (strcmp(f->out.status, "failed") || f->out.infra || !strstr(f->out.reason, want))
		fail_msg("expected failed as the guest's with '%s', got %s (infra %d): %s", want,
			 f->out.status, f->out.infra, f->out.reason);
}

/* ---- scripts ---- */

/* Every budget at its limit: 11 samples, 512 vmstat keys, 16 events; then done. */
static void within(struct guest *g)
{
	unsigned i;

	for (i = 0; i < SAMPLES; i++) {
		sample(g, i, 1000 * (i + 1));
		if (i == 0) {
			for (unsigned k = 0; k < CS_VMSTAT_KEYS; k += PROTO_COUNTERS_MAX)
				counters(g, CA_START, 0, k, PROTO_COUNTERS_MAX, 5);
		}
		counters(g, CA_CHANGE, i, 0, 1, 1);
		event(g, 0);
	}
	for (i = SAMPLES; i < BUDGET_STREAM_EVENTS; i++)
		event(g, 0);
	counters(g, CA_END, SAMPLES - 1, 0, 1, 5 + SAMPLES);
	summary(g, SAMPLES);
}

/* n messages of 64 new vmstat keys each, after the first sample. */
static void key_flood(struct guest *g)
{
	unsigned i;

	sample(g, 0, 1000);
	counters(g, CA_START, 0, 0, 0, 0);
	for (i = 0; i < g->n && !g->broken; i++)
		counters(g, CA_CHANGE, 0, i * PROTO_COUNTERS_MAX, PROTO_COUNTERS_MAX, 1);
}

/* n samples 1 ms apart. */
static void sample_flood(struct guest *g)
{
	unsigned i;

	for (i = 0; i < g->n && !g->broken; i++)
		sample(g, i, i + 1);
}

/* n events of stream 0. */
static void event_flood(struct guest *g)
{
	unsigned i;

	sample(g, 0, 1000);
	for (i = 0; i < g->n && !g->broken; i++)
		event(g, 0);
}

/* n empty counters messages, each padded with JSON's spaces to almost a whole line. */
static void byte_flood(struct guest *g)
{
	struct proto_msg m = { .type = PROTO_COUNTERS };
	char msg[512], *line = malloc(PROTO_LINE_MAX);
	size_t pad;
	unsigned i;
	int n;

	assert_non_null(line);
	sample(g, 0, 1000);
	counters(g, CA_START, 0, 0, 0, 0);
	snprintf(m.u.counters.src, sizeof(m.u.counters.src), "vmstat");
	n = proto_format(&m, msg, sizeof(msg));
	assert_true(n > 1);
	pad = PROTO_LINE_MAX - (size_t)n - 16;
	line[0] = '{';
	memset(line + 1, ' ', pad);
	memcpy(line + 1 + pad, msg + 1, (size_t)n - 1);
	for (i = 0; i < g->n && !g->broken; i++)
		if (write_all(g->fd, line, pad + (size_t)n) < 0)
			g->broken = 1;
	free(line);
}

/* n trace messages of 16 events, all for the first interval. */
static void trace_flood(struct guest *g)
{
	unsigned i;

	sample(g, 0, 1000);
	for (i = 0; i < g->n && !g->broken; i++)
		trace(g, 0);
}

/* Two samples, whatever the host does with them. */
static void two_samples(struct guest *g)
{
	sample(g, 0, 1000);
	sample(g, 1, 2000);
}

/* One key changed by 2^62 - 1 in each of three intervals. */
static void sum_over(struct guest *g)
{
	unsigned i;

	for (i = 0; i < 3 && !g->broken; i++) {
		sample(g, i, 1000 * (i + 1));
		if (i == 0)
			counters(g, CA_START, 0, 0, 0, 0);
		counters(g, CA_CHANGE, i, 7, 1, BIG);
	}
	for (; i < SAMPLES; i++)
		sample(g, i, 1000 * (i + 1));
	summary(g, SAMPLES);
}

/* ---- tests ---- */

static void test_within_budgets_done(void **state)
{
	struct fix *f = *state;

	drive(f, within, 0);
	if (!f->out.ok)
		fail_msg("a guest within every budget: %s: %s", f->out.status, f->out.reason);
	assert_int_equal(query(f, "SELECT COUNT(*) FROM counters WHERE seq = -1"), CS_VMSTAT_KEYS);
	assert_int_equal(query(f, "SELECT COUNT(*) FROM events"), BUDGET_STREAM_EVENTS);
}

/* 20 messages of 64 new keys: the ninth (keys 513 on) is refused whole. */
static void test_key_flood(void **state)
{
	struct fix *f = *state;

	drive(f, key_flood, 20);
	assert_guest_failed(f, "budget of 512 vmstat keys");
	assert_int_equal(query(f, "SELECT COUNT(*) FROM counters"), CS_VMSTAT_KEYS);
	assert_int_equal(query(f, "SELECT COUNT(DISTINCT key) FROM counters"), CS_VMSTAT_KEYS);
}

static void test_sample_flood(void **state)
{
	struct fix *f = *state;

	drive(f, sample_flood, 2000);
	assert_guest_failed(f, "budget of 11 samples");
	assert_int_equal(query(f, "SELECT COUNT(*) FROM samples"), SAMPLES);
}

static void test_event_flood(void **state)
{
	struct fix *f = *state;

	drive(f, event_flood, 1000);
	assert_guest_failed(f, "events of stream 0 are over its budget of 16");
	assert_int_equal(query(f, "SELECT COUNT(*) FROM events"), BUDGET_STREAM_EVENTS);
}

/* Empty messages store nothing, but each costs a transaction: bytes bound them. */
static void test_byte_flood(void **state)
{
	struct fix *f = *state;
	uint64_t budget = BUDGET_BYTES_BASE + BUDGET_STREAM_EVENTS * BUDGET_BYTES_EVENT +
			  SAMPLES * BUDGET_BYTES_INTERVAL;

	drive(f, byte_flood, (unsigned)(budget / (PROTO_LINE_MAX - 200)) + 50);
	assert_guest_failed(f, "over the run's budget of");
}

/* A traced one-vCPU guest: 65 536 events for one interval, then 16 more, refused whole. */
static void test_trace_flood(void **state)
{
	struct fix *f = *state;

	f->m->vcpus = 1;
	f->m->cells[0].job.trace_sample = 1;
	drive(f, trace_flood, BUDGET_TRACE_VCPU / PROTO_TRACE_MAX + 100);
	assert_guest_failed(f, "trace events of interval 0 are over its budget of 65536");
	assert_int_equal(query(f, "SELECT COUNT(*) FROM trace_events"), BUDGET_TRACE_VCPU);
}

/*
 * A kernel that prints without end fills the host's disk through its
 * console: one a byte over its budget as the guest says hello (a hole:
 * the size is what counts) ends the run there.
 */
static void test_console_flood(void **state)
{
	struct fix *f = *state;
	uint64_t budget = BUDGET_CONSOLE_BASE + SAMPLES * BUDGET_CONSOLE_INTERVAL;
	char path[PATH_MAX];
	FILE *c;

	mkdirs("%s/runs/%lld", f->conf.results, (long long)f->runs[0].id);
	sfmt(path, sizeof(path), "%s/runs/%lld/console.log", f->conf.results,
	     (long long)f->runs[0].id);
	c = fopen(path, "we");
	assert_non_null(c);
	assert_int_equal(ftruncate(fileno(c), (off_t)budget + 1), 0);
	fclose(c);
	drive(f, two_samples, 0);
	assert_guest_failed(f, "console's 9109505 bytes are over the run's budget of 9109504");
	assert_int_equal(query(f, "SELECT COUNT(*) FROM samples"), 0);
}

/* The three changes of 2^62 - 1: refused at the second, the first kept. */
static void test_counter_sum_refused(void **state)
{
	struct fix *f = *state;

	drive(f, sum_over, 0);
	assert_guest_failed(f, "counter 'key7' sums to");
	assert_int_equal(query(f, "SELECT COUNT(*) FROM counters WHERE seq >= 0"), 1);
}

/*
 * Done runs whose stored changes of one key (within the per-value bound, as
 * a database written before the sums were refused may hold) add up past
 * 2^63: `harness vmstat` reads the matrix all the same.
 */
static void test_vmstat_reads_huge_sums(void **state)
{
	static const struct fixture_rates rates = { .ops = 100, .resident = 10 };
	struct fix *f = *state;
	struct proto_counters k = { .at = CA_CHANGE };
	char err[ERR_MAX], *text = NULL;
	size_t len = 0, i;
	FILE *out;
	int rc;

	snprintf(k.src, sizeof(k.src), "vmstat");
	snprintf(k.values.key[0], PROTO_COUNTER_KEY_MAX, "pgbig");
	k.values.value[0] = BIG;
	k.values.n = 1;
	for (i = 0; i < 2; i++) {
		fixture_run(f->s, f->runs[i].id, &rates);
		for (k.seq = 1; k.seq <= 3; k.seq++)
			assert_int_equal(store_counters(f->s, f->runs[i].id, &k, err), 0);
	}
	out = open_memstream(&text, &len);
	assert_non_null(out);
	rc = counter_table(out, f->s, f->mid, "vmstat", NULL, err);
	if (rc == 0)
		rc = counter_table(out, f->s, f->mid, "vmstat", "pgbig", err);
	fclose(out);
	if (rc < 0)
		fail_msg("harness vmstat: %s", err);
	if (!strstr(text, "pgbig") || !strstr(text, "13835058055282163712"))
		fail_msg("the sum is not in:\n%s", text);
	free(text);
}

static int setup(void **state)
{
	static const struct fixture_arm arm = { "a", "6.12", "y", NULL, NULL };
	static const char *const cells[] = { "c" };
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fixture_dir(f->dir, "runner", &f->conf);
	f->s = fixture_store(&f->conf);
	f->m = fixture_matrix("budgets", f->dir, &arm, 1, cells, 1, 2);
	fixture_queue(f->s, f->m, &f->mid, &f->runs);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	int rc;

	store_close(f->s);
	free(f->m);
	free(f->runs);
	rc = fixture_rmdir(f->dir);
	free(f);
	return rc;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_within_budgets_done, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_byte_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counter_sum_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmstat_reads_huge_sums, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);   /* a guest writing to a run that ended */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
