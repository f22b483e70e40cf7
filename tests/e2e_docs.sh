#!/usr/bin/env bash
# e2e_docs.sh -- the examples of README.md and docs/ kept true, no guest
# booted (tests/docs_examples.py): matrices parse, commands and harness.conf
# keys exist, named files exist, links lead to a heading, `harness help`
# prints each page.
# usage: tests/e2e_docs.sh HARNESS_BINARY
set -u

. "$(dirname "$0")/testlib.sh" docs "$@"

e2e_conf
cd "$work" || exit 1
out=$(python3 "$repo/tests/docs_examples.py" "$harness" "$repo" "$work" 2>&1)
printf '%s\n' "$out"
pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok - ')))
fail=$((fail + $(printf '%s\n' "$out" | grep -c '^not ok - ')))
e2e_end
