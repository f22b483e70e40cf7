#!/usr/bin/env bash
# e2e_cli.sh -- the CLI against hostile files, no guest booted: control bytes
# from a matrix come out escaped on one line, FIFOs are refused at once, and
# a results directory it creates is private; the usage text and harness help
# come from the command table and docs/.
# usage: tests/e2e_cli.sh HARNESS_BINARY
set -u

. "$(dirname "$0")/testlib.sh" cli "$@"

e2e_conf
cd "$work" || exit 1

# a name with an ESC sequence and a newline (JSON escapes in the file, raw bytes once parsed)
cat > esc.json <<'EOF2'
{ "name": "q\u001b[31mred\nnext", "reps": 1,
  "arms": [ { "name": "a", "kernel": "6.12" } ],
  "workloads": [ { "name": "w", "files": [ { "name": "d", "mib": 8 } ],
                   "streams": [ { "kind": "random", "file": "d" } ] } ] }
EOF2
"$harness" check esc.json > check.out 2> check.err
rc=$?
check "check refuses the name (exit $rc)" [ "$rc" -eq 1 ]
check "one line on stderr" [ "$(wc -l < check.err)" = 1 ]
check "no control byte reaches the terminal" bash -c "! LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' < check.err)"
check "ESC and the newline escaped as JSON writes them" \
	grep -qF "got 'q\\u001b[31mred\\nnext'" check.err

# FIFOs with no writer: an open without O_NONBLOCK would block for ever (timeout: 20 s)
mkfifo fifo.json fifo.conf
timeout 20 "$harness" check fifo.json 2> fifo1.err
rc=$?
check "a FIFO as the matrix is refused at once (exit $rc)" \
	bash -c "[ $rc -eq 1 ] && [ \"\$(wc -l < fifo1.err)\" = 1 ] && grep -q 'fifo.json: not a regular file' fifo1.err"
timeout 20 "$harness" -c fifo.conf check esc.json 2> fifo2.err
rc=$?
check "a FIFO as harness.conf is refused at once (exit $rc)" \
	bash -c "[ $rc -eq 1 ] && [ \"\$(wc -l < fifo2.err)\" = 1 ] && grep -q 'fifo.conf: not a regular file' fifo2.err"
timeout 20 "$harness" submit fifo.json 2> fifo3.err
rc=$?
check "a FIFO given to submit is refused before any daemon is asked (exit $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'fifo.json: not a regular file' fifo3.err"

# a fresh results directory, and the database a command creates in it
printf 'results = fresh/results\nimages = %s/images/out\n' "$repo" > fresh.conf
"$harness" -c fresh.conf table none > /dev/null 2>&1
check "a new results directory is 0700, its database 0600" \
	bash -c '[ "$(stat -c %a fresh/results fresh/results/harness.db | tr "\n" " ")" = "700 600 " ]'


# the usage text is made from the command table: every command in it, each one dispatched
"$harness" -h > usage.out 2>&1
for cmd in check run table compare extend calibrate bisect plot report lru vmstat phases probe help \
	submit status cancel pause resume watch hosts host; do
	grep -qE "^  $cmd( |$)" usage.out || not_ok "harness -h names '$cmd'"
done
check "harness -h names every command, the daemon's after their heading" \
	bash -c 'grep -n "^through the daemon" usage.out | grep -q . && [ "$(grep -cE "^  [a-z]+( |$)" usage.out)" = 22 ]'
"$harness" frobnicate > /dev/null 2> unknown.err
rc=$?
check "an unknown command: usage on stderr, exit 1 ($rc)" bash -c "[ $rc -eq 1 ] && grep -q '^usage: harness' unknown.err"
"$harness" host drain > /dev/null 2> host.err
rc=$?
check "a command's wrong argument count: its own usage line, exit 1 ($rc)" \
	bash -c "[ $rc -eq 1 ] && [ \"\$(cat host.err)\" = 'usage: harness [--json] host drain|resume NAME' ]"

# harness help TOPIC prints docs/TOPIC.md as the file holds it; harness help lists them all
"$harness" help > help.out 2>&1
for page in "$repo"/docs/*.md; do
	t=$(basename "$page" .md)
	"$harness" help "$t" | cmp -s - "$page" || not_ok "harness help $t is docs/$t.md"
	grep -qE "^  $t " help.out || not_ok "harness help lists $t"
done
check "harness help: every page of docs/ built in, byte for byte, and listed" \
	[ "$(grep -cE '^  [a-z0-9-]+ ' help.out)" = "$(ls "$repo"/docs/*.md | wc -l)" ]
"$harness" help nosuch > /dev/null 2> help.err
rc=$?
check "harness help of no page: one line, exit 1 ($rc)" \
	bash -c "[ $rc -eq 1 ] && [ \"\$(wc -l < help.err)\" = 1 ] && grep -q \"no page 'nosuch'\" help.err"

e2e_end
