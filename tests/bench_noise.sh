#!/usr/bin/env bash
# bench_noise.sh -- where the A/A spread comes from: the same A/A matrix
# (harness calibrate) on a quiet host and on a host with one core kept busy,
# with two cells: "cached" (the file fits the memcg: after the warm-up no
# reclaim, so its spread is the host's and the harness's) and "reclaim" (the
# file is 3x the memcg: every miss reclaims, so the kernel's part adds).
# Per cell and condition: the per-block sd of the paired deltas and the runs'
# CV, with the warm-up (ramp_s) excluded as stored and, from the same
# intervals, included; the kernel part is sqrt(sd_reclaim^2 - sd_cached^2).
# usage: tests/bench_noise.sh HARNESS [BLOCKS]   (default 6 blocks; nothing
# else should run: the "busy" condition is the only load)
# NOISE_CONDS (default "quiet busy"), NOISE_LABEL (put before each condition's
# name) and NOISE_CONF (lines added to harness.conf) are tests/bench_qemu.sh's.
set -u
harness=$(readlink -f "${1:?harness binary}")
blocks=${2:-6}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/bench-noise.XXXXXX)
cd "$work" || exit 1
printf 'results = results\nimages = %s/images/out\npresets = %s/workloads/presets\n' \
	"$repo" "$repo" > harness.conf
printf 'memory_mib = 384\nvcpus = 2\nboot_timeout_s = 120\nslack_s = 60\n' >> harness.conf
printf '%s\n' "${NOISE_CONF:-}" >> harness.conf
cat > noise.json <<'EOF2'
{ "name": "noise", "reps": 2,
  "arms": [ { "name": "a", "kernel": "6.12", "lru_gen": "y" } ],
  "workloads": [
    { "name": "cached", "memcg_mib": 160, "duration_s": 11, "ramp_s": 3,
      "files": [ { "name": "d", "mib": 48 } ],
      "streams": [ { "kind": "random", "file": "d", "access": "pread", "distribution": "zipf",
                     "theta": 0.9, "threads": 2 } ] },
    { "name": "reclaim", "memcg_mib": 32, "duration_s": 11, "ramp_s": 3,
      "files": [ { "name": "d", "mib": 96 } ],
      "streams": [ { "kind": "random", "file": "d", "access": "pread", "distribution": "zipf",
                     "theta": 0.9, "threads": 2 } ] } ] }
EOF2

run_cond() { # run_cond COND: a fresh results directory, the calibration, its spread
	local label=${NOISE_LABEL:-}$1
	rm -rf results
	/usr/bin/time -f "$label: %e s wall" "$harness" calibrate --blocks "$blocks" noise.json \
		> "$1.out" 2> "$1.time" || { echo "$label: calibrate failed"; tail -3 "$1.out"; exit 1; }
	tail -1 "$1.time"
	grep '^tcg threading' "$1.out" | head -1
	"$repo/tests/noise_spread.py" "$label" results/harness.db
}

for cond in ${NOISE_CONDS:-quiet busy}; do
	busy=
	[ "$cond" = busy ] && { sh -c 'while :; do :; done' & busy=$!; }
	run_cond "$cond"
	[ -n "$busy" ] && kill "$busy"
done
rm -rf "$work"
