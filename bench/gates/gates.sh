#!/usr/bin/env bash
# The gates of a report with one allocator of interest (README.md, "CI example";
# docs/REPORTS.md, "Paired A/B"; docs/METRICS.md, "Kernel work and the cost"):
#  1. the weights of the count's cost on this machine: bench/gates/kcost.c (ns
#     per page fault and per memory system call) and ns per allocator
#     instruction (glibc's warm ns/op over its counted instructions per op);
#  2. false alarms of the paired A/B: PAIRS runs of
#       replay TRACE -a preload:a/spin_shim.so,preload:b/spin_shim.so --pair
#     with both copies of bench/power/spin_shim.so unchanged (an alarm: exit 1);
#  3. its power: TRIALS runs with copy b spinning for SLOWDOWN of the warm
#     ns/op (SPIN_ONLY=/b/; caught: exit 1), interleaved with the runs of 2;
#  4. the glibc tunables that instructions miss: glibc replayed with --count
#     callgrind, without and with GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096
#     and glibc.malloc.trim_threshold=0, compared with the old gate
#     (--max-regress insns=1%) and the recommended one (insns=1%,cost=1%);
#     COST_RUNS more identical count runs against the first (false alarms).
# Writes results/gates-vm.md (or $OUT). Never run by make check.
#
# Usage: bench/gates/gates.sh [BUILDDIR]      (make bench-gates)
# Environment (defaults):
#   PAIRS=20 TRIALS=20       identical and slowed paired runs
#   SLOWDOWN=0.10            the injected slowdown of the warm ns/op
#   REPEAT=20 WARM=0.3       replay -r and --warm-time of each paired run
#   TUNE_TRACES="traces/level_load.hrt traces/frame_loop.hrt"
#   COST_RUNS=4              identical count runs per tunables trace
#   OUT=results/gates-vm.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
PAIRS=${PAIRS:-20}
TRIALS=${TRIALS:-20}
SLOWDOWN=${SLOWDOWN:-0.10}
REPEAT=${REPEAT:-20}
WARM=${WARM:-0.3}
TUNE_TRACES=${TUNE_TRACES:-"$S/traces/level_load.hrt $S/traces/frame_loop.hrt"}
COST_RUNS=${COST_RUNS:-4}
OUT=${OUT:-$S/results/gates-vm.md}
CMD="PAIRS=$PAIRS TRIALS=$TRIALS SLOWDOWN=$SLOWDOWN REPEAT=$REPEAT WARM=$WARM COST_RUNS=$COST_RUNS bench/gates/gates.sh"
unset SPIN_NS SPIN_ITERS SPIN_DEBUG SPIN_ONLY GLIBC_TUNABLES
command -v valgrind > /dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 2; }

: > "$W/out.md" # the body; the header goes on top at the end (its finishing time)

# ---- 1. weights ----------------------------------------------------------
"${CC:-cc}" -O2 -o "$W/kcost" "$S/bench/gates/kcost.c"
"$W/kcost" > "$W/kcost.txt"
kc() { awk -v k="$1" '$1 == k { print $2 }' "$W/kcost.txt"; }
"$HR" gen frame_loop -n 20000 --seed 1 -o "$W/fl.hrt" > /dev/null
"$HR" replay "$W/fl.hrt" "$S/traces/strings.hrt" -a glibc -r 3 --warm-time 0.3 --count callgrind -q \
    -o "$W/ipc.json" > /dev/null
NSI=$(jq -r '[.results[] | .time.ns_per_op / .count.per_op] | sort | .[length / 2 | floor]' "$W/ipc.json")
{
    echo "## 1. The weights of the cost"
    echo
    echo "| figure | ns | in instructions (at $(printf '%.2f' "$NSI") ns each) | weight in src/replay/kcount.h |"
    echo "|---|---|---|---|"
    echo "| first write to a fresh page (minor fault) | $(kc fault) | $(awk -v a="$(kc fault)" -v b="$NSI" 'BEGIN { printf "%.0f", a / b }') | 12000 per fault |"
    echo "| mmap or munmap of 8 KiB | $(kc mmap_munmap) | $(awk -v a="$(kc mmap_munmap)" -v b="$NSI" 'BEGIN { printf "%.0f", a / b }') | 6000 per system call |"
    echo "| brk by a page | $(kc brk) | $(awk -v a="$(kc brk)" -v b="$NSI" 'BEGIN { printf "%.0f", a / b }') | 6000 |"
    echo "| madvise(DONTNEED) of 1 MiB, nothing resident | $(kc madvise) | $(awk -v a="$(kc madvise)" -v b="$NSI" 'BEGIN { printf "%.0f", a / b }') | 6000 |"
    echo
    echo "ns per instruction: glibc's warm ns/op over its counted instructions per op on a 20 000-event"
    echo "frame_loop and on traces/strings.hrt, the larger of the two (bench/gates/kcost.c for the rest)."
    echo
} >> "$W/out.md"
say "weights: $(tr '\n' ' ' < "$W/kcost.txt") ns/insn $NSI"

