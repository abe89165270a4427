#!/usr/bin/env bash
# The harness cost of the threaded time mode: bench/threads/bench_threads
# on a trace with no cross-thread frees (`gen particles --threads 4`, 2 M
# events), threaded replay against the serial replay of the same per-thread
# streams, both pinned to one core, for each allocator in $ALLOCATORS.
# Target (the harness's overhead): <= 1.03 with an allocator that does not
# change behaviour with threads (bump: one instance per thread, no locks).
# Writes results/threads-overhead.md (or $OUT).
#
# Usage: bench/threads/threads_overhead.sh [BUILDDIR]     (make bench-threads-overhead)
# Environment: ALLOCATORS="bump glibc", OUT=results/threads-overhead.md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ALLOCATORS=${ALLOCATORS:-bump glibc}
OUT=${OUT:-$S/results/threads-overhead.md}
BT="$B/bench/threads/bench_threads"
[ -x "$BT" ] || make -C "$B" bench/threads/bench_threads >&2
{
    hr_header "Threaded replay overhead against serial streams on one core" \
        "ALLOCATORS='$ALLOCATORS' bench/threads/threads_overhead.sh"
    echo "Each line: \`bench/threads/bench_threads ALLOCATOR\` (11 rounds, A B interleaved, median warm-lap"
    echo "CPU time; threaded = every thread's CPU less spinning). Target <= 1.03 for the harness."
    echo
    for a in $ALLOCATORS; do
        say "bench_threads $a"
        echo '```'
        "$BT" "$a"
        echo '```'
        echo
    done
    say "bench_threads glibc, arena_max=1"
    echo "\`GLIBC_TUNABLES=glibc.malloc.arena_max=1 bench/threads/bench_threads glibc\`:"
    echo
    echo '```'
    GLIBC_TUNABLES=glibc.malloc.arena_max=1 "$BT" glibc
    echo '```'
    echo
    echo "Reading: \`bump\` has no thread-dependent behaviour (one instance per thread, no locks,"
    echo "no atomics), so its ratio is the harness's own cost: thread hand-offs at lap start and"
    echo "end and the stream loop. glibc's ratio also holds glibc's own behaviour under threads:"
    echo "threads 1-3 allocate from arenas of their own (mmap'd heaps), while the serial replay"
    echo "runs every stream on the main arena; the last line repeats glibc with"
    echo "GLIBC_TUNABLES=glibc.malloc.arena_max=1 (one arena for every thread) to show that part."
    echo
} > "$W/out.md"
hr_write_out
