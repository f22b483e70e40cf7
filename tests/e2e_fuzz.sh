#!/usr/bin/env bash
# e2e_fuzz.sh -- a short fuzz pass: build the libFuzzer targets (make fuzz-build
# installs clang through fuzz-deps), replay the committed corpus, then fuzz
# each target for FUZZ_E2E_SECONDS (4) seconds (`make fuzz` fuzzes for longer);
# any crash fails.
# usage: tests/e2e_fuzz.sh [HARNESS HARNESSD]   (tests/run.sh passes them; unused)
set -u
cd "$(dirname "$0")/.." || exit 1

secs=${FUZZ_E2E_SECONDS:-4}
pass=0 fail=0
ok()    { echo "ok - $*"; pass=$((pass + 1)); }
notok() { echo "not ok - $*"; fail=$((fail + 1)); }

mkdir -p fuzz/build/log
# clang first (apt, alone), then the targets on every core
if make --no-print-directory fuzz-deps >fuzz/build/log/build.log 2>&1 &&
   make --no-print-directory -j"$(nproc)" fuzz-build >>fuzz/build/log/build.log 2>&1; then
	ok "fuzz targets build with clang and libFuzzer"
else
	notok "fuzz targets build (see fuzz/build/log/build.log)"
	tail -20 fuzz/build/log/build.log
fi

for src in fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	t=${name#fuzz_}
	bin=fuzz/build/$name
	if [ ! -x "$bin" ]; then
		notok "$name: not built"
		continue
	fi
	n=$(ls "fuzz/corpus/$t" | wc -l)
	if nice -n 19 "$bin" "fuzz/corpus/$t"/* >"fuzz/build/log/$t.replay.log" 2>&1; then
		ok "$name replays its $n corpus inputs"
	else
		notok "$name replaying its corpus (see fuzz/build/log/$t.replay.log)"
	fi
	if out=$(fuzz/run.sh "$secs" "$bin" 2>&1); then
		ok "$(printf '%s\n' "$out" | head -1 | sed 's/ (log.*//') in ${secs} s"
	else
		notok "$(printf '%s\n' "$out" | head -1)"
		printf '%s\n' "$out" | sed -n 's/^  crash input/  crash input/p'
	fi
done

echo "e2e-fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
