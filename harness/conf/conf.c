/* conf.c -- parse harness.conf strictly: known keys only, typed, in range,
 * every bad line reported as file:line before giving up. */
#include "conf/conf.h"
#include "conf/uri.h"
#include "base/err.h"
#include "base/proc.h"
#include "base/results.h"
#include "base/textline.h"
#include "common/fmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum ckind { C_PATH, C_PATHS, C_STR, C_UINT, C_HOST };

struct ckey {
	const char *name;
	enum ckind kind;
	size_t off;
	uint64_t min, max;      /* C_UINT range; C_STR length unless empty; C_PATHS buffer size */
	const char *def;
	const char *help;
	const char *choices;    /* C_STR: the values allowed, space-separated (NULL: any) */
};

#define COFF(m) offsetof(struct conf, m)

static const struct ckey keys[] = {
	{ "results", C_PATH, COFF(results), 0, 0, "results",
	  "database, per-run directories and caches", NULL },
	{ "images", C_PATH, COFF(images), 0, 0, "images/out",
	  "guest images built by `make images`", NULL },
	{ "presets", C_PATH, COFF(presets), 0, 0, "workloads/presets",
	  "workload presets a matrix names with \"preset\"", NULL },
	{ "uri", C_STR, COFF(uri), 0, CONF_HOST_URI_MAX - 1, "",
	  "libvirt URI; empty: qemu:///embed under <results>/libvirt", NULL },
	{ "memory_mib", C_UINT, COFF(memory_mib), 128, 1 << 20, "512", "guest RAM, MiB", NULL },
	{ "vcpus", C_UINT, COFF(vcpus), 1, 256, "2", "guest vCPUs", NULL },
	{ "boot_timeout_s", C_UINT, COFF(boot_timeout_s), 5, 3600, "120",
	  "seconds from domain start to the agent's hello", NULL },
	{ "slack_s", C_UINT, COFF(slack_s), 5, 3600, "60",
	  "seconds beyond a workload's duration before its run times out", NULL },
	{ "accel", C_STR, COFF(accel), 0, 7, "auto", "auto (probe KVM), kvm or tcg", "auto kvm tcg" },
	{ "tcg_thread", C_STR, COFF(tcg_thread), 0, 7, "auto",
	  "TCG guests of more than one vCPU: auto (single-threaded on a QEMU before 8.1, whose "
	  "multi-threaded TCG can run stale code after the kernel patches itself), single, or "
	  "multi (on such a QEMU only to measure that race)", "auto single multi" },
	{ "start", C_STR, COFF(start), 0, 7, "boot",
	  "how a run's guest starts unless its matrix says: boot, or restore (from a guest saved "
	  "once per arm as it was ready for its job; docs/restore.md)", "boot restore" },
	{ "saves", C_UINT, COFF(saves), 1, 64, "4",
	  "saved guests per arm and host, each from a boot of its own: block b restores save "
	  "b mod saves, so one save's memory layout is not every block's", NULL },
	{ "saves_max_mib", C_UINT, COFF(saves_max_mib), 64, UINT64_C(1) << 30, "4096",
	  "saved guests kept in <results>/cache/saves, MiB; the least recently used go first",
	  NULL },
	{ "api_socket", C_STR, COFF(api_socket), 0, PATH_MAX - 1, "",
	  "the daemon's HTTP API: a unix socket, mode 0600 (empty: <results>/harnessd.sock)", NULL },
	{ "api_group", C_STR, COFF(api_group), 0, 63, "",
	  "a group that may use the API too (socket mode 0660)", NULL },
	{ "api_tcp", C_STR, COFF(api_tcp), 0, 63, "",
	  "also listen on HOST:PORT (off when empty); requires api_token", NULL },
	{ "api_token", C_STR, COFF(api_token), CONF_TOKEN_MIN, 127, "",
	  "bearer token every TCP request must carry", NULL },
	{ "guests", C_UINT, COFF(guests), 0, 256, "0",
	  "guests at once; 0: cores / vcpus, at least 1", NULL },
	{ "pin", C_UINT, COFF(pin), 0, 1, "1", "pin each guest's vCPUs to cores of its own", NULL },
	{ "watchdog_intervals", C_UINT, COFF(watchdog_intervals), 2, 1000, "10",
	  "a run that sends no sample for this many intervals times out", NULL },
	{ "watchdog_min_s", C_UINT, COFF(watchdog_min_s), 0, 3600, "15",
	  "... and for at least this many seconds (a TCG guest on a loaded host can pause "
	  "for several short intervals)", NULL },
	{ "retries", C_UINT, COFF(retries), 0, 10, "1",
	  "re-runs of a run that failed for the harness's own reasons (not a kernel crash)", NULL },
	{ "bisections_max", C_UINT, COFF(bisections_max), 1, 1000, "8",
	  "bisections queued or running at once in harnessd; one more is refused", NULL },
	{ "build_memory_mib", C_UINT, COFF(build_memory_mib), 0, UINT64_C(1) << 30, "0",
	  "memory a kernel build's jail may use, MiB, its /tmp included (a cgroup of its own: "
	  "memory.max); 0: half of the host's RAM", NULL },
	{ "webhook", C_STR, COFF(webhook), 0, PATH_MAX - 1, "",
	  "URL to POST JSON to when a matrix finishes or a run crashes (empty: none)", NULL },
	{ "kernel_dirs", C_PATHS, COFF(kernel_dirs), 0, CONF_KERNEL_DIRS_MAX, "",
	  "directories, space-separated, kernels and modules named by path may come from "
	  "besides images (empty: the matrix's own directory too)", NULL },
	{ "source_dirs", C_PATHS, COFF(source_dirs), 0, CONF_KERNEL_DIRS_MAX, "",
	  "directories, space-separated, kernel source trees, patch series and .config files "
	  "named by path may come from (empty: the matrix's own directory)", NULL },
	{ "key_dirs", C_PATHS, COFF(key_dirs), 0, CONF_KERNEL_DIRS_MAX, "",
	  "directories, space-separated, a URI's keyfile=, known_hosts= and pkipath= may name "
	  "(empty: ~/.ssh of the user the harness runs as)", NULL },
	{ "quiet_cpu_pct", C_UINT, COFF(quiet_cpu_pct), 1, 100, "30",
	  "before a run: the host is quiet when its CPU pressure (/proc/pressure/cpu, some) "
	  "stalls at most this % of a 1 s window (100, with quiet_io_pct 100: gate and flag off)", NULL },
	{ "contended_cpu_pct", C_UINT, COFF(contended_cpu_pct), 1, 100, "50",
	  "a run whose measured window's CPU pressure stalled more than this % of it is "
	  "contended (its own guest's vCPUs stall the host too: higher than quiet_cpu_pct)", NULL },
	{ "contended_others_pct", C_UINT, COFF(contended_others_pct), 0, 800, "25",
	  "and only if something but the run's own QEMU used more than this % of one CPU "
	  "meanwhile (a guest whose QEMU wants more threads than the host has cores stalls "
	  "the host by itself); known for guests of the embedded driver", NULL },
	{ "quiet_io_pct", C_UINT, COFF(quiet_io_pct), 1, 100, "20",
	  "the same for I/O pressure (/proc/pressure/io, some), before a run and while it measures", NULL },
	{ "quiet_load_pct", C_UINT, COFF(quiet_load_pct), 1, 1000, "100",
	  "on a host without PSI: its 1-minute load per core, in %, at most this", NULL },
	{ "quiet_wait_s", C_UINT, COFF(quiet_wait_s), 0, 3600, "120",
	  "seconds a run waits for a quiet host before it starts anyway, flagged", NULL },
	{ "host", C_HOST, 0, 0, 0, NULL,
	  "a machine guests run on, once per line: NAME URI [slots=N] [arch=A[,B]] "
	  "[storage=/DIR] (none: this one, through the embedded driver)", NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL },
};

