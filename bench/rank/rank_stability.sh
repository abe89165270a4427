#!/usr/bin/env bash
# Is the ranking of allocators reproducible? RUNS runs of
#   heapreplay replay TRACES -a ALLOCATORS -r REPEAT
# For each trace and each pair of allocators: in a run, the pair is
# "separated" when their METRIC intervals do not overlap (interval: the
# result's METRIC_min..METRIC_max when present, else median +- METRIC_mad,
# else the median alone). A pair separated in at least one run claims an
# order; it must then have the same order (sign of the median difference) in
# all RUNS runs. Reported per pair: runs separated, runs with each order, and
#   stable        the same order in every run
#   flipped       the order changed in some run, never against a separated run's
#                 order in another separated run
#   contradicted  two separated runs disagree (the harness claimed both orders)
# Writes results/rank-stability.md (or $OUT).
#
# Usage: bench/rank/rank_stability.sh [BUILDDIR]      (make bench-rank)
# Environment (defaults):
#   RUNS=10 REPEAT=5
#   ALLOCATORS=glibc,jemalloc,mimalloc,tcmalloc,block,bank
#   TRACES=                  space-separated traces (default: traces/*.hrt)
#   METRIC=time.ns_per_op    dotted path in a result (lower is better)
#   REPLAY_OPTS=             more `heapreplay replay` options
#   OUT=results/rank-stability.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
RUNS=${RUNS:-10}
REPEAT=${REPEAT:-5}
ALLOCATORS=${ALLOCATORS:-glibc,jemalloc,mimalloc,tcmalloc,block,bank}
METRIC=${METRIC:-time.ns_per_op}
REPLAY_OPTS=${REPLAY_OPTS:-}
OUT=${OUT:-$S/results/rank-stability.md}
CMD="RUNS=$RUNS REPEAT=$REPEAT ALLOCATORS=$ALLOCATORS METRIC=$METRIC${REPLAY_OPTS:+ REPLAY_OPTS='$REPLAY_OPTS'}${TRACES:+ TRACES='$TRACES'} bench/rank/rank_stability.sh"
traces=$(hr_traces)

# vals.tsv: run trace allocator median lo hi (null when the run failed)
: > "$W/vals.tsv"
for i in $(seq 1 "$RUNS"); do
    say "run $i/$RUNS: replay -r $REPEAT"
    # shellcheck disable=SC2086
    "$HR" replay $traces -a "$ALLOCATORS" -r "$REPEAT" -q -o "$W/run.json" $REPLAY_OPTS > /dev/null || true
    jq -r --arg run "$i" --arg m "$METRIC" '
        ($m | split(".")) as $p | ($p[:-1]) as $d | ($p[-1]) as $k |
        .results[] | (.trace | split("/") | last) as $t |
        if .status != "ok" then [$run, $t, .allocator, "null", "null", "null"]
        else getpath($p) as $v | (getpath($d) // {}) as $o |
            if $v == null then [$run, $t, .allocator, "null", "null", "null"]
            elif $o[$k + "_min"] != null and $o[$k + "_max"] != null then
                [$run, $t, .allocator, $v, $o[$k + "_min"], $o[$k + "_max"]]
            elif $o[$k + "_mad"] != null then
                [$run, $t, .allocator, $v, $v - $o[$k + "_mad"], $v + $o[$k + "_mad"]]
            else [$run, $t, .allocator, $v, $v, $v] end
        end | map(tostring) | @tsv' "$W/run.json" >> "$W/vals.tsv"
done
noise_src=$(jq -r --arg m "$METRIC" '($m | split(".")) as $p | ($p[-1]) as $k |
    .results[0] | getpath($p[:-1]) // {} |
    if has($k + "_min") then "min/max over the repeats (\($k)_min, \($k)_max)"
    elif has($k + "_mad") then "median +- MAD (\($k)_mad)" else "none reported (median only)" end' \
    "$W/run.json" 2> /dev/null || echo "?")

# pairs.tsv: trace a b separated_runs a_faster_runs b_faster_runs verdict
awk -F'\t' -v runs="$RUNS" '
    $4 != "null" { med[$2, $3, $1] = $4; lo[$2, $3, $1] = $5; hi[$2, $3, $1] = $6
                   if (!(($2, $3) in seen)) { seen[$2, $3] = 1; na[$2]++; al[$2, na[$2]] = $3 }
                   if (!($2 in tseen)) { tseen[$2] = 1; tr[++nt] = $2 } }
    END {
        for (ti = 1; ti <= nt; ti++) {
            t = tr[ti]
            for (x = 1; x <= na[t]; x++) for (y = x + 1; y <= na[t]; y++) {
                a = al[t, x]; b = al[t, y]; sep = 0; af = 0; bf = 0; sa = 0; sb = 0; n = 0
                for (r = 1; r <= runs; r++) {
                    if (!((t, a, r) in med) || !((t, b, r) in med)) continue
                    n++
                    d = med[t, a, r] - med[t, b, r]
                    if (d < 0) af++; else if (d > 0) bf++
                    if (hi[t, a, r] < lo[t, b, r]) { sep++; sa++ }
                    else if (hi[t, b, r] < lo[t, a, r]) { sep++; sb++ }
                }
                if (sep == 0) v = "unresolved"
                else if (sa > 0 && sb > 0) v = "contradicted"
                else if ((af == n) || (bf == n)) v = "stable"
                else v = "flipped"
                printf "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", t, a, b, n, sep, af, bf, v
            }
        }
    }' "$W/vals.tsv" > "$W/pairs.tsv"

count() { awk -F'\t' -v v="$1" '$8 == v' "$W/pairs.tsv" | wc -l; }
claimed=$(awk -F'\t' '$5 > 0' "$W/pairs.tsv" | wc -l)
{
    hr_header "rank stability of allocators over repeated runs" "$CMD"
    echo "Each run: \`heapreplay replay TRACES -a $ALLOCATORS -r $REPEAT $REPLAY_OPTS\`; metric \`$METRIC\`"
    echo "(lower is better); noise interval: $noise_src."
    echo
    echo "**Pairs separated in at least one run: $claimed; stable: $(count stable), flipped: $(count flipped),"
    echo "contradicted: $(count contradicted)** (never separated: $(count unresolved))."
    echo
    echo "| trace | pair (a vs b) | runs | separated | a faster | b faster | verdict |"
    echo "|---|---|---:|---:|---:|---:|---|"
    awk -F'\t' '{ printf "| %s | %s vs %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$W/pairs.tsv"
    echo
    echo "Median $METRIC per run (runs 1..$RUNS):"
    echo
    echo "| trace | allocator | per run |"
    echo "|---|---|---|"
    awk -F'\t' '{ k = $2 "\t" $3; if (!(k in v)) o[++n] = k
                  v[k] = v[k] (v[k] == "" ? "" : " ") ($4 == "null" ? "-" : sprintf("%.1f", $4)) }
         END { for (i = 1; i <= n; i++) { split(o[i], p, "\t"); printf "| %s | %s | %s |\n", p[1], p[2], v[o[i]] } }' \
        "$W/vals.tsv"
    echo
} > "$W/out.md"
hr_write_out
