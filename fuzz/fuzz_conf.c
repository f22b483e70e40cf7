/* fuzz_conf.c -- libFuzzer target: harness.conf text through conf_load_text,
 * the parser conf_load uses for the file. */
#include "conf/conf.h"
#include "base/err.h"

#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct conf c;
	char err[ERR_MAX], uri[PATH_MAX + 64];

	if (conf_load_text(&c, (const char *)data, size, "fuzz.conf", "/srv/h", err) == 0) {
		if (conf_uri(&c, uri, sizeof(uri), err) < 0 && !strstr(err, "bytes or longer"))
			__builtin_trap();   /* its one refusal: a URI that does not fit */
		/* every string member stays terminated within its buffer */
		if (strnlen(c.accel, sizeof(c.accel)) == sizeof(c.accel) ||
		    strnlen(c.api_token, sizeof(c.api_token)) == sizeof(c.api_token))
			__builtin_trap();
	}
	return 0;
}
