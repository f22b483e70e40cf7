/* fuzzlib.h -- what the libFuzzer targets share: the input as a C string, and a
 * scratch harness.conf whose images hold fake kernels and whose presets are real. */
#ifndef FUZZLIB_H
#define FUZZLIB_H

#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"

/* The input with a NUL appended (malloc'd; the caller frees it). */
char *fuzz_text(const uint8_t *data, size_t size);

/*
 * A conf over a fresh temporary directory (removed at exit): results/, images/
 * with a kernel alias "6.12" for x86_64 and aarch64 (no fio, so fio streams
 * stop at the "not built" check), and the repository's workloads/presets.
 * Returns 0, or -1 with err.
 */
int fuzz_conf(struct conf *c, char *err);

#endif
