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
#   COUNT=0|1      also count each side's instructions per op under callgrind
#                  (--count callgrind, one replay per trace; default 1): the
#                  figure a loaded machine does not move
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
# inside one frame (frame_temps.py says why and how), and the size cuts
# (cuts.sh), made here.
. "$S/bench/inhouse_speed/cuts.sh"
make_cuts

# trace (under traces/, or made above) : the in-house allocators whose
# pattern it is (block and bank on frame_loop: rows of the earlier runs)
CASES="frame_temps:stack,stack+block
frame_loop:stack+block,block,bank
frame_loop-640B:block
frame_loop-4KiB:bank
particles:block,bank,sizeclass
game_session:block,bank
game_session-640B:block
game_session-4KiB:bank
level_load:bank
level_load-4KiB:bank
strings:sizeclass
strings-128B:sizeclass
real/freeciv_ai:bank
real/freeciv_ai-4KiB:bank"

sides="new"
[ -z "$OLD_BIN" ] || sides="old new"

# Runs "$@" TRACE ALLOCS SIDE BINARY for every case, each side in turn.
each_case() {
    local c side
    for c in $CASES; do
        for side in $sides; do
            if [ "$side" = new ]; then "$@" "${c%%:*}" "${c#*:}" new "$HR"
            else "$@" "${c%%:*}" "${c#*:}" old "$OLD_BIN"; fi
        done
    done
}

# One timed replay: raw lines (round, trace, side, allocator, warm ns/op).
time_one() { # time_one ROUND TRACE ALLOCS SIDE BINARY
    say "round $1/$ROUNDS $2 $4"
    taskset -c "$CPU" "$5" replay "$(trace_path "$2")" -a "mimalloc,$3" -r 1 \
        --warm-time="$WARM" -f csv 2>/dev/null | grep -v '^#' | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r.get("status") == "ok"]
for r in rows:
    print("\t".join([sys.argv[1], sys.argv[2], sys.argv[3], r["allocator"], r["time.ns_per_op"]]))
' "$1" "$2" "$4" >> "$raw" || true
}

# One counted replay: instructions per op (count.per_op: callgrind's count
# of the allocator's calls over the ops), deterministic, so once per trace.
count_one() { # count_one TRACE ALLOCS SIDE BINARY
    say "count $1 $3"
    "$4" replay "$(trace_path "$1")" -a "mimalloc,$2" -r 1 --count callgrind -f json \
        2>/dev/null | python3 -c '
import json, sys
for r in json.load(sys.stdin)["results"]:
    c = r.get("count") or {}
    if r.get("status") == "ok" and c.get("per_op") is not None:
        print("\t".join(["1", sys.argv[1], sys.argv[2], r["allocator"], str(c["per_op"])]))
' "$1" "$3" >> "$counts" || true
}

raw="$W/raw.tsv" counts="$W/counts.tsv"
: > "$raw"
: > "$counts"
for round in $(seq 1 "$ROUNDS"); do
    each_case time_one "$round"
done
[ "${COUNT:-1}" != 1 ] || each_case count_one

{
    hr_header "In-house allocators on their own patterns, against mimalloc" \
        "OLD_BIN=${OLD_BIN:-} ROUNDS=$ROUNDS WARM=$WARM CPU=$CPU COUNT=${COUNT:-1} bash bench/inhouse_speed/inhouse_speed.sh $B"
    echo "- old binary: ${OLD_BIN:-none}"
    echo
    python3 "$S/bench/inhouse_speed/inhouse_report.py" "$raw"
    if [ -s "$counts" ]; then
        echo
        echo "### Instructions per op (callgrind)"
        echo
        python3 "$S/bench/inhouse_speed/inhouse_report.py" --count "$counts"
    fi
} > "$OUT"
say "wrote $OUT"
