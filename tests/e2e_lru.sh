#!/usr/bin/env bash
# e2e_lru.sh -- the LRU per interval in real guests: MGLRU's generations and tiers
# (6.12 and 6.1, lru_gen y) and the classic LRU's active/inactive sizes (lru_gen n).
# usage: tests/e2e_lru.sh HARNESS_BINARY   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" lru "$@"

e2e_conf

# A 32 MiB memcg scanned by a 96 MiB file twice: the memcg stays full of page
# cache and reclaims all along. The scan touches its pages through a mapping:
# a file page read(2) once enters MGLRU's oldest generation and leaves from
# there, so a read scan never makes a new one; a mapped page found young when
# reclaim reaches it is moved to the youngest, the older generations drain and
# MGLRU ages (a new max_seq). The classic LRU cycles its lists meanwhile.
cat > "$work/lru.json" <<'EOF'
{
  "name": "e2e-lru",
  "reps": 1,
  "arms": [
    { "name": "v6.12-y", "kernel": "6.12", "lru_gen": "y" },
    { "name": "v6.12-n", "kernel": "6.12", "lru_gen": "n" },
    { "name": "v6.1-y", "kernel": "6.1", "lru_gen": "y" }
  ],
  "workloads": [
    { "name": "scan", "memcg_mib": 32, "duration_s": 8,
      "files": [ { "name": "big", "mib": 96 }, { "name": "hot", "mib": 8 } ],
      "streams": [
        { "kind": "scan", "name": "scan", "file": "big", "access": "mmap", "passes": 2,
          "gap_s": 0.5 },
        { "kind": "random", "name": "hot", "file": "hot", "access": "mmap",
          "distribution": "zipf", "theta": 1.1, "threads": 1, "rate": 500 }
      ] }
  ]
}
EOF

cd "$work" || exit 1
start=$(date +%s)
"$harness" run lru.json > run.out 2> run.err
rc=$?
[ -s run.err ] && sed 's/^/stderr: /' run.err
echo "# harness run took $(($(date +%s) - start)) s"
run() { echo "(SELECT r.id FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = '$1')"; }
y=$(run v6.12-y) n=$(run v6.12-n) old=$(run v6.1-y)

check "harness run exits 0" [ "$rc" -eq 0 ]
check "three runs done" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 3 ]
check "no interval had an lru_gen text the parser refused" \
	[ "$(q "SELECT COALESCE(SUM(lru_gen_refused), -1) FROM samples")" = 0 ]
check "memory.stat's LRU sizes and aging counters stored every interval of every run" \
	[ "$(q "SELECT COUNT(*) FROM samples WHERE active_file IS NULL OR inactive_file IS NULL
		OR active_anon IS NULL OR inactive_anon IS NULL OR pgrefill IS NULL
		OR pgactivate IS NULL OR pgdeactivate IS NULL OR pgscan_direct IS NULL")" = 0 ]
check "the memcg reclaimed on every arm (pgscan > 0)" \
	[ "$(q "SELECT COUNT(*) FROM (SELECT run_id FROM samples GROUP BY run_id HAVING SUM(pgscan) > 0)")" = 3 ]

# --- MGLRU on 6.12 ---
check "v6.12-y: generation rows every interval, one node" \
	[ "$(q "SELECT COUNT(DISTINCT seq) || ' ' || COUNT(DISTINCT node) FROM lru_gens WHERE run_id = $y")" = \
	  "$(q "SELECT COUNT(*) FROM samples WHERE run_id = $y") 1" ]
check "v6.12-y: each sample announces the nodes stored" \
	[ "$(q "SELECT COUNT(*) FROM samples s WHERE s.run_id = $y AND s.lru_gen_nodes !=
		(SELECT COUNT(DISTINCT node) FROM lru_gens g WHERE g.run_id = s.run_id AND g.seq = s.seq)")" = 0 ]
# The generations' file pages are lru_gen's nr_pages, memory.stat's
# active_file + inactive_file the memcg's lruvec counters: both count the same
# folios, but memory.stat is read first (then residency, then lru_gen) while
# a scan moves thousands of pages a second, and the memcg counters are per-CPU
# batched (up to 64 pages a CPU): allowed 10 % of the memcg's file pages or
# 300 pages, whichever is more.
diffs() { # the intervals of run $1 whose generation file pages miss memory.stat's
	q "SELECT s.seq || ': gens ' || g.file || ' memory.stat ' || ((s.active_file + s.inactive_file) / 4096)
	   FROM samples s JOIN (SELECT seq, SUM(file) file FROM lru_gens WHERE run_id = $1 GROUP BY seq) g
	   ON g.seq = s.seq WHERE s.run_id = $1 AND ABS(g.file - (s.active_file + s.inactive_file) / 4096)
	   > MAX(300, (s.active_file + s.inactive_file) / 4096 / 10)"
}
bad=$(diffs "$y")
[ -n "$bad" ] && sed 's/^/# v6.12-y interval /' <<< "$bad"
check "v6.12-y: generations' file pages = active_file + inactive_file (10 % or 300 pages)" [ -z "$bad" ]
check "v6.12-y: the memcg was full of page cache (> 4096 file pages in generations)" \
	[ "$(q "SELECT MAX(f) FROM (SELECT SUM(file) f FROM lru_gens WHERE run_id = $y GROUP BY seq)")" -gt 4096 ]
