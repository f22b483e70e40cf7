/* test_ycsb.c -- unit tests for guest/ycsb.c: YCSB's zipfian against reference
 * frequencies computed here, scrambled and latest keys, operation mix, names, checks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/proto.h"
#include "guest/ycsb.h"

#define DRAWS 1000000

/* Upper 0.999 quantile of chi-square with df degrees, Wilson-Hilferty. */
static double chi2_critical_999(double df)
{
	const double z = 3.090232306167813;
	double a = 2.0 / (9.0 * df);

	return df * pow(1.0 - a + z * sqrt(a), 3.0);
}

/* zeta(n, theta) summed here, independently of ycsb_zeta. */
static double zeta_ref(uint64_t n, double theta)
{
	double s = 0;
	uint64_t k;

	for (k = n; k >= 1; k--)        /* smallest terms first */
		s += pow((double)k, -theta);
	return s;
}

/*
 * The exact output distribution of Gray et al.'s algorithm as YCSB runs it
 * (n items, constant theta): u below 1/zeta gives 0, below (1 + 0.5^theta)/zeta
 * gives 1, else floor(n (eta u - eta + 1)^(1/(1-theta))), so rank k has the
 * measure of the u that map into [k, k+1).
 */
static double gray_pmf(uint64_t k, uint64_t n, double theta, double zetan)
{
	double eta = (1 - pow(2.0 / (double)n, 1 - theta)) / (1 - (1 + pow(0.5, theta)) / zetan);
	double u1 = (1 + pow(0.5, theta)) / zetan, lo, hi, p = 0;

	if (k == 0)
		p = 1 / zetan;
	else if (k == 1)
		p = pow(0.5, theta) / zetan;
	lo = (pow((double)k / (double)n, 1 - theta) - 1 + eta) / eta;
	hi = (pow((double)(k + 1) / (double)n, 1 - theta) - 1 + eta) / eta;
	lo = lo > u1 ? lo : u1;
	hi = hi < 1 ? hi : 1;
	return p + (hi > lo ? hi - lo : 0);
}

static void test_zipfian_reference(void **state)
{
	const uint64_t n = 1000;
	const double theta = YCSB_ZIPF_CONSTANT;
	double zetan = zeta_ref(n, theta), chi = 0, e, tail_e = 0, exact;
	uint64_t *cnt = calloc(n + 1, sizeof(*cnt)), i, v, tail_o = 0;
	struct ycsb_zipf z;
	struct rng r;
	int cells = 0;

	(void)state;
	assert_non_null(cnt);
	assert_true(fabs(ycsb_zeta(0, n, theta, 0) - zetan) < 1e-9);
	ycsb_zipf_init(&z, 0, n, theta, 0);
	rng_seed(&r, 42, 0);
	for (i = 0; i < DRAWS; i++) {
		v = ycsb_zipf_next(&z, &r, n);
		assert_true(v <= n);
		cnt[v]++;
	}
	for (i = 0; i <= n; i++) {
		e = DRAWS * gray_pmf(i, n, theta, zetan);
		if (e < 5) {
			tail_e += e;
			tail_o += cnt[i];
			continue;
		}
		chi += (cnt[i] - e) * (cnt[i] - e) / e;
		cells++;
	}
	if (tail_e > 0) {
		chi += (tail_o - tail_e) * (tail_o - tail_e) / tail_e;
		cells++;
	}
	assert_true(chi < chi2_critical_999(cells - 1));
	/* against the exact zipf pmf: ranks 0 and 1 exact, the next ones close */
	for (i = 0; i < 2; i++) {
		exact = pow((double)(i + 1), -theta) / zetan;
		assert_true(fabs(cnt[i] / (double)DRAWS - exact) < 0.003);
	}
	for (i = 2; i < 10; i++) {
		exact = pow((double)(i + 1), -theta) / zetan;
		assert_true(fabs(cnt[i] / (double)DRAWS / exact - 1) < 0.35);
	}
	free(cnt);
}

