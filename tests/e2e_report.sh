#!/usr/bin/env bash
# e2e_report.sh -- plots and the HTML report of a real matrix: two short TCG
# runs (MGLRU on and off) with a cold file read mid-run, then `harness plot`
# and `harness report`, the SVGs parsed as XML, the page shot in headless Chromium.
# usage: tests/e2e_report.sh HARNESS_BINARY   (images must be built; chromium installed)
set -u

. "$(dirname "$0")/testlib.sh" report "$@"

e2e_conf

# a zipf reader over vec; at t=4 a scan reads the cold file once
cat > "$work/report.json" <<'EOF'
{
  "name": "e2e-report",
  "reps": 1,
  "arms": [
    { "name": "mglru", "kernel": "6.12", "lru_gen": "y" },
    { "name": "classic", "kernel": "6.12", "lru_gen": "n" }
  ],
  "workloads": [
    { "name": "cold-read", "memcg_mib": 32, "duration_s": 8, "ramp_s": 2,
      "files": [ { "name": "vec", "mib": 24 }, { "name": "cold", "mib": 16 } ],
      "streams": [
        { "kind": "random", "name": "vec", "file": "vec", "distribution": "zipf",
          "theta": 0.9, "threads": 2 },
        { "kind": "scan", "name": "cold", "file": "cold", "start_s": 4, "passes": 1 }
      ] }
  ]
}
EOF

cd "$work" || exit 1
"$harness" run report.json > run.out 2> run.err
rc=$?
cat run.out
[ -s run.err ] && sed 's/^/stderr: /' run.err
check "harness run exits 0" [ "$rc" -eq 0 ]
check "both runs done" [ "$(q "SELECT COUNT(*) FROM runs WHERE status = 'done'")" = 2 ]
check "the cold read posted its events" \
	[ "$(q "SELECT COUNT(*) FROM events WHERE kind IN ('start', 'pass_start') AND stream = 1")" -ge 4 ]

# A crashed run beside them, as the runner records one: its console log is a
# real guest's with a hostile panic line at the end.
real_log=$(q "SELECT console_path FROM runs WHERE status = 'done' LIMIT 1")
{ cat "$real_log"; head -c 20000 /dev/zero | tr '\0' 'x'; echo
  printf 'Kernel panic - not syncing: <script>alert(1)</script> & "q"\r\nEND-OF-LOG\r\n'; } > crash.log
q "INSERT INTO runs (matrix_id, arm_id, cell_id, seq, block, position, status, reason, crash,
     console_path, accel, host, arch, guest_release)
   SELECT matrix_id, arm_id, cell_id, 99, 9, 0, 'crashed', 'kernel panic <in> the guest',
     'Kernel panic - not syncing: <b>', '$work/crash.log', accel, host, arch, guest_release
   FROM runs WHERE status = 'done' LIMIT 1"

# --- harness plot ---
"$harness" plot e2e-report -o plots > plot.out 2> plot.err
rc=$?
[ -s plot.err ] && sed 's/^/stderr: /' plot.err
check "harness plot exits 0" [ "$rc" -eq 0 ]
check "one SVG per metric and per file (3), each path printed" \
	bash -c '[ "$(ls plots/*.svg | wc -l)" = 3 ] && [ "$(grep -c "\.svg$" plot.out)" = 3 ]'
