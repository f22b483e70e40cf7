#!/usr/bin/env bash
# e2e_privilege.sh -- harnessd as its own unprivileged user, as harnessd.service runs it:
# installed by install-service.sh, no new privileges, no capabilities; one real guest run.
# usage: tests/e2e_privilege.sh HARNESS HARNESSD   (as root; images must be built)
set -u

. "$(dirname "$0")/testlib.sh" privilege "$@"
user=mglru-harness
co=$work/co
dpid=
cleanup() {
	[ -n "$dpid" ] && kill -9 "$dpid" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
	ok "skipped: needs root to create the user '$user'"
	e2e_end
	exit
fi

# A checkout of our own in the work directory: the user must reach every file
# of it, and a clone under /root would not do.
chmod 0755 "$work"
mkdir -p "$co/harness/build" "$co/harness/daemon" "$co/images/out/x86_64/kernel" "$co/images/cache/debs" "$co/workloads"
cp "$harness" "$harnessd" "$co/harness/build/"
cp "$repo/harness/daemon/harnessd.service" "$repo/harness/daemon/install-service.sh" "$co/harness/daemon/"
cp "$repo/images/build.sh" "$repo/images/pins.sh" "$repo/images/kernels.conf" "$co/images/"
cp "$repo/images/out/x86_64/base.cpio" "$repo/images/out/x86_64/fio" "$co/images/out/x86_64/"
cp -r "$repo/images/out/x86_64/kernel/6.12" "$co/images/out/x86_64/kernel/"
cp -r "$repo/workloads/presets" "$co/workloads/"
printf 'results = results\nimages = images/out\npresets = workloads/presets\n' > "$co/harness.conf"
printf 'memory_mib = 384\nvcpus = 2\nboot_timeout_s = 120\nslack_s = 60\naccel = tcg\n' \
	>> "$co/harness.conf"

check "install-service.sh sets up the user and the unit" bash -c '"$@" > "$0/install.log"' "$work" \
	"$co/harness/daemon/install-service.sh" "$co" "$co/results" "$work/unit" "$user"
check "a second install changes nothing" bash -c \
	'sum=$(md5sum < "$2/unit/harnessd.service"); "$1/harness/daemon/install-service.sh" "$1" \
	 "$1/results" "$2/unit" > /dev/null && [ "$(md5sum < "$2/unit/harnessd.service")" = "$sum" ]' \
	_ "$co" "$work"
check "the user is a system user with no shell" bash -c \
	'[ "$(getent passwd "$1" | cut -d: -f7)" = /usr/sbin/nologin ] && [ "$(id -u "$1")" -lt 1000 ]' \
	_ "$user"
if getent group kvm > /dev/null; then
	check "the user is in group kvm" bash -c 'id -nG "$1" | tr " " "\n" | grep -qx kvm' _ "$user"
fi
check "the results directory is the user's, mode 0700" \
	[ "$(stat -c %U:%a "$co/results")" = "$user:700" ]
check "the unit names the checkout, the user and only the results as writable" bash -c \
	'grep -qx "ExecStart=$1/harness/build/harnessd -c $1/harness.conf" "$2" &&
	 grep -qx "User=$3" "$2" && grep -qx "ReadWritePaths=$1/results" "$2" &&
	 grep -qx "ProtectSystem=strict" "$2" && grep -qx "NoNewPrivileges=yes" "$2" &&
	 ! grep -q "^MemoryDenyWriteExecute=yes" "$2"' _ "$co" "$work/unit/harnessd.service" "$user"
if command -v systemd-analyze > /dev/null; then
	# units it pulls in may warn of their own (bookworm-backports' libvirtd.service
	# has Type=notify-reload, which bookworm's systemd 252 does not know): only
	# lines naming our unit count
	check "systemd-analyze verify: the unit parses, with no warning of its own" bash -c \
		'out=$(systemd-analyze verify "$1" 2>&1) && ! grep -F harnessd.service <<< "$out" ||
		 { echo "$out"; false; }' _ "$work/unit/harnessd.service"
fi

# What the unit does, done by hand: the user's ids and groups, no new
# privileges, no capabilities, umask 0077, no HOME, a clean environment.
# A fake apt-get (first on PATH) "downloads" the 6.12 package under a new name:
# the daemon's build.sh cannot write images/cache/debs and must put it elsewhere.
mkdir -p "$work/bin"
deb=$(ls "$repo"/images/cache/debs/linux-image-6.12*-cloud-amd64_*_amd64.deb 2>/dev/null | head -n 1)
check "a cached 6.12 package to offer (make images)" [ -n "$deb" ]
cp "$deb" "$work/pkg.deb"
printf '#!/bin/sh\n[ "$1" = download ] && cp %s "./$2_1_amd64.deb"\n' "$work/pkg.deb" \
	> "$work/bin/apt-get"
chmod 0755 "$work/bin/apt-get"
as_user=(setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs
	--inh-caps=-all --bounding-set=-all
	env -i PATH="$work/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME=/nonexistent
	sh -c 'umask 0077; cd "$0" && exec "$@"' "$co")
# the database as the daemon's user: a reader as root could leave root's files
q() { "${as_user[@]}" sqlite3 results/harness.db "$1"; }
"${as_user[@]}" harness/build/harnessd -c harness.conf 2> "$work/daemon.log" & dpid=$!
up() {
	for _ in $(seq 100); do
		[ -S "$co/results/harnessd.sock" ] && "${as_user[@]}" harness/build/harness status > /dev/null 2>&1 &&
			return 0
		sleep 0.1
	done
	cat "$work/daemon.log"
	return 1
}
check "the daemon starts as '$user' and answers" up
# a /proc/PID/status line's values, blanks squeezed: proc_status PID FIELD
proc_status() { awk -v k="$2:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$1/status" 2> /dev/null | tr -s ' \t' ' '; }
uid=$(id -u "$user") gid=$(id -g "$user")
check "the daemon's uids are the user's, not root's" [ "$(proc_status "$dpid" Uid)" = "$uid $uid $uid $uid" ]
check "the daemon's gids are the user's" [ "$(proc_status "$dpid" Gid)" = "$gid $gid $gid $gid" ]
check "the daemon has no capabilities" [ "$(proc_status "$dpid" CapEff)$(proc_status "$dpid" CapBnd)" = 00000000000000000000000000000000 ]
check "the daemon has no new privileges" [ "$(proc_status "$dpid" NoNewPrivs)" = 1 ]

# A root-only file beside the matrix: the matrix's directory is allowed, but
# the daemon, not being root, cannot open it.
mkdir -p "$co/m"
printf 'not a kernel\n' > "$co/m/secret"
chmod 0600 "$co/m/secret"
cat > "$co/m/secret.json" <<'EOF'
{ "name": "secret", "reps": 1, "arms": [ { "name": "a", "kernel": "secret" } ],
  "workloads": [ { "name": "w", "memcg_mib": 24, "duration_s": 2,
    "files": [ { "name": "f", "mib": 8 } ], "streams": [ { "kind": "random", "file": "f" } ] } ] }
EOF
# (a submit only parses: the daemon's resolver finds the kernel unreadable)
"${as_user[@]}" harness/build/harness submit --wait m/secret.json > /dev/null 2> "$work/secret.err"
check "a root-only file named as a kernel is refused: the daemon cannot open it" \
	grep -q "^harness: m/secret.json: arms\[0\].kernel: .*Permission denied" "$work/secret.err"
check "no run of it can start: the matrix is unresolved, its run queued" \
	[ "$(q "SELECT m.resolve || ' ' || r.status FROM matrices m JOIN runs r ON r.matrix_id = m.id
		WHERE m.name = 'secret'" 2>/dev/null)" = "unresolved queued" ]

# One real run of a package arm with a fio stream: build.sh, the jail of the
# host's fio --parse-only (a user namespace, as not root) and QEMU, all as the user.
cat > "$co/m/one.json" <<'EOF'
{ "name": "priv", "reps": 1,
  "arms": [ { "name": "pkg", "package": "linux-image-e2e-privilege" } ],
  "workloads": [ { "name": "fio", "memcg_mib": 24, "duration_s": 3,
    "files": [ { "name": "f", "mib": 16 } ],
    "streams": [ { "kind": "fio", "name": "fio",
      "args": "--name=fio --filename=f --rw=randread --bs=4k --time_based --runtime=3" } ] } ] }
EOF
check "submit of a package arm with a fio stream, as the user, resolved by the daemon" bash -c \
	'"$@" harness/build/harness submit --wait m/one.json | grep -q "resolved, its runs may start"' \
	_ "${as_user[@]}"
check "the package went beside its kernel, not into images/cache/debs" bash -c \
	'[ -n "$(find "$1/results/cache" -name "linux-image-e2e-privilege_*.deb")" ] &&
	 [ -z "$(ls -A "$1/images/cache/debs")" ]' _ "$co"
qemu_uid= st=
for _ in $(seq 600); do
	st=$(q "SELECT r.status FROM runs r JOIN matrices m ON m.id = r.matrix_id
		WHERE m.name = 'priv'" 2>/dev/null)
	[ -n "$st" ] || break
	qpid=$(pgrep -f "qemu-system-x86_64 -name guest=.*$co/results" | head -n 1)
	[ -n "$qpid" ] && [ -z "$qemu_uid" ] &&
		qemu_uid=$(proc_status "$qpid" Uid 2>/dev/null)
	case $st in done|failed|crashed|timeout|unsupported|interrupted) break ;; esac
	sleep 0.2
done
check "QEMU ran as the user" [ "$qemu_uid" = "$uid $uid $uid $uid" ]
check "the run is done (status '$st')" [ "$st" = done ]
check "its samples are in the database" [ "$(q "SELECT COUNT(*) FROM samples")" -ge 2 ]
check "libvirt's own state stayed under the results directory" \
	[ -d "$co/results/libvirt/cache/libvirt" ]
# (its group is the user's own: libvirt makes one directory 0770)
check "the daemon's files are the user's, none open to others" bash -c \
	'[ -z "$(find "$1/results" -perm /007 ! -type l)" ] &&
	 [ -z "$(find "$1/results" ! -user "$2")" ]' _ "$co" "$user"
kill -TERM "$dpid"; wait "$dpid" 2>/dev/null; dpid=

# The user, its groups and the unit's directory stay: the next run reuses them.
rm -rf "$work/unit"
e2e_end
