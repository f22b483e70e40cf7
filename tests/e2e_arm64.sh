#!/usr/bin/env bash
# e2e_arm64.sh -- the same matrix on both architectures: one arm, its 6.12
# kernel per arch, a workload of a pread reader and a fio stream, run in an
# x86_64 guest and an aarch64 guest (TCG, -cpu max, on x86_64 hosts); then
# ask the database what each guest was and what it measured.
# usage: tests/e2e_arm64.sh HARNESS_BINARY   (images for both arches must be built)
set -u

. "$(dirname "$0")/testlib.sh" arm64 "$@"

e2e_conf

cat > "$work/arm64.json" <<'EOF'
{
  "name": "e2e-arm64",
  "reps": 1,
  "arch": ["x86_64", "aarch64"],
  "arms": [
    { "name": "v6.12-mglru", "kernel": { "x86_64": "6.12", "aarch64": "6.12" }, "lru_gen": "y" }
  ],
  "workloads": [
    { "name": "mixed", "memcg_mib": 48, "duration_s": 6,
      "files": [ { "name": "data", "mib": 64 }, { "name": "f", "mib": 16 } ],
      "streams": [
        { "kind": "random", "name": "pread", "file": "data", "access": "pread",
          "distribution": "zipf", "theta": 1.1, "threads": 1 },
        { "kind": "fio", "name": "fio",
          "args": "--name=fio --filename=f --rw=randread --bs=4k --time_based --runtime=6" }
      ] }
  ]
}
EOF

cd "$work" || exit 1

# --- refused before any boot: a kernel path cannot serve two arches ---
printf '%s\n' '{"name": "x", "reps": 1, "arch": ["x86_64", "aarch64"],
  "arms": [{"name": "a", "kernel": "/nope/Image"}],
  "workloads": [{"name": "w", "files": [{"name": "f", "mib": 8}],
                 "streams": [{"kind": "random", "file": "f"}]}]}' > bad.json
"$harness" run bad.json > bad.out 2> bad.err
check "a path kernel with two arches is refused (exit $?)" grep -q "arms\[0\].kernel: a kernel path fits one architecture" bad.err

# --- one arm on both arches ---
"$harness" run arm64.json > run.out 2> run.err
rc=$?
cat run.out
[ -s run.err ] && sed 's/^/stderr: /' run.err
a64="(SELECT r.id FROM runs r JOIN cells c ON c.id = r.cell_id WHERE c.name = 'mixed@aarch64')"
x86="(SELECT r.id FROM runs r JOIN cells c ON c.id = r.cell_id WHERE c.name = 'mixed')"
check "harness run exits 0" [ "$rc" -eq 0 ]
check "two cells, one per arch" [ "$(q "SELECT group_concat(name, ' ') FROM (SELECT name FROM cells ORDER BY idx)")" = "mixed mixed@aarch64" ]
check "both runs done" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 2 ]
check "the aarch64 guest says uname -m aarch64" [ "$(q "SELECT arch FROM runs WHERE id = $a64")" = aarch64 ]
check "the x86_64 guest says uname -m x86_64" [ "$(q "SELECT arch FROM runs WHERE id = $x86")" = x86_64 ]
check "aarch64 guest runs the arm64 6.12 kernel" bash -c '[[ $1 == 6.12.*-cloud-arm64 ]]' _ "$(q "SELECT guest_release FROM runs WHERE id = $a64")"
check "x86_64 guest runs the amd64 6.12 kernel" bash -c '[[ $1 == 6.12.*-cloud-amd64 ]]' _ "$(q "SELECT guest_release FROM runs WHERE id = $x86")"
check "lru_gen y reads back 0x0003 on arm64" [ "$(q "SELECT lru_gen_read FROM runs WHERE id = $a64")" = 0x0003 ]
check "lru_gen y reads back 0x0007 on x86_64" [ "$(q "SELECT lru_gen_read FROM runs WHERE id = $x86")" = 0x0007 ]
check "lru_gen capability bits stored per run" [ "$(q "SELECT COUNT(*) FROM runs WHERE lru_gen_caps LIKE '0x%'")" = 2 ]
check "page size stored per run (4 KiB on both Debian kernels)" [ "$(q "SELECT COUNT(*) FROM runs WHERE page_size = 4096")" = 2 ]
check "aarch64 guest under TCG whatever the host's accel" bash -c '[ "$1" = tcg ] || [ "$(uname -m)" = aarch64 ]' _ "$(q "SELECT accel FROM runs WHERE id = $a64")"
check "aarch64: samples every interval (>= 5)" [ "$(q "SELECT COUNT(*) FROM samples WHERE run_id = $a64")" -ge 5 ]
# Under TCG on two busy cores a stream can miss an interval (the random reader
# calibrates first; fio's cumulative reports can land late): plausibility,
# not timing: each stream read in most intervals, and its counts add up.
check "aarch64: pread read in at least 4 of 6 intervals" [ "$(q "SELECT COUNT(*) FROM stream_samples WHERE run_id = $a64 AND stream = 0 AND read_ops > 0")" -ge 4 ]
check "aarch64: fio read in at least 4 of 6 intervals" [ "$(q "SELECT COUNT(*) FROM stream_samples WHERE run_id = $a64 AND stream = 1 AND read_ops > 0")" -ge 4 ]
total=$(q "SELECT value FROM events WHERE run_id = $a64 AND kind = 'total' AND stream = 1")
sum=$(q "SELECT SUM(read_ops) FROM stream_samples WHERE run_id = $a64 AND stream = 1")
check "aarch64: fio intervals add up to fio's total within 1% ($sum vs $total)" \
	awk -v s="$sum" -v t="$total" 'BEGIN { exit !(t > 0 && (s - t) / t <= 0.01 && (t - s) / t <= 0.01) }'
check "aarch64: latency percentiles per interval" [ "$(q "SELECT COUNT(*) FROM stream_samples WHERE run_id = $a64 AND read_ops > 0 AND (lat_p50_ns = 0 OR lat_p99_ns < lat_p50_ns)")" = 0 ]
check "aarch64: residency within each file's pages" [ "$(q "SELECT COUNT(*) FROM file_samples f JOIN run_files p ON p.run_id = f.run_id AND p.idx = f.file WHERE f.run_id = $a64 AND (f.resident_pages > p.pages)")" = 0 ]
check "aarch64: console log (ttyAMA0) is the arm64 kernel's" bash -c 'grep -q "Linux version .*arm64" "$1"' _ "$(q "SELECT console_path FROM runs WHERE id = $a64")"
check "table keeps the arches in separate cells" bash -c 'grep -q "mixed@aarch64" run.out'

e2e_end
