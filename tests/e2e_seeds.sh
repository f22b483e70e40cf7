#!/usr/bin/env bash
# e2e_seeds.sh -- the seed examples as shipped (workloads/examples/seed-*.json)
# show their seed's result: 003, the pread hot file kept far less under MGLRU
# than under the classic LRU while the mapped one is kept by both; 000, with
# MADV_RANDOM the cold file stays cached under MGLRU and the vector file's
# reads do not recover, while the classic LRU evicts it and recovers, and
# with no advice both recover; 002 (SEEDS_REPS 2 or more), requests answered
# and EAGAINs counted.
# The measures come from the database (tests/seeds_measure.py). Sizes and
# times are the examples' own; SEEDS_REPS (default 1, one run per arm, to keep
# make test within its hour; make test-long: 2; the examples ship 8 to 12) sets reps.
# The quiet-host gate is on, and a contended run is left out of the measures:
# load on the host must not pass for a kernel's effect (a run beside another
# guest once read 0.46 for the classic LRU's recovery).
# usage: tests/e2e_seeds.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" seeds "$@"

e2e_conf 'quiet_cpu_pct = 30' 'quiet_io_pct = 20'
cd "$work" || exit 1
reps=${SEEDS_REPS:-1}
# 002 in the long form only: in make test its checks (requests answered,
# EAGAINs counted) are e2e_reclaim's, and its patches' direction is
# long_source_seeds'; its 100 s go to keeping CI within the hour
seeds="003 000"
[ "$reps" -ge 2 ] && seeds="$seeds 002"
for s in $seeds; do
	python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); m["reps"] = int(sys.argv[2])
json.dump(m, open(sys.argv[3], "w"), indent=1)' "$repo/workloads/examples/seed-$s.json" "$reps" "seed-$s.json"
	"$harness" run "seed-$s.json" > "run-$s.out" 2>&1
	rc=$?
	check "seed-$s.json runs at its shipped scale, $reps run(s) per arm, every run done (exit $rc)" \
		[ "$rc" -eq 0 -a "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'seed-$s' AND r.status != 'done'")" = 0 ]
