#!/usr/bin/env bash
# In-house allocators against mimalloc on the patterns they were designed
# for, before and after a change, through the same harness path as the
# external allocators (`heapreplay replay TRACE -a mimalloc,ALLOC...`).
# Writes results/inhouse-speed-<host>.md.
#
#   bash bench/inhouse_speed/inhouse_speed.sh BUILDDIR   (make bench-inhouse-speed)
#   OLD_BIN=PATH   the "before" heapreplay (default: none, only the build's);
#                  e.g. a build of an older commit in its own worktree
#   ROUNDS=N       rounds (default 5); each round runs every trace once with
#                  the old binary, then once with the new one (A B A B ...)
#   WARM=SECONDS   --warm-time of each replay (default 0.3)
#   OUT=PATH       where to write (default results/inhouse-speed-<host>.md)
#   CPU=N          the CPU every replay is pinned to (taskset -c; default 1)
#
# Figure: time.ns_per_op (CPU ns of the median warm lap per op) and its ratio
# to mimalloc's in the same replay call, median and [min-max] over rounds.
# The ratio is the figure to read on a loaded machine: both sides of it ran
# in one call, seconds apart.
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-5}
WARM=${WARM:-0.3}
OLD_BIN=${OLD_BIN:-}
OUT=${OUT:-"$S/results/inhouse-speed-$(hostname -s).md"}

CPU=${CPU:-1}

# frame_temps: the stack's own pattern, frame_loop's blocks made and freed
# inside one frame (frame_temps.py says why and how), made here.
"$HR" convert "$S/traces/frame_loop.hrt" -o "$W/frame_loop.txt" >/dev/null
python3 "$S/bench/inhouse_speed/frame_temps.py" "$W/frame_loop.txt" "$W/frame_temps.txt"
"$HR" convert "$W/frame_temps.txt" -o "$W/frame_temps.hrt" >/dev/null

# trace (under traces/, or made above) : the in-house allocators whose
# pattern it is (block and bank on frame_loop: rows of the earlier runs)
CASES="frame_temps:stack,stack+block
frame_loop:stack+block,block,bank
particles:block,bank,sizeclass
game_session:block,bank
level_load:bank
strings:sizeclass
real/freeciv_ai:bank"

sides="new"
[ -z "$OLD_BIN" ] || sides="old new"
raw="$W/raw.tsv"
: > "$raw"
for round in $(seq 1 "$ROUNDS"); do
    for c in $CASES; do
        trace=${c%%:*} allocs=${c#*:}
        for side in $sides; do
            bin=$HR
            [ "$side" = new ] || bin=$OLD_BIN
            say "round $round/$ROUNDS $trace $side"
            path="$S/traces/$trace.hrt"
            [ "$trace" != frame_temps ] || path="$W/frame_temps.hrt"
            taskset -c "$CPU" "$bin" replay "$path" -a "mimalloc,$allocs" -r 1 --warm-time="$WARM" \
                -f csv 2>/dev/null | grep -v '^#' | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r.get("status") == "ok"]
for r in rows:
    print("\t".join([sys.argv[1], sys.argv[2], sys.argv[3], r["allocator"], r["time.ns_per_op"]]))
' "$round" "$trace" "$side" >> "$raw" || true
        done
    done
done

{
    hr_header "In-house allocators on their own patterns, against mimalloc" \
        "OLD_BIN=${OLD_BIN:-} ROUNDS=$ROUNDS WARM=$WARM CPU=$CPU bash bench/inhouse_speed/inhouse_speed.sh $B"
    echo "- old binary: ${OLD_BIN:-none}"
    echo
    python3 "$S/bench/inhouse_speed/inhouse_report.py" "$raw"
} > "$OUT"
say "wrote $OUT"
