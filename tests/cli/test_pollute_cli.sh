#!/usr/bin/env bash
# `heapreplay replay --pollute SIZE[:LINES]` (docs/METRICS.md, "Cache
# pollution"): bad values exit 2 with one line naming the option; good ones
# are accepted; a replay with the model gives every deterministic figure
# (ops, peak footprint, failed allocations, status) as without it, on the
# C library and on an in-house allocator, and the report's command records
# the model (that the laps do the writes: tests/unit/test_pollute.c). No
# timing assertions. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup pollute jget
unset HR_POLLUTE

"$HR" gen session -o "$T/s.hrt" --events 20000 --seed 11 > /dev/null || skip_all "cannot generate"
R=("$HR" replay --warm-time 0 -r 1 -q "$T/s.hrt")

# 1. bad values: exit 2, one line on stderr naming the option and what it expects
for bad in some 0 63K 2G 4M: 4M:0 4M:1025 4M:8x NONE; do
    fails_one_line "--pollute $bad: exit 2, one line" \
        "option '--pollute' expects none or SIZE\[:LINES\], SIZE 64K..1G, LINES 1..1024, got '$bad'" \
        "${R[@]}" -a glibc --pollute "$bad"
done

# 2. good values are accepted (parse only: --help after them)
for good in none 64K 2M:16 1G:1024 100000:1; do
    check "--pollute $good is accepted" "$HR" replay --pollute "$good" --help
done

# 3. the model changes only the laps' time: every deterministic figure as without it
"${R[@]}" -a glibc,sizeclass --pollute 1M:8 -f json > "$T/on.json" 2> "$T/on.err"
"${R[@]}" -a glibc,sizeclass -f json > "$T/off.json" 2> /dev/null
same=1
# (glibc's peak footprint is left out: it moved by 0.6 MB between two replays
# of one build when other tests ran beside them; sizeclass's is its own
# arithmetic and must not move)
for i in 0 1; do
    keys="status ops.total failed_allocs"
    [ "$i" = 1 ] && keys="$keys memory.peak_footprint"
    for k in $keys; do
        a=$(jget "results.$i.$k" "$T/on.json") b=$(jget "results.$i.$k" "$T/off.json")
        [ -n "$a" ] && [ "$a" = "$b" ] || { same=0; echo "# results.$i.$k: $a with, $b without"; }
    done
done
check "--pollute 1M:8: status, ops, failed allocs (and sizeclass's peak footprint) as without it" [ "$same" = 1 ]
check "--pollute 1M:8: rows ok" [ "$(jget results.0.status "$T/on.json")" = ok ]
check "the report's command names the model" grep -q -- "--pollute 1M:8" "$T/on.json"

tap_done
