#!/usr/bin/env bash
# The instructions an allocator changes in a real program: each program of
# traces/real under each allocator (LD_PRELOAD) once under valgrind's
# callgrind, its instructions (Ir) split into the allocator's and the rest's
# (bench/underpred/cg_split.py). Instruction counts do not depend on the
# machine's load, so one run each is enough. If the rest's instructions are
# the same on every allocator, a real change of the program's CPU time
# beyond the allocator's own instructions is a change of cycles per
# instruction (cache and TLB misses, page faults), not of work.
#
#   bench/underpred/instructions.sh [BUILDDIR]   > a table (Markdown) on stdout
#
# Environment: PROGRAMS (sqlite_index python_json), ALLOCATORS (glibc
# jemalloc mimalloc tcmalloc), CG_KEEP (a folder to keep the profiles in; a
# profile already there is split again, not run again). Needs valgrind.
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr instructions.sh "${1:-.}"
command -v valgrind > /dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
PROGRAMS=${PROGRAMS:-sqlite_index python_json}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
R=$S/traces/real
CG=${CG_KEEP:-$W}
mkdir -p "$CG"
echo "| program | allocator | instructions | allocator's | the rest's | the rest vs glibc |"
echo "|---|---|---:|---:|---:|---:|"
for p in $PROGRAMS; do
    case "$p" in
    python_json) cmd=(/usr/bin/python3 "$R/python_json.py") ;;
    sqlite_index) cmd=(/usr/bin/sqlite3 :memory: ".read $R/sqlite_index.sql") ;;
    *) echo "instructions.sh: unknown program $p (python_json, sqlite_index)" >&2; exit 2 ;;
    esac
    base=""
    for a in $ALLOCATORS; do
        lib=$(hr_lib "$a") || { say "skipping $a: not built"; continue; }
        if [ ! -s "$CG/cg.$p.$a" ]; then
            say "$p on $a under callgrind"
            env ${lib:+LD_PRELOAD=$lib} valgrind --tool=callgrind --callgrind-out-file="$W/cg.$p.$a" \
                "${cmd[@]}" > /dev/null 2> "$W/cg.err" || { cat "$W/cg.err" >&2; exit 1; }
            [ "$CG" = "$W" ] || mv "$W/cg.$p.$a" "$CG/"
        fi
        read -r _ total alloc rest < <(python3 "$S/bench/underpred/cg_split.py" "$CG/cg.$p.$a")
        [ -n "$base" ] || base=$rest
        awk -v p="$p" -v a="$a" -v t="$total" -v al="$alloc" -v r="$rest" -v b="$base" 'BEGIN {
            printf "| %s | %s | %.4g G | %.4g G | %.4g G | %+.2f %% |\n", p, a, t / 1e9, al / 1e9,
                   r / 1e9, (r - b) / b * 100 }'
    done
done
