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

/* 1 if line is a fragment line kconfig_check understands (see kbuild.h). */
int kconfig_line_ok(const char *line);

#endif
