#!/usr/bin/env bash
# qemu-deps.sh -- QEMU and libvirt for the harness: on Debian 12 from bookworm-backports
# (QEMU >= 8.1 has no TCG text-patching race: RELIABILITY.md), elsewhere the release's own.
# usage: QEMU_FROM=backports|stable images/qemu-deps.sh PACKAGE...   (make deps)
#
# QEMU_FROM=stable keeps Debian 12's own QEMU 7.2 and libvirt 9.0; the harness
# then runs a TCG guest of more than one vCPU single-threaded. Nothing is
# downgraded here: going back from backports is `apt-get install PKG/bookworm`.
set -euo pipefail
from=${QEMU_FROM:-backports}
list=/etc/apt/sources.list.d/mglru-harness-backports.sources

case $from in
backports|stable) ;;
*) echo "qemu-deps.sh: QEMU_FROM is '$from', expected 'backports' or 'stable'" >&2; exit 2 ;;
esac

# The installed version of package $1, or nothing.
installed() {
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "install" && $3 == "installed" { print $4 }'
}

codename() {
	( . /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}" )
}

# Does apt know bookworm-backports already (one-line or deb822 sources)?
have_backports() {
	grep -rqsE '(^|[[:space:]])bookworm-backports([[:space:]]|$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/
}

add_backports() {
	have_backports && return 0
	echo "adding Debian's bookworm-backports suite ($list)"
	cat > "$list" <<-EOS
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOS
}

# libvirt 10 and later split the storage driver (a remote host's pool,
# docs/hosts.md) out of libvirt-daemon; bookworm's 9.0 has no such package.
split=libvirt-daemon-driver-storage
# Backports' QEMU depends on these at its own version; apt takes a dependency
# from the suite named on the command line only for the packages named there,
# so on a machine that has none of them yet they must be named too.
siblings="qemu-system-common qemu-system-data seabios"
want=()
if [ "$from" = backports ] && [ "$(codename)" = bookworm ]; then
	for p in "$@" $split $siblings; do
		case $(installed "$p") in *~bpo12*) ;; *) want+=("$p/bookworm-backports") ;; esac
	done
	[ ${#want[@]} -eq 0 ] && exit 0
	echo "installing from bookworm-backports: ${want[*]%/bookworm-backports}"
	add_backports
else
	[ "$(codename)" != bookworm ] && apt-cache show "$split" > /dev/null 2>&1 && set -- "$@" $split
	for p in "$@"; do
		[ -n "$(installed "$p")" ] || want+=("$p")
	done
	[ ${#want[@]} -eq 0 ] && exit 0
	echo "installing: ${want[*]}"
fi
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${want[@]}"
