#!/usr/bin/env bash
# The replay path under AddressSanitizer + UBSan (the sanitizer build:
# ./configure --enable-asan --enable-ubsan; `make check-asan-replay`, run by
# .ci/run): every shipped trace replays with --verify on the in-house
# allocators and compositions of them, in their worker processes on the
# sanitizer's malloc (docs/ARCHITECTURE.md, "Replay processes"); every row
# is ok with the verify verdict ok and no sanitizer report on stderr; an
# external allocator's row is an error saying it was skipped, without a
# process. Skips everything in a build without AddressSanitizer. TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup asan jget
top_srcdir="$(cd "$(dirname "$0")/../.." && pwd)"
nm "$HR" 2>/dev/null | grep -q __asan_init ||
    skip_all "not an AddressSanitizer build (./configure --enable-asan --enable-ubsan)"
# halt on the first report, in every worker too (the environment reaches them)
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
INHOUSE="stack,marker,block,bank,sizeclass,routed,stack+block,marker+block,stack+marker+block"
n_inhouse=9
SAN='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:'
SAN="$SAN|SUMMARY: UndefinedBehaviorSanitizer"

for tr in "$top_srcdir"/traces/*.hrt; do
    name=$(basename "$tr" .hrt)
    "$HR" replay -q -r 1 --warm-time 0 --verify -a "$INHOUSE" "$tr" -o "$T/$name.json" \
        >/dev/null 2>"$T/$name.err"
    rc=$?
    bad=""
    for i in $(seq 0 $((n_inhouse - 1))); do
        a=$(jget "results.$i.allocator" "$T/$name.json" 2>/dev/null)
        st=$(jget "results.$i.status" "$T/$name.json" 2>/dev/null)
        v=$(jget "results.$i.verify.status" "$T/$name.json" 2>/dev/null)
        [ "$st" = ok ] && [ "$v" = ok ] ||
            bad="$bad $a:$st/$v($(jget "results.$i.error" "$T/$name.json" 2>/dev/null))"
    done
    if [ $rc = 0 ] && [ -z "$bad" ]; then
        ok "$name: $n_inhouse in-house rows ok under ASan + UBSan, verify ok"
    else
        not_ok "$name: $n_inhouse in-house rows ok under ASan + UBSan, verify ok" "rc=$rc$bad" \
            "$(grep -E "$SAN" "$T/$name.err" | head -5)"
    fi
    if grep -qE "$SAN" "$T/$name.err"; then
        not_ok "$name: no sanitizer report" "$(grep -E -A5 "$SAN" "$T/$name.err" | head -20)"
    else
        ok "$name: no sanitizer report"
    fi
done

"$HR" replay -q -r 1 --warm-time 0 -a glibc,stack "$top_srcdir/traces/particles.hrt" \
    -o "$T/ext.json" >/dev/null 2>&1
rc=$?
st=$(jget results.0.status "$T/ext.json")
msg=$(jget results.0.error "$T/ext.json")
if [ $rc = 1 ] && [ "$(jget results.0.allocator "$T/ext.json")" = glibc ] && [ "$st" = error ] &&
    echo "$msg" | grep -q "^skipped: .*AddressSanitizer"; then
    ok "an external allocator: error row, skipped with the reason"
else
    not_ok "an external allocator: error row, skipped with the reason" "rc=$rc $st: $msg"
fi
[ "$(jget results.1.status "$T/ext.json")" = ok ] && ok "the in-house row of that run is ok" ||
    not_ok "the in-house row of that run is ok" "$(jget results.1.error "$T/ext.json")"
tap_done
