/* uri.c -- harness.conf's libvirt URIs by allow-list: the transport, a plain
 * user and host, every query parameter %-decoded and held to its syntax. */
#include "conf/uri.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The transports, each a bit for the parameters' table. */
enum {
	T_LOCAL = 1 << 0, T_UNIX = 1 << 1, T_SSH = 1 << 2, T_LIBSSH = 1 << 3,
	T_LIBSSH2 = 1 << 4, T_TCP = 1 << 5, T_TLS = 1 << 6,
};
#define T_SSHS (T_SSH | T_LIBSSH | T_LIBSSH2)

static const struct transport {
	const char *prefix;     /* scheme and "://" */
	unsigned bit;
	int remote;             /* a host part is allowed */
} transports[] = {
	{ "qemu://", T_LOCAL, 0 }, { "qemu+unix://", T_UNIX, 0 }, { "qemu+ssh://", T_SSH, 1 },
	{ "qemu+libssh://", T_LIBSSH, 1 }, { "qemu+libssh2://", T_LIBSSH2, 1 },
	{ "qemu+tcp://", T_TCP, 1 }, { "qemu+tls://", T_TLS, 1 },
};

/* How a parameter's value is written (after %-decoding). */
enum vsyntax {
	V_PATH,    /* an absolute path of PATH_CHARS, no ".." */
	V_FILE,    /* the same, a regular file confined to key_dirs (conf_uri_confine) */
	V_DIR,     /* the same, a directory confined to key_dirs */
	V_WORD,    /* one of words */
	V_WORDS,   /* a comma-separated list of words */
};

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-"
#define PATH_CHARS NAME_CHARS "_/"

/*
 * Every query parameter the harness passes on to libvirt, which transports
 * read it, and its value's syntax. Not here, so refused: command= and
 * netcat= (programs libvirt runs, the latter in the remote shell), name=
 * (the remote driver's URI: the harness names it in the path), tls_priority,
 * and anything libvirt may add later.
 */
static const struct uri_param {
	const char *name;
	unsigned transports;
	enum vsyntax syntax;
	const char *words;      /* V_WORD, V_WORDS: the values, '|'-separated */
} uri_params[] = {
	{ "socket", T_LOCAL | T_UNIX | T_SSHS, V_PATH, NULL },
	{ "keyfile", T_SSHS, V_FILE, NULL },
	{ "known_hosts", T_SSHS, V_FILE, NULL },
	{ "known_hosts_verify", T_LIBSSH | T_LIBSSH2, V_WORD, "normal|auto|ignore" },
	{ "sshauth", T_LIBSSH | T_LIBSSH2, V_WORDS, "agent|privkey" },
	{ "no_verify", T_SSHS | T_TLS, V_WORD, "0|1" },
	{ "no_tty", T_SSHS, V_WORD, "0|1" },
	{ "pkipath", T_TLS, V_DIR, NULL },
	{ "mode", T_LOCAL | T_UNIX | T_SSHS, V_WORD, "auto|legacy|direct" },
	{ "proxy", T_SSHS, V_WORD, "auto|netcat|native" },
};

/* One parameter of a query, found and decoded by next_param. */
struct param {
	const struct uri_param *p;
	const char *raw;          /* "name=value" as written */
	size_t raw_len;
	char value[PATH_MAX];     /* %-decoded */
};

/* The transport uri starts with, or NULL. */
static const struct transport *transport_of(const char *uri)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(transports); i++)
		if (!strncmp(uri, transports[i].prefix, strlen(transports[i].prefix)))
			return &transports[i];
	return NULL;
}

/* A hex digit's value, or -1. */
static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* src (len bytes) %-decoded into dst (size bytes): 0, or -1 on a '%' not
 * followed by two hex digits, a decoded NUL, or no room. */
