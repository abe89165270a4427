#!/usr/bin/env bash
# False alarms and power of compare's program mode on examples/game, run as
# the game CI template runs it (contrib/ci/heapreplay-game-ci.sh: capture,
# replay -a glibc,jemalloc -r 3 --count callgrind, compare --mode program):
#   - PAIRS+1 captures of the unchanged game, each replayed; run i compared
#     with run i+1 (PAIRS identical pairs): with the defaults, and with the
#     allocator time gated too (--max-regress time.cold_cpu_s=10%);
#   - PAIRS captures of the regressed game (HR_GAME_REGRESS=1: twice the
#     per-frame temporaries), run i compared with unchanged run i: caught
#     (exit 1), and the first line naming allocations per frame.
# Writes results/game-ci-<host>.md.
#
# Usage: bench/game_ci/game_ci.sh BUILDDIR
# Environment: PAIRS=20  ALLOCS=glibc,jemalloc  OPTS="-r 3 --count callgrind"
#              OUT=results/game-ci-<host>.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr game_ci.sh "${1:-.}"
PAIRS=${PAIRS:-20}
ALLOCS=${ALLOCS:-glibc,jemalloc}
OPTS=${OPTS:-"-r 3 --count callgrind"}
OUT=${OUT:-"$S/results/game-ci-$(hostname -s).md"}
cc -O1 -g -I"$S/include" -o "$W/game" "$S/examples/game/game.c"

# run NAME REGRESS: one run of the game captured and replayed -> $W/NAME/report.json
run() {
    mkdir -p "$W/$1"
    HR_GAME_REGRESS=$2 "$HR" capture -o "$W/$1/game.hrt" -s /dev/null -- "$W/game" 120 >/dev/null
    # shellcheck disable=SC2086 # OPTS is a word list
    "$HR" replay "$W/$1/game.hrt" -a "$ALLOCS" $OPTS -q -o "$W/$1/report.json" >/dev/null
}

say "$((2 * PAIRS + 1)) captures and replays"
for i in $(seq 0 "$PAIRS"); do run "same$i" 0; done
for i in $(seq 1 "$PAIRS"); do run "regr$i" 1; done

fa=0 fa_t=0 moved=0 caught=0 caught_t=0 named=0
for i in $(seq 1 "$PAIRS"); do
    a="$W/same$((i - 1))/report.json" b="$W/same$i/report.json" r="$W/regr$i/report.json"
    "$HR" compare "$a" "$b" --mode program >"$W/c.txt" 2>&1 || fa=$((fa + 1))
    if grep -q "(measured)" "$W/c.txt"; then moved=$((moved + 1)); fi
    "$HR" compare "$a" "$b" --mode program --max-regress time.cold_cpu_s=10% >/dev/null 2>&1 ||
        fa_t=$((fa_t + 1))
    rc=0
    "$HR" compare "$a" "$r" --mode program >"$W/r.txt" 2>&1 || rc=$?
    [ $rc != 1 ] || caught=$((caught + 1))
    if head -1 "$W/r.txt" | grep -q "^allocations per frame [0-9]"; then named=$((named + 1)); fi
    # the allocator time alone: every deterministic figure's threshold out of reach
    rc=0
    "$HR" compare "$a" "$r" --mode program --max-regress "time.cold_cpu_s=10%,frames.allocs_mean=1e9,\
frames.allocs_p99=1e9,frames.allocs_max=1e9,frames.bytes_mean=1e9,frames.bytes_p99=1e9,\
frames.bytes_max=1e9,ops.events=1e9,program.allocations=1e9,memory.peak_live=1e9,load.events=1e9,\
load.allocs=1e9,load.bytes=1e9,load.peak_live=1e9,count.instructions=1e9" >/dev/null 2>&1 || rc=$?
    [ $rc != 1 ] || caught_t=$((caught_t + 1))
done

{
    hr_header "compare's program mode on examples/game: false alarms and power" \
        "PAIRS=$PAIRS ALLOCS=$ALLOCS OPTS=\"$OPTS\" bench/game_ci/game_ci.sh BUILDDIR"
    cat <<REPORT
Each run captures \`examples/game/game 120\` (a load, then 120 play frames of 40
temporaries each) and replays it as the CI template does; the regressed game
(\`HR_GAME_REGRESS=1\`) makes 80 temporaries a frame.

| pairs | what | result |
|---|---|---|
| $PAIRS identical pairs (run i vs run i+1 of the unchanged game) | default program-mode gates: exit 1 (false alarm) | **$fa of $PAIRS** |
| the same pairs | a timing or RSS figure beyond its threshold, shown as \`measured\` (not gated) | $moved of $PAIRS |
| the same pairs | allocator time gated too (\`--max-regress time.cold_cpu_s=10%\`): exit 1 | $fa_t of $PAIRS |
| $PAIRS regressed pairs (unchanged run i vs regressed run i) | default gates: exit 1 (caught) | **$caught of $PAIRS** |
| the same pairs | the first line names allocations per frame | $named of $PAIRS |
| the same pairs | the allocator time alone gated (10 %; every other threshold out of reach): exit 1 | $caught_t of $PAIRS |

Last regressed pair's first line: \`$(head -1 "$W/r.txt")\`

How to read it: the trace's own figures (allocations and bytes per frame,
events, peak live, blocks never freed, the load) and the allocator's
instruction count are the same for two captures of a deterministic game, so
the default gates call only a change of the program. The timings and RSS of
the replay (allocator time, worst play frame, peak RSS) move between
identical runs on a shared machine; the third row is the false-alarm rate of
gating the allocator time here, the last row what that gate alone catches of
a doubling.
REPORT
} >"$W/out.md"
hr_write_out
