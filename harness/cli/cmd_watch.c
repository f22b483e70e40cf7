/* cmd_watch.c -- `harness watch RUN`: a run's samples from harnessd's stream,
 * drawn as they come, one line an interval (ops/s, refaults, residency). */
#include "cli/client.h"
#include "cli/commands.h"
#include "analysis/metric.h"
#include "analysis/summary.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/textline.h"
#include "common/fmt.h"
#include "common/proto.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/*
 * What watch knows of its run: the names in the header and its intervals so
 * far, as the series the store reads back (for analysis/'s arithmetic).
 */
struct watch {
	int json;
	char files[PROTO_MAX_FILES][PROTO_NAME_MAX];
	char streams[PROTO_MAX_STREAMS][PROTO_NAME_MAX];
	unsigned nfiles, nstreams;
	struct series_point *p;
	size_t n, cap;
	char status[32];
	int finished;
	int bad;                  /* a line we could not use */
	int oom;
};

/* The strings of a JSON array into out, at most max (a non-string as "?"). */
static unsigned names(const json_t *arr, char (*out)[PROTO_NAME_MAX], unsigned max)
{
	const json_t *v;
	size_t i;
	unsigned n = 0;

	json_array_foreach(arr, i, v)
		if (n < max)
			fmtcut(out[n++], PROTO_NAME_MAX, "%s", json_string_value(v) ?: "?");
	return n;
}

static int col_w(const char *name, int extra, int min)
{
	int w = (int)strlen(name) + extra;

	return w > min ? w : min;
}

/* The stream's header line: its run and status, then the table's columns. */
static void watch_header(struct watch *w, const json_t *j)
{
	char head[PROTO_NAME_MAX + 4];
	unsigned i;

	w->nfiles = names(json_object_get(j, "files"), w->files, PROTO_MAX_FILES);
	w->nstreams = names(json_object_get(j, "streams"), w->streams, PROTO_MAX_STREAMS);
	printf("run %lld: %s\n", (long long)reply_int(j, "run"), reply_str(j, "status", "?"));
	printf("%6s", "t");
	for (i = 0; i < w->nstreams; i++) {
		fmtcut(head, sizeof(head), "%s/s", w->streams[i]);
		printf(" %*s", col_w(head, 0, 9), head);
	}
	printf(" %9s %9s %9s", "majflt/s", "refault/s", "activ/s");
	for (i = 0; i < w->nfiles; i++) {
		fmtcut(head, sizeof(head), "%s_MB", w->files[i]);
		printf(" %*s", col_w(head, 0, 7), head);
	}
	printf("\n");
}

/* A JSON number (integer or real), or NAN. */
static double num(const json_t *j, const char *key)
{
	const json_t *v = json_object_get(j, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * Sample j as the store's series point: the memcg's counters, each stream's
 * ops, reads and misses (NAN: the stream did not tell this interval), each
 * file's resident pages. Returns 0, or -1 out of memory.
 */
static int add_point(struct watch *w, const json_t *j)
{
	struct series_point *p, *grown;
	const json_t *s, *res;
	json_int_t k;
	size_t i;
	unsigned f;

	if (w->n == w->cap) {
		grown = realloc(w->p, (w->cap * 2 + 64) * sizeof(*grown));
		if (!grown)
			return -1;
		w->p = grown;
		w->cap = w->cap * 2 + 64;
	}
	p = memset(&w->p[w->n++], 0, sizeof(*p));
	p->seq = (uint64_t)reply_int(j, "seq");
	p->t_ms = (uint64_t)reply_int(j, "t_ms");
	res = json_object_get(j, "ramp");   /* 0/1 from the database, or a boolean */
	p->ramp = json_is_true(res) || json_integer_value(res);
	p->majflt = (double)reply_int(j, "pgmajfault");
	p->refault = (double)reply_int(j, "workingset_refault_file");
	p->activate = (double)reply_int(j, "workingset_activate_file");
	k = reply_int(j, "page_size");   /* 0 (null) before the guest's hello */
	p->page_size = k > 0 && k <= (1 << 20) ? (uint32_t)k : 4096;
	for (f = 0; f < w->nstreams; f++)
		p->ops[f] = p->reads[f] = p->misses[f] = NAN;
	json_array_foreach(json_object_get(j, "streams"), i, s) {
		k = json_is_integer(json_object_get(s, "stream")) ? reply_int(s, "stream") : (json_int_t)i;
		if (k < 0 || k >= (json_int_t)w->nstreams)
			continue;
		p->ops[k] = num(s, "ops");
		p->reads[k] = num(s, "reads");
		p->misses[k] = num(s, "misses");
	}
	res = json_object_get(j, "resident");
	for (f = 0; f < w->nfiles && f < PROTO_MAX_FILES; f++)
		p->resident[f] = (double)json_integer_value(json_array_get(res, f));
	return 0;
}

/* One interval's line: each stream's ops/s, the memcg's rates, each file's MB. */
static int watch_sample(struct watch *w, const json_t *j)
{
	const struct series_point *p;
	struct summary_window iv;
	char head[PROTO_NAME_MAX + 4];
	unsigned f;

	if (add_point(w, j) < 0)
		return -1;
	p = &w->p[w->n - 1];
	summary_window(w->p, w->n - 1, w->n, w->nstreams, &iv);   /* as tables and plots */
	printf("%6.*f", p->t_ms % 1000 ? 1 : 0, (double)p->t_ms / 1000.0);
	for (f = 0; f < w->nstreams; f++) {
		fmtcut(head, sizeof(head), "%s/s", w->streams[f]);
		if (!isnan(iv.stream_ops_per_s[f]))
			printf(" %*.0f", col_w(head, 0, 9), iv.stream_ops_per_s[f]);
		else
			printf(" %*s", col_w(head, 0, 9), "-");
	}
	printf(" %9.0f %9.0f %9.0f", iv.majflt_per_s, iv.refault_per_s, iv.activate_per_s);
	for (f = 0; f < w->nfiles; f++) {
		fmtcut(head, sizeof(head), "%s_MB", w->files[f]);
		printf(" %*.0f", col_w(head, 0, 7), p->resident[f] * p->page_size / (1 << 20));
	}
	printf("%s\n", p->ramp ? "  ramp" : "");
	return 0;
}

/* The run's figures from the intervals watched, as the store computed its own. */
static void watch_figures(const struct watch *w)
{
	struct run_summary r;

	summary_figures(w->p, w->n, w->nstreams, 0, &r);
	printf("measured %.1f s: ops/s %.0f, refault/s %.0f, majflt/s %.0f, activ/s %.0f,"
	       " rf/read %.4f\n", r.seconds, r.ops_per_s, r.refault_per_s, r.majflt_per_s,
	       r.activate_per_s, r.refaults_per_read);
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
		fmtcut(w->status, sizeof(w->status), "%s", reply_str(j, "status", "?"));
		w->finished = 1;
		if (!w->json && w->n)
			watch_figures(w);
	} else if (json_object_get(j, "seq")) {
		if (!w->json && watch_sample(w, j) < 0)
			w->oom = 1;
	} else {
		fmtcut(w->status, sizeof(w->status), "%s", reply_str(j, "status", "?"));
		if (!w->json)
			watch_header(w, j);
	}
	json_decref(j);
	fflush(stdout);
	return w->bad || w->oom ? -1 : 0;
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
	w->json = json;
	if (fmtbuf(path, sizeof(path), "/runs/%lld/stream", run) < 0)   /* 29 bytes at most */
		ret = errorf(err, "run %lld: its API path is over %zu bytes", run,
			     sizeof(path) - 1);
	else
		ret = client_stream(c, path, json, watch_line, w, err);
	free(w->p);
	if (ret == 0 && w->oom)
		ret = errorf(err, "run %lld: out of memory for its intervals", run);
	else if (ret == 0 && w->bad)
		ret = errorf(err, "run %lld: the daemon sent a line that is not a JSON object", run);
	else if (ret == 0 && !w->finished)
		ret = errorf(err, "run %lld: the stream ended before the run did", run);
	else if (ret == 0 && !json)
		printf("run %lld: %s\n", run, w->status);
	if (ret == -1)
		escape_line(stderr, "harness: %s", err);
	return ret < 0 || strcmp(w->status, "done") ? 1 : 0;
}
