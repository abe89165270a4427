#!/usr/bin/env bash
# Does compare see a real ~15 % slowdown? The allocator under test
# is bench/power/spin_shim.so (glibc plus a calibrated spin per call), preloaded:
#   old  SPIN_NS=0      heapreplay replay TRACE -a preload:spin_shim.so ...
#   new  SPIN_NS=cal    the same, slowed down
# 1. Calibration: SPIN_NS is adjusted until the median of CAL_RUNS paired
#    runs (old, new) shows heapreplay's METRIC (warm ns/op) SLOWDOWN slower.
# 2. TRIALS trials of one old run and one new run judged by COMPARE; a trial
#    detects the regression when compare exits 1. Target: >= 19 of 20.
# Writes results/power.md (or $OUT).
#
# Usage: bench/power/power.sh [BUILDDIR]      (make bench-power)
# Environment (defaults):
#   TRIALS=20
#   TRACE=traces/strings.hrt    a trace slow enough per op (~78 ns on glibc) that the spin
#                            can be set to 15 % (particles, ~10 ns, gave +20-35 %)
#   SLOWDOWN=0.15            the injected slowdown of METRIC to calibrate for
#   SPIN_NS=                 skip calibration and use this spin (ns per call)
#   CAL_RUNS=5 CAL_ITERS=6 CAL_TOL=0.03   calibration: pairs per step, at
#                            most this many steps, stop within +-CAL_TOL
#   METRIC=.time.ns_per_op   heapreplay's figure (jq path into a result)
#   REPLAY_OPTS="-r 5 --warm-time 0.2"   `heapreplay replay` options (both runs)
#   COMPARE='"$HR" compare "$OLD" "$NEW"'   as in false_alarms.sh
#   OUT=results/power.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
TRIALS=${TRIALS:-20}
TRACE=${TRACE:-$S/traces/strings.hrt}
SLOWDOWN=${SLOWDOWN:-0.15}
CAL_RUNS=${CAL_RUNS:-5}
CAL_ITERS=${CAL_ITERS:-6}
CAL_TOL=${CAL_TOL:-0.03}
METRIC=${METRIC:-.time.ns_per_op}
REPLAY_OPTS=${REPLAY_OPTS--r 5 --warm-time 0.2}
COMPARE=${COMPARE:-'"$HR" compare "$OLD" "$NEW"'}
OUT=${OUT:-$S/results/power.md}
GIVEN_SPIN=${SPIN_NS:-}
unset SPIN_NS SPIN_ITERS SPIN_DEBUG
CMD="TRIALS=$TRIALS TRACE=$TRACE SLOWDOWN=$SLOWDOWN${GIVEN_SPIN:+ SPIN_NS=$GIVEN_SPIN} CAL_RUNS=$CAL_RUNS CAL_ITERS=$CAL_ITERS METRIC=$METRIC${REPLAY_OPTS:+ REPLAY_OPTS='$REPLAY_OPTS'} COMPARE='$COMPARE' bench/power/power.sh"
export HR OLD="$W/old.json" NEW="$W/new.json"
SPEC="preload:$SHIM"

# The shim's loop speed, measured once here: every run then gets the same
# iteration count (SPIN_ITERS), not a per-process calibration of SPIN_NS, so
# the injected work is identical in every process. Median of 9 processes.
for k in $(seq 1 9); do
    SPIN_DEBUG=1 SPIN_NS=1000 LD_PRELOAD="$SHIM" ls / 2>&1 > /dev/null | awk '/spin_shim:/ { print $2 }'
done > "$W/ipn"
IPN=$(hr_median < "$W/ipn" | awk '{ print $1 / 1000 }')
iters() { awk -v s="$1" -v i="$IPN" 'BEGIN { printf "%d", s * i + 0.5 }'; } # iters SPIN_NS

run() { # run SPIN_NS OUTFILE -> prints METRIC ("null" when the run failed)
    # shellcheck disable=SC2086
    SPIN_ITERS=$(iters "$1") "$HR" replay "$TRACE" -a "$SPEC" -q -o "$2" $REPLAY_OPTS > /dev/null || true
    jq -r ".results[0] | if .status == \"ok\" then ($METRIC // \"null\") else \"null\" end" "$2" 2> /dev/null ||
        echo null
}

# 1. Calibration: measure the slowdown at a spin, keep the closest spins
# below and above the target, and interpolate between them (the effect of a
# short spin is not proportional to its length: out-of-order execution hides
# part of it behind the allocator's own stalls). Until both sides are known
# the spin is scaled by target / measured (at most x4).
: > "$W/cal.tsv"   # step spin_ns base new ratio
if [ -n "$GIVEN_SPIN" ]; then
    spin=$GIVEN_SPIN
    cal_note="SPIN_NS=$spin given: no calibration."
