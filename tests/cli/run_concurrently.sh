#!/usr/bin/env bash
# Runs COPIES copies of one TAP test script at the same time, as two suites'
# `make check` on one machine do, and passes only when every copy passes: a
# check that the test keeps nothing shared between runs (a fixed port, a fixed
# file name outside its own temporary folder). Not part of `make check` (it is
# the test's run time again, and the copies compete for the CPUs).
#
# Usage (from the top of a built tree):
#   tests/cli/run_concurrently.sh [COPIES] TEST [BUILDDIR]
#   e.g. tests/cli/run_concurrently.sh 2 tests/cli/test_real_traces.sh
# COPIES defaults to 2, BUILDDIR to the current folder. Prints each copy's
# TAP summary (and its failing lines); exit 0 when all passed, else 1.
set -u
copies=2
case "${1:-}" in
[0-9]*) copies=$1; shift ;;
esac
test=${1:?usage: tests/cli/run_concurrently.sh [COPIES] TEST [BUILDDIR]}
build=$(cd "${2:-.}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/hr_concurrent.XXXXXX")
trap 'rm -rf "$W"' EXIT

pids=()
for i in $(seq 1 "$copies"); do
    (cd "$build" && srcdir=$src top_builddir=$build bash "$src/$test" > "$W/out.$i" 2>&1
     echo $? > "$W/rc.$i") &
    pids+=($!)
done
wait "${pids[@]}"

fail=0
for i in $(seq 1 "$copies"); do
    rc=$(cat "$W/rc.$i")
    pass=$(grep -c '^ok ' "$W/out.$i")
    skipped=$(grep -c '^ok .* # SKIP' "$W/out.$i")
    bad=$(grep -c '^not ok ' "$W/out.$i")
    echo "copy $i: exit $rc, $pass ok ($skipped skipped), $bad not ok"
    if [ "$rc" != 0 ] || [ "$bad" != 0 ] || [ "$pass" = 0 ]; then
        fail=1
        grep -A5 '^not ok ' "$W/out.$i" | sed 's/^/  /'
    fi
done
[ "$fail" = 0 ] && echo "all $copies copies of $test passed" || echo "FAIL: a copy of $test failed"
exit "$fail"