# ---- 2 + 3. paired A/B ---------------------------------------------------
mkdir -p "$W/a" "$W/b"
cp "$SHIM" "$W/a/spin_shim.so"
cp "$SHIM" "$W/b/spin_shim.so"
SPEC="preload:$W/a/spin_shim.so,preload:$W/b/spin_shim.so"
for k in $(seq 1 9); do
    SPIN_DEBUG=1 SPIN_NS=1000 LD_PRELOAD="$SHIM" ls / 2>&1 > /dev/null | awk '/spin_shim:/ { print $2 }'
done > "$W/ipn"
IPN=$(hr_median < "$W/ipn" | awk '{ print $1 / 1000 }')
pair() { # pair ITERS OUT -> "rc median lo hi"
    local rc=0
    SPIN_ONLY=/b/ SPIN_ITERS=$1 "$HR" replay "$W/fl.hrt" -a "$SPEC" -r "$REPEAT" --warm-time "$WARM" \
        --pair -q -f json -o "$2" > /dev/null 2> "$W/err" || rc=$?
    jq -r --arg rc "$rc" '.paired.traces[0].figures[0] | "\($rc) \(.ratio) \(.lo) \(.hi)"' "$2" 2> /dev/null ||
        echo "$rc null null null"
}
BASE_NS=$(SPIN_ITERS=0 "$HR" replay "$W/fl.hrt" -a "preload:$W/a/spin_shim.so" -r 3 --warm-time "$WARM" -q \
    -f json -o "$W/base.json" > /dev/null && jq -r '.results[0].time.ns_per_op' "$W/base.json")
ITERS=$(awk -v s="$SLOWDOWN" -v b="$BASE_NS" -v i="$IPN" 'BEGIN { printf "%d", s * b * i + 0.5 }')
# Calibration: the spin per call is set from the loop's speed and the shim's
# ns/op, then scaled until the median ratio of two paired runs is within
# 0.02 of 1 + SLOWDOWN (at most 4 steps): a call's spin also costs cache and
# pipeline effects that the loop's speed alone does not predict.
CAL=""
for step in 1 2 3 4; do
    m=$( (pair "$ITERS" "$W/cal1.json"; pair "$ITERS" "$W/cal2.json") | awk '{ print $2 }' | hr_median)
    CAL="$CAL $ITERS:$(printf '%.3f' "$m")"
    say "calibration step $step: $ITERS iterations per call -> median ratio $m"
    awk -v m="$m" -v s="$SLOWDOWN" 'BEGIN { d = m - 1 - s; exit !(d < 0.02 && d > -0.02) }' && break
    ITERS=$(awk -v i="$ITERS" -v m="$m" -v s="$SLOWDOWN" 'BEGIN { x = m > 1.005 ? i * s / (m - 1) : i * 2; printf "%d", x + 0.5 }')
done
say "paired: base $BASE_NS ns/op, $IPN loop iterations/ns, $ITERS iterations per call for +$SLOWDOWN"
: > "$W/same"
: > "$W/slow"
n=$((PAIRS > TRIALS ? PAIRS : TRIALS))
for i in $(seq 1 "$n"); do
    [ "$i" -gt "$PAIRS" ] || pair 0 "$W/s$i.json" >> "$W/same"
    [ "$i" -gt "$TRIALS" ] || pair "$ITERS" "$W/t$i.json" >> "$W/slow"
    say "paired run $i/$n: same $(tail -1 "$W/same"), slowed $(tail -1 "$W/slow")"
done
col() { awk -v c="$1" '{ print $c }' "$2" | "$3" | xargs printf '%.3f'; } # col N FILE FN
summary() { # summary FILE WANT_RC LABEL
    local hits
    hits=$(awk -v w="$2" '$1 == w' "$1" | wc -l)
    echo "| $3 | $(wc -l < "$1") | $hits | $(col 2 "$1" hr_min) | $(col 2 "$1" hr_median) | $(col 2 "$1" hr_max) | $(awk '{ print $4 - $3 }' "$1" | hr_median | xargs printf '%.3f') |"
}
{
    echo "## 2-3. Paired A/B of two builds of one allocator (\`replay --pair\`)"
    echo
    echo "Each run: \`SPIN_ONLY=/b/ SPIN_ITERS=N heapreplay replay TRACE -a preload:a/spin_shim.so,preload:b/spin_shim.so -r $REPEAT --warm-time $WARM --pair\`"
    echo "(TRACE: \`heapreplay gen frame_loop -n 20000 --seed 1\`; copy a never spins). Identical: N = 0;"
    echo "slowed: N = $ITERS loop iterations per call ($IPN per ns), $SLOWDOWN of the shim's warm ns/op ($(printf '%.1f' "$BASE_NS") ns/op"
    echo "in a run of copy a alone), calibrated by paired runs (iterations:median of two runs' ratios:$CAL)."
    echo "The identical and slowed runs alternate. Gate: the ratio (Hodges-Lehmann centre of the $REPEAT"
    echo "ratios b/a of warm ns/op) > 1.03 and its signed-rank interval (at least 95 %) above 1."
    echo
    echo "| runs | n | exit 1 | ratio min | median | max | interval width (median) |"
    echo "|---|---|---|---|---|---|---|"
    summary "$W/same" 1 "identical (false alarms)"
    summary "$W/slow" 1 "slowed +$SLOWDOWN (caught)"
    echo
    echo "Exit status other than 0 or 1 (a failed run): identical $(awk '$1 != 0 && $1 != 1' "$W/same" | wc -l), slowed $(awk '$1 != 0 && $1 != 1' "$W/slow" | wc -l)."
    echo
} >> "$W/out.md"