/* Scrambled: every key in range, popular keys spread, the hottest as often as rank 0. */
static void test_scrambled(void **state)
{
	const uint64_t items = 10000;
	uint64_t *cnt = calloc(items, sizeof(*cnt)), i, v, distinct = 0, top = 0, lowhalf = 0;
	struct ycsb_zipf z;
	struct rng r;

	(void)state;
	assert_non_null(cnt);
	ycsb_scrambled_init(&z);
	rng_seed(&r, 7, 1);
	for (i = 0; i < DRAWS; i++) {
		v = ycsb_scrambled_next(&z, &r, 0, items);
		assert_true(v < items);
		cnt[v]++;
	}
	for (i = 0; i < items; i++) {
		distinct += cnt[i] > 0;
		top = cnt[i] > top ? cnt[i] : top;
		lowhalf += i < items / 2 ? cnt[i] : 0;
	}
	/* rank 0 of a 10^16-item zipf has 1/ZETAN; fnvhash64(0) % items takes it all */
	assert_true(top >= DRAWS / YCSB_SCRAMBLED_ZETAN * 0.95);
	assert_int_equal(cnt[ycsb_fnvhash64(0) % items], top);
	assert_true(distinct > items / 2);
	assert_true(lowhalf > DRAWS * 0.4 && lowhalf < DRAWS * 0.6);
	free(cnt);
}

/* Latest: the newest key is the hottest, nothing beyond the last acknowledged key. */
static void test_latest(void **state)
{
	static struct ycsb_keyseq seq;
	struct proto_stream st = { .requestdistribution = YDIST_LATEST, .readproportion = 1 };
	uint64_t cnt[1000] = { 0 }, i, v, n = 1000;
	struct ycsb_mix m;
	struct ycsb_gen g;
	double zetan = zeta_ref(n - 1, YCSB_ZIPF_CONSTANT);

	(void)state;
	ycsb_keyseq_init(&seq, n);
	ycsb_mix_init(&m, &st, n);
	ycsb_gen_init(&g, &m, &seq, 3, 0);
	for (i = 0; i < DRAWS / 10; i++) {
		v = ycsb_next_keynum(&g);
		assert_true(v < n);
		cnt[v]++;
	}
	/* max - zipf: rank 0 is key 999, rank 1 key 998 */
	assert_true(fabs(cnt[999] / (DRAWS / 10.0) - 1 / zetan) < 0.01);
	assert_true(cnt[999] > cnt[998] && cnt[998] > cnt[500]);
	/* an insert makes key 1000 the newest once acknowledged */
	assert_int_equal(ycsb_keyseq_take(&seq), 1000);
	assert_int_equal(ycsb_keyseq_last(&seq), 999);
	assert_int_equal(ycsb_keyseq_ack(&seq, 1000), 0);
	assert_int_equal(ycsb_keyseq_last(&seq), 1000);
}

/* Acknowledgements out of order move the limit only over contiguous keys. */
static void test_keyseq_order(void **state)
{
	static struct ycsb_keyseq seq;

	(void)state;
	ycsb_keyseq_init(&seq, 100);
	assert_int_equal(ycsb_keyseq_take(&seq), 100);
	assert_int_equal(ycsb_keyseq_take(&seq), 101);
	assert_int_equal(ycsb_keyseq_take(&seq), 102);
	assert_int_equal(ycsb_keyseq_ack(&seq, 102), 0);
	assert_int_equal(ycsb_keyseq_last(&seq), 99);
	assert_int_equal(ycsb_keyseq_ack(&seq, 100), 0);
	assert_int_equal(ycsb_keyseq_last(&seq), 100);
	assert_int_equal(ycsb_keyseq_ack(&seq, 101), 0);
	assert_int_equal(ycsb_keyseq_last(&seq), 102);
	assert_int_equal(ycsb_keyseq_ack(&seq, 100 + YCSB_ACK_WINDOW * 2), -1);
}

