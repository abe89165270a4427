#!/usr/bin/env bash
# How far does the reference itself move by code layout alone?
# fresh_agreement.sh holds heapreplay's warm ns/op against a hand-written
# replay (tests/tools/fresh_replay) to within 0.97-1.03. Two builds of the
# same source can differ by more than that: where the hot loop and the calls
# into the allocator fall relative to cache lines, fetch blocks and branch
# predictor entries is a property of one link, not of the program. This
# bench measures that floor on the reference: fresh_replay's object linked
# several times, each time after a padding object of K bytes of code (in
# .text and .text.startup, the sections the loop lands in), so everything of
# fresh_replay's code moves by K bytes and nothing else changes (same
# instructions, libraries, data, events). Interleaved rounds: in each round
# every (trace, allocator) runs every variant once, in an order turned by
# one each round.
#
# Per (trace, allocator): each variant's median warm ns/op over the rounds;
# the layout spread (the slowest variant's median over the fastest's) against
# the run spread (the median over the variants of one variant's slowest
# round over its fastest). A layout spread above TARGET (default 1.06, the
# width of the 0.97-1.03 band) means no replay can sit within the band of
# every build of the reference. Writes results/layout-floor-vm.md (or $OUT).
#
# Usage: bench/fresh/layout_floor.sh [BUILDDIR]      (make bench-layout-floor)
# Environment (defaults):
#   ROUNDS=5   PADS="0 16 32 48 64 128 256 1024"   (bytes of code ahead)
#   ALLOCATORS="glibc jemalloc mimalloc tcmalloc"
#   TRACES=    space-separated traces, paths from the source top (default:
#              traces/particles.hrt traces/frame_loop.hrt traces/level_load.hrt)
#   BIG_EVENTS=0   >0: also fresh_agreement.sh's generated trace (`gen
#              session --events N --seed 11`, in a temp folder)
#   WARM_TIME=0.5   fresh_replay's --warm-time (as fresh_agreement.sh)
#   TARGET=1.06     OUT=results/layout-floor-vm.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-5}
PADS=${PADS:-0 16 32 48 64 128 256 1024}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
WARM_TIME=${WARM_TIME:-0.5}
TARGET=${TARGET:-1.06}
OUT=${OUT:-$S/results/layout-floor-vm.md}
TRACES=${TRACES:-traces/particles.hrt traces/frame_loop.hrt traces/level_load.hrt}
BIG_EVENTS=${BIG_EVENTS:-0}
CMD="ROUNDS=$ROUNDS PADS='$PADS' ALLOCATORS='$ALLOCATORS' WARM_TIME=$WARM_TIME TRACES='$TRACES' BIG_EVENTS=$BIG_EVENTS bench/fresh/layout_floor.sh"
paths=""
for t in $TRACES; do paths="$paths $S/$t"; done
if [ "$BIG_EVENTS" != 0 ]; then
    paths="$paths $W/session_$BIG_EVENTS.hrt"
    "$HR" gen session -o "$W/session_$BIG_EVENTS.hrt" --events "$BIG_EVENTS" --seed 11 >&2
fi

# The variants: fresh_replay.o linked as hr_fresh_ref links it (hr_relink:
# heapreplay's libraries, its order), after pad_K.o: main (in .text.startup)
# moves by K, the lap (hr_fresh_lap, in .text) by 2K; both are shown.
base_main="" base_lap=""
for k in $PADS; do
    printf '\t.section .text.startup,"ax",@progbits\n\t.skip %d, 0x90\n\t.text\n\t.skip %d, 0x90\n' \
        "$k" "$k" > "$W/pad_$k.s"
    ${CC:-cc} -c -o "$W/pad_$k.o" "$W/pad_$k.s"
    hr_relink "$W/fresh_$k" "$W/pad_$k.o" "$B/tests/tools/fresh_replay.o" >&2
    m=$(nm "$W/fresh_$k" | awk '$3 == "main" { print $1 }')
    l=$(nm "$W/fresh_$k" | awk '$3 == "hr_fresh_lap" { print $1 }')
    [ -n "$base_main" ] || { base_main=$m; base_lap=$l; }
    say "variant +$k B: main at 0x$m, hr_fresh_lap at 0x$l"
    echo "$k $(( 0x$m - 0x$base_main )) $(( 0x$l - 0x$base_lap ))" >> "$W/variants.txt"
