/* swapcheck.h -- whether a kernel can give a cell its swap, told from the
 * kernel's config file before any guest boots. */
#ifndef SWAPCHECK_H
#define SWAPCHECK_H

#include "common/proto.h"

#include <stddef.h>

/*
 * Can the kernel whose config file is config (a Debian package's
 * /boot/config-*, a source arm's .config) make swap w: the kind's
 * CONFIG_ symbol, the compressor (zram's backend from 6.12, else the crypto
 * API's), zswap's pool. 0 yes; 1 no, why says which symbol in one line;
 * -1 the file cannot be read (the guest says at run time).
 */
int swapcheck_config(const struct proto_swap *w, const char *config, char *why, size_t len);

#endif
