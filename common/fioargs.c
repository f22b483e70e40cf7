/* fioargs.c -- split, check and complete fio command lines and job files, the
 * same rules on the host (before any guest boots) and in the guest agent. */
#include "common/fioargs.h"
#include "common/fmt.h"
#include "common/proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The allow-list: fio 3.33's own option names (options.c), each with how its
 * value is checked. Nothing here opens, runs or loads anything: no iolog,
 * replay, blktrace, log-writing, exec, trigger, server, cgroup or uid option,
 * no engine that runs a program or loads an object, no memory backed by a
 * file. tests/test_fio.c checks every name against the real fio.
 */
#define ENGINES "sync psync vsync pvsync pvsync2 libaio io_uring posixaio mmap null " \
		"splice falloc ftruncate filecreate filestat filedelete"

#define OPT(n, k)            { .name = n, .kind = k }
#define ALIAS(n, a, k)       { .name = n, .alias = a, .kind = k }
#define CHOICE(n, a, words)  { .name = n, .alias = a, .kind = FA_CHOICE, .choices = words }
#define ENGOPT(n, k, e)      { .name = n, .kind = k, .engines = e }

const struct fioargs_opt fioargs_opts[] = {
	/* jobs */
	OPT("name", FA_NAME),
	OPT("description", FA_TEXT),
	OPT("numjobs", FA_VALUE),
	OPT("group_reporting", FA_FLAG),
	OPT("new_group", FA_FLAG),
	ALIAS("stonewall", "wait_for_previous", FA_FLAG),
	OPT("wait_for", FA_NAME),
	OPT("thread", FA_FLAG),
	OPT("exitall", FA_FLAG),
	OPT("exit_what", FA_VALUE),
	OPT("exitall_on_error", FA_FLAG),
	OPT("continue_on_error", FA_VALUE),
	OPT("ignore_error", FA_VALUE),
	OPT("error_dump", FA_VALUE),
	OPT("kb_base", FA_VALUE),
	OPT("unit_base", FA_VALUE),
	OPT("nice", FA_VALUE),
	OPT("prio", FA_VALUE),
	OPT("prioclass", FA_VALUE),
	OPT("cpumask", FA_VALUE),
	OPT("cpus_allowed", FA_VALUE),
	OPT("cpus_allowed_policy", FA_VALUE),
	/* I/O */
	ALIAS("rw", "readwrite", FA_VALUE),
	OPT("rw_sequencer", FA_VALUE),
	OPT("rwmixread", FA_VALUE),
	OPT("rwmixwrite", FA_VALUE),
	ALIAS("bs", "blocksize", FA_VALUE),
	ALIAS("ba", "blockalign", FA_VALUE),
	ALIAS("bsrange", "blocksize_range", FA_VALUE),
	OPT("bssplit", FA_VALUE),
	ALIAS("bs_unaligned", "blocksize_unaligned", FA_FLAG),
	OPT("bs_is_seq_rand", FA_VALUE),
	OPT("iodepth", FA_VALUE),
	ALIAS("iodepth_batch", "iodepth_batch_submit", FA_VALUE),
	ALIAS("iodepth_batch_complete_min", "iodepth_batch_complete", FA_VALUE),
	OPT("iodepth_batch_complete_max", FA_VALUE),
	OPT("iodepth_low", FA_VALUE),
	OPT("io_submit_mode", FA_VALUE),
	OPT("serialize_overlap", FA_VALUE),
	OPT("direct", FA_VALUE),
	OPT("atomic", FA_VALUE),
	OPT("buffered", FA_VALUE),
	OPT("sync", FA_VALUE),
	OPT("fsync", FA_VALUE),
	OPT("fdatasync", FA_VALUE),
	OPT("sync_file_range", FA_VALUE),
	OPT("write_barrier", FA_VALUE),
	OPT("write_hint", FA_VALUE),
	OPT("end_fsync", FA_VALUE),
	OPT("fsync_on_close", FA_VALUE),
	OPT("invalidate", FA_VALUE),
	OPT("fadvise_hint", FA_VALUE),
	OPT("fallocate", FA_VALUE),
	ALIAS("offset", "fileoffset", FA_VALUE),
	OPT("offset_align", FA_VALUE),
	OPT("offset_increment", FA_VALUE),
	OPT("number_ios", FA_VALUE),
	OPT("randrepeat", FA_VALUE),
	OPT("allrandrepeat", FA_VALUE),
	OPT("randseed", FA_VALUE),
	OPT("norandommap", FA_FLAG),
	OPT("softrandommap", FA_VALUE),
	OPT("random_generator", FA_VALUE),
	OPT("random_distribution", FA_VALUE),
	OPT("percentage_random", FA_VALUE),
	OPT("zero_buffers", FA_FLAG),
	OPT("refill_buffers", FA_FLAG),
	OPT("scramble_buffers", FA_VALUE),
	OPT("buffer_pattern", FA_VALUE),    /* no quotes: '...' names a file */
	OPT("buffer_compress_percentage", FA_VALUE),
	OPT("buffer_compress_chunk", FA_VALUE),
	OPT("dedupe_percentage", FA_VALUE),
	OPT("dedupe_mode", FA_VALUE),
	OPT("dedupe_working_set_percentage", FA_VALUE),
	OPT("dedupe_global", FA_VALUE),
	/* files, in the data directory */
	OPT("filename", FA_PATH),
	OPT("filename_format", FA_PATH),
	OPT("opendir", FA_PATH),
	OPT("unique_filename", FA_VALUE),
	ALIAS("nrfiles", "nr_files", FA_VALUE),
	OPT("openfiles", FA_VALUE),
	OPT("file_service_type", FA_VALUE),
	CHOICE("lockfile", NULL, "none exclusive readwrite"),
	OPT("create_serialize", FA_VALUE),
	OPT("create_fsync", FA_VALUE),
	OPT("create_on_open", FA_VALUE),
	OPT("create_only", FA_VALUE),
	OPT("allow_file_create", FA_VALUE),
	OPT("pre_read", FA_VALUE),
	OPT("overwrite", FA_VALUE),
	OPT("file_append", FA_VALUE),
	OPT("unlink", FA_VALUE),
	OPT("unlink_each_loop", FA_VALUE),
	/* sizes */
	OPT("size", FA_VALUE),
	OPT("filesize", FA_VALUE),
	ALIAS("io_size", "io_limit", FA_VALUE),
	ALIAS("fill_device", "fill_fs", FA_VALUE),
	/* memory: anonymous or shared memory only, "mmap:FILE" is refused */
	CHOICE("mem", "iomem", "malloc shm shmhuge mmap mmaphuge mmapshared"),
	ALIAS("iomem_align", "mem_align", FA_VALUE),
	OPT("hugepage-size", FA_VALUE),
	OPT("lockmem", FA_VALUE),
	/* engines built into fio, and their own options */
	CHOICE("ioengine", NULL, ENGINES),
	ENGOPT("hipri", FA_FLAG, "io_uring pvsync2"),
	ENGOPT("hipri_percentage", FA_VALUE, "pvsync2"),
	ENGOPT("uncached", FA_VALUE, "io_uring pvsync2"),
	ENGOPT("nowait", FA_VALUE, "io_uring pvsync2"),
	ENGOPT("fixedbufs", FA_FLAG, "io_uring"),
	ENGOPT("registerfiles", FA_FLAG, "io_uring"),
	ENGOPT("sqthread_poll", FA_FLAG, "io_uring"),
	ENGOPT("sqthread_poll_cpu", FA_VALUE, "io_uring"),
	ENGOPT("nonvectored", FA_VALUE, "io_uring"),
	ENGOPT("force_async", FA_VALUE, "io_uring"),
	ENGOPT("thp", FA_VALUE, "mmap"),
	ENGOPT("stat_type", FA_VALUE, "filestat"),
	/* timing and rates */
	ALIAS("runtime", "timeout", FA_VALUE),
	OPT("time_based", FA_FLAG),
	OPT("ramp_time", FA_VALUE),
	OPT("startdelay", FA_VALUE),
	OPT("loops", FA_VALUE),
	OPT("thinktime", FA_VALUE),
	OPT("thinktime_spin", FA_VALUE),
	OPT("thinktime_blocks", FA_VALUE),
	OPT("thinktime_blocks_type", FA_VALUE),
	OPT("thinktime_iotime", FA_VALUE),
	OPT("rate", FA_VALUE),
	ALIAS("rate_min", "ratemin", FA_VALUE),
	OPT("rate_iops", FA_VALUE),
	OPT("rate_iops_min", FA_VALUE),
	OPT("rate_process", FA_VALUE),
	ALIAS("rate_cycle", "ratecycle", FA_VALUE),
	OPT("rate_ignore_thinktime", FA_VALUE),
	OPT("max_latency", FA_VALUE),
	OPT("latency_target", FA_VALUE),
	OPT("latency_window", FA_VALUE),
	OPT("latency_percentile", FA_VALUE),
	OPT("latency_run", FA_VALUE),
	OPT("clocksource", FA_VALUE),
	OPT("gtod_reduce", FA_VALUE),
	OPT("gtod_cpu", FA_VALUE),
	/* verification, without the options that read or write state files */
	OPT("verify", FA_VALUE),
	OPT("do_verify", FA_VALUE),
	OPT("verify_only", FA_FLAG),
	OPT("verify_interval", FA_VALUE),
	OPT("verify_offset", FA_VALUE),
	OPT("verify_pattern", FA_VALUE),    /* no quotes: '...' names a file */
	OPT("verify_fatal", FA_VALUE),
	OPT("verify_backlog", FA_VALUE),
	OPT("verify_backlog_batch", FA_VALUE),
	OPT("verify_async", FA_VALUE),
	OPT("experimental_verify", FA_VALUE),
	CHOICE("verify_state_save", NULL, "0"),
	/* reporting */
	OPT("stats", FA_VALUE),
	OPT("unified_rw_reporting", FA_VALUE),
	OPT("percentile_list", FA_VALUE),
	OPT("clat_percentiles", FA_VALUE),
	OPT("lat_percentiles", FA_VALUE),
	OPT("slat_percentiles", FA_VALUE),
	OPT("significant_figures", FA_VALUE),
	OPT("disable_lat", FA_VALUE),
	OPT("disable_clat", FA_VALUE),
	OPT("disable_slat", FA_VALUE),
	ALIAS("disable_bw_measurement", "disable_bw", FA_VALUE),
	OPT("bwavgtime", FA_VALUE),
	OPT("iopsavgtime", FA_VALUE),
	OPT("disk_util", FA_VALUE),
};
const size_t fioargs_nopts = ARRAY_LEN(fioargs_opts);