static int pct_decode(const char *src, size_t len, char *dst, size_t size)
{
	size_t i, n = 0;
	int hi, lo;

	for (i = 0; i < len; i++) {
		if (n + 1 >= size)
			return -1;
		if (src[i] != '%') {
			dst[n++] = src[i];
			continue;
		}
		if (len - i < 3)
			return -1;
		hi = hexval((unsigned char)src[i + 1]);
		lo = hexval((unsigned char)src[i + 2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return -1;
		dst[n++] = (char)(hi << 4 | lo);
		i += 2;
	}
	dst[n] = '\0';
	return 0;
}

/* 1 if s is an absolute path of PATH_CHARS without "..". */
static int path_ok(const char *s)
{
	return s[0] == '/' && !strstr(s, "..") && strspn(s, PATH_CHARS) == strlen(s);
}

/* 1 if s (len bytes) is one of words ("a|b|c"). */
static int word_ok(const char *words, const char *s, size_t len)
{
	size_t n;

	for (; *words; words += n + (words[n] == '|')) {
		n = strcspn(words, "|");
		if (n == len && !strncmp(words, s, len))
			return 1;
	}
	return 0;
}

/* 1 if s is a comma-separated list of words, none empty. */
static int words_ok(const char *words, const char *s)
{
	size_t n;

	do {
		n = strcspn(s, ",");
		if (!word_ok(words, s, n))
			return 0;
		s += n;
	} while (*s++ == ',');
	return 1;
}

/* What a parameter's value must be, for messages. */
static void expected(const struct uri_param *p, char *buf, size_t len)
{
	switch (p->syntax) {
	case V_PATH:
	case V_FILE:
	case V_DIR:
		fmtcut(buf, len, "an absolute path of A-Za-z0-9._/- without '..'");
		return;
	case V_WORD:
		fmtcut(buf, len, "one of %s", p->words);
		return;
	case V_WORDS:
		fmtcut(buf, len, "a comma-separated list of %s", p->words);
		return;
	}
	fmtcut(buf, len, "?");
}

/* Does pr's decoded value have its parameter's syntax? 0, or -1 with why. */
static int value_check(const struct param *pr, char *err)
{
	char want[128];
	int ok;

	switch (pr->p->syntax) {
	case V_WORD:
		ok = word_ok(pr->p->words, pr->value, strlen(pr->value));
		break;
	case V_WORDS:
		ok = words_ok(pr->p->words, pr->value);
		break;
	default:
		ok = path_ok(pr->value);
	}
	if (ok)
		return 0;
	expected(pr->p, want, sizeof(want));
	return errorf(err, "URI parameter '%s': expected %s (after %%-decoding), got '%.*s'",
		      pr->p->name, want, (int)pr->raw_len, pr->raw);
}

/* The names of the parameters transport t reads, for a refusal. */
static void names_for(unsigned t, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(uri_params) && n < len; i++)
		if (uri_params[i].transports & t)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      uri_params[i].name);
	if (!n)
		fmtcut(buf, len, "none");
}

/* pr's row from its name (n bytes): 0, or -1 if the table has none for t. */
static int param_row(struct param *pr, size_t n, const struct transport *t, char *err)
{
	char names[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(uri_params); i++)
		if (strlen(uri_params[i].name) == n && !strncmp(pr->raw, uri_params[i].name, n) &&
		    (uri_params[i].transports & t->bit)) {
			pr->p = &uri_params[i];
			return 0;
		}
	names_for(t->bit, names, sizeof(names));
	return errorf(err, "URI parameter '%.*s' is not one the harness passes on (%.*s takes: "
		      "%s)", (int)pr->raw_len, pr->raw, (int)(strlen(t->prefix) - 3), t->prefix,
		      names);
}

/*
 * The next parameter of the query at *q (after '?') for transport t: its
 * row and %-decoded value, *q moved past it. 1 with one, 0 at the end, -1
 * with err.
 */
