#!/usr/bin/env bash
# How long does ./quickstart.sh's main job take? ROUNDS interleaved rounds
# (OLD then NEW in each) of its four commands:
#   replay traces/ -a all -r 3 -o synth.json       report synth.json -f html
#   replay traces/real/ -a all -r 3 --touch recorded -o real.json
#                                                  report real.json -f html
# each timed for wall seconds and CPU seconds (user + system of the command
# and every process it waited for: /usr/bin/time). Per command: median and
# range over the rounds, and the ratio NEW / OLD within each round. Also
# the warm laps per sample of the last NEW round (time.warm_laps).
# Writes results/main-job-vm.md (or $OUT).
#
# Usage: bench/main_job/main_job.sh OLD_BINARY [BUILDDIR]
# Environment (defaults): ROUNDS=3  OUT=results/main-job-vm.md
#   TIMES_OUT=             also copy the raw timings (TSV) there
#   NEW_OPTS= OLD_OPTS=   more `replay` options for either side
set -euo pipefail
[ $# -ge 1 ] && [ -x "$1" ] || { echo "usage: $0 OLD_BINARY [BUILDDIR]" >&2; exit 2; }
OLD_HR=$(readlink -f "$1")
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${2:-.}"
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$S/results/main-job-vm.md}
NEW_OPTS=${NEW_OPTS:-}
OLD_OPTS=${OLD_OPTS:-}
CMD="ROUNDS=$ROUNDS${NEW_OPTS:+ NEW_OPTS='$NEW_OPTS'}${OLD_OPTS:+ OLD_OPTS='$OLD_OPTS'} bench/main_job/main_job.sh $OLD_HR"
command -v /usr/bin/time > /dev/null || { echo "$0: needs /usr/bin/time (package time)" >&2; exit 2; }
# the NEW binary is copied so that a rebuild during the run changes nothing
cp "$HR" "$W/new-heapreplay"
NEW_HR="$W/new-heapreplay"
cd "$S"

# timed SIDE CMDNAME ARGS...: appends "side cmd wall cpu" to $W/times.tsv
timed() {
    local side=$1 name=$2
    shift 2
    /usr/bin/time -f '%e %U %S' -o "$W/t" "$@" > /dev/null 2> "$W/err" ||
        say "$side $name failed: $(tail -c 300 "$W/err")"
    awk -v s="$side" -v n="$name" '{ printf "%s\t%s\t%s\t%.2f\n", s, n, $1, $2 + $3 }' "$W/t" \
        >> "$W/times.tsv"
}
: > "$W/times.tsv"
for r in $(seq 1 "$ROUNDS"); do
    for side in old new; do
        if [ $side = old ]; then bin=$OLD_HR opts=$OLD_OPTS; else bin=$NEW_HR opts=$NEW_OPTS; fi
        say "round $r/$ROUNDS: $side"
        # shellcheck disable=SC2086
        timed $side replay-synth "$bin" replay traces/ -a all -r 3 -q $opts -o "$W/$side-synth.json"
        timed $side report-synth "$bin" report "$W/$side-synth.json" -f html -o "$W/$side-synth.html"
        # shellcheck disable=SC2086
        timed $side replay-real "$bin" replay traces/real/ -a all -r 3 --touch recorded -q $opts \
            -o "$W/$side-real.json"
        timed $side report-real "$bin" report "$W/$side-real.json" -f html -o "$W/$side-real.html"
    done
done
[ -z "${TIMES_OUT:-}" ] || cp "$W/times.tsv" "$TIMES_OUT" # the raw rows, kept where asked

# stat SIDE CMD FIELD(3 wall, 4 cpu): "median [min-max]"
stat() {
    local v
    v=$(awk -F'\t' -v s="$1" -v n="$2" -v f="$3" '$1 == s && ($2 == n || n == "all") { print $f }' "$W/times.tsv")
    if [ "$2" = all ]; then # per round sums: the rows come 4 per side per round
        v=$(awk -F'\t' -v s="$1" -v f="$3" '$1 == s { t[int(c++ / 4)] += $f }
            END { for (i in t) print t[i] }' "$W/times.tsv")
    fi
    printf '%s [%s-%s]' "$(hr_median <<< "$v")" "$(hr_min <<< "$v")" "$(hr_max <<< "$v")"
}
# ratio CMD FIELD: NEW / OLD per round, "median [min-max]"
ratio() {
    local v
    v=$(awk -F'\t' -v n="$1" -v f="$2" '
        $2 == n || n == "all" || (n == "replays" && $2 ~ /^replay/) {
            k = $1 == "old" ? "o" : "n"; i[k]++; r = int((i[k] - 1) / (n == "all" ? 4 : n == "replays" ? 2 : 1))
            t[k, r] += $f; m = r > m ? r : m }
        END { for (r = 0; r <= m; r++) if (t["o", r] > 0) printf "%.3f\n", t["n", r] / t["o", r] }' \
        "$W/times.tsv")
    printf '%s [%s-%s]' "$(hr_median <<< "$v")" "$(hr_min <<< "$v")" "$(hr_max <<< "$v")"
}
laps=$(jq -r '[.results[] | .time.warm_laps // empty] | sort | "\(length) results: median \(.[length / 2 | floor]), min \(.[0]), max \(.[-1])"' \
    "$W/new-synth.json" 2> /dev/null || echo "-")
laps_real=$(jq -r '[.results[] | .time.warm_laps // empty] | sort | "\(length) results: median \(.[length / 2 | floor]), min \(.[0]), max \(.[-1])"' \
    "$W/new-real.json" 2> /dev/null || echo "-")
{
    hr_header "the main job's run time (quickstart.sh's replays and reports)" "$CMD"
    echo "OLD: \`$OLD_HR\` ($("$OLD_HR" --version 2>/dev/null | head -1)); NEW: this build."
    echo "$ROUNDS rounds, OLD then NEW in each. Wall and CPU (user + system, children"
    echo "included) seconds: median [min-max] over the rounds; ratio NEW / OLD within a round."
    echo
    echo "| command | OLD wall s | NEW wall s | wall ratio | OLD CPU s | NEW CPU s | CPU ratio |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for c in replay-synth report-synth replay-real report-real; do
        echo "| $c | $(stat old $c 3) | $(stat new $c 3) | $(ratio $c 3) | $(stat old $c 4) | $(stat new $c 4) | $(ratio $c 4) |"
    done
    echo "| both replays | | | $(ratio replays 3) | | | $(ratio replays 4) |"
    echo "| all four | $(stat old all 3) | $(stat new all 3) | $(ratio all 3) | $(stat old all 4) | $(stat new all 4) | $(ratio all 4) |"
    echo
    echo "NEW's warm laps per result (the median sample's) in the last round: traces/ $laps;"
    echo "traces/real/ $laps_real."
    echo
    echo "Every timing, in order (side, command, wall s, CPU s):"
    echo
    echo '```'
    cat "$W/times.tsv"
    echo '```'
    echo
} > "$W/out.md"
hr_write_out