# ---- 4. tunables and the cost ----------------------------------------------
count_run() { # count_run TRACE OUT [ENV...]
    local t=$1 out=$2
    shift 2
    env "$@" "$HR" replay "$t" -a glibc -r 3 --warm-time 0.1 --count callgrind -q -f json -o "$out" > /dev/null
}
gate() { # gate BASE NEW THRESHOLDS -> exit status of compare
    local rc=0
    "$HR" compare "$1" "$2" --max-regress "$3" > /dev/null 2>&1 || rc=$?
    echo "$rc"
}
{
    echo "## 4. glibc tunables: instructions against the cost"
    echo
    echo "\`heapreplay replay TRACE -a glibc -r 3 --warm-time 0.1 --count callgrind\` without and with"
    echo "GLIBC_TUNABLES, one report per trace; old gate \`compare --max-regress insns=1%\`, recommended"
    echo "\`--max-regress insns=1%,cost=1%\` (exit 1: caught). Ratios and changes: the tunable's run over the run without."
    echo
    echo "| GLIBC_TUNABLES | trace | cold ns/op | warm ns/op | insns/op | faults | syscalls mmap/munmap/brk | cost/op | old gate | recommended |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
} >> "$W/out.md"
fa=0
ncmp=0
worst=0
for t in $TUNE_TRACES; do
    tn=$(basename "$t")
    count_run "$t" "$W/c0.json" A=1
    for tun in glibc.malloc.mmap_threshold=4096 glibc.malloc.trim_threshold=0; do
        count_run "$t" "$W/c1.json" "GLIBC_TUNABLES=$tun"
        old=$(gate "$W/c0.json" "$W/c1.json" insns=1%)
        new=$(gate "$W/c0.json" "$W/c1.json" insns=1%,cost=1%)
        jq -r --slurpfile b "$W/c0.json" --arg tun "$tun" --arg tn "$tn" --arg old "$old" --arg new "$new" '
            def r(a; b): (a / b * 100 | round / 100 | tostring) + "x";
            def d(a; b): ((a - b) / b * 1000 | round / 10 | tostring) + " %";
            .results[0] as $n | $b[0].results[0] as $o |
            "| \($tun) | \($tn) | \(r($n.time.cold_ns_per_op; $o.time.cold_ns_per_op)) | \(r($n.time.ns_per_op; $o.time.ns_per_op)) | \(d($n.count.per_op; $o.count.per_op)) | \($o.count.faults) -> \($n.count.faults) | \($o.count.sys_mmap)/\($o.count.sys_munmap)/\($o.count.sys_brk) -> \($n.count.sys_mmap)/\($n.count.sys_munmap)/\($n.count.sys_brk) | \(d($n.count.cost_per_op; $o.count.cost_per_op)) | exit \($old) | exit \($new) |"' \
            "$W/c1.json" >> "$W/out.md"
        say "$tn $tun: old gate exit $old, recommended exit $new"
    done
    for i in $(seq 1 "$COST_RUNS"); do
        count_run "$t" "$W/c2.json" A=1
        ncmp=$((ncmp + 1))
        [ "$(gate "$W/c0.json" "$W/c2.json" insns=1%,cost=1%)" = 0 ] || fa=$((fa + 1))
        w=$(jq -r --slurpfile b "$W/c0.json" '(.results[0].count.cost_per_op - $b[0].results[0].count.cost_per_op) / $b[0].results[0].count.cost_per_op * 100 | fabs' "$W/c2.json")
        worst=$(awk -v a="$worst" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
    done
done
{
    echo
    echo "Identical count runs against the first of their trace, recommended gate: $fa false alarms in"
    echo "$ncmp comparisons; the largest |cost/op change| $(printf '%.3f' "$worst") % (the page faults of one build"
    echo "vary by a few from run to run; instructions and system calls do not)."
    echo
} >> "$W/out.md"
hr_header "Gates of one-allocator reports: paired A/B and the kernel-inclusive cost" "$CMD" > "$W/head.md"
cat "$W/head.md" "$W/out.md" > "$W/all.md"
mv "$W/all.md" "$W/out.md"
hr_write_out
