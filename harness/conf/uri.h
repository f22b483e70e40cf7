/* uri.h -- the libvirt URIs harness.conf may name (uri =, host lines): the
 * transport, a plain user and host, and each query parameter by allow-list. */
#ifndef URI_H
#define URI_H

#include <stddef.h>

/*
 * Is uri one the harness opens? By allow-list: qemu:///system or /session,
 * qemu+ssh, +libssh, +libssh2, +tcp, +tls or +unix to /system or /session;
 * URI characters only; a user and host of plain name or address characters
 * (no password, no %-escape); query parameters from one table (uri.c), each
 * of a transport that reads it, once, its value %-decoded and then checked
 * against the parameter's syntax (an absolute path of [A-Za-z0-9._/-]
 * without "..", 0 or 1, a word of a fixed list). No command=, netcat= or
 * name=: libvirt runs or passes them to a shell. 0, or -1 with one line in
 * err naming the parameter and what was expected.
 */
int conf_uri_check(const char *uri, char *err);

/*
 * The files a checked uri names (keyfile=, known_hosts=, pkipath=) resolved
 * (realpath) and confined to dirs, space-separated absolute directories, or,
 * when dirs is "", to ~/.ssh of the user the harness runs as. One the harness
 * cannot resolve for lack of permission is judged as written (ssh, running
 * as this user, cannot open it either); a missing one is refused. 0, or -1
 * with one line in err naming the parameter and the directories.
 */
int conf_uri_confine(const char *uri, const char *dirs, char *err);

#endif
