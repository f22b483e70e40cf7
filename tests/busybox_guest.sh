# busybox_guest.sh -- sourced by the scripts that boot a kernel image under QEMU with a
# busybox /init of their own (capture_lrugen.sh, bench_lrugen.sh): the common parts.

# bb_check NAME: the host's busybox is static (it is the guest's only userland)
bb_check() {
	{ ldd /bin/busybox 2>&1 || true; } | grep -q 'not a dynamic executable' ||
		{ echo "$1: /bin/busybox is not a static busybox (apt-get install busybox-static)" >&2; return 1; }
}

# bb_kernel NAME DIR: DIR holds a kernel image's vmlinuz and modules.cpio (make images)
bb_kernel() {
	[ -f "$2/vmlinuz" ] && [ -f "$2/modules.cpio" ] ||
		{ echo "$1: $2/{vmlinuz,modules.cpio} missing (make images)" >&2; return 1; }
}

# bb_init_head DEV: the first lines of /init: busybox's applets, proc, sysfs, devtmpfs,
# debugfs and cgroup2 mounted, the image's modules loaded, /dev/DEV waited for (10 s)
bb_init_head() {
	cat <<'HEAD'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup
dmesg -n 1
while read -r m; do [ -n "$m" ] && insmod "$m"; done < /etc/modules.order
HEAD
	printf 'for _ in $(seq 100); do [ -b /dev/%s ] && break; sleep 0.1; done\n' "$1"
}

# bb_root DIR INIT [BIN...]: DIR/root.cpio, a root of busybox, INIT as /init and the
# BINs in /bin, owned by root, in a stable order
bb_root() {
	local dir=$1 init=$2 b
	shift 2
	mkdir -p "$dir/root"/{bin,proc,sys,dev,etc,tmp}
	cp /bin/busybox "$dir/root/bin/busybox"
	install -m 755 "$init" "$dir/root/init"
	for b in "$@"; do install -m 755 "$b" "$dir/root/bin/"; done
	(cd "$dir/root" && find . -print0 | LC_ALL=C sort -z | cpio --quiet -o -0 -H newc -R 0:0) > "$dir/root.cpio"
}
