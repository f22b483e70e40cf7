#!/usr/bin/env bash
# e2e_daemon.sh -- the overnight story on real parts: a real harnessd, real
# guests, the CLI; kill -9 mid-run and restart; nothing lost, nothing twice.
# usage: tests/e2e_daemon.sh HARNESS HARNESSD   (images must be built)
set -u

. "$(dirname "$0")/testlib.sh" daemon "$@"
dpid= hpid=
cleanup() {
	[ -n "$dpid" ] && kill -9 "$dpid" 2>/dev/null
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

cd "$work" || exit 1
hookport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
e2e_conf "webhook = http://127.0.0.1:$hookport/hook"

# A webhook receiver on loopback: one JSON document per line in hooks.log.
cat > hook.py <<'EOF'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        with open("hooks.log", "ab") as f:
            f.write(self.rfile.read(n) + b"\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
python3 hook.py "$hookport" & hpid=$!


check "configuration OK (-n)" bash -c '"$1" -c harness.conf -n | grep -qx "configuration OK"' _ "$harnessd"
check "daemon starts and answers" start_daemon
check "API socket is mode 0600" [ "$(stat -c %a results/harnessd.sock)" = 600 ]
check "malformed JSON is a 400 with a reason" bash -c \
	'r=$(curl -s -w "\n%{http_code}" --unix-socket results/harnessd.sock -X POST \
	   -d "{\"spec\": {" http://localhost/matrices); [ "$(tail -n1 <<< "$r")" = 400 ] &&
	 head -n1 <<< "$r" | grep -q "\"error\""'

cat > night.json <<'EOF'
{
  "name": "night", "reps": 2,
  "arms": [ { "name": "mglru", "kernel": "6.12", "lru_gen": "y" },
            { "name": "classic", "kernel": "6.12", "lru_gen": "n" } ],
  "workloads": [
    { "name": "zipf", "memcg_mib": 32, "duration_s": 8,
      "files": [ { "name": "data", "mib": 48 } ],
      "streams": [ { "kind": "random", "file": "data", "distribution": "zipf",
                     "theta": 1.1, "threads": 2 } ] }
  ]
}
EOF
"$harness" submit night.json > submit.out 2>&1
check "submit through the CLI" grep -q "4 runs queued" submit.out
check "and the daemon says this host has no calibration of its cell" \
	grep -q "^no calibration on $(hostname) for 1 of 1 cells (zipf): harness calibrate of the matrix file" submit.out

# Wait until the second run has committed a few samples, then kill -9 the daemon.
for _ in $(seq 300); do
	n=$(q "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.seq = 1 AND r.status = 'running'" 2>/dev/null)
	[ "${n:-0}" -ge 3 ] && break
	sleep 0.2
done

# A second harnessd, or harness run, on the live directory exits with one line
# and changes nothing. SIGSTOP keeps the live daemon's own run in flight still
# meanwhile; no guest boots for this.
kill -STOP "$dpid"
dump() { q "SELECT * FROM runs ORDER BY id"; q "SELECT id, state, reps FROM matrices ORDER BY id"; }
held=$(dump)
refused() { # refused OUT ERR RC: non-zero, one line naming the directory and the live daemon
	[ "$3" -ne 0 ] && [ ! -s "$1" ] && [ "$(wc -l < "$2")" = 1 ] &&
		grep -qF "$work/results is in use by harnessd (pid $dpid holds $work/results/harness.lock)" "$2"
}
"$harnessd" -c harness.conf > second.out 2> second.err; rc=$?
check "a second harnessd exits non-zero with one line naming the directory and pid" refused second.out second.err "$rc"
check "... and changes no run or matrix (run in flight: $(q "SELECT group_concat(id) FROM runs WHERE status IN ('booting', 'running')"))" [ "$(dump)" = "$held" ]
"$harness" -c harness.conf run night.json > cli.out 2> cli.err; rc=$?
check "harness run against it exits non-zero with one line" refused cli.out cli.err "$rc"
check "... and changes no run or matrix" [ "$(dump)" = "$held" ]
for f in second.err cli.err; do sed "s/^/$f: /" "$f"; done

kill -9 "$dpid"; wait "$dpid" 2>/dev/null; dpid=
before=$(q "SELECT COUNT(*) FROM samples")
inflight=$(q "SELECT id FROM runs WHERE status IN ('booting', 'running')")
check "killed while a run was in flight (run $inflight)" [ -n "$inflight" ]
# the guest of a kill -9'd daemon's embedded libvirt dies with it
sleep 1

check "daemon restarts" start_daemon
for _ in $(seq 600); do
	s=$("$harness" --json status night 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null)
	[ "$s" = finished ] && break
	sleep 0.5
done
check "the matrix finishes after the restart" [ "$s" = finished ]
check "the interrupted run is kept, marked interrupted" [ "$(q "SELECT status FROM runs WHERE id = ${inflight:-0}")" = interrupted ]
check "no committed sample lost ($before before the restart)" [ "$(q "SELECT COUNT(*) FROM samples WHERE run_id <= ${inflight:-0}")" -ge "$before" ]
check "every run done exactly once" [ "$(q "SELECT COUNT(*) || ' ' || COUNT(DISTINCT seq) FROM runs WHERE status = 'done'")" = "4 4" ]
check "the re-run is a fresh attempt of the same slot in the block" [ "$(q "SELECT COUNT(*) FROM runs WHERE retry_of = ${inflight:-0} AND attempt = 1 AND status = 'done'")" = 1 ]
check "interrupted samples never reach a summary" [ "$(q "SELECT COUNT(*) FROM run_summary WHERE run_id = ${inflight:-0}")" = 0 ]
check "database integrity ok" [ "$(q "PRAGMA integrity_check")" = ok ]
check "status shows progress and an ETA" bash -c '"$1" status night | grep -q "4/4"' _ "$harness"
"$harness" --json status nosuch > nosuch.json 2> nosuch.err; rc=$?
check "--json status of an unknown matrix: exit 1, the daemon's JSON error, no empty 'harness:' line" \
	bash -c '[ "$1" = 1 ] && grep -q "\"error\"" nosuch.json && [ ! -s nosuch.err ]' _ "$rc"
check "webhook told the matrix finished" bash -c 'grep -q "\"matrix_finished\"" hooks.log'
# libvirt daemonizes QEMU; harnessd, its subreaper, reaps each as it exits
check "no QEMU left as a zombie of harnessd" bash -c '! ps -o stat=,comm= --ppid "$1" | grep -q "^Z"' _ "$dpid"
"$harness" --json phases night > phases.json
check "harness phases: the runs' gaps between a run's end and the next domain's start" \
	python3 -c 'import json,sys; g=[r["gap_ms"] for r in json.load(open("phases.json"))["runs"]]; k=[x for x in g if x >= 0]; sys.exit(not (len(k) >= 3 and min(k) < 5000))'

# harness watch of a run that ended: its header, every interval, then how it ended
wrun=$(q "SELECT MIN(id) FROM runs WHERE status = 'done'")
wn=$(q "SELECT COUNT(*) FROM samples WHERE run_id = ${wrun:-0}")
timeout 60 "$harness" watch "$wrun" > watch.out 2> watch.err
rc=$?
check "harness watch $wrun replays the run: its header, its $wn intervals, 'done' (exit $rc)" \
	bash -c "[ $rc -eq 0 ] && head -1 watch.out | grep -q '^run $wrun: ' &&
		 grep -qE '^ +t .* refault/s ' watch.out &&
		 [ \$(grep -cE '^ +[0-9]+(\.[0-9])? ' watch.out) -eq $wn ] && [ $wn -gt 0 ] &&
		 [ \"\$(tail -1 watch.out)\" = 'run $wrun: done' ]"
# its closing figures: analysis/summary.c's over the intervals it was sent,
# the very function that wrote the run's summary row (to their printed digits)
check "harness watch's measured figures are the stored summary's" \
	explain "grep ^measured watch.out" python3 -c 'import re, sys
m = re.search(r"^measured ([\d.]+) s: ops/s (\d+), refault/s (\d+), majflt/s (\d+),",
              open(sys.argv[1]).read(), re.M)
db = [float(x or "nan") for x in sys.argv[2].split("|")]
seen = [float(x) for x in m.groups()] if m else []
sys.exit(not (seen and abs(seen[0] - db[0]) <= 0.051 and
              all(abs(a - b) <= 0.501 for a, b in zip(seen[1:], db[1:]))))' watch.out \
	"$(q "SELECT seconds, ops_per_s, refault_per_s, majflt_per_s FROM run_summary WHERE run_id = ${wrun:-0}")"
timeout 60 "$harness" --json watch "$wrun" > watch.json 2>&1
check "harness --json watch: every line a JSON object, the last one finished" \
	python3 -c 'import json, sys; l = [json.loads(x) for x in open(sys.argv[1]) if x.strip()]
sys.exit(not (l and all(isinstance(o, dict) for o in l) and l[-1].get("finished") is True))' watch.json
timeout 60 "$harness" watch 999999 > /dev/null 2> watch-none.err
rc=$?
check "harness watch of no such run: one line, exit 1 ($rc)" \
	bash -c "[ $rc -eq 1 ] && [ \$(wc -l < watch-none.err) = 1 ] && grep -q '^harness: ' watch-none.err"

# More reps of the same matrix append blocks instead of duplicating it.
sed 's/"reps": 2/"reps": 3/' night.json > night3.json
check "more reps append to the matrix" bash -c '"$1" submit night3.json | grep -q "2 runs appended"' _ "$harness"
check "still one matrix called night" [ "$(q "SELECT COUNT(*) FROM matrices WHERE name = 'night'")" = 1 ]
"$harness" cancel night > /dev/null

# Twenty submissions at once: each queued exactly once.
for i in $(seq 20); do
	sed "s/\"name\": \"night\"/\"name\": \"burst$i\"/" night.json > "burst$i.json"
done
"$harness" pause night > /dev/null 2>&1
subs=()
for i in $(seq 20); do "$harness" submit "burst$i.json" > "burst$i.out" 2>&1 & subs+=($!); done
wait "${subs[@]}"
# README's pause|resume|cancel: each a matrix's state, as the database keeps it
st() { q "SELECT state FROM matrices WHERE name = 'burst1'"; }
"$harness" pause burst1 > pause.out 2>&1
s1=$(st)
"$harness" resume burst1 > resume.out 2>&1
s2=$(st)
"$harness" cancel burst1 > cancel.out 2>&1
check "pause, resume, cancel burst1: paused, active, cancelled ($s1 $s2 $(st))" \
	[ "$s1 $s2 $(st)" = "paused active cancelled" ]
for i in $(seq 2 20); do "$harness" cancel "burst$i" > /dev/null 2>&1; done
check "20 concurrent submissions, each queued exactly once" [ "$(q "SELECT COUNT(DISTINCT name) || ' ' || COUNT(*) FROM matrices WHERE name LIKE 'burst%'")" = "20 20" ]

# A kernel from a URL with a wrong sha256 leaves the matrix unresolved, both hashes shown.
mkdir -p www && cp "$repo/images/out/x86_64/kernel/6.12/vmlinuz" www/bzImage
wport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$wport" --directory www > /dev/null 2>&1 & wpid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$wport/" && break; sleep 0.1; done
good=$(sha256sum www/bzImage | cut -d' ' -f1)
bad=0000000000000000000000000000000000000000000000000000000000000000
sed "s|\"kernel\": \"6.12\", \"lru_gen\": \"y\"|\"url\": \"http://127.0.0.1:$wport/bzImage\", \"sha256\": \"$bad\", \"lru_gen\": \"y\"|; s/\"name\": \"night\"/\"name\": \"urlarm\"/" night.json > url.json
# The submit returns at once; the daemon resolves the matrix in the background.
"$harness" submit url.json > url.out 2> url.err
check "a submit returns at once, its kernels resolving" grep -q "4 runs queued; the daemon resolves" url.out
# Sent again with --wait (resolved again): the one-line reason, with both hashes.
"$harness" submit --wait url.json > url.out 2> url.err
check "URL arm with a wrong sha256 refused with both hashes" bash -c \
	'grep -q "$1" url.err && grep -q "$2" url.err && grep -q "url.json: arms\[0\].url: " url.err' _ "$bad" "$good"
check "status shows it unresolved, naming the field" bash -c \
	'"$1" status | grep -q "unresolved" && "$1" status urlarm | grep -q "^unresolved: arms\[0\].url: .*sha256 mismatch"' _ "$harness"
check "no run of the unresolved matrix started" \
	[ "$(q "SELECT COUNT(*) FROM runs r JOIN matrices m ON m.id = r.matrix_id WHERE m.name = 'urlarm' AND r.status != 'queued'")" = 0 ]
kill "$wpid" 2>/dev/null

kill -TERM "$dpid"; wait "$dpid" 2>/dev/null; dpid=
check "SIGTERM stops the daemon cleanly" bash -c 'grep -q "stopped" daemon.log'

e2e_end
