/* kconfig.h -- config fragments: the harness's own (what the guest and its
 * agent need, per arch) joined with a user's, and checked after olddefconfig. */
#ifndef KCONFIG_H
#define KCONFIG_H

#include <stddef.h>

/*
 * Write to dst the user's lines (fragment, '\n'-separated, may be "") and then
 * KCONFIG_DIR/common.config and KCONFIG_DIR/ARCH.config, so the harness's
 * requirements come last and win a conflict. -1 with a message if a required
 * file is missing.
 */
int kconfig_write_fragment(const char *kconfig_dir, const char *arch, const char *fragment,
			   const char *dst, char *err);

/*
 * Every setting of the fragment at path must hold in the .config at config:
 * "CONFIG_X=v" as that line, "# CONFIG_X is not set" as X absent or not set.
 * -1 with the first that does not: "CONFIG_X=y did not survive olddefconfig
 * (the .config has CONFIG_X unset)".
 */
int kconfig_check(const char *config, const char *fragment, char *err);

/*
 * The same, but a "CONFIG_X=v" line whose symbol this kernel does not have
 * (defined(arg, "X") returns 0: CACHESTAT_SYSCALL on 6.1) is passed over,
 * its name added to skipped (size bytes, space-separated) for the log.
 */
int kconfig_check_defined(const char *config, const char *fragment,
			  int (*defined)(void *arg, const char *sym), void *arg, char *skipped,
			  size_t size, char *err);

/*
 * A config line by allow-list: CONFIG_[A-Z0-9_]+= y, n, m, [0-9]+ (or -[0-9]+),
 * 0x[0-9a-fA-F]+ or "text", or "# CONFIG_X is not set". The text is printable
 * ASCII without $, `, \ or "; it names no path outside the tree (no word that
 * starts with '/', no ".."), unless the symbol is a path in the guest
 * (CONFIG_CMDLINE, CONFIG_MODPROBE_PATH...); a symbol kbuild reads as a file on
 * the build host (CONFIG_INITRAMFS_SOURCE, CONFIG_EXTRA_FIRMWARE...) is refused
 * by name unless "". 0, or -1 with "expected ..., got 'LINE'" (no field named).
 */
int kconfig_line_check(const char *line, char *err);

/* 1 if kconfig_line_check takes line. */
int kconfig_line_ok(const char *line);

/*
 * Every line of the .config at path that is not blank or a comment passes
 * kconfig_line_check ("# CONFIG_X is not set" is checked too); -1 with
 * "PATH:LINE: expected ...". Read whole, at most 4 MiB, no NUL byte.
 */
int kconfig_file_check(const char *path, char *err);

#endif
