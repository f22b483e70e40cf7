/* fioargs.c -- split, check and complete fio command lines and job files, the
 * same rules on the host (before any guest boots) and in the guest agent. */
#include "common/fioargs.h"
#include "common/proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Options the user may not give, with why. fio's getopt_long_only also takes
 * any unambiguous abbreviation (--directo=/x is --directory), so a name that
 * is a prefix of one of these is refused too. */
static const struct {
	const char *name;
	const char *why;
} forbidden[] = {
	{ "output",          "the harness sets it" },
	{ "output-format",   "the harness sets it" },
	{ "status-interval", "the harness sets it" },
	{ "directory",       "the harness sets it" },
	{ "exec_prerun",     "it runs a program outside the workload" },
	{ "exec_postrun",    "it runs a program outside the workload" },
	{ "trigger",         "it runs a program outside the workload" },
	{ "trigger-file",    "it runs a program outside the workload" },
	{ "trigger-timeout", "it runs a program outside the workload" },
	{ "trigger-remote",  "it runs a program outside the workload" },
	{ "server",          "fio runs standalone in the guest" },
	{ "server-internal", "fio runs standalone in the guest" },
	{ "client",          "fio runs standalone in the guest" },
	{ "remote-config",   "fio runs standalone in the guest" },
	{ "daemonize",       "fio runs standalone in the guest" },
	{ "pidfile",         "fio runs standalone in the guest" },
	{ "write_bw_log",    "it logs to files the harness does not collect" },
	{ "write_lat_log",   "it logs to files the harness does not collect" },
	{ "write_iops_log",  "it logs to files the harness does not collect" },
	{ "write_hist_log",  "it logs to files the harness does not collect" },
	{ "write_iolog",     "it logs to files the harness does not collect" },
	{ "latency-log",     "it logs to files the harness does not collect" },
	{ "bandwidth-log",   "it logs to files the harness does not collect" },
	{ "aux-path",        "it writes outside the data directory" },
	{ "cgroup",          "the harness puts the workload in its memory cgroup" },
	{ "cgroup_weight",   "the harness puts the workload in its memory cgroup" },
	{ "cgroup_nodelete", "the harness puts the workload in its memory cgroup" },
	{ "enghelp",         "it loads an engine, and a path names a shared object to load" },
};

/* Real fio options that are prefixes of a forbidden one: exact use is fine. */
static const char *const allowed_exact[] = { "direct" };

/* Options whose value is a path (or a job name, which names the default file). */
static const struct {
	const char *name;
	int is_name;      /* job name: no '/' at all */
} path_opts[] = {
	{ "filename", 0 }, { "filename_format", 0 }, { "opendir", 0 }, { "name", 1 },
};


static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* NAME (NLEN bytes, as given) equals FULL or abbreviates it. */
static int abbreviates(const char *name, size_t nlen, const char *full)
{
	return nlen > 0 && nlen <= strlen(full) && strncmp(name, full, nlen) == 0;
}

void fioargs_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

static int check_text(const char *text, size_t max, const char *what, char *err, size_t errlen)
{
	size_t n = strnlen(text, max + 1);

	if (n > max)
		return proto_errf(err, errlen, "%s: longer than %zu bytes", what, max);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (!is_space((char)c) && (c < 0x20 || c > 0x7e))
			return proto_errf(err, errlen, "%s: byte %zu is not printable ASCII", what, i);
	}
	return 0;
}

