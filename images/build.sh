#!/usr/bin/env bash
# build.sh -- guest images for one architecture (x86_64 or aarch64): the base initramfs (the
# agent as /init, fio) and, per pinned kernel, its vmlinuz and a cpio of its virtio modules.
# usage: images/build.sh ARCH AGENT_BINARY OUTDIR
#        images/build.sh kernel-package ARCH PKG OUTDIR
# The second form builds one Debian kernel package (a matrix arm's "package")
# into OUTDIR/{vmlinuz,modules.cpio,release,version,package}, as for kernels.conf.
# Idempotent: a kernel whose output already names its pinned package is skipped.
# KERNELS_CONF names another kernels.conf (tests); a pin apt no longer has fails in one
# line naming the newest of its series and `make pin-kernels` (images/pin-kernels.sh).
set -euo pipefail

mode=images
if [ "${1:-}" = kernel-package ]; then
	mode=kernel-package
	arch=${2:?arch}
	pkg_arg=${3:?package}
	out=${4:?output dir}
	# a Debian package name (policy 5.6.1); it becomes a file name below
	[[ $pkg_arg =~ ^[a-z0-9][a-z0-9.+-]+$ ]] ||
		{ echo "images/build.sh: '$pkg_arg' is not a Debian package name" >&2; exit 1; }
else
	arch=${1:?arch}
	agent=${2:?agent binary}
	out=${3:?output dir}
fi
here=$(cd "$(dirname "$0")" && pwd)
conf=${KERNELS_CONF:-$here/kernels.conf}
# shellcheck source=images/pins.sh
. "$here/pins.sh"
debs=$here/cache/debs
# Modules the guest needs before /init can reach the channel and mount the data
# disk (ext4 is a module in Debian's generic kernels);
# whichever of them a kernel has built in is skipped.
want_modules="virtio_pci virtio_blk virtio_console ext4"
# Modules a cell's swap loads, only when it asks (the agent reads
# /etc/modules.swap): zram and the compressors zram (before 6.12) and zswap
# take through the crypto API, which a guest without modprobe cannot autoload.
swap_modules="zram lzo lzo-rle lz4 lz4hc zstd deflate 842"

case $arch in
x86_64 | aarch64) ;;
*) echo "images/build.sh: unsupported arch '$arch' (x86_64 or aarch64)" >&2; exit 1 ;;
esac

mkdir -p "$out"
# Downloads go to images/cache/debs, or, for a caller who cannot write there
# (harnessd as its own user), beside OUTDIR: a .deb already cached is used.
dl=$debs
if [ "$mode" = kernel-package ] && ! { mkdir -p "$debs" 2> /dev/null && [ -w "$debs" ]; }; then
	dl=$(dirname "$out")/debs
fi
mkdir -p "$dl"

build_base() {
	local stage dst=$out/base.cpio
	if [ -f "$dst" ] && [ "$dst" -nt "$agent" ] &&
	   { [ ! -f "$out/fio" ] || [ "$dst" -nt "$out/fio" ]; }; then
		return
	fi
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,proc,sys,dev,data,etc,tmp}
	# the agent is PID 1: it mounts, loads the modules and powers off itself
	cp "$agent" "$stage/init"
	# the static fio built by images/build-fio.sh, for fio streams
	if [ -f "$out/fio" ]; then cp "$out/fio" "$stage/bin/fio"; fi
	chmod 755 "$stage/init"
	(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
		cpio --quiet -o -0 -H newc -R 0:0) > "$dst.tmp"
	mv "$dst.tmp" "$dst"
	rm -rf "$stage"
	echo "images: $dst"
}

# Print the .ko files (dependency order) MODULES need in ROOT (the absent skipped).
module_order() {
	local root=$1 rel=$2 m
	for m in $3; do
		modprobe -d "$root" -S "$rel" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++'
}

# The .ko files MODULES need from ROOT (release REL) into STAGE, decompressed,
# their paths in the guest listed in order in STAGE/etc/LIST (the modules a
# module list shares with one staged before are listed again: loading is
# idempotent).
stage_modules() {
	local root=$1 rel=$2 stage=$3 mods=$4 list=$5 ko dst
	: > "$stage/etc/$list"
	for ko in $(module_order "$root" "$rel" "$mods"); do
		dst=/lib/modules/$rel/$(basename "${ko%.xz}")
		case $ko in
		*.xz) xz -dc "$ko" > "$stage$dst" ;;
		*) cp "$ko" "$stage$dst" ;;
		esac
		echo "$dst" >> "$stage/etc/$list"
	done
}

