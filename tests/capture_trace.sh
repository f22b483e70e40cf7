#!/usr/bin/env bash
# capture_trace.sh -- boot the pinned Debian 6.12 kernel under QEMU with the folio
# tracer's probes (guest/tracer.c) set by hand, and save trace_pipe's exact text.
# usage: tests/capture_trace.sh OUTDIR [ALIAS]   (ALIAS defaults to 6.12)
#
# Not run by CI: it is how tests/data/trace-6.12-*.txt were made (test_tracer.c
# parses them). Needs what capture_lrugen.sh needs. In the guest, a memcg of 8 MiB
# reads a 16 MiB file twice (sequential, so most folios are evicted and read again)
# with MGLRU on ("-mglru") and off ("-classic"); the probes are the tracer's, with
# one page in 16 of that file sampled by the filter the tracer writes.
set -euo pipefail

out=${1:?usage: tests/capture_trace.sh OUTDIR [ALIAS]}
a=${2:-6.12}
repo=$(cd "$(dirname "$0")/.." && pwd)
kdir=$repo/images/out/x86_64/kernel
. "$repo/tests/busybox_guest.sh"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/capture-trace.XXXXXX)
trap 'rm -rf "$work"' EXIT
bb_kernel capture_trace "$kdir/$a"
bb_check capture_trace

# the tracer's probe definitions, printed by the agent itself (agent -P RELEASE)
probes=$("$repo/guest/build/agent-x86_64" -P "$(cat "$kdir/$a/release")")

{ bb_init_head vdb; cat <<EOF; } > "$work/init"
mkdir -p /data /out
mount -o ro /dev/vda /data
mount -t tracefs tracefs /sys/kernel/tracing
T=/sys/kernel/tracing C=/sys/fs/cgroup E=/sys/kernel/mm/lru_gen/enabled
echo "capture: \$(uname -r) booted" > /dev/console
echo +memory > \$C/cgroup.subtree_control
cat > /tmp/probes <<'PROBES'
$probes
PROBES
while read -r p; do echo "\$p" >> \$T/dynamic_events || echo "capture: refused: \$p" > /dev/console; done < /tmp/probes
ino=\$(stat -c %i /data/f)
mm=\$(awk '\$5 == "/data" { print \$3 }' /proc/self/mountinfo)
dev=\$(( (\${mm%%:*} << 20) | \${mm#*:} ))
echo "dev \$dev ino \$ino" > /out/meta
mkdir \$T/instances/h
I=\$T/instances/h
echo 1024 > \$I/buffer_size_kb
echo mono > \$I/trace_clock
for e in \$I/events/harness/*/; do
	echo "dev == \$dev && !(index & 15) && (ino == \$ino)" > \$e/filter
	echo 1 > \$e/enable
done
for lru in y n; do
	name=mglru; [ \$lru = n ] && name=classic
	echo \$lru > \$E
	mkdir \$C/\$name
	echo 8M > \$C/\$name/memory.max
	cat \$I/trace_pipe > /out/trace-\$name.txt &
	tp=\$!
	sh -c 'echo \$\$ > /sys/fs/cgroup/'\$name'/cgroup.procs; dd if=/data/f of=/dev/null bs=64k 2>/dev/null;
		dd if=/data/f of=/dev/null bs=4k count=256 2>/dev/null; dd if=/data/f of=/dev/null bs=64k 2>/dev/null'
	sleep 1
	kill \$tp
	cat \$I/per_cpu/cpu0/stats > /out/stats-\$name.txt
	echo 1 > /proc/sys/vm/drop_caches
done
tar -cf /dev/vdb -C /out .
sync
echo "capture: done" > /dev/console
poweroff -f
EOF
bb_root "$work" "$work/init"
mkdir -p "$work/disk"
head -c 16M /dev/urandom > "$work/disk/f"
mkfs.ext4 -q -F -m 0 -d "$work/disk" "$work/data.img" 40M
cat "$work/root.cpio" "$kdir/$a/modules.cpio" > "$work/initrd"
truncate -s 16M "$work/out.img"
echo "capture_trace: booting $a ($(cat "$kdir/$a/release"))"
timeout 900 qemu-system-x86_64 -accel tcg -M pc -m 512 -smp 1 -nodefaults -display none \
	-no-reboot -serial "file:$work/console.log" \
	-kernel "$kdir/$a/vmlinuz" -initrd "$work/initrd" \
	-append "console=ttyS0 loglevel=4 panic=-1" \
	-drive "file=$work/data.img,format=raw,if=virtio,readonly=on" \
	-drive "file=$work/out.img,format=raw,if=virtio"
grep -q 'capture: done' "$work/console.log" ||
	{ tail -n 30 "$work/console.log" >&2; echo "capture_trace: $a did not finish" >&2; exit 1; }
grep 'capture: refused' "$work/console.log" >&2 || true
mkdir "$work/got"
tar -xf "$work/out.img" -C "$work/got"
for f in "$work/got"/*.txt; do
	b=$(basename "$f" .txt)
	cp "$f" "$out/${b%%-*}-$a-${b#*-}.txt"
done
cp "$work/got/meta" "$out/trace-$a.meta"
echo "capture_trace: $a -> $out"
