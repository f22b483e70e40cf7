#!/usr/bin/env bash
# long_source_arm64.sh -- make test-long: a source arm cross-built for aarch64
# (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-, tinyconfig + the harness's
# fragment) from linux-source-6.12, booted under TCG and measured; and an x86_64
# and an aarch64 arm of one matrix, each arch with its own build key.
# usage: tests/long_source_arm64.sh HARNESS_BINARY
set -u

. "$(dirname "$0")/testlib.sh" source-arm64 "$@"

e2e_conf
cd "$work" || exit 1
cat > both.json <<'EOF2'
{ "name": "both", "reps": 1, "arch": ["x86_64", "aarch64"],
  "arms": [ { "name": "src", "source_package": "linux-source-6.12", "config": "tinyconfig" } ],
  "workloads": [ { "name": "w", "duration_s": 3, "memcg_mib": 64,
                   "files": [ { "name": "d", "mib": 16 } ],
                   "streams": [ { "kind": "random", "file": "d" } ] } ] }
EOF2
"$harness" run both.json > both.out 2>&1
rc=$?
check "run both.json: built for both arches and run (exit $rc)" [ "$rc" -eq 0 ]
keys=$(q "SELECT json_extract(value, '\$.arch') || ' ' || substr(json_extract(value, '\$.key'), 1, 8)
          FROM arms, json_each(arms.build) ORDER BY 1")
check "a build per arch, each with its key: $(echo $keys)" [ "$(echo "$keys" | wc -l)" = 2 ]
for arch in x86_64 aarch64; do
	k=$(echo "$keys" | awk -v a="$arch" '$1 == a { print $2 }')
	r=$(q "SELECT guest_release FROM runs WHERE arch = '$arch' AND status = 'done'")
	check "the $arch guest runs its own build ($r)" bash -c "[ -n '$k' ] && [[ '$r' == *-h$k ]]"
done
e2e_end
