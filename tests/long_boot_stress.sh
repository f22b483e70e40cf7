#!/usr/bin/env bash
# long_boot_stress.sh -- make test-long: N boots of the 6.12 kernel (2 vCPUs, TCG) to the
# agent's hello under each QEMU configuration, counting the guests that crashed (RELIABILITY.md).
# usage: tests/long_boot_stress.sh BOOT_STRESS [N] [CONFIG...]
#
# Configurations: old-multi (Debian 12's QEMU 7.2, multi-threaded TCG: the
# text-patching race, counted, not asserted), old-single (7.2 with
# thread=single through the harness's own wrapper, what the harness runs on
# it), new (the QEMU installed, when it is 8.1 or later, threaded as the
# harness chooses). QEMU 7.2 is Debian 12's (tests/old_qemu.sh), run as
# /usr/bin's in a mount namespace, so the domain XML is a run's. The configurations the
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
work=$(mktemp -d /tmp/boot-stress.XXXXXX)
fail=0
. "$repo/tests/old_qemu.sh"
[ -f "$kernel" ] || { echo "long_boot_stress: $kernel missing (make images)" >&2; exit 1; }
cat "$images/base.cpio" "$images/kernel/6.12/modules.cpio" > "$work/initrd.img"

# run CONFIG [old_qemu_run DIR] THREAD [EMULATOR]: N boots in CONFIG's own
# directory (under 7.2 through old_qemu_run); its counts line.
run() {
	local cfg=$1 ns=()
	shift
	[ "$1" = old_qemu_run ] && { ns=("$1" "$2"); shift 2; }
	mkdir -p "$work/$cfg"
	"${ns[@]}" "$stress" "$work/$cfg" "$kernel" "$work/initrd.img" "$n" "$@" \
		> "$work/$cfg.log" 2>&1
	grep '^# threading' "$work/$cfg.log" >&2
	grep -E '^[0-9]+ (crash|silent|infra) ' "$work/$cfg.log" | head -5 >&2
	tail -n 1 "$work/$cfg.log"
}

case " $configs " in *" old-"*) old_qemu_fetch || exit 1 ;; esac
wrapper=$repo/harness/build/qemu-tcg-single-x86_64
printf '%-11s %-8s %-7s %s\n' config qemu thread counts
for cfg in $configs; do
	case $cfg in
	old-*)
		q=$(old_qemu_run "$work" qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
		t=${cfg#old-}
		if [ "$t" = single ]; then
			line=$(run "$cfg" old_qemu_run "$work" single "$wrapper")
		else
			line=$(run "$cfg" old_qemu_run "$work" multi)
		fi ;;
	new)
		q=$(qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
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
