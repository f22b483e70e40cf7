/* fuzz_spec.c -- libFuzzer target: a matrix file (JSON) through spec_load_text
 * (spec_parse, then spec_resolve): presets, kernel resolution and cell
 * checks, against a scratch conf. */
#include "base/err.h"
#include "fuzzlib.h"
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct conf conf;
static struct matrix *m, *again;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[ERR_MAX];

	(void)argc;
	(void)argv;
	m = calloc(1, sizeof(*m));
	again = calloc(1, sizeof(*again));
	if (!m || !again || fuzz_conf(&conf, err) < 0) {
		fprintf(stderr, "fuzz_spec: %s\n", m && again ? err : "out of memory");
		exit(1);
	}
	return 0;
}

/*
 * The daemon stores a matrix as its canonical text, parsed only (submit),
 * and loads that again (resolver, scheduler): parsing alone must give the
 * same identity and runs, and loading it again too.
 */
static void reload_canonical(void)
{
	char err[ERR_MAX] = "";

	if (spec_parse(again, m->canonical, "canonical", conf.results, &conf, err) < 0 ||
	    !again->unresolved || strcmp(again->hash, m->hash) ||
	    spec_run_count(again) != spec_run_count(m)) {
		fprintf(stderr, "fuzz_spec: canonical text parses differently: %s\n%s\n",
			err, m->canonical);
		abort();
	}
	spec_release(again);
	if (spec_load_text(again, m->canonical, "canonical", conf.results, &conf, err) < 0) {
		fprintf(stderr, "fuzz_spec: canonical text refused: %s\n%s\n", err, m->canonical);
		abort();
	}
	if (strcmp(again->hash, m->hash) || spec_run_count(again) != spec_run_count(m) ||
	    strcmp(again->canonical, m->canonical)) {
		fprintf(stderr, "fuzz_spec: canonical text loads differently\n%s\n%s\n",
			m->canonical, again->canonical);
		abort();
	}
	spec_release(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), err[ERR_MAX];

	if (spec_load_text(m, text, "fuzz.json", conf.results, &conf, err) == 0) {
		if (spec_run_count(m) == 0 || !m->canonical)
			abort();   /* a valid matrix has runs and its canonical text */
		reload_canonical();
		spec_release(m);
	} else if (getenv("FUZZ_VERBOSE")) {
		fprintf(stderr, "%s\n", err);   /* why an input is refused, when reproducing */
	}
	free(text);
	return 0;
}
