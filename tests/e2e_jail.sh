#!/usr/bin/env bash
# e2e_jail.sh -- a stranger's patch builds in a jail: a tiny git tree whose
# Makefile stands in for kbuild, and a patch to it that tries, from the config
# step and from the compile, to read /etc/shadow, write /etc and the results
# directory, reach a listener on 127.0.0.1, read the harness's environment and
# outlive the build; through `harness check`, as root and as the service user.
# usage: tests/e2e_jail.sh HARNESS_BINARY
set -u

. "$(dirname "$0")/testlib.sh" jail "$@"
user=mglru-harness
lpid=
trap '[ -n "$lpid" ] && kill "$lpid" 2>/dev/null; wait 2>/dev/null' EXIT

# a listener on 127.0.0.1: it writes whatever connects into $work/heard
port_file=$work/port
python3 - "$port_file" "$work/heard" <<'EOF' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(1)
end = time.time() + 900
while time.time() < end:
    try:
        c, a = s.accept()
        open(sys.argv[2], "a").write("connection from %s\n" % (a,))
        c.close()
    except socket.timeout:
        pass
EOF
lpid=$!
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
port=$(cat "$port_file")

# make_case DIR: DIR/harness.conf, DIR/tiny (the tree at tag 'base'), DIR/hostile.mbox, DIR/m.json
make_case() {
	local d=$1 results=$1/results
	mkdir -p "$d/tiny/scripts/kconfig" "$d/images/out" "$results"
	cp -r "$repo/images/kconfig" "$d/images/"
	cp -r "$repo/workloads/presets" "$d/presets"
	printf 'results = %s\nimages = %s/images/out\npresets = %s/presets\n' \
		"$results" "$d" "$d" > "$d/harness.conf"
	cd "$d/tiny" || return 1
	git init -q && git config user.name dev && git config user.email dev@example.org
	# kbuild's part the harness calls: config targets, merge_config.sh and the image
	cat > Makefile <<'EOF2'
tinyconfig:
	echo CONFIG_TINY=y > $(O)/.config
olddefconfig:
	true
bzImage:
	echo "tiny: no kernel here"; exit 1
EOF2
	cat > scripts/kconfig/merge_config.sh <<'EOF2'
#!/bin/sh
# merge_config.sh -m -O OBJ BASE FRAGMENT: BASE then FRAGMENT into OBJ/.config
cat "$4" "$5" > "$3/.config.new" && mv "$3/.config.new" "$3/.config"
EOF2
	chmod +x scripts/kconfig/merge_config.sh
	git add -A && git commit -qm base && git tag base
	# the patch: a script the Makefile runs at the config step and at the compile
	cat > scripts/probe.sh <<EOF2
#!/bin/sh
o=\$1 step=\$2
{
cat /etc/shadow > "\$o/shadow-\$step" 2> /dev/null && echo "read /etc/shadow"
(echo pwned > /etc/harness-jail-\$step) 2> /dev/null && echo "wrote /etc"
(echo pwned > $results/pwned-\$step) 2> /dev/null && echo "wrote the results directory"
bash -c 'echo hi > /dev/tcp/127.0.0.1/$port' 2> /dev/null && echo "connected to 127.0.0.1:$port"
env > "\$o/env-\$step"
id -u > "\$o/uid-\$step"
(setsid sh -c "sleep 4; echo alive > \$o/alive-\$step" > /dev/null 2>&1 &)
echo done
} > "\$o/attempts-\$step" 2>&1
EOF2
	chmod +x scripts/probe.sh
	sed -i 's|^\techo CONFIG_TINY=y > $(O)/.config|\tsh scripts/probe.sh $(O) config\n&|; s|^\techo "tiny: no kernel here"; exit 1|\tsh scripts/probe.sh $(O) compile\n&|' Makefile
	git add -A && git commit -qm "kbuild: probe the build host"
	git format-patch -q --stdout -1 > ../hostile.mbox
	git reset -q --hard base
	cd - > /dev/null || return 1
	cat > "$d/m.json" <<EOF2
{ "name": "jail", "reps": 1,
  "arms": [ { "name": "hostile", "source": "$d/tiny", "base": "base",
              "patches": "$d/hostile.mbox", "config": "tinyconfig" } ],
  "workloads": [ { "name": "w", "duration_s": 3, "memcg_mib": 64,
                   "files": [ { "name": "d", "mib": 16 } ],
                   "streams": [ { "kind": "random", "file": "d" } ] } ] }
EOF2
}

# judge WHO DIR: what the probe saw from both steps, and what the host kept
judge() {
	local who=$1 d=$2 obj
	obj=$(ls -d "$d"/results/cache/builds/trees/*/obj-x86_64-s* 2>/dev/null | head -1)   # the series' own
	check "$who: harness check ran the patch's probe in the config step and the compile" \
		bash -c '[ -n "$1" ] && grep -qx done "$1/attempts-config" && grep -qx done "$1/attempts-compile"' _ "$obj"
	for step in config compile; do
		check "$who, $step: /etc/shadow unread, /etc and the results directory unwritten, 127.0.0.1 unreached" \
			bash -c '[ "$(grep -vx done "$1")" = "" ] && [ ! -s "$2" ]' _ "$obj/attempts-$step" "$obj/shadow-$step"
		check "$who, $step: uid 65534, none of the harness's environment" bash -c \
			'[ "$(cat "$1/uid-$2")" = 65534 ] && ! grep -q HARNESS_JAIL_CANARY "$1/env-$2" &&
			 grep -qx "PATH=/usr/bin:/usr/sbin:/bin:/sbin" "$1/env-$2"' _ "$obj" "$step"
	done
	check "$who: the host's /etc and results directory untouched" bash -c \
		'! ls /etc/harness-jail-* 2>/dev/null && ! ls "$1"/results/pwned-* 2>/dev/null' _ "$d"
	check "$who: the arm failed with the build's words, the rest of the host untouched" \
		grep -q "the build failed (exit 2, log kept in .*): no 'error:' line" "$d/check.out"
	sleep 6
	check "$who: no process outlived the build" bash -c '! ls "$1"/alive-* 2>/dev/null' _ "$obj"
}

export HARNESS_JAIL_CANARY=the-harness-environment
make_case "$work/root"
(cd "$work/root" && "$harness" -c harness.conf check m.json > check.out 2>&1)
judge root "$work/root"

if [ "$(id -u)" = 0 ]; then
	id "$user" > /dev/null 2>&1 ||
		useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
	chmod 0755 "$work"
	mkdir -p "$work/user/bin" && cp "$harness" "$work/user/bin/"
	make_case "$work/user"
	chown -R "$user:" "$work/user"
	(cd "$work/user" && setpriv --reuid="$user" --regid="$user" --clear-groups \
		--inh-caps=-all env HOME=/nonexistent HARNESS_JAIL_CANARY=x "$work/user/bin/harness" -c harness.conf \
		check m.json > check.out 2>&1)
	judge "$user" "$work/user"
else
	ok "skipped as the service user: needs root to become '$user'"
fi
check "the listener on 127.0.0.1 heard nothing" [ ! -s "$work/heard" ]
e2e_end
