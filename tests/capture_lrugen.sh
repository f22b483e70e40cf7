#!/usr/bin/env bash
# capture_lrugen.sh -- boot the pinned Debian kernels under QEMU and save the exact
# text of debugfs lru_gen, lru_gen_full and a memcg's memory.stat, for tests/data/.
# usage: tests/capture_lrugen.sh OUTDIR [ALIAS...]   (ALIAS defaults to "6.1 6.12")
#
# Not run by CI: it is how tests/data/lru_gen*-*.txt and memory.stat-*.txt were
# made (test_lrugen.c parses them). Needs images/out/x86_64/kernel/ALIAS/ (make
# images, or images/build.sh kernel-package), the host's static busybox, gcc,
# mkfs.ext4, cpio and qemu-system-x86_64. One guest at a time, single-threaded TCG
# (multi-threaded TCG here aborts at random: DESIGN.md), 512 MiB in
# two NUMA nodes of 256 MiB (one vCPU each), so the text has two nodes.
#
# In each guest, /init (busybox sh) mounts proc, sysfs, devtmpfs, debugfs and
# cgroup2, loads the kernel's virtio modules, mounts the ext4 data disk (a 64 MiB
# and a 4 MiB file of random bytes) and swaps on a second disk; then:
#   1. lru_gen enabled ("y"); memcg /t with memory.max 32M runs an anonymous
#      process (16 MiB, 4 MiB of it touched again and again, on CPU 1, node 1)
#      and, on CPU 0, three passes over the 64 MiB file with the 4 MiB one read
#      four times after each: lru_gen, lru_gen_full and /t's memory.stat saved;
#   2. "+ ID NODE MAX_SEQ" written to lru_gen for /t on each node (aging), both
#      files saved again ("-aged"); then "- ID 0 MIN_SEQ" (eviction), lru_gen
#      saved ("-evicted");
#   3. lru_gen disabled ("n"); memcg /c runs the same workload: its memory.stat
#      ("-classic") and lru_gen as the kernel still prints it ("-disabled"),
#      /proc/vmstat, /c's memory.events, memory.swap.current and
#      memory.pressure, /proc/pressure/memory and kswapd's /proc/PID/stat ("-classic");
#   4. memcg /o (8 MiB, no swap) runs the anonymous process alone until the
#      OOM killer kills it: /o's memory.events and the kernel's lines ("-oom");
#   5. memcg /z (16 MiB) swaps a 24 MiB anonymous process onto zram (lz4) with
#      the vmscan reclaim events traced: zram's mm_stat and the trace's lines
#      ("-squeezed").
# The guest writes its files as a tar onto a third disk (no console in between,
# so the text is the kernel's, byte for byte); OUTDIR gets NAME-ALIAS[-STEP].txt each,
# plus capture-ALIAS.meta (release, lru_gen enabled read back, memcg ids).
set -euo pipefail

out=${1:?usage: tests/capture_lrugen.sh OUTDIR [ALIAS...]}
shift
aliases=${*:-6.1 6.12}
repo=$(cd "$(dirname "$0")/.." && pwd)
kdir=$repo/images/out/x86_64/kernel
. "$repo/tests/busybox_guest.sh"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/capture-lrugen.XXXXXX)
trap 'rm -rf "$work"' EXIT

for a in $aliases; do
	bb_kernel capture_lrugen "$kdir/$a"
done
bb_check capture_lrugen

# The anonymous load: MIB MiB touched once, then its first HOT MiB every 20 ms until killed.
cat > "$work/anon.c" <<'EOF'
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }
int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16, hot = argc > 2 ? strtoul(argv[2], NULL, 10) : 4;
	struct timespec pause = { 0, 20 * 1000000 };
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;
	if (p == MAP_FAILED)
		return 1;
	signal(SIGTERM, on_term);
	memset(p, 0x5a, mib << 20);
	while (!stop) {
		for (off = 0; off < hot << 20; off += 4096)
			p[off]++;
		nanosleep(&pause, NULL);
	}
	return 0;
}
EOF
gcc -static -O2 -o "$work/anon" "$work/anon.c"

