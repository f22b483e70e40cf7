#!/usr/bin/env bash
# build-jansson.sh -- a static libjansson.a built from Debian's jansson source
# with ASan+UBSan, so the sanitizer test and fuzz builds see inside json_*.
# usage: tests/build-jansson.sh CC OUTDIR   (OUTDIR/lib/libjansson.a, OUTDIR/include)
# The Makefile decides when to rebuild; the source is fetched once, into OUTDIR/src.
set -euo pipefail

cc=${1:?usage: build-jansson.sh CC OUTDIR}
out=${2:?usage: build-jansson.sh CC OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=images/debian-source.sh
. "$here/images/debian-source.sh"

start=$(date +%s)
mkdir -p "$out"
debsrc_fetch jansson "$out/src" > "$out/fetch.log" 2>&1 || {
	cat "$out/fetch.log" >&2
	echo "build-jansson.sh: cannot fetch Debian's jansson source" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
debsrc_unpack jansson "$out/src" "$tmp/jansson"
# the same sanitizer flags as the tests and fuzzers that link it; UBSan fatal
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
cmake -S "$tmp/jansson" -B "$tmp/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=None \
	-DCMAKE_C_FLAGS="$flags" -DJANSSON_BUILD_SHARED_LIBS=OFF -DJANSSON_BUILD_DOCS=OFF \
	-DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON > "$out/build.log" 2>&1 &&
	cmake --build "$tmp/build" -j2 >> "$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	echo "build-jansson.sh: the build failed (log $out/build.log)" >&2
	exit 1
}
mkdir -p "$out/lib" "$out/include"
cp "$tmp/build/include/"*.h "$out/include/"
cp "$tmp/build/lib/libjansson.a" "$out/lib/libjansson.a.tmp"
mv "$out/lib/libjansson.a.tmp" "$out/lib/libjansson.a"
echo "jansson: $out/lib/libjansson.a with $cc, ASan+UBSan ($(( $(date +%s) - start )) s)"
