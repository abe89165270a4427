#!/usr/bin/env bash
# The fuzz smoke of CI: each libFuzzer target over its committed seed corpus
# for RUNS inputs (mutations after the seeds). TAP, one case per target; a
# target that finds a crash, a leak or a broken contract fails with the tail
# of its log. New inputs go to a scratch directory, not into the tree; a
# crashing input is kept in BUILDDIR/fuzz-artifacts/ (as by bench/fuzz/).
# usage: smoke.sh BUILDDIR SRCDIR [RUNS]
# environment:
#   FUZZ_JOBS=2         targets run at once (default 1; CI: one per core)
#   FUZZ_MAX_SECS=300   a target stops after this many seconds even if it has
#                       not made RUNS inputs (default 0: no limit); its line
#                       then says how many it made
#   FUZZ_TARGETS="json trace"  a subset
# Each line gives the inputs made, the seconds and the rate, so that a CI log
# shows whether ~100 k inputs per target still fit its time (docs/TESTING.md,
# results/fuzz-vm.md).
set -u
B=${1:-.}
S=${2:-.}
RUNS=${3:-3000}
JOBS=${FUZZ_JOBS:-1}
MAX_SECS=${FUZZ_MAX_SECS:-0}
TARGETS=${FUZZ_TARGETS:-"trace import json heapcfg"}
. "$S/tests/cli/tap.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/hr_fuzz.XXXXXX") || exit 1
mkdir -p "$B/fuzz-artifacts"
trap 'rm -rf "$W"' EXIT

# run T: one target; leaves its log and exit status in $W/T.log, $W/T.rc.
run() {
    local t=$1 bin="$B/tests/fuzz/fuzz_$1" start
    mkdir -p "$W/$t"
    start=$(date +%s.%N)
    "$bin" -runs="$RUNS" -max_total_time="$MAX_SECS" -seed=1 -rss_limit_mb=2048 -timeout=20 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$B/fuzz-artifacts/$t-" \
        "$W/$t" "$S/tests/fuzz/corpus/$t" >"$W/$t.log" 2>&1
    echo $? >"$W/$t.rc"
    awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$W/$t.secs"
}

for t in $TARGETS; do
    [ -x "$B/tests/fuzz/fuzz_$t" ] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    run "$t" &
done
wait

for t in $TARGETS; do
    name="fuzz_$t: $RUNS runs"
    if [ ! -f "$W/$t.rc" ]; then
        not_ok "$name" "$B/tests/fuzz/fuzz_$t not built (make fuzz)"
        continue
    fi
    made=$(sed -n 's/^stat::number_of_executed_units: *//p' "$W/$t.log" | tail -1)
    secs=$(cat "$W/$t.secs")
    rate=$(awk -v n="${made:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
    cov=$(grep -o 'cov: [0-9]*' "$W/$t.log" | tail -1)
    what="${made:-?} inputs in $secs s ($rate/s, $cov)"
    [ "${made:-0}" -ge "$RUNS" ] 2>/dev/null || what="$what: stopped by FUZZ_MAX_SECS=$MAX_SECS"
    if [ "$(cat "$W/$t.rc")" = 0 ]; then
        ok "$name: $what"
    else
        not_ok "$name" "$(tail -20 "$W/$t.log")"
    fi
done
tap_done
