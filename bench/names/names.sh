#!/usr/bin/env bash
# Names: the cost of many distinct heap and mark names. Traces of N distinct
# marks, and of N push+pop pairs of distinct heaps, are converted (text ->
# binary), read by info, and converted back; the time per step should grow
# with N (ratio ~10 per 10x names), not with N^2 (ratio ~100), since
# names are found through a hash index (src/trace/names.c). Writes
# results/names-<host>.md.
#
#   bash bench/names/names.sh BUILDDIR          (make bench-names)
#   SIZES="10000 100000 1000000"   name counts (default)
#   HR_BIN=PATH            another heapreplay binary to measure (an older build)
#   PIN="taskset -c 0"     prefix of every measured command (default)
#   RUNS=3                 runs per step, the best one kept (default 3)
#   OUT=PATH               where to write (default results/names-<host>.md)
#
# Each time is the best of RUNS runs (wall seconds); a run is capped at 600 s
# (a quadratic build at 100 k names takes minutes).
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
B="$(cd "${1:-.}" && pwd)"
S="$(cd "$(dirname "$0")/../.." && pwd)"
HR=${HR_BIN:-"$B/heapreplay"}
[ -x "$HR" ] || { echo "no heapreplay at $HR (make heapreplay)" >&2; exit 2; }
SIZES=${SIZES:-"10000 100000 1000000"}
PIN=${PIN:-"taskset -c 0"}
RUNS=${RUNS:-3}
OUT=${OUT:-"$S/results/names-$(hostname -s).md"}
hr_bench_start

# make_trace KIND N: a text trace of N distinct names (marks, or push+pop).
make_trace() {
    local kind=$1 n=$2
    {
        echo "heapreplay-trace 1"
        if [ "$kind" = marks ]; then
            seq 0 $((n - 1)) | sed 's/^/mark m/'
        else
            seq 0 $((n - 1)) | sed 's/.*/push h&\npop h&/'
        fi
    } >"$W/$kind-$n.txt"
}

# best3 CMD...: the least wall time of RUNS runs, in seconds to the
# millisecond (bash's EPOCHREALTIME), or "timeout" if one ran past 600 s.
best3() {
    local best="" t0 t1 t
    for _ in $(seq 1 "$RUNS"); do
        t0=$EPOCHREALTIME
        timeout 600 $PIN "$@" >/dev/null 2>&1 || { echo timeout; return; }
        t1=$EPOCHREALTIME
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        best=$(awk -v a="${best:-$t}" -v b="$t" 'BEGIN { print (b + 0 < a + 0 ? b : a) }')
    done
    echo "$best"
}

hr_header "Names: distinct heap and mark names" "RUNS=$RUNS bash bench/names/names.sh" >"$W/out.md"
echo "Binary measured: \`$HR\`." >>"$W/out.md"
echo >>"$W/out.md"
cat >>"$W/out.md" <<EOF
Traces of N distinct marks (\`mark mI\`) and of N push+pop pairs of distinct
heaps (\`push hI\` / \`pop hI\`); each step's best wall time of $RUNS runs, in
seconds. convert: text -> binary; info: the binary trace; back: binary ->
text.

| trace | names | convert | info | back |
|---|---:|---:|---:|---:|
EOF
declare -A T
for kind in marks pushpop; do
    for n in $SIZES; do
        say "$kind $n"
        make_trace $kind $n
        c=$(best3 "$HR" convert "$W/$kind-$n.txt" -o "$W/$kind-$n.hrt")
        i=$(best3 "$HR" info "$W/$kind-$n.hrt")
        b=$(best3 "$HR" convert "$W/$kind-$n.hrt" -o "$W/$kind-$n.back.txt")
        cmp -s "$W/$kind-$n.txt" "$W/$kind-$n.back.txt" ||
            { echo "$kind $n: the round trip changed the trace" >&2; exit 1; }
        T[$kind,$n]="$c $i $b"
        echo "| $kind | $n | $c | $i | $b |" >>"$W/out.md"
    done
done
# ratios of each size's times over the previous size's
set -- $SIZES
{
    echo
    echo "Ratios of each size's time over the previous one's (sizes 10x apart: about 10"
    echo "for a linear cost, 100 for a quadratic one; a time of a few ms, mostly process"
    echo "start, makes its ratio low and coarse):"
    echo
    prev=""
    for n in "$@"; do
        if [ -n "$prev" ]; then
            for kind in marks pushpop; do
                read -r c1 i1 b1 <<<"${T[$kind,$prev]}"
                read -r c2 i2 b2 <<<"${T[$kind,$n]}"
                awk -v k=$kind -v lo=$prev -v hi=$n -v c1="$c1" -v c2="$c2" -v i1="$i1" -v i2="$i2" \
                    -v b1="$b1" -v b2="$b2" '
                    function r(a, b) { return (a + 0 > 0 && b != "timeout") ? sprintf("%.1f", b / a) : "-" }
                    BEGIN { printf "- %s, %s over %s: convert %s, info %s, back %s\n", k, hi, lo,
                            r(c1, c2), r(i1, i2), r(b1, b2) }'
            done
        fi
        prev=$n
    done
    echo
} >>"$W/out.md"
hr_write_out
