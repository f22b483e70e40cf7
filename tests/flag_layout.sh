#!/usr/bin/env bash
# flag_layout.sh -- measure where a kernel keeps a folio's MGLRU generation, from its
# headers, and print it as a line of guest/tracer.c's layouts[] table.
# usage: tests/flag_layout.sh [HEADERS [ARCH]]
#   HEADERS defaults to the headers of the 6.12 x86_64 kernel images/kernels.conf pins
#   (linux-image-6.12.<n>+deb12-cloud-amd64: /usr/src/linux-headers-6.12.<n>+deb12-cloud-amd64,
#   Debian package of that name), ARCH to x86_64 (uname -m of the guests that kernel boots).
#
# Not run by CI: it is how guest/tracer.c's layouts[] lines were made. Needs the
# headers package, its kbuild (linux-kbuild-*, a dependency) and the compiler the
# kernel was built with (gcc-12 for Debian 12's kernels). It builds lay.s, one
# file of an out-of-tree module, with kbuild (`make -C HEADERS M=TMPDIR lay.s`),
# so every value is the compiler's, under the kernel's own config:
#   LRU_GEN_PGOFF, LRU_GEN_WIDTH  the generation's bits in folio->flags
#   PG_active                     the classic LRU's active bit
#   min_seq_file_off              offsetof(struct lruvec, lrugen) +
#                                 offsetof(struct lru_gen_folio, min_seq) +
#                                 sizeof(unsigned long) * LRU_GEN_FILE
# Each value is an `asm(".ascii \"->NAME %0\\n\"" :: "i"(VALUE))` in lay.c, read
# back from the "->NAME" lines of lay.s (x86 prints an immediate as "$N").
set -euo pipefail

pin=$(awk '$1 == "6.12" && $2 == "x86_64" { print $3 }' "$(dirname "$0")/../images/kernels.conf")
[ -n "$pin" ] || [ $# -gt 0 ] ||
	{ echo "flag_layout: images/kernels.conf: no 6.12 x86_64 pin (expected one; or give HEADERS)" >&2; exit 1; }
hdr=${1:-/usr/src/${pin/#linux-image-/linux-headers-}}
arch=${2:-x86_64}
[ -f "$hdr/Makefile" ] || { echo "flag_layout: $hdr: no kernel headers there" >&2; exit 1; }
hdr=$(cd "$hdr" && pwd)
rel=$(cat "$hdr/include/config/kernel.release" 2>/dev/null || echo "${hdr##*/linux-headers-}")
work=$(mktemp -d /tmp/flag-layout.XXXXXX)
trap 'rm -rf "$work"' EXIT

cat > "$work/lay.c" <<'EOF'
/* lay.c -- tests/flag_layout.sh's probe: the folio flag layout and lruvec offsets
 * of the kernel whose headers build it, as "->NAME VALUE" lines of lay.s. */
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>
#include <linux/stddef.h>

#define SHOW(name, value) asm volatile(".ascii \"->" name " %0\\n\"" :: "i"((long)(value)))

void flag_layout(void);

void flag_layout(void)
{
	SHOW("LRU_GEN_PGOFF", LRU_GEN_PGOFF);
	SHOW("LRU_GEN_WIDTH", LRU_GEN_WIDTH);
	SHOW("PG_active", PG_active);
	/* struct lru_gen_folio since 6.3, lru_gen_struct before: named by its member */
	SHOW("min_seq_file_off", offsetof(struct lruvec, lrugen) +
	     offsetof(typeof(((struct lruvec *)0)->lrugen), min_seq) +
	     sizeof(unsigned long) * LRU_GEN_FILE);
}
EOF
echo 'obj-m := lay.o' > "$work/Kbuild"

if ! make -s -C "$hdr" M="$work" lay.s > "$work/make.log" 2>&1; then
	cat "$work/make.log" >&2
	echo "flag_layout: kbuild could not build lay.s against $hdr" >&2
	exit 1
fi

# The value of "->NAME" in lay.s, without the immediate's "$" (x86) or "#" (arm64).
value() {
	local v
	v=$(sed -n "s/.*\"->$1 [\$#]*\(-\{0,1\}[0-9][0-9]*\)\\\\n\".*/\1/p" "$work/lay.s")
	[ -n "$v" ] && [ "$(printf '%s\n' "$v" | wc -l)" -eq 1 ] ||
		{ echo "flag_layout: no single ->$1 line in lay.s" >&2; exit 1; }
	echo "$v"
}

pgoff=$(value LRU_GEN_PGOFF)
width=$(value LRU_GEN_WIDTH)
active=$(value PG_active)
minseq=$(value min_seq_file_off)

# "6.12.117+deb12-cloud-amd64": the table matches "6.12." ... "+deb12-cloud-amd64"
# ("6.1.0-57-cloud-amd64": "6.1." ... "-57-cloud-amd64").
major=$(printf '%s\n' "$rel" | sed -n 's/^\([0-9]*\.[0-9]*\.\).*/\1/p')
suffix=$(printf '%s\n' "$rel" | sed -n 's/^[0-9.]*\([-+].*\)$/\1/p')
[ -n "$major" ] && [ -n "$suffix" ] ||
	{ echo "flag_layout: cannot split release '$rel' into prefix and suffix" >&2; exit 1; }
echo "/* $rel: tests/flag_layout.sh $hdr $arch */"
printf '\t{ "%s", "%s", "%s", %s, %s, %s, %s },\n' "$major" "$suffix" "$arch" \
	"$pgoff" "$width" "$active" "$minseq"