check "every SVG is well-formed XML with a median path per arm" python3 - plots/*.svg <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
for p in sys.argv[1:]:
    root = ET.parse(p).getroot()
    arms = sorted(e.get('data-arm') for e in root.iter(ns + 'path') if e.get('class') == 'median')
    if arms != ['classic', 'mglru'] or not all(
            e.get('d', '').startswith('M') for e in root.iter(ns + 'path')):
        sys.exit('%s: median paths %s' % (p, arms))
EOF
check "the cold read is marked on the ops/s chart" \
	grep -q '<g class="event"><title>cold start at t=4' plots/c00-cold-read-ops_s.svg
check "ramp_s 2 flags the first two 1 s intervals of each run" \
	[ "$(q "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.status = 'done' AND s.ramp = 1")" = 4 ]
check "the ramp is shaded" grep -q '<g class="ramp">' plots/c00-cold-read-ops_s.svg
# docs/reports.md's example: the metrics named, one chart each (and the file's)
"$harness" plot e2e-report -o plots2 --metric refault/s --metric majflt/s > plot2.out 2>&1
check "plot --metric refault/s --metric majflt/s: those two charts, then each file's (2)" \
	explain "cat plot2.out" bash -c '[ "$(ls plots2/*.svg | wc -l)" = 4 ] &&
		[ "$(ls plots2 | grep -c -e -refault_s.svg -e -majflt_s.svg)" = 2 ] &&
		[ "$(ls plots2 | grep -c -e -file-)" = 2 ]'
"$harness" plot e2e-report --metric bogus > /dev/null 2> bogus.err
rc=$?
check "an unknown --metric is refused, naming the known ones (exit $rc)" \
	bash -c '[ "$1" -eq 1 ] && grep -q "bogus.*refault/s" bogus.err' _ "$rc"

# --- harness report ---
"$harness" report e2e-report -o report.html > report.out 2> report.err
rc=$?
[ -s report.err ] && sed 's/^/stderr: /' report.err
check "harness report exits 0 and names its file" \
	bash -c '[ "$1" -eq 0 ] && grep -qx report.html report.out && [ -s report.html ]' _ "$rc"
release=$(q "SELECT DISTINCT guest_release FROM runs WHERE status = 'done'")
accel=$(q "SELECT DISTINCT accel FROM runs WHERE status = 'done'")
host=$(q "SELECT DISTINCT host FROM runs WHERE status = 'done'")
check "every inline SVG is well-formed XML; 5 charts of medians (memory pressure's), 2 of an arm's LRU" \
	python3 - report.html <<'EOF'
import re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1], encoding='utf-8').read()
svgs = re.findall(r'<svg .*?</svg>', html, re.S)
lru = [s for s in svgs if 'class="layer"' in s]
if len(svgs) != 7 or len(lru) != 2:
    sys.exit('%d svgs, %d of the LRU' % (len(svgs), len(lru)))
# MGLRU's run by generation, the classic LRU's by list
if not (any('data-layer="max_seq-3"' in s and '(mglru)' in s for s in lru) and
        any('data-layer="active_file"' in s and '(classic)' in s for s in lru)):
    sys.exit('the LRU charts do not match the arms')
for s in svgs:
    root = ET.fromstring(s)
    if 'class="layer"' in s:
        continue
    paths = [e for e in root.iter('{http://www.w3.org/2000/svg}path') if e.get('class') == 'median']
    lines = 2 if 'data-series=' in s else 1    # memory pressure: some and full
    if len(paths) != 2 * lines or not all(len(p.get('d', '')) > 20 for p in paths):
        sys.exit('an svg without its median paths, one per arm and line')
EOF
check "memory pressure charted per arm, some and full; no swap chart, one line saying why" \
	bash -c 'python3 "$1/tests/report_charts.py" report.html cold-read \
		"memory pressure of the memcg (memory.pressure)" some,full &&
		[ "$(grep -c "<p class=\"note\">No swap chart: no run of this cell swapped a page" report.html)" = 1 ]' \
	_ "$repo"
check "self-contained: no script, no external resource" \
	bash -c '! grep -qiE "<script|src=|href=\"(https?:)?//|url\(|@import" report.html'
check "the guest kernel ($release), accel ($accel) and host in the page" \
	bash -c 'grep -qF "$1" report.html && grep -qF "<td>$2</td>" report.html && grep -qF "$3" report.html' \
	_ "$release" "$accel" "$host"
check "arm options in the page" bash -c 'grep -q "<tr><td>classic</td><td>6.12</td>" report.html'
check "a matrix harness run finished is finished in the page, not active" \
	grep -qF '<tr><th>state</th><td>finished</td></tr>' report.html
check "the ABBA table and the verdicts in the page" \
	bash -c 'grep -q "^classic .* 1$" report.html && grep -q "<h3>mglru &rarr; classic</h3>" report.html'
check "the crashed run, its reason and crash escaped" \
	bash -c 'grep -qF "kernel panic &lt;in&gt; the guest" report.html && grep -qF "not syncing: &lt;b&gt;" report.html'
check "its console log's end, escaped" \
	grep -qF 'not syncing: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;' report.html
check "the excerpt is bounded (8 KiB of a $(stat -c %s crash.log)-byte log)" python3 - report.html <<'EOF'
import re, sys
html = open(sys.argv[1], encoding='utf-8').read()
pre = re.search(r'<pre class="console">(.*?)</pre>', html, re.S).group(1)
sys.exit(0 if 'END-OF-LOG' in pre and len(pre) < 8192 + 1024 and 'Linux version' not in pre
         else 'excerpt of %d bytes' % len(pre))
EOF

# --- the page in a browser ---
timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$work/chromium" --screenshot="$work/shot.png" --window-size=1200,3000 \
	"file://$work/report.html" > chromium.out 2>&1
rc=$?
check "chromium renders the page (exit $rc)" [ "$rc" -eq 0 ]
check "the screenshot is a PNG of real content ($(stat -c %s shot.png 2>/dev/null || echo 0) bytes)" \
	python3 - shot.png <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
if data[:8] != b'\x89PNG\r\n\x1a\n' or len(data) < 20000:
    sys.exit('not a PNG, or too small')
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
if depth != 8 or ctype not in (2, 6):
    sys.exit('unexpected PNG format %d/%d' % (depth, ctype))
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, colors, dark = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, w, 2):
            px = bytes(line[x * bpp:x * bpp + 3])
            colors.add(px)
            dark += sum(px) < 600
    prev = line
share = dark / ((h // 4 + 1) * (w // 2))
if len(colors) < 16 or share < 0.01:
    sys.exit('%d colours, %.3f non-white' % (len(colors), share))
EOF

e2e_end
