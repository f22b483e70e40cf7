/* kind_fio.c -- fio as users write it: its options and rules, as one stream
 * kind. Its run in the guest is guest/stream_fio.c; the host parses its
 * arguments with fio itself (harness/spec/fiocheck.c) before a guest boots. */
#include "common/proto.h"

static const struct proto_opt fio_opts[] = {
	{ "args", OPT_STR, PROTO_SOFF(args), 0, PROTO_SLEN(args), NULL, NULL,
	  "fio options as on its command line (--name=x --rw=randread ...)" },
	{ "jobfile", OPT_TEXT, PROTO_SOFF(jobfile), 0, PROTO_SLEN(jobfile), NULL, NULL,
	  "a fio job file's text" },
	PROTO_OPT_END,
};

/* A fio stream's rule the option table cannot say: args or a jobfile. */
static int fio_check(const struct proto_job *job, struct proto_stream *s, const char *w,
		     char *err, size_t errlen)
{
	(void)job;
	if (!s->args[0] && !s->jobfile[0])
		return errorfn(err, errlen, "%s: a fio stream needs 'args' or 'jobfile'", w);
	return 0;
}

const struct proto_kind proto_kind_fio = {
	.name = "fio",
	.opts = fio_opts,
	.flags = PK_STATUS,
	.binary = "fio",
	.check = fio_check,
};