static void test_uniform_keys(void **state)
{
	static struct ycsb_keyseq seq;
	struct proto_stream st = { .requestdistribution = YDIST_UNIFORM, .readproportion = 1 };
	struct ycsb_mix m;
	struct ycsb_gen g;
	uint64_t i, lo = 0;

	(void)state;
	ycsb_keyseq_init(&seq, 500);
	ycsb_mix_init(&m, &st, 500);
	ycsb_gen_init(&g, &m, &seq, 5, 0);
	for (i = 0; i < 100000; i++)
		lo += ycsb_next_keynum(&g) < 250;
	assert_true(lo > 48500 && lo < 51500);
}

/* Workload a (0.5 read, 0.5 update) and a five-way mix: shares within 0.5 %. */
static void test_operation_mix(void **state)
{
	struct proto_stream st = {
		.readproportion = 0.5, .updateproportion = 0.5,
	};
	struct proto_stream five = {
		.readproportion = 0.1, .updateproportion = 0.2, .insertproportion = 0.3,
		.scanproportion = 0.25, .readmodifywriteproportion = 0.15,
	};
	const double want[] = { 0.1, 0.2, 0.3, 0.25, 0.15 };
	uint64_t cnt[OP_COUNT] = { 0 }, i;
	struct ycsb_mix m;
	struct rng r;
	unsigned op;

	(void)state;
	ycsb_mix_init(&m, &st, 1000);
	rng_seed(&r, 1, 1);
	for (i = 0; i < DRAWS; i++)
		cnt[ycsb_pick_op(&m, &r)]++;
	assert_true(fabs(cnt[OP_READ] / (double)DRAWS - 0.5) < 0.005);
	assert_int_equal(cnt[OP_READ] + cnt[OP_UPDATE], DRAWS);
	memset(cnt, 0, sizeof(cnt));
	ycsb_mix_init(&m, &five, 1000);
	for (i = 0; i < DRAWS; i++)
		cnt[ycsb_pick_op(&m, &r)]++;
	for (op = OP_READ; op <= OP_RMW; op++)
		assert_true(fabs(cnt[op] / (double)DRAWS - want[op]) < 0.005);
	assert_int_equal(cnt[OP_RECLAIM], 0);
}

/* YCSB's key names: "user" + FNV-1a-64 of the keynum's 8 bytes, made non-negative. */
static void test_key_names(void **state)
{
	char key[YCSB_KEY_MAX], want[YCSB_KEY_MAX];
	uint64_t k, h, v;
	int b;

	(void)state;
	for (k = 0; k < 1000; k += 37) {
		h = UINT64_C(14695981039346656037);
		for (v = k, b = 0; b < 8; b++, v >>= 8)
			h = (h ^ (v & 0xff)) * UINT64_C(1099511628211);
		if (h >> 63)
			h = -h;
		snprintf(want, sizeof(want), "user%llu", (unsigned long long)h);
		ycsb_key(k, 0, key, sizeof(key));
		assert_string_equal(key, want);
	}
	/* the first key of every YCSB load */
	ycsb_key(0, 0, key, sizeof(key));
	assert_string_equal(key, "user6284781860667377211");
	ycsb_key(42, 1, key, sizeof(key));
	assert_string_equal(key, "user42");
}

static void test_records(void **state)
{
	size_t n = ycsb_record_bytes(10, 100);
	char *rec = malloc(n), *copy = malloc(n);
	struct rng r;
	size_t i, diff = 0;

	(void)state;
	assert_int_equal(n, 10 * (8 + 6 + 100));
	rng_seed(&r, 9, 9);
	assert_int_equal(ycsb_record(&r, 10, 100, rec), n);
	assert_int_equal(ycsb_record_fields(rec, n), 10);
	for (i = 0; i < n; i++)
		assert_true(rec[i] >= 0 && rec[i] < 127);
	memcpy(copy, rec, n);
	assert_int_equal(ycsb_record_set(&r, rec, n, 3, 100), 0);
	for (i = 0; i < n; i++)
		diff += rec[i] != copy[i];
	assert_true(diff > 50 && diff <= 100);
	assert_int_equal(ycsb_record_set(&r, rec, n, 10, 100), -1);
	assert_int_equal(ycsb_record_fields(rec, n - 1), -1);
	free(rec);
	free(copy);
}

