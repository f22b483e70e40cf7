/* swap.c -- the cell's swap made before its workload, one function per kind
 * (a swap file on the data disk, zram, zswap in front of a file), and vm.swappiness. */
#define _GNU_SOURCE
#include "swap.h"
#include "boot.h"
#include "fdio.h"
#include "common/fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/swap.h>
#include <unistd.h>

#define SWAP_MODULES "/etc/modules.swap"   /* images/build.sh: zram and compressors */
#define SWAP_FILE    ".swap"               /* no declared file's name starts with '.' */
#define ZRAM_DIR     "/sys/block/zram0"
#define ZRAM_DEV     "/dev/zram0"
#define ZSWAP_DIR    "/sys/module/zswap/parameters"

struct swap_ctx {
	const struct proto_job *job;
	const char *data_dir;
	char *desc;
	size_t dlen;
	char *err;
	size_t errlen;
};

/*
 * The swap header mkswap(8) writes, in the first page of fd's len bytes:
 * version 1, the last page, no bad pages, a random UUID, "SWAPSPACE2" at
 * the page's end (the kernel's union swap_header).
 */
static int write_header(struct swap_ctx *x, int fd, uint64_t len, const char *what)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint32_t word[3];
	unsigned char *page;
	int rc = 0;

	if (ps < 4096 || (page = calloc(1, (size_t)ps)) == NULL)
		return errorfn(x->err, x->errlen, "swap header for %s: no page", what);
	word[0] = 1;
	word[1] = (uint32_t)(len / (uint64_t)ps - 1);
	word[2] = 0;
	memcpy(page + 1024, word, sizeof(word));
	if (getrandom(page + 1036, 16, 0) != 16)
		memset(page + 1036, 0x5a, 16);
	memcpy(page + 1052, "harness", 7);
	memcpy(page + ps - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, page, (size_t)ps, 0) != ps || fsync(fd) < 0)
		rc = errorfn(x->err, x->errlen, "swap header on %s: %s", what, strerror(errno));
	free(page);
	return rc;
}

/* swapon(2) on path, the header written first to its len bytes. */
static int header_and_swapon(struct swap_ctx *x, const char *path, int fd, uint64_t len)
{
	int rc = write_header(x, fd, len, path);

	close(fd);
	if (rc < 0)
		return -1;
	if (swapon(path, 0) < 0)
		return errorfn(x->err, x->errlen, "swapon '%s': %s", path, strerror(errno));
	return 0;
}

/* A swap file of mib MiB on the data disk (a per-run overlay: made read-write). */
static int swap_file(struct swap_ctx *x)
{
	uint64_t len = x->job->swap.mib << 20;
	char path[4096];
	int fd;

	fmtcut(path, sizeof(path), "%s/" SWAP_FILE, x->data_dir);
	if (mount(NULL, x->data_dir, NULL, MS_REMOUNT | MS_NOATIME, NULL) < 0)
		return errorfn(x->err, x->errlen, "remount '%s' read-write for the swap file: %s",
			       x->data_dir, strerror(errno));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errorfn(x->err, x->errlen, "create '%s': %s", path, strerror(errno));
	if (fallocate(fd, 0, 0, (off_t)len) < 0) {
		close(fd);
		return errorfn(x->err, x->errlen, "fallocate %llu MiB for '%s': %s",
			       (unsigned long long)x->job->swap.mib, path, strerror(errno));
	}
	return header_and_swapon(x, path, fd, len);
}

static int swap_disk(struct swap_ctx *x)
{
	if (swap_file(x) < 0)
		return -1;
	fmtcut(x->desc, x->dlen, "disk %llu MiB", (unsigned long long)x->job->swap.mib);
	return 0;
}

/* The bracketed word of a sysfs choice list ("lzo [lz4] zstd") into out. */
static void chosen(const char *list, char *out, size_t len)
{
	const char *lb = strchr(list, '['), *rb = lb ? strchr(lb, ']') : NULL;

	if (!rb)
		fmtcut(out, len, "%s", list);
	else
		fmtcut(out, len, "%.*s", (int)(rb - lb - 1), lb + 1);
}

/* 1 if word is one of list's words (brackets aside). */
static int listed(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)) != NULL; p += n) {
		int start = p == list || strchr(" [", p[-1]), end = !p[n] || strchr(" ]\n", p[n]);

		if (start && end)
			return 1;
	}
	return 0;
}

/* sysfs file of dir set to val; "unsupported: " when the kernel refuses it. */
static int set_param(struct swap_ctx *x, const char *dir, const char *name, const char *val)
{
	char path[128];
	int e;

	fmtcut(path, sizeof(path), "%s/%s", dir, name);
	if ((e = write_text(path, val)))
		return errorfn(x->err, x->errlen, "%s'%s' written to %s: %s",
			       e == EINVAL || e == ENOENT ? "unsupported: " : "", val, path,
			       strerror(e));
	return 0;
}