{ bb_init_head vdc; cat <<'EOF'; } > "$work/init"
mkdir -p /data /out
mount -o ro /dev/vda /data
mkswap /dev/vdb > /dev/null && swapon /dev/vdb
O=/out G=/sys/kernel/debug C=/sys/fs/cgroup E=/sys/kernel/mm/lru_gen/enabled
echo "capture: $(uname -r) booted" > /dev/console
{ echo "release $(uname -r)"; echo "enabled_boot $(cat $E)"; } > $O/meta
echo +memory > $C/cgroup.subtree_control

# workload CG: the anonymous process on CPU 1, the file passes on CPU 0, in memcg CG.
workload() {
	mkdir $C/$1
	echo 32M > $C/$1/memory.max
	taskset 2 sh -c 'echo $$ > /sys/fs/cgroup/$1/cgroup.procs; exec /bin/anon 16 4' _ $1 &
	apid=$!
	sleep 2
	taskset 1 sh -c 'echo $$ > /sys/fs/cgroup/$1/cgroup.procs
		for i in 1 2 3; do
			dd if=/data/big of=/dev/null bs=1M 2> /dev/null
			for j in 1 2 3 4; do dd if=/data/hot of=/dev/null bs=64k 2> /dev/null; done
		done' _ $1
	echo "memcg_$1 $(cat $C/$1/memory.current) bytes after the workload" >> $O/meta
}

# seqs PATH min|max: "NODE SEQ" lines, the oldest or youngest seq of memcg PATH per node in lru_gen
seqs() {
	awk -v P="$1" -v W="$2" '$1 == "memcg" { m = ($3 == P) } m && $1 == "node" { n = $2 }
		m && $1 != "memcg" && $1 != "node" { if (!(n in lo)) lo[n] = $1; hi[n] = $1 }
		END { for (n in hi) print n, (W == "min" ? lo[n] : hi[n]) }' $G/lru_gen
}

echo y > $E
echo "enabled_y $(cat $E)" >> $O/meta
workload t
cat $G/lru_gen > $O/lru_gen.txt
cat $G/lru_gen_full > $O/lru_gen_full.txt
cat $C/t/memory.stat > $O/memory.stat-mglru.txt
id=$(awk '$1 == "memcg" && $3 == "/t" { print $2 }' $G/lru_gen)
echo "memcg_id_t $id" >> $O/meta
seqs /t max | while read -r n s; do
	echo "+ $id $n $s" > $G/lru_gen && echo "aged + $id $n $s" >> $O/meta
done
cat $G/lru_gen > $O/lru_gen-aged.txt
cat $G/lru_gen_full > $O/lru_gen_full-aged.txt
seqs /t min | while read -r n s; do
	[ "$n" = 0 ] && echo "- $id $n $s" > $G/lru_gen && echo "evicted - $id $n $s" >> $O/meta
done
cat $G/lru_gen > $O/lru_gen-evicted.txt
kill $apid; wait $apid

echo n > $E
echo "enabled_n $(cat $E)" >> $O/meta
workload c
cat $C/c/memory.stat > $O/memory.stat-classic.txt
cat $G/lru_gen > $O/lru_gen-disabled.txt
cat /proc/vmstat > $O/vmstat-classic.txt
cat $C/c/memory.events > $O/memory.events-classic.txt
cat $C/c/memory.swap.current > $O/memory.swap.current-classic.txt
cat $C/c/memory.pressure > $O/memory.pressure-classic.txt
cat /proc/pressure/memory > $O/pressure.memory-classic.txt
for p in /proc/[0-9]*; do
	case $(cat $p/comm 2> /dev/null) in kswapd*) cat $p/stat > $O/kswapd.stat-classic.txt ;; esac
done
echo "memcg_id_c $(awk '$1 == "memcg" && $3 == "/c" { print $2 }' $G/lru_gen)" >> $O/meta
kill $apid; wait $apid