/* api_token: visible ASCII only (0x21-0x7e), what a bearer header can carry. */
static int token_chars(const char *name, const char *val, char *err)
{
	size_t i;

	for (i = 0; val[i]; i++)
		if (val[i] < 0x21 || val[i] > 0x7e)
			return errorf(err, "'%s': expected visible characters (0x21-0x7e), got 0x%02x "
				      "at %zu", name, (unsigned char)val[i], i + 1);
	return 0;
}

/* One of key_dirs: absolute, a directory that exists, not the root. */
static int key_dir(const char *name, const char *d, size_t len, char *err)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct stat st;

	if (fmtbuf(path, sizeof(path), "%.*s", (int)len, d) < 0)
		return errorf(err, "'%s': '%.64s...': path too long", name, d);
	if (path[0] != '/')
		return errorf(err, "'%s': '%s': expected an absolute path", name, path);
	if (stat(path, &st) < 0)
		return errorf(err, "'%s': '%s': %s", name, path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return errorf(err, "'%s': '%s': expected a directory", name, path);
	if (!realpath(path, real) || !strcmp(real, "/"))
		return errorf(err, "'%s': '%s': expected a directory below the root", name, path);
	return 0;
}

/*
 * key_dirs: the directories a URI's key files may come from, each by
 * key_dir, the value of printable characters (words split on blanks).
 */