int fioargs_split(const char *text, char ***ret_argv, int *ret_argc, char *err, size_t errlen)
{
	char **argv;
	int argc = 0;

	if (check_text(text, FIOARGS_TEXT_MAX, "fio arguments", err, errlen) < 0)
		return -1;
	argv = calloc(FIOARGS_MAX + 1, sizeof(*argv));
	if (!argv)
		return proto_errf(err, errlen, "fio arguments: out of memory");
	for (const char *p = text; *p;) {
		size_t n = 0;

		while (is_space(*p))
			p++;
		while (p[n] && !is_space(p[n]))
			n++;
		if (n == 0)
			break;
		if (argc == FIOARGS_MAX || n > FIOARGS_ARG_MAX) {
			fioargs_free(argv);
			return proto_errf(err, errlen, argc == FIOARGS_MAX ? "fio arguments: more than %d"
				    : "fio arguments: argument %d longer than 256 bytes",
				    argc == FIOARGS_MAX ? FIOARGS_MAX : argc + 1);
		}
		argv[argc] = strndup(p, n);
		if (!argv[argc++]) {
			fioargs_free(argv);
			return proto_errf(err, errlen, "fio arguments: out of memory");
		}
		p += n;
	}
	*ret_argv = argv;
	*ret_argc = argc;
	return 0;
}

/* A path value must stay under the data directory: relative, no "..", no
 * "${" (job files expand environment variables), no absolute ':'-separated part. */
static int check_path(const char *opt, const char *val, int is_name, char *err, size_t errlen)
{
	if (is_name && strchr(val, '/'))
		return proto_errf(err, errlen, "option '--%s': job name '%s' must not contain '/'", opt, val);
	if (strstr(val, ".."))
		return proto_errf(err, errlen, "option '--%s': path '%s' must not contain '..'", opt, val);
	if (strstr(val, "${"))
		return proto_errf(err, errlen, "option '--%s': path '%s' must not use ${...}", opt, val);
	for (const char *p = val; p; p = strchr(p, ':')) {
		if (*p == ':')
			p++;
		if (*p == '/')
			return proto_errf(err, errlen, "option '--%s': path '%s' must be relative", opt, val);
	}
	return 0;
}

/*
 * An I/O engine must be one of fio's own: "external:PATH" or a PATH makes fio
 * dlopen() that file, and the host's fio does so even with --parse-only.
 */
static int check_engine(const char *val, char *err, size_t errlen)
{
	if (strchr(val, '/') || !strncmp(val, "external", 8))
		return proto_errf(err, errlen, "option '--ioengine': '%s' would load a shared "
				  "object: only fio's built-in engines", val);
	return 0;
}

