#!/usr/bin/env bash
# compare's program mode on a program of several processes: a C build
# (make -j2 -B of the made-up 12-unit project of bench/fidelity, about 40
# processes: make, sh, gcc, cc1, as, collect2, ld), captured with
# --follow-forks as a build's CI would, each capture replayed:
#   - PAIRS+1 captures of the unchanged build; run i compared with run i+1
#     (PAIRS identical pairs): exit 1 is a false alarm; a child process
#     reported MISSING or new (their trace names carry their pids) is a
#     failure of the matching;
#   - PAIRS captures of each of two changed builds, run i compared with
#     unchanged run i: caught (exit 1), the first line naming the whole
#     program. "grown": one unit, u05.c, with twice its functions (a change
#     in one process of ~40); "O3": every unit compiled with -O3 instead of
#     -O2 (a change in every compiler process).
# Writes results/compare-build-<host>.md.
#
# Usage: bench/compare_build/compare_build.sh BUILDDIR
#   Each comparison runs with the defaults and with the whole program's
#   counts gated at 1 % (TIGHT, --max-regress): the figures of two captures
#   of one build differ by hundredths of a percent.
# Environment: PAIRS=4  ALLOCS=glibc,jemalloc  OPTS="-r 3"
#              TIGHT=ops.events=1%,program.allocations=1%,program.never_freed=1%
#              OUT=results/compare-build-<host>.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr compare_build.sh "${1:-.}"
. "$S/bench/fidelity/progs/progs.sh"
PAIRS=${PAIRS:-4}
ALLOCS=${ALLOCS:-glibc,jemalloc}
OPTS=${OPTS:-"-r 3"}
TIGHT=${TIGHT:-ops.events=1%,program.allocations=1%,program.never_freed=1%}
OUT=${OUT:-"$S/results/compare-build-$(hostname -s).md"}
progs_have make_build > /dev/null || { echo "compare_build.sh: needs make, gcc, python3" >&2; exit 2; }
progs_setup make_build "$W/same"
progs_setup make_build "$W/grown"
progs_setup make_build "$W/O3"
sed -i 's/^CFLAGS = -O2 -g$/CFLAGS = -O3 -g/' "$W/O3/src/Makefile"
grep -q '^CFLAGS = -O3 -g$' "$W/O3/src/Makefile" || { echo "compare_build.sh: CFLAGS not found" >&2; exit 2; }
# the grown unit: u05.c's functions again under other names (not in the
# header: nothing calls them; each is compiled like the rest)
tail -n +2 "$W/grown/src/u05.c" | sed 's/u05_f/u05_g/g' >> "$W/grown/src/u05.c"

# run NAME SRC: one build captured and replayed -> $W/NAME/report.json; the
# capture's and the replay's wall seconds appended to $W/times
run() {
    local t0 t1 t2
    mkdir -p "$W/$1"
    t0=$(date +%s.%N)
    "$HR" capture --follow-forks -o "$W/$1/build.hrt" -s /dev/null -- make -s -j2 -B -C "$W/$2/src" \
        > /dev/null
    t1=$(date +%s.%N)
    # shellcheck disable=SC2086 # OPTS is a word list
    "$HR" replay "$W/$1" -a "$ALLOCS" $OPTS -q -o "$W/$1/report.json" > /dev/null
    t2=$(date +%s.%N)
    awk -v n="$1" -v k="$(ls "$W/$1"/*.hrt | wc -l)" -v a="$t0" -v b="$t1" -v c="$t2" \
        'BEGIN { print n, k, b - a, c - b }' >> "$W/times"
}

say "$((3 * PAIRS + 1)) captures and replays of the build"
run same0 same
for i in $(seq 1 "$PAIRS"); do # interleaved: the machine's minutes alike for each
    run "same$i" same
    run "grown$i" grown
    run "O3$i" O3
done

# the whole program's row of a comparison: "base new verdict"
wrow() { jq -r --arg m "$2" '.rows[] | select((.trace | endswith("(whole program)")) and
         .metric == $m and .allocator == "-") | "\(.base) \(.new) \(.verdict)"' "$1"; }
