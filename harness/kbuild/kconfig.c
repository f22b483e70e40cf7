/* kconfig.c -- config lines by allow-list (no path kbuild would read on the host),
 * the required fragment joined with the user's, and the .config checked against it. */
#include "kbuild/kconfig.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

#define FRAGMENT_FILE_MAX (1 << 20)
#define DOTCONFIG_MAX     (4 << 20)

/*
 * The string symbols of Linux 6.12's Kconfig whose value is a path (their help
 * names a file or directory). HOST ones kbuild reads on the build host (a
 * Makefile makes them prerequisites, cats or #includes them): only "" is taken,
 * or the one value kbuild makes inside the tree. GUEST ones are paths in the
 * booted guest (or a command line holding them), so they may be absolute.
 */
enum path_kind { PATH_HOST, PATH_GUEST };

static const struct path_symbol {
	const char *name;
	enum path_kind kind;
	const char *in_tree;     /* PATH_HOST: a value besides "" that stays in the tree */
} path_symbols[] = {
	{ "CONFIG_INITRAMFS_SOURCE", PATH_HOST, NULL },            /* usr/Makefile */
	{ "CONFIG_EXTRA_FIRMWARE", PATH_HOST, NULL },              /* firmware_loader/builtin */
	{ "CONFIG_EXTRA_FIRMWARE_DIR", PATH_HOST, NULL },
	{ "CONFIG_MODULE_SIG_KEY", PATH_HOST, "certs/signing_key.pem" },   /* certs/Makefile */
	{ "CONFIG_SYSTEM_TRUSTED_KEYS", PATH_HOST, NULL },
	{ "CONFIG_SYSTEM_REVOCATION_KEYS", PATH_HOST, NULL },
	{ "CONFIG_SYSTEM_BLACKLIST_HASH_LIST", PATH_HOST, NULL },
	{ "CONFIG_ACPI_CUSTOM_DSDT_FILE", PATH_HOST, NULL },       /* #included by tables.c */
	{ "CONFIG_BOOT_CONFIG_EMBED_FILE", PATH_HOST, NULL },      /* lib/Makefile */
	{ "CONFIG_CFG80211_EXTRA_REGDB_KEYDIR", PATH_HOST, NULL }, /* net/wireless/Makefile */
	{ "CONFIG_IPE_BOOT_POLICY", PATH_HOST, NULL },             /* security/ipe/Makefile */
	{ "CONFIG_UNUSED_KSYMS_WHITELIST", PATH_HOST, NULL },      /* Makefile.modpost */
	{ "CONFIG_NIOS2_DTB_SOURCE", PATH_HOST, NULL },            /* an absolute .dts */
	{ "CONFIG_CMDLINE", PATH_GUEST, NULL },
	{ "CONFIG_DEFAULT_INIT", PATH_GUEST, NULL },
	{ "CONFIG_MODPROBE_PATH", PATH_GUEST, NULL },
	{ "CONFIG_UEVENT_HELPER_PATH", PATH_GUEST, NULL },
	{ "CONFIG_STATIC_USERMODEHELPER_PATH", PATH_GUEST, NULL },
	{ "CONFIG_IMA_X509_PATH", PATH_GUEST, NULL },
	{ "CONFIG_EVM_X509_PATH", PATH_GUEST, NULL },
	{ "CONFIG_SECURITY_TOMOYO_POLICY_LOADER", PATH_GUEST, NULL },
	{ "CONFIG_SECURITY_TOMOYO_ACTIVATION_TRIGGER", PATH_GUEST, NULL },
};

/* The row of path_symbols for sym (n bytes), or NULL. */
static const struct path_symbol *path_symbol(const char *sym, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(path_symbols); i++)
		if (strlen(path_symbols[i].name) == n && !strncmp(path_symbols[i].name, sym, n))
			return &path_symbols[i];
	return NULL;
}

/* CONFIG_ and then [A-Z0-9_]+, n bytes of s. */
static int symbol_ok(const char *s, size_t n)
{
	size_t i;

	if (n <= 7 || strncmp(s, "CONFIG_", 7))
		return 0;
	for (i = 7; i < n; i++)
		if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* Are v's n bytes all in 0-9 (hex: 0-9a-fA-F), and at least one? */
static int digits_ok(const char *v, size_t n, int hex)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(hex ? isxdigit((unsigned char)v[i]) : isdigit((unsigned char)v[i])))
			return 0;
	return n > 0;
}

/* y, n, m, [0-9]+ (a Kconfig int may be negative), 0x[0-9a-fA-F]+, or "..." (checked after). */
static int value_form_ok(const char *v)
{
	size_t n = strlen(v);

	if (!strcmp(v, "y") || !strcmp(v, "n") || !strcmp(v, "m"))
		return 1;
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
		return 1;
	if (!strncmp(v, "0x", 2))
		return digits_ok(v + 2, n - 2, 1);
	return v[0] == '-' ? digits_ok(v + 1, n - 1, 0) : digits_ok(v, n, 0);
}