/* A job as a matrix gives it; returns proto_job_from_json's result, err filled. */
static int job_from(const char *text, struct proto_job *job, char *err)
{
	json_t *j = json_loads(text, 0, NULL);
	int rc;

	assert_non_null(j);
	rc = proto_job_from_json(j, job, "m.json: workloads[0]", err, 256);
	json_decref(j);
	return rc;
}

#define DB  "\"databases\": [{\"recordcount\": 1000}]"

static void test_properties(void **state)
{
	static struct proto_job job;
	char err[256];

	(void)state;
	assert_int_equal(job_from("{" DB ", \"streams\": [{\"kind\": \"ycsb\", \"readproportion\": 0.5,"
				  " \"updateproportion\": 0.5, \"requestdistribution\": \"zipfian\","
				  " \"threadcount\": 4}]}", &job, err), 0);
	assert_int_equal(job.ndbs, 1);
	assert_string_equal(job.dbs[0].name, "ycsb");
	assert_int_equal(job.dbs[0].fieldcount, 10);
	assert_int_equal(job.dbs[0].fieldlength, 100);
	assert_int_equal(job.streams[0].threadcount, 4);
	assert_int_equal(proto_stream_ops(&job.streams[0]), 1u << OP_READ | 1u << OP_UPDATE);
	assert_int_equal(proto_job_db(&job, &job.streams[0]), 0);

	assert_int_equal(job_from("{" DB ", \"streams\": [{\"kind\": \"ycsb\", \"requestdistrib\":"
				  " \"zipfian\"}]}", &job, err), -1);
	assert_string_equal(err, "m.json: workloads[0].streams[0]: unknown key 'requestdistrib'");
	assert_int_equal(job_from("{" DB ", \"streams\": [{\"kind\": \"ycsb\", \"readproportion\": 0.5,"
				  " \"updateproportion\": 0.4}]}", &job, err), -1);
	assert_string_equal(err, "m.json: workloads[0].streams[0]: readproportion + "
			    "updateproportion + insertproportion + scanproportion + "
			    "readmodifywriteproportion is 0.9, expected 1");
	assert_int_equal(job_from("{" DB ", \"streams\": [{\"kind\": \"ycsb\", \"db\": \"x\"}]}",
				  &job, err), -1);
	assert_string_equal(err, "m.json: workloads[0].streams[0].db: 'x' is not a declared database");
	assert_int_equal(job_from("{" DB ", \"streams\": [{\"kind\": \"ycsb\", \"minscanlength\": 10,"
				  " \"maxscanlength\": 5}]}", &job, err), -1);
	assert_non_null(strstr(err, "minscanlength: 10 is above maxscanlength 5"));
	assert_int_equal(job_from("{\"databases\": [{\"fieldcount\": 3}], \"streams\": [{\"kind\":"
				  " \"ycsb\"}]}", &job, err), -1);
	assert_string_equal(err, "m.json: workloads[0].databases[0]: 'recordcount' is required");
	assert_int_equal(job_from("{" DB ", \"streams\": [{\"kind\": \"ycsb\", \"requestdistribution\":"
				  " \"hotspot\"}]}", &job, err), -1);
	assert_non_null(strstr(err, "expected one of uniform, zipfian, latest"));
	/* a random stream still needs files */
	assert_int_equal(job_from("{\"streams\": [{\"kind\": \"ycsb\"}]}", &job, err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zipfian_reference),
		cmocka_unit_test(test_scrambled),
		cmocka_unit_test(test_latest),
		cmocka_unit_test(test_keyseq_order),
		cmocka_unit_test(test_uniform_keys),
		cmocka_unit_test(test_operation_mix),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_properties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
