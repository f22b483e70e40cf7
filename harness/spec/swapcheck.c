/* swapcheck.c -- a cell's swap against a kernel's config: the symbols each
 * swap kind, compressor and zswap pool needs, one table each. */
#include "spec/swapcheck.h"
#include "common/fmt.h"

#include <stdio.h>
#include <string.h>

/* The symbol (after CONFIG_ and, for zram from 6.12, ZRAM_BACKEND_) of each
 * of proto_swap_compressors; lzo-rle is lzo's. */
static const char *const comp_symbol[] = { NULL, "LZO", "LZO", "LZ4", "LZ4HC", "ZSTD",
					   "DEFLATE", "842" };
/* of proto_swap_zpools */
static const char *const zpool_symbol[] = { NULL, "ZSMALLOC", "ZBUD", "Z3FOLD" };
/* of the swap kinds; builtin: zswap is a boot-time module parameter, never a module */
static const struct {
	const char *symbol;
	int builtin;
} kind_symbol[SWAP_COUNT] = {
	[SWAP_DISK] = { "SWAP", 1 },
	[SWAP_ZRAM] = { "ZRAM", 0 },
	[SWAP_ZSWAP] = { "ZSWAP", 1 },
};

struct kconf {
	FILE *f;
	int backends;      /* the file has CONFIG_ZRAM_BACKEND_ lines (6.12 and later) */
};

/* sym's value in the config ('y', 'm'), or 0 where it is not set. */
static int value_of(struct kconf *k, const char *sym)
{
	char line[512], want[96];
	size_t n;

	n = (size_t)snprintf(want, sizeof(want), "CONFIG_%s=", sym);
	rewind(k->f);
	while (fgets(line, sizeof(line), k->f))
		if (!strncmp(line, want, n))
			return line[n] == 'y' || line[n] == 'm' ? line[n] : 0;
	return 0;
}

/* 1 if the config has sym set (built in, or as a module unless builtin). */
static int has(struct kconf *k, const char *sym, int builtin)
{
	int v = value_of(k, sym);

	return v == 'y' || (v == 'm' && !builtin);
}

/* 1 if any line starts with prefix. */
static int any_line(struct kconf *k, const char *prefix)
{
	char line[512];

	rewind(k->f);
	while (fgets(line, sizeof(line), k->f))
		if (!strncmp(line, prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* The compressor's symbol for kind (zram from 6.12: its own backends). */
static void comp_needs(const struct kconf *k, const struct proto_swap *w, char *sym, size_t len)
{
	if (w->kind == SWAP_ZRAM && k->backends)
		fmtcut(sym, len, "ZRAM_BACKEND_%s", comp_symbol[w->compressor]);
	else
		fmtcut(sym, len, "CRYPTO_%s", comp_symbol[w->compressor]);
}

int swapcheck_config(const struct proto_swap *w, const char *config, char *why, size_t len)
{
	struct kconf k = { fopen(config, "re"), 0 };
	unsigned fl = proto_swap_kind_flags[w->kind];
	char sym[64];
	int rc = 0;

	if (!k.f)
		return -1;
	k.backends = any_line(&k, "CONFIG_ZRAM_BACKEND_");
	if (!has(&k, "SWAP", 1)) {
		rc = 1;
		fmtcut(why, len, "%s swap needs CONFIG_SWAP=y", proto_swap_kind_names[w->kind]);
	} else if (!has(&k, kind_symbol[w->kind].symbol, kind_symbol[w->kind].builtin)) {
		rc = 1;
		fmtcut(why, len, "%s swap needs CONFIG_%s=%s", proto_swap_kind_names[w->kind],
		       kind_symbol[w->kind].symbol, kind_symbol[w->kind].builtin ? "y" : "y or m");
	} else if ((fl & SWK_COMP) && w->compressor) {
		comp_needs(&k, w, sym, sizeof(sym));
		if (!has(&k, sym, 0) && (rc = 1))
			fmtcut(why, len, "compressor %s needs CONFIG_%s", proto_swap_compressors[w->compressor], sym);
	}
	if (!rc && (fl & SWK_POOL) && w->zpool && !has(&k, zpool_symbol[w->zpool], 0)) {
		rc = 1;
		fmtcut(why, len, "zswap_pool %s needs CONFIG_%s", proto_swap_zpools[w->zpool],
		       zpool_symbol[w->zpool]);
	}
	fclose(k.f);
	return rc;
}
