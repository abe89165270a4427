#!/usr/bin/env bash
# How often does compare cry wolf? PAIRS pairs of identical runs
#   heapreplay replay TRACES -a ALLOCATORS REPLAY_OPTS -o old.json
#   heapreplay replay TRACES -a ALLOCATORS REPLAY_OPTS -o new.json
# (same binary, same traces, same options), each pair judged by COMPARE.
# Nothing changed, so every pair compare fails (exit 1) is a false alarm; the
# rows it marks REGRESSION are tallied by trace, allocator and metric.
# Writes results/false-alarms.md (or $OUT).
#
# Usage: bench/false_alarms/false_alarms.sh [BUILDDIR]      (make bench-false-alarms)
# Environment (defaults):
#   PAIRS=20
#   ALLOCATORS=glibc,jemalloc,mimalloc,tcmalloc,block,bank
#   TRACES=                  space-separated traces (default: traces/*.hrt)
#   REPLAY_OPTS=             more `heapreplay replay` options (e.g. "-r 3")
#   COMPARE='"$HR" compare "$OLD" "$NEW"'   the judge: a shell command run by
#                            bash -c with HR (the binary), OLD and NEW (the two
#                            reports) in its environment; exit 1 = regression,
#                            rows are the stdout lines whose last field is
#                            REGRESSION (compare's text table)
#   OUT=results/false-alarms.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
PAIRS=${PAIRS:-20}
ALLOCATORS=${ALLOCATORS:-glibc,jemalloc,mimalloc,tcmalloc,block,bank}
REPLAY_OPTS=${REPLAY_OPTS:-}
COMPARE=${COMPARE:-'"$HR" compare "$OLD" "$NEW"'}
OUT=${OUT:-$S/results/false-alarms.md}
CMD="PAIRS=$PAIRS ALLOCATORS=$ALLOCATORS${REPLAY_OPTS:+ REPLAY_OPTS='$REPLAY_OPTS'}${TRACES:+ TRACES='$TRACES'} COMPARE='$COMPARE' bench/false_alarms/false_alarms.sh"
traces=$(hr_traces)
export HR OLD="$W/old.json" NEW="$W/new.json"

run() { # run OUTFILE: one replay of every trace on every allocator
    # shellcheck disable=SC2086
    "$HR" replay $traces -a "$ALLOCATORS" -q -o "$1" $REPLAY_OPTS > /dev/null || true
}

: > "$W/pairs.tsv"   # pair exit rows
: > "$W/rows.txt"    # one line per regressing row: trace allocator metric
for i in $(seq 1 "$PAIRS"); do
    say "pair $i/$PAIRS: old run"
    run "$OLD"
    say "pair $i/$PAIRS: new run"
    run "$NEW"
    rc=0
    bash -c "$COMPARE" > "$W/cmp.out" 2> "$W/cmp.err" || rc=$?
    awk '$NF == "REGRESSION" { print $1, $2, $3 }' "$W/cmp.out" > "$W/cmp.rows"
    n=$(wc -l < "$W/cmp.rows")
    cat "$W/cmp.rows" >> "$W/rows.txt"
    printf '%s\t%s\t%s\t%s\n' "$i" "$rc" "$n" "$(paste -sd';' "$W/cmp.rows")" >> "$W/pairs.tsv"
    [ "$rc" != 2 ] || say "pair $i: compare exit 2: $(head -c 300 "$W/cmp.err")"
    say "pair $i/$PAIRS: compare exit $rc, $n regressing rows"
done
n_results=$(jq '.results | length' "$NEW" 2> /dev/null || echo "?")
n_bad=$(jq '[.results[] | select(.status != "ok")] | length' "$NEW" 2> /dev/null || echo "?")

alarms=$(awk -F'\t' '$2 == 1' "$W/pairs.tsv" | wc -l)
errors=$(awk -F'\t' '$2 != 0 && $2 != 1' "$W/pairs.tsv" | wc -l)
rows=$(wc -l < "$W/rows.txt")
{
    hr_header "compare's false alarms on identical runs" "$CMD"
    echo "Each pair: two identical \`heapreplay replay TRACES -a $ALLOCATORS $REPLAY_OPTS\` runs"
    echo "($(echo "$traces" | wc -l) traces: $(for t in $traces; do basename "$t"; done | paste -sd' ')),"
    echo "judged by \`$COMPARE\`. Results per run: $n_results ($n_bad not ok in the last run)."
    echo
    echo "**False alarms: $alarms of $PAIRS pairs** (compare exit 1); $rows regressing rows in all;"
    echo "$errors pairs with another exit status (2 = bad input)."
    echo
    echo "| pair | compare exit | regressing rows | rows (trace allocator metric) |"
    echo "|---:|---:|---:|---|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$W/pairs.tsv"
    echo
    if [ "$rows" -gt 0 ]; then
        echo "Regressing rows by trace, allocator and metric (pairs in which each failed):"
        echo
        echo "| trace | allocator | metric | pairs |"
        echo "|---|---|---|---:|"
        sort "$W/rows.txt" | uniq -c | sort -k1,1nr -k2 | awk '{ printf "| %s | %s | %s | %s |\n", $2, $3, $4, $1 }'
        echo
        echo "By metric:"
        echo
        awk '{ print $3 }' "$W/rows.txt" | sort | uniq -c | sort -k1,1nr | awk '{ printf "- %s: %s rows\n", $2, $1 }'
        echo
    fi
} > "$W/out.md"
hr_write_out
