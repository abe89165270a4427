#!/usr/bin/env bash
# A broken allocator is reported as broken, not as a harness error: a preload: malloc that
# returns NULL above 1 MiB (tests/fixtures/null_big.c) gets status "oom"
# with a message about the allocator, the trace still loads (the harness's
# own data never comes from the allocator under test) and the other rows
# are unaffected; the same library crashing on large requests gets
# "crashed". TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup broken jget
LIB="$(cd "$top_builddir" && pwd)/tests/fixtures/.libs/null_big.so"
[ -e "$LIB" ] || skip_all "tests/fixtures/.libs/null_big.so not built"
skip_all_if_asan "$HR" "a malloc replacement preloaded into a worker"
# large blocks (assets up to 4 MiB) and small ones
"$HR" gen level_load -n 20000 --seed 9 -o "$T/big.hrt" >/dev/null || skip_all "cannot generate"
"$HR" gen particles -n 20000 --seed 9 -o "$T/small.hrt" >/dev/null || skip_all "cannot generate"

"$HR" replay -q -a "preload:$LIB,glibc" -r 1 --warm-time 0 "$T/big.hrt" -o "$T/r.json" \
    >"$T/out" 2>"$T/err"
rc=$?
st=$(jget results.0.status "$T/r.json")
msg=$(jget results.0.error "$T/r.json")
if [ $rc = 1 ] && [ "$st" = oom ] && echo "$msg" | grep -q "the allocator returned NULL for [1-9]"; then
    ok "NULL above 1 MiB: status oom, the allocator named as the cause, exit 1"
else
    not_ok "NULL above 1 MiB: status oom, the allocator named as the cause, exit 1" \
        "rc=$rc status=$st error=$msg" "$(cat "$T/err")"
fi
if grep -q "$T/big.hrt" "$T/err" || echo "$msg" | grep -qi "slots\|trace"; then
    not_ok "the trace is not blamed" "$(cat "$T/err")" "$msg"
else
    ok "the trace is not blamed"
fi
[ "$(jget results.1.status "$T/r.json")" = ok ] && ok "the glibc row of the same run is ok" ||
    not_ok "the glibc row of the same run is ok"
# the summary wraps its notes at 100 columns, and a long path (distcheck's) moves the break
tr -s ' \n' ' ' < "$T/out" | grep -q "oom: the allocator returned NULL" && ok "the text report says why" ||
    not_ok "the text report says why" "$(tail -5 "$T/out")"

"$HR" replay -q -a "preload:$LIB" -r 1 --warm-time 0 "$T/small.hrt" -o "$T/s.json" >/dev/null 2>&1
[ "$(jget results.0.status "$T/s.json")" = ok ] && ok "no request above 1 MiB: status ok" ||
    not_ok "no request above 1 MiB: status ok" "$(jget results.0.error "$T/s.json")"

HR_FIXTURE_CRASH=1 "$HR" replay -q -a "preload:$LIB" -r 1 --warm-time 0 "$T/big.hrt" \
    -o "$T/c.json" >/dev/null 2>&1
rc=$?
if [ $rc = 1 ] && [ "$(jget results.0.status "$T/c.json")" = crashed ] &&
   [ "$(jget results.0.signal "$T/c.json")" = 11 ]; then
    ok "crashing on a large request: status crashed, signal 11"
else
    not_ok "crashing on a large request: status crashed, signal 11" \
        "rc=$rc $(jget results.0.status "$T/c.json") $(jget results.0.error "$T/c.json")"
fi
tap_done
