#!/usr/bin/env bash
# Does heapreplay measure what a fresh hand-written replay measures?
# For each shipped trace plus one large generated trace, and each external
# allocator, ROUNDS interleaved rounds of
#   A  heapreplay replay TRACE -a ALLOC -r 1 -f json
#   B  LD_PRELOAD=LIB tests/tools/fresh_replay FLATFILE   (same events, flat)
# then per (trace, allocator) the ratio heapreplay / fresh of the cold and of
# the warm ns/op: median and range over the rounds, and the harness's own
# cost per event (heapreplay - fresh warm ns/op, median of the rounds).
# Target: warm 0.97-1.03 (the cold lap, one lap of a fresh process, is
# shown beside it). Writes results/fresh-agreement.md (or $OUT).
#
# The real programs' traces (traces/real/*.hrt) run too. fresh_replay
# replays one thread in file order and touches blocks as policy `first`;
# where a trace has several threads or `touched` records, heapreplay is run
# with --threads serial or --touch first so that both do the same work (the
# table's options column says which).
#
# Usage: bench/fresh/fresh_agreement.sh [BUILDDIR]      (make bench-fresh)
# Environment (defaults):
#   ROUNDS=5                 rounds (A B per trace x allocator in each)
#   ALLOCATORS="glibc jemalloc mimalloc tcmalloc"
#   TRACES=                  space-separated traces (default: traces/*.hrt)
#   REAL=1                   also traces/real/*.hrt (0: not)
#   TARGET_LO=0.97 TARGET_HI=1.03   the warm ratio's target
#   SKIP=                    space-separated TRACE:ALLOC pairs not run, by the
#                            trace's file name (e.g. freeciv_ai.hrt:glibc)
#   BIG_SCENARIO=session BIG_EVENTS=10M   the generated trace (in a temp
#                            folder, never in git); BIG_EVENTS=0: none
#   WARM_TIME=0.5            --warm-time of both sides (heapreplay: only when
#                            its replay knows the option)
#   HR_OPTS=                 more `heapreplay replay` options
#   HR_COLD=.time.cold_ns_per_op  HR_WARM=.time.ns_per_op   heapreplay's
#                            figures (jq paths into a result)
#   FRESH_COLD=.cold_ns_per_op    FRESH_WARM=.ns_per_op     fresh_replay's
#                            (thread CPU time; .cold_wall_ns_per_op and
#                            .wall_ns_per_op are the wall-clock ones)
#   FRESH_LIBS=linked        how fresh_replay maps heapreplay's own shared
#                            libraries (libzstd, libz, libdw, libm and theirs):
#                            linked: relinked with heapreplay's DT_NEEDED list
#                            in its order; same: preloaded; none: not at all
#                            (bench/lib/hr_bench_lib.sh says why: glibc's
#                            frame_loop moves 82-99 ns/op with the layout)
#   PIN_PURGE=0              1: both sides run with the allocators' purging by
#                            the clock switched off (jemalloc's decay, mimalloc's
#                            delays: the environment `--count` sets, listed in
#                            src/replay/counter.c). A warm lap of such an
#                            allocator costs more the longer the laps before it
#                            took (more pages purged and faulted back), so two
#                            replays of one trace that lap at different paces
#                            differ by the allocator, not by the harness: the
#                            control that tells the two apart
#   OUT=results/fresh-agreement.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-5}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
BIG_SCENARIO=${BIG_SCENARIO:-session}
BIG_EVENTS=${BIG_EVENTS:-10M}
WARM_TIME=${WARM_TIME:-0.5}
HR_OPTS=${HR_OPTS:-}
HR_COLD=${HR_COLD:-.time.cold_ns_per_op}
HR_WARM=${HR_WARM:-.time.ns_per_op}
FRESH_COLD=${FRESH_COLD:-.cold_ns_per_op}
FRESH_WARM=${FRESH_WARM:-.ns_per_op}
FRESH_LIBS=${FRESH_LIBS:-linked}
PIN_PURGE=${PIN_PURGE:-0}
if [ "$PIN_PURGE" = 1 ]; then # the values of src/replay/counter.c (hr_count_pinned_env)
    export MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1
    export MIMALLOC_DECOMMIT_DELAY=1000000000 MIMALLOC_RESET_DELAY=1000000000
    export MIMALLOC_SEGMENT_DECOMMIT_DELAY=1000000000 MIMALLOC_DECOMMIT_EXTEND_DELAY=1000000000
