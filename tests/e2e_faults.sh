#!/usr/bin/env bash
# e2e_faults.sh -- the fault suite on real parts: kill -9 the daemon again and
# again, guests that panic, fall silent or send garbage, a full results disk,
# SIGTERM, QEMU killed on the host. Nothing committed is lost; every failure
# stays inside its run. usage: tests/e2e_faults.sh HARNESS HARNESSD
# FAULTS_KILLS (default 4: one round at each moment, 1, 2 and 3 samples into a
# run and at boot; `make faults` says 20): kill -9 rounds.
set -u

. "$(dirname "$0")/testlib.sh" faults "$@"
images=${FAULTS_IMAGES:-$repo/images/out}
kills=${FAULTS_KILLS:-4}
dpid= dconf=harness.conf
declare -A injected survived lost

# count KIND: one fault injected; survived when the checks that follow pass
count() { injected[$1]=$(( ${injected[$1]:-0} + 1 )); }
survive() { survived[$1]=$(( ${survived[$1]:-0} + 1 )); }
db() { echo "$work/${RES:-results}/harness.db"; }
q() { sqlite3 -cmd ".timeout 10000" "$(db)" "$1"; }
cleanup() {
	[ -n "$dpid" ] && kill -9 "$dpid" 2>/dev/null
	wait 2>/dev/null
	# guests a killed daemon left behind: only ours (their paths are in $work)
	pkill -9 -f "qemu-system.*$work/" 2>/dev/null
	mountpoint -q "$work/dbfs" && umount "$work/dbfs"
}
trap cleanup EXIT
cd "$work" || exit 1

write_conf() { # write_conf FILE RESULTS
	cat > "$1" <<EOF
results = $2
images = $images
presets = $repo/workloads/presets
memory_mib = 256
vcpus = 2
guests = 1
boot_timeout_s = 60
slack_s = 90
watchdog_intervals = 5
watchdog_min_s = 0
retries = 1
EOF
}
write_conf harness.conf results

start_daemon() {
	"$harnessd" -c "$dconf" 2>> "${RES:-results}.daemon.log" & dpid=$!
	for _ in $(seq 200); do
		"$harness" -c "$dconf" status > /dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
stop_daemon() { # stop_daemon SIGNAL
	kill "-$1" "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	dpid=
}
state_of() { # state_of MATRIX
	"$harness" -c "$dconf" --json status "$1" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null
}
wait_finished() { # wait_finished MATRIX SECONDS
	local s=
	for _ in $(seq $(($2 * 2))); do
		s=$(state_of "$1")
		[ "$s" = finished ] && return 0
		sleep 0.5
	done
	echo "# $1 still '$s' after $2 s" >&2
	return 1
}
# wait_sql SECONDS SQL: until the query prints something other than 0 or nothing
wait_sql() {
	local r
	for _ in $(seq $(($1 * 5))); do
		r=$(q "$2" 2>/dev/null)
		[ -n "$r" ] && [ "$r" != 0 ] && { echo "$r"; return 0; }
		sleep 0.2
	done
	return 1
}
# every committed sample as "run:seq", sorted (kept across kills to prove none is lost)
committed() { q "SELECT run_id || ':' || seq FROM samples" | sort; }
# missing FILE: how many samples listed in FILE are no longer committed
missing() { committed | comm -23 "$1" - | wc -l; }
# no_guests_of PID: the guests of daemon PID are gone (the next daemon destroys them)
no_guests_of() {
	for _ in $(seq 100); do
		pgrep -f "guest=harness-$1-" > /dev/null || return 0
		sleep 0.2
	done
	return 1
}
matrix() { # matrix NAME DURATION REPS ARMS_JSON
	cat > "$1.json" <<EOF
{ "name": "$1", "reps": $3, "memory_mib": 256, "vcpus": 2, "arms": $4,
  "workloads": [ { "name": "zipf", "memcg_mib": 16, "duration_s": $2,
    "files": [ { "name": "data", "mib": 24 } ],
    "streams": [ { "kind": "random", "file": "data", "distribution": "zipf",
                   "theta": 1.1, "threads": 1 } ] } ] }
EOF
	"$harness" -c "$dconf" submit "$1.json" > /dev/null
}
two_arms='[ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" },
            { "name": "classic", "kernel": "6.12", "lru_gen": "n" } ]'

