#!/usr/bin/env bash
# Does heapreplay's threaded replay measure what a hand-written multithreaded
# replay measures? On the job-system scenario (`gen jobs`) with
# 1, 2 and 4 threads, ROUNDS interleaved rounds of, per allocator,
#   A  heapreplay replay TRACE -a ALLOC -r 1 -f json     (--threads recorded)
#   B  LD_PRELOAD=LIB tests/tools/fresh_mt_replay FLAT   (same events, one
#      pthread per recorded thread, hand-offs on per-block ready flags)
# then per (threads, allocator) the whole-process throughput (memory ops /
# wall time of the median warm lap, first thread's start to last thread's
# end) of each side, their ratio per round (median and range; target
# 0.95-1.05), and per thread count the ranking of the allocators on each
# side: where both sides separate a pair (the rounds' ranges do not
# overlap), do they order it the same way?
# Writes results/threads-agreement.md (or $OUT).
#
# Usage: bench/threads/threads_agreement.sh [BUILDDIR]      (make bench-threads)
# Environment (defaults):
#   ROUNDS=5  THREADS="1 2 4"  EVENTS=2M  SCENARIO=jobs  SEED=5
#   ALLOCATORS="glibc jemalloc mimalloc tcmalloc"
#   WARM_TIME=0.5            --warm-time of both sides
#   HR_OPTS=                 more `heapreplay replay` options
#   FRESH_LIBS=linked        how fresh_mt_replay maps heapreplay's own shared
#                            libraries: linked (relinked in heapreplay's order),
#                            same (preloaded) or none (bench/lib/hr_bench_lib.sh);
#                            linked relinks with cc: on a machine without a C
#                            compiler use same
#   OUT=results/threads-agreement.md
#   DATA_COPY=               a file the raw per-round data is copied to after every
#                            round (a run cut short by a time limit keeps its rounds)
#   FROM_DATA=               render the tables from such a file instead of measuring
#   MACHINE_NOTE=            a line about the machine for the results file (e.g. that it
#                            runs under gVisor)
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-1 2 4}
EVENTS=${EVENTS:-2M}
SCENARIO=${SCENARIO:-jobs}
SEED=${SEED:-5}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
WARM_TIME=${WARM_TIME:-0.5}
HR_OPTS=${HR_OPTS:-}
FRESH_LIBS=${FRESH_LIBS:-linked}
DATA_COPY=${DATA_COPY:-}
FROM_DATA=${FROM_DATA:-}
MACHINE_NOTE=${MACHINE_NOTE:-}
OUT=${OUT:-$S/results/threads-agreement.md}
CMD="ROUNDS=$ROUNDS THREADS='$THREADS' EVENTS=$EVENTS SCENARIO=$SCENARIO SEED=$SEED ALLOCATORS='$ALLOCATORS' WARM_TIME=$WARM_TIME FRESH_LIBS=$FRESH_LIBS${HR_OPTS:+ HR_OPTS='$HR_OPTS'} bench/threads/threads_agreement.sh"
same_libs=$(hr_same_libs "$FRESH_LIBS")
FRESH_MT=$(hr_fresh_ref "$FRESH_LIBS" fresh_mt_replay)
mt_shown=tests/tools/fresh_mt_replay
[ "$FRESH_LIBS" = linked ] && mt_shown="fresh_mt_replay relinked with heapreplay's libraries in its order"

