#!/usr/bin/env bash
# e2e_pins.sh -- a kernels.conf pin the apt archive no longer serves: make images' build.sh
# fails in one line naming it, the newest of its series and make pin-kernels, which moves it.
# usage: tests/e2e_pins.sh [HARNESS_BINARY]   (apt-cache only: nothing is downloaded
#        or installed; a copy of images/kernels.conf is used, the real one is not touched)
set -euo pipefail

# the harness is not used: run by hand, this script stands in for it
. "$(dirname "$0")/testlib.sh" pins "${1:-$0}"

real=$repo/images/kernels.conf
real_sum=$(sha256sum < "$real")
conf=$work/kernels.conf
# the pins of the real file, whatever point release they name today
pin612=$(awk '$1 == "6.12" && $2 == "x86_64" { print $3 }' "$real")
pin61a=$(awk '$1 == "6.1" && $2 == "aarch64" { print $3 }' "$real")
check "kernels.conf pins a 6.12 x86_64 kernel of the +deb12 cloud series ($pin612)" \
	bash -c '[[ $1 =~ ^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$ ]]' _ "$pin612"
gone=linux-image-6.12.1+deb12-cloud-amd64   # 6.12.1 never was a bookworm package
sed "s/^\(6\.12 *x86_64 *\)$pin612\$/\1$gone/" "$real" > "$conf"
# the 6.1 arm64 pin set back to the oldest 6.1 arm64 package apt still has, if any is older
old61a=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-arm64$' |
	awk '{ print $1 }' | sort -V | head -n 1)
if [ -n "$old61a" ] && [ "$old61a" != "$pin61a" ]; then
	sed -i "s/^\(6\.1 *aarch64 *\)$pin61a\$/\1$old61a/" "$conf"
fi
check "the copy pins the vanished $gone" grep -q "^6\.12 *x86_64 *$gone\$" "$conf"
check "apt has no candidate for $gone" \
	bash -c '! apt-cache policy "$1" 2> /dev/null | grep -q "Candidate: [^(]"' _ "$gone"

# the newest of the 6.12 amd64 cloud series, found here without the scripts
best='' bestv=''
while read -r n v; do
	if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then best=$n bestv=$v; fi
done < <(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$' |
	awk '{ print $1 }' | xargs -r apt-cache policy |
	awk '/^[^ ]/ { n = $1; sub(/:$/, "", n) } /^  Candidate: / && $2 != "(none)" { print n, $2 }')
check "apt has some package of the 6.12 amd64 cloud series (newest: ${best:-none})" [ -n "$best" ]

# make images' path: build.sh on the copy (a stand-in agent; it stops before any download)
printf '#!/bin/true\n' > "$work/agent"
rc=0
KERNELS_CONF=$conf "$repo/images/build.sh" x86_64 "$work/agent" "$work/out" \
	> "$work/build.out" 2> "$work/build.err" || rc=$?
sed 's/^/# build.sh: /' "$work/build.err"
check "build.sh fails on the vanished pin" [ "$rc" -ne 0 ]
check "... in one line" [ "$(wc -l < "$work/build.err")" = 1 ]
check "... naming the pin, the newest of its series ($best $bestv) and make pin-kernels" \
	grep -qF "$gone (6.12, x86_64) is no longer in the apt archive; newest of its series: $best ($bestv); run make pin-kernels" "$work/build.err"
check "... before fetching anything" [ ! -e "$work/out/kernel/6.12/vmlinuz" ]

rc=0
"$repo/images/pin-kernels.sh" --check "$conf" > /dev/null 2> "$work/check.err" || rc=$?
check "pin-kernels.sh --check fails on the copy with the same line" \
	bash -c '[ "$1" -ne 0 ] && [ "$(wc -l < "$2")" = 1 ] && grep -qF "newest of its series: $3" "$2"' \
	_ "$rc" "$work/check.err" "$best"

cp "$conf" "$work/before.conf"
"$repo/images/pin-kernels.sh" "$conf" > "$work/pin1.out" 2>&1 || true
sed 's/^/# pin-kernels: /' "$work/pin1.out"
check "pin-kernels moves the vanished pin to $best" grep -q "^6\.12 *x86_64 *$best\$" "$conf"
check "... keeping the old line as a dated comment" \
	grep -qE "^# was: 6\.12 +x86_64 +$(sed 's/[.+]/\\&/g' <<< "$gone") \(until [0-9]{4}-[0-9]{2}-[0-9]{2}\)\$" "$conf"
check "... and says what it changed" grep -qF "$gone (gone from the archive) -> $best ($bestv)" "$work/pin1.out"
if [ -n "$old61a" ] && [ "$old61a" != "$pin61a" ]; then
	check "pin-kernels moves an older available pin ($old61a) forward" \
		bash -c '! grep -q "^6\.1 *aarch64 *$1\$" "$2" && grep -q "^# was: 6\.1 *aarch64 *$1 " "$2"' \
		_ "$old61a" "$work/kernels.conf"
fi
check "every pin of the rewritten copy is available" bash -c '"$1" --check "$2" > /dev/null' _ "$repo/images/pin-kernels.sh" "$conf"
# the others: each as it was, or moved to the newest of its series when the
# archive has moved on since kernels.conf was pinned (it does, point release by point release)
. "$repo/images/pins.sh"
others_ok=1
while read -r alias arch pkg; do
	newest=$(pin_newest "$(pin_dpkg_arch "$arch")" "$pkg")
	now=$(awk -v a="$alias" -v r="$arch" '$1 == a && $2 == r { print $3 }' "$conf")
	[ "$now" = "$pkg" ] || [ "$now" = "${newest% *}" ] || { others_ok=0; echo "# $alias $arch: $pkg -> $now, newest ${newest% *}"; }
done < <(grep -v -e "^#" -e "^6\.12 *x86_64" -e "^6\.1 *aarch64" -e '^[[:space:]]*$' "$work/before.conf")
check "the other pins are as they were, or at the newest of their series" [ "$others_ok" = 1 ]

cp "$conf" "$work/after1.conf"
"$repo/images/pin-kernels.sh" "$conf" > "$work/pin2.out" 2>&1 || true
check "a second run changes nothing" cmp -s "$work/after1.conf" "$conf"
check "... and says so" grep -q "nothing changed" "$work/pin2.out"
check "the real images/kernels.conf is untouched" [ "$(sha256sum < "$real")" = "$real_sum" ]

e2e_end
