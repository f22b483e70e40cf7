/* kconfig.c -- the required config fragment joined with the user's, and the
 * .config that olddefconfig left checked against it, symbol by symbol. */
#include "kbuild/kconfig.h"
#include "base/err.h"
#include "base/proc.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

#define FRAGMENT_FILE_MAX (1 << 20)
#define DOTCONFIG_MAX     (4 << 20)

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

static int value_ok(const char *v)
{
	size_t n = strlen(v), i;

	if (!strcmp(v, "y") || !strcmp(v, "n") || !strcmp(v, "m"))
		return 1;
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		for (i = 1; i + 1 < n; i++)
			if (v[i] < 0x20 || v[i] > 0x7e || v[i] == '"' || v[i] == '\\')
				return 0;
		return 1;
	}
	i = v[0] == '-' ? 1 : 0;
	if (!strncmp(v + i, "0x", 2))
		i += 2;
	if (!v[i])
		return 0;
	for (; v[i]; i++)
		if (!isxdigit((unsigned char)v[i]))
			return 0;
	return 1;
}

int kconfig_line_ok(const char *line)
{
	const char *eq = strchr(line, '=');
	size_t n;

	if (!strncmp(line, "# CONFIG_", 9)) {
		n = strcspn(line + 2, " ");
		return symbol_ok(line + 2, n) && !strcmp(line + 2 + n, " is not set");
	}
	return eq && symbol_ok(line, (size_t)(eq - line)) && value_ok(eq + 1);
}

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

/* The line of config that sets sym (n bytes: "CONFIG_X"), into line; "" if unset. */
static void setting_of(const char *config, const char *sym, size_t n, char *line, size_t size)
{
	const char *p = config;
	size_t len;

	line[0] = '\0';
	for (; *p; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		if (len > n && !strncmp(p, sym, n) && p[n] == '=') {
			snprintf(line, size, "%.*s", (int)len, p);
			return;
		}
	}
}

/* One fragment line against the .config's text; -1 with why. */
static int check_line(const char *config, const char *want, char *err)
{
	char have[256];
	int unset = want[0] == '#';
	const char *sym = want + (unset ? 2 : 0);
	size_t n = strcspn(sym, unset ? " " : "=");

	setting_of(config, sym, n, have, sizeof(have));
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
	setting_of(have, line, n, set, sizeof(set));
	if (set[0])
		return 0;
	snprintf(sym, sizeof(sym), "%.*s", (int)(n - 7), line + 7);
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
