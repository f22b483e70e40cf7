#!/usr/bin/env bash
# e2e_boot.sh -- a user's session on real parts: write a matrix, run it in
# fresh TCG/KVM guests of two Debian kernels, then ask the database.
# usage: tests/e2e_boot.sh HARNESS_BINARY   (images must be built)
set -u

harness=$(readlink -f "${1:?harness binary}")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/e2e.XXXXXX)
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND...
	local what=$1; shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
q() { sqlite3 "$work/results/harness.db" "$1"; }

cat > "$work/harness.conf" <<EOF
results = results
images = $repo/images/out
memory_mib = 384
vcpus = 2
boot_timeout_s = 120
slack_s = 60
EOF

cat > "$work/boot.json" <<'EOF'
{
  "name": "e2e-boot",
  "reps": 1,
  "arms": [
    { "name": "v6.1-mglru", "kernel": "6.1", "lru_gen": "y" },
    { "name": "v6.12-classic", "kernel": "6.12", "lru_gen": "n" }
  ],
  "workloads": [
    { "name": "zipf", "access": "pread", "distribution": "zipf", "theta": 1.1,
      "threads": 2, "file_mib": 48, "memcg_mib": 24, "duration_s": 6 }
  ]
}
EOF

cd "$work" || exit 1

# --- bad input is refused before any guest boots, with one line naming it ---
bad() { # bad NAME EXPECTED_TEXT JSON
	printf '%s\n' "$3" > "$work/$1.json"
	"$harness" run "$1.json" > "$work/$1.out" 2> "$work/$1.err"
	local rc=$? lines
	lines=$(wc -l < "$work/$1.err")
	check "$1: refused (exit $rc)" [ "$rc" -eq 1 ]
	check "$1: one line naming '$2'" \
		bash -c '[ "$1" -eq 1 ] && grep -qF -- "$2" "$3" && grep -qF "$4.json" "$3"' \
		_ "$lines" "$2" "$work/$1.err" "$1"
}
arms='"arms": [{"name": "a", "kernel": "6.12"}]'
wl='"workloads": [{"name": "w", "file_mib": 8, "memcg_mib": 8, "duration_s": 1}]'
bad malformed "malformed JSON" '{"name": "x", "reps": 1,'
bad unknown-key "unknown key 'repz'" "{\"name\": \"x\", \"repz\": 1, $arms, $wl}"
bad missing-kernel "arms[0].kernel" \
	"{\"name\": \"x\", \"reps\": 1, \"arms\": [{\"name\": \"a\", \"kernel\": \"/nope/vmlinuz\"}], $wl}"
bad memcg-too-big "workloads[0].memcg_mib" \
	"{\"name\": \"x\", \"reps\": 1, $arms, \"workloads\": [{\"name\": \"w\", \"memcg_mib\": 4000}]}"
bad zero-reps "matrix.reps" "{\"name\": \"x\", \"reps\": 0, $arms, $wl}"
check "nothing queued by refused matrices" \
	bash -c '[ ! -f results/harness.db ] || [ "$(sqlite3 results/harness.db "SELECT COUNT(*) FROM matrices")" = 0 ]'

# --- a real run: two kernels, lru_gen y and n ---
"$harness" run boot.json > run.out 2> run.err
rc=$?
cat run.out
[ -s run.err ] && sed 's/^/stderr: /' run.err
check "harness run exits 0" [ "$rc" -eq 0 ]
check "both runs done" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 2 ]
check "ABBA order A then B" [ "$(q "SELECT group_concat(a.name, ' ') FROM (SELECT * FROM runs ORDER BY seq) r JOIN arms a ON a.id = r.arm_id")" = "v6.1-mglru v6.12-classic" ]
check "samples every interval (>= 5 per run)" [ "$(q "SELECT MIN(n) FROM (SELECT COUNT(*) n FROM samples GROUP BY run_id)")" -ge 5 ]
check "ops > 0 in every sample" [ "$(q "SELECT COUNT(*) FROM samples WHERE ops = 0")" = 0 ]
check "residency <= file pages" [ "$(q "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE s.resident_pages > r.file_pages OR r.file_pages != 48 * 256")" = 0 ]
check "memcg caps residency near memory.max (24 MiB = 6144 pages)" [ "$(q "SELECT MAX(resident_pages) FROM samples")" -le 6400 ]
check "lru_gen read back: y on the 6.1 arm" [ "$(q "SELECT lru_gen_read FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = 'v6.1-mglru'")" = 0x0007 ]
check "lru_gen read back: n on the 6.12 arm" [ "$(q "SELECT lru_gen_read FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = 'v6.12-classic'")" = 0x0000 ]
check "guest kernel matches each arm" [ "$(q "SELECT COUNT(*) FROM runs r JOIN arms a ON a.id = r.arm_id WHERE r.guest_release = a.release")" = 2 ]
check "6.1 guest is a 6.1 kernel" [ "$(q "SELECT guest_release LIKE '6.1.%' FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = 'v6.1-mglru'")" = 1 ]
check "6.1 residency by mincore, 6.12 by cachestat" [ "$(q "SELECT group_concat(residency, ' ') FROM (SELECT residency FROM runs ORDER BY seq)")" = "mincore cachestat" ]
check "boot-to-agent time recorded" [ "$(q "SELECT COUNT(*) FROM runs WHERE agent_ready_ms > 0")" = 2 ]
check "accel recorded and printed" bash -c 'a=$(sqlite3 results/harness.db "SELECT DISTINCT accel FROM runs"); grep -q "^accel: $a" run.out && { [ "$a" = tcg ] || [ "$a" = kvm ]; }'
check "console log kept per run" bash -c 'for f in $(sqlite3 results/harness.db "SELECT console_path FROM runs"); do grep -q "Linux version" "$f" || exit 1; done'
check "summary ops equal the sum of samples" [ "$(q "SELECT COUNT(*) FROM runs r WHERE r.ops_total != (SELECT SUM(ops) FROM samples s WHERE s.run_id = r.id)")" = 0 ]
check "table printed with both arms" bash -c 'grep -q "^v6.1-mglru " run.out && grep -q "^v6.12-classic " run.out'
"$harness" table e2e-boot > table.out 2>&1
check "table regenerates from the database alone" bash -c 'grep -q "^v6.12-classic .* 1$" table.out'

echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ -z "${KEEP:-}" ] && rm -rf "$work"
[ "$fail" -eq 0 ]