fi
pin_shown=""
[ "$PIN_PURGE" != 1 ] || pin_shown=" PIN_PURGE=1"
REAL=${REAL:-1}
TARGET_LO=${TARGET_LO:-0.97}
TARGET_HI=${TARGET_HI:-1.03}
OUT=${OUT:-$S/results/fresh-agreement.md}
CMD="ROUNDS=$ROUNDS ALLOCATORS='$ALLOCATORS' BIG_SCENARIO=$BIG_SCENARIO BIG_EVENTS=$BIG_EVENTS WARM_TIME=$WARM_TIME FRESH_LIBS=$FRESH_LIBS REAL=$REAL${pin_shown}${SKIP:+ SKIP='$SKIP'}${HR_OPTS:+ HR_OPTS='$HR_OPTS'}${TRACES:+ TRACES='$TRACES'} bench/fresh/fresh_agreement.sh"

traces=$(hr_traces)
if [ "$REAL" != 0 ] && [ -z "${TRACES:-}" ]; then
    for t in "$S"/traces/real/*.hrt; do
        [ -f "$t" ] && traces="$traces"$'\n'"$t"
    done
fi
if [ "$BIG_EVENTS" != 0 ]; then
    big="$W/${BIG_SCENARIO}_$BIG_EVENTS.hrt"
    say "generating $big"
    "$HR" gen "$BIG_SCENARIO" -o "$big" --events "$BIG_EVENTS" --seed 11 >&2
    traces="$traces"$'\n'"$big"
fi
warm_opt=""
hr_has_warm_time && warm_opt="--warm-time $WARM_TIME"

same_libs=$(hr_same_libs "$FRESH_LIBS")
FRESH=$(hr_fresh_ref "$FRESH_LIBS" fresh_replay)
ref_shown=tests/tools/fresh_replay
[ "$FRESH_LIBS" = linked ] &&
    ref_shown="fresh_replay relinked with heapreplay's libraries in its order ($(hr_needed "$HR" | tr '\n' ' ' | sed 's/ $//'))"

# The flat event files, one per trace, and heapreplay's options that make it
# replay as fresh_replay does (trace_opts.tsv: trace, options).
: > "$W/trace_opts.tsv"
for t in $traces; do
    tn=$(basename "$t")
    say "dump_events $tn"
    "$DUMP" "$t" "$W/$tn.flat" >&2
    "$HR" info "$t" > "$W/info.txt"
    topts=$(awk '$1 == "threads" && $2 > 1 { o = o " --threads serial" }
                 $1 == "touched" && $2 > 0 { o = o " --touch first" }
                 END { sub(/^ /, "", o); print o }' "$W/info.txt")
    printf '%s\t%s\n' "$tn" "$topts" >> "$W/trace_opts.tsv"
done
trace_opts() { awk -F'\t' -v t="$1" '$1 == t { print $2 }' "$W/trace_opts.tsv"; }

# data.tsv: trace alloc round side cold warm (side: hr | fresh)
: > "$W/data.tsv"
# One table row per (trace, allocator): medians of each side and the ratios of
# the rounds (heapreplay / fresh of the same round).
stats() { # stats FILE_OF_NUMBERS -> "median [min-max]" or "-"
    local med lo hi
    med=$(hr_median < "$1"); lo=$(hr_min < "$1"); hi=$(hr_max < "$1")
    if [ "$med" = - ]; then echo "-"; else printf '%.3f [%.3f-%.3f]' "$med" "$lo" "$hi"; fi
}
num() { # num FILE_OF_NUMBERS -> the median with one decimal, or "-"
    local med
    med=$(hr_median < "$1")
    if [ "$med" = - ]; then echo "-"; else printf '%.1f' "$med"; fi
}
verdict() { # verdict MEDIAN_RATIO
    awk -v m="$1" -v lo="$TARGET_LO" -v hi="$TARGET_HI" \
        'BEGIN { if (m == "-") print "n/a"; else if (m >= lo && m <= hi) print "ok"; else print "OUT" }'
}
# The report of the rounds done so far ($1 of them): written after every round,
# so that a run stopped early still leaves its rounds in $OUT.
report() {
    local done=$1
    {
        hr_header "heapreplay vs a fresh hand-written replay" "$CMD"
        echo "Per round: \`heapreplay replay TRACE -a ALLOC -r 1 -f json $warm_opt $HR_OPTS\` then"
        echo "\`LD_PRELOAD=\"LIB${same_libs:+ $same_libs}\" $ref_shown --warm-time $WARM_TIME TRACE.flat\`, interleaved"
        echo "(A B per trace x allocator, $done of $ROUNDS rounds). heapreplay figures: \`$HR_COLD\` (cold),"
        echo "\`$HR_WARM\` (warm); fresh_replay: \`$FRESH_COLD\`, \`$FRESH_WARM\` (thread CPU time)."
        echo "Ratio = heapreplay / fresh within a round; median [min-max] over the rounds. Harness ns/event ="
        echo "heapreplay - fresh warm ns/op within a round, median over the rounds. Target (warm ratio):"
        echo "$TARGET_LO-$TARGET_HI. Options: what heapreplay was given beyond the above so that it replays as"
        echo "fresh_replay does (one thread in file order, touch \`first\`)."
        [ "$PIN_PURGE" != 1 ] || echo "Both sides ran with purging by the clock off:" \
            "\`MALLOC_CONF=$MALLOC_CONF\`, mimalloc's decommit and reset delays 10^9 ms."
        echo
        echo "| trace | allocator | options | hr cold ns/op | fresh cold ns/op | cold ratio | hr warm ns/op | fresh warm ns/op | warm ratio | harness ns/event | warm verdict |"
        echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
        for t in $traces; do
            tn=$(basename "$t")
            for a in $ALLOCATORS; do
                awk -F'\t' -v t="$tn" -v a="$a" '$1 == t && $2 == a { f = 1 } END { exit !f }' "$W/data.tsv" || continue
                for side in hr fresh; do
                    awk -F'\t' -v t="$tn" -v a="$a" -v s="$side" '$1 == t && $2 == a && $4 == s { print $5 }' "$W/data.tsv" > "$W/$side.cold"
                    awk -F'\t' -v t="$tn" -v a="$a" -v s="$side" '$1 == t && $2 == a && $4 == s { print $6 }' "$W/data.tsv" > "$W/$side.warm"
                done
                awk -F'\t' -v t="$tn" -v a="$a" '
                    $1 == t && $2 == a && ($4 == "hr" || $4 == "fresh") {
                        if ($4 == "hr") h[$3] = $6; else f[$3] = $6
                    }
                    END { for (r in h) if ((r in f) && h[r] != "null" && f[r] != "null") print h[r] - f[r] }' \
                    "$W/data.tsv" > "$W/diff.warm"
                for k in cold warm; do
                    awk -F'\t' -v t="$tn" -v a="$a" -v k="$k" '
                        $1 == t && $2 == a && ($4 == "hr" || $4 == "fresh") {
                            v = (k == "cold") ? $5 : $6
                            if ($4 == "hr") h[$3] = v; else f[$3] = v
                        }
                        END { for (r in h) if ((r in f) && h[r] != "null" && f[r] != "null" && f[r] > 0) print h[r] / f[r] }' \
                        "$W/data.tsv" > "$W/ratio.$k"
                done
                d=$(hr_median < "$W/diff.warm")
                [ "$d" = - ] || d=$(printf '%+.2f' "$d")
                topts=$(trace_opts "$tn")
                printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$tn" "$a" "${topts:--}" \
                    "$(num "$W/hr.cold")" "$(num "$W/fresh.cold")" "$(stats "$W/ratio.cold")" \
                    "$(num "$W/hr.warm")" "$(num "$W/fresh.warm")" "$(stats "$W/ratio.warm")" "$d" \
                    "$(verdict "$(hr_median < "$W/ratio.warm")")"
            done
        done
        echo
        awk -F' [|] ' '/^[|] / && NF > 10 && $11 ~ /^(ok|OUT|n\/a)/ { n++; if ($11 ~ /^ok/) k++ }
            END { printf "Warm ratio within %s-%s: %d of %d (trace, allocator) pairs.\n", lo, hi, k, n }' \
            lo="$TARGET_LO" hi="$TARGET_HI" "$W/out.md"
        if grep -q $'\terror\t' "$W/data.tsv"; then
            echo
            echo "Failed heapreplay runs:"
            echo
            awk -F'\t' '$4 == "error" { printf "- %s %s round %s: %s %s\n", $1, $2, $3, $5, $6 }' "$W/data.tsv"
        fi
        echo
        echo "<details><summary>Raw values (trace, allocator, round, side, cold ns/op, warm ns/op)</summary>"
        echo
        echo '```'
        awk -F'\t' -v OFS='\t' '{ for (i = 5; i <= 6; i++) if ($i ~ /^[0-9.]+$/) $i = sprintf("%.2f", $i); print }' "$W/data.tsv"
        echo '```'
        echo "</details>"
        echo
    } > "$W/out.md"
    hr_write_out > /dev/null
}

for r in $(seq 1 "$ROUNDS"); do
    for t in $traces; do
        tn=$(basename "$t")
        for a in $ALLOCATORS; do
            case " ${SKIP:-} " in *" $tn:$a "*) continue ;; esac
            if ! lib=$(hr_lib "$a"); then
                say "skipping $a: not found at configure time"
                continue
            fi
            say "round $r/$ROUNDS $tn $a: heapreplay"
            # shellcheck disable=SC2086
            "$HR" replay "$t" -a "$a" -r 1 -q -f json $warm_opt $HR_OPTS $(trace_opts "$tn") > "$W/hr.json" || true
            jq -r --arg t "$tn" --arg a "$a" --arg r "$r" '.results[0] | if .status == "ok"
                then [$t, $a, $r, "hr", ('"$HR_COLD"' // "null"), ('"$HR_WARM"' // "null")]
                else [$t, $a, $r, "error", .status, (.error // "")] end | @tsv' "$W/hr.json" >> "$W/data.tsv" ||
                printf '%s\t%s\t%s\terror\tno report\t\n' "$tn" "$a" "$r" >> "$W/data.tsv"
            say "round $r/$ROUNDS $tn $a: fresh_replay"
            if [ -n "$lib$same_libs" ]; then
                LD_PRELOAD="${lib:+$lib }$same_libs" "$FRESH" --warm-time "$WARM_TIME" "$W/$tn.flat" > "$W/fresh.json"
            else
                env -u LD_PRELOAD "$FRESH" --warm-time "$WARM_TIME" "$W/$tn.flat" > "$W/fresh.json"
            fi
            prov=$(jq -r .malloc_provider "$W/fresh.json")
            if { [ -n "$lib" ] && [ "$(readlink -f "$prov")" != "$(readlink -f "$lib")" ]; } ||
               { [ -z "$lib" ] && [[ "$prov" != */libc.so* ]]; }; then
                echo "fresh_replay measured malloc from $prov, not from ${lib:-the C library}" >&2
                exit 1
            fi
            jq -r --arg t "$tn" --arg a "$a" --arg r "$r" \
                '[$t, $a, $r, "fresh", ('"$FRESH_COLD"' // "null"), ('"$FRESH_WARM"' // "null")] | @tsv' \
                "$W/fresh.json" >> "$W/data.tsv"
        done
    done
    report "$r"
done
cat "$OUT"
