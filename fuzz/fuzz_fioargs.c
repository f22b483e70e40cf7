/* fuzz_fioargs.c -- libFuzzer target: a user's fio arguments through split,
 * check and build, and the same text as a job file through its checker. */
#include "common/fioargs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), **argv = NULL, **full = NULL, err[256];
	int argc = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fioargs_check_jobfile(text, err, sizeof(err));
	if (fioargs_split(text, &argv, &argc, err, sizeof(err)) == 0 &&
	    fioargs_check(argv, err, sizeof(err)) == 0 &&
	    fioargs_build(argv, "/mnt/data", "/tmp/fio.json", 1000, &full) == 0) {
		/* the harness's own options come after the user's: nothing overrides them */
		if (!full[0] || strcmp(full[0], "fio"))
			abort();
	}
	fioargs_free(full);
	fioargs_free(argv);
	free(text);
	return 0;
}
