#!/usr/bin/env bash
# bench_trace.sh -- what tracing costs the workload: one cell run untraced, traced at
# 1/64 and at 1/1 (every page), same arm, one run each, ops/s and events compared.
# usage: tests/bench_trace.sh HARNESS_BINARY   (make bench; BENCHMARKS.md)
#
# A 6.12 TCG guest, MGLRU on, a 48 MiB memcg: one thread reads a 64 MiB file
# by pread at random, flat out, for 12 s (2 s ramp), so about a quarter of
# its reads miss and every miss is a load, an add and later a remove. The
# traced cells trace that file (trace: {sample: N} on the stream). Printed:
# each cell's ops/s and its ratio to the untraced cell, the events stored
# per second, what the kernel lost. Nothing is asserted; the three runs are
# one after another on the same cores, nothing else running.
set -euo pipefail

harness=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/bench-trace.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
printf 'results = results\nimages = %s/images/out\npresets = %s/workloads/presets\n' "$repo" "$repo" > harness.conf
printf 'memory_mib = 384\nvcpus = 2\nboot_timeout_s = 120\nslack_s = 60\n' >> harness.conf

cell() { # NAME TRACE_JSON
	cat <<EOF
    { "name": "$1", "memcg_mib": 48, "duration_s": 12, "ramp_s": 2,
      "files": [ { "name": "f", "mib": 64 } ],
      "streams": [ { "kind": "random", "name": "r", "file": "f", "access": "pread",
                     "threads": 1, "rate": 0, "miss_us": 200 $2 } ] }
EOF
}
cat > m.json <<EOF
{ "name": "bench-trace", "reps": 1,
  "arms": [ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" } ],
  "workloads": [
$(cell untraced ""),
$(cell trace-64 ', "trace": { "sample": 64 }'),
$(cell trace-1 ', "trace": { "sample": 1 }')
  ] }
EOF
"$harness" run m.json > run.out 2>&1 || { tail -20 run.out >&2; exit 1; }
sqlite3 -separator ' ' results/harness.db "
	WITH b AS (SELECT s.ops_per_s AS base FROM run_summary s JOIN cells c ON c.idx = s.cell
	           AND c.matrix_id = s.matrix_id WHERE c.name = 'untraced')
	SELECT c.name, ROUND(s.ops_per_s), ROUND(s.ops_per_s / b.base, 3),
	       (SELECT COUNT(*) FROM trace_events e WHERE e.run_id = r.id),
	       ROUND((SELECT COUNT(*) FROM trace_events e WHERE e.run_id = r.id) * 1000.0 / r.duration_ms),
	       COALESCE(r.trace_lost, '-'), COALESCE(r.trace_refused, '-')
	FROM runs r JOIN cells c ON c.id = r.cell_id JOIN run_summary s ON s.run_id = r.id, b
	ORDER BY c.idx" |
	awk 'BEGIN { printf "%-10s %9s %9s %9s %9s %8s %8s\n", "cell", "ops/s", "ratio", "events", "events/s", "lost", "refused" }
	     { printf "%-10s %9s %9s %9s %9s %8s %8s\n", $1, $2, $3, $4, $5, $6, $7 }'
