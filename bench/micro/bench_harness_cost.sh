#!/usr/bin/env bash
# The harness's own cost per event where it cannot hide behind a slow
# allocator: particles (a 3-8 ns/op trace) on mimalloc and tcmalloc,
# heapreplay's default replay against the hand-written replay
# (tests/tools/fresh_replay), ROUNDS interleaved rounds, pinned to one CPU.
# Prints bench/fresh/fresh_agreement.sh's table for those pairs: the warm
# ratio (target 0.97-1.03) and "harness ns/event" (heapreplay - fresh warm
# ns/op, median of the rounds). A timing, never part of `make check`.
#
# Usage: bench/micro/bench_harness_cost.sh [BUILDDIR]   (make bench, bench-micro)
# Environment: ROUNDS=5, ALLOCATORS="mimalloc tcmalloc", CPU=1 (the CPU to
# pin to; none: not pinned), TRACES (default traces/particles.hrt).
set -euo pipefail
B="$(cd "${1:-.}" && pwd)"
S="$(cd "$(dirname "$0")/../.." && pwd)"
out=$(mktemp "${TMPDIR:-/tmp}/hr_harness_cost.XXXXXX")
trap 'rm -f "$out"' EXIT
pin=()
CPU=${CPU:-1}
[ "$CPU" = none ] || pin=(taskset -c "$CPU")
ROUNDS=${ROUNDS:-5} ALLOCATORS=${ALLOCATORS:-mimalloc tcmalloc} \
TRACES=${TRACES:-$S/traces/particles.hrt} BIG_EVENTS=0 REAL=0 OUT="$out" \
    "${pin[@]}" bash "$S/bench/fresh/fresh_agreement.sh" "$B" > /dev/null
# The table and its count, without the raw values.
sed -n '/^Command:/p; /^- date:/p; /^| trace/,/^Warm ratio within/p' "$out"