static int swap_zram(struct swap_ctx *x)
{
	const char *want = proto_swap_compressors[x->job->swap.compressor];
	uint64_t len = x->job->swap.mib << 20;
	char algs[256], num[32], alg[32];
	int fd, e;

	boot_load_modules(SWAP_MODULES);
	if (access(ZRAM_DIR, F_OK) < 0)
		return errorfn(x->err, x->errlen, "unsupported: zram: " ZRAM_DIR " is missing "
			       "(no zram module in this kernel's image)");
	if ((e = read_text(ZRAM_DIR "/comp_algorithm", algs, sizeof(algs))))
		return errorfn(x->err, x->errlen, "read " ZRAM_DIR "/comp_algorithm: %s",
			       strerror(e));
	if (x->job->swap.compressor && !listed(algs, want))
		return errorfn(x->err, x->errlen, "unsupported: zram has no compressor %s here "
			       "(it has: %s)", want, algs);
	if ((x->job->swap.compressor && set_param(x, ZRAM_DIR, "comp_algorithm", want) < 0))
		return -1;
	fmtcut(num, sizeof(num), "%llu", (unsigned long long)len);
	if (set_param(x, ZRAM_DIR, "disksize", num) < 0)
		return -1;
	if ((fd = open(ZRAM_DEV, O_WRONLY | O_CLOEXEC)) < 0)
		return errorfn(x->err, x->errlen, "open " ZRAM_DEV ": %s", strerror(errno));
	if (header_and_swapon(x, ZRAM_DEV, fd, len) < 0)
		return -1;
	read_text(ZRAM_DIR "/comp_algorithm", algs, sizeof(algs));
	chosen(algs, alg, sizeof(alg));
	fmtcut(x->desc, x->dlen, "zram %s %llu MiB", alg, (unsigned long long)x->job->swap.mib);
	return 0;
}

static int swap_zswap(struct swap_ctx *x)
{
	const struct proto_swap *w = &x->job->swap;
	char comp[32], pool[32], pct[16];

	boot_load_modules(SWAP_MODULES);
	if (access(ZSWAP_DIR "/enabled", F_OK) < 0)
		return errorfn(x->err, x->errlen, "unsupported: zswap: " ZSWAP_DIR " is missing "
			       "(no CONFIG_ZSWAP in this kernel)");
	fmtcut(pct, sizeof(pct), "%llu", (unsigned long long)w->max_pool_percent);
	if ((w->compressor &&
	     set_param(x, ZSWAP_DIR, "compressor", proto_swap_compressors[w->compressor]) < 0) ||
	    (w->zpool && set_param(x, ZSWAP_DIR, "zpool", proto_swap_zpools[w->zpool]) < 0) ||
	    set_param(x, ZSWAP_DIR, "max_pool_percent", pct) < 0 ||
	    set_param(x, ZSWAP_DIR, "enabled", "Y") < 0 || swap_file(x) < 0)
		return -1;
	read_text(ZSWAP_DIR "/compressor", comp, sizeof(comp));
	if (read_text(ZSWAP_DIR "/zpool", pool, sizeof(pool)))
		fmtcut(pool, sizeof(pool), "zsmalloc");   /* 6.12 has no choice of pool */
	fmtcut(x->desc, x->dlen, "zswap %s %s %s%% disk %llu MiB", comp, pool, pct,
	       (unsigned long long)w->mib);
	return 0;
}

static int (*const swap_make[SWAP_COUNT])(struct swap_ctx *) = {
	[SWAP_DISK] = swap_disk,
	[SWAP_ZRAM] = swap_zram,
	[SWAP_ZSWAP] = swap_zswap,
};

int swap_setup(const struct proto_job *job, const char *data_dir, char *desc, size_t dlen,
	       char *err, size_t errlen)
{
	struct swap_ctx x = { job, data_dir, desc, dlen, err, errlen };

	desc[0] = '\0';
	if (job->swap.kind == SWAP_NONE)
		return 0;
	if (job->swap.kind >= SWAP_COUNT || !swap_make[job->swap.kind])
		return errorfn(err, errlen, "job: swap kind %u unknown", job->swap.kind);
	return swap_make[job->swap.kind](&x);
}

int swap_swappiness(uint64_t want, uint64_t *read, char *err, size_t errlen)
{
	char num[32];
	int e;

	if (want != PROTO_SWAPPINESS_KERNEL) {
		fmtcut(num, sizeof(num), "%llu", (unsigned long long)want);
		if ((e = write_text("/proc/sys/vm/swappiness", num)))
			return errorfn(err, errlen, "vm.swappiness %s: %s", num, strerror(e));
	}
	if ((e = read_text("/proc/sys/vm/swappiness", num, sizeof(num))))
		return errorfn(err, errlen, "read vm.swappiness: %s", strerror(e));
	*read = strtoull(num, NULL, 10);
	return 0;
}