measure() {
for n in $THREADS; do
    say "gen $SCENARIO --threads $n --events $EVENTS"
    "$HR" gen "$SCENARIO" -o "$W/t$n.hrt" --events "$EVENTS" --seed "$SEED" --threads "$n" >&2
    "$DUMP" "$W/t$n.hrt" "$W/t$n.flat" >&2
done

# data.tsv: threads alloc round side ops_per_s cold_ops_per_s cpu_ns_per_op
: > "$W/data.tsv"
for r in $(seq 1 "$ROUNDS"); do
    for n in $THREADS; do
        for a in $ALLOCATORS; do
            if ! lib=$(hr_lib "$a"); then
                say "skipping $a: not found at configure time"
                continue
            fi
            say "round $r/$ROUNDS threads $n $a"
            # shellcheck disable=SC2086
            "$HR" replay "$W/t$n.hrt" -a "$a" -r 1 -q -f json --warm-time "$WARM_TIME" $HR_OPTS \
                > "$W/hr.json" || true
            jq -r --arg n "$n" --arg a "$a" --arg r "$r" '.results[0] | if .status == "ok" then
                [$n, $a, $r, "hr", (.threads.ops_per_s // (.ops.total / .time.wall_s)),
                 (.threads.cold_ops_per_s // (.ops.total / .time.cold_wall_s)), .time.ns_per_op]
                else [$n, $a, $r, "error", .status, (.error // ""), ""] end | @tsv' \
                "$W/hr.json" >> "$W/data.tsv" ||
                printf '%s\t%s\t%s\terror\tno report\t\t\n' "$n" "$a" "$r" >> "$W/data.tsv"
            if [ -n "$lib$same_libs" ]; then
                LD_PRELOAD="${lib:+$lib }$same_libs" "$FRESH_MT" --warm-time "$WARM_TIME" "$W/t$n.flat" \
                    > "$W/fresh.json"
            else
                env -u LD_PRELOAD "$FRESH_MT" --warm-time "$WARM_TIME" "$W/t$n.flat" > "$W/fresh.json"
            fi
            prov=$(jq -r .malloc_provider "$W/fresh.json")
            if { [ -n "$lib" ] && [ "$(readlink -f "$prov")" != "$(readlink -f "$lib")" ]; } ||
               { [ -z "$lib" ] && [[ "$prov" != */libc.so* ]]; }; then
                echo "fresh_mt_replay measured malloc from $prov, not from ${lib:-the C library}" >&2
                exit 1
            fi
            jq -r --arg n "$n" --arg a "$a" --arg r "$r" \
                '[$n, $a, $r, "fresh", .ops_per_s, .cold_ops_per_s, .ns_per_op] | @tsv' \
                "$W/fresh.json" >> "$W/data.tsv"
        done
    done
    [ -z "$DATA_COPY" ] || cp "$W/data.tsv" "$DATA_COPY"
done
}
if [ -n "$FROM_DATA" ]; then
    cp "$FROM_DATA" "$W/data.tsv"
    rounds_done=$(cut -f3 "$W/data.tsv" | sort -n | tail -1)
    [ "$rounds_done" = "$ROUNDS" ] || CMD="$CMD (cut short: $rounds_done of $ROUNDS rounds done)"
else
    measure
fi

# col N SIDE THREADS ALLOC -> that column's values, one a line
col() { awk -F'\t' -v c="$1" -v s="$2" -v n="$3" -v a="$4" '$4 == s && $1 == n && $2 == a { print $c }' "$W/data.tsv"; }
# ratio COL THREADS ALLOC -> hr / fresh per round
ratio() {
    awk -F'\t' -v c="$1" -v n="$2" -v a="$3" '$1 == n && $2 == a {
        if ($4 == "hr") h[$3] = $c; else if ($4 == "fresh") f[$3] = $c }
        END { for (r in h) if ((r in f) && f[r] > 0 && h[r] != "null") print h[r] / f[r] }' "$W/data.tsv"
}
mops() { # median [min-max] of ops/s on stdin, in M ops/s
    local v med; v=$(cat); med=$(echo "$v" | hr_median)
    [ "$med" = - ] && { echo -; return; }
    awk -v m="$med" -v l="$(echo "$v" | hr_min)" -v h="$(echo "$v" | hr_max)" \
        'BEGIN { printf "%.1f [%.1f-%.1f]", m / 1e6, l / 1e6, h / 1e6 }'
}
rng() { # median [min-max] of numbers on stdin, 3 decimals
    local v; v=$(cat)
    local med; med=$(echo "$v" | hr_median); [ "$med" = - ] && { echo -; return; }
    printf '%.3f [%.3f-%.3f]' "$med" "$(echo "$v" | hr_min)" "$(echo "$v" | hr_max)"
}
verdict() { awk -v m="$1" 'BEGIN { if (m == "-") print "n/a"; else if (m >= 0.95 && m <= 1.05) print "ok"; else print "OUT" }'; }

# ranking SIDE THREADS -> "a 12.3 > b 10.1 ≈ c 9.9" by median ops/s; ">"
# where the two neighbours' rounds do not overlap.
ranking() {
    awk -F'\t' -v s="$1" -v n="$2" '$4 == s && $1 == n && $5 != "null" {
            v[$2] = v[$2] " " $5; if (!($2 in lo) || $5 < lo[$2]) lo[$2] = $5; if ($5 > hi[$2]) hi[$2] = $5 }
        END { for (a in v) { k = split(v[a], x, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
                  if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
              m[a] = (k % 2) ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2; print m[a] "\t" a "\t" lo[a] "\t" hi[a] } }' \
        "$W/data.tsv" | sort -g -r | awk -F'\t' '{ if (NR > 1) printf " %s ", (plo > $4) ? ">" : "≈"
            printf "%s %.1f", $2, $1 / 1e6; plo = $3 } END { print "" }'
}

# pairs THREADS -> "agree contradict noise" over allocator pairs: separated on
# both sides (rounds do not overlap) in the same / opposite order, or within
# noise on at least one side.
pairs() {
    awk -F'\t' -v n="$1" '$1 == n && ($4 == "hr" || $4 == "fresh") && $5 != "null" {
            k = $4 SUBSEP $2; if (!(k in lo) || $5 < lo[k]) lo[k] = $5; if ($5 > hi[k]) hi[k] = $5; al[$2] = 1 }
        function sep(s, a, b) { return lo[s SUBSEP a] > hi[s SUBSEP b] ? 1 : (lo[s SUBSEP b] > hi[s SUBSEP a] ? -1 : 0) }
        END { for (a in al) for (b in al) if (a < b) { h = sep("hr", a, b); f = sep("fresh", a, b)
                  if (h && f && h == f) ag++; else if (h && f) { co++; cl = cl " " a "/" b } else no++ }
              printf "%d %d %d%s\n", ag, co, no, cl }' "$W/data.tsv"
}

{
    hr_header "heapreplay threaded replay vs a hand-written multithreaded replay" "$CMD"
    [ -z "$MACHINE_NOTE" ] || echo "- $MACHINE_NOTE"
    maxn=$(printf '%s\n' $THREADS | sort -n | tail -1)
    if [ "$(nproc)" -ge "$maxn" ]; then
        echo "- cores: $(nproc): every thread count measured has a core for each thread."
    else
        echo "- cores: $(nproc): with more threads than cores the replay is oversubscribed (threads"
        echo "  share cores and the scheduler's time slices enter the figures)."
    fi
    echo
    echo "Traces: \`heapreplay gen $SCENARIO --threads N --events $EVENTS --seed $SEED\` (a job system: workers"
    echo "allocate small blocks that another thread frees), N in $THREADS:"
    echo
    for n in $THREADS; do
        [ -f "$W/t$n.flat" ] || continue # rendered from saved data
        env -u LD_PRELOAD "$FRESH_MT" --warm-laps 0 "$W/t$n.flat" |
            jq -r --arg n "$n" '"- \($n) thread(s): \(.threads) threads recorded, \(.ops) memory ops, \(.handoffs) cross-thread frees"'
    done
    echo
    echo "Per round, per allocator: \`heapreplay replay TRACE -a ALLOC -r 1 -f json --warm-time $WARM_TIME $HR_OPTS\`"
    echo "then \`LD_PRELOAD=\"LIB${same_libs:+ $same_libs}\" $mt_shown --warm-time $WARM_TIME TRACE.flat\`"
    echo "($ROUNDS rounds, A B interleaved). Throughput = memory ops / wall time of the median warm lap,"
    echo "from the first thread's start to the last thread's end (heapreplay: \`threads.ops_per_s\`;"
    echo "one thread: \`ops.total / time.wall_s\`). Ratio = heapreplay / hand-written within a round;"
    echo "median [min-max] over the rounds; target 0.95-1.05. CPU ns/op: every thread's CPU time less"
    echo "its waiting, per op (median)."
    echo
    echo "| threads | allocator | heapreplay M ops/s | hand-written M ops/s | ratio | verdict | hr CPU ns/op | hw CPU ns/op |"
    echo "|---:|---|---:|---:|---:|---|---:|---:|"
    for n in $THREADS; do
        for a in $ALLOCATORS; do
            [ -n "$(col 5 fresh "$n" "$a")" ] || continue
            med=$(ratio 5 "$n" "$a" | hr_median)
            printf '| %s | %s | %s | %s | %s | %s | %.1f | %.1f |\n' "$n" "$a" \
                "$(col 5 hr "$n" "$a" | mops)" "$(col 5 fresh "$n" "$a" | mops)" \
                "$(ratio 5 "$n" "$a" | rng)" "$(verdict "$med")" \
                "$(col 7 hr "$n" "$a" | hr_median)" "$(col 7 fresh "$n" "$a" | hr_median)"
        done
    done
    echo
    echo "Cold lap (the first lap in a fresh process), ratio heapreplay / hand-written of the throughput:"
    echo
    echo "| threads | allocator | cold ratio |"
    echo "|---:|---|---:|"
    for n in $THREADS; do
        for a in $ALLOCATORS; do
            [ -n "$(col 6 fresh "$n" "$a")" ] || continue
            printf '| %s | %s | %s |\n' "$n" "$a" "$(ratio 6 "$n" "$a" | rng)"
        done
    done
    echo
    echo "Rankings by median warm throughput (M ops/s; \`>\`: the rounds do not overlap, \`≈\`: they do)."
    echo "Pairs: separated on both sides in the same order / in opposite orders / within noise on a side."
    echo
    for n in $THREADS; do
        read -r ag co no cl <<< "$(pairs "$n")"
        echo "- **$n thread(s)**: heapreplay \`$(ranking hr "$n")\`; hand-written \`$(ranking fresh "$n")\`;"
        echo "  pairs: $ag agree, $co contradict${cl:+ ($cl)}, $no within noise on a side."
    done
    if grep -q $'\terror\t' "$W/data.tsv"; then
        echo
        echo "Failed heapreplay runs:"
        echo
        awk -F'\t' '$4 == "error" { printf "- %s threads %s round %s: %s %s\n", $1, $2, $3, $5, $6 }' "$W/data.tsv"
    fi
    echo
    echo "<details><summary>Raw values (threads, allocator, round, side, ops/s, cold ops/s, CPU ns/op)</summary>"
    echo
    echo '```'
    cat "$W/data.tsv"
    echo '```'
    echo "</details>"
    echo
} > "$W/out.md"
hr_write_out
