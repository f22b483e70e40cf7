/* bench_sampler.c -- what one sampling interval costs the guest agent: two 512 MiB
 * files' residency by cachestat(2) against windowed mincore(2); the LRU's texts
 * parsed; the swap readings and monitors (vmstat, events, pressure, kswapd); the
 * named counters (all of /proc/vmstat, its changes, their messages). */
#include "guest/counters.h"
#include "guest/sampler.h"
#include "common/proto.h"
#include "common/psi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FILE_MIB 512
#define ROUNDS   40
#define LRU_ROUNDS 200
#define FULL_612 "tests/data/lru_gen_full-6.12-aged.txt"   /* real, two nodes */
#define STAT_612 "tests/data/memory.stat-6.12-mglru.txt"
#define EVENTS_612 "tests/data/memory.events-6.12-classic.txt"
#define PRESSURE_612 "tests/data/memory.pressure-6.12-classic.txt"
#define MON_ROUNDS 2000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A file of mib MiB, the first half of it read into the page cache. */
static int make_file(const char *path, unsigned mib)
{
	static char buf[1 << 20];
	unsigned i;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < mib; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (i = 0; i < mib / 2; i++)
		if (pread(fd, buf, sizeof(buf), (off_t)i << 20) < 0)
			return -1;
	close(fd);
	return 0;
}

/* Seconds per interval (memory.stat + both files' residency), and pages seen. */
static double bench(const char *dir, char *const files[], int cachestat, uint64_t *pages)
{
	struct sampler smp;
	struct sampler_reading r;
	char err[256];
	double t0;
	int i;

	if (sampler_open(&smp, dir, "/bench", files, 2, cachestat, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	t0 = now_s();
	for (i = 0; i < ROUNDS; i++)
		if (sampler_read(&smp, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench: %s\n", err);
			exit(1);
		}
	*pages = r.resident.v[0] + r.resident.v[1];
	sampler_close(&smp);
	return (now_s() - t0) / ROUNDS;
}

/* The whole of path (a capture in tests/data, run from the checkout's top). */
static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(SAMPLER_GEN_MAX);
	size_t n;

	if (!f || !buf) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	n = fread(buf, 1, SAMPLER_GEN_MAX - 1, f);
	fclose(f);
	buf[n] = '\0';
	*ret_len = n;
	return buf;
}

/*
 * lru_gen_full as a guest with nmemcgs memcgs prints it: the capture's memcg
 * /t (two nodes, four generations, four tiers each) again and again under
 * other ids and paths, ours ("/harness") last, so every memcg is parsed.
 */
static size_t synth_full(char *out, size_t cap, const char *block, unsigned nmemcgs)
{
	size_t len = 0;
	unsigned i;
	int n;

	for (i = 0; i < nmemcgs; i++) {
		if (i + 1 == nmemcgs)
			n = snprintf(out + len, cap - len, "memcg %5u /harness\n%s", i + 2, block);
		else
			n = snprintf(out + len, cap - len, "memcg %5u /m%u\n%s", i + 2, i, block);
		if (n < 0 || (size_t)n >= cap - len) {
			fprintf(stderr, "bench: %u memcgs do not fit %d bytes\n", nmemcgs, SAMPLER_GEN_MAX);
			exit(1);
		}
		len += (size_t)n;
	}
	return len;
}

/*
 * Seconds per interval of the agent's LRU work on text: memory.stat parsed,
 * lru_gen_full parsed down to our memcg, one PROTO_LRU a node formatted.
 */
static double bench_lru(const char *text, size_t len, const char *stat, size_t slen,
			unsigned *nodes)
{
	static struct lrugen_memcg m;
	static struct proto_msg msg = { .type = PROTO_LRU };
	static char line[PROTO_LINE_MAX];
	struct sampler_reading r;
	char err[256];
	double t0;
	unsigned i, k;

	memset(&r, 0, sizeof(r));
	t0 = now_s();
	for (k = 0; k < LRU_ROUNDS; k++) {
		if (sampler_parse_stat(stat, slen, &r, err, sizeof(err)) < 0 ||
		    sampler_parse_lru(text, len, 1, "/harness", &m, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench: %s\n", err);
			exit(1);
		}
		if (!r.gen_valid) {
			fprintf(stderr, "bench: no /harness in the text\n");
			exit(1);
		}
		for (i = 0; i < r.lru_nodes; i++) {
			sampler_lru_msg(&m, i, k, &msg.u.lru);
			if (proto_format(&msg, line, sizeof(line)) < 0) {
				fprintf(stderr, "bench: a node's PROTO_LRU does not fit a line\n");
				exit(1);
			}
		}
	}
	*nodes = r.lru_nodes;
	return (now_s() - t0) / LRU_ROUNDS;
}

/* The LRU's share of an interval: 1, 16, 128 and 512 memcgs in lru_gen_full. */
static void lru_costs(void)
{
	static const unsigned counts[] = { 1, 16, 128, 512 };
	char *cap, *stat, *text, *block;
	size_t clen, slen, len;
	unsigned c, nodes = 0;
	double t;

	cap = slurp(FULL_612, &clen);
	stat = slurp(STAT_612, &slen);
	block = strstr(cap, "memcg     2 /t\n");
	text = malloc(SAMPLER_GEN_MAX);
	if (!block || !text) {
		fprintf(stderr, "bench: %s has no memcg /t\n", FULL_612);
		exit(1);
	}
	block += strlen("memcg     2 /t\n");
	printf("LRU, per interval: memory.stat and lru_gen_full (6.12 capture, memcg of %zu bytes)"
	       " parsed, a PROTO_LRU a node, %d intervals each:\n", clen - (size_t)(block - cap),
	       LRU_ROUNDS);
	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		len = synth_full(text, SAMPLER_GEN_MAX, block, counts[c]);
		t = bench_lru(text, len, stat, slen, &nodes);
		printf("  %3u memcgs (%7zu bytes): %8.1f us per interval, %5.3f %% of a CPU at 1 s"
		       " (%u nodes sent)\n", counts[c], len, t * 1e6, t * 100, nodes);
	}
	free(text);
	free(stat);
	free(cap);
}

/* The whole of an open file from offset 0 into buf (at most len - 1 bytes); its length. */
static size_t read_all(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0) {
		fprintf(stderr, "bench: read: %s\n", strerror(errno));
		exit(1);
	}
	buf[n] = '\0';
	return (size_t)n;
}

/* The pid of the host's first kswapd thread, as text, or exit. */
static void kswapd_stat_path(char *path, size_t len)
{
	char comm[64], p[64];
	FILE *f;
	int pid;

	for (pid = 2; pid < 4096; pid++) {
		snprintf(p, sizeof(p), "/proc/%d/comm", pid);
		if (!(f = fopen(p, "re")))
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kswapd", 6)) {
			fclose(f);
			snprintf(path, len, "/proc/%d/stat", pid);
			return;
		}
		fclose(f);
	}
	fprintf(stderr, "bench: no kswapd thread found\n");
	exit(1);
}

