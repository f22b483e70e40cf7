#!/usr/bin/env bash
# bench_boot.sh -- what the harness adds to a bare QEMU boot, in one interleaved
# series on one kernel and initramfs: ratios and where each run's time goes.
# usage: tests/bench_boot.sh HARNESS HARNESSD [ROUNDS]   (make bench; BENCHMARKS.md)
#
# Each round, in turn: a bare `qemu-system-x86_64 -kernel -initrd` of the 6.12
# image whose /init says so on the serial console and powers off (the run's
# own initramfs with that /init on top); a one-run matrix (1 s workload)
# through `harness run`; the same restored from a saved guest (start
# "restore", the save made in the warm-up); the same through a running
# harnessd. Then a
# four-run matrix through harnessd for the gap between runs. No timing is
# asserted: the figures are printed, as medians, and their ratios.
set -euo pipefail

harness=$(readlink -f "${1:?harness binary}")
harnessd=$(readlink -f "${2:?harnessd binary}")
rounds=${3:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
arch=$(uname -m)
images=$repo/images/out/$arch
kernel=$images/kernel/6.12/vmlinuz
work=$(mktemp -d /tmp/bench-boot.XXXXXX)
dpid=
trap '[ -n "$dpid" ] && kill "$dpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
[ "$arch" = x86_64 ] || { echo "bench_boot: the bare boot is x86_64's (pc machine)" >&2; exit 1; }
[ -f "$kernel" ] || { echo "bench_boot: $kernel missing (make images)" >&2; exit 1; }
cd "$work"

conf() { # conf DIR: a results directory of its own, the e2e tests' guest size
	mkdir -p "$1"
	printf 'results = %s/results\nimages = %s/images/out\nmemory_mib = 512\nvcpus = 2\n' \
		"$work/$1" "$repo" > "$1/harness.conf"
	printf 'boot_timeout_s = 120\nslack_s = 60\nguests = 1\n' >> "$1/harness.conf"
}
matrix() { # matrix NAME REPS [START]: one arm, 1 s of pread over 8 MiB
	cat > "$1.json" <<EOF
{ "name": "$1", "memory_mib": 512, "vcpus": 2, "reps": $2, "start": "${3:-boot}",
  "arms": [ { "name": "a", "kernel": "6.12" } ],
  "workloads": [ { "name": "w", "memcg_mib": 64, "duration_s": 1,
    "files": [ { "name": "data", "mib": 8 } ],
    "streams": [ { "kind": "random", "file": "data", "access": "pread" } ] } ] }
EOF
}
ms() { date +%s%3N; }

# The bare guest: the run's initramfs (base, this kernel's modules) with an /init on top.
gcc -static -O2 -o init "$repo/tests/bench_boot_init.c"
echo init | cpio --quiet -o -H newc -R 0:0 > init.cpio
cat "$images/base.cpio" "$images/kernel/6.12/modules.cpio" init.cpio > bare.img
bare() { # prints "to_init_ms to_exit_ms"
	local t0 t_init=-1 line
	t0=$(ms)
	while IFS= read -r line; do
		case $line in *bench-bare-init*) t_init=$(( $(ms) - t0 )) ;; esac
	done < <(qemu-system-x86_64 -accel tcg -M pc -m 512 -smp 2 -nodefaults -display none \
		-no-reboot -serial stdio -kernel "$kernel" -initrd bare.img \
		-append "console=ttyS0 loglevel=6 panic=-1")
	echo "$t_init $(( $(ms) - t0 ))"
}

conf cli; conf daemon
for i in $(seq 0 "$rounds"); do matrix "r$i" 1; matrix "s$i" 1 restore; matrix "d$i" 1; done
matrix gaps 4
# warm-up, not counted: the data disk's template, libvirt's capability cache,
# the probe, the saved guest the s matrices restore
(cd cli && "$harness" run ../r0.json > /dev/null && "$harness" run ../s0.json > /dev/null)
(cd daemon && { "$harnessd" -c harness.conf 2>> daemon.log & echo $! > ../dpid; })
dpid=$(cat dpid)
for _ in $(seq 100); do (cd daemon && "$harness" status > /dev/null 2>&1) && break; sleep 0.1; done

daemon_run() { # daemon_run NAME: submit, wait until finished; prints the wall ms
	local t0 s
	t0=$(ms)
	(cd daemon && "$harness" submit "../$1.json" > /dev/null)
	for _ in $(seq 6000); do
		s=$(cd daemon && "$harness" --json status "$1" 2>/dev/null |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null || true)
		[ "$s" = finished ] && break
		sleep 0.05
	done
	echo $(( $(ms) - t0 ))
}
daemon_run d0 > /dev/null

