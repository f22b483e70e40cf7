#!/usr/bin/env bash
# bench_lrugen.sh -- the kernel's side of the sampler's LRU reads: what one read of
# debugfs lru_gen_full and of memory.stat costs in a 6.12 guest, by memcgs in the text.
# usage: tests/bench_lrugen.sh [ALIAS]   (make bench; BENCHMARKS.md; default 6.12)
#
# bench_sampler parses the text on the host; this times the kernel making it.
# A TCG guest (one vCPU, as a harness guest's sampler has) boots the image's
# kernel with a busybox /init, turns MGLRU on, fills memcg /t (16 MiB limit)
# with a 32 MiB file read twice so its generations hold pages, and then, with
# 1, 64 and 256 other memcgs beside /t, runs a static helper that reads the
# file whole, from offset 0, 200 times in a row as the agent does each
# interval (one open, pread until EOF), and prints the mean per read, beside
# the same for /t's memory.stat. Needs images/out/x86_64/kernel/ALIAS (make
# images), static busybox, gcc, mkfs.ext4, cpio, qemu-system-x86_64. Nothing
# is asserted: the figures are printed.
set -euo pipefail

alias=${1:-6.12}
repo=$(cd "$(dirname "$0")/.." && pwd)
kdir=$repo/images/out/x86_64/kernel/$alias
. "$repo/tests/busybox_guest.sh"
bb_kernel bench_lrugen "$kdir"
bb_check bench_lrugen
work=$(mktemp -d /tmp/bench-lrugen.XXXXXX)
trap 'rm -rf "$work"' EXIT

# readloop PATH N: N whole reads of PATH through one descriptor; "BYTES NS" per read
cat > "$work/readloop.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static char buf[4 << 20];
int main(int argc, char **argv)
{
	struct timespec a, b;
	long n = argc > 2 ? atol(argv[2]) : 0, i;
	size_t len = 0;
	ssize_t r;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0 || n <= 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		len = 0;
		while ((r = pread(fd, buf + len, sizeof(buf) - len, (off_t)len)) > 0)
			len += (size_t)r;
		if (r < 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%zu %.0f\n", len, ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
EOF
gcc -static -O2 -o "$work/readloop" "$work/readloop.c"

{ bb_init_head vda; cat <<'EOF'; } > "$work/init"
mkdir -p /data && mount -o ro /dev/vda /data
C=/sys/fs/cgroup G=/sys/kernel/debug/lru_gen_full
echo y > /sys/kernel/mm/lru_gen/enabled
echo +memory > $C/cgroup.subtree_control
mkdir $C/t && echo 16M > $C/t/memory.max
sh -c 'echo $$ > /sys/fs/cgroup/t/cgroup.procs
	dd if=/data/f of=/dev/null bs=1M 2> /dev/null; dd if=/data/f of=/dev/null bs=1M 2> /dev/null'
made=0
for others in 1 64 256; do
	while [ $made -lt $others ]; do made=$((made + 1)); mkdir $C/m$made; done
	echo "bench: $others $(grep -c '^memcg' $G) lru_gen_full $(readloop $G 200)" > /dev/console
	echo "bench: $others $(grep -c '^memcg' $G) memory.stat $(readloop $C/t/memory.stat 200)" > /dev/console
done
echo "bench: done" > /dev/console
poweroff -f
EOF
bb_root "$work" "$work/init" "$work/readloop"
cat "$work/root.cpio" "$kdir/modules.cpio" > "$work/initrd"
mkdir -p "$work/disk"
head -c 32M /dev/urandom > "$work/disk/f"
mkfs.ext4 -q -F -m 0 -d "$work/disk" "$work/data.img" 48M > /dev/null

timeout 600 qemu-system-x86_64 -accel tcg -M pc -m 512 -smp 1 -nodefaults -display none \
	-no-reboot -serial "file:$work/console.log" \
	-kernel "$kdir/vmlinuz" -initrd "$work/initrd" -append "console=ttyS0 loglevel=4 panic=-1" \
	-drive "file=$work/data.img,format=raw,if=virtio,readonly=on"
grep -q 'bench: done' "$work/console.log" ||
	{ tail -n 30 "$work/console.log" >&2; echo "bench_lrugen: the guest did not finish" >&2; exit 1; }
echo "lru_gen_full and memory.stat read by the kernel, $(cat "$kdir/release"), TCG, 1 vCPU, 200 reads each:"
tr -d '\r' < "$work/console.log" | awk '$1 == "bench:" && $2 != "done" {
	printf "  %3d memcgs in lru_gen_full: %-12s %8d bytes %9.1f us a read, %5.3f %% of a vCPU at 1 s\n",
		$3, $4, $5, $6 / 1000, $6 / 1e7 }'
