/* oom.h -- a workload's end told as the OOM killer's doing: the memcg's
 * oom_kill count over the run and the victim the kernel's log names. */
#ifndef OOM_H
#define OOM_H

#include <stddef.h>
#include <stdint.h>

#define OOM_PREFIX "oom: "   /* the error an OOM'd run ends with; the host's status */

/*
 * The last "Killed process PID (COMM)" of a kernel log text into out as
 * "PID (COMM)", COMM cut to printable characters; 0, or -1 if there is none.
 */
int oom_victim_parse(const char *log, size_t len, char *out, size_t outlen);

/*
 * err (why the workload failed) rewritten as the OOM killer's doing when the
 * memcg's oom_kill count grew by kills during the run: "oom: the memcg's OOM
 * killer killed N task(s), the last PID (COMM); then: <what failed>". The
 * victim is read from the kernel's log (klogctl); a log without it says so.
 */
void oom_explain(uint64_t kills, char *err, size_t errlen);

#endif
