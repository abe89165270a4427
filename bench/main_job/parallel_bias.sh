#!/usr/bin/env bash
# Would the main job's replays keep their figures if two ran at once, one
# per core? The main job runs one timed process at a time; on this 2-core
# machine running two would halve its wall time. This measures what it would
# cost the figures: ROUNDS rounds of the same replay on CPU 1, once alone and
# once while another replay (the same command, in a loop) runs on CPU 0,
# alone first in each round. Per (trace, allocator): warm ns/op alone and
# beside the other, median [min-max] over the rounds, and the ratio of the
# medians (beside / alone). Prints a markdown table on stdout.
#
# Usage: bench/main_job/parallel_bias.sh BINARY [DIR]
# Environment: ROUNDS=3  ALLOCS=glibc,jemalloc,mimalloc,tcmalloc
#              OPTS="-r 1 --touch recorded"   DIR defaults to traces/real
set -euo pipefail
[ $# -ge 1 ] && [ -x "$1" ] || { echo "usage: $0 BINARY [DIR]" >&2; exit 2; }
HR=$(readlink -f "$1")
DIR=${2:-traces/real}
ROUNDS=${ROUNDS:-3}
ALLOCS=${ALLOCS:-glibc,jemalloc,mimalloc,tcmalloc}
OPTS=${OPTS:-"-r 1 --touch recorded"}
[ "$(nproc --all)" -ge 2 ] || { echo "parallel_bias.sh: needs 2 CPUs" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/hrpar.XXXXXX")
BG=""
cleanup() {
    [ -z "$BG" ] || { kill "$BG" 2>/dev/null; wait "$BG" 2>/dev/null || true; }
    rm -rf "$W"
}
trap cleanup EXIT

# shellcheck disable=SC2086 # OPTS: several words
replay() { taskset -c "$1" "$HR" replay "$DIR" -a "$ALLOCS" $OPTS -q -f csv 2>/dev/null | grep -v '^#'; }
# The other replay, on CPU 0 until killed (its own process group: the
# replay's workers die with it).
beside() { setsid bash -c "while :; do taskset -c 0 '$HR' replay '$DIR' -a '$ALLOCS' $OPTS -q -f csv >/dev/null 2>&1; done" & BG=$!; }
stop_beside() { kill -- -"$BG" 2>/dev/null || kill "$BG" 2>/dev/null || true; wait "$BG" 2>/dev/null || true; BG=""; }

for r in $(seq 1 "$ROUNDS"); do
    echo "[$(date +%H:%M:%S)] round $r/$ROUNDS alone" >&2
    replay 1 > "$W/alone.$r.csv"
    beside
    sleep 1
    echo "[$(date +%H:%M:%S)] round $r/$ROUNDS beside another replay" >&2
    replay 1 > "$W/beside.$r.csv"
    stop_beside
    sleep 1
done

python3 - "$W" "$ROUNDS" <<'EOF'
import csv, statistics as st, sys
w, rounds = sys.argv[1], int(sys.argv[2])
def load(side):
    out = {}
    for r in range(1, rounds + 1):
        for row in csv.DictReader(open(f"{w}/{side}.{r}.csv")):
            if row.get("status") == "ok":
                key = (row["trace"].split("/")[-1], row["allocator"])
                out.setdefault(key, []).append(float(row["time.ns_per_op"]))
    return out
a, b = load("alone"), load("beside")
fmt = lambda v: f"{st.median(v):.1f} [{min(v):.1f}-{max(v):.1f}]"
print("| trace | allocator | alone ns/op | beside ns/op | beside / alone |")
print("|---|---|---:|---:|---:|")
ratios = []
for key in sorted(a):
    if key not in b:
        continue
    q = st.median(b[key]) / st.median(a[key])
    ratios.append(q)
    print(f"| {key[0]} | {key[1]} | {fmt(a[key])} | {fmt(b[key])} | {q:.3f} |")
print()
print(f"{len(ratios)} cells; beside / alone median {st.median(ratios):.3f}, "
      f"range {min(ratios):.3f}-{max(ratios):.3f}; above 1.02: {sum(q > 1.02 for q in ratios)}")
EOF
