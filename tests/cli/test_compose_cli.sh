#!/usr/bin/env bash
# Compositions (docs/METRICS.md, backends/compose.h): `-a PART+PART` replays every
# shipped trace with every block on the part the routing plan names, passes
# --verify (no part hands out memory that is still live), keeps each part's
# promise (a stack never sees a non-LIFO free, a frame allocator never a
# block that outlives its frame), serves the LIFO temporaries of frame_loop
# on the stack, is replayed serially, and refuses bad specs with exit 2; the
# rows that free with the block's size say so (needs_size_on_free). TAP.
set -u
. "$(dirname "$0")/tap.sh"
HR="${HR:-./heapreplay}"
[ -x "$HR" ] || HR="$(dirname "$0")/../../heapreplay"
top_builddir=$(dirname "$HR")
S="${srcdir:-$(dirname "$0")/../..}"
JGET="${JGET:-$top_builddir/tests/cli/jget}"
jget() { "$JGET" "$1" "$2"; }
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
RUN=(-r 1 -f json -q --warm-time 0 --verify)
SPECS='stack+block,marker+glibc,bank+glibc,stack+marker+block'

# 1. every shipped trace on every composition: ok and verified
timeout 600 "$HR" replay "$S/traces" -a "$SPECS" "${RUN[@]}" > "$T/all.json"
rc=$?
n=$(grep -o '"allocator":' "$T/all.json" | wc -l)
bad=$(grep -o '"status":"[a-z]*"' "$T/all.json" | grep -vc '"status":"ok"' || true)
if [ "$rc" = 0 ] && [ "$n" -ge 20 ] && [ "$bad" = 0 ]; then
    ok "4 compositions x shipped traces: $n rows ok, verified"
else
    not_ok "4 compositions x shipped traces: ok, verified" "exit $rc, $n rows, $bad not ok"
fi
i=0 stack_bad="" marker_bad="" desync=""
while [ "$(jget "results.$i.allocator" "$T/all.json")" != null ]; do
    a=$(jget "results.$i.allocator" "$T/all.json")
    v=$(jget "results.$i.native.violations.stack/non_lifo_free" "$T/all.json")
    [ "$v" != 0 ] && [ "$v" != null ] && stack_bad="$stack_bad $a:$v"
    for k in 0 1 2; do
        [ "$(jget "results.$i.native.parts.$k.part" "$T/all.json")" = marker ] || continue
        o=$(jget "results.$i.native.parts.$k.stats.outlived_frame" "$T/all.json")
        [ "$o" = 0 ] || marker_bad="$marker_bad $a:$o"
    done
    d=$(jget "results.$i.native.violations.route_desync" "$T/all.json")
    [ "$d" != 0 ] && desync="$desync $a:$d"
    i=$((i + 1))
done
check "no composition's stack part sees a non-LIFO free${stack_bad:+ ($stack_bad)}" test -z "$stack_bad"
check "no composition's marker part holds a block past its frame${marker_bad:+ ($marker_bad)}" test -z "$marker_bad"
check "every call routed by the plan (route_desync 0)${desync:+ ($desync)}" test -z "$desync"

# 2. stack+block on frame_loop: the stack serves >= 95 % of its LIFO temporaries natively
"$HR" replay "$S/traces/frame_loop.hrt" -a stack+block "${RUN[@]}" > "$T/fl.json"
lt=$(jget results.0.native.lifo_temporaries "$T/fl.json"); sb=$(jget results.0.native.parts.0.blocks "$T/fl.json")
sf=$(jget results.0.native.parts.0.fallback_ops "$T/fl.json")
if [ "$lt" != null ] && [ "$lt" -gt 0 ] && [ $((sb * 100)) -ge $((lt * 95)) ] && [ "$sf" = 0 ]; then
    ok "stack+block on frame_loop: the stack takes $sb of $lt LIFO temporaries, no fallback"
else
    not_ok "stack+block on frame_loop: >= 95 % of LIFO temporaries on the stack" "lifo $lt stack $sb fallback $sf"
fi
f1=$(jget results.0.memory.peak_footprint "$T/fl.json")
check "its footprint is exact and at least peak live ($f1)" \
    test "$(jget results.0.memory.footprint_source "$T/fl.json")" = exact -a \
    "$f1" -ge "$(jget results.0.memory.peak_live "$T/fl.json")"

# 2b. which rows free with the block's size (needs_size_on_free): a
#     composition with block or bank; not stack+marker, not the system malloc
"$HR" replay "$S/traces/particles.hrt" -a 'glibc,block,stack+marker,bank+glibc' \
    -r 1 -f json -q --warm-time 0 > "$T/sized.json"
sized=""
for i in 0 1 2 3; do
    sized="$sized $(jget "results.$i.allocator" "$T/sized.json")=$(jget "results.$i.needs_size_on_free" "$T/sized.json")"
done
sized=${sized# }
check "needs_size_on_free on block and bank+glibc only ($sized)" \
    test "$sized" = "glibc=null block=true stack+marker=null bank+glibc=true"

# 3. a multi-thread trace: a composition replays serially
"$HR" gen particles --threads 2 --events 4000 -o "$T/p2.hrt" > /dev/null
"$HR" replay "$T/p2.hrt" -a marker+glibc -r 1 -f json -q --warm-time 0 > "$T/p2.json"
check "a 2-thread trace on marker+glibc: threads.mode serial" \
    test "$(jget results.0.threads.mode "$T/p2.json")" = serial

# 4. bad specs: one line, exit 2
for spec in 'glibc+stack' 'stack+nosuch' 'stack+' 'jemalloc+mimalloc'; do
    "$HR" replay "$S/traces/frame_loop.hrt" -a "$spec" > /dev/null 2> "$T/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "composition '$spec'" "$T/err"; then
        ok "-a '$spec': exit 2, $(cat "$T/err")"
    else
        not_ok "-a '$spec': exit 2 with one line" "exit $rc" "$(cat "$T/err")"
    fi
done
"$HR" list > "$T/list"
check "heapreplay list explains compositions" grep -q "^compositions:" "$T/list"
tap_done
