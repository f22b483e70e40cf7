/* bench_sampler.c -- what one sampling interval costs the guest agent: two
 * 512 MiB files tracked, residency by cachestat(2) against windowed mincore(2). */
#include "guest/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FILE_MIB 512
#define ROUNDS   40

static const char memory_stat[] =
	"anon 1048576\nfile 536870912\nkernel 4194304\npgfault 1000\npgmajfault 10\n"
	"pgscan 5\npgsteal 4\nworkingset_refault_anon 0\nworkingset_refault_file 7\n"
	"workingset_activate_anon 0\nworkingset_activate_file 3\n"
	"workingset_restore_anon 0\nworkingset_restore_file 1\n";

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

int main(int argc, char **argv)
{
	char dir[] = "/var/tmp/bench_sampler.XXXXXX", stat[300], f0[300], f1[300];
	char *files[2] = { f0, f1 };
	uint64_t pc = 0, pm = 0;
	double tc, tm;
	int fd;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	snprintf(stat, sizeof(stat), "%s/memory.stat", dir);
	snprintf(f0, sizeof(f0), "%s/a", dir);
	snprintf(f1, sizeof(f1), "%s/b", dir);
	fd = open(stat, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, memory_stat, strlen(memory_stat)) < 0 || close(fd) < 0 ||
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
	unlink(f0);
	unlink(f1);
	unlink(stat);
	rmdir(dir);
	return 0;
}
