#!/usr/bin/env bash
# e2e_reclaim.sh -- seed 002's memory.reclaim storm in real guests: requests and
# EAGAINs counted as the kernel answered them, 6.1's missing swappiness= handled.
# usage: tests/e2e_reclaim.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" reclaim "$@"
# the run of arm $1 in cell $2
run_of() { q "SELECT r.id FROM runs r JOIN cells c ON c.id = r.cell_id JOIN arms a ON a.id = r.arm_id WHERE a.name = '$1' AND c.name = '$2'"; }
ops() { q "SELECT $2 FROM op_samples WHERE run_id = $1 AND total = 1 AND op = 'reclaim'"; }

e2e_conf
cd "$work" || exit 1

# Refused before any guest boots: the charge does not fit, swappiness is not a number.
cat > big.json <<'EOF'
{ "name": "big", "reps": 1, "arms": [ { "name": "a", "kernel": "6.12" } ],
  "workloads": [ { "name": "w", "preset": "memcg-reclaim-storm" } ] }
EOF
"$harness" check big.json > big.out 2>&1
check "the seed's 1500 x 256 KiB is refused in a 384 MiB guest, one line naming the streams" \
	bash -c "! grep -q OK big.out && [ \$(wc -l < big.out) = 1 ] && grep -q 'streams: reclaim storms charge 375 MiB' big.out"
sed 's/"preset": "memcg-reclaim-storm"/&, "params": { "memcgs": 10, "charge_mib": 8, "swappiness": "lots" }/' big.json > sw.json
"$harness" check sw.json > sw.out 2>&1
check "a swappiness that is not 0..200 or max is refused" grep -q "swappiness: expected 0..200, max" sw.out

# 200 memcgs of 256 KiB: at the root 64 MiB requests cannot be met (EAGAIN, as
# in the seed); at the storm's parent 1 MiB requests can, until its cache is gone.
cat > storm.json <<'EOF'
{ "name": "storm", "reps": 1,
  "arms": [ { "name": "k612", "kernel": "6.12" }, { "name": "k61", "kernel": "6.1" } ],
  "workloads": [
    { "name": "root", "preset": "memcg-reclaim-storm",
      "params": { "memcgs": 200, "charge_mib": 50, "workers": 4, "request_mib": 64,
                  "runtime_s": 12 } },
    { "name": "parent", "preset": "memcg-reclaim-storm",
      "params": { "memcgs": 200, "charge_mib": 50, "workers": 2, "request_mib": 1,
                  "runtime_s": 12,
                  "cgroup": "parent" } },
    { "name": "omit", "preset": "memcg-reclaim-storm",
      "params": { "memcgs": 100, "charge_mib": 25, "workers": 2, "request_mib": 64,
                  "runtime_s": 12,
                  "fallback": "omit" } }
  ]
}
EOF
"$harness" run storm.json > run.out 2> run.err
cat run.out
[ -s run.err ] && sed 's/^/stderr: /' run.err
check "6.12: every storm run done" [ "$(q "SELECT COUNT(*) FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = 'k612' AND r.status = 'done'")" = 3 ]

r=$(run_of k612 root)
check "ready: the 200 memcgs hold their 50 MiB of page cache ($(q "SELECT value FROM events WHERE run_id = $r AND kind = 'ready'") KiB)" \
	[ "$(q "SELECT value >= 200 * 256 * 9 / 10 FROM events WHERE run_id = $r AND kind = 'ready'")" = 1 ]
check "root, 64 MiB: requests completed ($(ops "$r" ops))" [ "$(ops "$r" ops)" -gt 0 ]
check "root, 64 MiB: every request returned EAGAIN, as in the seed" [ "$(ops "$r" "ops = eagain AND errors = 0")" = 1 ]
check "the intervals add up to the total" \
	[ "$(q "SELECT SUM(ops) FROM op_samples WHERE run_id = $r AND total = 0")" = "$(ops "$r" ops)" ]
