/* preset.c -- workload presets: merge, expand array params into cells, scale
 * sizes and times, substitute ${param} placeholders. JSON in, JSON out. */
#include "spec/preset.h"
#include "base/err.h"
#include "base/proc.h"
#include "common/fmt.h"
#include "common/proto.h"

#include <ctype.h>
#include <stdlib.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#define PRESET_FILE_MAX (1 << 20)
#define MAX_COMBOS      256
#define PARAM_VALUES    16     /* values an expanded param may take */

/* Keys of an entry that are not the job's. */
static const char *const entry_keys[] = { "name", "preset", "params", "scale", "time_scale", NULL };
/* Keys of a preset file that are not the job's. */
static const char *const preset_keys[] = { "description", "params", "table", NULL };

struct scaling {
	double size, time;
};

/* 1 if key is one of the NULL-ended list. */
static int in_list(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return 1;
	return 0;
}

/*
 * A preset's own table ("table"), by an allow-list of its kind's keys:
 * series {step_s, columns}, events {stream, event, columns}, grid {metrics}.
 * Names are checked here for their shape only (short, printable, no quotes
 * or <>&: they reach HTML); which columns and metrics exist the report
 * says, as it lays the table out.
 */
#define TABLE_NAMES_MAX 16
static const struct table_kind {
	const char *kind;
	const char *const keys[4];
} table_kinds[] = {
	{ "series", { "kind", "step_s", "columns", NULL } },
	{ "events", { "kind", "stream", "event", "columns" } },
	{ "grid",   { "kind", "metrics", NULL, NULL } },
};

/* A table name: 1 to 63 printable characters, none of "'<>&. */
static int table_name_ok(json_t *v)
{
	const char *s = json_string_value(v), *p;

	if (!s || !*s || strlen(s) > 63)
		return 0;
	for (p = s; *p; p++)
		if (*p < ' ' || *p > '~' || strchr("\"'<>&", *p))
			return 0;
	return 1;
}

/* An array of 1 to TABLE_NAMES_MAX table names. */
static int table_names_ok(json_t *v)
{
	json_t *x;
	size_t i;

	if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > TABLE_NAMES_MAX)
		return 0;
	json_array_foreach(v, i, x)
		if (!table_name_ok(x))
			return 0;
	return 1;
}

/* A preset's "table" t, checked as above; -1 with err naming path.table.KEY. */
static int check_table(json_t *t, const char *path, char *err)
{
	const char *kind = json_string_value(json_object_get(t, "kind")), *key;
	const struct table_kind *k = NULL;
	json_t *v;
	size_t i;

	if (!json_is_object(t))
		return errorf(err, "%s: table: expected an object", path);
	for (i = 0; kind && i < ARRAY_SIZE(table_kinds); i++)
		if (!strcmp(kind, table_kinds[i].kind))
			k = &table_kinds[i];
	if (!k)
		return errorf(err, "%s: table.kind: expected \"series\", \"events\" or \"grid\"", path);
	json_object_foreach(t, key, v) {
		for (i = 0; i < ARRAY_SIZE(k->keys) && k->keys[i] && strcmp(k->keys[i], key); i++)
			;
		if (i == ARRAY_SIZE(k->keys) || !k->keys[i])
			return errorf(err, "%s: table.%.32s: not a key of a %s table", path, key, kind);
		if (!strcmp(key, "step_s") && (!json_is_integer(v) || json_integer_value(v) < 1 ||
					       json_integer_value(v) > 3600))
			return errorf(err, "%s: table.step_s: expected whole seconds, 1 to 3600", path);
		if ((!strcmp(key, "columns") || !strcmp(key, "metrics")) && !table_names_ok(v))
			return errorf(err, "%s: table.%s: expected 1 to %d names of up to 63 printable "
				      "characters without quotes or <>&", path, key, TABLE_NAMES_MAX);
		if ((!strcmp(key, "stream") || !strcmp(key, "event")) && !table_name_ok(v))
			return errorf(err, "%s: table.%s: expected a name of up to 63 printable "
				      "characters without quotes or <>&", path, key);
	}
	for (i = 1; i < ARRAY_SIZE(k->keys) && k->keys[i]; i++)
		if (strcmp(k->keys[i], "step_s") && !json_object_get(t, k->keys[i]))
			return errorf(err, "%s: table.%s: missing (%s %s table needs it)", path,
				      k->keys[i], kind[0] == 'e' ? "an" : "a", kind);
	return 0;
}

