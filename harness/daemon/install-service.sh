#!/usr/bin/env bash
# install-service.sh -- set up harnessd to run under systemd as its own user:
# the system user (in group kvm), its results directory, the unit with this checkout's paths.
# usage (as root): harness/daemon/install-service.sh CHECKOUT RESULTS_DIR UNIT_DIR [USER]
# `make install-service` runs it; a second run changes nothing.
set -euo pipefail

die() { echo "install-service: $*" >&2; exit 1; }

[ $# -ge 3 ] || die "usage: install-service.sh CHECKOUT RESULTS_DIR UNIT_DIR [USER]"
user=${4:-mglru-harness}
[ "$(id -u)" = 0 ] || die "run it as root: it creates the system user '$user'"
[[ $user =~ ^[a-z_][a-z0-9_-]{0,30}$ ]] || die "user '$user': expected a name of [a-z0-9_-]"
co=$(realpath -e -- "$1") || die "checkout '$1' not found"
results=$(realpath -m -- "$2")
unit_dir=$3
# the paths go into the unit unquoted, and into sed: plain characters only
for p in "$co" "$results"; do
	[[ $p =~ ^/[A-Za-z0-9._/+-]+$ ]] || die "path '$p': expected only [A-Za-z0-9._/+-]"
done

getent group "$user" > /dev/null || groupadd --system "$user"
id -u "$user" > /dev/null 2>&1 ||
	useradd --system --gid "$user" --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin "$user"
# KVM guests open /dev/kvm (root:kvm 0660); TCG needs no group
if getent group kvm > /dev/null && ! id -nG "$user" | tr ' ' '\n' | grep -qx kvm; then
	usermod -a -G kvm "$user"
fi

# the results directory is the only place the daemon writes
install -d -m 0700 -o "$user" -g "$user" "$results"
chown -R "$user:$user" "$results"

# what the daemon reads must be readable by its user, path and all
readable() { runuser -u "$user" -- test "$1" "$2" || die "user '$user' cannot $3 '$2'"; }
readable -x "$co/harness/build/harnessd" "run"
readable -r "$co/harness.conf" "read"
readable -r "$co/images/out" "read"

mkdir -p "$unit_dir"
unit=$unit_dir/harnessd.service
sed -e "s|^ReadWritePaths=.*|ReadWritePaths=$results|" -e "s|/srv/mglru-harness|$co|g" \
	-e "s|^User=.*|User=$user|" -e "s|^Group=.*|Group=$user|" \
	"$co/harness/daemon/harnessd.service" > "$unit.tmp"
if cmp -s "$unit.tmp" "$unit"; then
	rm -f "$unit.tmp"
else
	mv "$unit.tmp" "$unit"
	if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
fi
echo "install-service: $unit runs harnessd as '$user', writing only $results;" \
	"start it with: systemctl enable --now harnessd"
