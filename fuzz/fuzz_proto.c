/* fuzz_proto.c -- libFuzzer target: a guest channel line through proto_parse,
 * and every accepted message must format and parse back to the same line. */
#include "common/proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char line1[PROTO_LINE_MAX + 2], line2[PROTO_LINE_MAX + 2];

/* parse -> format -> parse -> format: the two formatted lines must agree. */
static void round_trip(const struct proto_msg *msg)
{
	static struct proto_msg again;
	char err[PROTO_ERR_MAX];
	int n1, n2;

	n1 = proto_format(msg, line1, sizeof(line1));
	if (n1 < 0)
		return;   /* a job with every default spelled out may not fit a line */
	if (proto_parse(line1, (size_t)n1 - 1, &again, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_proto: formatted line refused: %s\n%s", err, line1);
		abort();
	}
	n2 = proto_format(&again, line2, sizeof(line2));
	if (n2 != n1 || memcmp(line1, line2, (size_t)n1)) {
		fprintf(stderr, "fuzz_proto: not stable:\n%s%s", line1, line2);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proto_msg msg;
	char err[PROTO_ERR_MAX];

	if (proto_parse((const char *)data, size, &msg, err, sizeof(err)) == 0)
		round_trip(&msg);
	return 0;
}
