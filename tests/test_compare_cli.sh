#!/bin/sh
# compare exit codes through the heapreplay binary (TAP). Skips when the
# binary has not been built yet.
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
hr="$top_builddir/heapreplay"
if [ ! -x "$hr" ]; then
    echo "1..0 # SKIP $hr not built"
    exit 0
fi
data="$srcdir/tests/data/reports"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hr_cmp_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
# check NAME WANT_RC CMD...: run CMD, compare its exit status.
check() {
    name=$1 want=$2
    shift 2
    n=$((n + 1))
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name (exit $rc, want $want)"
        sed 's/^/# /' "$tmp/err"
        fail=1
    fi
}
sed 's/"ops_per_s": 20000000/"ops_per_s": 18000000/' "$data/base.json" >"$tmp/slow.json"
sed 's/"ops_per_s": 20000000/"ops_per_s": 19500000/' "$data/base.json" >"$tmp/slower_a_bit.json"
sed 's/"peak_footprint": 10485760/"peak_footprint": 10485761/' "$data/base.json" >"$tmp/peak1.json"
sed 's/"ops_per_s": 20000000/"ops_per_s": 30000000/' "$data/base.json" >"$tmp/fast.json"

check "identical reports" 0 "$hr" compare "$data/base.json" "$data/base.json"
check "throughput -10% beyond 5%" 1 "$hr" compare "$data/base.json" "$tmp/slow.json"
check "throughput -2.5% within 5%" 0 "$hr" compare "$data/base.json" "$tmp/slower_a_bit.json"
check "peak +1 byte with peak=0%" 1 "$hr" compare "$data/base.json" "$tmp/peak1.json" --max-regress peak=0%
check "improvement" 0 "$hr" compare "$data/base.json" "$tmp/fast.json"
check "missing allocator in new" 1 "$hr" compare "$data/base.json" "$data/missing_stack.json"
check "bad JSON" 2 "$hr" compare "$data/base.json" "$data/bad_syntax.json"
check "wrong schema" 2 "$hr" compare "$data/wrong_schema.json" "$data/base.json"
check "bad --max-regress" 2 "$hr" compare "$data/base.json" "$data/base.json" --max-regress throughput
check "unknown metric" 2 "$hr" compare "$data/base.json" "$data/base.json" --max-regress=bogus=5%
check "json output" 1 "$hr" compare --format json "$data/base.json" "$tmp/slow.json"
check "plot svg" 0 "$hr" plot "$data/base.json" -o "$tmp/p.svg" --metric peak_footprint
n=$((n + 1))
if grep -q '</svg>' "$tmp/p.svg" 2>/dev/null && ! grep -q 'href\|<script' "$tmp/p.svg"; then
    echo "ok $n - plot is a self-contained svg"
else
    echo "not ok $n - plot is a self-contained svg"
    fail=1
fi
check "plot unknown metric" 2 "$hr" plot "$data/base.json" --metric nope
echo "1..$n"
exit $fail
