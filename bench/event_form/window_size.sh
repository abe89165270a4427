#!/usr/bin/env bash
# How large should a packed trace's event windows be? A packed trace (the
# default from 4 Mi events) is decoded HR_EVWIN events at a time into a
# harness buffer between two timed stretches (src/replay/engine_int.h); the
# decoding writes the buffer through the cache, which can evict the
# allocator's own data, while each window also costs a pair of clock reads.
# This runs builds that differ only in HR_EVWIN against the hand-written
# tests/tools/fresh_replay on the same events, interleaved per round:
#   for each trace, allocator, round: every build's
#     heapreplay replay TRACE -a ALLOC -r 1 -f json --warm-time W --memory-lap fast
#   then LD_PRELOAD=LIB fresh_replay --warm-time W TRACE.flat
# and prints per (trace, allocator, build) the warm ns/op ratio heapreplay /
# fresh (median [min-max] over the rounds) and, per build, its warm ns/op
# over the first build's within each round.
#
# Usage: bench/event_form/window_size.sh BUILDDIR    (BUILDDIR: fresh_replay, dump_events)
# Environment (defaults):
#   BINS="64k=PATH 4k=PATH"   label=heapreplay binary, in order; the first is the base
#   TRACES="gen:particles:10M gen:session:10M"   gen:SCENARIO:EVENTS (seed 11) or files
#   ALLOCATORS="mimalloc"  ROUNDS=6  WARM_TIME=0.5
#   FRESH_LIBS=linked      how fresh_replay maps heapreplay's libraries (hr_bench_lib.sh)
#   OUT=results/evwin-size-vm.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
: "${BINS:?set BINS=\"label=heapreplay ...\" (builds differing in HR_EVWIN)}"
TRACES=${TRACES:-gen:particles:10M gen:session:10M}
ALLOCATORS=${ALLOCATORS:-mimalloc}
ROUNDS=${ROUNDS:-6}
WARM_TIME=${WARM_TIME:-0.5}
OUT=${OUT:-$S/results/evwin-size-vm.md}
FRESH_LIBS=${FRESH_LIBS:-linked} # the same mappings in both processes (hr_bench_lib.sh)
CMD="BINS='$BINS' TRACES='$TRACES' ALLOCATORS='$ALLOCATORS' ROUNDS=$ROUNDS WARM_TIME=$WARM_TIME FRESH_LIBS=$FRESH_LIBS bench/event_form/window_size.sh"
same_libs=$(hr_same_libs "$FRESH_LIBS")
FRESH=$(hr_fresh_ref "$FRESH_LIBS" fresh_replay)

: > "$W/rows.tsv"   # trace alloc round label ns_per_op (label "fresh": fresh_replay)
for t in $TRACES; do
    case "$t" in
    gen:*) IFS=: read -r _ sc ev <<< "$t"; f="$W/${sc}_$ev.hrt"
           "$HR" gen "$sc" -o "$f" --events "$ev" --seed 11 > /dev/null ;;
    *) f=$t ;;
    esac
    "$DUMP" "$f" "$f.flat" > /dev/null
    tn=$(basename "$f" .hrt)
    for a in $ALLOCATORS; do
        lib=$(hr_lib "$a") || { say "skipping $a: not built"; continue; }
        for r in $(seq 1 "$ROUNDS"); do
            say "$tn $a round $r/$ROUNDS"
            for b in $BINS; do
                v=$("${b#*=}" replay "$f" -a "$a" -r 1 -f json --warm-time "$WARM_TIME" \
                    --memory-lap fast 2> /dev/null | jq '.results[0].time.ns_per_op')
                printf '%s\t%s\t%s\t%s\t%s\n' "$tn" "$a" "$r" "${b%%=*}" "$v" >> "$W/rows.tsv"
            done
            v=$(LD_PRELOAD="${lib:+$lib }$same_libs" "$FRESH" --warm-time "$WARM_TIME" "$f.flat" | jq .ns_per_op)
            printf '%s\t%s\t%s\tfresh\t%s\n' "$tn" "$a" "$r" "$v" >> "$W/rows.tsv"
        done
    done
    rm -f "$f.flat"
done

{
    hr_header "Packed traces: event window size against a fresh hand-written replay" "$CMD"
    echo "Builds (label=binary, differing only in HR_EVWIN): \`$BINS\`. Warm ns/op (thread CPU"
    echo "time of the median warm lap); ratios within a round, median [min-max] over $ROUNDS rounds."
    echo
    python3 - "$W/rows.tsv" "$BINS" << 'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
labels = [b.split("=", 1)[0] for b in sys.argv[2].split()]
v = {}
for t, a, r, lab, x in rows:
    if x not in ("null", ""):
        v[(t, a, r, lab)] = float(x)
def fmt(xs):
    return "%.3f [%.3f-%.3f]" % (statistics.median(xs), min(xs), max(xs)) if xs else "-"
keys = list(dict.fromkeys((t, a) for t, a, _, _, _ in rows))  # in the order run
print("| trace | allocator | fresh ns/op | " + " | ".join("%s / fresh" % l for l in labels) + " | " +
      " | ".join("%s / %s" % (l, labels[0]) for l in labels[1:]) + " |")
print("|---|---|---:|" + "---:|" * (2 * len(labels) - 1))
for t, a in keys:
    rs = sorted({r for tt, aa, r, _, _ in rows if (tt, aa) == (t, a)})
    fr = [v[(t, a, r, "fresh")] for r in rs if (t, a, r, "fresh") in v]
    cells = []
    for l in labels:
        cells.append(fmt([v[(t, a, r, l)] / v[(t, a, r, "fresh")] for r in rs
                          if (t, a, r, l) in v and (t, a, r, "fresh") in v]))
    for l in labels[1:]:
        cells.append(fmt([v[(t, a, r, l)] / v[(t, a, r, labels[0])] for r in rs
                          if (t, a, r, l) in v and (t, a, r, labels[0]) in v]))
    print("| %s | %s | %.2f | %s |" % (t, a, statistics.median(fr) if fr else 0, " | ".join(cells)))
EOF
    echo
    echo "Every value, in order (trace, allocator, round, build, warm ns/op):"
    echo
    echo '```'
    cat "$W/rows.tsv"
    echo '```'
    echo
} > "$W/out.md"
hr_write_out