/* A string's text (n bytes): printable ASCII without $, `, \ or ". */
static int text_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || strchr("$`\\\"", s[i]))
			return 0;
	return 1;
}

/* Does the text (n bytes) name a path outside the tree: a word (split on ' ', ',' and
 * '=') starting with '/', or ".." anywhere? */
static int leaves_tree(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '/' && (i == 0 || strchr(" ,=", s[i - 1])))
			return 1;
		if (s[i] == '.' && i + 1 < n && s[i + 1] == '.')
			return 1;
	}
	return 0;
}

/* line as it may be shown in a message: at most 80 bytes, unprintables as '?'. */
static const char *shown(const char *line, char *buf, size_t size)
{
	size_t i;

	for (i = 0; line[i] && i + 1 < size && i < 80; i++)
		buf[i] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* The quoted value v (len bytes with its quotes) of sym (n bytes): its text, its path. */
static int string_ok(const char *line, const char *sym, size_t n, const char *v, size_t len,
		     char *err)
{
	const struct path_symbol *p = path_symbol(sym, n);
	char buf[96];

	if (!text_ok(v + 1, len - 2))
		return errorf(err, "%.*s: expected a string without '$', '`', '\\', '\"' or a "
			      "control byte, got '%s'", (int)n, sym, shown(line, buf, sizeof(buf)));
	if (p && p->kind == PATH_HOST && len > 2 &&
	    !(p->in_tree && len - 2 == strlen(p->in_tree) && !strncmp(v + 1, p->in_tree, len - 2)))
		return errorf(err, "%s names a file kbuild reads on the build host: expected \"\"%s%s%s, "
			      "got '%s'", p->name, p->in_tree ? " or \"" : "",
			      p->in_tree ? p->in_tree : "", p->in_tree ? "\"" : "",
			      shown(line, buf, sizeof(buf)));
	if (leaves_tree(v + 1, len - 2) && !(p && p->kind == PATH_GUEST && !strstr(v, "..")))
		return errorf(err, "%.*s: expected a string naming no path outside the tree (none "
			      "absolute, no '..'), got '%s'", (int)n, sym, shown(line, buf, sizeof(buf)));
	return 0;
}

int kconfig_line_check(const char *line, char *err)
{
	const char *eq = strchr(line, '=');
	char buf[96];
	size_t n;

	if (!strncmp(line, "# CONFIG_", 9)) {
		n = strcspn(line + 2, " ");
		if (symbol_ok(line + 2, n) && !strcmp(line + 2 + n, " is not set"))
			return 0;
	} else if (eq && symbol_ok(line, (size_t)(eq - line)) && value_form_ok(eq + 1)) {
		n = (size_t)(eq - line);
		return eq[1] == '"' ? string_ok(line, line, n, eq + 1, strlen(eq + 1), err) : 0;
	}
	return errorf(err, "expected CONFIG_NAME=y|n|m|a number|0xHEX|\"text\", or \"# CONFIG_NAME "
		      "is not set\", got '%s'", shown(line, buf, sizeof(buf)));
}

int kconfig_line_ok(const char *line)
{
	return kconfig_line_check(line, NULL) == 0;
}

/* One line (n bytes at p, line number no) of a .config file: blank, a comment, or a setting. */
static int file_line(const char *path, unsigned no, const char *p, size_t n, char *err)
{
	char line[512], msg[ERR_MAX];

	if (!n || (p[0] == '#' && (n < 9 || strncmp(p, "# CONFIG_", 9))))
		return 0;           /* a comment; "# CONFIG_X is not set" is a setting */
	if (n >= sizeof(line))
		return errorf(err, "%.200s:%u: expected a line of at most %zu bytes", path, no,
			      sizeof(line) - 1);
	memcpy(line, p, n);
	line[n] = '\0';
	if (kconfig_line_check(line, msg) < 0)
		return errorf(err, "%.200s:%u: %s", path, no, msg);
	return 0;
}

int kconfig_file_check(const char *path, char *err)
{
	_cleanup_free_ char *text = NULL;
	const char *p, *end;
	unsigned no = 0;
	size_t len, n;

	if (read_regular_file(path, DOTCONFIG_MAX, &text, &len, err) < 0)
		return -1;
	if (memchr(text, '\0', len))
		return errorf(err, "%.200s: holds a NUL byte: expected a .config's text", path);
	for (p = text, end = text + len; p < end; p += n + 1) {
		n = strcspn(p, "\n");
		if (file_line(path, ++no, p, n, err) < 0)
			return -1;
	}
	return 0;
}

/* A config fragment file's text appended to out, and a newline. */
static int append_file(FILE *out, const char *path, char *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (read_regular_file(path, FRAGMENT_FILE_MAX, &text, &len, err) < 0)
		return -1;
	if (fwrite(text, 1, len, out) != len || fputc('\n', out) == EOF)
		return errorf(err, "cannot write the config fragment");
	return 0;
}

int kconfig_write_fragment(const char *kconfig_dir, const char *arch, const char *fragment,
			   const char *dst, char *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_fclose_ FILE *out = NULL;
	char path[PATH_MAX];
	size_t len = 0;

	/* built in memory, then written as write_file does: never through a symlink */
	if (!(out = open_memstream(&text, &len)))
		return errorf(err, "cannot create '%s'", dst);
	if (fragment[0] && fprintf(out, "%s\n", fragment) < 0)
		return errorf(err, "cannot write '%s'", dst);
	if (pathf(path, err, "%s/common.config", kconfig_dir) < 0 ||
	    append_file(out, path, err) < 0 ||
	    pathf(path, err, "%s/%s.config", kconfig_dir, arch) < 0 ||
	    append_file(out, path, err) < 0)
		return -1;
	if (fflush(out) != 0)
		return errorf(err, "cannot write '%s'", dst);
	return write_file(dst, text, len, err);
}

/*
 * The line of config that sets sym (n bytes: "CONFIG_X"), into line; "" if
 * unset. -1 if the line does not fit (line then holds what did).
 */
static int setting_of(const char *config, const char *sym, size_t n, char *line, size_t size)
{
	const char *p = config;
	size_t len;

	line[0] = '\0';
	for (; *p; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		if (len > n && !strncmp(p, sym, n) && p[n] == '=')
			return fmtbuf(line, size, "%.*s", (int)len, p);
	}
	return 0;
}

/* One fragment line against the .config's text; -1 with why. */
static int check_line(const char *config, const char *want, char *err)
{
	char have[256];
	int unset = want[0] == '#';
	const char *sym = want + (unset ? 2 : 0);
	size_t n = strcspn(sym, unset ? " " : "=");

	if (setting_of(config, sym, n, have, sizeof(have)) < 0)
		return errorf(err, "%.100s: the .config's line for it is over %zu bytes", want,
			      sizeof(have) - 1);
	if (unset ? (!have[0] || !strcmp(have + n, "=n")) : !strcmp(have, want))
		return 0;
	return errorf(err, "%.100s did not survive olddefconfig (the .config has %.*s%s%.100s): "
		      "a symbol it depends on is off, or it does not exist in this kernel", want,
		      have[0] ? 0 : (int)n, sym, have[0] ? "" : " unset", have);
}

/* A "CONFIG_X=v" line the .config leaves unset, for a symbol the kernel lacks? */
static int missing_symbol(const char *have, const char *line,
			  int (*defined)(void *arg, const char *sym), void *arg)
{
	char sym[128], set[256];
	size_t n = strcspn(line, "=");

	if (!defined || line[0] == '#' || n >= sizeof(sym) || n <= 7)
		return 0;
	/* a line too long to hold is still set */
	if (setting_of(have, line, n, set, sizeof(set)) < 0 || set[0])
		return 0;
	if (fmtbuf(sym, sizeof(sym), "%.*s", (int)(n - 7), line + 7) < 0)
		return 0;       /* cannot be: n < sizeof(sym) */
	return !defined(arg, sym);
}

int kconfig_check_defined(const char *config, const char *fragment,
			  int (*defined)(void *arg, const char *sym), void *arg, char *skipped,
			  size_t size, char *err)
{
	_cleanup_free_ char *have = NULL, *want = NULL;
	char *line, *next;
	size_t len, o = 0;

	if (skipped && size)
		skipped[0] = '\0';
	if (read_regular_file(config, DOTCONFIG_MAX, &have, &len, err) < 0 ||
	    read_regular_file(fragment, FRAGMENT_FILE_MAX, &want, &len, err) < 0)
		return -1;
	for (line = want; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!kconfig_line_ok(line))
			continue;     /* comments and blank lines */
		if (check_line(have, line, NULL) == 0)
			continue;
		if (!missing_symbol(have, line, defined, arg))
			return check_line(have, line, err);
		if (skipped && o + 2 < size)
			o += (size_t)snprintf(skipped + o, size - o, "%s%.*s", o ? " " : "",
					      (int)strcspn(line, "="), line);
	}
	return 0;
}

int kconfig_check(const char *config, const char *fragment, char *err)
{
	return kconfig_check_defined(config, fragment, NULL, NULL, NULL, 0, err);
}