static int next_param(const char **q, const struct transport *t, struct param *pr, char *err)
{
	const char *eq;
	size_t n;

	if (!**q)
		return 0;
	pr->raw = *q;
	pr->raw_len = strcspn(*q, "&");
	*q += pr->raw_len + ((*q)[pr->raw_len] == '&');
	eq = memchr(pr->raw, '=', pr->raw_len);
	if (!eq || eq == pr->raw)
		return errorf(err, "URI parameter '%.*s': expected NAME=VALUE", (int)pr->raw_len,
			      pr->raw);
	n = (size_t)(eq - pr->raw);
	if (param_row(pr, n, t, err) < 0)
		return -1;
	if (pct_decode(eq + 1, pr->raw_len - n - 1, pr->value, sizeof(pr->value)) < 0)
		return errorf(err, "URI parameter '%s': '%.*s' has a '%%' not followed by two "
			      "hex digits (or encodes a NUL)", pr->p->name, (int)pr->raw_len, pr->raw);
	return 1;
}

/* Every parameter of query q, for t: known, once, its value's syntax right. */
static int query_check(const char *q, const struct transport *t, char *err)
{
	struct param pr;
	unsigned seen = 0, bit;
	int rc;

	if (!*q)
		return errorf(err, "URI: a '?' with no parameter after it");
	while ((rc = next_param(&q, t, &pr, err)) > 0) {
		bit = 1u << (pr.p - uri_params);
		if (seen & bit)
			return errorf(err, "URI parameter '%s' given twice", pr.p->name);
		seen |= bit;
		if (value_check(&pr, err) < 0)
			return -1;
	}
	return rc;
}

/* 1 if s (len bytes) is a host: a name or IPv4 address ([A-Za-z0-9.-], not
 * starting with '-'), or an IPv6 address in brackets; an optional :PORT. */
static int host_ok(const char *s, size_t len)
{
	size_t n, port;

	if (len && s[0] == '[') {
		n = strspn(s + 1, "0123456789abcdefABCDEF:.");
		if (n == 0 || n + 1 >= len || s[n + 1] != ']')
			return 0;
		n += 2;
	} else {
		n = strspn(s, NAME_CHARS);
		if (n > len)
			n = len;
		if (n && s[0] == '-')
			return 0;
	}
	if (n == len)
		return 1;
	port = strspn(s + n + 1, "0123456789");
	return s[n] == ':' && port >= 1 && port <= 5 && n + 1 + port == len &&
	       atoi(s + n + 1) <= 65535;
}

/* The authority (len bytes at a) of uri: [USER@]HOST[:PORT], plain characters. */
static int authority_check(const char *uri, const char *a, size_t len,
			   const struct transport *t, char *err)
{
	const char *at = memchr(a, '@', len);
	size_t ulen;

	if (len && !t->remote)
		return errorf(err, "URI '%.64s': this transport names no host", uri);
	ulen = at ? (size_t)(at - a) : 0;
	if (at && memchr(a, ':', ulen))
		return errorf(err, "URI '%.64s': no password in a URI (use ssh keys or TLS)", uri);
	if (at && (!ulen || a[0] == '-' || strspn(a, NAME_CHARS "_") != ulen))
		return errorf(err, "URI '%.64s': expected a user of A-Za-z0-9._- (not starting "
			      "with '-'), got '%.*s'", uri, (int)ulen, a);
	if (at && memchr(at + 1, '@', len - ulen - 1))
		return errorf(err, "URI '%.64s': expected one '@' at most", uri);
	if (at)
		len -= ulen + 1, a = at + 1;
	if (!host_ok(a, len))
		return errorf(err, "URI '%.64s': expected a host of A-Za-z0-9.- (not starting "
			      "with '-') or [IPv6], and an optional :PORT, got '%.*s'", uri,
			      (int)len, a);
	return 0;
}

/* The path of uri (at p, up to '?' or the end): /system or /session. */
static int path_check(const char *uri, const char *p, size_t len, char *err)
{
	if ((len == 7 && !strncmp(p, "/system", 7)) || (len == 8 && !strncmp(p, "/session", 8)))
		return 0;
	return errorf(err, "URI '%.64s': expected the path /system or /session", uri);
}

