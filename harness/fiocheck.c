/* fiocheck.c -- a stream's fio options checked on the host with the guest's
 * rules (fioargs) and then by the guest's own fio binary in --parse-only mode. */
#include "fiocheck.h"
#include "err.h"
#include "fioargs.h"
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#define FIOCHECK_TIMEOUT_MS 10000
#define FIOCHECK_LOG_MAX    4096

static void fioargs_freep(char ***argv) { fioargs_free(*argv); }

/* The harness's rules, on both texts. */
static int check_rules(const char *args, const char *job, const char *name, char ***ret_argv,
		       char *err)
{
	char why[ERR_MAX];
	char **argv = NULL;
	int argc;

	if (fioargs_split(args ? args : "", &argv, &argc, why, sizeof(why)) < 0 ||
	    fioargs_check(argv, why, sizeof(why)) < 0 ||
	    (job && fioargs_check_jobfile(job, why, sizeof(why)) < 0)) {
		fioargs_free(argv);
		return errorf(err, "stream '%s': %s", name, why);
	}
	if (argc == 0 && (!job || !*job)) {
		fioargs_free(argv);
		return errorf(err, "stream '%s': no fio options and no job file", name);
	}
	*ret_argv = argv;
	return 0;
}

/* Read at most FIOCHECK_LOG_MAX bytes of PATH into BUF (NUL-terminated). */
static void read_log(const char *path, char *buf)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, FIOCHECK_LOG_MAX);

	buf[n > 0 ? n : 0] = '\0';
}

/*
 * fio's first FIOCHECK_LINES distinct non-empty lines, "; "-joined, with the
 * binary's path (getopt prints argv[0]) shown as "fio".
 */
static void fio_message(char *log, const char *fio_bin, char *out, size_t outlen)
{
	size_t blen = strlen(fio_bin), used = 0;
	const char *prev = "";
	char *save = NULL;
	int lines = 0;

	out[0] = '\0';
	for (char *line = strtok_r(log, "\n", &save); line && lines < FIOCHECK_LINES;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!*line || !strcmp(line, prev))
			continue;
		prev = line;
		if (!strncmp(line, fio_bin, blen) && line[blen] == ':')
			used += snprintf(out + used, outlen - used, "%sfio%s",
					 lines ? "; " : "", line + blen);
		else
			used += snprintf(out + used, outlen - used, "%s%s", lines ? "; " : "", line);
		if (used >= outlen)
			break;
		lines++;
	}
	if (!out[0])
		snprintf(out, outlen, "fio --parse-only failed and printed nothing");
}

/* Run fio --parse-only ARGV [JOBFILE] with its output in DIR/fio.log. */
static int parse_only(const char *fio_bin, char **user, const char *jobpath, const char *dir,
		      const char *name, char *err)
{
	char log_path[PATH_MAX], log[FIOCHECK_LOG_MAX + 1], msg[ERR_MAX];
	char *argv[FIOARGS_MAX + 4];
	int argc = 0, status;

	if (pathf(log_path, err, "%s/fio.log", dir) < 0)
		return -1;
	argv[argc++] = (char *)fio_bin;
	argv[argc++] = (char *)"--parse-only";
	for (char **a = user; *a; a++)
		argv[argc++] = *a;
	if (jobpath)
		argv[argc++] = (char *)jobpath;
	argv[argc] = NULL;
	if (proc_run(argv, log_path, FIOCHECK_TIMEOUT_MS, &status, msg) < 0)
		return errorf(err, "stream '%s': %s", name, msg);
	read_log(log_path, log);
	unlink(log_path);
	if (status == 0)
		return 0;
	if (status < 0)
		return errorf(err, "stream '%s': fio --parse-only did not finish in %d s", name,
			      FIOCHECK_TIMEOUT_MS / 1000);
	fio_message(log, fio_bin, msg, sizeof(msg));
	return errorf(err, "stream '%s': %s", name, msg);
}

int fiocheck_args(const char *fio_bin, const char *args_text, const char *jobfile_text,
		  const char *name, char *err)
{
	_cleanup_(fioargs_freep) char **argv = NULL;
	char dir[] = "/tmp/mglru-fiocheck.XXXXXX", jobpath[PATH_MAX];
	const char *job = jobfile_text && *jobfile_text ? jobfile_text : NULL;
	int r;

	if (check_rules(args_text, job, name, &argv, err) < 0)
		return -1;
	if (access(fio_bin, X_OK) < 0)
		return errorf(err, "stream '%s': cannot run fio '%s': %s (make %s)", name,
			      fio_bin, strerror(errno), fio_bin);
	if (!mkdtemp(dir))
		return errorf(err, "cannot create '%s': %s", dir, strerror(errno));
	r = pathf(jobpath, err, "%s/job.fio", dir);
	if (r == 0 && job)
		r = write_file(jobpath, job, strlen(job), err);
	if (r == 0)
		r = parse_only(fio_bin, argv, job ? jobpath : NULL, dir, name, err);
	if (job)
		unlink(jobpath);
	rmdir(dir);
	return r;
}