else
    say "calibration: baseline (SPIN_NS=0)"
    for k in $(seq 1 "$CAL_RUNS"); do run 0 "$W/c.json"; done > "$W/base0"
    base=$(hr_median < "$W/base0")
    [ "$base" != - ] || { echo "power.sh: the baseline runs failed: $(head -c 300 "$W/c.json")" >&2; exit 1; }
    spin=$(awk -v b="$base" -v s="$SLOWDOWN" 'BEGIN { printf "%.2f", b * s }')
    got=0 lo_s="" lo_g="" hi_s="" hi_g=""
    for step in $(seq 1 "$CAL_ITERS"); do
        for k in $(seq 1 "$CAL_RUNS"); do
            b=$(run 0 "$W/c.json")
            n=$(run "$spin" "$W/c.json")
            printf '%s\t%s\t%s\t%s\t%s\n' "$step" "$spin" "$b" "$n" \
                "$(awk -v b="$b" -v n="$n" 'BEGIN { if (b + 0 > 0 && n != "null") print n / b - 1; else print "null" }')" >> "$W/cal.tsv"
        done
        got=$(awk -F'\t' -v s="$step" '$1 == s { print $5 }' "$W/cal.tsv" | hr_median)
        say "calibration step $step: SPIN_NS=$spin ($(iters "$spin") iterations) -> slowdown $got (target $SLOWDOWN)"
        [ "$got" != - ] || { echo "power.sh: calibration runs failed" >&2; exit 1; }
        if awk -v g="$got" -v t="$SLOWDOWN" -v tol="$CAL_TOL" 'BEGIN { exit !(g - t <= tol && t - g <= tol) }'; then
            break
        fi
        [ "$step" != "$CAL_ITERS" ] || break
        if awk -v g="$got" -v t="$SLOWDOWN" 'BEGIN { exit !(g < t) }'; then lo_s=$spin lo_g=$got; else hi_s=$spin hi_g=$got; fi
        if [ -n "$lo_s" ] && [ -n "$hi_s" ]; then
            spin=$(awk -v a="$lo_s" -v ga="$lo_g" -v b="$hi_s" -v gb="$hi_g" -v t="$SLOWDOWN" \
                'BEGIN { s = (gb > ga) ? a + (t - ga) * (b - a) / (gb - ga) : (a + b) / 2; printf "%.2f", s }')
        else
            spin=$(awk -v s="$spin" -v g="$got" -v t="$SLOWDOWN" \
                'BEGIN { f = (g > 0.01) ? t / g : 4; if (f > 4) f = 4; if (f < 0.25) f = 0.25; printf "%.2f", s * f }')
        fi
    done
    cal_note="Baseline (SPIN_NS=0) median $METRIC: $(printf %.2f "$base") ns over $CAL_RUNS runs; chosen SPIN_NS=$spin, measured slowdown $(printf %.3f "$got") (median of the last step's $CAL_RUNS pairs; target $SLOWDOWN +- $CAL_TOL)."
fi
cal_note="$cal_note Spin loop: $IPN iterations/ns (median of 9 processes), so SPIN_NS=$spin is passed to every run as SPIN_ITERS=$(iters "$spin")."

# 2. Trials
: > "$W/trials.tsv"   # trial old new delta% exit rows
for i in $(seq 1 "$TRIALS"); do
    o=$(run 0 "$OLD")
    n=$(run "$spin" "$NEW")
    rc=0
    bash -c "$COMPARE" > "$W/cmp.out" 2> "$W/cmp.err" || rc=$?
    rows=$(awk '$NF == "REGRESSION" { print $3 }' "$W/cmp.out" | paste -sd, -)
    d=$(awk -v o="$o" -v n="$n" 'BEGIN { if (o + 0 > 0 && n != "null") printf "%+.1f", (n / o - 1) * 100; else print "-" }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$o" "$n" "$d" "$rc" "${rows:--}" >> "$W/trials.tsv"
    say "trial $i/$TRIALS: $o -> $n ns/op ($d %), compare exit $rc${rows:+ ($rows)}"
done
detected=$(awk -F'\t' '$5 == 1' "$W/trials.tsv" | wc -l)
{
    hr_header "compare's power: an injected ${SLOWDOWN} slowdown of glibc" "$CMD"
    echo "Allocator: \`-a preload:bench/power/.libs/spin_shim.so\` (glibc's malloc family behind a spin loop"
    echo "per call, SPIN_NS ns per call). Trace: \`$(basename "$TRACE")\`. Each trial: one run with"
    echo "SPIN_NS=0 (OLD), one with SPIN_NS=$spin (NEW), both \`heapreplay replay TRACE -a preload:... $REPLAY_OPTS\`,"
    echo "judged by \`$COMPARE\`."
    echo
    echo "$cal_note"
    echo
    echo "**Detected: $detected of $TRIALS trials** (compare exit 1; target >= 19 of 20)."
    echo
    echo "| trial | old $METRIC | new $METRIC | delta % | compare exit | regressing metrics |"
    echo "|---:|---:|---:|---:|---:|---|"
    awk -F'\t' '{ o = ($2 == "null") ? "-" : sprintf("%.2f", $2); n = ($3 == "null") ? "-" : sprintf("%.2f", $3)
                  printf "| %s | %s | %s | %s | %s | %s |\n", $1, o, n, $4, $5, $6 }' "$W/trials.tsv"
    if [ -s "$W/cal.tsv" ]; then
        echo
        echo "Calibration pairs (step, SPIN_NS, base, spun, slowdown):"
        echo
        echo '```'
        cat "$W/cal.tsv"
        echo '```'
    fi
    echo
} > "$W/out.md"
hr_write_out