/* Refused options users are likely to try, with why; the rest get NOT_ALLOWED. */
static const struct {
	const char *name;
	const char *why;
} refused[] = {
	{ "output",          "the harness sets it" },
	{ "output-format",   "the harness sets it" },
	{ "status-interval", "the harness sets it" },
	{ "directory",       "the harness sets it" },
	{ "cgroup",          "the harness puts the workload in its memory cgroup" },
};

#define NOT_ALLOWED "only fio's job, I/O, file, size, engine, timing and reporting options, " \
		    "by their full names (see docs/workloads.md)"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Bytes a FA_VALUE may hold besides letters and digits (no '$', quotes, '\', '='). */
#define VALUE_PUNCT "._,:%+/-"
#define NAME_PUNCT  "._+-"
/* fio's filename_format keywords: the only '$' a path may hold */
static const char *const path_keywords[] = { "$jobname", "$jobnum", "$filenum", "$clientuid" };

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* VAL is one or more decimal digits. */
static int is_number(const char *val)
{
	size_t n = strspn(val, "0123456789");

	return n > 0 && val[n] == '\0';
}

/* Every byte of VAL is a letter, a digit or in PUNCT. */
static int only(const char *val, const char *punct)
{
	for (; *val; val++)
		if (!is_alnum(*val) && !strchr(punct, *val))
			return 0;
	return 1;
}

/* WORD is one of the space-separated WORDS. */
static int one_of(const char *word, const char *words)
{
	size_t n = strlen(word);

	for (const char *w = words; *w; w += strcspn(w, " "), w += strspn(w, " "))
		if (strcspn(w, " ") == n && !strncmp(w, word, n))
			return 1;
	return 0;
}

/* The length of the filename_format keyword at P, or 0. */
static size_t path_keyword(const char *p)
{
	for (size_t i = 0; i < ARRAY_LEN(path_keywords); i++)
		if (!strncmp(p, path_keywords[i], strlen(path_keywords[i])))
			return strlen(path_keywords[i]);
	return 0;
}

/*
 * File names stay under the data directory: relative in every ':'-separated
 * part (fio's list separator), no "..", no '$' but fio's own keywords (a job
 * file expands ${VAR}, and $pagesize-like words are computed by running bc).
 */
static int check_path(const char *opt, const char *val, char *err, size_t errlen)
{
	if (strstr(val, ".."))
		return errorfn(err, errlen, "option '--%s': path '%s' must not contain '..'", opt, val);
	for (const char *p = val; *p; p++) {
		size_t k = *p == '$' ? path_keyword(p) : 0;

		if (*p == '$' && k == 0)
			return errorfn(err, errlen, "option '--%s': path '%s': '$' only in $jobname, "
					  "$jobnum, $filenum or $clientuid", opt, val);
		if (k)
			p += k - 1;
		else if (!is_alnum(*p) && !strchr(VALUE_PUNCT, *p))
			return errorfn(err, errlen, "option '--%s': path '%s' may hold only letters, "
					  "digits and %s", opt, val, VALUE_PUNCT);
		else if (*p == '/' && (p == val || p[-1] == ':'))
			return errorfn(err, errlen, "option '--%s': path '%s' must be relative",
					  opt, val);
	}
	return 0;
}

/* A job name (--name, wait_for, a job file's [section]): fio names files after it. */
static int check_name(const char *val, char *err, size_t errlen)
{
	if (!*val || !only(val, NAME_PUNCT))
		return errorfn(err, errlen, "job name '%s': only letters, digits and %s",
				  val, NAME_PUNCT);
	return 0;
}

/* VAL (NULL: none given) for option O, named NAME (NLEN bytes) by the user. */
static int check_value(const struct fioargs_opt *o, const char *name, size_t nlen,
		       const char *val, char *err, size_t errlen)
{
	if (o->kind == FA_FLAG && (!val || is_number(val)))
		return 0;
	if (o->kind == FA_FLAG)
		return errorfn(err, errlen, "option '--%.*s': no value or a number expected",
				  (int)nlen, name);
	if (!val || !*val)
		return errorfn(err, errlen, "option '--%.*s': '=VALUE' expected", (int)nlen, name);
	switch (o->kind) {
	case FA_VALUE:
		if (!only(val, VALUE_PUNCT))
			return errorfn(err, errlen, "option '--%.*s': value '%s' may hold only "
					  "letters, digits and %s", (int)nlen, name, val, VALUE_PUNCT);
		return 0;
	case FA_TEXT:
		if (strchr(val, '$'))
			return errorfn(err, errlen, "option '--%.*s': '$' is not allowed", (int)nlen,
					  name);
		return 0;
	case FA_CHOICE:
		if (!one_of(val, o->choices))
			return errorfn(err, errlen, "option '--%.*s': '%s' is not one of: %s",
					  (int)nlen, name, val, o->choices);
		return 0;
	case FA_PATH:
		return check_path(o->name, val, err, errlen);
	case FA_NAME:
		return check_name(val, err, errlen);
	default:
		return errorfn(err, errlen, "option '--%.*s': no rule", (int)nlen, name);
	}
}

/* The allow-list entry whose name or alias is exactly NAME (NLEN bytes), or NULL. */
static const struct fioargs_opt *find_opt(const char *name, size_t nlen)
{
	for (size_t i = 0; i < fioargs_nopts; i++) {
		const struct fioargs_opt *o = &fioargs_opts[i];

		if ((strlen(o->name) == nlen && !strncmp(name, o->name, nlen)) ||
		    (o->alias && strlen(o->alias) == nlen && !strncmp(name, o->alias, nlen)))
			return o;
	}
	return NULL;
}

/* One option: NAME (NLEN bytes) with VAL (NULL if no '='). */
static int check_opt(const char *name, size_t nlen, const char *val, char *err, size_t errlen)
{
	const struct fioargs_opt *o = find_opt(name, nlen);
	const char *why = NOT_ALLOWED;

	if (nlen == 0)
		return errorfn(err, errlen, "option '--': an option name is expected");
	if (o)
		return check_value(o, name, nlen, val, err, errlen);
	for (size_t i = 0; i < ARRAY_LEN(refused); i++)
		if (strlen(refused[i].name) == nlen && !strncmp(name, refused[i].name, nlen))
			why = refused[i].why;
	return errorfn(err, errlen, "option '--%.*s' is not allowed: %s", (int)nlen, name, why);
}

void fioargs_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

/*
 * text is at most max bytes of printable ASCII or white space; -1 with err
 * naming what and the first bad byte.
 */
static int check_text(const char *text, size_t max, const char *what, char *err, size_t errlen)
{
	size_t n = strnlen(text, max + 1);

	if (n > max)
		return errorfn(err, errlen, "%s: longer than %zu bytes", what, max);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (!is_space((char)c) && (c < 0x20 || c > 0x7e))
			return errorfn(err, errlen, "%s: byte %zu is not printable ASCII", what, i);
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
		return errorfn(err, errlen, "fio arguments: out of memory");
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
			return errorfn(err, errlen, argc == FIOARGS_MAX ? "fio arguments: more than %d"
				    : "fio arguments: argument %d longer than 256 bytes",
				    argc == FIOARGS_MAX ? FIOARGS_MAX : argc + 1);
		}
		argv[argc] = strndup(p, n);
		if (!argv[argc++]) {
			fioargs_free(argv);
			return errorfn(err, errlen, "fio arguments: out of memory");
		}
		p += n;
	}
	*ret_argv = argv;
	*ret_argc = argc;
	return 0;
}