/*
 * Preset name's JSON object from dir ("NAME.json"; the name of A-Za-z0-9_-
 * only); -1 with err naming where.preset and the file.
 */
static int load_preset(const char *dir, const char *name, const char *where, json_t **ret,
		       char *err)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	json_error_t jerr;
	struct stat st;
	const char *p;
	size_t len;

	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return errorf(err, "%s.preset: expected a preset name, got '%s'", where, name);
	if (!*name || pathf(path, err, "%s/%s.json", dir, name) < 0)
		return errorf(err, "%s.preset: bad name", where);
	if (stat(path, &st) < 0)
		return errorf(err, "%s.preset: no preset '%s' (%s missing)", where, name, path);
	if (read_regular_file(path, PRESET_FILE_MAX, &text, &len, err) < 0)
		return -1;
	*ret = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!*ret)
		return errorf(err, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column,
			      jerr.text);
	if (!json_is_object(*ret)) {
		json_decref(*ret);
		return errorf(err, "%s: expected an object", path);
	}
	if (json_object_get(*ret, "table") &&
	    check_table(json_object_get(*ret, "table"), path, err) < 0) {
		json_decref(*ret);
		return -1;
	}
	return 0;
}

/* The job: the preset's job keys, overlaid with the entry's. */
static json_t *merge(json_t *preset, json_t *entry)
{
	json_t *job = json_object(), *v;
	const char *key;

	if (!job)
		return NULL;
	json_object_foreach(preset, key, v)
		if (!in_list(preset_keys, key))
			json_object_set(job, key, v);
	json_object_foreach(entry, key, v)
		if (!in_list(entry_keys, key))
			json_object_set(job, key, v);
	return job;
}

static int scalar_ok(json_t *v)
{
	return json_is_number(v) || json_is_string(v);
}

/* Defaults from the preset, overridden by the entry; each a scalar or an array. */
static int param_ok(json_t *v)
{
	json_t *x;
	size_t i;

	if (scalar_ok(v))
		return 1;
	if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > PARAM_VALUES)
		return 0;
	json_array_foreach(v, i, x)
		if (!scalar_ok(x))
			return 0;
	return 1;
}

/*
 * Defaults from the preset, overridden by the entry; each a scalar or an
 * array. With a preset, the entry may only set the preset's own params.
 */
static int collect_params(json_t *preset, int has_preset, json_t *entry, const char *where,
			  json_t **ret, char *err)
{
	json_t *defs = json_object_get(preset, "params"), *given = json_object_get(entry, "params");
	json_t *out, *v;
	const char *key;
	int rc = -1;

	out = defs ? json_deep_copy(defs) : json_object();
	if (!json_is_object(out)) {
		errorf(err, "%s: the preset's params must be an object", where);
		goto out;
	}
	if (given && !json_is_object(given)) {
		errorf(err, "%s.params: expected an object", where);
		goto out;
	}
	json_object_foreach(given, key, v) {
		if (has_preset && !json_object_get(defs, key)) {
			errorf(err, "%s.params.%s: not a parameter of this preset", where, key);
			goto out;
		}
		json_object_set(out, key, v);
	}
	json_object_foreach(out, key, v) {
		if (!param_ok(v)) {
			errorf(err, "%s.params.%s: expected a number, a string, or an array of "
			       "1..%d of them", where, key, PARAM_VALUES);
			goto out;
		}
	}
	*ret = json_incref(out);
	rc = 0;
out:
	json_decref(out);   /* after the message: key belongs to out */
	return rc;
}

