# testlib.sh -- what the e2e scripts share (testlib.c is the C tests'): the
# work directory, "ok -" lines, a database query, harness.conf, the count.
# usage (after set -u): . "$(dirname "$0")/testlib.sh" NAME HARNESS [HARNESSD]

e2e_name=$1
harness=$(readlink -f "${2:?harness binary}")
harnessd=${3:+$(readlink -f "$3")}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "/tmp/e2e-$e2e_name.XXXXXX")
pass=0 fail=0

# libvirt's QEMU capabilities (results/libvirt/cache/qemu/capabilities): libvirt
# probes every QEMU binary in each new results directory, about 3 s here, for
# the same answer on one machine. tests/run.sh shares them through E2E_CAPS:
# the first test (e2e_boot) probes, and its files seed the later tests'
# results; libvirt checks each against its binary, itself and the host, and
# probes again when any of them changed.
if [ -n "${E2E_CAPS:-}" ] && ls "$E2E_CAPS"/*.xml > /dev/null 2>&1; then
	mkdir -p "$work/results/libvirt/cache/qemu/capabilities" &&
		cp -p "$E2E_CAPS"/*.xml "$work/results/libvirt/cache/qemu/capabilities/"
fi

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND...
	local what=$1; shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
q() { sqlite3 "$work/results/harness.db" "$1"; }
# explain WHY COMMAND...: COMMAND's status, and when it fails WHY (a command,
# split on spaces: "cat out.txt", a function) says why. For check's
# argument: check returns 0 either way, so a "|| WHY" after it never runs.
explain() { local why=$1; shift; "$@" && return 0; $why; return 1; }

# e2e_conf [LINE...]: $work/harness.conf for small TCG guests, then LINEs (a
# key a LINE gives replaces the default's line: harness.conf refuses a key
# given twice). The quiet-host gate is off: the suite runs tests side by side
# on a small host, whose guests would hold each other's runs back and flag
# them; tests/e2e_contended.sh turns it on.
e2e_conf() {
	local defaults line key
	defaults=$(
		printf 'results = results\nimages = %s/images/out\npresets = %s/workloads/presets\n' \
			"$repo" "$repo"
		printf 'memory_mib = 384\nvcpus = 2\nboot_timeout_s = 60\nslack_s = 60\n'
		printf 'quiet_cpu_pct = 100\nquiet_io_pct = 100\n'
		# runs restore a saved guest (docs/restore.md) unless E2E_START says
		# boot (make test-boot) or the test's own "start = boot" does (it
		# tests booting)
		printf 'start = %s\n' "${E2E_START:-restore}"
		# two saves per arm, not 4: the rotation exercised, half the saves'
		# boots (the tests check mechanics and effects far above the spread)
		printf 'saves = 2\n'
	)
	for line in "$@"; do
		key=${line%%=*}
		key=${key%"${key##*[! ]}"}
		[ "$key" = host ] || defaults=$(grep -v "^$key =" <<< "$defaults" || true)
	done
	{
		printf '%s\n' "$defaults"
		[ $# -gt 0 ] && printf '%s\n' "$@"
	} > "$work/harness.conf"
}

# e2e_shared_builds: results/cache/builds is $E2E_BUILDS when it is set (tests/run.sh
# sets it: the tests that build kernels share one cache, only the first compiles cold)
e2e_shared_builds() {
	[ -n "${E2E_BUILDS:-}" ] || return 0
	mkdir -p "$E2E_BUILDS" "$work/results/cache" && ln -s "$E2E_BUILDS" "$work/results/cache/builds"
}

# start_daemon: harnessd on harness.conf in the background ($dpid, its log
# appended to daemon.log); 0 once it answers on its socket, within 10 s
start_daemon() {
	"$harnessd" -c harness.conf 2>> daemon.log & dpid=$!
	for _ in $(seq 100); do
		[ -S results/harnessd.sock ] && "$harness" status > /dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# e2e_end: the count run.sh reads; the work directory goes unless KEEP is set
e2e_end() {
	echo "e2e-$e2e_name: $pass passed, $fail failed"
	# what a failed check may come from: every run that did not end done, and why
	[ "$fail" -eq 0 ] || [ ! -s "$work/results/harness.db" ] ||
		sqlite3 "$work/results/harness.db" "SELECT '# run ' || id || ' (' || COALESCE(host, '-') ||
			'): ' || status || ': ' || COALESCE(reason, '') FROM runs WHERE status != 'done'" 2>&1 |
			head -20
	# the first test's probe, for the later ones (E2E_CAPS above)
	if [ -n "${E2E_CAPS:-}" ] && ! ls "$E2E_CAPS"/*.xml > /dev/null 2>&1; then
		cp -p "$work"/results/libvirt/cache/qemu/capabilities/*.xml "$E2E_CAPS"/ 2> /dev/null
	fi
	[ "$fail" -eq 0 ] && [ -z "${KEEP:-}" ] && rm -rf "$work"
	[ "$fail" -eq 0 ]
}
