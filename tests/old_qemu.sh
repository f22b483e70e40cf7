# old_qemu.sh -- Debian 12's QEMU 7.2 beside a newer installed one, for the boot stress and
# the QEMU benchmark: fetched, unpacked, and run as /usr/bin's in a mount namespace of its own.
# shellcheck shell=bash
# Sourced; sets old_qemu_dir (REPO/build/qemu-7.2).

old_qemu_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/qemu-7.2

# old_qemu_fetch: qemu-system-x86 and its TCG module (qemu-system-common) from
# Debian 12's main suite with apt-get download, unpacked once into old_qemu_dir.
old_qemu_fetch() {
	[ -x "$old_qemu_dir/usr/bin/qemu-system-x86_64" ] && return 0
	local dl d rc=0
	dl=$(mktemp -d) && chmod 755 "$dl" || return 1
	(cd "$dl" && apt-get download -q qemu-system-x86/bookworm qemu-system-common/bookworm) || rc=1
	mkdir -p "$old_qemu_dir"
	for d in "$dl"/*.deb; do
		[ $rc = 0 ] && { dpkg-deb -x "$d" "$old_qemu_dir" || rc=1; }
	done
	rm -rf "$dl"
	[ $rc = 0 ] || echo "old_qemu: cannot fetch QEMU 7.2 from Debian 12's main suite" >&2
	return $rc
}

# old_qemu_run DIR CMD...: CMD in a mount namespace where /usr/bin/qemu-system-x86_64,
# QEMU's modules and its data directory are 7.2's (SeaBIOS copied in: Debian's 7.2
# found it through links its own data package had). DIR holds the data copy. Root only.
old_qemu_run() {
	local share=$1/qemu-7.2-share
	shift
	if [ ! -d "$share" ]; then
		cp -rL /usr/share/qemu "$share" 2>/dev/null
		cp /usr/share/seabios/*.bin "$share"/ || return 1
	fi
	unshare -m --propagation private bash -c '
		mount --bind "$1/usr/bin/qemu-system-x86_64" /usr/bin/qemu-system-x86_64 &&
		mount --bind "$1/usr/lib/x86_64-linux-gnu/qemu" /usr/lib/x86_64-linux-gnu/qemu &&
		mount --bind "$2" /usr/share/qemu || exit 1
		shift 2
		exec "$@"' old-qemu "$old_qemu_dir" "$share" "$@"
}
