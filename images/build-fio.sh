#!/usr/bin/env bash
# build-fio.sh -- a static fio for the guest, built from Debian's fio source
# package (bookworm: fio 3.33), so the guest needs none of its shared libraries.
# usage: images/build-fio.sh ARCH OUTDIR     (ARCH: x86_64 or aarch64)
# Idempotent: does nothing if OUTDIR/fio exists; the source is fetched once.
set -euo pipefail

arch=${1:?usage: build-fio.sh ARCH OUTDIR}
out=${2:?usage: build-fio.sh ARCH OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/cache/src
srclist=/etc/apt/sources.list.d/mglru-harness-src.sources

case $arch in
x86_64) cc=gcc ;;
# cross: gcc-aarch64-linux-gnu + libc6-dev-arm64-cross (static libc); zlib is
# not in the cross sysroot, so configure leaves it out (fio runs without it)
aarch64) cc=aarch64-linux-gnu-gcc ;;
*) echo "build-fio.sh: unsupported arch '$arch' (x86_64 or aarch64)" >&2; exit 1 ;;
esac

[ -x "$out/fio" ] && exit 0

# Is there a deb-src entry for bookworm main already (one-line or deb822 style)?
have_deb_src() {
	grep -rhsE '^[[:space:]]*deb-src[[:space:]].*[[:space:]]bookworm[[:space:]].*main' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; IGNORECASE = 1 }
		     /(^|\n)Types:[^\n]*deb-src/ && /(^|\n)Suites:[^\n]*bookworm([ \t\n]|$)/ &&
		     /(^|\n)Components:[^\n]*main/ { found = 1 }
		     END { exit !found }' "$f" && return 0
	done
	return 1
}

fetch_source() {
	ls "$src"/fio_*.dsc >/dev/null 2>&1 && return 0
	if ! have_deb_src; then
		cat > "$srclist" <<-EOF
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: bookworm
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		apt-get update -q
	fi
	mkdir -p "$src"
	(cd "$src" && apt-get source --download-only fio)
}

# Optional libraries whose static archives Debian does not ship (or that drag
# in more libraries) break -static linking. On a clean bookworm configure finds
# only zlib (libz.a, zlib1g-dev); the rest are turned off so a host that has,
# say, librbd-dev installed still links. sync, psync, mmap and io_uring (fio's
# own, no liburing) engines stay; libaio is off unless libaio-dev is installed.
config_flags=(--build-static --disable-native --cc="$cc"
	--disable-numa --disable-rdma --disable-gfapi --disable-rbd --disable-http
	--disable-rados --disable-pmem --disable-libnfs --disable-libzbc
	--disable-xnvme --disable-tcmalloc
	--disable-dfs --disable-lex)

tmp=
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT

build() {
	local start
	start=$(date +%s)
	tmp=$(mktemp -d)
	# apt-get source already checked the files against the signed Sources
	# index; dpkg-source's own check of the uploader's signature fails without
	# debian-keyring, so its warning is only shown if unpacking fails.
	dpkg-source -x "$(ls "$src"/fio_*.dsc | head -n 1)" "$tmp/fio" > "$tmp/unpack.log" 2>&1 || {
		cat "$tmp/unpack.log" >&2
		echo "build-fio.sh: dpkg-source -x failed" >&2
		exit 1
	}
	(cd "$tmp/fio" && ./configure "${config_flags[@]}" > "$tmp/configure.log" 2>&1) || {
		cat "$tmp/configure.log" >&2
		echo "build-fio.sh: configure failed" >&2
		exit 1
	}
	make -C "$tmp/fio" -j2 fio > "$tmp/make.log" 2>&1 || {
		tail -n 30 "$tmp/make.log" >&2
		echo "build-fio.sh: make failed" >&2
		exit 1
	}
	mkdir -p "$out"
	cp "$tmp/fio/fio" "$out/fio.tmp"
	mv "$out/fio.tmp" "$out/fio"
	echo "images: $out/fio ($(( $(date +%s) - start )) s)"
}

fetch_source
build
