# pins.sh -- what apt can still serve of a pinned kernel package and the newest of its
# series, read with apt-cache only; sourced by build.sh and pin-kernels.sh.
#
# A series is a pin's name with its point release left open: the ABI number of
# linux-image-6.1.0-57-cloud-amd64 (linux-image-6.1.0-N-cloud-amd64), the patch
# level of linux-image-6.12.117+deb12-cloud-amd64 (linux-image-6.12.N+deb12-cloud-amd64).
# shellcheck shell=bash

# pin_dpkg_arch ARCH: the Debian architecture of a guest arch (x86_64 -> amd64).
pin_dpkg_arch() {
	case $1 in
	x86_64) echo amd64 ;;
	aarch64) echo arm64 ;;
	*) return 1 ;;
	esac
}

# pin_series PKG: the extended regex (apt-cache search --names-only) of PKG's
# series; fails for a name of no known series.
pin_series() {
	local p=$1
	if [[ $p =~ ^linux-image-([0-9]+)\.([0-9]+)\.[0-9]+(\+deb[0-9]+)-([a-z0-9-]+)$ ]]; then
		echo "^linux-image-${BASH_REMATCH[1]}\\.${BASH_REMATCH[2]}\\.[0-9]+\\${BASH_REMATCH[3]}-${BASH_REMATCH[4]}\$"
	elif [[ $p =~ ^linux-image-([0-9]+)\.([0-9]+)\.([0-9]+)-[0-9]+-([a-z0-9-]+)$ ]]; then
		echo "^linux-image-${BASH_REMATCH[1]}\\.${BASH_REMATCH[2]}\\.${BASH_REMATCH[3]}-[0-9]+-${BASH_REMATCH[4]}\$"
	else
		return 1
	fi
}

# pin_policy PKG:DARCH...: "PKG DARCH VERSION" for each package apt has a
# candidate of (one apt-cache call for all); nothing for the others.
pin_policy() {
	[ "$#" -gt 0 ] || return 0
	local native
	native=$(dpkg --print-architecture)
	LC_ALL=C apt-cache policy "$@" 2> /dev/null |
		awk -v native="$native" '
		/^[^ ]/ { n = $0; sub(/:$/, "", n); a = native
		          if (match(n, /:[a-z0-9]+$/)) { a = substr(n, RSTART + 1); n = substr(n, 1, RSTART - 1) } }
		/^  Candidate: / && $2 != "(none)" { print n, a, $2 }'
}

# pin_candidates DARCH PKG...: "PKG VERSION" for each PKG apt has a candidate
# of, for Debian architecture DARCH; nothing for the others.
pin_candidates() {
	local darch=$1 p
	shift
	local q=()
	for p in "$@"; do q+=("$p:$darch"); done
	pin_policy "${q[@]}" | awk '{ print $1, $3 }'
}

# pin_series_versions DARCH PKG: "NAME VERSION" for each package of PKG's series
# (PKG itself included) that apt has a candidate of; nothing for a name of no series.
pin_series_versions() {
	local darch=$1 re n
	re=$(pin_series "$2") || return 0
	local names=()
	while read -r n _; do
		[ -n "$n" ] && names+=("$n")
	done < <(LC_ALL=C apt-cache search --names-only "$re" 2> /dev/null)
	pin_candidates "$darch" "${names[@]}"
}

# pin_max: of "NAME VERSION" lines on stdin, the one of the highest version (dpkg's order).
pin_max() {
	local best='' bestv='' n v
	while read -r n v; do
		if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then
			best=$n bestv=$v
		fi
	done
	[ -z "$best" ] || echo "$best $bestv"
}

# pin_newest DARCH PKG: "NAME VERSION" of the newest of PKG's series; nothing if apt has none.
pin_newest() {
	pin_series_versions "$1" "$2" | pin_max
}

# pin_gone_msg WHERE ALIAS ARCH PKG HOWTO: the one line that says PKG (pinned
# in WHERE) has no candidate, the newest of its series, and HOWTO (what moves it).
pin_gone_msg() {
	local where=$1 alias=$2 arch=$3 pkg=$4 howto=$5 darch newest
	darch=$(pin_dpkg_arch "$arch") || darch=$arch
	newest=$(pin_newest "$darch" "$pkg")
	if [ -n "$newest" ]; then
		echo "$where: $pkg ($alias, $arch) is no longer in the apt archive; newest of its series: ${newest% *} (${newest#* }); $howto"
	elif pin_series "$pkg" > /dev/null; then
		echo "$where: $pkg ($alias, $arch) is not in the apt archive, nor any package of its series (apt lists missing or stale, or dpkg architecture $darch not added? run make deps, then $howto)"
	else
		echo "$where: $pkg ($alias, $arch) is not in the apt archive (run apt-get update, or name an available package)"
	fi
}
