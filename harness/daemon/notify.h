/* notify.h -- webhooks: a JSON POST when a matrix finishes or a run crashes,
 * so nobody has to watch the queue overnight. */
#ifndef NOTIFY_H
#define NOTIFY_H

#include <jansson.h>

/* POST body (compact JSON) to url within 10 s. Returns 0, or -1 with err (ERR_MAX). */
int notify_post(const char *url, json_t *body, char *err);

#endif
