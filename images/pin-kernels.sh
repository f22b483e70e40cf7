#!/usr/bin/env bash
# pin-kernels.sh -- move each kernels.conf pin to the newest package apt has of its series,
# keeping the old line as a "# was:" comment; --check only says which pins apt no longer has.
# usage: images/pin-kernels.sh [--check] [CONF]   (CONF: images/kernels.conf by default)
# `make pin-kernels` runs apt-get update first; this script reads apt-cache only (two calls
# for all pins). A second run with nothing newer changes nothing (the file is not rewritten).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=images/pins.sh
. "$here/pins.sh"

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
conf=${1:-$here/kernels.conf}
[ -f "$conf" ] || { echo "pin-kernels: $conf: no such file (expected a kernels.conf)" >&2; exit 1; }

# the file's lines; for each pin line i: alias, arch, package, dpkg arch, series regex
lines=() alias=() arch=() pkg=() darch=() series=()
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	i=$lineno
	lineno=$((lineno + 1))
	lines[i]=$line
	read -r a k p extra <<< "$line" || true
	case ${a:-} in '' | '#'*) continue ;; esac
	if [ -z "${p:-}" ] || [ -n "${extra:-}" ] || ! d=$(pin_dpkg_arch "$k"); then
		echo "pin-kernels: $conf:$lineno: expected ALIAS ARCH PACKAGE (ARCH x86_64 or aarch64), got: $line" >&2
		exit 1
	fi
	alias[i]=$a arch[i]=$k pkg[i]=$p darch[i]=$d
	series[i]=$(pin_series "$p") || series[i]=''
done < "$conf"
pins=${#pkg[@]}

if [ "$check" = 1 ]; then
	q=()
	for i in "${!pkg[@]}"; do q+=("${pkg[i]}:${darch[i]}"); done
	have=$(pin_policy "${q[@]}")
	bad=0
	for i in "${!pkg[@]}"; do
		if ! grep -qxF "${pkg[i]} ${darch[i]}" <<< "$(awk '{ print $1, $2 }' <<< "$have")"; then
			pin_gone_msg "$conf" "${alias[i]}" "${arch[i]}" "${pkg[i]}" "run make pin-kernels to move the pin" >&2
			bad=$((bad + 1))
		fi
	done
	[ "$bad" = 0 ] || exit 1
	echo "pin-kernels: $conf: apt has all $pins pinned packages"
	exit 0
fi

# every package of every pinned series, in one search, then their candidates in one policy call
re=''
for i in "${!pkg[@]}"; do
	if [ -z "${series[i]}" ]; then
		echo "pin-kernels: $conf:$((i + 1)): ${pkg[i]} is of no series pin-kernels knows (expected linux-image-X.Y.N+debNN-FLAVOUR or linux-image-X.Y.Z-N-FLAVOUR)" >&2
		exit 1
	fi
	re+="${re:+|}(${series[i]})"
done
q=()
while read -r n _; do
	for i in "${!pkg[@]}"; do
		if [[ $n =~ ${series[i]} ]]; then q+=("$n:${darch[i]}"); fi
	done
done < <(LC_ALL=C apt-cache search --names-only "$re" 2> /dev/null)
[ "${#q[@]}" = 0 ] || mapfile -t q < <(printf '%s\n' "${q[@]}" | sort -u)
avail=$(pin_policy "${q[@]}")

today=$(date -u +%F)
out=$(mktemp "$conf.XXXXXX")
trap 'rm -f "$out"' EXIT
changed=0
for i in "${!lines[@]}"; do
	line=${lines[i]}
	if [ -z "${pkg[i]:-}" ]; then
		printf '%s\n' "$line" >> "$out"
		continue
	fi
	# the regex through the environment: awk -v would take its backslashes as escapes
	members=$(d=${darch[i]} re=${series[i]} awk '$2 == ENVIRON["d"] && $1 ~ ENVIRON["re"] { print $1, $3 }' <<< "$avail")
	newest=$(pin_max <<< "$members")
	have=$(awk -v p="${pkg[i]}" '$1 == p' <<< "$members")
	if [ -z "$newest" ]; then
		pin_gone_msg "$conf" "${alias[i]}" "${arch[i]}" "${pkg[i]}" "make pin-kernels" >&2
		exit 1
	fi
	if [ -n "$have" ] && ! dpkg --compare-versions "${newest#* }" gt "${have#* }"; then
		printf '%s\n' "$line" >> "$out"   # the newest already (or as new as any)
		continue
	fi
	from="gone from the archive"
	[ -z "$have" ] || from=${have#* }
	printf '# was: %s (until %s)\n' "$line" "$today" >> "$out"
	printf '%-10s%-9s%s\n' "${alias[i]}" "${arch[i]}" "${newest% *}" >> "$out"
	echo "pin-kernels: ${alias[i]} ${arch[i]}: ${pkg[i]} ($from) -> ${newest% *} (${newest#* })"
	changed=$((changed + 1))
done

if [ "$changed" = 0 ]; then
	echo "pin-kernels: $conf: each of the $pins pins is the newest of its series; nothing changed"
	exit 0
fi
chmod --reference="$conf" "$out"
mv "$out" "$conf"
trap - EXIT
echo "pin-kernels: $conf: $changed of $pins pins moved (old lines kept as '# was:' comments); make images builds them"