/* One option: NAME (NLEN bytes) with VAL (NULL if no '='). */
static int check_opt(const char *name, size_t nlen, const char *val, char *err, size_t errlen)
{
	size_t i;

	if (nlen == 0)
		return proto_errf(err, errlen, "option '--': an option name is expected");
	for (i = 0; i < ARRAY_LEN(allowed_exact); i++)
		if (strlen(allowed_exact[i]) == nlen && !strncmp(name, allowed_exact[i], nlen))
			return 0;
	for (i = 0; i < ARRAY_LEN(forbidden); i++)
		if (abbreviates(name, nlen, forbidden[i].name))
			return proto_errf(err, errlen, "option '--%.*s' is not allowed: %s", (int)nlen,
				    name, forbidden[i].why);
	if ((nlen >= 7 && !strncmp(name, "trigger", 7)) ||
	    (nlen > 10 && !strncmp(name, "write_", 6) && !strncmp(name + nlen - 4, "_log", 4)))
		return proto_errf(err, errlen, "option '--%.*s' is not allowed", (int)nlen, name);
	if (val && abbreviates(name, nlen, "ioengine") && check_engine(val, err, errlen) < 0)
		return -1;
	for (i = 0; i < ARRAY_LEN(path_opts); i++) {
		if (!abbreviates(name, nlen, path_opts[i].name))
			continue;
		if (!val)
			return proto_errf(err, errlen, "option '--%.*s': '=VALUE' expected", (int)nlen, name);
		if (check_path(path_opts[i].name, val, path_opts[i].is_name, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int fioargs_check(char *const argv[], char *err, size_t errlen)
{
	for (; *argv; argv++) {
		const char *a = *argv, *eq;

		if (strncmp(a, "--", 2) != 0)
			return proto_errf(err, errlen, "argument '%s': fio options must start with '--'", a);
		eq = strchr(a + 2, '=');
		if (check_opt(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), eq ? eq + 1 : NULL,
			      err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* Trim ASCII whitespace off both ends of [*p, *p + *n). */
static void trim(const char **p, size_t *n)
{
	while (*n && is_space(**p))
		(*p)++, (*n)--;
	while (*n && is_space((*p)[*n - 1]))
		(*n)--;
}

/* One job-file line (LEN bytes, no newline), copied into BUF for the value. */
static int check_line(const char *line, size_t len, char *err, size_t errlen)
{
	char buf[FIOARGS_LINE_MAX + 1];
	const char *eq, *val;
	size_t klen, vlen;

	trim(&line, &len);
	if (len == 0 || line[0] == ';' || line[0] == '#')
		return 0;
	if (line[0] == '[') {
		if (line[len - 1] != ']')
			return proto_errf(err, errlen, "section header: ']' expected at the end");
		memcpy(buf, line + 1, len - 2);
		buf[len - 2] = '\0';
		return check_path("name", buf, 1, err, errlen);
	}
	if (len > 7 && !strncmp(line, "include", 7) && is_space(line[7]))
		return proto_errf(err, errlen, "'include' is not allowed: the job file must be self-contained");
	eq = memchr(line, '=', len);
	klen = eq ? (size_t)(eq - line) : len;
	trim(&line, &klen);
	if (!eq)
		return check_opt(line, klen, NULL, err, errlen);
	val = eq + 1;
	vlen = len - (size_t)(val - line);
	trim(&val, &vlen);
	memcpy(buf, val, vlen);
	buf[vlen] = '\0';
	return check_opt(line, klen, buf, err, errlen);
}

int fioargs_check_jobfile(const char *text, char *err, size_t errlen)
{
	char why[256];
	unsigned lineno = 0;

	if (check_text(text, FIOARGS_JOB_MAX, "job file", err, errlen) < 0)
		return -1;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		lineno++;
		if (len > FIOARGS_LINE_MAX)
			return proto_errf(err, errlen, "job file line %u: longer than %d bytes", lineno,
				    FIOARGS_LINE_MAX);
		if (check_line(p, len, why, sizeof(why)) < 0)
			return proto_errf(err, errlen, "job file line %u: %s", lineno, why);
		p += len + (nl != NULL);
	}
	return 0;
}

/* PREFIX followed by S, malloc'd; NULL if memory runs out. */
static char *concat(const char *prefix, const char *s)
{
	size_t a = strlen(prefix), b = strlen(s);
	char *out = malloc(a + b + 1);

	if (out) {
		memcpy(out, prefix, a);
		memcpy(out + a, s, b + 1);
	}
	return out;
}

int fioargs_build(char *const user[], const char *dir, const char *output,
		  unsigned interval_ms, char ***ret)
{
	size_t n = 0, i = 0;
	char **argv, interval[32];

	if (interval_ms == 0)
		return -1;
	while (user[n])
		n++;
	argv = calloc(n + 6, sizeof(*argv));
	if (!argv)
		return -1;
	snprintf(interval, sizeof(interval), "%ums", interval_ms);
	argv[i++] = strdup("fio");
	/* before the first job: a global option; after a --filename it would not apply */
	argv[i++] = concat("--directory=", dir);
	for (size_t u = 0; u < n; u++)
		argv[i++] = strdup(user[u]);
	argv[i++] = strdup("--output-format=json+");
	argv[i++] = concat("--output=", output);
	argv[i++] = concat("--status-interval=", interval);
	for (size_t k = 0; k < i; k++) {
		if (!argv[k]) {
			for (size_t f = 0; f < i; f++)
				free(argv[f]);
			free(argv);
			return -1;
		}
	}
	*ret = argv;
	return 0;
}