# 4. memcg /o: 8 MiB and no swap for the 16 MiB anonymous process: the OOM
#    killer's memory.events and its line in the kernel's log
mkdir $C/o
echo 8M > $C/o/memory.max
echo 0 > $C/o/memory.swap.max
sh -c 'echo $$ > /sys/fs/cgroup/o/cgroup.procs; exec /bin/anon 16 4' &
wait $!
cat $C/o/memory.events > $O/memory.events-oom.txt
dmesg | grep -A1 -B1 "Killed process" > $O/kmsg-oom.txt

# 5. memcg /z (16 MiB) swapping onto zram (lz4, 32 MiB) the 24 MiB process's
#    cold part, the vmscan events traced in an instance of their own: zram's
#    mm_stat and the trace ("-squeezed")
while read -r m; do [ -n "$m" ] && insmod "$m" 2> /dev/null; done < /etc/modules.swap
echo lz4 > /sys/block/zram0/comp_algorithm
echo 32M > /sys/block/zram0/disksize
mkswap /dev/zram0 > /dev/null && swapon -p 10 /dev/zram0
T=/sys/kernel/tracing
mount -t tracefs tracefs $T 2> /dev/null
mkdir $T/instances/cap
echo mono > $T/instances/cap/trace_clock
for e in direct_reclaim_begin direct_reclaim_end memcg_reclaim_begin memcg_reclaim_end; do
	echo 1 > $T/instances/cap/events/vmscan/mm_vmscan_$e/enable
done
mkdir $C/z
echo 16M > $C/z/memory.max
sh -c 'echo $$ > /sys/fs/cgroup/z/cgroup.procs; exec /bin/anon 24 8' &
zpid=$!
sleep 4
cat /sys/block/zram0/mm_stat > $O/zram.mm_stat-squeezed.txt
grep -v '^#' $T/instances/cap/trace | head -400 > $O/trace.vmscan-squeezed.txt
kill $zpid; wait $zpid

tar -cf /dev/vdc -C $O .
sync
echo "capture: done" > /dev/console
poweroff -f
EOF
bb_root "$work" "$work/init" "$work/anon"

mkdir -p "$work/disk"
head -c 64M /dev/urandom > "$work/disk/big"
head -c 4M /dev/urandom > "$work/disk/hot"
mkfs.ext4 -q -F -m 0 -d "$work/disk" "$work/data.img" 80M

for a in $aliases; do
	cat "$work/root.cpio" "$kdir/$a/modules.cpio" > "$work/initrd-$a"
	truncate -s 0 "$work/swap.img" "$work/out.img"
	truncate -s 64M "$work/swap.img"
	truncate -s 16M "$work/out.img"
	echo "capture_lrugen: booting $a ($(cat "$kdir/$a/release"))"
	timeout 900 qemu-system-x86_64 -accel tcg,thread=single -M pc -m 512 -smp 2 -nodefaults -display none \
		-no-reboot -serial "file:$work/console-$a.log" \
		-object memory-backend-ram,id=m0,size=256M -object memory-backend-ram,id=m1,size=256M \
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
		-kernel "$kdir/$a/vmlinuz" -initrd "$work/initrd-$a" \
		-append "console=ttyS0 loglevel=4 panic=-1" \
		-drive "file=$work/data.img,format=raw,if=virtio,readonly=on" \
		-drive "file=$work/swap.img,format=raw,if=virtio" \
		-drive "file=$work/out.img,format=raw,if=virtio"
	grep -q 'capture: done' "$work/console-$a.log" ||
		{ tail -n 30 "$work/console-$a.log" >&2; echo "capture_lrugen: $a did not finish" >&2; exit 1; }
	rm -rf "$work/got" && mkdir "$work/got"
	tar -xf "$work/out.img" -C "$work/got"
	for f in "$work/got"/*.txt; do
		b=$(basename "$f" .txt)
		case $b in
		*-*) cp "$f" "$out/${b%%-*}-$a-${b#*-}.txt" ;;  # lru_gen-6.1-aged.txt, memory.stat-6.1-classic.txt
		*) cp "$f" "$out/$b-$a.txt" ;;  # lru_gen-6.1.txt
		esac
	done
	cp "$work/got/meta" "$out/capture-$a.meta"
	echo "capture_lrugen: $a -> $out"
done