# Every run of a matrix: its committed seqs against the "harness: sent sample
# seq=N" lines of its console. Prints one line per problem, nothing when fine:
# a committed sample the guest never sent, or a done run whose samples differ.
audit() { # audit MATRIX
	q "SELECT r.id, r.status, COALESCE(r.console_path, ''), COALESCE(r.samples, -1),
	   (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id),
	   COALESCE((SELECT group_concat(seq) FROM samples s WHERE s.run_id = r.id), '')
	   FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = '$1'" |
	python3 -c '
import re, sys
for row in sys.stdin:
    rid, status, console, summ, n, seqs = row.rstrip("\n").split("|")
    got = {int(x) for x in seqs.split(",") if x}
    try:
        text = open(console, errors="replace").read() if console else ""
    except OSError:
        text = ""
    sent = {int(x) for x in re.findall(r"harness: sent sample seq=(\d+)", text)}
    if got - sent:
        print("run %s (%s): committed seqs never sent: %s" % (rid, status, sorted(got - sent)[:5]))
    if status == "done" and (got != sent or int(summ) != len(got)):
        print("run %s done: %d committed, %d sent, summary says %s" % (rid, len(got), len(sent), summ))
'
}

check "daemon starts" start_daemon

# --- 1. kill -9, FAULTS_KILLS times, at different moments of a run ---
matrix kills 6 1 "$two_arms"
touch before.txt
for i in $(seq "$kills"); do
	# round i kills at boot (every 4th), else once the run has i % 4 samples
	want=$((i % 4))
	if [ "$want" -eq 0 ]; then
		wait_sql 300 "SELECT COUNT(*) FROM runs WHERE status = 'booting'" > /dev/null
	else
		wait_sql 300 "SELECT COUNT(*) FROM runs r WHERE r.status = 'running' AND
			(SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) >= $want" > /dev/null
	fi
	[ "$(state_of kills)" = finished ] && { echo "# kills finished before round $i"; break; }
	old=$dpid
	stop_daemon 9
	# what the killed daemon had in flight, as it left the database; a round
	# judged alone (a cumulative count made one miss fail every later round)
	inflight=$(q "SELECT group_concat(id) FROM runs WHERE status IN ('booting', 'running')")
	committed | sort -u - before.txt > before.new && mv before.new before.txt
	start_daemon || { not_ok "daemon restarts after kill -9 round $i"; break; }
	if [ -z "$inflight" ]; then
		echo "# round $i: the kill came between two runs (none in flight): not counted"
		continue
	fi
	count kill9
	# the restart destroyed the killed daemon's guest and re-queued its runs
	left=$(q "SELECT group_concat(id || ' ' || status) FROM runs WHERE id IN ($inflight)
		AND status != 'interrupted'")
	if [ -z "$left" ] && no_guests_of "$old"; then
		survive kill9
	else
		echo "# round $i: in flight $inflight; not interrupted: ${left:-none}; guests of $old: $(pgrep -fc "guest=harness-$old-")"
	fi
done
check "$kills kill -9 rounds (${injected[kill9]:-0} with a run in flight), each restart re-queued the run in flight" \
	[ "${survived[kill9]:-0}" -eq "${injected[kill9]:-0}" -a "${injected[kill9]:-0}" -ge $(( (kills + 1) / 2 )) ]
check "the kills matrix finishes" wait_finished kills 900
check "database integrity ok after the kills" [ "$(q "PRAGMA integrity_check")" = ok ]
lost[kill9]=$(missing before.txt)
check "no committed sample lost across the kills ($(wc -l < before.txt) checked)" [ "${lost[kill9]}" -eq 0 ]
check "every run done exactly once" [ "$(q "SELECT COUNT(*) || ' ' || COUNT(DISTINCT r.seq) FROM runs r
	JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'kills' AND r.status = 'done'")" = "2 2" ]
problems=$(audit kills)
check "samples in the database match the console's sent lines (done: equal; all: a subset)" \
	[ -z "$problems" ]
[ -n "$problems" ] && printf '# %s\n' "$problems"

# --- 2. guests that misbehave: one arm per fault, the matrix goes on ---
fault_arms='[ { "name": "ok", "kernel": "6.12" }'
for k in panic silence garbage badutf8 longline badjson counterflood; do
	# silence from the first sample: its 5 s watchdog then ends the run a second
	# before the 6 s workload's poweroff would (from 2 s in the two raced, and
	# a quick guest's "went away" won once)
	after=2; [ "$k" = silence ] && after=1
	fault_arms+=", { \"name\": \"$k\", \"kernel\": \"6.12\", \"cmdline\": \"harness.fault=$k harness.fault_after=$after\" }"
done
# not a failure: every counters message in parts of 2 keys (the agent's 64 a
# message would need a guest with over 64 counters to split a start or end)
fault_arms+=', { "name": "countersplit", "kernel": "6.12", "cmdline": "harness.fault=countersplit" } ]'
matrix faults 6 1 "$fault_arms"
check "the faults matrix finishes" wait_finished faults 900
run_of() { q "SELECT r.status || '|' || COALESCE(r.reason, '') FROM runs r JOIN arms a ON a.id = r.arm_id
	JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'faults' AND a.name = '$1' ORDER BY r.id DESC LIMIT 1"; }
api_ok() { "$harness" -c "$dconf" status > /dev/null 2>&1; }
fault_case() { # fault_case KIND STATUS REASON_PATTERN
	local got
	count "$1"
	lost[$1]=$faults_lost
	got=$(run_of "$1")
	if [[ $got == "$2|"* ]] && grep -qE "$3" <<< "${got#*|}" && api_ok; then
		survive "$1"; ok "$1: run $2 ($(cut -c1-90 <<< "${got#*|}"))"
	else
		not_ok "$1: expected $2 matching /$3/, got '$got'"
	fi
}
# a committed sample the guest never sent, or a done run short of what it sent
faults_lost=$(audit faults | wc -l)
fault_case panic crashed "kernel crashed"
check "panic: the excerpt is stored" bash -c '[ -n "$1" ]' _ "$(q "SELECT r.crash FROM runs r JOIN arms a ON a.id = r.arm_id
	JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'faults' AND a.name = 'panic' AND r.crash LIKE '%sysrq%'")"
fault_case silence timeout "no next sample"
fault_case garbage failed "bad message"
fault_case badutf8 failed "bad message"
fault_case longline failed "longer than"
fault_case badjson failed "bad message"
# 1280 new vmstat keys in 20 messages (the issue's flood): the budget named, none past it stored
fault_case counterflood failed "over budget: vmstat counter 'flood_[0-9]+' is over its budget of 512 vmstat keys"
fr=$(q "SELECT MAX(r.id) FROM runs r JOIN arms a ON a.id = r.arm_id JOIN matrices m ON m.id = r.matrix_id
	WHERE m.name = 'faults' AND a.name = 'counterflood'")
check "counterflood: at most 512 vmstat keys stored, no flood message past the budget" \
	[ "$(q "SELECT COUNT(DISTINCT key) <= 512 AND SUM(key LIKE 'flood!_%' ESCAPE '!') % 64 = 0
		FROM counters WHERE run_id = ${fr:-0} AND src = 'vmstat'")" = 1 ]
check "the arm without a fault is done" [ "$(run_of ok)" = "done|" ]
check "countersplit: the run whose counters came 2 keys a message is done" [ "$(run_of countersplit)" = "done|" ]
cr=$(q "SELECT MAX(r.id) FROM runs r JOIN arms a ON a.id = r.arm_id JOIN matrices m ON m.id = r.matrix_id
	WHERE m.name = 'faults' AND a.name = 'countersplit'")
# keys AT: the most keys one source sent at its start (-1) or end (-2)
keys() { q "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM counters WHERE run_id = ${cr:-0} AND seq = $1 GROUP BY src)"; }
check "countersplit: a source's start ($(keys -1) keys) and end ($(keys -2)) each took several messages" \
	[ "$(keys -1)" -gt 2 -a "$(keys -2)" -gt 2 ]
check "countersplit: each of over 10 counters' start plus its changes is its end" \
	[ "$(q "SELECT COUNT(*) > 10 AND SUM(COALESCE(t, 0) != COALESCE(e, 0)) = 0 FROM
		(SELECT SUM(CASE WHEN seq >= -1 THEN value END) AS t,
		 SUM(CASE WHEN seq = -2 THEN value END) AS e FROM counters
		 WHERE run_id = ${cr:-0} GROUP BY src, key)")" = 1 ]
check "status reports the crash" bash -c '"$1" -c harness.conf status faults | grep -q "1 crashed"' _ "$harness"
problems=$(audit faults)
check "faults: committed samples all sent, done run complete" [ -z "$problems" ]
[ -n "$problems" ] && printf '# %s\n' "$problems"

# --- 3. QEMU killed on the host mid-run: a failure of the harness's own, retried ---
matrix qkill 6 1 '[ { "name": "a", "kernel": "6.12" } ]'
qrun=$(wait_sql 300 "SELECT r.id FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'qkill'
	AND r.status = 'running' AND (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) >= 2")
count qemu-kill
committed > qkill-before.txt
pkill -9 -f "guest=harness-$dpid-run-${qrun:-0}[^0-9]"
check "qemu kill: run $qrun failed as the host's fault" bash -c '[[ $1 == failed\|*QEMU\ died* ]]' _ \
	"$(wait_sql 60 "SELECT status || '|' || reason FROM runs WHERE id = ${qrun:-0} AND status != 'running'")"
check "qemu kill: the retry is done, the matrix finishes" wait_finished qkill 600
lost[qemu-kill]=$(missing qkill-before.txt)
[ "$(q "SELECT COUNT(*) FROM runs WHERE retry_of = ${qrun:-0} AND status = 'done'")" = 1 ] && api_ok &&
	[ "${lost[qemu-kill]}" -eq 0 ] && survive qemu-kill
check "qemu kill: retried once, done" [ "${survived[qemu-kill]:-0}" = 1 ]

# --- 4. SIGTERM: guests destroyed, runs re-queued ---
matrix term 8 1 '[ { "name": "a", "kernel": "6.12" } ]'
trun=$(wait_sql 300 "SELECT r.id FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'term'
	AND r.status = 'running' AND (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) >= 2")
count sigterm
stop_daemon TERM
committed > term-before.txt
check "SIGTERM: no QEMU of ours left" bash -c '! pgrep -f "qemu-system.*$1/" > /dev/null' _ "$work"
check "SIGTERM: run $trun interrupted" [ "$(q "SELECT status FROM runs WHERE id = ${trun:-0}")" = interrupted ]
check "SIGTERM: its fresh attempt is queued" [ "$(q "SELECT status FROM runs WHERE retry_of = ${trun:-0}")" = queued ]
start_daemon
check "SIGTERM: after a restart the matrix finishes" wait_finished term 600 && survive sigterm
lost[sigterm]=$(missing term-before.txt)
check "SIGTERM: no committed sample lost" [ "${lost[sigterm]}" -eq 0 ]

# --- 5. the results disk full (the database on a small tmpfs) ---
stop_daemon TERM
RES=full
mkdir -p full dbfs && mount -t tmpfs -o size=8m tmpfs dbfs && ln -s "$work/dbfs/harness.db" full/harness.db
write_conf full.conf full
dconf=full.conf
check "full: daemon starts on a tmpfs database" start_daemon
matrix full 12 1 '[ { "name": "a", "kernel": "6.12" } ]'
frun=$(wait_sql 300 "SELECT r.id FROM runs r WHERE r.status = 'running' AND
	(SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id) >= 3")
count disk-full
# an empty WAL, then no free block: the next commit needs one
q "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
dd if=/dev/zero of=dbfs/fill bs=64k 2> /dev/null
committed > full-before.txt
for _ in $(seq 300); do grep -q "queue paused" full.daemon.log && break; sleep 0.2; done
line=$(grep "queue paused" full.daemon.log | head -n1)
check "full: one clear line in the log" bash -c '[[ $1 == *"database or disk is full"* ]]' _ "$line"
echo "# $line"
check "full: harness status says the queue is paused" bash -c \
	'"$1" -c full.conf status | grep -q "^queue paused: .*disk is full"' _ "$harness"
check "full: integrity ok while full" [ "$(q "PRAGMA integrity_check")" = ok ]
check "full: run $frun still in flight, not lost" [ "$(q "SELECT status FROM runs WHERE id = ${frun:-0}")" = running ]
rm -f dbfs/fill
for _ in $(seq 100); do grep -q "queue resumed" full.daemon.log && break; sleep 0.2; done
check "full: with room again the run is re-queued and the matrix finishes" wait_finished full 600
check "full: integrity ok after" [ "$(q "PRAGMA integrity_check")" = ok ]
lost[disk-full]=$(missing full-before.txt)
check "full: no committed sample lost ($(wc -l < full-before.txt) checked)" [ "${lost[disk-full]}" -eq 0 ]
[ "${lost[disk-full]}" -eq 0 ] && [ "$(q "SELECT status FROM runs WHERE id = ${frun:-0}")" = interrupted ] && survive disk-full
stop_daemon TERM
umount dbfs

{
	echo "# fault suite: FAULTS_KILLS=$kills"
	printf '# %-10s %8s %8s %12s\n' kind injected survived samples-lost
	for k in kill9 panic silence garbage badutf8 longline badjson counterflood qemu-kill sigterm \
		disk-full; do
		printf '# %-10s %8s %8s %12s\n' "$k" "${injected[$k]:-0}" "${survived[$k]:-0}" \
			"${lost[$k]:--}"
	done
} | tee faults-summary.txt

e2e_end