: > series.txt
for i in $(seq 1 "$rounds"); do
	read -r b_init b_exit < <(bare)
	t0=$(ms); (cd cli && "$harness" run "../r$i.json" > /dev/null); c_wall=$(( $(ms) - t0 ))
	t0=$(ms); (cd cli && "$harness" run "../s$i.json" > /dev/null); s_wall=$(( $(ms) - t0 ))
	d_wall=$(daemon_run "d$i")
	echo "round $i: bare $b_init/$b_exit ms, harness run $c_wall ms, restored $s_wall ms, harnessd $d_wall ms" >&2
	echo "$i $b_init $b_exit $c_wall $d_wall $s_wall" >> series.txt
done
daemon_run gaps > /dev/null
for i in $(seq 1 "$rounds"); do
	(cd cli && "$harness" --json phases "r$i") > "cli-r$i.json"
	(cd cli && "$harness" --json phases "s$i") > "cli-s$i.json"
	(cd daemon && "$harness" --json phases "d$i") > "daemon-d$i.json"
done
(cd daemon && "$harness" --json phases gaps) > gaps.json
(cd cli && "$harness" phases "r$rounds") | sed -n '1,3p' > last-cli.txt

python3 - "$rounds" <<'EOF'
import json, statistics as st, sys
rounds = int(sys.argv[1])
rows = [list(map(int, l.split()))[1:] for l in open("series.txt")]
b_init, b_exit, c_wall, d_wall, s_wall = (st.median(c) for c in zip(*rows))
def runs(prefix, name):
    out = []
    for i in range(1, rounds + 1):
        out += json.load(open(f"{prefix}-{name}{i}.json"))["runs"]
    return out
cli, dmn, rst = runs("cli", "r"), runs("daemon", "d"), runs("cli", "s")
assert all(r["ms"].get("restore") and not r["ms"].get("kernel") for r in rst), "s runs not restored"
boot = ("define", "firmware", "kernel", "modules", "agent")
def med(rs, keys):
    return st.median(sum(r["ms"].get(k, 0) for k in keys) for r in rs)
ready_c = med(cli, boot)
over_c = st.median(w - r["ms"]["workload"] for w, r in zip((x[2] for x in rows), cli))
over_d = st.median(w - r["ms"]["workload"] for w, r in zip((x[3] for x in rows), dmn))
over_s = st.median(w - r["ms"]["workload"] for w, r in zip((x[4] for x in rows), rst))
ready_s = med(rst, ("restore",))
gaps = [r["gap_ms"] for r in json.load(open("gaps.json"))["runs"] if r["gap_ms"] >= 0]
print(f"bench_boot: {rounds} interleaved rounds, medians (ms); 6.12 x86_64 under TCG, 512 MiB, 2 vCPUs")
print()
print("| what | ms | ratio | target |")
print("| --- | --- | --- | --- |")
print(f"| bare QEMU boot, start to /init | {b_init:.0f} | 1 | |")
print(f"| bare QEMU boot, start to exit (poweroff) | {b_exit:.0f} | 1 | |")
print(f"| harness: domain start to the agent's hello (define .. agent) | {ready_c:.0f} | "
      f"{ready_c / b_init:.2f}x bare to /init | 1.1x |")
print(f"| harness run: wall of a one-run matrix minus its workload | {over_c:.0f} | "
      f"{over_c / b_exit:.2f}x bare to exit | 1.3x |")
print(f"| restored: QEMU's start from the save to the channel (restore) | {ready_s:.0f} | "
      f"{ready_s / b_init:.2f}x bare to /init | |")
print(f"| restored: harness run of one run minus its workload | {over_s:.0f} | "
      f"{over_s / b_exit:.2f}x bare to exit | 0.3x |")
print(f"| harnessd: submit to finished, minus the workload | {over_d:.0f} | "
      f"{over_d / b_exit:.2f}x bare to exit | |")
print(f"| harnessd: a run's end to the next run's domain start (4-run matrix) | "
      f"{st.median(gaps) if gaps else -1:.0f} | | < 200 ms |")
print()
def phase_table(title, rs):
    """The median of each phase of the runs rs, as a Markdown table under title."""
    phases = list(rs[0]["ms"].keys())
    print(title)
    print()
    print("| " + " | ".join(phases) + " | total |")
    print("|" + " --- |" * (len(phases) + 1))
    print("| " + " | ".join(f"{med(rs, (p,)):.0f}" for p in phases) +
          f" | {st.median(r['total_ms'] for r in rs):.0f} |")
    print()
phase_table("Where a run's time goes (harness run, medians of each phase, ms):", cli)
phase_table("The same run restored from a saved guest (medians, ms):", rst)
print(f"harness run's own wall around its run (connect, probe, queue, table): "
      f"{st.median(w - r['total_ms'] for w, r in zip((x[2] for x in rows), cli)):.0f} ms; "
      f"harnessd's around its run (submit, schedule, status polls every 50 ms): "
      f"{st.median(w - r['total_ms'] for w, r in zip((x[3] for x in rows), dmn)):.0f} ms")
EOF
