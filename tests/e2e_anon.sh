#!/usr/bin/env bash
# e2e_anon.sh -- anonymous memory in real guests: an anon stream's set is charged
# to the workload's memcg as anon (private) or as shmem (a memfd), its stores
# count as writes, and a pageout with no swap frees nothing.
# usage: tests/e2e_anon.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" anon "$@"

e2e_conf
cd "$work" || exit 1

# no files: a job of anon streams alone; 64 MiB memcgs, sets well inside them
cat > anon.json <<'EOF'
{ "name": "e2e-anon", "reps": 1,
  "arms": [ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" } ],
  "workloads": [
    { "name": "private", "memcg_mib": 64, "duration_s": 4, "interval_ms": 1000,
      "streams": [ { "kind": "anon", "name": "a", "mib": 24, "fill": "compressible",
                     "ratio": 4, "access": "write", "distribution": "zipf", "threads": 2 } ] },
    { "name": "shmem", "memcg_mib": 64, "duration_s": 4, "interval_ms": 1000,
      "streams": [ { "kind": "anon", "name": "s", "mib": 16, "backing": "shmem",
                     "distribution": "sequential", "madvise": "pageout",
                     "madvise_at_s": 1 } ] } ] }
EOF
"$harness" run anon.json > run.out 2> run.err
rc=$?
[ -s run.err ] && sed 's/^/stderr: /' run.err
check "a matrix of anon streams and no files runs, both runs done (exit $rc)" \
	explain "cat run.out" [ "$rc" -eq 0 -a "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 2 ]
run() { q "SELECT r.id FROM runs r JOIN cells c ON c.id = r.cell_id WHERE c.name = '$1'"; }
p=$(run private) s=$(run shmem)
mib() { q "SELECT CAST(MAX($2) / 1048576 AS INTEGER) FROM samples WHERE run_id = $1"; }
echo "# private: anon up to $(mib "$p" anon) MiB, file $(mib "$p" file) MiB;" \
	"shmem: anon $(mib "$s" anon) MiB, file $(mib "$s" file) MiB"
check "private: the 24 MiB are the memcg's anon memory, not its page cache" \
	[ "$(mib "$p" anon)" -ge 22 -a "$(mib "$p" file)" -lt 8 ]
check "shmem: the 16 MiB memfd is the memcg's file memory (shmem), not its anon" \
	[ "$(mib "$s" file)" -ge 15 -a "$(mib "$s" anon)" -lt 8 ]
check "private: every interval's touches are stores, counted as writes" \
	[ "$(q "SELECT COUNT(*) FROM stream_samples WHERE run_id = $p AND (write_ops = 0 OR read_ops > 0)
		AND seq > 0")" = 0 ]
check "shmem: loads, counted as reads" \
	[ "$(q "SELECT SUM(read_ops) > 0 AND SUM(write_ops) = 0 FROM stream_samples WHERE run_id = $s")" = 1 ]
check "shmem: madvise pageout came 1 s into the touches, over the 16 MiB" \
	[ "$(q "SELECT value FROM events WHERE run_id = $s AND kind = 'madvise'")" = $((16 << 20)) ]
# no swap in the guest: a shmem page cannot be paged out, so the set stays
# (the samples between the advice and the stream's end: after it, the memfd is gone)
at() { q "SELECT t_ms FROM events WHERE run_id = $s AND kind = '$1'"; }
check "shmem: with no swap the pageout freed nothing: 16 MiB charged until the stream ended" \
	[ "$(q "SELECT COUNT(*) > 0 AND MIN(file) >= 15 << 20 FROM samples WHERE run_id = $s
		AND t_ms > $(at madvise) AND t_ms < $(at end)")" = 1 ]
check "private: a 24 MiB set in a 64 MiB memcg never stalled on memory (PSI some 0)" \
	[ "$(q "SELECT SUM(memcg_psi_some_us) FROM samples WHERE run_id = $p")" = 0 ]
check "private: ... nor in reclaim: stall tracing on, no stall, an empty histogram" \
	[ "$(q "SELECT stalls LIKE 'on: %' FROM runs WHERE id = $p")|$(q "SELECT SUM(reclaim_stalls)
		FROM samples WHERE run_id = $p")|$(q "SELECT COUNT(*) FROM counters WHERE run_id = $p
		AND src = 'stall' AND key LIKE 'le%'")" = "1|0|0" ]
check "both calibrated a miss threshold from resident touches" \
	[ "$(q "SELECT COUNT(*) FROM events WHERE kind = 'calibrated' AND value > 0")" = 2 ]

# transparent hugepages per arm: written, read back, and what the memcg's anon is made of
cat > thp.json <<'EOF'
{ "name": "e2e-thp", "reps": 1,
  "arms": [ { "name": "thp", "kernel": "6.12", "lru_gen": "y",
              "thp_enabled": ["always", "never"], "thp_defrag": "madvise" } ],
  "workloads": [
    { "name": "huge", "memcg_mib": 96, "duration_s": 3, "interval_ms": 1000,
      "streams": [ { "kind": "anon", "name": "h", "mib": 32, "access": "write" } ] } ] }
EOF
"$harness" run thp.json > thp.out 2> thp.err
rc=$?
[ -s thp.err ] && sed 's/^/stderr: /' thp.err
check "arms of thp_enabled always and never run, done (exit $rc)" \
	explain "cat thp.out" [ "$rc" -eq 0 -a "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON
		m.id = r.matrix_id WHERE m.name = 'e2e-thp' AND r.status = 'done'")" = 2 ]
thp() { q "SELECT r.$2 FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = 'thp-$1'"; }
check "each guest read back what its arm wrote: enabled always / never, defrag madvise" \
	[ "$(thp always thp_enabled_read) $(thp never thp_enabled_read) $(thp always thp_defrag_read)" \
	  = "always never madvise" ]
huge() { q "SELECT CAST(MAX(s.anon_thp) / 1048576 AS INTEGER) FROM samples s JOIN runs r ON
	r.id = s.run_id JOIN arms a ON a.id = r.arm_id WHERE a.name = 'thp-$1'"; }
echo "# anon_thp: always $(huge always) MiB, never $(huge never) MiB of the 32 MiB set"
check "always: the 32 MiB set faulted in as huge pages, 8 MiB or more of it" [ "$(huge always)" -ge 8 ]
check "never: none of it" [ "$(huge never)" = 0 ]

e2e_end
