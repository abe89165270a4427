#!/usr/bin/env bash
# Where a real trace's replay goes, per phase: for each trace of DIR (default
# traces/real), `replay TRACE -a all -r 3 --touch recorded` as quickstart.sh
# runs it, timed whole (wall, /usr/bin/time), then again with --memory-lap
# fast; the phases from those runs and the result JSON:
#   prepare  the parent's read, validation and sharing of the trace, up to
#            the fork of the server (strace -ttt of a one-row run)
#   paced    the paced memory laps: the default run's wall less the fast one's
#   measure  the instrumented measure laps: time.measure_wall_s x samples
#   cold     the cold laps: the samples' time.cold_wall_s
#   warm     the warm laps: time.wall_s x time.warm_laps x samples (median
#            lap times the laps: an estimate)
#   rest     the fast run's wall less the above: process starts (exec, the
#            trace mapped and read in, instances made and destroyed, results
#            written and parsed), per row 2 x samples processes
# Prints a markdown table on stdout. Usage: bench/main_job/phases.sh BINARY [DIR]
set -euo pipefail
[ $# -ge 1 ] && [ -x "$1" ] || { echo "usage: $0 BINARY [DIR]" >&2; exit 2; }
HR=$(readlink -f "$1")
DIR=${2:-traces/real}
W=$(mktemp -d "${TMPDIR:-/tmp}/hrphase.XXXXXX")
trap 'rm -rf "$W"' EXIT
echo "| trace | wall s | prepare | paced | measure | cold | warm | rest (processes) | processes |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for t in "$DIR"/*.hrt; do
    n=$(basename "$t" .hrt)
    /usr/bin/time -f '%e' -o "$W/all" "$HR" replay "$t" -a all -r 3 --touch recorded -q -o "$W/all.json" > /dev/null
    /usr/bin/time -f '%e' -o "$W/fast" "$HR" replay "$t" -a all -r 3 --touch recorded -q \
        --memory-lap fast -o "$W/fast.json" > /dev/null
    strace -f -ttt -e trace=execve,clone,clone3,fork,vfork -o "$W/st" "$HR" replay "$t" -a glibc -r 1 \
        --touch recorded -q --memory-lap fast -o "$W/one.json" > /dev/null 2>&1
    prep=$(awk 'NR == 1 { t0 = $2 } /clone|fork/ && !d { print $2 - t0; d = 1 }' "$W/st")
    read -r meas cold warm procs < <(jq -r '[.results[] | select(.status == "ok")] |
        [ (map(.time.measure_wall_s * .runs) | add),
          (map(.samples["time.cold_wall_s"] // [] | add) | add),
          (map(.time.wall_s * .time.warm_laps * .runs) | add),
          (map(.runs * 2) | add) ] | @tsv' "$W/fast.json")
    awk -v n="$n" -v a="$(cat "$W/all")" -v f="$(cat "$W/fast")" -v p="$prep" -v m="$meas" \
        -v c="$cold" -v w="$warm" -v k="$procs" 'BEGIN {
        printf "| %s | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f | %d |\n",
            n, a, p, a - f, m, c, w, f - p - m - c - w, k }'
done
