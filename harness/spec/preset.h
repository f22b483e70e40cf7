/* preset.h -- a matrix's workload entry made into concrete jobs: its preset
 * merged under it, array-valued params expanded, sizes and times scaled. */
#ifndef PRESET_H
#define PRESET_H

#include <jansson.h>

/*
 * Expand one "workloads[i]" entry. Keys of an entry besides the job's own:
 *   name        the cell's name (expanded cells get "/<value>" per array param)
 *   preset      a file <presets_dir>/<preset>.json supplying everything else
 *   params      values for the preset's "${name}" placeholders (or ${a*b/c}:
 *               + - * / on params and numbers, left to right); an array
 *               expands the cell over its values (cartesian over all arrays)
 *   (any array-valued option of the job itself, e.g. "memcg_mib": [64, 128]
 *   or "theta": [0.8, 1.1] in a stream, expands the cell the same way)
 *   scale       multiplies every size in MiB (memcg_mib, files[].mib and
 *               params ending in _mib); rounded up to whole MiB
 *   time_scale  multiplies every time (duration_s, ramp_s, streams' start_s,
 *               duration_s, gap_s and params ending in _s)
 * Returns 0 and a JSON array of objects {name, preset, params (text), table
 * (or null), job (the job's JSON)}, or -1 with "where...: message" in err.
 */
int preset_expand(json_t *entry, const char *presets_dir, const char *where, json_t **ret,
		  char *err);

#endif
