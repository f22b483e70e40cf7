/* swap.h -- the cell's swap, made in the guest before its workload: a swap
 * file on the data disk, a zram device, or zswap in front of such a file. */
#ifndef SWAP_H
#define SWAP_H

#include "common/proto.h"

#include <stddef.h>

/*
 * The job's swap made and switched on, and what it is, read back from the
 * kernel, into desc ("zram lz4 96 MiB"; "" for none). -1 with err: one that
 * begins "unsupported: " where this kernel cannot (no zram module, a
 * compressor it lacks, no zswap).
 */
int swap_setup(const struct proto_job *job, const char *data_dir, char *desc, size_t dlen,
	       char *err, size_t errlen);

/* vm.swappiness set to want (PROTO_SWAPPINESS_KERNEL: left), then read back. */
int swap_swappiness(uint64_t want, uint64_t *read, char *err, size_t errlen);

#endif
