#!/usr/bin/env bash
# e2e_restore.sh -- runs started from saved guests (docs/restore.md): each
# block's first run of a kernel boots to the agent's hello and is saved, its
# other runs restore that save; arms that differ only in lru_gen share it and
# still read back their own lru_gen; every run's CRNG differs, every restored
# guest's clock is stepped by the time since its save; the phases say restore;
# the cache is pruned to its cap, a save that cannot be restored is dropped and
# made again by the next run; a bad "start" is refused before any guest starts.
# usage: tests/e2e_restore.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" restore "$@"

e2e_conf "start = boot" "saves = 2"
cd "$work" || exit 1

matrix() { # matrix NAME REPS ARMS
	cat > "$1.json" <<EOF2
{ "name": "$1", "reps": $2, "start": "restore", "arms": [ $3 ],
  "workloads": [ { "name": "w", "duration_s": 2, "memcg_mib": 32,
                   "files": [ { "name": "d", "mib": 8 } ],
                   "streams": [ { "kind": "scan", "file": "d" } ] } ] }
EOF2
}
y='{ "name": "mglru", "kernel": "6.12", "lru_gen": "y" }'
n='{ "name": "classic", "kernel": "6.12", "lru_gen": "n" }'
old='{ "name": "old", "kernel": "6.1", "lru_gen": "y" }'

# 0. refused before anything starts
sed 's/"start": "restore"/"start": "resume"/' > bad.json <<'EOF2'
{ "name": "bad", "reps": 2, "start": "restore", "arms": [ { "name": "a", "kernel": "6.12" } ],
  "workloads": [ { "name": "w", "duration_s": 2, "files": [ { "name": "d", "mib": 8 } ],
                   "streams": [ { "kind": "scan", "file": "d" } ] } ] }
EOF2
"$harness" run bad.json > bad.out 2>&1
rc=$?
check "a \"start\" that is neither boot nor restore: one line, nothing started (exit $rc)" \
	bash -c "[ $rc -ne 0 ] && [ \$(wc -l < bad.out) = 1 ] && grep -q 'start: expected \"boot\" or \"restore\"' bad.out && [ ! -e results/runs ]"

# 1. two blocks of two arms on one kernel, saves = 2: one save a block
matrix pair 4 "$y, $n"
t0=$SECONDS
"$harness" run pair.json > pair.out 2>&1
check "run pair.json (exit $?, $((SECONDS - t0)) s)" grep -q "8 done" pair.out
check "each block's first run saved, its three others restored" \
	[ "$(q "SELECT group_concat(start, ' ') FROM (SELECT start FROM runs ORDER BY seq)")" = \
	  "save restore restore restore save restore restore restore" ]
check "two saves, one a block, each arm's runs of a block on the same one" \
	[ "$(q "SELECT COUNT(DISTINCT save_key) || ' ' || COUNT(DISTINCT block || save_key) FROM runs")" = "2 2" ]
check "each arm reads back its own lru_gen from the shared save" \
	[ "$(q "SELECT group_concat(x) FROM (SELECT DISTINCT a.name || '=' || r.lru_gen_read AS x FROM runs r JOIN arms a ON a.id = r.arm_id ORDER BY x)")" = "classic=0x0000,mglru=0x0007" ]
check "every run's CRNG differs after the host's reseed, restored from one save or not" \
	[ "$(q "SELECT COUNT(DISTINCT rng) FROM runs WHERE length(rng) = 16")" = 8 ]
# a restored guest's wall clock stood still from its save to its job: the step
# is the time between them (its save's end and its own restore), within 2.5 s
# (the booted guest's clock came from the RTC's whole seconds)
check "each restored guest's clock stepped by the time since its save (within 2.5 s)" \
	[ "$(q "SELECT COUNT(*) FROM runs r JOIN runs s ON s.save_key = r.save_key AND s.start = 'save'
	       JOIN run_phases pr ON pr.run_id = r.id AND pr.phase = 'restore'
	       JOIN run_phases ps ON ps.run_id = s.id AND ps.phase = 'save'
	       WHERE r.start = 'restore' AND r.clock_ahead_ms = 0
	       AND abs(r.clock_behind_ms - (pr.at_ms - ps.at_ms)) < 2500")" = 6 ]
"$harness" --json phases pair > phases.json
check "phases: a save run boots, saves and restores; a restored one restores and boots not" \
	python3 - phases.json <<'EOF'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
saved = [list(r["ms"]) for r in runs[0::4]]
restored = [list(r["ms"]) for i, r in enumerate(runs) if i % 4]
boot = ["prepare", "define", "firmware", "kernel", "modules", "agent", "save", "restore",
        "setup", "workload", "teardown", "store"]
