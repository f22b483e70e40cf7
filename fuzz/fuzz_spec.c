/* fuzz_spec.c -- libFuzzer target: a matrix file (JSON) through spec_load_text,
 * presets, kernel resolution and cell checks, against a scratch conf. */
#include "err.h"
#include "fuzzlib.h"
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>

static struct conf conf;
static struct matrix *m;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[ERR_MAX];

	(void)argc;
	(void)argv;
	m = calloc(1, sizeof(*m));
	if (!m || fuzz_conf(&conf, err) < 0) {
		fprintf(stderr, "fuzz_spec: %s\n", m ? err : "out of memory");
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), err[ERR_MAX];

	if (spec_load_text(m, text, "fuzz.json", conf.results, &conf, err) == 0) {
		if (spec_run_count(m) == 0 || !m->canonical)
			abort();   /* a valid matrix has runs and its canonical text */
		spec_release(m);
	} else if (getenv("FUZZ_VERBOSE")) {
		fprintf(stderr, "%s\n", err);   /* why an input is refused, when reproducing */
	}
	free(text);
	return 0;
}
