#!/usr/bin/env bash
# e2e_trace.sh -- sampled folio tracing in real guests: seed 003's pread example traced
# (trace_sample 64 of the hot file) under MGLRU and the classic LRU on 6.12, and on 6.1.
# usage: tests/e2e_trace.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" trace "$@"

e2e_conf

# seed-003.json's pread cell at its shipped scale (10 %: a 40 MiB hot file, 10240
# pages, read twice, then at random while a 307 MiB file is scanned three times),
# one run an arm, one page in 64 of the hot file traced: 160 pages. 6.1 has no
# fprobe or tprobe events: its run goes on untraced and says why.
cat > "$work/trace.json" <<'EOF'
{
  "name": "e2e-trace", "memory_mib": 384, "reps": 1,
  "arms": [
    { "name": "mglru", "kernel": "6.12", "lru_gen": "y" },
    { "name": "classic", "kernel": "6.12", "lru_gen": "n" },
    { "name": "old", "kernel": "6.1", "lru_gen": "y" }
  ],
  "workloads": [
    { "name": "hot", "preset": "hot-read-vs-scan", "scale": 0.1, "time_scale": 0.1,
      "params": { "access": "pread", "trace_sample": 64 } }
  ]
}
EOF

cd "$work" || exit 1
"$harness" run trace.json > run.out 2> run.err
rc=$?
[ -s run.err ] && sed 's/^/stderr: /' run.err
run() { echo "(SELECT r.id FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = '$1')"; }
y=$(run mglru) n=$(run classic) old=$(run old)
ev() { q "SELECT COUNT(*) FROM trace_events WHERE run_id = $1 AND $2"; }

check "harness run exits 0" [ "$rc" -eq 0 ]
check "three runs done" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 3 ]
for a in y n; do
	r=${!a}
	check "run $a: the trace is on with all 6 probes at 1/64" \
		[ "$(q "SELECT trace FROM runs WHERE id = $r")" = "on: 1/64, 6 probes" ]
	check "run $a: the kernel's losses are counted (stored, $(q "SELECT trace_lost FROM runs WHERE id = $r"))" \
		[ -n "$(q "SELECT trace_lost FROM runs WHERE id = $r AND trace_lost IS NOT NULL")" ]
	tot=$(ev "$r" 1)
	check "run $a: refused at most 1 % of $tot events ($(q "SELECT trace_refused FROM runs WHERE id = $r"))" \
		[ "$(q "SELECT trace_refused * 100 <= $tot FROM runs WHERE id = $r")" = 1 ]
	check "run $a: every event is a sampled page of the hot file (its inode, index a multiple of 64 below 10240)" \
		[ "$(ev "$r" "(ino != (SELECT ino FROM run_files WHERE run_id = $r AND idx = 0) OR page % 64 != 0 OR page >= 10240)")" = 0 -a "$tot" -gt 0 ]
	check "run $a: loads, adds and removes were traced" \
		[ "$(ev "$r" "kind = 'load'")" -gt 0 -a "$(ev "$r" "kind = 'add'")" -gt 0 -a "$(ev "$r" "kind = 'remove'")" -gt 0 ]
done
check "the untraced 6.1 run says why, and stores no event" \
	[ "$(q "SELECT trace FROM runs WHERE id = $old")" = "off: the kernel took none of the probes (needs fprobe, tprobe, BTF)" -a "$(ev "$old" 1)" = 0 ]

# The science: under MGLRU a page read() into the cache enters one of the two
# oldest generations (seed 001's "oldest" / "second-oldest"); the classic LRU
# puts it on the inactive list. Seed 003: MGLRU then evicts the pread hot file
# the scan runs past, the classic LRU keeps more of it.
adds=$(ev "$y" "kind = 'add'")
old2=$(ev "$y" "kind = 'add' AND place IN ('oldest', 'second-oldest')")
check "MGLRU: hot-file folios enter the oldest two generations ($old2 of $adds adds, at least 90 %)" \
	[ "$((old2 * 10))" -ge "$((adds * 9))" ]
check "MGLRU: every add has a generation in its window" \
	[ "$(ev "$y" "kind = 'add' AND (place NOT IN ('oldest', 'second-oldest', 'younger') OR gen < min_seq OR gen > max_seq)")" = 0 ]
nadds=$(ev "$n" "kind = 'add'")
ninact=$(ev "$n" "kind = 'add' AND place = 'inactive'")
check "classic: hot-file folios enter the inactive list ($ninact of $nadds adds, at least 90 %), none a generation" \
	[ "$((ninact * 10))" -ge "$((nadds * 9))" -a "$(ev "$n" "kind = 'add' AND place NOT IN ('inactive', 'active')")" = 0 ]
check "classic: the LRU activates hot-file folios; MGLRU's pread path never does" \
	[ "$(ev "$n" "kind = 'activate'")" -gt 0 -a "$(ev "$y" "kind = 'activate'")" = 0 ]
share() { q "SELECT ROUND(1.0 * SUM(kind = 'remove') / SUM(kind = 'load'), 3) FROM trace_events WHERE run_id = $1"; }
sy=$(share "$y") sn=$(share "$n")
check "seed 003: MGLRU removes more of the loaded hot-file folios ($sy of loads) than the classic LRU ($sn)" \
	python3 -c "import sys; sys.exit(not float('$sy') > float('$sn'))"

"$harness" lru e2e-trace > lru.out 2>&1
check "harness lru: the placement tables, MGLRU's and the classic LRU's" \
	grep -qE '^  placed +loads +oldest +second-oldest +younger$' lru.out && grep -qE '^  placed +loads +inactive +active$' lru.out
check "harness lru: the fate table with each traced arm" \
	[ "$(grep -A2 '^  fate ' lru.out | grep -cE '^  (mglru|classic) +[0-9]+ ')" = 2 ]
check "harness lru: every line fits a 72-column mail" [ "$(awk 'length > 72' lru.out | wc -l)" = 0 ]
sed -n '/sampled folios (trace)/,/^measured/p' lru.out
check "docs/lru.md's trace sample says what harness lru says today" \
	python3 "$repo/tests/doc_output.py" "$repo/docs/lru.md" 3 lru.out \
	trace-003,mglru,classic e2e-trace,hot,mglru,classic,old

e2e_end
