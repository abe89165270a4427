#!/usr/bin/env bash
# Is the start-up probe's cost the cost a real program pays? replay adds to
# each row's prediction its library's process start-up as `heapreplay
# __startup-probe` measures it (docs/METRICS.md, "Process start-up"); this
# measures what small real programs really pay and what the replay predicts.
#   real     each program of PROGRAMS under LD_PRELOAD of each allocator,
#            ROUNDS interleaved rounds (every program on every allocator once
#            per round, the allocators' order turned by one each round),
#            CPU from wait4 (the process tree's); the change
#            against glibc is the Hodges-Lehmann estimate of the rounds'
#            paired differences with its signed-rank 95 % interval
#   replay   the program captured once (--follow-forks: every process it
#            starts gets its own trace; --time-runs 5), replayed with -a
#            ALLOCATORS -r REPEAT: per allocator the report's change (the
#            laps' part and the start-up part, the whole program's for
#            several processes) and its interval
# The programs are short, so their real change is nearly all start-up; the
# table sets the real change less the replay's laps (the program's own
# start-up, as far as the laps hold its allocations) beside the probe's term.
#
# Usage: bench/startup/startup.sh [BUILDDIR]        (make bench-startup)
# Environment (defaults):
#   ROUNDS=21  REPEAT=3  ALLOCATORS="glibc jemalloc mimalloc tcmalloc"
#   PROGRAMS="probe python sqlite gcc perl git"
#     probe   heapreplay __startup-probe itself (the term's own measure)
#     python  python3 -c pass
#     sqlite  sqlite3 :memory: 'select 1;'
#     gcc     gcc -c of a one-line C file (gcc, cc1 and as: 3 processes)
#     perl    perl -e 1
#     git     git rev-parse HEAD in this repository
#   OUT=results/startup-$(hostname).md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr startup.sh "${1:-.}"
ROUNDS=${ROUNDS:-21}
REPEAT=${REPEAT:-3}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
PROGRAMS=${PROGRAMS:-probe python sqlite gcc perl git}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$S/results/startup-$(hostname).md}
CMD="ROUNDS=$ROUNDS REPEAT=$REPEAT ALLOCATORS='$ALLOCATORS' PROGRAMS='$PROGRAMS' bench/startup/startup.sh"
echo 'int twice(int x) { return 2 * x; }' > "$W/f.c"

# The command line of program $1, one word a line
cmd_of() {
    case "$1" in
    probe) printf '%s\n' "$HR" __startup-probe ;;
    python) printf '%s\n' "$PYTHON" -c pass ;;
    sqlite) printf '%s\n' sqlite3 :memory: 'select 1;' ;;
    gcc) printf '%s\n' gcc -c "$W/f.c" -o "$W/f.o" ;;
    perl) printf '%s\n' perl -e 1 ;;
    git) printf '%s\n' git -C "$S" rev-parse HEAD ;;
    *) echo "startup.sh: unknown program $1" >&2; exit 2 ;;
    esac
}

# real.tsv: program allocator round cpu_s (every program and allocator once a round)
libs=()
for a in $ALLOCATORS; do
    lib=$(hr_lib "$a") || { echo "startup.sh: $a not found at configure time" >&2; exit 2; }
    libs+=("$a=$lib")
done
progs=()
for p in $PROGRAMS; do
    mapfile -t c < <(cmd_of "$p")
    command -v "${c[0]}" > /dev/null || { echo "startup.sh: $p needs ${c[0]}" >&2; exit 2; }
    progs+=("$p=$(printf '%s\x1f' "${c[@]}")")
done
say "real: $ROUNDS rounds of $PROGRAMS on $ALLOCATORS"
"$PYTHON" "$S/bench/startup/startup.py" real "$ROUNDS" "${#libs[@]}" "${libs[@]}" "${progs[@]}" \
    > "$W/real.tsv"

# replay.tsv: program allocator processes change_s lo_s hi_s laps_s startup_s
: > "$W/replay.tsv"
alist=$(echo "$ALLOCATORS" | tr ' ' ',')
for p in $PROGRAMS; do
    [ "$p" != probe ] || continue # no program of its own to capture
    mapfile -t c < <(cmd_of "$p")
    say "capture and replay $p"
    mkdir -p "$W/$p"
    "$HR" capture --follow-forks --time-runs 5 -o "$W/$p/$p.hrt" --summary "$W/$p.sum" -- \
        "${c[@]}" < /dev/null > /dev/null
    "$HR" replay "$W/$p" -a "$alist" -r "$REPEAT" -q -f json > "$W/$p.json"
    "$PYTHON" "$S/bench/startup/startup.py" replay "$p" "$W/$p.json" >> "$W/replay.tsv"
done

{
    hr_header "Process start-up: the probe's term against real programs" "$CMD"
    "$PYTHON" "$S/bench/startup/startup.py" report "$W/real.tsv" "$W/replay.tsv" "$ALLOCATORS"
    echo
} > "$W/out.md"
hr_write_out
