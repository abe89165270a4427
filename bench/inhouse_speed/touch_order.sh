#!/usr/bin/env bash
# What the hand-out order costs the program: each in-house allocator against
# mimalloc on its own patterns, with the program's first write into each new
# block (--touch first, what the default `recorded` does on these traces)
# and without it (--touch none: the allocator's calls alone). A block handed
# out again soon after its free (mimalloc's LIFO free lists) is still in the
# cache when the program writes it; bank hands out the lowest free cell
# (Orx's order), often freed long before, and the program's write misses.
# The difference first - none is that write's cost per op, per allocator.
# Writes results/inhouse-touch-<host>.md.
#
#   bash bench/inhouse_speed/touch_order.sh BUILDDIR   (make bench-inhouse-touch)
#   ROUNDS=N       rounds (default 5); each runs every case with first, then none
#   WARM=SECONDS   --warm-time of each replay (default 0.3)
#   CPU=N          the CPU every replay is pinned to (taskset -c; default 1)
#   OUT=PATH       where to write (default results/inhouse-touch-<host>.md)
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-5}
WARM=${WARM:-0.3}
CPU=${CPU:-1}
OUT=${OUT:-"$S/results/inhouse-touch-$(hostname -s).md"}
. "$S/bench/inhouse_speed/cuts.sh"
make_cuts

CASES="particles:block,bank,sizeclass
frame_loop-640B:block
frame_loop-4KiB:bank
game_session-640B:block
game_session-4KiB:bank
level_load-4KiB:bank
strings-128B:sizeclass
real/freeciv_ai-4KiB:bank"

raw="$W/raw.tsv"
: > "$raw"
for round in $(seq 1 "$ROUNDS"); do
    for c in $CASES; do
        for touch in first none; do
            say "round $round/$ROUNDS ${c%%:*} $touch"
            taskset -c "$CPU" "$HR" replay "$(trace_path "${c%%:*}")" -a "mimalloc,${c#*:}" -r 1 \
                --warm-time="$WARM" --touch "$touch" -f csv 2>/dev/null | grep -v '^#' | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r.get("status") == "ok":
        print("\t".join(sys.argv[1:] + [r["allocator"], r["time.ns_per_op"]]))
' "$round" "${c%%:*}" "$touch" >> "$raw" || true
        done
    done
done

{
    hr_header "What the hand-out order costs: in-house allocators with and without the program's first write" \
        "ROUNDS=$ROUNDS WARM=$WARM CPU=$CPU bash bench/inhouse_speed/touch_order.sh $B"
    python3 "$S/bench/inhouse_speed/touch_report.py" "$raw"
} > "$OUT"
say "wrote $OUT"