int fioargs_check(char *const argv[], char *err, size_t errlen)
{
	for (; *argv; argv++) {
		const char *a = *argv, *eq;

		if (strncmp(a, "--", 2) != 0)
			return errorfn(err, errlen, "argument '%s': fio options must start with '--'", a);
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

/* "[NAME]" (LEN bytes, trimmed): the start of a job, NAME as --name. */
static int check_section(const char *line, size_t len, char *err, size_t errlen)
{
	char name[FIOARGS_LINE_MAX + 1];

	if (len < 3 || line[len - 1] != ']')
		return errorfn(err, errlen, "section header: '[NAME]' expected");
	memcpy(name, line + 1, len - 2);
	name[len - 2] = '\0';
	return check_name(name, err, errlen);
}

/* A job-file line as fio reads it: cut at the first ';' or '#', trimmed. */
static void uncomment(const char **line, size_t *len)
{
	for (size_t i = 0; i < *len; i++)
		if ((*line)[i] == ';' || (*line)[i] == '#')
			*len = i;
	trim(line, len);
}

/*
 * One job-file line (LEN bytes, no newline) as fio reads it: cut at the first
 * ';' or '#', trimmed; any line starting "include" includes a file (fio takes
 * the rest after one more byte as its name, whatever that byte is).
 */
static int check_line(const char *line, size_t len, char *err, size_t errlen)
{
	char val[FIOARGS_LINE_MAX + 1];
	const char *eq, *v;
	size_t klen, vlen;

	uncomment(&line, &len);
	if (len == 0)
		return 0;
	if (len >= 7 && !strncmp(line, "include", 7))
		return errorfn(err, errlen, "'include' is not allowed: the job file must be "
				  "self-contained");
	if (line[0] == '[')
		return check_section(line, len, err, errlen);
	eq = memchr(line, '=', len);
	klen = eq ? (size_t)(eq - line) : len;
	trim(&line, &klen);
	if (!eq)
		return check_opt(line, klen, NULL, err, errlen);
	v = eq + 1;
	vlen = len - (size_t)(v - line);
	trim(&v, &vlen);
	memcpy(val, v, vlen);
	val[vlen] = '\0';
	return check_opt(line, klen, val, err, errlen);
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
			return errorfn(err, errlen, "job file line %u: longer than %d bytes", lineno,
				    FIOARGS_LINE_MAX);
		if (check_line(p, len, why, sizeof(why)) < 0)
			return errorfn(err, errlen, "job file line %u: %s", lineno, why);
		p += len + (nl != NULL);
	}
	return 0;
}

/* One numjobs value (LEN bytes) added to *total; -1 if it is no count or the total passes max. */
static int add_numjobs(const char *val, size_t len, unsigned vcpus, unsigned long long *total,
		       char *err, size_t errlen)
{
	unsigned long long max = (unsigned long long)vcpus * FIOARGS_JOBS_PER_VCPU, n = 0;

	if (len == 0 || len > 9 || strspn(val, "0123456789") < len)
		return errorfn(err, errlen, "numjobs: expected a whole number from 1, got '%.*s'",
				  (int)(len > 32 ? 32 : len), val);
	for (size_t i = 0; i < len; i++)
		n = n * 10 + (unsigned long long)(val[i] - '0');
	if (n == 0)
		return errorfn(err, errlen, "numjobs: expected a whole number from 1, got 0");
	*total += n;
	if (*total > max)
		return errorfn(err, errlen, "numjobs: %llu jobs in all, expected at most %llu (the "
				  "guest's %u vCPUs x %d)", *total, max, vcpus, FIOARGS_JOBS_PER_VCPU);
	return 0;
}

/* A job-file line's numjobs value, if it sets numjobs: added as add_numjobs does. */
static int line_numjobs(const char *line, size_t len, unsigned vcpus, unsigned long long *total,
			char *err, size_t errlen)
{
	const char *eq, *v;
	size_t klen, vlen;

	uncomment(&line, &len);
	eq = memchr(line, '=', len);
	klen = eq ? (size_t)(eq - line) : len;
	trim(&line, &klen);
	if (klen != 7 || strncmp(line, "numjobs", 7))
		return 0;
	v = eq ? eq + 1 : line + len;
	vlen = eq ? len - (size_t)(v - line) : 0;
	trim(&v, &vlen);
	return add_numjobs(v, vlen, vcpus, total, err, errlen);
}

int fioargs_check_numjobs(char *const argv[], const char *jobfile, unsigned vcpus, char *err,
			  size_t errlen)
{
	unsigned long long total = 0;

	for (; argv && *argv; argv++)
		if (!strncmp(*argv, "--numjobs=", 10) &&
		    add_numjobs(*argv + 10, strlen(*argv + 10), vcpus, &total, err, errlen) < 0)
			return -1;
	for (const char *p = jobfile; p && *p;) {
		size_t len = strcspn(p, "\n");

		if (line_numjobs(p, len, vcpus, &total, err, errlen) < 0)
			return -1;
		p += len + (p[len] == '\n');
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
	fmtcut(interval, sizeof(interval), "%ums", interval_ms);
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