done

for t in $paths; do
    say "dump_events $(basename "$t")"
    "$DUMP" "$t" "$W/$(basename "$t").flat" >&2
done

# data.tsv: trace alloc round pad warm_ns_per_op
: > "$W/data.tsv"
for r in $(seq 1 "$ROUNDS"); do
    for t in $paths; do
        tn=$(basename "$t")
        for a in $ALLOCATORS; do
            lib=$(hr_lib "$a") || { say "skipping $a: not built"; continue; }
            # shellcheck disable=SC2086 # the pads are words
            for k in $(hr_turn "$r" $PADS); do
                say "round $r/$ROUNDS $tn $a +$k B"
                if [ -n "$lib" ]; then
                    LD_PRELOAD="$lib" "$W/fresh_$k" --warm-time "$WARM_TIME" "$W/$tn.flat" > "$W/f.json"
                else
                    env -u LD_PRELOAD "$W/fresh_$k" --warm-time "$WARM_TIME" "$W/$tn.flat" > "$W/f.json"
                fi
                printf '%s\t%s\t%s\t%s\t%s\n' "$tn" "$a" "$r" "$k" "$(jq -r .ns_per_op "$W/f.json")" \
                    >> "$W/data.tsv"
            done
        done
    done
done

# The table: per cell, each variant's median; layout and run spreads.
{
    hr_header "fresh_replay against itself: the same program in other code layouts" "$CMD"
    echo "Variants: \`tests/tools/fresh_replay.o\` linked after K bytes of code (K = $PADS),"
    echo "as bench/fresh/fresh_agreement.sh's reference is linked (heapreplay's libraries, its"
    echo "order); main and the lap function (hr_fresh_lap) moved by:"
    echo
    awk '{ printf "%s+%s B: %s and %s bytes", (NR > 1 ? ", " : ""), $1, $2, $3 } END { print "" }' "$W/variants.txt"
    echo
    echo "warm ns/op (thread CPU of the median warm lap / ops), median over $ROUNDS interleaved rounds."
    echo "layout spread: the slowest variant's median / the fastest's; run spread: per"
    echo "variant its slowest round / its fastest, the median over the variants."
    echo
    python3 - "$W/data.tsv" "$PADS" "$TARGET" <<'EOF'
import sys, statistics, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
order = []
for line in open(sys.argv[1]):
    t, a, r, k, v = line.rstrip("\n").split("\t")
    if v in ("null", ""):
        continue
    if (t, a) not in order:
        order.append((t, a))
    rows[(t, a)][k].append(float(v))
pads = sys.argv[2].split()
target = float(sys.argv[3])
print("| trace | allocator | " + " | ".join("+%s B" % k for k in pads) +
      " | layout spread | run spread | fastest, slowest |")
print("|---|---|" + "---:|" * len(pads) + "---:|---:|---|")
over = 0
for t, a in order:
    med = {k: statistics.median(v) for k, v in rows[(t, a)].items() if v}
    lo = min(med, key=med.get); hi = max(med, key=med.get)
    lay = med[hi] / med[lo]
    run = statistics.median(max(v) / min(v) for v in rows[(t, a)].values() if v)
    over += lay > target
    print("| %s | %s | %s | %.3f | %.3f | +%s B, +%s B |" % (
        t, a, " | ".join("%.2f" % med[k] if k in med else "-" for k in pads), lay, run, lo, hi))
print()
print("Cells whose layout spread exceeds %.2f: %d of %d." % (target, over, len(order)))
EOF
    echo
} > "$W/out.md"
hr_write_out > /dev/null
cat "$OUT"
