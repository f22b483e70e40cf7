#!/usr/bin/env bash
# long_boot_stress.sh -- make test-long: N boots of the 6.12 kernel (2 vCPUs, TCG) to the
# agent's hello under each QEMU configuration, counting the guests that crashed (RELIABILITY.md).
# usage: tests/long_boot_stress.sh BOOT_STRESS [N] [CONFIG...]
#
# Configurations: old-multi (Debian 12's QEMU 7.2, multi-threaded TCG: the
# text-patching race, counted, not asserted), old-single (7.2 with
# thread=single, what the harness runs on it), new (the QEMU installed, when
# it is 8.1 or later, threaded as the harness chooses). QEMU 7.2 comes from
# Debian 12's main suite with apt-get download, unpacked beside the build, and
# runs with its own modules and the installed firmware. The configurations the
# harness uses must show no crash and no silent guest; a boot takes about 5 s
# here, so 500 each is about 2 hours.
set -u
stress=$(readlink -f "${1:?boot_stress binary}")
n=${2:-500}
shift $(( $# >= 2 ? 2 : 1 ))
configs=${*:-old-multi old-single new}
repo=$(cd "$(dirname "$0")/.." && pwd)
images=$repo/images/out/x86_64
kernel=$images/kernel/6.12/vmlinuz
old=$repo/build/qemu-7.2
work=$(mktemp -d /tmp/boot-stress.XXXXXX)
fail=0
[ -f "$kernel" ] || { echo "long_boot_stress: $kernel missing (make images)" >&2; exit 1; }
cat "$images/base.cpio" "$images/kernel/6.12/modules.cpio" > "$work/initrd.img"

# QEMU 7.2 unpacked once into build/qemu-7.2 (the system and its TCG module).
old_qemu() {
	[ -x "$old/usr/bin/qemu-system-x86_64" ] && return 0
	local dl
	dl=$(mktemp -d) && chmod 755 "$dl" &&
		(cd "$dl" && apt-get download -q qemu-system-x86/bookworm qemu-system-common/bookworm) &&
		mkdir -p "$old" && for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$old" || return 1; done
	local rc=$?
	rm -rf "$dl"
	return $rc
}

# The old QEMU as libvirt's <emulator>: its own modules, the installed firmware
# (Debian's 7.2 found SeaBIOS through links in its own data package).
old_emulator() {
	cat > "$work/qemu-7.2" <<-EOF
	#!/bin/sh
	QEMU_MODULE_DIR=$old/usr/lib/x86_64-linux-gnu/qemu
	export QEMU_MODULE_DIR
	exec $old/usr/bin/qemu-system-x86_64 -L /usr/share/seabios -L /usr/share/qemu "\$@"
	EOF
	chmod 755 "$work/qemu-7.2"
	gcc -O2 -DQEMU_REAL="\"$work/qemu-7.2\"" "$repo/tools/qemu-tcg-single.c" \
		-o "$work/qemu-7.2-single"
}

# run CONFIG THREAD [EMULATOR]: N boots in CONFIG's own directory; its counts line.
run() {
	local cfg=$1
	shift
	mkdir -p "$work/$cfg"
	"$stress" "$work/$cfg" "$kernel" "$work/initrd.img" "$n" "$@" > "$work/$cfg.log" 2>&1
	grep '^# threading' "$work/$cfg.log" >&2
	grep -E '^[0-9]+ (crash|silent|infra) ' "$work/$cfg.log" | head -5 >&2
	tail -n 1 "$work/$cfg.log"
}

version() { "$1" --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p'; }

needs_old=0
case " $configs " in *" old-"*) needs_old=1 ;; esac
if [ $needs_old = 1 ]; then
	old_qemu || { echo "long_boot_stress: cannot fetch QEMU 7.2 from Debian 12's main suite" >&2; exit 1; }
	old_emulator || exit 1
fi
printf '%-11s %-8s %-7s %s\n' config qemu thread counts
for cfg in $configs; do
	case $cfg in
	old-multi)  line=$(run "$cfg" multi "$work/qemu-7.2"); q=$(version "$work/qemu-7.2"); t=multi ;;
	old-single) line=$(run "$cfg" single "$work/qemu-7.2-single"); q=$(version "$work/qemu-7.2"); t=single ;;
	new)
		q=$(version qemu-system-x86_64)
		case $q in [0-7].*|8.0.*)
			echo "long_boot_stress: new: the installed QEMU is $q, not 8.1 or later (make deps)" >&2
			fail=1; continue ;;
		esac
		line=$(run "$cfg" auto); t=auto ;;
	*) echo "long_boot_stress: unknown configuration '$cfg' (old-multi, old-single, new)" >&2
	   exit 2 ;;
	esac
	printf '%-11s %-8s %-7s %s\n' "$cfg" "$q" "$t" "$line"
	# the two the harness uses: not one crashed or silent guest
	if [ "$cfg" != old-multi ]; then
		case $line in *" crash 0 silent 0 infra 0") ;; *) fail=1 ;; esac
	fi
done
echo "logs: $work"
exit $fail
