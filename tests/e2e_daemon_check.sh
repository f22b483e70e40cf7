#!/usr/bin/env bash
# e2e_daemon_check.sh -- `harnessd -n` refuses what the daemon would refuse
# (api_tcp, api_group, api_socket, a short api_token) with one line naming the
# file, and says "configuration OK" only for a configuration it would serve.
# No guest boots. usage: tests/e2e_daemon_check.sh HARNESS HARNESSD
set -u

. "$(dirname "$0")/testlib.sh" daemon-check "$@"
cd "$work" || exit 1

token=0123456789abcdef0123456789abcdef
tcp() { printf 'api_tcp = %s\napi_token = %s\nkernel_dirs = %s\nsource_dirs = %s\n' "$1" "$token" "$work" "$work"; }

# accepted LINE...: -n on e2e_conf plus the lines says configuration OK
accepted() {
	e2e_conf "$@"
	[ "$("$harnessd" -c harness.conf -n 2>&1)" = "configuration OK" ]
}

# refused WANT LINE...: -n exits 1 with one line, naming harness.conf, that has WANT
refused() {
	local want=$1 out rc
	shift
	e2e_conf "$@"
	out=$("$harnessd" -c harness.conf -n 2>&1)
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(grep -c . <<< "$out")" -eq 1 ] &&
		grep -q "^harnessd: harness.conf" <<< "$out" && grep -qF -- "$want" <<< "$out"
}

long=$work/$(printf 'd%.0s' $(seq 110))/h.sock
check "a good configuration with TCP" accepted "$(tcp 127.0.0.1:0)"
check "api_group of a group that exists" accepted "api_group = root"
check "api_tcp without a port" refused "expected HOST:PORT" "$(tcp 127.0.0.1)"
check "api_tcp port out of range" refused "expected HOST:PORT" "$(tcp 127.0.0.1:70000)"
check "api_tcp on an address not of this host" refused "Cannot assign requested address" \
	"$(tcp 192.0.2.1:8700)"
check "api_group unknown" refused "api_group 'no-such-group-e2e': no such group" \
	"api_group = no-such-group-e2e"
check "api_socket in a missing directory" refused "No such file or directory" \
	"api_socket = $work/missing/h.sock"
check "api_socket too long for sun_path" refused "longer than 107 bytes" "api_socket = $long"
check "api_socket an existing file" refused "exists and is not a socket" \
	"api_socket = $work/harness.conf"
# a bad line is said once, by harnessd (#27: conf_load printed it too)
e2e_conf "api_token = x"
check "api_token of one character" bash -c '! "$1" -c harness.conf -n 2>&1 |
	grep -q "configuration OK" && "$1" -c harness.conf -n 2>&1 | tail -n1 |
	grep -q "^harnessd: harness.conf:[0-9]*: .api_token.: expected at least 32 characters, got 1$" &&
	[ "$("$1" -c harness.conf -n 2>&1 | grep -c api_token)" = 1 ]' \
	_ "$harnessd"

e2e_end
