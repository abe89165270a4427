#!/usr/bin/env bash
# User and system CPU apart: sqlite_index (traces/real) under each allocator
# in interleaved rounds, each run's user and system seconds from wait4
# (python's os.wait4), so that a real change of the program's CPU time can
# be told kernel work (page faults, zeroing, madvise) or user work.
#
#   taskset -c 1 bench/underpred/user_sys.sh [BUILDDIR]   > TSV: round allocator user_s sys_s minflt
#
# Environment: ROUNDS (7), ALLOCATORS (glibc jemalloc mimalloc).
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr user_sys.sh "${1:-.}"
ROUNDS=${ROUNDS:-7}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc}
printf 'round\tallocator\tuser_s\tsys_s\tminflt\n'
for r in $(seq 1 "$ROUNDS"); do
    for a in $ALLOCATORS; do
        lib=$(hr_lib "$a") || { say "skipping $a: not built"; continue; }
        read -r u sy f _ < <(python3 "$S/bench/lib/hr_run.py" "$lib" /usr/bin/sqlite3 :memory: \
            ".read $S/traces/real/sqlite_index.sql")
        printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$a" "$u" "$sy" "$f"
    done
done
