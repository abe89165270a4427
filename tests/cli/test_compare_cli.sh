#!/usr/bin/env bash
# compare exit codes through the heapreplay binary (TAP). Skips when the
# binary has not been built yet.
set -u
. "$(dirname "$0")/tap.sh"
srcdir=${srcdir:-.}
tap_setup cmp_cli
data="$srcdir/tests/data/reports"
# check_rc NAME WANT_RC CMD...: run CMD, compare its exit status.
check_rc() {
    local name=$1 want=$2 rc
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        ok "$name"
    else
        not_ok "$name (exit $rc, want $want)" "$(cat "$T/err")"
    fi
}
sed 's/"ops_per_s": 20000000/"ops_per_s": 18000000/' "$data/base.json" >"$T/slow.json"
sed 's/"ops_per_s": 20000000/"ops_per_s": 19500000/' "$data/base.json" >"$T/slower_a_bit.json"
sed 's/"peak_footprint": 10485760/"peak_footprint": 10485761/' "$data/base.json" >"$T/peak1.json"
sed 's/"ops_per_s": 20000000/"ops_per_s": 30000000/' "$data/base.json" >"$T/fast.json"
sed 's/"ns_per_op": 50}/"ns_per_op": 60}/' "$data/base.json" >"$T/slow_ns.json"

check_rc "identical reports" 0 "$HR" compare "$data/base.json" "$data/base.json"
check_rc "throughput -10% beyond 5%" 1 "$HR" compare "$data/base.json" "$T/slow.json" \
    --max-regress throughput=5%
check_rc "throughput -2.5% within 5%" 0 "$HR" compare "$data/base.json" "$T/slower_a_bit.json" \
    --max-regress throughput=5%
check_rc "throughput not gated by default" 0 "$HR" compare "$data/base.json" "$T/slow.json"
check_rc "ns/op +20% gated by default" 1 "$HR" compare "$data/base.json" "$T/slow_ns.json"
if grep -q 'glibc ns_per_op: +20.00% > 10% (single values' "$T/out"; then
    ok "text output says why"
else
    not_ok "text output says why" "$(cat "$T/out")"
fi
check_rc "peak +1 byte with peak=0%" 1 "$HR" compare "$data/base.json" "$T/peak1.json" --max-regress peak=0%
check_rc "improvement" 0 "$HR" compare "$data/base.json" "$T/fast.json"
check_rc "missing allocator in new" 1 "$HR" compare "$data/base.json" "$data/missing_stack.json"
check_rc "bad JSON" 2 "$HR" compare "$data/base.json" "$data/bad_syntax.json"
check_rc "wrong schema" 2 "$HR" compare "$data/wrong_schema.json" "$data/base.json"
check_rc "bad --max-regress" 2 "$HR" compare "$data/base.json" "$data/base.json" --max-regress throughput
check_rc "unknown metric" 2 "$HR" compare "$data/base.json" "$data/base.json" --max-regress=bogus=5%
check_rc "json output" 1 "$HR" compare --format json "$data/base.json" "$T/slow.json" \
    --max-regress throughput=5%
if grep -q '"delta_pct": -10,' "$T/out" && grep -q '"reason": "-10.00% < -5%' "$T/out" &&
    ! grep -q '"delta %"' "$T/out"; then
    ok "json output: delta_pct and reason"
else
    not_ok "json output: delta_pct and reason" "$(grep -A3 REGRESSION "$T/out")"
fi
check_rc "plot svg" 0 "$HR" plot "$data/base.json" -o "$T/p.svg" --metric peak_footprint
if grep -q '</svg>' "$T/p.svg" 2>/dev/null && ! grep -q 'href\|<script' "$T/p.svg"; then
    ok "plot is a self-contained svg"
else
    not_ok "plot is a self-contained svg"
fi
check_rc "plot unknown metric" 2 "$HR" plot "$data/base.json" --metric nope

# Golden figures: the shipped traces replayed on every in-house allocator give
# the deterministic figures of the committed report (op counts, peak live, the
# exact footprints, slop): a change that moves any of them fails here.
golden="$srcdir/results/shipped-traces.json"
jget="$top_builddir/tests/cli/jget"
if [ -f "$golden" ] && [ -x "$jget" ]; then
    "$HR" replay --warm-time 0 --verify "$srcdir/traces" -a stack,marker,block,bank,sizeclass,routed -r 1 -q \
        -o "$T/inh.json" -f csv >/dev/null 2>"$T/err"
    "$HR" compare "$golden" "$T/inh.json" --max-regress live=0%,slop=0% -f json >"$T/g.json"
    m=$("$jget" summary.matched "$T/g.json") r=$("$jget" summary.regressions "$T/g.json")
    x=$("$jget" summary.mismatches "$T/g.json")
    if [ "$m" = 30 ] && [ "$r" = 0 ] && [ "$x" = 0 ]; then
        ok "shipped traces: in-house figures equal the committed report"
    else
        not_ok "shipped traces: in-house figures equal the committed report" \
            "matched $m (want 30), regressions $r, mismatches $x" \
            "$(grep -E 'REGRESSION|MISMATCH' "$T/g.json" | head -5)"
    fi
else
    skip "shipped traces: in-house figures equal the committed report" "no $golden or jget"
fi
tap_done
