#!/usr/bin/env bash
# compare exit codes through the heapreplay binary (TAP). Skips when the
# binary has not been built yet.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
hr="$top_builddir/heapreplay"
[ -x "$hr" ] || skip_all "$hr not built"
data="$srcdir/tests/data/reports"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hr_cmp_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# check_rc NAME WANT_RC CMD...: run CMD, compare its exit status.
check_rc() {
    local name=$1 want=$2 rc
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        ok "$name"
    else
        not_ok "$name (exit $rc, want $want)" "$(cat "$tmp/err")"
    fi
}
sed 's/"ops_per_s": 20000000/"ops_per_s": 18000000/' "$data/base.json" >"$tmp/slow.json"
sed 's/"ops_per_s": 20000000/"ops_per_s": 19500000/' "$data/base.json" >"$tmp/slower_a_bit.json"
sed 's/"peak_footprint": 10485760/"peak_footprint": 10485761/' "$data/base.json" >"$tmp/peak1.json"
sed 's/"ops_per_s": 20000000/"ops_per_s": 30000000/' "$data/base.json" >"$tmp/fast.json"
sed 's/"ns_per_op": 50}/"ns_per_op": 60}/' "$data/base.json" >"$tmp/slow_ns.json"

check_rc "identical reports" 0 "$hr" compare "$data/base.json" "$data/base.json"
check_rc "throughput -10% beyond 5%" 1 "$hr" compare "$data/base.json" "$tmp/slow.json" \
    --max-regress throughput=5%
check_rc "throughput -2.5% within 5%" 0 "$hr" compare "$data/base.json" "$tmp/slower_a_bit.json" \
    --max-regress throughput=5%
check_rc "throughput not gated by default" 0 "$hr" compare "$data/base.json" "$tmp/slow.json"
check_rc "ns/op +20% gated by default" 1 "$hr" compare "$data/base.json" "$tmp/slow_ns.json"
if grep -q 'glibc ns_per_op: +20.00% > 10% (single values' "$tmp/out"; then
    ok "text output says why"
else
    not_ok "text output says why" "$(cat "$tmp/out")"
fi
check_rc "peak +1 byte with peak=0%" 1 "$hr" compare "$data/base.json" "$tmp/peak1.json" --max-regress peak=0%
check_rc "improvement" 0 "$hr" compare "$data/base.json" "$tmp/fast.json"
check_rc "missing allocator in new" 1 "$hr" compare "$data/base.json" "$data/missing_stack.json"
check_rc "bad JSON" 2 "$hr" compare "$data/base.json" "$data/bad_syntax.json"
check_rc "wrong schema" 2 "$hr" compare "$data/wrong_schema.json" "$data/base.json"
check_rc "bad --max-regress" 2 "$hr" compare "$data/base.json" "$data/base.json" --max-regress throughput
check_rc "unknown metric" 2 "$hr" compare "$data/base.json" "$data/base.json" --max-regress=bogus=5%
check_rc "json output" 1 "$hr" compare --format json "$data/base.json" "$tmp/slow.json" \
    --max-regress throughput=5%
if grep -q '"delta_pct": -10,' "$tmp/out" && grep -q '"reason": "-10.00% < -5%' "$tmp/out" &&
    ! grep -q '"delta %"' "$tmp/out"; then
    ok "json output: delta_pct and reason"
else
    not_ok "json output: delta_pct and reason" "$(grep -A3 REGRESSION "$tmp/out")"
fi
check_rc "plot svg" 0 "$hr" plot "$data/base.json" -o "$tmp/p.svg" --metric peak_footprint
if grep -q '</svg>' "$tmp/p.svg" 2>/dev/null && ! grep -q 'href\|<script' "$tmp/p.svg"; then
    ok "plot is a self-contained svg"
else
    not_ok "plot is a self-contained svg"
fi
check_rc "plot unknown metric" 2 "$hr" plot "$data/base.json" --metric nope

# Golden figures: the shipped traces replayed on every in-house allocator give
# the deterministic figures of the committed report (op counts, peak live, the
# exact footprints, slop): a change that moves any of them fails here.
golden="$srcdir/results/shipped-traces.json"
jget="$top_builddir/tests/cli/jget"
if [ -f "$golden" ] && [ -x "$jget" ]; then
    "$hr" replay --warm-time 0 --verify "$srcdir/traces" -a stack,marker,block,bank,sizeclass,routed -r 1 -q \
        -o "$tmp/inh.json" -f csv >/dev/null 2>"$tmp/err"
    "$hr" compare "$golden" "$tmp/inh.json" --max-regress live=0%,slop=0% -f json >"$tmp/g.json"
    m=$("$jget" summary.matched "$tmp/g.json") r=$("$jget" summary.regressions "$tmp/g.json")
    x=$("$jget" summary.mismatches "$tmp/g.json")
    if [ "$m" = 30 ] && [ "$r" = 0 ] && [ "$x" = 0 ]; then
        ok "shipped traces: in-house figures equal the committed report"
    else
        not_ok "shipped traces: in-house figures equal the committed report" \
            "matched $m (want 30), regressions $r, mismatches $x" \
            "$(grep -E 'REGRESSION|MISMATCH' "$tmp/g.json" | head -5)"
    fi
else
    skip "shipped traces: in-house figures equal the committed report" "no $golden or jget"
fi
tap_done
