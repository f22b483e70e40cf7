#!/usr/bin/env bash
# run.sh -- every test: the cmocka unit tests (built with ASan+UBSan), then the
# end-to-end tests in real guests. Ends with one "N passed, N failed" line for CI.
# usage: tests/run.sh HARNESS_BINARY UNIT_TEST_BINARY...
set -u

harness=${1:?harness binary}
shift
pass=0 fail=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# the unit binaries three at a time on two cores (each is single-threaded and
# most wait on sockets, git or children more than they compute: test_kbuild
# took 34 s of wall time for 21 s of CPU), their outputs and exit codes
# printed in order
units=$(mktemp -d /tmp/units.XXXXXX)
t0=$SECONDS
i=0
for t in "$@"; do
	i=$((i + 1))
	while [ "$(jobs -rp | wc -l)" -ge 3 ]; do wait -n; done
	{ "$t" > "$units/$i.out" 2>&1; echo $? > "$units/$i.rc"; } &
done
wait
i=0
for t in "$@"; do
	i=$((i + 1))
	out=$(cat "$units/$i.out")
	rc=$(cat "$units/$i.rc")
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
	f=$(printf '%s\n' "$out" | grep '^\[  FAILED  \] [a-z_]' | sort -u | wc -l)
	# a crash or a sanitizer report fails the binary even if cmocka said nothing
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p))
	fail=$((fail + f))
done
rm -rf "$units"
echo "# the unit tests took $((SECONDS - t0)) s"

# the layout's rules (tests/lint.py): include cycles, folder layering, SQL only in the store
out=$(python3 tests/lint.py 2>&1)
printf '%s\n' "$out"
pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok - ')))
fail=$((fail + $(printf '%s\n' "$out" | grep -c '^not ok - ')))

# the end-to-end tests: each prints "ok - ..." / "not ok - ..." and a last "NAME: ..." line
harnessd=$(dirname "$harness")/harnessd
# every tests/e2e_*.sh, the boot test first: it proves the images before the rest use them;
# e2e_bisect right after e2e_source, whose kernel builds (tree, objects, ccache) it reuses
export E2E_BUILDS E2E_CAPS
E2E_BUILDS=$(mktemp -d /tmp/e2e-builds.XXXXXX)
# libvirt's QEMU capabilities, probed by the first test and copied into the
# later ones' results (tests/testlib.sh): about 3 s a test
E2E_CAPS=$(mktemp -d /tmp/e2e-caps.XXXXXX)
trap 'rm -rf "$E2E_BUILDS" "$E2E_CAPS"' EXIT
# e2e_source_seeds is make test-long's (SEEDS_REPS=2): its 150 s kept CI within its hour
# once the remote saves' test came in; e2e_seeds shows seed 000 at its size here
order=$(ls tests/e2e_*.sh | grep -v -e '^tests/e2e_boot.sh$' -e '^tests/e2e_bisect.sh$' \
	-e '^tests/e2e_source_seeds.sh$' |
	sed 's|^tests/e2e_source.sh$|&\ntests/e2e_bisect.sh|')
for e in tests/e2e_boot.sh $order; do
	t0=$SECONDS
	out=$("$e" "$harness" "$harnessd" 2>&1)
	printf '%s\n' "$out"
	echo "# $e took $((SECONDS - t0)) s"   # what the CI budget is spent on
	pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok - ')))
	fail=$((fail + $(printf '%s\n' "$out" | grep -c '^not ok - ')))
	if ! printf '%s\n' "$out" | grep -qE '^e2e[a-z0-9-]*: [0-9]+ passed'; then fail=$((fail + 1)); fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
