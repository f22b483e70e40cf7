#!/usr/bin/env bash
# bench_qemu.sh -- what the QEMU in use does to noise and boot: bench_noise.sh's quiet A/A
# under Debian 12's QEMU 7.2 multi- and single-threaded and the installed QEMU (BENCHMARKS.md).
# usage: tests/bench_qemu.sh HARNESS [BLOCKS] [CONFIG...]   (make bench-qemu; nothing else
# should run)
#
# Configurations: old-multi, old-single (QEMU 7.2 from tests/old_qemu.sh, run as
# /usr/bin's in a mount namespace; tcg_thread multi and auto), new (the
# installed QEMU, tcg_thread auto) and new-single (the same, tcg_thread single).
# Each prints, per cell, the A/A sd of the paired deltas, the runs' CV, ops/s
# and the median domain start to the agent's hello.
set -u
harness=$(readlink -f "${1:?harness binary}")
blocks=${2:-4}
shift $(( $# >= 2 ? 2 : 1 ))
configs=${*:-old-multi old-single new new-single}
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/tests/old_qemu.sh"
work=$(mktemp -d /tmp/bench-qemu.XXXXXX)
trap 'rm -rf "$work"' EXIT
case " $configs " in *" old-"*) old_qemu_fetch || exit 1 ;; esac
for cfg in $configs; do
	ns=()
	case $cfg in
	old-multi)  ns=(old_qemu_run "$work"); conf="tcg_thread = multi" ;;
	old-single) ns=(old_qemu_run "$work"); conf="tcg_thread = auto" ;;
	new)        conf="tcg_thread = auto" ;;
	new-single) conf="tcg_thread = single" ;;
	*) echo "bench_qemu: unknown configuration '$cfg'" >&2; exit 2 ;;
	esac
	"${ns[@]}" env NOISE_CONDS=quiet NOISE_LABEL="$cfg-" NOISE_CONF="$conf" \
		"$repo/tests/bench_noise.sh" "$harness" "$blocks" || exit 1
done