# seqs only grow: a node's oldest and youngest generation never go back
grow() {
	q "SELECT COUNT(*) FROM (SELECT node, seq, MIN(gen) lo, MAX(gen) hi,
	   LAG(MIN(gen)) OVER w plo, LAG(MAX(gen)) OVER w phi FROM lru_gens WHERE run_id = $1
	   GROUP BY node, seq WINDOW w AS (PARTITION BY node ORDER BY seq)) WHERE lo < plo OR hi < phi"
}
check "v6.12-y: a node's generation seqs only grow over the intervals" [ "$(grow "$y")" = 0 ]
first_last() {
	q "SELECT (SELECT MAX(gen) FROM lru_gens WHERE run_id = $1 AND seq = (SELECT MIN(seq) FROM lru_gens WHERE run_id = $1))
	   || ' ' || (SELECT MAX(gen) FROM lru_gens WHERE run_id = $1 AND seq = (SELECT MAX(seq) FROM lru_gens WHERE run_id = $1))"
}
read -r lo hi <<< "$(first_last "$y")"
check "v6.12-y: the scan made new generations (max_seq $lo at the start, $hi at the end)" [ "$hi" -gt "$lo" ]
check "v6.12-y: the sample's lru_gen window is the stored generations'" \
	[ "$(q "SELECT COUNT(*) FROM samples s WHERE s.run_id = $y AND s.lru_gen_max_seq !=
		(SELECT MAX(gen) FROM lru_gens g WHERE g.run_id = $y AND g.seq = s.seq)")" = 0 ]
check "v6.12-y: lru_gen_full's tiers: 4 per generation with rep columns, some file evictions" \
	bash -c '[ "$1" -gt 0 ] && [ "$(($1 % 4))" = 0 ] && [ "$2" -gt 0 ]' _ \
	"$(q "SELECT COUNT(*) FROM lru_tiers WHERE run_id = $y")" \
	"$(q "SELECT COALESCE(SUM(file_evicted), 0) FROM lru_tiers WHERE run_id = $y")"
check "v6.12-y: tier 0 never has protected pages" \
	[ "$(q "SELECT COUNT(*) FROM lru_tiers WHERE tier = 0 AND (anon_protected > 0 OR file_protected > 0)")" = 0 ]

# --- the classic LRU ---
check "v6.12-n: no generation or tier rows, no nodes announced" \
	[ "$(q "SELECT (SELECT COUNT(*) FROM lru_gens WHERE run_id = $n) + (SELECT COUNT(*) FROM lru_tiers WHERE run_id = $n)
		+ (SELECT SUM(lru_gen_nodes) FROM samples WHERE run_id = $n)")" = 0 ]
check "v6.12-n: active and inactive file lists of a full memcg every interval after the first" \
	[ "$(q "SELECT COUNT(*) FROM samples WHERE run_id = $n AND seq > 0 AND (inactive_file = 0 OR active_file + inactive_file < 4096 * 4096)")" = 0 ]

# --- MGLRU on 6.1: lru_gen_full's other columns parse too ---
check "v6.1-y: generation rows every interval" \
	[ "$(q "SELECT COUNT(DISTINCT seq) FROM lru_gens WHERE run_id = $old")" = "$(q "SELECT COUNT(*) FROM samples WHERE run_id = $old")" ]
check "v6.1-y: tier rows from 6.1's lru_gen_full" [ "$(q "SELECT COUNT(*) FROM lru_tiers WHERE run_id = $old")" -gt 0 ]
bad=$(diffs "$old")
[ -n "$bad" ] && sed 's/^/# v6.1-y interval /' <<< "$bad"
check "v6.1-y: generations' file pages = active_file + inactive_file (10 % or 300 pages)" [ -z "$bad" ]
check "v6.1-y: a node's generation seqs only grow over the intervals" [ "$(grow "$old")" = 0 ]

