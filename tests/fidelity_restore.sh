#!/usr/bin/env bash
# fidelity_restore.sh -- does a guest restored from a save measure what a
# booted one measures? A/A on e2e_calibrate's zipf cell (48 MiB read through a
# 32 MiB memcg, two identical 6.12 arms), BLOCKS ABBA blocks each way:
#   boot     every run boots;
#   shared   restore, both arms from the same saves (arms that differ only in
#            their job share them), SAVES of them rotated over the blocks;
#   split    restore, the second arm's saves from boots of their own (a
#            cmdline token that changes nothing but the key): two kernels'
#            case, where each arm's memory layout comes from other boots;
#   one      split with one save per arm (saves = 1): a lucky or unlucky
#            save would show here as an offset that no block cancels.
# Per way: the mean and the sd over blocks of the paired delta of ops/s (A
# against B, % of B) and of refaults/s (A - B: some runs refault almost
# never), and the CV of all its runs' ops/s. Then seeds 000 and 003 (tests/e2e_seeds.sh)
# with start restore: their directions must hold.
# usage: tests/fidelity_restore.sh HARNESS [BLOCKS (8)] [SAVES (4)]
# (make bench-restore; images built; nothing else may run on this machine)
set -u

harness=$(realpath "${1:?harness binary}")
blocks=${2:-8}
saves=${3:-4}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/fidelity.XXXXXX)
cd "$work" || exit 1

conf() { # conf SAVES
	printf 'results = results\nimages = %s/images/out\nmemory_mib = 384\nvcpus = 2\n' "$repo"
	printf 'saves = %s\nquiet_cpu_pct = 100\nquiet_io_pct = 100\n' "$1"
}
matrix() { # matrix NAME START SECOND_ARM_CMDLINE
	cat <<EOF
{ "name": "$1", "reps": $((blocks * 2)), "start": "$2",
  "arms": [ { "name": "a1", "kernel": "6.12", "lru_gen": "n" },
            { "name": "a2", "kernel": "6.12", "lru_gen": "n", "cmdline": "$3" } ],
  "workloads": [
    { "name": "zipf", "memcg_mib": 32, "duration_s": 3,
      "files": [ { "name": "d", "mib": 48 } ],
      "streams": [ { "kind": "random", "file": "d", "distribution": "zipf", "theta": 0.9 } ] } ] }
EOF
}

conf "$saves" > harness.conf
matrix boot boot "" > boot.json
matrix shared restore "" > shared.json
matrix split restore "harness.aa=2" > split.json
for m in boot shared split; do
	t0=$SECONDS
	"$harness" run "$m.json" > "$m.out" 2>&1 || { tail -3 "$m.out"; exit 1; }
	echo "# $m: $((SECONDS - t0)) s"
done
conf 1 > harness.conf
matrix one restore "harness.aa=one" > one.json
"$harness" run one.json > one.out 2>&1 || { tail -3 one.out; exit 1; }

python3 - results/harness.db <<'EOF'
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
print("way      blocks  ops/s delta: mean     sd  refault/s delta: mean     sd  runs' ops/s CV  runs/save")
for way in ("boot", "shared", "split", "one"):
    rows = db.execute("""SELECT s.block, a.name, s.ops_per_s, s.refault_per_s FROM run_summary s
        JOIN runs r ON r.id = s.run_id JOIN arms a ON a.id = r.arm_id
        JOIN matrices m ON m.id = s.matrix_id WHERE m.name = ? AND r.status = 'done'""", (way,)).fetchall()
    per = {}
    for b, arm, ops, rf in rows:
        per.setdefault(b, {}).setdefault(arm, []).append((ops, rf))
    d_ops, d_rf = [], []
    for b, arms in sorted(per.items()):
        if len(arms) != 2:
            continue
        m = {k: [statistics.mean(x[i] for x in v) for i in (0, 1)] for k, v in arms.items()}
        d_ops.append(100 * (m["a1"][0] - m["a2"][0]) / m["a2"][0])
        d_rf.append(m["a1"][1] - m["a2"][1])        # refaults/s: absolute (some runs have ~0)
    ops = [r[2] for r in rows]
    used = db.execute("""SELECT COUNT(*), COUNT(DISTINCT save_key) FROM runs r JOIN matrices m
        ON m.id = r.matrix_id WHERE m.name = ? AND save_key IS NOT NULL""", (way,)).fetchone()
    sd = lambda v: statistics.stdev(v) if len(v) > 1 else float("nan")
    mean = lambda v: statistics.mean(v) if v else float("nan")
    print("%-8s %6d %17.1f%% %5.1f%% %19.0f/s %4.0f/s %14.1f%%  %s" % (way, len(d_ops),
          mean(d_ops), sd(d_ops), mean(d_rf), sd(d_rf), 100 * sd(ops) / mean(ops),
          "%d/%d" % used if used[1] else "-"))
EOF

# the seeds' directions, every run restored
E2E_START=restore "$repo/tests/e2e_seeds.sh" "$harness" 2>&1 | grep -E "^(ok|not ok) |^e2e-seeds"
echo "# kept in $work"
