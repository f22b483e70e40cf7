/* oom.c -- a failed workload whose memcg's OOM killer fired, said so: the
 * count and the last victim the kernel's log names (oom.h). */
#define _GNU_SOURCE
#include "oom.h"
#include "common/fmt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#define KLOG_READ_ALL 3      /* SYSLOG_ACTION_READ_ALL */
#define KLOG_SIZE     10     /* SYSLOG_ACTION_SIZE_BUFFER */
#define KLOG_MAX      (1 << 20)
#define KILLED        "Killed process "

int oom_victim_parse(const char *log, size_t len, char *out, size_t outlen)
{
	const char *p = NULL, *q, *end = log + len;
	size_t n = strlen(KILLED), i, pid;
	char comm[32];

	for (q = log; q + n <= end && (q = memmem(q, (size_t)(end - q), KILLED, n)); q += n)
		p = q + n;
	if (!p)
		return -1;
	for (pid = 0; p + pid < end && pid < 10 && p[pid] >= '0' && p[pid] <= '9'; pid++)
		;
	if (!pid || p + pid + 2 > end || p[pid] != ' ' || p[pid + 1] != '(')
		return -1;
	for (i = 0, q = p + pid + 2; q < end && *q != ')' && i + 1 < sizeof(comm); q++)
		comm[i++] = *q >= 0x20 && *q < 0x7f ? *q : '?';
	if (q >= end || *q != ')')
		return -1;
	comm[i] = '\0';
	fmtcut(out, outlen, "%.*s (%s)", (int)pid, p, comm);
	return 0;
}

/* The kernel's log into a new buffer (*len bytes); NULL if it cannot be read. */
static char *read_klog(size_t *len)
{
	int size = klogctl(KLOG_SIZE, NULL, 0), n;
	char *buf;

	if (size <= 0 || size > KLOG_MAX || !(buf = malloc((size_t)size)))
		return NULL;
	n = klogctl(KLOG_READ_ALL, buf, size);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

void oom_explain(uint64_t kills, char *err, size_t errlen)
{
	char was[256], who[64] = "not in the kernel's log";
	size_t len = 0;
	char *log;

	if (!kills)
		return;
	if ((log = read_klog(&len)) != NULL) {
		if (oom_victim_parse(log, len, who, sizeof(who)) < 0)
			fmtcut(who, sizeof(who), "not in the kernel's log");
		free(log);
	}
	fmtcut(was, sizeof(was), "%s", err);
	fmtcut(err, errlen, OOM_PREFIX "the memcg's OOM killer killed %llu task%s, the last %s; "
	       "then: %s", (unsigned long long)kills, kills == 1 ? "" : "s", who, was);
}