# --- the reports: harness lru, table --metric, the HTML report's charts ---
"$harness" lru e2e-lru > lru.out 2> lru.err
rc=$?
sed 's/^/# /' lru.out
check "harness lru exits 0, says nothing on stderr" bash -c '[ "$1" -eq 0 ] && [ ! -s lru.err ]' _ "$rc"
# seed 000's sentence per oldest generation, its numbers the stored counters'
sentences() { # the arm's "generation seq N: E pages evicted and R refaulted" lines
	sed -n "/^ arm $1,/,/^ arm /p" lru.out | grep '^  generation seq '
}
check "v6.12-y: its oldest generations in seed 000's words, file pages evicted" \
	bash -c '[ -n "$1" ] && awk "{ e += \$4 } END { exit !(e > 0) }" <<< "$1"' _ "$(sentences v6.12-y)"
check "v6.12-n: no generations, said so" \
	bash -c 'sed -n "/^ arm v6.12-n,/p" lru.out | grep -q "no generation with tiers"'
# evict_rf% in table --metric: the lines' refaulted over evicted, summed
want=$(sentences v6.1-y | awk '{ e += $4; r += $8 } END { if (e) printf "%.1f", 100 * r / e }')
got=$("$harness" -j table --metric evict_rf% e2e-lru | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    for row in t.get("rows", []):
        for a in row["arms"]:
            if a["arm"] == "v6.1-y" and a["value"] is not None: print("%.1f" % a["value"])')
check "table --metric evict_rf%: v6.1-y $got, as harness lru's counters say ($want)" \
	bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$got" "$want"
# docs/lru.md's samples were real runs of other arms: their words and columns must be today's
"$harness" table --metric evict_rf% e2e-lru > evict.out 2>&1
check "docs/lru.md's 'harness lru' sample says what harness lru says today" \
	python3 "$repo/tests/doc_output.py" "$repo/docs/lru.md" 1 lru.out \
	seed-000,random,mglru,classic e2e-lru,scan,v6.12-y,v6.12-n,v6.1-y
check "docs/lru.md's 'table --metric evict_rf%' sample says what the table says today" \
	python3 "$repo/tests/doc_output.py" "$repo/docs/lru.md" 2 evict.out \
	seed-000,random,mglru,classic e2e-lru,scan,v6.12-y,v6.12-n,v6.1-y
made=$(q "SELECT MAX(lru_gen_max_seq) - MIN(lru_gen_max_seq) FROM samples WHERE run_id = $y")
"$harness" report e2e-lru -o lru.html > /dev/null 2>&1
check "the report charts v6.12-y's generations: 4 layers, $made made" python3 - lru.html "$made" <<'EOF'
import re, sys
html = open(sys.argv[1], encoding='utf-8').read()
svgs = [s for s in re.findall(r'<svg .*?</svg>', html, re.S) if 'file pages by generation' in s
        and '(v6.12-y)' in s]
sys.exit(0 if len(svgs) == 1 and svgs[0].count('class="layer"') == 4 and
         'new generation (%s)' % sys.argv[2] in svgs[0] else 'no such chart')
EOF
check "the report charts v6.12-n's classic lists, and the oldest generations' table" \
	bash -c 'grep -q "file pages by LRU list of run [0-9]* (v6.12-n)" lru.html &&
		grep -q "data-layer=\"active_file\"" lru.html && grep -q "<h2 id=\"lru\">" lru.html'

# --- a guest that leaves out a node it announced fails its run, with the reason ---
cat > gap.json <<'EOF'
{
  "name": "e2e-lru-gap",
  "reps": 1,
  "arms": [ { "name": "gap", "kernel": "6.12", "lru_gen": "y",
              "cmdline": "harness.fault=lrugap harness.fault_after=2" } ],
  "workloads": [
    { "name": "scan", "memcg_mib": 32, "duration_s": 4,
      "files": [ { "name": "big", "mib": 48 } ],
      "streams": [ { "kind": "scan", "file": "big", "access": "mmap" } ] }
  ]
}
EOF
"$harness" run gap.json > gap.out 2>&1
gap=$(q "SELECT r.status || '|' || r.reason FROM runs r JOIN arms a ON a.id = r.arm_id WHERE a.name = 'gap'")
check "lrugap: the run failed: ${gap:0:110}" \
	bash -c '[[ $1 == "failed|guest sent the generations of 0 of the 1 nodes of interval "* ]]' _ "$gap"
check "lrugap: its generations up to the gap were stored, none after" \
	[ "$(q "SELECT COUNT(DISTINCT g.seq) + 1 = COUNT(DISTINCT s.seq) FROM samples s LEFT JOIN lru_gens g
		ON g.run_id = s.run_id AND g.seq = s.seq WHERE s.run_id = (SELECT r.id FROM runs r JOIN arms a
		ON a.id = r.arm_id WHERE a.name = 'gap')")" = 1 ]

e2e_end