# back to back: the workers were busy the whole storm, so count x mean latency
# over the requests is close to workers x the storm's length
busy=$(q "SELECT printf('%.2f', SUM(o.ops * o.lat_mean_ns) / 1e6 / (4.0 * ((SELECT t_ms FROM events WHERE run_id = $r AND kind = 'end') - (SELECT t_ms FROM events WHERE run_id = $r AND kind = 'start')))) FROM op_samples o WHERE o.run_id = $r AND o.total = 0")
check "requests x mean latency covers the 4 workers' time ($busy)" \
	awk -v b="$busy" 'BEGIN { exit !(b >= 0.8 && b <= 1.05) }'
check "latency percentiles in order in every busy interval" \
	[ "$(q "SELECT COUNT(*) FROM op_samples WHERE run_id = $r AND ops > 0 AND NOT (lat_p50_ns <= lat_p99_ns AND lat_p99_ns <= lat_max_ns AND lat_mean_ns <= lat_max_ns)")" = 0 ]

r=$(run_of k612 parent)
met=$(ops "$r" "ops - eagain - errors")
kib=$(q "SELECT value FROM events WHERE run_id = $r AND kind = 'ready'")
check "parent, 1 MiB: some requests met their target ($met)" [ "${met:-0}" -ge 1 ]
check "parent, 1 MiB: no more met than the $kib KiB charged allows" [ "${met:-0}" -le $((kib / 1024 + 2)) ]
check "parent, 1 MiB: the rest returned EAGAIN, none failed otherwise" [ "$(ops "$r" "eagain > 0 AND errors = 0")" = 1 ]

# seed 002's table: requests/s, mean and maximum latency per arm, from the database
"$harness" table storm > table.out 2>&1
cat table.out
for metric in reclaim/s reclaim_ms reclaim_max_ms; do
	check "002: the table has a $metric grid" grep -q "$metric" table.out
done
r=$(run_of k612 root)
rate=$(q "SELECT printf('%.2f', SUM(ops) * 1000.0 / MAX(span_ms)) FROM op_samples WHERE run_id = $r AND total = 1")
mean=$(q "SELECT printf('%.1f', SUM(lat_mean_ns * ops) / 1e6 / SUM(ops)) FROM op_samples WHERE run_id = $r AND total = 1")
check "002: the root row's requests/s is the database's ($rate)" \
	bash -c "awk '/reclaim\\/s/ { g = 1 } g && /^root / { print; exit }' table.out | tr -d , | grep -qE '^root +$rate( |\$)'"
check "002: the root row's mean latency is the database's ($mean ms)" \
	bash -c "awk '/reclaim_ms/ { g = 1 } g && /^root / { print; exit }' table.out | tr -d , | grep -qE '^root +$mean( |\$)'"

"$harness" compare storm k612 k61 > compare.out 2>&1
cat compare.out
check "compare: a reclaim/s verdict for the cell both kernels ran, none for YCSB's rates" \
	bash -c "grep -E '^omit' compare.out | grep -q 'reclaim/s' && ! grep -q 'read/s' compare.out"

r=$(run_of k61 root)
check "6.1 without swappiness=: the run is unsupported and says why" \
	[ "$(q "SELECT status = 'unsupported' AND reason LIKE '%swappiness= not supported%' FROM runs WHERE id = $r")" = 1 ]
r=$(run_of k61 omit)
check "6.1 with fallback omit: done, the fallback recorded as an event" \
	[ "$(q "SELECT r.status = 'done' AND (SELECT COUNT(*) FROM events WHERE run_id = r.id AND kind = 'fallback') = 1 FROM runs r WHERE r.id = $r")" = 1 ]
check "6.1 with fallback omit: requests counted" [ "$(ops "$r" ops)" -gt 0 ]
r=$(run_of k612 omit)
check "6.12 needs no fallback" [ "$(q "SELECT COUNT(*) FROM events WHERE run_id = $r AND kind = 'fallback'")" = 0 ]

e2e_end
