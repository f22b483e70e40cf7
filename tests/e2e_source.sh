#!/usr/bin/env bash
# e2e_source.sh -- kernel arms built from source: linux-source-6.12 unpacked
# from Debian; a two-patch mbox made here with git format-patch (each patch
# prints a line at boot) built in a small config (tinyconfig + the harness's
# fragment), booted and measured; a third patch that does not apply fails
# only its arm; a second matrix reuses the cached build; in the daemon, a
# third version compiles only while no block is in flight.
# usage: tests/e2e_source.sh HARNESS_BINARY
set -u

. "$(dirname "$0")/testlib.sh" source "$@"
dpid=
trap '[ -n "$dpid" ] && kill -9 "$dpid" 2>/dev/null; wait 2>/dev/null' EXIT

e2e_conf
cd "$work" || exit 1
e2e_shared_builds
tree=$work/results/cache/builds/trees/pkg-linux-source-6.12/src

matrix() { # matrix NAME ARMS: a one-workload matrix of 1 rep, short random reads
	cat > "$1.json" <<EOF2
{ "name": "$1", "reps": 1, "arms": [ $2 ],
  "workloads": [ { "name": "w", "duration_s": 3, "memcg_mib": 64,
                   "files": [ { "name": "d", "mib": 16 } ],
                   "streams": [ { "kind": "random", "file": "d" } ] } ] }
EOF2
}
arm() { # arm NAME [PATCHES]
	printf '{ "name": "%s", "source_package": "linux-source-6.12", "config": "tinyconfig"%s }' \
		"$1" "${2:+, \"patches\": \"$2\"}"
}

# 1. a patch that cannot apply: the package is unpacked and imported, nothing compiled,
#    and the matrix, whose only arm fails, is refused in one line naming the patch
cat > stale.mbox <<'EOF2'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Dev <dev@example.org>
Subject: [PATCH] mm: stale context
Message-Id: <stale@example.org>

---
diff --git a/mm/vmscan.c b/mm/vmscan.c
--- a/mm/vmscan.c
+++ b/mm/vmscan.c
@@ -1,3 +1,3 @@
 this line
-is not in
+any vmscan.c
 there is
EOF2
matrix stale "$(arm stale stale.mbox)"
t0=$(date +%s)
"$harness" check stale.json > stale.out 2>&1
rc=$?
echo "# unpacked and imported in $(( $(date +%s) - t0 )) s"
check "check stale.json: refused, its only arm cannot be built (exit $rc)" [ "$rc" -eq 1 ]
check "the refusal names the patch, its subject and first rejected hunk" grep -qF \
	"no arm can run: arms[0] (stale): patch 1/1 'mm: stale context' does not apply: mm/vmscan.c: first rejected hunk @@ -1,3 +1,3 @@" stale.out
check "linux-source-6.12 was fetched and unpacked, nothing compiled" \
	bash -c "grep -q 'unpack: apt-get download linux-source-6.12' stale.out &&
		 [ -f '$tree/mm/vmscan.c' ] && ! grep -q ': compile ' stale.out"
[ -f "$tree/mm/vmscan.c" ] || { tail -5 stale.out; e2e_end; exit 1; }

