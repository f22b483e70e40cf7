#!/usr/bin/env bash
# e2e_hosts.sh -- two hosts: harnessd on this machine's embedded driver and a
# second, real libvirt daemon (its own config, run and pool directories, as
# user nobody) reached through libvirt's remote protocol, so uploads,
# overlays, channel and console travel as they would to another machine;
# then guests saved and restored on the second host, kept in its pool.
# usage: tests/e2e_hosts.sh HARNESS HARNESSD   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" hosts "$@"

# the second host: a directory nobody may use (the work directory is 0700 root's)
remote=$(mktemp -d /tmp/hr.XXXXXX)
rpid=
start_remote() {
	mkdir -p "$remote"/{cfg/libvirt,run,cache,data,pool}
	printf 'unix_sock_dir = "%s/run"\nauth_unix_rw = "none"\n' "$remote" > "$remote/libvirtd.conf"
	# QEMU's output to a file (no virtlogd), as the embedded driver does
	printf 'stdio_handler = "file"\n' > "$remote/cfg/libvirt/qemu.conf"
	chown -R nobody:nogroup "$remote"
	chmod 755 "$remote"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH=/usr/sbin:/usr/bin:/bin \
		HOME="$remote" XDG_CONFIG_HOME="$remote/cfg" XDG_RUNTIME_DIR="$remote/run" \
		XDG_CACHE_HOME="$remote/cache" XDG_DATA_HOME="$remote/data" \
		/usr/sbin/libvirtd -f "$remote/libvirtd.conf" >> "$work/remote.log" 2>&1 &
	rpid=$!
	for _ in $(seq 100); do
		[ -S "$remote/run/libvirt-sock" ] && return 0
		sleep 0.1
	done
	return 1
}
# the host gone: its daemon killed, and the guests it ran with it (the machine is off)
kill_remote() {
	kill -9 "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	pkill -9 -u nobody -f qemu-system 2>/dev/null
	rm -f "$remote/run/libvirt-sock"
}
# the wrapper docs/run.md ("Which QEMU") asks a remote host to have (vm/vm.h VM_REMOTE_TCG_SINGLE): with it,
# the second host's TCG guests run as the harness chooses (single-threaded on a QEMU < 8.1)
wrapper=/usr/local/libexec/mglru-harness/qemu-tcg-single-x86_64
installed=
if [ ! -e "$wrapper" ] && install -D -m 0755 "$(dirname "$harness")/qemu-tcg-single-x86_64" "$wrapper"; then
	installed=1
