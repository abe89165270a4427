#!/usr/bin/env bash
# The packed event form against the decoded one: does
# reading the events packed, decoded 64 k at a time between the timed
# stretches, move the timings? Same trace, same allocators, the two forms
# interleaved (round r: decoded then packed on odd rounds, packed then
# decoded on even ones), each a separate `replay -r 1`. Prints, per trace and
# allocator, the median and range over rounds of packed / decoded for the
# warm and the cold ns/op; a ratio whose range holds 1 is within noise.
#
#   bash bench/event_form/event_form.sh BUILDDIR      (make bench-event-form)
#   ROUNDS=7  TRACES="traces/game_session.hrt gen:session:5M"  (gen:SCENARIO:N
#   generates one) ALLOCATORS=glibc,jemalloc,mimalloc,tcmalloc,block
#   PIN="taskset -c 0"  WARM_TIME=0.3  OUT=results/event-form-<host>.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-7}
TRACES=${TRACES:-"$S/traces/game_session.hrt gen:session:5M"}
ALLOCATORS=${ALLOCATORS:-glibc,jemalloc,mimalloc,tcmalloc,block}
PIN=${PIN:-"taskset -c 0"}
WARM_TIME=${WARM_TIME:-0.3}
OUT=${OUT:-"$S/results/event-form-$(hostname -s).md"}

paths=""
for tr in $TRACES; do
    case $tr in
    gen:*)
        IFS=: read -r _ sc n <<< "$tr"
        "$HR" gen "$sc" -n "$n" --seed 21 -o "$W/$sc-$n.hrt" > /dev/null
        paths="$paths $W/$sc-$n.hrt"
        ;;
    *) paths="$paths $tr" ;;
    esac
done

for r in $(seq 1 "$ROUNDS"); do
    order="decoded packed"
    [ $((r % 2)) = 0 ] && order="packed decoded"
    for p in $paths; do
        for form in $order; do
            $PIN "$HR" replay -q -a "$ALLOCATORS" -r 1 --warm-time "$WARM_TIME" \
                --event-form "$form" "$p" -o "$W/$(basename "$p").$form.$r.json" > /dev/null
        done
    done
    say "round $r of $ROUNDS done"
done

{
    hr_header "Packed vs decoded events: timing agreement" \
        "ROUNDS=$ROUNDS TRACES='$TRACES' ALLOCATORS=$ALLOCATORS PIN='$PIN' WARM_TIME=$WARM_TIME bash bench/event_form/event_form.sh"
    python3 "$S/bench/event_form/event_form_report.py" "$W" $paths
} > "$W/out.md"
hr_write_out
