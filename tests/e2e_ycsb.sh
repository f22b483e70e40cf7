#!/usr/bin/env bash
# e2e_ycsb.sh -- YCSB on LevelDB in real guests: bad matrices refused before
# any boot; workload a's operation mix and a scan's length on x86_64 and
# aarch64; seed 001's three GET/SCAN layouts from one command, table from the database.
# usage: tests/e2e_ycsb.sh HARNESS_BINARY   (make build images first: agents, ycsb-load)
set -u

. "$(dirname "$0")/testlib.sh" ycsb "$@"
# within LO HI VALUE: LO <= VALUE <= HI (decimals)
within() { awk -v lo="$1" -v hi="$2" -v v="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }

e2e_conf
cd "$work" || exit 1

# --- bad input: one line, before any boot ---
bad() { # bad NAME WORKLOAD-JSON EXPECTED-TEXT
	printf '{"name": "%s", "reps": 1, "arms": [{"name": "a", "kernel": "6.12"}],
	  "workloads": [%s]}\n' "$1" "$2" > "$1.json"
	"$harness" run "$1.json" > "$1.out" 2> "$1.err"
	local rc=$?
	check "$1: refused (exit $rc) with one line naming it" \
		bash -c '[ "$1" -ne 0 ] && [ "$(wc -l < "$2")" -eq 1 ] && grep -qF -- "$3" "$2"' \
		_ "$rc" "$1.err" "$3"
	sed 's/^/  /' "$1.err"
}
db='"databases": [{"recordcount": 2000}]'
bad unknown-property "{\"name\": \"w\", $db, \"streams\": [{\"kind\": \"ycsb\", \"requestdistrib\": \"zipfian\"}]}" \
	"streams[0]: unknown key 'requestdistrib'"
bad proportions "{\"name\": \"w\", $db, \"streams\": [{\"kind\": \"ycsb\", \"readproportion\": 0.5, \"updateproportion\": 0.3}]}" \
	"is 0.8, expected 1"
bad too-big "{\"name\": \"w\", \"databases\": [{\"recordcount\": 200000}], \"disk_mib\": 64, \"streams\": [{\"kind\": \"ycsb\"}]}" \
	"disk_mib: 64 MiB is too small"
check "no guest booted for the bad matrices" bash -c '[ ! -f results/harness.db ] || [ "$(sqlite3 results/harness.db "SELECT COUNT(*) FROM runs WHERE status != '"'queued'"'")" = 0 ]'

# --- workload a (x86_64 and aarch64) and a fixed-length scan ---
cat > ycsb.json <<'EOF'
{
  "name": "e2e-ycsb",
  "reps": 1,
  "arch": ["x86_64", "aarch64"],
  "arms": [ { "name": "mglru", "kernel": { "x86_64": "6.12", "aarch64": "6.12" }, "lru_gen": "y" } ],
  "workloads": [
    { "name": "a", "preset": "ycsb-a",
      "params": { "db_records": 4000, "threadcount": 2, "memcg_mib": 64, "ramp_s": 2, "runtime_s": 12 } },
    { "name": "scan", "memcg_mib": 64, "duration_s": 12, "ramp_s": 2,
      "databases": [ { "name": "db", "recordcount": 4000 } ],
      "streams": [ { "kind": "ycsb", "readproportion": 0, "updateproportion": 0, "scanproportion": 1,
                     "minscanlength": 50, "maxscanlength": 50, "requestdistribution": "uniform" } ] }
  ]
}
EOF
"$harness" run ycsb.json > ycsb.out 2> ycsb.err
rc=$?
cat ycsb.out
[ -s ycsb.err ] && sed 's/^/stderr: /' ycsb.err
run_of() { echo "(SELECT r.id FROM runs r JOIN cells c ON c.id = r.cell_id JOIN matrices m ON m.id = r.matrix_id WHERE m.name = '$1' AND c.name = '$2')"; }
tot() { q "SELECT COALESCE(SUM($3), 0) FROM op_samples WHERE run_id = $(run_of e2e-ycsb "$1") AND total = 1 AND op = '$2'"; }
check "harness run exits 0" [ "$rc" -eq 0 ]
check "four runs done" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 4 ]
for cell in a a@aarch64; do
	r=$(tot "$cell" read ops) u=$(tot "$cell" update ops) e=$(tot "$cell" read errors)
	share=$(awk -v r="$r" -v u="$u" 'BEGIN { if (r + u) printf "%.4f", r / (r + u) }')
	echo "  $cell: $r reads, $u updates (read share $share), $e read errors"
	check "$cell: a few hundred operations at least" [ $((r + u)) -ge 200 ]
	# binomial: 4 standard deviations of the share at n = r + u
	tol=$(awk -v n="$((r + u))" 'BEGIN { if (n) printf "%.4f", 4 * sqrt(0.25 / n) }')
	check "$cell: read share $share is 0.5 within $tol" within "$(awk -v t="$tol" 'BEGIN { print 0.5 - t }')" "$(awk -v t="$tol" 'BEGIN { print 0.5 + t }')" "$share"
	check "$cell: every read found its record" [ "$e" = 0 ]
	check "$cell: per-interval samples add up to the totals" [ "$(q "SELECT SUM(ops) FROM op_samples o JOIN samples s ON s.run_id = o.run_id AND s.seq = o.seq WHERE o.run_id = $(run_of e2e-ycsb "$cell") AND o.total = 0 AND s.ramp = 0")" = $((r + u)) ]
	check "$cell: latency p50 <= p99 <= max, all positive" [ "$(q "SELECT COUNT(*) FROM op_samples WHERE run_id = $(run_of e2e-ycsb "$cell") AND total = 1 AND NOT (lat_p50_ns > 0 AND lat_p50_ns <= lat_p99_ns AND lat_p99_ns <= lat_max_ns)")" = 0 ]
