#!/usr/bin/env bash
# run.sh -- run libFuzzer targets for a bounded time each and report, per target,
# executions and crashes; exit 1 if any target crashed. Used by `make fuzz` and
# tests/e2e_fuzz.sh. usage: fuzz/run.sh SECONDS fuzz/build/fuzz_NAME...
# Seeds come from fuzz/corpus/NAME (read only); new inputs go to
# fuzz/build/corpus/NAME, crash inputs to fuzz/build/artifacts/NAME/.
set -u

secs=${1:?seconds per target}
shift
total_exec=0 total_crash=0

# Longest input per target: a little over what each parser accepts at most
# where that is small, else enough for every seed.
max_len() {
	case $1 in
	conf)    echo 8192 ;;     # lines are at most PATH_MAX + 62 bytes
	proto)   echo 17000 ;;    # PROTO_LINE_MAX is 16384
	channel) echo 40000 ;;    # a few lines, one over-long
	fioargs) echo 8192 ;;     # FIOARGS_TEXT_MAX is 4096
	fiostat) echo 32768 ;;    # two or three of fio's json+ documents
	*)       echo 16384 ;;    # matrices and HTTP requests
	esac
}

for bin in "$@"; do
	name=$(basename "$bin")
	t=${name#fuzz_}
	work=fuzz/build/corpus/$t art=fuzz/build/artifacts/$t/ log=fuzz/build/log/$t.log
	mkdir -p "$work" "$art" "$(dirname "$log")"
	rm -f "$art"*
	dict=()
	[ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
	# -close_fd_mask=2: the parsers' own messages on stderr stay out of the
	# log; sanitizer reports still reach it
	nice -n 19 "$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" -timeout=30 \
		-rss_limit_mb=4096 -print_final_stats=1 -close_fd_mask=2 "${dict[@]}" \
		-artifact_prefix="$art" "$work" "fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	crashes=$(find "$art" -type f | wc -l)
	[ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
	printf '%s: %s executions, %s crashes, corpus %s inputs (log %s)\n' "$name" \
		"${execs:-0}" "$crashes" "$(ls "$work" | wc -l)" "$log"
	[ "$crashes" -ne 0 ] && find "$art" -type f -printf '  crash input: %p\n'
	total_exec=$((total_exec + ${execs:-0}))
	total_crash=$((total_crash + crashes))
done
echo "fuzz: $# targets, $total_exec executions, $total_crash crashes"
[ "$total_crash" -eq 0 ]
