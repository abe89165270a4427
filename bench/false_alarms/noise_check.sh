#!/usr/bin/env bash
# False alarms of compare's default gates on identical runs: runs
# the same replay PAIRS+1 times and compares each run with the next, as CI
# compares a change with its base. Identical runs have no regression, so every
# failing pair is a false alarm; the defaults are meant to give at most 1 in
# 20 pairs. Prints each pair's verdict and the rows called, then the totals.
#
# Usage: noise_check.sh BUILDDIR PAIRS [replay options...]
#   e.g. noise_check.sh . 20 traces -a glibc,jemalloc,stack -r 3
# COMPARE_SPEC=... passes --max-regress to compare (default: the defaults).
set -uo pipefail
B="${1:?usage: noise_check.sh BUILDDIR PAIRS [replay options...]}"
pairs="${2:?usage: noise_check.sh BUILDDIR PAIRS [replay options...]}"
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hr_noise.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
spec=()
[ -n "${COMPARE_SPEC:-}" ] && spec=(--max-regress "$COMPARE_SPEC")
alarms=0 rows=0
for i in $(seq 0 "$pairs"); do
    if ! "$B/heapreplay" replay "$@" -q -o "$tmp/r$i.json" -f csv >/dev/null 2>"$tmp/err"; then
        echo "replay $i failed: $(head -1 "$tmp/err")" >&2
    fi
    [ "$i" -eq 0 ] && continue
    "$B/heapreplay" compare "$tmp/r$((i - 1)).json" "$tmp/r$i.json" "${spec[@]}" >"$tmp/cmp"
    rc=$?
    n=$(grep -c '^  ! ' "$tmp/cmp")
    echo "pair $i: exit $rc, $n rows called"
    grep '^  ! ' "$tmp/cmp"
    [ "$rc" -ne 0 ] && alarms=$((alarms + 1))
    rows=$((rows + n))
done
echo "false alarms: $alarms of $pairs pairs ($rows rows); target: at most $((pairs / 20))"
