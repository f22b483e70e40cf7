#!/usr/bin/env bash
# lint.sh -- rules the compiler does not check, for the code threads share
# (harness/, guest/): no function-static variables but constant tables and
# __thread ones, no libc calls that keep static state. `make lint`, and
# `make test` before the tests. Prints each offence; exit 1 if there is any.
set -u
cd "$(dirname "$0")/.." || exit 1
bad=0

# a static declared inside a function body is indented; file scope is not
if grep -nE '^[[:space:]]+static[[:space:]]' harness/*.c guest/*.c |
	grep -vE 'static[[:space:]]+(const|__thread)[[:space:]]'; then
	echo "lint: function-static variables above: API connections and slots would share them" \
		"(use the caller's buffer or the heap)"
	bad=1
fi
# the _r forms (strtok_r, gmtime_r, getpwnam_r, ...) keep their state in the caller's hands
if grep -nE '\b(strtok|localtime|gmtime|ctime|asctime|getpwnam|getpwuid|getgrnam|getgrgid|rand|strsignal|inet_ntoa|gethostbyname|ttyname|getlogin|ptsname)[[:space:]]*\(' \
	harness/*.c guest/*.c; then
	echo "lint: libc calls with static state above: use their _r forms"
	bad=1
fi
[ "$bad" -eq 0 ] && echo "lint: ok"
exit "$bad"
