/* fiocheck.c -- a stream's fio options checked on the host with the guest's
 * rules (fioargs) and then by the guest's own fio binary in --parse-only mode,
 * run in a sandbox that holds nothing of the host's but that binary. */
#include "spec/fiocheck.h"
#include "base/err.h"
#include "base/sandbox.h"
#include "common/fioargs.h"
#include "common/fmt.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define FIOCHECK_LOG_MAX 4096
#define FIOCHECK_JOB     "job.fio"   /* the job file's name in the sandbox */

static void fioargs_freep(char ***argv) { fioargs_free(*argv); }

/* The harness's rules, on both texts; numjobs against the guest's vCPUs. */
static int check_rules(const char *args, const char *job, unsigned vcpus, const char *name,
		       char ***ret_argv, char *err)
{
	char why[ERR_MAX];
	char **argv = NULL;
	int argc;

	if (fioargs_split(args ? args : "", &argv, &argc, why, sizeof(why)) < 0 ||
	    fioargs_check(argv, why, sizeof(why)) < 0 ||
	    (job && fioargs_check_jobfile(job, why, sizeof(why)) < 0) ||
	    fioargs_check_numjobs(argv, job, vcpus, why, sizeof(why)) < 0) {
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

/*
 * fio's first FIOCHECK_LINES distinct non-empty lines of LOG, "; "-joined.
 * It ran as "fio" in an empty root: nothing it says was read from a file.
 */
static void fio_message(char *log, char *out, size_t outlen)
{
	size_t used = 0;
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
		used += snprintf(out + used, outlen - used, "%s%s", lines ? "; " : "", line);
		if (used >= outlen)
			break;
		lines++;
	}
	if (!out[0])
		fmtcut(out, outlen, "fio --parse-only failed and printed nothing");
}

/* fio --parse-only USER [job.fio] in a sandbox holding only fio and the job file. */
static int parse_only(const char *fio_bin, char **user, const char *job, const char *name,
		      char *err)
{
	const struct sandbox_limits lim = SANDBOX_LIMITS_DEFAULT;
	const struct sandbox_file files[] = {
		{ .name = "fio", .src = fio_bin, .exec = 1 },
		{ .name = FIOCHECK_JOB, .data = job, .len = job ? strlen(job) : 0 },
	};
	char log[FIOCHECK_LOG_MAX + 1], msg[ERR_MAX];
	char *argv[FIOARGS_MAX + 4];
	struct sandbox_result res;
	int argc = 0;

	argv[argc++] = (char *)"fio";
	argv[argc++] = (char *)"--parse-only";
	for (char **a = user; *a; a++)
		argv[argc++] = *a;
	if (job)
		argv[argc++] = (char *)"/" FIOCHECK_JOB;
	argv[argc] = NULL;
	if (sandbox_run(argv, files, job ? 2 : 1, &lim, log, sizeof(log), &res, msg) < 0)
		return errorf(err, "stream '%s': %s", name, msg);
	if (res.code == 0)
		return 0;
	if (res.timed_out)
		return errorf(err, "stream '%s': fio --parse-only did not finish in %d s", name,
			      lim.timeout_ms / 1000);
	if (res.signal)
		return errorf(err, "stream '%s': fio --parse-only was killed by signal %d (its "
			      "limits: %u s of CPU, %u MiB of memory)", name, res.signal, lim.cpu_s,
			      lim.as_mib);
	fio_message(log, msg, sizeof(msg));
	return errorf(err, "stream '%s': %s", name, msg);
}

int fiocheck_args(const char *fio_bin, const char *args_text, const char *jobfile_text,
		  unsigned vcpus, const char *name, char *err)
{
	_cleanup_(fioargs_freep) char **argv = NULL;
	const char *job = jobfile_text && *jobfile_text ? jobfile_text : NULL;

	if (check_rules(args_text, job, vcpus, name, &argv, err) < 0)
		return -1;
	if (access(fio_bin, X_OK) < 0)
		return errorf(err, "stream '%s': cannot run fio '%s': %s (make %s)", name,
			      fio_bin, strerror(errno), fio_bin);
	return parse_only(fio_bin, argv, job, name, err);
}