# 0 if DIR holds a complete build of PKG (its "package" file, written last, names it).
kernel_built() {
	local dir=$1 pkg=$2
	[ -f "$dir/package" ] && [ "$(cat "$dir/package")" = "$pkg" ] &&
		[ -f "$dir/vmlinuz" ] && [ -f "$dir/modules.cpio" ] && [ -f "$dir/config" ]
}

# The .deb of PKG already downloaded, if any.
cached_deb() {
	ls "$debs/${1}"_*.deb "$dl/${1}"_*.deb 2>/dev/null | head -n 1 || true
}

# 0 if apt can download PKG; otherwise one line on stderr naming it (ALIAS in it),
# the newest of its series and what moves it: a point release replaced its name.
pin_ok() {
	local pkg=$1 alias=$2 darch
	darch=$(pin_dpkg_arch "$arch")
	[ -z "$(pin_candidates "$darch" "$pkg")" ] || return 0
	if [ "$mode" = kernel-package ]; then
		pin_gone_msg images/build.sh "$alias" "$arch" "$pkg" "name an available package in the arm" >&2
	else
		pin_gone_msg "$conf" "$alias" "$arch" "$pkg" "run make pin-kernels to move the pin" >&2
	fi
	return 1
}

# Build package PKG's vmlinuz, modules.cpio, release, version and package (written
# last: its presence means the rest is complete) into DIR; ALIAS names it in messages.
build_kernel() {
	local dir=$1 pkg=$2 alias=$3 x rel ko dst stage deb
	if kernel_built "$dir" "$pkg"; then
		return
	fi
	rm -f "$dir/package"
	deb=$(cached_deb "$pkg")
	if [ -z "$deb" ]; then
		# a pin is checked before (all of them, below); a matrix's package arm is
		# downloaded first and explained if that fails (apt-get may be another's)
		[ "$mode" = kernel-package ] || pin_ok "$pkg" "$alias" || exit 1
		(cd "$dl" && apt-get download "$pkg" > /dev/null 2>&1 || true)
		deb=$(ls "$dl/${pkg}"_*.deb 2>/dev/null | head -n 1 || true)
		if [ -z "$deb" ]; then
			pin_ok "$pkg" "$alias" &&
				echo "images: apt-get download $pkg failed (run apt-get update?)" >&2
			exit 1
		fi
	fi
	x=$(mktemp -d)
	dpkg-deb -x "$deb" "$x"
	rel=$(ls "$x/lib/modules" 2>/dev/null || true)
	if [ -z "$rel" ] || [ ! -f "$x/boot/vmlinuz-$rel" ]; then
		rm -rf "$x"
		echo "images: $pkg is not a kernel package (no /lib/modules/REL and /boot/vmlinuz-REL)" >&2
		exit 1
	fi
	depmod -b "$x" "$rel"
	stage=$(mktemp -d)
	mkdir -p "$stage/etc" "$stage/lib/modules/$rel"
	stage_modules "$x" "$rel" "$stage" "$want_modules" modules.order
	stage_modules "$x" "$rel" "$stage" "$swap_modules" modules.swap
	mkdir -p "$dir"
	(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
		cpio --quiet -o -0 -H newc -R 0:0) > "$dir/modules.cpio"
	cp "$x/boot/vmlinuz-$rel" "$dir/vmlinuz"
	# what it was built with: a cell's swap is checked against it before boot
	cp "$x/boot/config-$rel" "$dir/config"
	echo "$rel" > "$dir/release"
	# the exact build: one package name (ABI) carries several Debian revisions
	dpkg-deb -f "$deb" Version > "$dir/version"
	echo "$pkg" > "$dir/package"
	rm -rf "$x" "$stage"
	echo "images: $dir ($rel)"
}

if [ "$mode" = kernel-package ]; then
	build_kernel "$out" "$pkg_arg" "package arm"
	exit 0
fi

# every pin to download is checked before any is: one line per pin apt no longer has
gone=0
while read -r alias karch pkg; do
	case $alias in ''|'#'*) continue ;; esac
	[ "$karch" = "$arch" ] || continue
	kernel_built "$out/kernel/$alias" "$pkg" || [ -n "$(cached_deb "$pkg")" ] ||
		pin_ok "$pkg" "$alias" || gone=1
done < "$conf"
[ "$gone" = 0 ] || exit 1

build_base
while read -r alias karch pkg; do
	case $alias in ''|'#'*) continue ;; esac
	[ "$karch" = "$arch" ] || continue
	build_kernel "$out/kernel/$alias" "$pkg" "$alias"
done < "$conf"