static int key_dirs_ok(const char *name, const char *val, char *err)
{
	size_t i, len;

	for (i = 0; val[i]; i++)
		if ((val[i] < 0x20 && val[i] != '\t') || val[i] == 0x7f)
			return errorf(err, "'%s': expected printable characters, got 0x%02x", name,
				      (unsigned char)val[i]);
	for (val += strspn(val, " \t"); *val; val += len, val += strspn(val, " \t")) {
		len = strcspn(val, " \t");
		if (key_dir(name, val, len, err) < 0)
			return -1;
	}
	return 0;
}

/* Keys whose values have rules beyond their kind's: checked as written, before set_key. */
static const struct {
	const char *name;
	int (*check)(const char *name, const char *val, char *err);
} key_rules[] = {
	{ "api_token", token_chars },
	{ "key_dirs", key_dirs_ok },
};

/* key's own rule on val, if it has one. 0, or -1 with err. */
static int key_rule(const char *key, const char *val, char *err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(key_rules); i++)
		if (!strcmp(key_rules[i].name, key))
			return key_rules[i].check(key, val, err);
	return 0;
}

/* Is w one of the space-separated words of list? */
static int word_in(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = list; n && (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* ---- host lines ---- */

int conf_host_name_ok(const char *s)
{
	size_t i;

	if (!s[0] || s[0] == '.' || s[0] == '-' || strlen(s) >= CONF_HOST_NAME_MAX)
		return 0;
	for (i = 0; s[i]; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    !strchr("._-", s[i]))
			return 0;
	return 1;
}

/*
 * 1 if s is a storage directory for another host's pool: absolute, of
 * A-Za-z0-9._/- without "/.." or "/./", shorter than CONF_HOST_DIR_MAX.
 */
static int storage_ok(const char *s)
{
	size_t i;

	if (s[0] != '/' || strstr(s, "/..") || strstr(s, "/./") || strlen(s) >= CONF_HOST_DIR_MAX)
		return 0;
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._/-", s[i]))
			return 0;
	return 1;
}

/*
 * A host's archs= (comma-separated x86_64 and aarch64) as a space-separated
 * list; -1 with err naming the host.
 */
static int archs_set(struct conf_host *h, const char *val, char *err)
{
	char list[sizeof(h->archs)] = "";
	size_t n = 0, len;

	for (; *val; val += len + (val[len] == ',')) {
		len = strcspn(val, ",");
		if (!((len == 6 && !strncmp(val, "x86_64", 6)) ||
		      (len == 7 && !strncmp(val, "aarch64", 7))))
			return errorf(err, "host '%s': arch '%.*s': expected x86_64 or aarch64",
				      h->name, (int)len, val);
		/* a cut list is refused: n past the buffer made the next size wrap */
		if (fmtbuf(list + n, sizeof(list) - n, "%s%.*s", n ? " " : "", (int)len, val) < 0)
			return errorf(err, "host '%s': archs: at most %zu characters", h->name,
				      sizeof(list) - 1);
		n += strlen(list + n);
	}
	memcpy(h->archs, list, sizeof(list));
	return 0;
}

/* slots=N, arch=A,B or storage=/DIR of a host line. */
static int host_option(struct conf_host *h, const char *opt, char *err)
{
	char *end;
	unsigned long long v;

	if (!strncmp(opt, "slots=", 6)) {
		errno = 0;
		v = strtoull(opt + 6, &end, 10);
		if (errno || end == opt + 6 || *end || !isdigit((unsigned char)opt[6]) || !v ||
		    v > 64)
			return errorf(err, "host '%s': slots: expected 1..64, got '%s'", h->name,
				      opt + 6);
		h->slots = v;
		return 0;
	}
	if (!strncmp(opt, "arch=", 5))
		return archs_set(h, opt + 5, err);
	if (!strncmp(opt, "storage=", 8)) {
		if (!storage_ok(opt + 8))
			return errorf(err, "host '%s': storage: expected an absolute directory of "
				      "letters, digits and ._/-, got '%.64s'", h->name, opt + 8);
		if (fmtbuf(h->storage, sizeof(h->storage), "%s", opt + 8) < 0)
			return errorf(err, "host '%s': storage: '%.64s...' over %zu characters",
				      h->name, opt + 8, sizeof(h->storage) - 1);
		return 0;
	}
	return errorf(err, "host '%s': '%.32s': expected slots=N, arch=A[,B] or storage=/DIR",
		      h->name, opt);
}

/* Split val on blanks into at most max words (val is changed). */
static int words(char *val, char **w, int max)
{
	int n = 0;

	for (val += strspn(val, " \t"); *val && n < max; val += strspn(val, " \t")) {
		w[n++] = val;
		val += strcspn(val, " \t");
		if (*val)
			*val++ = '\0';
	}
	return *val ? max + 1 : n;
}

/*
 * A "host = NAME URI [options]" line: a name no other host has, "embedded"
 * or a URI libvirt may open, and its options (slots=, arch=, storage=).
 */
static int host_line(struct conf *c, char *val, int lineno, char *err)
{
	struct conf_host *h;
	char *w[8], msg[ERR_MAX];
	int n = words(val, w, 6), i;
	unsigned j;

	if (n < 2 || n > 5)
		return errorf(err, "'host': expected NAME URI [slots=N] [arch=A[,B]] [storage=/DIR]");
	if (c->nhosts == CONF_HOSTS_MAX)
		return errorf(err, "'host': more than %d hosts", CONF_HOSTS_MAX);
	if (!conf_host_name_ok(w[0]))
		return errorf(err, "'host': name '%.40s': expected lowercase letters, digits and "
			      "._- (at most %d)", w[0], CONF_HOST_NAME_MAX - 1);
	for (j = 0; j < c->nhosts; j++)
		if (!strcmp(c->hosts[j].name, w[0]))
			return errorf(err, "'host': '%s' is named twice", w[0]);
	h = &c->hosts[c->nhosts];
	memset(h, 0, sizeof(*h));
	if (fmtbuf(h->name, sizeof(h->name), "%s", w[0]) < 0)
		return errorf(err, "'host': name '%.40s...': at most %d characters", w[0],
			      CONF_HOST_NAME_MAX - 1);
	if (strcmp(w[1], "embedded")) {
		if (fmtbuf(h->uri, sizeof(h->uri), "%s", w[1]) < 0)
			return errorf(err, "host '%s': URI longer than %zu characters", h->name,
				      sizeof(h->uri) - 1);
		if (conf_uri_check(w[1], msg) < 0)
			return errorf(err, "host '%s': %s", h->name, msg);
		if (fmtbuf(h->storage, sizeof(h->storage), "/var/lib/mglru-harness/pool") < 0)
			return errorf(err, "host '%s': the default storage path is over %zu bytes",
				      h->name, sizeof(h->storage) - 1);
		h->slots = 1;
	}
	for (i = 2; i < n; i++)
		if (host_option(h, w[i], err) < 0)
			return -1;
	h->line = lineno;
	c->nhosts++;
	return 0;
}

/* Space-separated paths into dst (size bytes), one space apart, relative ones from dir. */
static int set_paths(char *dst, size_t size, const char *name, const char *val,
		     const char *dir, char *err)
{
	size_t n = 0, len;
	int rel, w;

	dst[0] = '\0';
	for (val += strspn(val, " \t"); *val; val += len, val += strspn(val, " \t")) {
		len = strcspn(val, " \t");
		rel = val[0] != '/' && dir;
		w = snprintf(dst + n, size - n, "%s%s%s%.*s", n ? " " : "", rel ? dir : "",
			     rel ? "/" : "", (int)len, val);
		if (w < 0 || (size_t)w >= size - n)
			return errorf(err, "'%s': longer than %zu characters", name, size - 1);
		n += (size_t)w;
	}
	return 0;
}

/*
 * A harness.conf key's value by its kind (a path relative to the file's
 * directory, paths, a string, a number in range, a choice); -1 with err.
 */
static int set_key(struct conf *c, const struct ckey *k, const char *val, const char *dir,
		   char *err)
{
	char *end, *dst = (char *)c + k->off, msg[ERR_MAX];
	unsigned long long v;
	int n;

	switch (k->kind) {
	case C_PATH:
		if (val[0] == '/' || !dir)
			n = snprintf(dst, PATH_MAX, "%s", val);
		else
			n = snprintf(dst, PATH_MAX, "%s/%s", dir, val);
		if (n >= PATH_MAX)
			return errorf(err, "'%s': path too long", k->name);
		return 0;
	case C_PATHS:
		return set_paths(dst, k->max, k->name, val, dir, err);
	case C_STR:
		if (strlen(val) > k->max)
			return errorf(err, "'%s': longer than %llu characters", k->name,
				      (unsigned long long)k->max);
		if (val[0] && strlen(val) < k->min)
			return errorf(err, "'%s': expected at least %llu characters, got %zu", k->name,
				      (unsigned long long)k->min, strlen(val));
		strcpy(dst, val);
		if (!strcmp(k->name, "uri") && val[0] && conf_uri_check(val, msg) < 0)
			return errorf(err, "'uri': %s", msg);
		if (k->choices && !word_in(k->choices, val))
			return errorf(err, "'%s': expected one of %s, got '%s'", k->name, k->choices,
				      val);
		return 0;
	case C_HOST:
		return 0;   /* host lines go through host_line() */
	case C_UINT:
		errno = 0;
		v = strtoull(val, &end, 10);
		if (errno || end == val || *end || !isdigit((unsigned char)val[0]))
			return errorf(err, "'%s': expected a whole number, got '%s'", k->name, val);
		if (v < k->min || v > k->max)
			return errorf(err, "'%s': expected %llu..%llu, got %llu", k->name,
				      (unsigned long long)k->min, (unsigned long long)k->max, v);
		*(uint64_t *)dst = v;
		return 0;
	}
	return errorf(err, "'%s': no kind", k->name);
}

void conf_defaults(struct conf *c, const char *dir)
{
	const struct ckey *k;

	memset(c, 0, sizeof(*c));
	for (k = keys; k->name; k++)
		if (k->def)
			set_key(c, k, k->def, dir, NULL);
}

/* s without its leading and trailing white space (the end cut in place). */
static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * One line of harness.conf: blank or a comment, a host line, or key = value;
 * seen[i] the line keys[i] was given on (0: not yet), a second is refused.
 */
static int conf_line(struct conf *c, char *line, const char *dir, int lineno, int *seen,
		     char *err)
{
	const struct ckey *k;
	char *eq, *key, *val;

	line = trim(line);
	if (!*line || *line == '#')
		return 0;
	eq = strchr(line, '=');
	if (!eq)
		return errorf(err, "expected 'key = value'");
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (!strcmp(key, "host"))
		return host_line(c, val, lineno, err);
	if (!strcmp(key, "uri"))
		c->uri_line = lineno;
	for (k = keys; k->name; k++) {
		if (strcmp(k->name, key))
			continue;
		if (seen[k - keys])
			return errorf(err, "'%s': given twice, on lines %d and %d", key,
				      seen[k - keys], lineno);
		seen[k - keys] = lineno;
		if (key_rule(key, val, err) < 0)
			return -1;
		return set_key(c, k, val, dir, err);
	}
	return errorf(err, "unknown key '%s'", key);
}

/* One line (len bytes, no newline): 0, or -1 with the reason in msg. */
static int conf_text_line(struct conf *c, const char *text, size_t len, const char *dir,
			  int lineno, int *seen, char *msg)
{
	char line[CONF_LINE_MAX + 1];

	if (len > CONF_LINE_MAX)
		return errorf(msg, "line too long");
	if (memchr(text, '\0', len))
		return errorf(msg, "NUL byte in line");
	memcpy(line, text, len);
	line[len] = '\0';
	return conf_line(c, line, dir, lineno, seen, msg);
}


/*
 * A bad line's message, each said once: the first waits in first (the
 * caller prints err, so a file with one bad line prints it once, there);
 * from the second on, the one held and each new one go to stderr.
 */
static void conf_report(const char *label, int lineno, const char *msg, int bad, char *first)
{
	if (bad == 1) {
		fmtcut(first, ERR_MAX, "%s:%d: %.400s", label, lineno, msg);
		return;
	}
	if (bad == 2)
		escape_line(stderr, "%s", first);
	escape_line(stderr, "%s:%d: %s", label, lineno, msg);
}

/*
 * Once every line is read (key_dirs may come after the URIs): the files
 * each URI names, confined to key_dirs, each refusal reported as its line's
 * (bad counted on).
 */
static void confine_uris(const struct conf *c, const char *label, int *bad, char *first)
{
	char msg[ERR_MAX + 64], why[ERR_MAX];
	unsigned i;

	if (c->uri[0] && conf_uri_check(c->uri, why) == 0 &&
	    conf_uri_confine(c->uri, c->key_dirs, why) < 0) {
		fmtcut(msg, sizeof(msg), "'uri': %s", why);
		conf_report(label, c->uri_line, msg, ++*bad, first);
	}
	for (i = 0; i < c->nhosts; i++)
		if (c->hosts[i].uri[0] && conf_uri_confine(c->hosts[i].uri, c->key_dirs, why) < 0) {
			fmtcut(msg, sizeof(msg), "host '%s': %s", c->hosts[i].name, why);
			conf_report(label, c->hosts[i].line, msg, ++*bad, first);
		}
}

int conf_load_text(struct conf *c, const char *text, size_t len, const char *label,
		   const char *dir, char *err)
{
	const char *p = text, *end = text + len, *nl;
	char msg[ERR_MAX], first[ERR_MAX];
	int lineno = 0, bad = 0, seen[ARRAY_SIZE(keys)] = { 0 };
	size_t n;

	conf_defaults(c, dir);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		if (conf_text_line(c, p, n, dir, lineno, seen, msg) < 0) {
			conf_report(label, lineno, msg, ++bad, first);
			if (n > CONF_LINE_MAX)
				break;
		}
		p += n + (nl != NULL);
	}
	confine_uris(c, label, &bad, first);
	if (bad == 1)
		return errorf(err, "%s", first);
	if (bad)
		return errorf(err, "%s: %d lines refused, each above", label, bad);
	return 0;
}

int conf_load(struct conf *c, const char *path, char *err)
{
	_cleanup_free_ char *text = NULL;
	char dir[PATH_MAX], *slash;
	size_t len = 0;

	if (read_regular_file(path, CONF_FILE_MAX, &text, &len, err) < 0 ||
	    pathf(dir, err, "%s", path) < 0)
		return -1;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	return conf_load_text(c, text, len, path, dir, err);
}

int conf_check_daemon(const struct conf *c, const char *path, char *err)
{
	if (c->api_tcp[0] && !c->kernel_dirs[0])
		return errorf(err, "%s: api_tcp is set but kernel_dirs is empty: network clients "
			      "choose where a matrix's paths start, so kernel_dirs must name the "
			      "directories kernels may come from", path ? path : "harness.conf");
	if (c->api_tcp[0] && !c->source_dirs[0])
		return errorf(err, "%s: api_tcp is set but source_dirs is empty: network clients "
			      "choose where a matrix's paths start, so source_dirs must name the "
			      "directories kernel sources and patches may come from",
			      path ? path : "harness.conf");
	return 0;
}

unsigned conf_hosts(const struct conf *c, struct conf_host *one, const struct conf_host **ret)
{
	if (c->nhosts) {
		*ret = c->hosts;
		return c->nhosts;
	}
	memset(one, 0, sizeof(*one));
	/* both fit: "localhost", and harness.conf's uri, read at most CONF_HOST_URI_MAX - 1
	 * bytes long (conf_keys) */
	if ((gethostname(one->name, sizeof(one->name) - 1) < 0 || !one->name[0]) &&
	    fmtbuf(one->name, sizeof(one->name), "localhost") < 0)
		abort();
	if (fmtbuf(one->uri, sizeof(one->uri), "%s", c->uri) < 0)
		abort();
	*ret = one;
	return 1;
}

/* uri, or the embedded driver's under results when it is "", into buf. */
static int uri_or_embedded(const struct conf *c, const char *uri, char *buf, size_t len,
			   char *err)
{
	if (uri[0] ? fmtbuf(buf, len, "%s", uri) :
		     fmtbuf(buf, len, "qemu:///embed?root=%s/libvirt", c->results))
		return errorf(err, "the libvirt URI for %.64s... is %zu bytes or longer",
			      uri[0] ? uri : c->results, len);
	return 0;
}

int conf_host_uri(const struct conf *c, const struct conf_host *h, char *buf, size_t len,
		  char *err)
{
	return uri_or_embedded(c, h->uri, buf, len, err);
}

int conf_uri(const struct conf *c, char *buf, size_t len, char *err)
{
	return uri_or_embedded(c, c->uri, buf, len, err);
}

static void absolute(char *path)
{
	char real[PATH_MAX];

	if (realpath(path, real))
		memcpy(path, real, strlen(real) + 1);   /* realpath: under PATH_MAX */
}

int conf_setup(struct conf *c, const char *path, char *err)
{
	if (path) {
		if (conf_load(c, path, err) < 0)
			return -1;
	} else if (access("harness.conf", F_OK) == 0) {
		if (conf_load(c, "harness.conf", err) < 0)
			return -1;
	} else {
		conf_defaults(c, ".");
	}
	if (c->nhosts && c->uri[0])
		return errorf(err, "%s: uri and host lines are both set: name every machine in a "
			      "host line (the embedded driver is 'embedded')",
			      path ? path : "harness.conf");
	if (c->api_tcp[0] && !c->api_token[0])
		return errorf(err, "%s: api_tcp is set but api_token is empty: a TCP listener "
			      "needs a token", path ? path : "harness.conf");
	if (results_setup(c->results, c->api_group, err) < 0)
		return -1;
	absolute(c->results);
	if (!c->api_socket[0] &&
	    fmtbuf(c->api_socket, sizeof(c->api_socket), "%s/harnessd.sock", c->results) < 0)
		return errorf(err, "results '%.64s...': its api_socket path is over %zu bytes",
			      c->results, sizeof(c->api_socket) - 1);
	absolute(c->images);
	absolute(c->presets);
	return 0;
}
