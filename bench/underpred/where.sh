#!/usr/bin/env bash
# Where a real program's extra CPU time under another allocator lands: the
# allocator's own functions, the C library's other functions (memmove...),
# the kernel (page faults, zeroing), or the program's own code. This VM has
# no hardware counters, so the split is made from perf's cpu-clock samples
# (a timer interrupt: each sample is 1/FREQ s of the process's CPU time),
# over interleaved rounds, the program pinned to one CPU.
#
#   bench/underpred/where.sh [BUILDDIR]   -> $OUT (results/underpred-where-vm.md)
#
# Environment:
#   ROUNDS (5)            interleaved rounds (A B A B ...)
#   ALLOCATORS (glibc jemalloc mimalloc tcmalloc)   the first is the base of changes
#   FREQ (4000)           samples a second of CPU time
#   CPU (1)               the CPU the program is pinned to
#   PROGRAMS (sqlite_index python_json) real traces' programs: sqlite_index
#                          (sqlite3 on traces/real/sqlite_index.sql),
#                          python_json (python3 on traces/real/python_json.py)
#   PYTHON (/usr/bin/python3) SQLITE (/usr/bin/sqlite3)   the programs, by
#                          path (as bench/fidelity/fidelity.sh: never a
#                          wrapper script found on PATH)
#   TOP (12)              the program spots listed, most grown first
#   OUT                   the results file
# The split itself: bench/underpred/where_sum.py (which symbols count as the
# allocator's).
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr where.sh "${1:-.}"
command -v perf > /dev/null || { echo "where.sh: needs perf (linux-perf)" >&2; exit 2; }
ROUNDS=${ROUNDS:-5}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
FREQ=${FREQ:-4000}
CPU=${CPU:-1}
PROGRAMS=${PROGRAMS:-sqlite_index python_json}
TOP=${TOP:-12}
PYTHON=${PYTHON:-/usr/bin/python3}
SQLITE=${SQLITE:-/usr/bin/sqlite3}
hr_programs where.sh "$PYTHON" "$SQLITE"
program_cmd() {
    case "$1" in
    sqlite_index) CMD=("$SQLITE" :memory: ".read $S/traces/real/sqlite_index.sql") ;;
    python_json) CMD=("$PYTHON" "$S/traces/real/python_json.py") ;;
    *) echo "where.sh: PROGRAMS are sqlite_index or python_json, not $1" >&2; exit 2 ;;
    esac
}
for p in $PROGRAMS; do program_cmd "$p"; done
OUT=${OUT:-$S/results/underpred-where-vm.md}

# samples.tsv: program allocator round samples dso symbol
: > "$W/samples.tsv"
for r in $(seq 1 "$ROUNDS"); do
    for p in $PROGRAMS; do
        program_cmd "$p"
        for a in $ALLOCATORS; do
            lib=$(hr_lib "$a") || { say "skipping $a: not built"; continue; }
            say "round $r/$ROUNDS $p on $a"
            pre=(env "LD_PRELOAD=$lib")
            [ -n "$lib" ] || pre=(env -u LD_PRELOAD)
            (cd "$W" && taskset -c "$CPU" perf record -q -F "$FREQ" -e cpu-clock -o "$W/p.data" \
                -- "${pre[@]}" "${CMD[@]}" > /dev/null 2>&1) || true
            perf report -i "$W/p.data" --stdio --sort dso,sym -F sample,dso,sym 2> /dev/null |
                awk -v p="$p" -v a="$a" -v r="$r" '/^#/ || NF < 3 { next }
                    { s = $1; d = $2; $1 = ""; $2 = ""; sub(/^ +/, "")
                      print p "\t" a "\t" r "\t" s "\t" d "\t" $0 }' >> "$W/samples.tsv"
        done
    done
done

{
    hr_header "Where the extra CPU time lands: real programs under each allocator" \
        "ROUNDS=$ROUNDS ALLOCATORS='$ALLOCATORS' FREQ=$FREQ CPU=$CPU PROGRAMS='$PROGRAMS' bench/underpred/where.sh"
    echo "Each program pinned to CPU $CPU, under perf's cpu-clock at $FREQ Hz (no hardware counters"
    echo "here): one sample is $(python3 -c "print(1000 / $FREQ)") ms of the program's CPU time. Rounds interleave"
    echo "programs and allocators."
    echo
    for p in $PROGRAMS; do
        program_cmd "$p"
        echo "## $p: \`${CMD[*]}\`"
        echo
        awk -F'\t' -v p="$p" '$1 == p' "$W/samples.tsv" | cut -f2- > "$W/one.tsv"
        python3 "$S/bench/underpred/where_sum.py" "$W/one.tsv" "$FREQ" "$TOP"
    done
} > "$W/out.md"
hr_write_out