/* Move an array-valued field into the params as name, leaving ${name} behind. */
static int lift(json_t *obj, const char *key, const char *name, json_t *lifted,
		const char *where, char *err)
{
	char ref[96];

	if (fmtbuf(ref, sizeof(ref), "${%s}", name) < 0)
		return errorf(err, "%s: '%.64s...': a param's name of over %zu characters", where,
			      name, sizeof(ref) - 4);
	json_object_set(lifted, name, json_object_get(obj, key));
	json_object_set_new(obj, key, json_string(ref));
	return 0;
}

/*
 * Any array-valued option of the job expands the cell like a param does:
 * "memcg_mib": [64, 128] at the top, "theta": [0.8, 1.1] in a stream (named
 * theta, or STREAM_theta if taken), "mib": [..] in a file (named FILE_mib, so
 * scale applies as it would to the number).
 */
static int lift_arrays(json_t *job, json_t *lifted, const char *where, char *err)
{
	json_t *v, *x, *y;
	const char *key, *k2, *file;
	char name[96];
	size_t i;

	json_object_foreach(job, key, v)
		if (json_is_array(v) && strcmp(key, "files") && strcmp(key, "streams") &&
		    strcmp(key, "databases") && lift(job, key, key, lifted, where, err) < 0)
			return -1;
	json_array_foreach(json_object_get(job, "files"), i, x) {
		y = json_object_get(x, "mib");
		if (!json_is_array(y) || !json_is_string(json_object_get(x, "name")))
			continue;
		file = json_string_value(json_object_get(x, "name"));
		if (fmtbuf(name, sizeof(name), "%s_mib", file) < 0)
			return errorf(err, "%s: file '%.64s...': a param's name of over %zu "
				      "characters", where, file, sizeof(name) - 1);
		if (lift(x, "mib", name, lifted, where, err) < 0)
			return -1;
	}
	json_array_foreach(json_object_get(job, "streams"), i, x) {
		json_object_foreach(x, k2, y) {
			if (!json_is_array(y))
				continue;
			if (json_object_get(lifted, k2) ?
			    fmtbuf(name, sizeof(name), "s%zu_%s", i, k2) < 0 :
			    fmtbuf(name, sizeof(name), "%s", k2) < 0)
				return errorf(err, "%s: streams[%zu].%.64s...: a param's name "
					      "of over %zu characters", where, i, k2,
					      sizeof(name) - 1);
			if (lift(x, k2, name, lifted, where, err) < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * A lifted option must be a param's kind of array: 1..PARAM_VALUES numbers or
 * strings. An empty one would expand the workload to no cell at all (and no
 * check of its job), a nested one would reach the job as an array.
 */
static int check_lifted(json_t *lifted, const char *where, char *err)
{
	const char *key;
	json_t *v;

	json_object_foreach(lifted, key, v)
		if (!param_ok(v))
			return errorf(err, "%s: '%s': an array of values expands cells: expected "
				      "1..%d numbers or strings", where, key, PARAM_VALUES);
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * A param's value after scaling: _mib by size, _s by time, both rounded up;
 * a size of 0 stays 0 (none: swap_max_mib 0 is no swap at any scale).
 */
static json_t *scale_param(const char *name, json_t *v, const struct scaling *sc)
{
	double d;

	if (!json_is_number(v))
		return json_incref(v);
	d = json_number_value(v);
	if (ends_with(name, "_mib") && sc->size != 1.0)
		return json_integer((json_int_t)fmax(d > 0 ? 1 : 0, ceil(d * sc->size)));
	if (ends_with(name, "_records") && sc->size != 1.0)   /* a database's recordcount */
		return json_integer((json_int_t)fmax(10, ceil(d * sc->size)));
	if (ends_with(name, "_s") && sc->time != 1.0)
		return json_integer((json_int_t)ceil(d * sc->time));
	return json_incref(v);
}

/* Multiply a literal number in place (placeholders are scaled as params). */
static void scale_key(json_t *obj, const char *key, double f, int whole, double min)
{
	json_t *v = json_object_get(obj, key);
	double d;

	if (!json_is_number(v) || f == 1.0)
		return;
	d = json_number_value(v) * f;
	if (whole)
		json_object_set_new(obj, key, json_integer((json_int_t)fmax(min, ceil(d))));
	else
		json_object_set_new(obj, key, json_real(d));
}

/*
 * The job's sizes (memcg, files, record counts) scaled by sc->size and its
 * times (duration, ramp, streams' start, duration and gap) by sc->time.
 */
static void scale_job(json_t *job, const struct scaling *sc)
{
	json_t *v;
	size_t i;

	scale_key(job, "memcg_mib", sc->size, 1, 16);
	scale_key(job, "duration_s", sc->time, 1, 1);
	scale_key(job, "ramp_s", sc->time, 1, 0);
	json_array_foreach(json_object_get(job, "files"), i, v)
		scale_key(v, "mib", sc->size, 1, 1);
	json_array_foreach(json_object_get(job, "databases"), i, v)
		scale_key(v, "recordcount", sc->size, 1, 10);
	json_array_foreach(json_object_get(job, "streams"), i, v) {
		scale_key(v, "start_s", sc->time, 0, 0);
		scale_key(v, "duration_s", sc->time, 0, 0);
		scale_key(v, "gap_s", sc->time, 0, 0);
	}
}

/* v as text into buf: 0, or -1 when it does not fit (only a string can be that long). */
static int value_text(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return fmtbuf(buf, len, "%s", json_string_value(v));
	if (json_is_integer(v))
		return fmtbuf(buf, len, "%lld", (long long)json_integer_value(v));
	return fmtbuf(buf, len, "%g", json_number_value(v));
}

/* A param's number, or a literal number. */
static int operand(const char *tok, json_t *vals, double *ret)
{
	json_t *v = json_object_get(vals, tok);
	char *end;

	if (v) {
		if (!json_is_number(v))
			return -1;
		*ret = json_number_value(v);
		return 0;
	}
	*ret = strtod(tok, &end);
	return end != tok && !*end ? 0 : -1;
}

/*
 * ${name} is a param's value; ${a*b/c} (operators + - * / on params and
 * numbers, strictly left to right, no parentheses) computes one: a rate from
 * a size and an interval. Returns the value, or NULL with the reason in err.
 */
static json_t *placeholder(const char *expr, json_t *vals, const char *where, char *err)
{
	char tok[64];
	double acc = 0, x;
	char op = '+';
	size_t n;

	if (!strpbrk(expr, "+-*/")) {
		json_t *v = json_object_get(vals, expr);
		if (!v)
			errorf(err, "%s: ${%s} is not a parameter", where, expr);
		return v ? json_incref(v) : NULL;
	}
	for (;;) {
		n = strcspn(expr, "+-*/");
		if (n == 0 || n >= sizeof(tok))
			goto bad;
		memcpy(tok, expr, n);
		tok[n] = '\0';
		if (operand(tok, vals, &x) < 0) {
			errorf(err, "%s: ${...%s...}: not a numeric parameter or number", where, tok);
			return NULL;
		}
		acc = op == '+' ? acc + x : op == '-' ? acc - x : op == '*' ? acc * x :
		      x != 0 ? acc / x : NAN;
		if (!expr[n])
			break;
		op = expr[n];
		expr += n + 1;
	}
	if (!isfinite(acc))
		goto bad;
	return acc == floor(acc) && fabs(acc) < 1e15 ? json_integer((json_int_t)acc) : json_real(acc);
bad:
	errorf(err, "%s: bad expression in ${...}", where);
	return NULL;
}

/* Replace every ${...} in s; a string that is one placeholder keeps its type. */
static json_t *subst_string(const char *s, json_t *vals, const char *where, char *err)
{
	char out[PROTO_FIO_MAX], name[64], val[64];
	const char *p = s, *end;
	size_t n = 0, k;
	json_t *v;

	while (*p) {
		if (p[0] != '$' || p[1] != '{') {
			if (n + 1 >= sizeof(out))
				goto too_long;
			out[n++] = *p++;
			continue;
		}
		end = strchr(p, '}');
		k = end ? (size_t)(end - p - 2) : 0;
		if (!end || k == 0 || k >= sizeof(name)) {
			errorf(err, "%s: unterminated or empty ${...} in '%.64s'", where, s);
			return NULL;
		}
		memcpy(name, p + 2, k);
		name[k] = '\0';
		v = placeholder(name, vals, where, err);
		if (!v)
			return NULL;
		if (p == s && !end[1])
			return v;
		if (value_text(v, val, sizeof(val)) < 0) {
			json_decref(v);
			errorf(err, "%s: ${%s}: a value of over %zu characters inside a string",
			       where, name, sizeof(val) - 1);
			return NULL;
		}
		json_decref(v);
		if (n + strlen(val) >= sizeof(out))
			goto too_long;
		memcpy(out + n, val, strlen(val));
		n += strlen(val);
		p = end + 1;
	}
	out[n] = '\0';
	return json_string(out);
too_long:
	errorf(err, "%s: longer than %d characters after substitution", where, PROTO_FIO_MAX - 1);
	return NULL;
}

/*
 * Every string under node with its params' values substituted, in place;
 * -1 with err when one grows too long.
 */
static int subst(json_t *node, json_t *vals, const char *where, char *err)
{
	const char *key;
	json_t *v, *nv;
	size_t i;

	if (json_is_object(node)) {
		json_object_foreach(node, key, v) {
			if (json_is_string(v)) {
				if (!(nv = subst_string(json_string_value(v), vals, where, err)))
					return -1;
				json_object_set_new(node, key, nv);
			} else if (subst(v, vals, where, err) < 0) {
				return -1;
			}
		}
	} else if (json_is_array(node)) {
		json_array_foreach(node, i, v) {
			if (json_is_string(v)) {
				if (!(nv = subst_string(json_string_value(v), vals, where, err)))
					return -1;
				json_array_set_new(node, i, nv);
			} else if (subst(v, vals, where, err) < 0) {
				return -1;
			}
		}
	}
	return 0;
}

/* Combination number `combo` of the params: scaled values, the name suffix, the text. */
static json_t *pick(json_t *params, size_t combo, const struct scaling *sc, char *suffix,
		    size_t slen, char *text, size_t tlen)
{
	json_t *vals = json_object(), *v, *x;
	const char *key;
	char buf[64];
	size_t n, ts = 0, ss = 0;

	suffix[0] = text[0] = '\0';
	json_object_foreach(params, key, v) {
		x = v;
		if (json_is_array(v)) {
			n = json_array_size(v);
			x = json_array_get(v, combo % n);
			combo /= n;
		}
		json_object_set_new(vals, key, scale_param(key, x, sc));
		/* the cell's name suffix and its note: a string too long is cut visibly (a name
		 * with it is too long a cell name, which add_cell refuses) */
		x = json_object_get(vals, key);
		if (value_text(x, buf, sizeof(buf)) < 0)
			fmtcut(buf, sizeof(buf), "%s", json_string_value(x));
		if (json_is_array(v) && ss < slen)
			ss += (size_t)snprintf(suffix + ss, slen - ss, "/%s", buf);
		if (ts < tlen)
			ts += (size_t)snprintf(text + ts, tlen - ts, "%s%s=%s", ts ? " " : "", key, buf);
	}
	return vals;
}

/*
 * How many cells the params make: the product of their arrays' lengths
 * (stopping once past MAX_COMBOS).
 */
static size_t combos(json_t *params)
{
	const char *key;
	json_t *v;
	size_t n = 1;

	json_object_foreach(params, key, v)
		if (json_is_array(v) && n <= MAX_COMBOS)
			n *= json_array_size(v);
	return n;
}

/* The entry's scale and time_scale (1 without), each in (0, 1000]. */
static int read_scaling(json_t *entry, const char *where, struct scaling *sc, char *err)
{
	json_t *s = json_object_get(entry, "scale"), *t = json_object_get(entry, "time_scale");

	sc->size = s ? json_number_value(s) : 1.0;
	sc->time = t ? json_number_value(t) : 1.0;
	if ((s && !json_is_number(s)) || sc->size <= 0 || sc->size > 1000)
		return errorf(err, "%s.scale: expected a number in (0, 1000]", where);
	if ((t && !json_is_number(t)) || sc->time <= 0 || sc->time > 1000)
		return errorf(err, "%s.time_scale: expected a number in (0, 1000]", where);
	return 0;
}

/*
 * One cell per combination of the params: its scaled values substituted into
 * a copy of the job, named NAME/v1/v2..., with its params as text.
 */
static int expand(json_t *entry, json_t *preset, json_t *job, json_t *params,
		  const struct scaling *sc, const char *where, json_t *out, char *err)
{
	const char *name = json_string_value(json_object_get(entry, "name"));
	json_t *pname = json_object_get(entry, "preset"), *vals, *j, *cell;
	char suffix[256], text[256], full[256];
	size_t c, n = combos(params);

	if (n > MAX_COMBOS)
		return errorf(err, "%s.params: %zu combinations, at most %d", where, n, MAX_COMBOS);
	for (c = 0; c < n; c++) {
		vals = pick(params, c, sc, suffix, sizeof(suffix), text, sizeof(text));
		j = json_deep_copy(job);
		scale_job(j, sc);
		if (!vals || !j || subst(j, vals, where, err) < 0) {
			json_decref(vals);
			json_decref(j);
			return -1;
		}
		/* the cell's name is a key: cut, two cells could share it */
		if (fmtbuf(full, sizeof(full), "%s%s", name, suffix) < 0) {
			json_decref(vals);
			json_decref(j);
			return errorf(err, "%s: cell name '%.64s...' over %zu characters", where,
				      name, sizeof(full) - 1);
		}
		cell = json_pack("{s:s, s:s, s:s, s:O*, s:o}", "name", full, "preset",
				 pname ? json_string_value(pname) : "", "params", text, "table",
				 json_object_get(preset, "table"), "job", j);
		json_decref(vals);
		if (!cell || json_array_append_new(out, cell) < 0)
			return errorf(err, "%s: out of memory", where);
	}
	return 0;
}

int preset_expand(json_t *entry, const char *presets_dir, const char *where, json_t **ret,
		  char *err)
{
	json_t *preset = NULL, *job = NULL, *params = NULL, *out = NULL, *lifted = NULL, *pname;
	struct scaling sc;
	int rc = -1;

	if (!json_is_object(entry))
		return errorf(err, "%s: expected an object", where);
	if (!json_is_string(json_object_get(entry, "name")))
		return errorf(err, "%s: missing key 'name'", where);
	pname = json_object_get(entry, "preset");
	if (pname && !json_is_string(pname))
		return errorf(err, "%s.preset: expected a string", where);
	if (read_scaling(entry, where, &sc, err) < 0)
		return -1;
	if (pname ? load_preset(presets_dir, json_string_value(pname), where, &preset, err) < 0
		  : !(preset = json_object()))
		return -1;
	job = merge(preset, entry);
	out = json_array();
	lifted = json_object();
	if (job && out && lifted && lift_arrays(job, lifted, where, err) == 0 &&
	    check_lifted(lifted, where, err) == 0 &&
	    collect_params(preset, pname != NULL, entry, where, &params, err) == 0 &&
	    json_object_update(params, lifted) == 0 &&
	    expand(entry, preset, job, params, &sc, where, out, err) == 0) {
		*ret = json_incref(out);
		rc = 0;
	}
	json_decref(preset);
	json_decref(job);
	json_decref(params);
	json_decref(lifted);
	json_decref(out);
	return rc;
}