# 2. two patches, as a developer would send them, and the stale one as a third
mkdir series && cd series || exit 1
git init -q && git config user.name dev && git config user.email dev@example.org
mkdir mm && cp "$tree/mm/vmscan.c" "$tree/mm/workingset.c" mm/
git add mm && git commit -qm base
sed -i '/^static int __init kswapd_init(void)$/{n;s/$/\n\tpr_notice("harness-e2e: patch 1 of 2 applied\\n");/}' mm/vmscan.c
git commit -qam "mm: vmscan: say so at boot" -m "The e2e test's first patch."
sed -i '/^static int __init workingset_init(void)$/{n;s/$/\n\tpr_notice("harness-e2e: patch 2 of 2 applied\\n");/}' mm/workingset.c
git commit -qam "mm: workingset: say so at boot too"
git format-patch -q --stdout -2 > ../two.mbox
git checkout -q -b broken
echo 'this is not C;' >> mm/workingset.c
git commit -qam "mm: workingset: break the build"
git format-patch -q --stdout -1 > ../broken.mbox
git checkout -q -
sed -i 's/patch 2 of 2 applied/patch 3 of 3 applied/' mm/workingset.c
git commit -qam "mm: workingset: say it differently"
git format-patch -q --thread --stdout -3 > ../four.mbox
cd .. || exit 1
# the third version as b4 would fetch it from the list (offline: -m)
msgid=$(sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' four.mbox | head -1)
mkdir -p b4 && b4 -q am -m four.mbox -o b4 "$msgid" > b4.out 2>&1
four=$(ls b4/*.mbx 2>/dev/null | head -1)
check "b4 am made the third version's mbox ($four)" [ -n "$four" ]
check "the test's series has two patches touching the tree" \
	[ "$(grep -c '^diff --git' two.mbox)" = 2 ]
{ cat two.mbox; sed 's/\[PATCH\]/[PATCH 3\/3]/' stale.mbox; } > three.mbox

# 3. both arms in one matrix: the first builds and runs, the second fails alone
matrix patched "$(arm two two.mbox), $(arm three three.mbox), $(arm broken broken.mbox)"
"$harness" run patched.json > patched.out 2>&1
rc=$?
check "run patched.json: its good arm ran (exit $rc)" [ "$rc" -eq 0 ]
check "the failed arm is told on one line, with the patch's subject and hunk" \
	grep -qF "arm failed, its runs are skipped: arms[1] (three): patch 3/3 'mm: stale context' does not apply: mm/vmscan.c: first rejected hunk @@ -1,3 +1,3 @@" patched.out
check "the failed arm's runs are failed with that reason, the good arm's done" \
	[ "$(q "SELECT a.name, r.status, r.reason LIKE '%mm: stale context%' FROM runs r
	        JOIN arms a ON a.id = r.arm_id JOIN matrices m ON m.id = r.matrix_id
	        WHERE m.name = 'patched' ORDER BY a.idx")" = "$(printf 'two|done|\nthree|failed|1\nbroken|failed|0')" ]
check "a compile error fails its arm with the compiler's words and the kept log" \
	bash -c "grep -q 'arm failed, its runs are skipped: arms\[2\] (broken): the build failed (exit 2, log kept in ' patched.out &&
		 grep -q \"mm/workingset.c:[0-9]*:[0-9]*: error: unknown type name\" patched.out &&
		 [ -s \"\$(sed -n 's/.*arms\[2\] (broken): the build failed (exit 2, log kept in \([^)]*\)).*/\1/p' patched.out | head -1)\" ]"
if [ "$(id -u)" = 0 ]; then
	# the real kernel was built in the jail (tests/e2e_jail.sh shows what the jail refuses)
	check "the kernel was compiled in the build jail: vmlinux is uid 65534's, the source is root's" \
		bash -c '[ "$(stat -c %u "$1/../obj-x86_64/vmlinux")" = 65534 ] && [ "$(stat -c %u "$1/Makefile")" = 0 ]' _ "$tree"
fi
console=$(q "SELECT r.console_path FROM runs r JOIN arms a ON a.id = r.arm_id
             WHERE a.name = 'two' AND r.status = 'done' LIMIT 1")
check "both patches are in the booted kernel (their lines on its console)" \
	bash -c "grep -q 'harness-e2e: patch 1 of 2 applied' '$console' &&
		 grep -q 'harness-e2e: patch 2 of 2 applied' '$console'"
key=$(q "SELECT json_extract(build, '\$[0].key') FROM arms WHERE name = 'two'")
release=$(q "SELECT r.guest_release FROM runs r JOIN arms a ON a.id = r.arm_id
             WHERE a.name = 'two' AND r.status = 'done'")
check "the guest's uname -r carries the build key ($release, key ${key:0:8})" \
	bash -c "[ -n '$key' ] && [[ '$release' == 6.12.*-h${key:0:8} ]]"
check "the arm keeps its patches' subjects and message-ids" \
	[ "$(q "SELECT group_concat(json_extract(p.value, '\$.subject'), ';') FROM arms a,
	        json_each(a.build, '\$[0].patches') p WHERE a.name = 'two'")" = \
	  "mm: vmscan: say so at boot;mm: workingset: say so at boot too" ]
check "the failed arm keeps no build; its reason is stored" \
	[ "$(q "SELECT build IS NULL, failed LIKE '%first rejected hunk%' FROM arms a
	        JOIN matrices m ON m.id = a.matrix_id WHERE m.name = 'patched' AND a.name = 'three'")" = "1|1" ]

# 4. the same arm in a new matrix: the cached build, nothing compiled
log=$work/results/cache/builds/$key/build.log
before=$(stat -c %Y "$log")
matrix again "$(arm two two.mbox)"
"$harness" run again.json > again.out 2>&1
rc=$?
check "run again.json (exit $rc)" [ "$rc" -eq 0 ]
check "nothing compiled the second time" bash -c "! grep -q ': compile ' again.out"
check "the same build, marked cached" \
	[ "$(q "SELECT json_extract(a.build, '\$[0].key'), json_extract(a.build, '\$[0].cached')
	        FROM arms a JOIN matrices m ON m.id = a.matrix_id WHERE m.name = 'again'")" = "$key|1" ]
check "its build log untouched" [ "$(stat -c %Y "$log")" = "$before" ]
check "the table names the build" grep -q "h${key:0:8}" again.out

# 5. the daemon: a compile waits for the block in flight, and no block starts during it
finished() { # finished NAME...: wait (at most 15 min) until each matrix is finished
	for _ in $(seq 900); do
		n=0
		for m in "$@"; do
			[ "$(q "SELECT state FROM matrices WHERE name = '$m'")" = finished ] && n=$((n + 1))
		done
		[ "$n" -eq $# ] && return 0
		sleep 1
	done
	return 1
}
check "the daemon starts" start_daemon
matrix cached "$(arm two two.mbox)"
matrix fresh "$(arm four "$four")"
"$harness" submit cached.json > submit1.out 2>&1
sleep 5      # its block under way (a boot takes longer) before the next needs a compile
"$harness" submit fresh.json > submit2.out 2>&1
check "both matrices finish" finished cached fresh
check "the new version was compiled, and booted" \
	[ "$(q "SELECT json_extract(a.build, '\$[0].cached'), r.status FROM arms a
	        JOIN matrices m ON m.id = a.matrix_id JOIN runs r ON r.arm_id = a.id
	        WHERE m.name = 'fresh'")" = "0|done" ]
check "the daemon compiled with no block in flight, and began none meanwhile" \
	awk '/block of matrix [0-9]+ begins/ { open++; if (compiling) bad = 1 }
	     /block of matrix [0-9]+ ends/ { open-- }
	     /compiling, no block in flight/ { compiling = 1; seen = 1; if (open) bad = 1 }
	     /compile ended, blocks may start/ { compiling = 0 }
	     END { exit !(seen && !bad) }' daemon.log
kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=

e2e_end