done
python3 "$repo/tests/seeds_measure.py" results/harness.db > measures.txt
cat measures.txt
# m MATRIX CELL ARM MEASURE: its value
m() { awk -v k="$1 $2 $3 $4" '$1" "$2" "$3" "$4 == k { print $5 }' measures.txt; }
# cmp A OP B: awk's comparison of two numbers (a missing one fails)
cmp() { [ -n "$1" ] && [ -n "$3" ] && awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"; }

# 003: the share of the hot file resident at the scan passes' ends
pm=$(m seed-003 hot/pread mglru hot_resident_at_pass_ends)
pc=$(m seed-003 hot/pread classic hot_resident_at_pass_ends)
check "003: read(): MGLRU keeps under a fifth of the hot file ($pm)" cmp "$pm" "<" 0.2
# Measured at the shipped scale (six runs an arm, on two days): MGLRU 0.057
# to 0.085, the classic LRU 0.174 to 0.234, the arms' means 0.12 to 0.17 apart;
# since the hot reader starts on time, before the scan (6a6e8ae), MGLRU 0.076
# to 0.096 and the classic LRU 0.26 to 0.50 (four runs an arm, one day).
check "003: read(): the classic LRU keeps twice that and 0.08 of the file more ($pc)" \
	cmp "$pc" ">=" "$(awk -v a="$pm" 'BEGIN { print (2 * a > a + 0.08 ? 2 * a : a + 0.08) }')"
mm=$(m seed-003 hot/mmap mglru hot_resident_at_pass_ends)
mc=$(m seed-003 hot/mmap classic hot_resident_at_pass_ends)
# Measured (six runs an arm, two days): MGLRU 0.966 to 0.984, the classic LRU
# 0.685 to 0.807 (0.7 failed CI at 0.685); the seed: 100 % against 86 %.
check "003: mmap: MGLRU keeps the hot file ($mm)" cmp "$mm" ">=" 0.8
# The seed: the classic LRU kept 77 % to 100 % of a mapped hot file from run to
# run (97 to 100 % in most settings), "not reliably from run to run"; here one
# rehearsal's run kept 1.0000 against MGLRU's 0.9881. One run an arm cannot
# order two arms that both may keep it all: below MGLRU is asserted on the
# means of 2 runs or more (make test-long), "most of it" on one.
check "003: mmap: the classic LRU keeps most of it ($mc)" cmp "$mc" ">=" 0.6
if [ "$reps" -ge 2 ]; then
	check "003: mmap: the classic LRU keeps less than MGLRU on average ($mc < $mm)" cmp "$mc" "<" "$mm"
fi

# 000: vec's reads at the end against before the cold file (its warm stretch,
# tests/seeds_measure.py), its misses at the end, the cold file at the end.
# The read rate alone cannot tell a recovery from one run under TCG: with
# every page of vec cached and no fault, a run's rate wanders by up to 40 %
# over 5 s (83 k to 50 k reads/s in one, 82 k to 121 k in another), so
# recovered runs measured 0.59 to 1.48 of before, and 0.6 failed a CI at 0.59.
# The stall measured 0.15 to 0.35. So "recovers" is a miss rate back near 0
# (under 2 faults a 1 000 reads; measured 0 to 0.07) and 0.45 of before;
# "does not recover", vec still missing (20 or more; measured 99 to 105) and
# under 0.5 of before.
for cell in random normal; do
	for arm in mglru classic; do
		eval "r_${cell}_$arm=\$(m seed-000 $cell $arm vec_rate_end_over_before_cold)"
		eval "f_${cell}_$arm=\$(m seed-000 $cell $arm vec_faults_per_kread_end)"
		eval "c_${cell}_$arm=\$(m seed-000 $cell $arm cold_resident_at_end)"
	done
done
# recovered RATE FAULTS: vec back in the cache and its reads back near before;
# stalled RATE FAULTS: vec still missing and its reads well under before
recovered() { cmp "$2" "<=" 2 && cmp "$1" ">=" 0.45; }
stalled() { cmp "$2" ">=" 20 && cmp "$1" "<" 0.5; }
check "000: MADV_RANDOM, MGLRU: the cold file stays cached ($c_random_mglru)" \
	cmp "$c_random_mglru" ">=" 0.9
check "000: MADV_RANDOM, MGLRU: vec's reads do not recover ($r_random_mglru of before, $f_random_mglru faults a 1000 reads)" \
	stalled "$r_random_mglru" "$f_random_mglru"
check "000: MADV_RANDOM, classic: the cold file is evicted, at least 0.3 of it ($c_random_classic)" \
	cmp "$c_random_classic" "<=" 0.7
check "000: MADV_RANDOM, classic: vec's reads recover ($r_random_classic of before, $f_random_classic faults a 1000 reads)" \
	recovered "$r_random_classic" "$f_random_classic"
check "000: no advice: both evict the cold file ($c_normal_mglru, $c_normal_classic)" \
	bash -c '[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" "BEGIN { exit !(a <= 0.5 && b <= 0.5) }"' _ "$c_normal_mglru" "$c_normal_classic"
check "000: no advice: both recover ($r_normal_mglru, $r_normal_classic of before; $f_normal_mglru, $f_normal_classic faults a 1000 reads)" \
	eval 'recovered "$r_normal_mglru" "$f_normal_mglru" && recovered "$r_normal_classic" "$f_normal_classic"'
"$harness" table seed-000 > table-000.out 2>&1
check "000: a series table per cell and arm, per 5 s, with the seed's columns" \
	[ "$(grep -c '^ *t   iops:vec   majflt/s  refault/s    activ/s MB:vs-vec.bin MB:cold.bin$' table-000.out)" = 4 ]
check "000: its rows are 5 s apart" bash -c 'grep -A3 "random, mglru" table-000.out | grep -qE "^ +10 "'
check "docs/tables.md's 000 series sample says what the table says today" \
	python3 "$repo/tests/doc_output.py" "$repo/docs/tables.md" 2 table-000.out \
	seeds,stall,classic,mglru seed-000,random,normal,mglru,classic
"$harness" table seed-003 > table-003.out 2>&1
check "003: residency and misses at each of the 3 scan passes" \
	[ "$(grep -A5 'at each pass_end of .scan.' table-003.out | grep -cE '^ +[123] ')" = 12 ]

check "003: the hot reader's misses were counted" [ "$(q "SELECT SUM(misses) FROM stream_samples t JOIN runs r ON r.id = t.run_id JOIN cells c ON c.id = r.cell_id JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'seed-003' AND c.name = 'hot/pread' AND t.stream = 1")" -gt 0 ]

# 002: requests answered (EAGAIN ones too), in both arms (the long form)
[ "$reps" -ge 2 ] && for arm in mglru classic; do
	n=$(m seed-002 storm $arm requests)
	e=$(m seed-002 storm $arm eagain)
	check "002: $arm: requests answered ($n) and EAGAINs counted ($e)" \
		bash -c 'awk -v n="$1" -v e="$2" "BEGIN { exit !(n > 0 && e > 0 && e <= n) }"' _ "$n" "$e"
done

e2e_end
