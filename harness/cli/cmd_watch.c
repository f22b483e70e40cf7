/* cmd_watch.c -- `harness watch RUN`: a run's samples from harnessd's stream,
 * drawn as they come, one line an interval (ops/s, refaults, residency). */
#include "cli/client.h"
#include "cli/commands.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/textline.h"
#include "common/proto.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* What watch knows of its run: the names in the header, the last sample's time. */
struct watch {
	int json;
	char files[PROTO_MAX_FILES][PROTO_NAME_MAX];
	char streams[PROTO_MAX_STREAMS][PROTO_NAME_MAX];
	unsigned nfiles, nstreams;
	int64_t prev_t_ms;
	char status[32];
	int finished;
	int bad;                  /* a line we could not use */
};

static unsigned names(const json_t *arr, char (*out)[PROTO_NAME_MAX], unsigned max)
{
	const json_t *v;
	size_t i;
	unsigned n = 0;

	json_array_foreach(arr, i, v)
		if (n < max)
			snprintf(out[n++], PROTO_NAME_MAX, "%s", json_string_value(v) ?: "?");
	return n;
}

static int col_w(const char *name, int extra, int min)
{
	int w = (int)strlen(name) + extra;

	return w > min ? w : min;
}

static void watch_header(struct watch *w, const json_t *j)
{
	char head[PROTO_NAME_MAX + 4];
	unsigned i;

	w->nfiles = names(json_object_get(j, "files"), w->files, PROTO_MAX_FILES);
	w->nstreams = names(json_object_get(j, "streams"), w->streams, PROTO_MAX_STREAMS);
	printf("run %lld: %s\n", (long long)reply_int(j, "run"), reply_str(j, "status", "?"));
	printf("%6s", "t");
	for (i = 0; i < w->nstreams; i++) {
		snprintf(head, sizeof(head), "%s/s", w->streams[i]);
		printf(" %*s", col_w(head, 0, 9), head);
	}
	printf(" %9s %9s %9s", "majflt/s", "refault/s", "activ/s");
	for (i = 0; i < w->nfiles; i++) {
		snprintf(head, sizeof(head), "%s_MB", w->files[i]);
		printf(" %*s", col_w(head, 0, 7), head);
	}
	printf("\n");
}

static void watch_sample(struct watch *w, const json_t *j)
{
	int64_t t_ms = reply_int(j, "t_ms");
	double dt = (double)(t_ms - w->prev_t_ms) / 1000.0, ops[PROTO_MAX_STREAMS] = { 0 };
	int told[PROTO_MAX_STREAMS] = { 0 };   /* a stream's interval can be missing */
	char head[PROTO_NAME_MAX + 4];
	const json_t *s, *res;
	json_int_t k;
	size_t i;
	unsigned f;

	w->prev_t_ms = t_ms;
	json_array_foreach(json_object_get(j, "streams"), i, s) {
		k = json_is_integer(json_object_get(s, "stream")) ? reply_int(s, "stream") : (json_int_t)i;
		if (k < 0 || k >= PROTO_MAX_STREAMS)
			continue;
		told[k] = 1;
		if (json_object_get(s, "ops"))   /* read_ops + write_ops, summed by the queue */
			ops[k] += json_number_value(json_object_get(s, "ops"));
		else
			ops[k] += (double)(reply_int(s, "read_ops") + reply_int(s, "write_ops"));
	}
	printf("%6.*f", t_ms % 1000 ? 1 : 0, (double)t_ms / 1000.0);
	if (dt <= 0)
		dt = NAN;
	for (f = 0; f < w->nstreams; f++) {
		snprintf(head, sizeof(head), "%s/s", w->streams[f]);
		if (told[f])
			printf(" %*.0f", col_w(head, 0, 9), ops[f] / dt);
		else
			printf(" %*s", col_w(head, 0, 9), "-");
	}
	printf(" %9.0f %9.0f %9.0f", (double)reply_int(j, "pgmajfault") / dt,
	       (double)reply_int(j, "workingset_refault_file") / dt,
	       (double)reply_int(j, "workingset_activate_file") / dt);
	res = json_object_get(j, "resident");
	for (f = 0; f < w->nfiles; f++) {
		snprintf(head, sizeof(head), "%s_MB", w->files[f]);
		printf(" %*.0f", col_w(head, 0, 7),
		       (double)json_integer_value(json_array_get(res, f)) * 4096.0 / (1 << 20));
	}
	res = json_object_get(j, "ramp");   /* 0/1 from the database, or a boolean */
	printf("%s\n", json_is_true(res) || json_integer_value(res) ? "  ramp" : "");
}

/* One line of the stream: the header, a sample or the end; -1 stops at a bad one. */
static int watch_line(void *cls, const char *line, size_t len)
{
	struct watch *w = cls;
	json_t *j;

	if (!len)
		return 0;   /* keep-alive */
	if (w->json) {
		fwrite(line, 1, len, stdout);
		putchar('\n');
	}
	j = json_loadb(line, len, 0, NULL);
	if (!json_is_object(j)) {
		w->bad = 1;
	} else if (json_is_true(json_object_get(j, "finished"))) {
		snprintf(w->status, sizeof(w->status), "%s", reply_str(j, "status", "?"));
		w->finished = 1;
	} else if (json_object_get(j, "seq")) {
		if (!w->json)
			watch_sample(w, j);
	} else {
		snprintf(w->status, sizeof(w->status), "%s", reply_str(j, "status", "?"));
		if (!w->json)
			watch_header(w, j);
	}
	json_decref(j);
	fflush(stdout);
	return w->bad ? -1 : 0;
}

/* watch RUN: the run's samples as they come, one line an interval; 1 unless it ended done. */
int cmd_watch(const struct conf *c, int argc, char **argv, int json)
{
	_cleanup_free_ struct watch *w = calloc(1, sizeof(*w));
	char path[128], *end, err[ERR_MAX] = "";
	long long run;
	int ret;

	(void)argc;
	errno = 0;
	run = strtoll(argv[1], &end, 10);
	if (errno || *end || run <= 0 || strspn(argv[1], "0123456789") != strlen(argv[1])) {
		escape_line(stderr, "harness: run '%s': expected a run id", argv[1]);
		return 1;
	}
	if (!w) {
		escape_line(stderr, "harness: out of memory");
		return 1;
	}
	snprintf(path, sizeof(path), "/runs/%lld/stream", run);
	w->json = json;
	ret = client_stream(c, path, json, watch_line, w, err);
	if (ret == 0 && w->bad)
		ret = errorf(err, "run %lld: the daemon sent a line that is not a JSON object", run);
	else if (ret == 0 && !w->finished)
		ret = errorf(err, "run %lld: the stream ended before the run did", run);
	else if (ret == 0 && !json)
		printf("run %lld: %s\n", run, w->status);
	if (ret == -1)
		escape_line(stderr, "harness: %s", err);
	return ret < 0 || strcmp(w->status, "done") ? 1 : 0;
}
