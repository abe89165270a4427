#!/usr/bin/env bash
# What `capture --frames=auto` (the default: the library interposes the
# present functions, docs/CAPTURE.md "Frames") costs a program that never
# presents: bench/capture/cap_churn (malloc/free churn, one thread) captured
# with --frames=none and with --frames=auto, interleaved (none auto none auto
# ...), ROUNDS pairs. The figure is the program's CPU time (user + system,
# from wait4, as the capture summary prints it): median and range of each,
# and the paired differences auto - none. The events of the two traces are
# compared too (they must be the same count).
# Writes results/capture-frames-cost-<host>.md (or $OUT).
# Usage: bench/capture/frames_cost.sh [BUILDDIR]   (make bench-capture-frames)
# Environment: ROUNDS=9  CHURN=2000000 (cap_churn's rounds)
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-9}
CHURN=${CHURN:-2000000}
OUT=${OUT:-$S/results/capture-frames-cost-$(hostname).md}
PROG="$B/bench/capture/cap_churn"
[ -x "$PROG" ] || make -C "$B" bench/capture/cap_churn > /dev/null
CMD="ROUNDS=$ROUNDS CHURN=$CHURN bench/capture/frames_cost.sh"

# one capture; prints "cpu_s events"
one() {
    "$HR" capture --frames="$1" -o "$W/$1.hrt" -- "$PROG" "$CHURN" 1 > /dev/null 2> "$W/sum.txt"
    local cpu ev
    cpu=$(sed -n 's/.*(CPU \([0-9.]*\) s,.*/\1/p' "$W/sum.txt" | head -1)
    ev=$(sed -n 's/^trace: [^:]*: \([0-9]*\) events.*/\1/p' "$W/sum.txt" | head -1)
    [ -n "$cpu" ] && [ -n "$ev" ] || { echo "frames_cost.sh: no summary:" >&2; cat "$W/sum.txt" >&2; exit 1; }
    echo "$cpu $ev"
}
: > "$W/runs.tsv"
for r in $(seq 1 "$ROUNDS"); do
    say "round $r/$ROUNDS"
    read -r cn en < <(one none)
    read -r ca ea < <(one auto)
    printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$cn" "$ca" "$en" "$ea" >> "$W/runs.tsv"
done
mid() { cut -f"$1" "$W/runs.tsv" | hr_median; }
lo() { cut -f"$1" "$W/runs.tsv" | hr_min; }
hi() { cut -f"$1" "$W/runs.tsv" | hr_max; }
awk -F'\t' '{ printf "%.4f\n", $3 - $2 }' "$W/runs.tsv" > "$W/diff.txt"
awk -F'\t' '{ printf "%.4f\n", $3 / $2 }' "$W/runs.tsv" > "$W/ratio.txt"
same=$(awk -F'\t' '$4 != $5 { n++ } END { print n + 0 }' "$W/runs.tsv")
{
    hr_header "Capture cost of --frames=auto on a program that never presents" "$CMD"
    echo "cap_churn $CHURN rounds, one thread, captured with \`--frames=none\` and \`--frames=auto\`"
    echo "in $ROUNDS interleaved pairs; the program's CPU time (user + system, wait4) from the capture summary."
    echo
    echo "| frames | CPU s, median [min-max] | events |"
    echo "|---|---:|---:|"
    echo "| none | $(mid 2) [$(lo 2)-$(hi 2)] | $(mid 4) |"
    echo "| auto | $(mid 3) [$(lo 3)-$(hi 3)] | $(mid 5) |"
    echo
    echo "- paired difference auto - none: median $(hr_median < "$W/diff.txt") s" \
         "[$(hr_min < "$W/diff.txt"), $(hr_max < "$W/diff.txt")]; ratio auto / none: median" \
         "$(hr_median < "$W/ratio.txt") [$(hr_min < "$W/ratio.txt")-$(hr_max < "$W/ratio.txt")]"
    echo "- pairs whose two traces differ in event count: $same of $ROUNDS"
    echo "- within noise: the range of the paired differences holds 0:" \
         "$(awk 'NR == 1 { lo = $1; hi = $1 } { if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 }
                END { print (lo <= 0 && hi >= 0) ? "yes" : "no" }' "$W/diff.txt")"
    echo
    echo '```'
    echo "# round cpu_none cpu_auto events_none events_auto"
    cat "$W/runs.tsv"
    echo '```'
    echo
} > "$W/out.md"
hr_write_out
