#!/usr/bin/env bash
# bench_kbuild.sh -- what a source arm's build costs, through the harness
# itself (harness check resolves, that is builds, and exits): cold (an empty
# build cache and ccache, the package unpacked and imported), cached (the
# same arm again: no compile), one patch more (a series: its first build
# starts from a copy of the tree's own objects), another version of that
# patch (another series: a copy again), and the first again in a fresh O=
# directory with a warm ccache.
# usage: tests/bench_kbuild.sh HARNESS [CONFIG...]   (default: tinyconfig)
# BENCH_KBUILD_FROM=DIR starts from a copy of DIR, an earlier run's results
# directory (its tree imported and its ccache warm, no object directory): its
# "cold" step is then a build from ccache alone.
# Nothing else should run meanwhile: the figures are wall-clock seconds.
set -u
harness=$(readlink -f "${1:?harness binary}")
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- tinyconfig
work=$(mktemp -d /tmp/bench-kbuild.XXXXXX)
cd "$work" || exit 1
printf 'results = results\nimages = %s/images/out\npresets = %s/workloads/presets\n' \
	"$repo" "$repo" > harness.conf

matrix() { # matrix FILE CONFIG [PATCHES]
	local patches=""   # quotes inside ${3:+...} in a here-document would be kept out
	[ -n "${3:-}" ] && patches=", \"patches\": \"$3\""
	cat > "$1" <<EOF2
{ "name": "b", "reps": 1, "arms": [ { "name": "a", "source_package": "linux-source-6.12",
  "config": "$2"$patches } ],
  "workloads": [ { "name": "w", "files": [ { "name": "d", "mib": 8 } ],
                   "streams": [ { "kind": "random", "file": "d" } ] } ] }
EOF2
}
timed() { # timed LABEL FILE: seconds of harness check FILE
	local t0 t1
	t0=$(date +%s.%N)
	"$harness" check "$2" > "$1.out" 2>&1 || { echo "$1: check failed"; tail -3 "$1.out"; exit 1; }
	t1=$(date +%s.%N)
	printf '%s %.1f\n' "$1" "$(echo "$t1 - $t0" | bc)"
}
units() { grep -c '^  CC ' "$1" 2>/dev/null || echo 0; }

for cfg in "$@"; do
	rm -rf results
	[ -n "${BENCH_KBUILD_FROM:-}" ] && cp -a "$BENCH_KBUILD_FROM" results
	matrix base.json "$cfg"
	timed "$cfg-cold" base.json
	key=$(ls -td results/cache/builds/*/ | grep -v -e trees -e inputs -e logs -e ccache | head -1)
	echo "$cfg-units $(units "$key/build.log")"
	echo "$cfg-vmlinuz-bytes $(stat -c %s "$key/vmlinuz")"
	timed "$cfg-cached" base.json
	tree=results/cache/builds/trees/pkg-linux-source-6.12/src
	mkdir -p p && cp "$tree/mm/vmscan.c" p/vmscan.c.orig
	sed '/^static int __init kswapd_init(void)$/{n;s/$/\n\tpr_notice("bench: one patch\\n");/}' \
		p/vmscan.c.orig > p/vmscan.c
	{ printf 'From: b <b@b>\nSubject: [PATCH] mm: one line\n\n---\n'
	  (cd p && diff -u --label a/mm/vmscan.c --label b/mm/vmscan.c vmscan.c.orig vmscan.c); } > one.mbox
	matrix one.json "$cfg" one.mbox
	timed "$cfg-one-patch-incremental" one.json
	sed 's/bench: one patch/bench: another version/' one.mbox > two.mbox
	matrix two.json "$cfg" two.mbox
	timed "$cfg-another-version-incremental" two.json
	rm -rf results/cache/builds/trees/pkg-linux-source-6.12/obj-x86_64 results/cache/builds/inputs
	sed -i 's/bench: one patch/bench: one patch, again/' one.mbox
	timed "$cfg-one-patch-fresh-objdir-warm-ccache" one.json
done
rm -rf "$work"
