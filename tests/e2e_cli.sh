#!/usr/bin/env bash
# e2e_cli.sh -- the CLI against hostile files, no guest booted: control bytes
# from a matrix come out escaped on one line, FIFOs are refused at once, and
# a results directory it creates is private.
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

e2e_end
