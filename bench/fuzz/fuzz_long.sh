#!/usr/bin/env bash
# Long fuzz runs: every libFuzzer target of tests/fuzz/ for SECS
# seconds from its seed corpus; writes results/fuzz-<host>.md with the
# executions, the coverage (libFuzzer's cov: edges and ft: features) and the
# corpus size each run reached, and any crash.
#
#   bash bench/fuzz/fuzz_long.sh BUILDDIR       (make fuzz first; make bench-fuzz)
#   SECS=600           seconds per target (default 600)
#   PARALLEL=1         run the targets at once (they then share the CPUs)
#   TARGETS="json"     a subset of trace import json heapcfg
#   PIN="taskset -c 0 nice -n 19"  prefix of every run (default)
#   ARTIFACTS=DIR      where a crashing input is kept (default BUILDDIR/fuzz-artifacts)
set -euo pipefail
B="$(cd "${1:-.}" && pwd)"
S="$(cd "$(dirname "$0")/../.." && pwd)"
SECS=${SECS:-600}
PARALLEL=${PARALLEL:-0}
PIN=${PIN:-"taskset -c 0 nice -n 19"}
OUT=${OUT:-"$S/results/fuzz-$(hostname -s).md"}
W=$(mktemp -d "${TMPDIR:-/tmp}/hr_fuzz_long.XXXXXX")
ARTIFACTS=${ARTIFACTS:-"$B/fuzz-artifacts"}
mkdir -p "$ARTIFACTS"
trap 'rm -rf "$W"' EXIT
TARGETS=${TARGETS:-"trace import json heapcfg"}
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
for t in $TARGETS; do
    [ -x "$B/tests/fuzz/fuzz_$t" ] || { echo "$B/tests/fuzz/fuzz_$t not built (make fuzz)" >&2; exit 2; }
done
run() {
    local t=$1
    mkdir -p "$W/$t"
    $PIN "$B/tests/fuzz/fuzz_$t" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=20 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$t-" \
        "$W/$t" "$S/tests/fuzz/corpus/$t" >"$W/$t.log" 2>&1 && echo 0 >"$W/$t.rc" || echo $? >"$W/$t.rc"
}
if [ "$PARALLEL" = 1 ]; then
    for t in $TARGETS; do run "$t" & done
    wait
else
    for t in $TARGETS; do run "$t"; done
fi
{
    echo "# Fuzzing: libFuzzer targets, $SECS s each"
    echo
    echo "Command: \`SECS=$SECS PARALLEL=$PARALLEL bash bench/fuzz/fuzz_long.sh\` (each run as \`$PIN ...\`)"
    echo
    echo "- machine: \`$(uname -a)\`"
    echo "- cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), nproc $(nproc)"
    echo "- date: started $start, finished $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- heapreplay: $(git -C "$S" describe --always --dirty 2>/dev/null || echo "no git")"
    [ "$PARALLEL" = 1 ] && echo "- the $(echo $TARGETS | wc -w) targets ran at once on the pinned CPU: each had about 1/4 of it"
    echo
    echo "| target | executions | exec/s | cov (edges) | ft (features) | corpus | result |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    for t in $TARGETS; do
        log="$W/$t.log"
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
        ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
        corp=$(ls "$W/$t" | wc -l)
        res="no crash, no broken contract"
        [ "$(cat "$W/$t.rc")" = 0 ] || res="FAILED (exit $(cat "$W/$t.rc")): $(grep -m1 -E 'ERROR|contract' "$log" | cut -c1-120); input kept in $ARTIFACTS"
        echo "| fuzz_$t | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | $corp new inputs | $res |"
    done
} >"$OUT"
echo "wrote $OUT" >&2
