#!/usr/bin/env bash
# The capture library's cost on the malloc/free loop, one library against
# another (a change to the hooks must stay within noise): bench/capture/cap_churn
# (N rounds, T threads) run under OLD_LIB and NEW_LIB, interleaved (old, new,
# old, new, ...) for ROUNDS rounds, so that a machine that gets busier or
# quieter during the run moves both alike. Measures the program's CPU time
# (user + system, bash's `time`), not wall time: the program time the library
# adds. Prints Markdown: per library the median and the range (min-max) of
# the rounds, and new/old of the medians.
# Usage: bench_hooks.sh BUILDDIR OLD_LIB [NEW_LIB] [ROUNDS] [N] [T]
#   NEW_LIB  default BUILDDIR/.libs/libheapreplay-capture.so
#   ROUNDS 5, N 2000000, T 1
set -u
B="${1:?usage: bench_hooks.sh BUILDDIR OLD_LIB [NEW_LIB] [ROUNDS] [N] [T]}"
OLD="${2:?old capture library}"
NEW="${3:-$B/.libs/libheapreplay-capture.so}"
ROUNDS="${4:-5}"
N="${5:-2000000}"
TH="${6:-1}"
PROG="$B/bench/capture/cap_churn"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrbhook.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PROG" ] || make -C "$B" bench/capture/cap_churn >/dev/null 2>&1
for f in "$PROG" "$OLD" "$NEW"; do
    [ -e "$f" ] || { echo "bench_hooks: $f not found" >&2; exit 2; }
done

# cpu LIB: the program's user + system seconds under LIB (log to $W, removed)
cpu() {
    local TIMEFORMAT='%3U %3S' t
    rm -f "$W"/c.raw*
    t=$( { time env HEAPREPLAY_CAPTURE_FILE="$W/c.raw" LD_PRELOAD="$1" "$PROG" "$N" "$TH" \
        > /dev/null 2>&1; } 2>&1 )
    echo "$t" | awk '{ printf "%.3f\n", $1 + $2 }'
}
: > "$W/old"
: > "$W/new"
for r in $(seq "$ROUNDS"); do
    cpu "$OLD" >> "$W/old"
    cpu "$NEW" >> "$W/new"
done
# stats FILE: median min max
stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}
read -r om omin omax < <(stats "$W/old")
read -r nm nmin nmax < <(stats "$W/new")
echo "capture library cost on cap_churn ($N rounds x $TH thread(s), ~$((N * TH * 2)) events):"
echo "program CPU s (user + system), $ROUNDS interleaved rounds"
echo
echo "| library | median | range |"
echo "|---|---:|---:|"
printf '| old: %s | %s | %s-%s |\n' "$OLD" "$om" "$omin" "$omax"
printf '| new: %s | %s | %s-%s |\n' "$NEW" "$nm" "$nmin" "$nmax"
echo
awk -v a="$nm" -v b="$om" 'BEGIN { if (b > 0) printf "new/old (medians): %.3f\n", a / b }'
echo "rounds old: $(tr '\n' ' ' < "$W/old")"
echo "rounds new: $(tr '\n' ' ' < "$W/new")"
