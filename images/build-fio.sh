#!/usr/bin/env bash
# build-fio.sh -- a static fio for the guest, built from Debian's fio source
# package (bookworm: fio 3.33), so the guest needs none of its shared libraries.
# usage: images/build-fio.sh ARCH OUTDIR     (ARCH: x86_64 or aarch64)
# Idempotent: does nothing if OUTDIR/fio exists; the source is fetched once.
set -euo pipefail

arch=${1:?usage: build-fio.sh ARCH OUTDIR}
out=${2:?usage: build-fio.sh ARCH OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=images/debian-source.sh
. "$here/debian-source.sh"
src=$here/cache/src

case $arch in
x86_64) cc=gcc ;;
# cross: gcc-aarch64-linux-gnu + libc6-dev-arm64-cross (static libc); zlib is
# not in the cross sysroot, so configure leaves it out (fio runs without it)
aarch64) cc=aarch64-linux-gnu-gcc ;;
*) echo "build-fio.sh: unsupported arch '$arch' (x86_64 or aarch64)" >&2; exit 1 ;;
esac

[ -x "$out/fio" ] && exit 0

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
	debsrc_unpack fio "$src" "$tmp/fio" || exit 1
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

debsrc_fetch fio "$src"
build