/* A capture written into dir/name, as the memcg's file the sampler opens; -1 on failure. */
static int copy_capture(const char *capture, const char *dir, const char *name)
{
	char path[300];
	size_t len;
	char *text = slurp(capture, &len);
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	rc = fd < 0 || write(fd, text, len) != (ssize_t)len ? -1 : 0;
	if (fd >= 0 && close(fd) < 0)
		rc = -1;
	free(text);
	return rc;
}

/* A message formatted as the channel would send it, and dropped. */
static int format_only(void *arg, const struct proto_msg *m)
{
	static char line[PROTO_LINE_MAX + 2];

	(void)arg;
	return proto_format(m, line, sizeof(line)) > 0 ? 0 : -1;
}

/*
 * What the named counters add to an interval: all of /proc/vmstat (the
 * text the sampler read) parsed, its changes found, their messages
 * formatted (zram and zswap where the host has them; the stall tracing
 * off). Against memory.stat's read and parse (tstat).
 */
static void counter_costs(int fv, char *vm, size_t cap, double tstat)
{
	static struct counters c;
	static struct stalls st;
	struct proto_sample smp;
	char err[256];
	double t0, t;
	size_t vlen;
	int i;

	stalls_init(&st);
	vlen = read_all(fv, vm, cap);
	if (counters_open(&c, &st, vm, vlen, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	t0 = now_s();
	for (i = 0; i < MON_ROUNDS; i++) {
		vlen = read_all(fv, vm, cap);
		if (counters_read(&c, vm, vlen, &smp, err, sizeof(err)) < 0 ||
		    counters_send(&c, (uint64_t)i, format_only, NULL, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench: %s\n", err);
			exit(1);
		}
	}
	t = (now_s() - t0) / MON_ROUNDS;
	printf("named counters, per interval: /proc/vmstat read, every key parsed, changes"
	       " sent %.1f us (%.2fx memory.stat's)\n", t * 1e6, t / tstat);
	counters_close(&c);
}

/*
 * What the swap readings and monitors add to an interval: /proc/vmstat,
 * memory.events (a capture: the host has no memcg of ours), memory.pressure
 * (a capture) and /proc/pressure/memory, and one kswapd's stat, each read
 * and parsed as the agent does. Against memory.stat's read and parse alone.
 */
static void monitor_costs(const char *stat_path)
{
	static char vm[65536], ev[4096], pr[512], sp[512], ks[1024], st[SAMPLER_STAT_MAX + 1];
	char err[256], kpath[64];
	struct sampler_reading r;
	struct psi p;
	uint64_t ticks;
	double t0, tstat, tmon;
	size_t elen, plen;
	int fv, fs, fk, fst, i;
	char *e = slurp(EVENTS_612, &elen), *m = slurp(PRESSURE_612, &plen);

	kswapd_stat_path(kpath, sizeof(kpath));
	fv = open("/proc/vmstat", O_RDONLY);
	fs = open("/proc/pressure/memory", O_RDONLY);
	fk = open(kpath, O_RDONLY);
	fst = open(stat_path, O_RDONLY);
	if (fv < 0 || fk < 0 || fst < 0) {
		fprintf(stderr, "bench: open: %s\n", strerror(errno));
		exit(1);
	}
	memset(&r, 0, sizeof(r));
	t0 = now_s();
	for (i = 0; i < MON_ROUNDS; i++) {
		size_t n = read_all(fst, st, sizeof(st));

		if (sampler_parse_stat(st, n, &r, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench: %s\n", err);
			exit(1);
		}
	}
	tstat = (now_s() - t0) / MON_ROUNDS;
	t0 = now_s();
	for (i = 0; i < MON_ROUNDS; i++) {
		size_t vlen = read_all(fv, vm, sizeof(vm));

		memcpy(ev, e, elen + 1);
		memcpy(pr, m, plen + 1);
		if (sampler_parse_swap(vm, vlen, ev, elen, NULL, &r, err, sizeof(err)) < 0 ||
		    psi_parse(pr, plen, &p, err, sizeof(err)) < 0 ||
		    (fs >= 0 && psi_parse(sp, read_all(fs, sp, sizeof(sp)), &p, err, sizeof(err)) < 0) ||
		    sampler_parse_task_stat(ks, read_all(fk, ks, sizeof(ks)), &ticks, err,
					    sizeof(err)) < 0) {
			fprintf(stderr, "bench: %s\n", err);
			exit(1);
		}
	}
	tmon = (now_s() - t0) / MON_ROUNDS;
	printf("monitors, per interval (%d rounds): memory.stat read and parsed %.1f us;"
	       " /proc/vmstat, memory.events, two pressure files and kswapd's stat %.1f us"
	       " (%.2fx)\n", MON_ROUNDS, tstat * 1e6, tmon * 1e6, tmon / tstat);
	counter_costs(fv, vm, sizeof(vm), tstat);
	close(fv);
	if (fs >= 0)
		close(fs);
	close(fk);
	close(fst);
	free(e);
	free(m);
}

int main(int argc, char **argv)
{
	char dir[] = "/var/tmp/bench_sampler.XXXXXX", stat[300], f0[300], f1[300];
	char *files[2] = { f0, f1 }, *memory_stat;
	uint64_t pc = 0, pm = 0;
	size_t slen;
	double tc, tm;
	int fd;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	snprintf(stat, sizeof(stat), "%s/memory.stat", dir);
	snprintf(f0, sizeof(f0), "%s/a", dir);
	snprintf(f1, sizeof(f1), "%s/b", dir);
	memory_stat = slurp(STAT_612, &slen);
	fd = open(stat, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, memory_stat, slen) < 0 || close(fd) < 0 ||
	    copy_capture(EVENTS_612, dir, "memory.events") < 0 ||
	    copy_capture(PRESSURE_612, dir, "memory.pressure") < 0 ||
	    make_file(f0, FILE_MIB) < 0 || make_file(f1, FILE_MIB) < 0)
		return perror("bench setup"), 1;
	fd = open(f0, O_RDONLY);
	if (!sampler_cachestat_works(fd)) {
		fprintf(stderr, "bench: this kernel has no cachestat(2); only mincore measured\n");
		tc = 0;
	} else {
		tc = bench(dir, files, 1, &pc);
	}
	close(fd);
	tm = bench(dir, files, 0, &pm);
	printf("sampler, 2 x %d MiB files (half cached), %d intervals each:\n", FILE_MIB, ROUNDS);
	printf("  cachestat: %8.1f us per interval (%llu pages resident)\n", tc * 1e6,
	       (unsigned long long)pc);
	printf("  mincore:   %8.1f us per interval (%llu pages resident)\n", tm * 1e6,
	       (unsigned long long)pm);
	if (tc > 0)
		printf("  mincore / cachestat = %.1fx\n", tm / tc);
	monitor_costs(stat);
	unlink(f0);
	unlink(f1);
	unlink(stat);
	snprintf(stat, sizeof(stat), "%s/memory.events", dir);
	unlink(stat);
	snprintf(stat, sizeof(stat), "%s/memory.pressure", dir);
	unlink(stat);
	rmdir(dir);
	free(memory_stat);
	lru_costs();
	return 0;
}