done
check "the aarch64 guest said uname -m aarch64" [ "$(q "SELECT arch FROM runs WHERE id = $(run_of e2e-ycsb a@aarch64)")" = aarch64 ]
for cell in scan scan@aarch64; do
	n=$(tot "$cell" scan ops) rec=$(tot "$cell" scan records)
	per=$(awk -v n="$n" -v r="$rec" 'BEGIN { if (n) printf "%.2f", r / n }')
	echo "  $cell: $n scans, $rec records ($per per scan)"
	# a scan starting within 50 keys of the end returns fewer: 50/4000 of them
	check "$cell: scans return the 50 records asked for (mean $per)" within 48.5 50 "$per"
	check "$cell: no scan returned more than asked" [ "$(q "SELECT COUNT(*) FROM op_samples WHERE run_id = $(run_of e2e-ycsb "$cell") AND records > 50 * ops")" = 0 ]
done
check "one data disk per database, loaded once" [ "$(ls results/cache/disk-*.img | wc -l)" = 2 ]

# --- seed 001: three layouts from one command, the 001 table from the database ---
cat > seed001.json <<'EOF'
{
  "name": "e2e-001",
  "reps": 1,
  "arms": [ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" } ],
  "workloads": [
    { "name": "sg", "preset": "leveldb-scan-get",
      "params": { "db_records": 20000, "memcg_mib": 40, "scan_length": 1000, "get_threads": [3, 7],
                  "ramp_s": 4, "runtime_s": 10 } },
    { "name": "mixed", "preset": "leveldb-mixed",
      "params": { "db_records": 20000, "memcg_mib": 40, "scan_length": 1000, "workers": 4,
                  "ramp_s": 4, "runtime_s": 10 } }
  ]
}
EOF
"$harness" run seed001.json > 001.out 2> 001.err
rc=$?
cat 001.out
[ -s 001.err ] && sed 's/^/stderr: /' 001.err
check "001: harness run exits 0" [ "$rc" -eq 0 ]
check "001: three layouts done" [ "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'e2e-001' AND r.status = 'done'")" = 3 ]
"$harness" table e2e-001 > table.out 2>&1
for metric in read/s scan/s get/scan; do
	check "001: the table has a $metric grid" grep -q "$metric" table.out
done
for cell in sg/3 sg/7 mixed; do
	rs=$(q "SELECT SUM(ops) * 1000.0 / MAX(span_ms) FROM op_samples WHERE run_id = $(run_of e2e-001 "$cell") AND total = 1 AND op = 'read'")
	ss=$(q "SELECT SUM(ops) * 1000.0 / MAX(span_ms) FROM op_samples WHERE run_id = $(run_of e2e-001 "$cell") AND total = 1 AND op = 'scan'")
	echo "  $cell: GET $rs/s, SCAN $ss/s"
	check "001 $cell: GETs and SCANs both ran" within 0.0001 1e12 "$(awk -v a="$rs" -v b="$ss" 'BEGIN { print (a > 0 && b > 0) ? 1 : 0 }')"
	check "001 $cell: the table's GET/SCAN row is the database's" grep -qE "^$cell +$(awk -v a="$rs" -v b="$ss" 'BEGIN { if (b > 0) printf "%.1f", a / b }')( |$)" table.out
done

e2e_end