fa=0 fa_t=0 lost=0 same_procs=""
declare -A caught named caught_t
for i in $(seq 1 "$PAIRS"); do
    a="$W/same$((i - 1))/report.json" b="$W/same$i/report.json"
    "$HR" compare "$a" "$b" > "$W/c.txt" 2>&1 || fa=$((fa + 1))
    "$HR" compare --max-regress "$TIGHT" "$a" "$b" > /dev/null 2>&1 || fa_t=$((fa_t + 1))
    "$HR" compare -f json "$a" "$b" > "$W/c.json" 2> /dev/null || true
    lost=$((lost + $(jq '[.rows[] | select(.verdict == "MISSING" or .verdict == "new")] | length' "$W/c.json")))
    same_procs="$same_procs${same_procs:+,} $(jq -r '.rows[] | select(.metric == "identical processes") |
        .reason' "$W/c.json" | awk '{ print $1 " of " $3 }')"
    for v in grown O3; do
        rc=0
        "$HR" compare "$a" "$W/$v$i/report.json" > "$W/$v.txt" 2>&1 || rc=$?
        [ $rc != 1 ] || caught[$v]=$((${caught[$v]:-0} + 1))
        if head -1 "$W/$v.txt" | grep -q "(whole program): "; then named[$v]=$((${named[$v]:-0} + 1)); fi
        "$HR" compare -f json "$a" "$W/$v$i/report.json" > "$W/$v.json" 2> /dev/null || true
        rc=0
        "$HR" compare --max-regress "$TIGHT" "$a" "$W/$v$i/report.json" > "$W/$v-t.txt" 2>&1 || rc=$?
        [ $rc != 1 ] || caught_t[$v]=$((${caught_t[$v]:-0} + 1))
    done
done

{
    hr_header "compare's program mode on a build captured with --follow-forks" \
        "PAIRS=$PAIRS ALLOCS=$ALLOCS OPTS=\"$OPTS\" bench/compare_build/compare_build.sh BUILDDIR"
    cat <<REPORT
Each run captures \`make -s -j2 -B\` of bench/fidelity/progs/c_project.py's
12-unit project (\`heapreplay capture --follow-forks\`: the parent's trace and
one per child process, named by its pid) and replays the directory with
\`-a $ALLOCS $OPTS\`. The grown build's u05.c holds its 8 functions twice
(one compiler process of ~40 does more); the O3 build compiles every unit
with \`-O3 -g\` instead of \`-O2 -g\` (every compiler process does more).

| pairs | what | result |
|---|---|---|
| $PAIRS identical pairs (run i vs run i+1 of the unchanged build) | exit 1 (false alarm) | **$fa of $PAIRS** |
| the same pairs | exit 1 with \`--max-regress $TIGHT\` | **$fa_t of $PAIRS** |
| the same pairs | rows of a child process MISSING or new (names with other pids) | $lost |
| the same pairs | processes with the same trace in both captures (of each pair) |$same_procs |
$(for v in grown O3; do
    echo "| $PAIRS $v pairs (unchanged run i vs $v run i) | exit 1 (caught) | **${caught[$v]:-0} of $PAIRS** |"
    echo "| the same pairs | the first line names the whole program | ${named[$v]:-0} of $PAIRS |"
    echo "| the same pairs | exit 1 with \`--max-regress $TIGHT\` | **${caught_t[$v]:-0} of $PAIRS** |"
done)

The last identical pair's whole program, and the last changed pairs' (base,
new, verdict):

| figure | identical | grown | O3 |
|---|---|---|---|
$(for m in processes events allocations "blocks never freed" "peak live"; do
    printf '| %s |' "$m"
    for f in c grown O3; do printf ' %s |' "$(wrow "$W/$f.json" "$m")"; done
    echo
done)

The last changed pairs' text, their changed figures first, and the note on
their processes:

$(for v in grown O3; do
    echo "$v, with the defaults, then with \`--max-regress $TIGHT\`:"
    echo
    echo '```'
    sed -n '1,/^$/p' "$W/$v.txt" | sed '/^$/d'
    echo '```'
    echo
    echo '```'
    sed -n '1,/^$/p' "$W/$v-t.txt" | sed '/^$/d'
    echo '```'
    echo
    jq -r '.rows[] | select(.metric == "identical processes") | .reason' "$W/$v.json"
    echo
    echo "By program (the recorded commands), events base -> new:"
    echo
    jq -r '.rows[] | select((.trace | test("whole program: ")) and .metric == "events") |
           "- \(.trace | sub(".*whole program: "; "") | sub("\\)$"; "")): \(.base) -> \(.new) (\(.delta_pct * 100 | round / 100) %)"' \
        "$W/$v.json"
    echo
    echo "The processes paired by their commands (the same, or a like one: compare's notes), their events changed most:"
    echo
    jq -r '.rows[] | select(.metric | startswith("process ")) | "- \(.metric): \(.reason)"' "$W/$v.json" |
        grep . || echo "(none: no process paired by its command with 1 % more or fewer events)"
    echo
done)

Wall seconds per run (capture: the build under the capture library and the
conversion of its traces; replay: every trace with the allocators above):

| run | traces | capture s | replay s |
|---|---:|---:|---:|
$(awk '{ printf "| %s | %s | %.1f | %.1f |\n", $1, $2, $3, $4 }' "$W/times")
REPORT
} > "$W/out.md"
hr_write_out