rest = ["prepare", "restore", "setup", "workload", "teardown", "store"]
ok = len(runs) == 8 and all(s == boot for s in saved) and all(r == rest for r in restored)
ok = ok and all(r["ms"]["restore"] > 0 and sum(r["ms"].values()) == r["total_ms"] for r in runs)
sys.exit(0 if ok else 1)
EOF
"$harness" phases pair > phases.out 2>&1
check "harness phases prints the restore column" grep -q " restore " phases.out
check "a restored run's console is its own: the workload's lines, no boot banner" \
	bash -c 'c=$(sqlite3 results/harness.db "SELECT console_path FROM runs WHERE seq = 1"); grep -q "harness: sent sample" "$c" && ! grep -q "Linux version" "$c"'
check "the save run's console kept its boot and its workload" \
	bash -c 'c=$(sqlite3 results/harness.db "SELECT console_path FROM runs WHERE seq = 0"); grep -q "Linux version" "$c" && grep -q "harness: sent sample" "$c"'
check "the saves are in the cache, each a state, a disk and a hello" \
	[ "$(ls results/cache/saves/*/state results/cache/saves/*/disk.qcow2 results/cache/saves/*/hello | wc -l)" = 6 ]
check "each save names the one matrix whose runs used it, once (the queue's hold on it)" \
	bash -c 'for f in results/cache/saves/*/users; do [ "$(cat "$f")" = "$(sqlite3 results/harness.db "SELECT MIN(id) FROM matrices")" ] || exit 1; done &&
		[ "$(ls results/cache/saves/*/users | wc -l)" = 2 ]' 
# what each save takes on disk, as its save run stored it (and harness phases prints)
# (its "users" file, the matrices that used it, is bookkeeping, not the save)
ondisk() { find "results/cache/saves/$1" -type f \( -name state -o -name disk.qcow2 -o -name hello \) \
	-printf '%b\n' | awk '{ s += $1 * 512 } END { print s }'; }
sizes_ok() {
	local key bytes
	[ "$(q "SELECT COUNT(*) FROM runs WHERE start != 'save' AND save_bytes IS NOT NULL")" = 0 ] || return 1
	while IFS='|' read -r key bytes; do
		[ -n "$bytes" ] && [ "$bytes" = "$(ondisk "$key")" ] || return 1
	done < <(q "SELECT save_key, save_bytes FROM runs WHERE start = 'save'")
}
check "each save run stored its save's size on disk (state, disk, hello); no other run has one" \
	explain "q 'SELECT id, start, save_key, save_bytes FROM runs'" sizes_ok
check "harness phases shows the save runs' size in MiB" \
	[ "$(grep -cE '^[0-9]+ +done +save .* [0-9]+\.[0-9]$' phases.out)" = 2 ]

# 2. asked again: every run restores, nothing boots
matrix again 2 "$y"
"$harness" run again.json > again.out 2>&1
check "a second matrix of the same kernel boots nothing (exit $?)" \
	[ "$(q "SELECT group_concat(start, ' ') FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'again'")" = "restore restore" ]

# 3. the cache capped at 64 MiB: the 6.1 kernel's save pushes the older ones out
e2e_conf "start = boot" "saves = 1" "saves_max_mib = 64"
matrix other 2 "$old"
"$harness" run other.json > other.out 2>&1
check "run other.json on 6.1 (exit $?)" grep -q "2 done" other.out
check "pruned to the cap: only the newest save is left" [ "$(ls -d results/cache/saves/*/ | wc -l)" = 1 ]

# 4. a save that cannot be restored: the attempt fails as the harness's, the
# save is dropped, and the run is retried (retries = 1), saving the guest anew
truncate -s 1M results/cache/saves/*/state
matrix broken 2 "$old"
"$harness" run broken.json > broken.out 2>&1
check "run broken.json: both runs done, the first at its second attempt (exit $?)" \
	bash -c 'grep -q "2 done" broken.out && grep -q "^  retried as run [0-9]*: done" broken.out'
check "the restore's failure is the harness's, told with the save's key" \
	[ "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'broken' AND r.status = 'failed' AND r.reason LIKE 'restoring saved guest %'")" = 1 ]
check "... and the retry saved the guest anew, the next run restored it" \
	[ "$(q "SELECT group_concat(start, ' ') FROM (SELECT start FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'broken' AND r.status = 'done' ORDER BY r.seq, r.attempt)")" = "save restore" ]

e2e_end
