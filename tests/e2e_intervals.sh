#!/usr/bin/env bash
# e2e_intervals.sh -- intervals tell the truth in a starved guest: fio's main
# process (its status output) is stopped for 4 s while its jobs read on; no
# interval may store 0 reads for that, and the intervals add up to fio's total.
# usage: tests/e2e_intervals.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" intervals "$@"

e2e_conf
cd "$work" || exit 1

# fio paced at 2 x 500 reads/s: what it did each second is known; a paced reader beside it
cat > stall.json <<'EOF'
{
  "name": "e2e-intervals",
  "reps": 1,
  "arms": [ { "name": "stall", "kernel": "6.12",
              "cmdline": "harness.fault=fiostall harness.fault_after=3 harness.fault_for=4" } ],
  "workloads": [
    { "name": "stalled", "memcg_mib": 128, "duration_s": 12,
      "files": [ { "name": "f", "mib": 32 }, { "name": "r", "mib": 16 } ],
      "streams": [
        { "kind": "fio", "name": "vec",
          "args": "--name=vec --filename=f --rw=randread --bs=4k --numjobs=2 --time_based --runtime=11 --rate_iops=500" },
        { "kind": "random", "name": "paced", "file": "r", "rate": 500 }
      ] }
  ]
}
EOF
"$harness" run stall.json > stall.out 2> stall.err
[ -s stall.err ] && sed 's/^/stderr: /' stall.err
run="(SELECT MAX(id) FROM runs)"
console=$(q "SELECT console_path FROM runs WHERE id = $run")
check "the stalled run is done" [ "$(q "SELECT status FROM runs WHERE id = $run")" = done ]
check "fio's main process was stopped for 4 s and went on" \
	bash -c 'grep -q "fault fiostall: fio [0-9]* stopped at" "$1" && grep -q "fault fiostall: fio continued at" "$1"' _ "$console"
samples=$(q "SELECT COUNT(*) FROM samples WHERE run_id = $run")
echo "# vec reads per interval: $(q "SELECT group_concat(read_ops, ' ') FROM (SELECT read_ops FROM stream_samples WHERE run_id = $run AND stream = 0 ORDER BY seq)")"
check "every stream has every one of the $samples intervals" \
	[ "$(q "SELECT COUNT(*) FROM stream_samples WHERE run_id = $run GROUP BY stream" | sort -u | tr '\n' ' ')" = "$samples " ]
# from the jobs' first read (fio may spend the first second setting up) to their last
check "no interval between fio's first and last read stores 0 reads" \
	[ "$(q "SELECT COUNT(*) FROM stream_samples WHERE run_id = $run AND stream = 0 AND read_ops = 0
		AND seq BETWEEN (SELECT MIN(seq) FROM stream_samples WHERE run_id = $run AND stream = 0 AND read_ops > 0)
		AND (SELECT MAX(seq) FROM stream_samples WHERE run_id = $run AND stream = 0 AND read_ops > 0)")" = 0 ]
check "fio read in at least 10 intervals" \
	[ "$(q "SELECT COUNT(*) FROM stream_samples WHERE run_id = $run AND stream = 0 AND read_ops > 0")" -ge 10 ]
total=$(q "SELECT value FROM events WHERE run_id = $run AND kind = 'total' AND stream = 0")
sum=$(q "SELECT SUM(read_ops) FROM stream_samples WHERE run_id = $run AND stream = 0")
check "fio's intervals add up to its own total exactly ($sum vs $total)" \
	bash -c '[ "$1" -gt 0 ] && [ "$1" = "$2" ]' _ "${total:-0}" "${sum:-x}"
# the agent says which intervals no status document was dated in: the stall's
spread=$(grep -c "fio stream 0: interval [0-9]* has no status document of its own" "$console")
check "the stall left intervals with no document of their own ($spread), spread over" [ "$spread" -ge 2 ]

e2e_end