fi
cleanup() {
	[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	kill_remote
	rm -rf "$remote"
	[ -n "$installed" ] && rm -f "$wrapper"
}
trap cleanup EXIT

check "the second libvirt daemon starts" start_remote
uri="qemu+unix:///session?socket=$remote/run/libvirt-sock"
# retries as shipped (1): a QEMU that dies on the host is the host's failure and
# is run again, as in production (a rehearsal of the suite met QEMU 10.0.2's
# `iotlb_to_section` assertion at one boot of ~170 and failed the run with retries 0)
# sections 1 to 3 boot every run: the first restore on a host waits for its
# save, and the host that saved first took 3 of the 4 blocks (section 4
# restores on the second host)
e2e_conf "host = here embedded slots=1" "host = there $uri slots=1 storage=$remote/pool" \
	"start = boot"
cd "$work" || exit 1

# 2 arms, 8 reps: 4 ABBA blocks of 4 runs, short enough for two TCG guests on 2 cores
# (the lost host's matrix too: one block lost, one restarted on the first host,
# and two left for the second once it is back: with 3 blocks the first host
# had done them all before the second's reconnection backoff let it back)
matrix() { # matrix NAME REPS SECONDS
	cat <<EOF2
{ "name": "$1", "reps": $2,
  "arms": [ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" },
            { "name": "classic", "kernel": "6.12", "lru_gen": "n" } ],
  "workloads": [ { "name": "rand", "memcg_mib": 32, "duration_s": $3, "interval_ms": 500,
                   "files": [ { "name": "d", "mib": 24 } ],
                   "streams": [ { "kind": "random", "file": "d" } ] } ] }
EOF2
}
matrix spread 8 1 > spread.json
matrix lose 8 3 > lose.json

start_daemon || not_ok "harnessd starts with two hosts"
state_of() { "$harness" --json status "$1" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null; }
wait_finished() { # wait_finished MATRIX SECONDS
	for _ in $(seq $(($2 * 2))); do
		[ "$(state_of "$1")" = finished ] && return 0
		sleep 0.5
	done
	return 1
}
wait_sql() { # wait_sql SECONDS SQL: until SQL says something but 0
	local r
	for _ in $(seq $(($1 * 5))); do
		r=$(q "$2" 2>/dev/null)
		[ -n "$r" ] && [ "$r" != 0 ] && return 0
		sleep 0.2
	done
	return 1
}
# blocks whose done runs came from more than one host: must be none
mixed() { q "SELECT COUNT(*) FROM (SELECT 1 FROM runs r JOIN matrices m ON m.id = r.matrix_id
	WHERE m.name = '$1' AND r.status = 'done' GROUP BY r.cell_id, r.block
	HAVING COUNT(DISTINCT r.host) > 1)"; }
# runs on host $2 of matrix $1 that failed for the host's reasons and were
# retried (QEMU's own TCG can abort: the harness says so and runs it again)
retried_on() { q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id
	WHERE m.name = '$1' AND r.host = '$2' AND r.status = 'failed' AND
	EXISTS (SELECT 1 FROM runs x WHERE x.retry_of = r.id)"; }
# "8 done", or "8 done, 1 failed" when one failed on the host and was retried
did_on() { local n; n=$(retried_on "$1" "$2"); [ "$n" = 0 ] && echo "8 done" || echo "8 done, $n failed"; }
done_on() { q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id
	WHERE m.name = '$1' AND r.status = 'done' AND r.host = '$2'"; }

# --- 1. a matrix spreads over both hosts, a block on one ---
"$harness" submit spread.json > /dev/null 2>&1
check "the matrix of 4 blocks finishes on two hosts" wait_finished spread 400
check "both hosts ran blocks ($(done_on spread here) runs here, $(done_on spread there) there)" \
	test "$(done_on spread here)" -ge 4 -a "$(done_on spread there)" -ge 4
check "every run records its host, and no block mixes hosts" \
	test "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done' AND host NOT IN ('here', 'there')")" = 0 \
	-a "$(mixed spread)" = 0
# a run that is not done says why here, and the daemon's lines about it
not_done() {
	q "SELECT 'run ' || id || ' (' || host || ', block ' || block || '): ' || status || ': ' || reason
		FROM runs WHERE status != 'done'"
	grep -E "failed|retrying|lost" daemon.log | head -20
}
# what measured them, per host: the second host's facts through its connection (CPU
# model and count from libvirt; its kernel libvirt does not tell, and says so); the
# wrapper installed there, so its TCG guests run with the same threading as here's
check "runs here record this machine's kernel, CPU model and count, and their pinning" \
	[ "$(q "SELECT COUNT(*) FROM runs WHERE host = 'here' AND status = 'done' AND host_kernel = '$(uname -r)'
		AND host_cpus = $(nproc) AND host_cpu NOT IN ('', 'unknown') AND qemu_version != 'unknown'
		AND (vcpu_pin = 'all on 0-1' OR tcg_thread != 'single')")" -ge 1 ]
check "runs there record QEMU and libvirt through the connection, a CPU model, its kernel unknown" \
	[ "$(q "SELECT COUNT(*) FROM runs WHERE host = 'there' AND status = 'done'
		AND host_kernel LIKE 'unknown (%' AND host_cpus = $(nproc) AND host_cpu != 'unknown'
		AND qemu_version != 'unknown' AND libvirt_version != 'unknown'")" -ge 1 ]
check "there: the wrapper installed, so the same TCG threading as here, recorded" \
	[ "$(q "SELECT group_concat(DISTINCT tcg_thread) FROM runs WHERE host = 'there' AND status = 'done'")" = \
	  "$(q "SELECT group_concat(DISTINCT tcg_thread) FROM runs WHERE host = 'here' AND status = 'done'")" ]
check "16 runs done, each seq once: the table of a one-host run" explain not_done \
	[ "$(q "SELECT COUNT(*) || ' ' || COUNT(DISTINCT seq) FROM runs WHERE status = 'done'")" = "16 16" ]
"$harness" table spread > table.out 2>&1
check "its table has both arms over 8 runs each, paired in 4 blocks" explain "cat table.out" \
	bash -c "grep -qE '^mglru .* 8\$' table.out && grep -qE '^classic .* 8\$' table.out &&
		grep -qE '^rand +[-0-9.%]+ +4 ' table.out"
there_run=$(q "SELECT id FROM runs WHERE host = 'there' AND status = 'done' LIMIT 1")
check "a remote guest's console log came home through the connection" \
	grep -q "Linux version" "results/runs/$there_run/console.log"
check "the remote pool holds the kernel, initrd and disk by their SHA-256, and no run's volume" \
	bash -c "ls '$remote/pool' | grep -qE '^[0-9a-f]{64}\.kernel$' &&
		ls '$remote/pool' | grep -qE '^[0-9a-f]{64}\.initrd$' &&
		ls '$remote/pool' | grep -qE '^[0-9a-f]{64}\.disk$' &&
		! ls '$remote/pool' | grep -qE '\.(qcow2|console)$'"
kernel=$(ls "$remote/pool" | grep -E '\.kernel$')
check "a volume's name is its content's hash" \
	[ "$(sha256sum < "$remote/pool/$kernel" | cut -c1-64)" = "${kernel%.kernel}" ]
uploads=$(grep -c "host there: uploaded" daemon.log)
check "each file was uploaded once ($uploads uploads)" [ "$uploads" -eq 3 ]
"$harness" compare --by-host spread mglru classic > byhost.out 2>&1
check "compare --by-host adds each host's verdict of the cell, over its own 2 blocks" \
	explain "cat byhost.out" \
	bash -c "grep -qE '^rand +ops/s +4 ' byhost.out && grep -qE '^rand @here +ops/s +2 ' byhost.out &&
		grep -qE '^rand @there +ops/s +2 ' byhost.out"
"$harness" hosts > hosts.out 2>&1
check "harness hosts lists both, up, with their runs (and the host's failures, retried)" \
	explain "cat hosts.out" bash -c "grep -qE '^here +up .* 8 +$(retried_on spread here) ' hosts.out &&
		grep -qE '^there +up .* 8 +$(retried_on spread there) ' hosts.out"

"$harness" status spread > status.out 2>&1
check "status says what each host did of the matrix" explain "cat status.out" \
	grep -qE "^on here: $(did_on spread here); on there: $(did_on spread there)\$" status.out

# a volume is trusted by its hash, not its name: one byte of the kernel's changed
# behind the daemon's back, and the next daemon finds it out and uploads it again
kill "$dpid" && wait "$dpid"
printf 'X' | dd of="$remote/pool/$kernel" bs=1 seek=4096 conv=notrunc status=none
start_daemon || not_ok "harnessd starts again"

# --- 2. the second host dies mid-block: the block runs again whole on the first ---
"$harness" submit lose.json > /dev/null 2>&1
check "a run on the second host is under way" wait_sql 300 "SELECT COUNT(*) FROM runs r
	WHERE r.host = 'there' AND r.status = 'running' AND r.matrix_id =
	(SELECT id FROM matrices WHERE name = 'lose') AND
	(SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) >= 2"
t_kill=$(date +%s.%N)
kill_remote
check "its block's runs end interrupted, as the host's loss" wait_sql 60 "SELECT COUNT(*) FROM runs
	WHERE host = 'there' AND status = 'interrupted' AND reason LIKE 'host there lost during its block%'"
"$harness" hosts > hosts2.out 2>&1
check "harness hosts says the host is down and why" explain "cat hosts2.out" \
	grep -qE '^there +down .*: libvirt: ' hosts2.out
lost="SELECT cell_id || '/' || block FROM runs WHERE host = 'there' AND status = 'interrupted'
	AND reason LIKE 'host there lost%'"
check "the changed kernel volume was found out by its hash and uploaded again" \
	bash -c "grep -q 'volume ${kernel} is not what its name says: made again' daemon.log &&
		[ \"\$(sha256sum < '$remote/pool/$kernel' | cut -c1-64)\" = '${kernel%.kernel}' ]"
check "the lost block starts again, whole, on the first host" wait_sql 120 "SELECT COUNT(*) FROM
	runs WHERE host = 'here' AND status IN ('running', 'done') AND cell_id || '/' || block = ($lost)
	AND position = 0 AND attempt > 0"
t_restart=$(date +%s.%N)
check "the second daemon comes back" start_remote
check "the matrix finishes" wait_finished lose 600
check "the host came back and took blocks again" \
	[ "$(q "SELECT COUNT(*) FROM runs WHERE host = 'there' AND status = 'done' AND matrix_id =
		(SELECT id FROM matrices WHERE name = 'lose') AND started_at > (SELECT MAX(finished_at)
		FROM runs WHERE status = 'interrupted' AND host = 'there')")" -ge 1 ]
check "16 runs done, each seq once, no block mixing hosts" \
	[ "$(q "SELECT COUNT(*) || ' ' || COUNT(DISTINCT r.seq) FROM runs r JOIN matrices m ON
		m.id = r.matrix_id WHERE m.name = 'lose' AND r.status = 'done'")" = "16 16" -a \
	"$(mixed lose)" = 0 ]
check "the lost block's 4 runs done on the first host, none paired with the second's" \
	[ "$(q "SELECT COUNT(*) || ' ' || GROUP_CONCAT(DISTINCT host) FROM runs WHERE status = 'done'
		AND cell_id || '/' || block = ($lost)")" = "4 here" ]
check "0 samples lost: every done run has every interval it counted" \
	[ "$(q "SELECT COUNT(*) FROM runs r WHERE r.status = 'done' AND r.samples !=
		(SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id)")" = 0 ]
check "no run was left booting or running" \
	[ "$(q "SELECT COUNT(*) FROM runs WHERE status IN ('booting', 'running', 'queued')")" = 0 ]
# the figures RELIABILITY.md quotes: how soon the loss was seen, the block restarted, the host back
at() { date -d "$(grep -m1 "$1" daemon.log | cut -d' ' -f1)" +%s; }
echo "# host-loss: runs re-queued $(q "SELECT COUNT(*) FROM runs WHERE reason LIKE 'host there lost%'");" \
	"loss logged $(awk "BEGIN { printf \"%.0f\", $(at 'host there lost during') - $t_kill }") s after the kill" \
	"(1 s clock); back $(awk "BEGIN { printf \"%.0f\", $(at 'host there: back') - $t_restart }") s after" \
	"its daemon restarted"

# --- 2b. (make test-long: HOSTS_SILENT=1) the host falls silent, no FIN: keepalive's to see ---
if [ -n "${HOSTS_SILENT:-}" ]; then
	matrix silent 4 3 > silent.json
	"$harness" submit silent.json > /dev/null 2>&1
	check "silent: a run on the second host is under way" wait_sql 300 "SELECT COUNT(*) FROM runs r
		WHERE r.host = 'there' AND r.status = 'running' AND r.matrix_id =
		(SELECT id FROM matrices WHERE name = 'silent') AND
		(SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) >= 2"
	t_stop=$(date +%s)
	kill -STOP "$rpid"
	check "silent: the stopped host is seen lost by keepalive, its block's runs interrupted" \
		wait_sql 90 "SELECT COUNT(*) FROM runs WHERE host = 'there' AND status = 'interrupted'
		AND matrix_id = (SELECT id FROM matrices WHERE name = 'silent')"
	echo "# host-silent: loss seen $(( $(date +%s) - t_stop )) s after SIGSTOP (keepalive 5 s x 3)"
	kill -CONT "$rpid"
	check "silent: the matrix finishes, no block mixing hosts" wait_finished silent 400 &&
		[ "$(mixed silent)" = 0 ]
	check "silent: the guest left running there was destroyed when the host answered" \
		bash -c "! pgrep -u nobody -f qemu-system > /dev/null || sleep 5; ! pgrep -u nobody -f 'harness-.*-run-' > /dev/null"
fi

# --- 3. drain: the host finishes what it has and takes nothing new ---
check "harness host drain there" "$harness" host drain there
matrix drained 2 1 > drained.json
"$harness" submit drained.json > /dev/null 2>&1
check "a drained host takes no block: all of them run here" wait_finished drained 300
check "... none on the drained host" [ "$(done_on drained there)" = 0 -a "$(done_on drained here)" = 4 ]
check "a host name not in harness.conf is refused in one line" \
	bash -c "! '$harness' host drain nosuch 2> drain.err && [ \$(wc -l < drain.err) = 1 ] &&
		grep -q \"no host 'nosuch'\" drain.err"

# --- 4. saved guests on the second host: made and kept there, never copied here ---
# harness run on a results directory of its own whose one host is the second:
# 2 blocks, 2 saves (one a block), each made by its block's first run
ls "$remote/pool" | grep -E '^save-' | sort > "$work/saves-before.txt"
mkdir "$work/rs" && cd "$work/rs" || exit 1
sed -e 's/^start = .*/start = restore/' -e '/^host = /d' -e '/^saves/d' "$work/harness.conf" > harness.conf
printf 'host = there %s slots=1 storage=%s/pool\nsaves = 2\n' "$uri" "$remote" >> harness.conf
matrix saved 4 1 > saved.json
rq() { sqlite3 "$work/rs/results/harness.db" "$1"; }
"$harness" run saved.json > run1.out 2>&1
check "restore on the second host: 8 runs done there (exit $?)" explain "tail -5 run1.out" \
	[ "$(rq "SELECT COUNT(*) FROM runs WHERE status = 'done' AND host = 'there'")" = 8 ]
check "each block's first run made its save, the other 6 restored one" \
	[ "$(rq "SELECT group_concat(start || ':' || n) FROM (SELECT start, COUNT(*) n FROM runs
		WHERE status = 'done' GROUP BY start ORDER BY start)")" = "restore:6,save:2" ]
"$harness" phases saved > phases.out 2>&1
check "harness phases: the restored runs there have restore, not firmware" explain "cat phases.out" \
	[ "$(awk '$3 == "restore" && $6 == "-" && $11 ~ /^[0-9]+$/' phases.out | wc -l)" = 6 ]
# this matrix's save volumes there: the pool's but the daemon's (listed before it ran)
ours() { ls "$remote/pool" | grep -E "^save-[0-9a-f]{64}\.$1\$" | sort | comm -13 "$work/saves-before.txt" -; }
vols() { ours "$1" | wc -l; }
check "the second host's pool holds the 2 saves: their state and disk volumes" \
	[ "$(vols state) $(vols qcow2)" = "2 2" ]
if command -v virsh > /dev/null; then
	virsh -c "$uri" vol-list mglru-harness > vol-list.out 2>&1
	check "... as volumes libvirt there lists" explain "cat vol-list.out" \
		bash -c "for v in \$(ls '$remote/pool' | grep -E '^save-' | sort | comm -13 '$work/saves-before.txt' -); do
			grep -q \" \$v \" vol-list.out || exit 1; done"
fi
check "nothing of them was copied here: the cache keeps their hello and host only" \
	bash -c "[ -z \"\$(find results/cache/saves -name state -o -name 'disk.qcow2')\" ] &&
		[ \"\$(cat results/cache/saves/*/host | cut -d' ' -f1 | sort -u)\" = there ]"
check "no run's own volume is left there" bash -c "! ls '$remote/pool' | grep -qE '^harness-'"
save_run=$(rq "SELECT id FROM runs WHERE start = 'save' AND status = 'done' LIMIT 1")
check "a save run's console came home whole: its boot, then its restore" \
	grep -q "Linux version" "results/runs/$save_run/console.log"
check "every restored guest drew its own random bytes" \
	[ "$(rq "SELECT COUNT(DISTINCT rng) FROM runs WHERE status = 'done'")" = 8 ]
# a second matrix, its cap 64 MiB (the least, under one save): its block
# restores save 0, made by the first matrix (done: the queue holds it no
# longer); save 1 is pruned there
sed -i '/^saves_max_mib/d' harness.conf && printf 'saves_max_mib = 64\n' >> harness.conf
matrix again 2 1 > again.json
"$harness" run again.json > run2.out 2>&1
check "another matrix restores the saves kept there: 4 runs, no save made (exit $?)" \
	explain "tail -5 run2.out" [ "$(rq "SELECT group_concat(DISTINCT start) || ':' || COUNT(*) FROM runs r
		JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'again' AND r.status = 'done'")" = "restore:4" ]
check "over its cap, the save not in use was pruned there and here" \
	[ "$(vols state) $(vols qcow2) $(ls -d results/cache/saves/*/ | wc -l)" = "1 1 1" ]
cd "$work" || exit 1

e2e_end