int conf_uri_check(const char *uri, char *err)
{
	const struct transport *t = transport_of(uri);
	const char *rest, *q;
	size_t i, auth;

	for (i = 0; uri[i]; i++)
		if (!isalnum((unsigned char)uri[i]) && !strchr("-._~:/?=&@%+,[]", uri[i]))
			return errorf(err, "URI '%.64s': character 0x%02x is not a URI's", uri,
				      (unsigned char)uri[i]);
	if (!t)
		return errorf(err, "URI '%.64s': expected qemu:// or qemu+ssh, +libssh, +libssh2, "
			      "+tcp, +tls or +unix://", uri);
	rest = uri + strlen(t->prefix);
	auth = strcspn(rest, "/?");
	q = strchr(rest + auth, '?');
	if (authority_check(uri, rest, auth, t, err) < 0 ||
	    path_check(uri, rest + auth, q ? (size_t)(q - rest - auth) : strlen(rest + auth),
		       err) < 0)
		return -1;
	return q ? query_check(q + 1, t, err) : 0;
}

/* ---- the files a URI names, confined ---- */

/* ~/.ssh of the user the harness runs as, into buf (PATH_MAX bytes): 0, or -1
 * if it has no home. */
static int home_ssh(char *buf)
{
	struct passwd pw, *res = NULL;
	char scratch[4096];

	if (getpwuid_r(geteuid(), &pw, scratch, sizeof(scratch), &res) != 0 || !res ||
	    !pw.pw_dir || pw.pw_dir[0] != '/')
		return -1;
	return pathf(buf, NULL, "%s/.ssh", pw.pw_dir);
}

/* 1 if path is dir or below it. */
static int below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || (path[n] == '\0' && n > 1));
}

/* 1 if path lies in one of dirs (space-separated), as written or resolved. */
static int in_dirs(const char *path, const char *dirs)
{
	char dir[PATH_MAX], real[PATH_MAX];
	size_t n;

	for (; *dirs; dirs += n + (dirs[n] == ' ')) {
		n = strcspn(dirs, " ");
		if (!n || pathf(dir, NULL, "%.*s", (int)n, dirs) < 0)
			continue;
		if (below(path, dir) || (realpath(dir, real) && below(path, real)))
			return 1;
	}
	return 0;
}

/*
 * pr's file (or directory) resolved and in dirs ("": ~/.ssh): 0, or -1 with
 * one line naming the parameter, the file and where it may be.
 */
static int confine_one(const struct param *pr, const char *dirs, char *err)
{
	char real[PATH_MAX], home[PATH_MAX] = "";
	const char *judged = real;
	struct stat st;
	int dir = pr->p->syntax == V_DIR;

	if (!dirs[0] && home_ssh(home) == 0)
		dirs = home;
	if (!realpath(pr->value, real)) {
		if (errno != EACCES)
			return errorf(err, "URI parameter '%s': '%.200s': %s", pr->p->name,
				      pr->value, strerror(errno));
		judged = pr->value;   /* hidden from this user: so from ssh run as it too */
	} else if (stat(real, &st) < 0 || (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		return errorf(err, "URI parameter '%s': '%.200s' is not a %s", pr->p->name,
			      pr->value, dir ? "directory" : "regular file");
	}
	if (dirs[0] && in_dirs(judged, dirs))
		return 0;
	return errorf(err, "URI parameter '%s': '%.200s'%s%.200s%s is outside the directories "
		      "ssh and TLS files may come from (%s%.200s)", pr->p->name, pr->value,
		      judged == real && strcmp(real, pr->value) ? " (resolving to " : "",
		      judged == real && strcmp(real, pr->value) ? real : "",
		      judged == real && strcmp(real, pr->value) ? ")" : "",
		      home[0] ? "key_dirs in harness.conf is empty: " : "key_dirs in harness.conf: ",
		      dirs[0] ? dirs : "none, and this user has no home");
}

int conf_uri_confine(const char *uri, const char *dirs, char *err)
{
	const struct transport *t = transport_of(uri);
	const char *q = strchr(uri, '?');
	struct param pr;
	int rc;

	if (!t || !q)
		return 0;
	q++;
	while ((rc = next_param(&q, t, &pr, err)) > 0)
		if ((pr.p->syntax == V_FILE || pr.p->syntax == V_DIR) &&
		    confine_one(&pr, dirs, err) < 0)
			return -1;
	return rc;
}
