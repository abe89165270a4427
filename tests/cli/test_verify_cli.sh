#!/usr/bin/env bash
# `heapreplay replay --verify` (docs/METRICS.md, "Verify"): the checker catches the
# broken malloc replacements of tests/fixtures/ (an overlapping block, a
# misaligned block) with status "invalid" and exit status 1, and finds
# nothing wrong with the in-house allocators and glibc on the shipped
# traces. Skips every case while the replay command has no --verify. TAP.
set -u
. "$(dirname "$0")/tap.sh"
HR="${HR:-./heapreplay}"
[ -x "$HR" ] || HR="$(dirname "$0")/../../heapreplay"
top_builddir=$(dirname "$HR")
top_srcdir="$(cd "$(dirname "$0")/../.." && pwd)"
JGET="${JGET:-$top_builddir/tests/cli/jget}"
jget() { "$JGET" "$1" "$2"; }
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
FIX="$(cd "$top_builddir" && pwd)/tests/fixtures/.libs"
TRACES="$top_srcdir/traces"
skip_all_if_asan "$HR" "a malloc replacement preloaded into a worker"
# the fixtures start misbehaving after this many allocation calls: past the
# worker's start-up (about 30), well inside any shipped trace
export HR_FIXTURE_AFTER=200

INHOUSE="stack marker block bank sizeclass routed"
n_traces=$(ls "$TRACES"/*.hrt 2>/dev/null | wc -l)
if ! "$HR" replay --help 2>&1 | grep -q -- --verify; then
    for f in overlap misaligned; do
        skip "preload bad_$f: verify status invalid" "replay has no --verify yet"
    done
    skip "in-house allocators and glibc: verify ok on every shipped trace" "replay has no --verify yet"
    tap_done
fi

# 1. each broken allocator is caught, with the kind of its fault
for f in overlap misalign; do
    kind=$f; [ "$f" = misalign ] && kind=misaligned
    so="$FIX/bad_$f.so"
    name="preload bad_$f: verify status invalid, kind $kind"
    if [ ! -f "$so" ]; then
        not_ok "$name" "missing $so (make check builds it)"
        continue
    fi
    "$HR" replay --verify --warm-time 0 -r 1 -q -a "preload:$so" -f json "$TRACES/level_load.hrt" > "$T/$f.json" 2> "$T/$f.err"
    rc=$?
    st=$(jget results.0.status "$T/$f.json"); vst=$(jget results.0.verify.status "$T/$f.json")
    vk=$(jget results.0.verify.kind "$T/$f.json"); ve=$(jget results.0.verify.event "$T/$f.json")
    vc=$(jget results.0.verify.checked "$T/$f.json"); vm=$(jget results.0.verify.error "$T/$f.json")
    case "$ve" in ''|null|*[!0-9]*) ve_ok=0 ;; *) ve_ok=1 ;; esac
    case "$vc" in ''|null|*[!0-9]*) vc_ok=0 ;; *) vc_ok=1 ;; esac
    if [ $rc = 1 ] && [ "$st" = invalid ] && [ "$vst" = invalid ] && [ "$vk" = "$kind" ] &&
       [ $ve_ok = 1 ] && [ $vc_ok = 1 ] && [ -n "$vm" ] && [ "$vm" != null ]; then
        ok "$name (event $ve: $vm)"
    else
        not_ok "$name" "rc=$rc status=$st verify.status=$vst kind=$vk event=$ve checked=$vc" \
            "error=$vm" "$(head -c 400 "$T/$f.err")"
    fi
done

# 2. the in-house allocators and glibc pass on every shipped trace (marker
# included: its frame release stops above blocks the trace still holds)
bad=""
for tr in "$TRACES"/*.hrt; do
    base=$(basename "$tr")
    "$HR" replay --verify --warm-time 0 -r 1 -q -a "$(echo $INHOUSE | tr ' ' ,),glibc" -f json "$tr" > "$T/ok.json" 2>/dev/null
    i=0
    for a in $INHOUSE glibc; do
        vst=$(jget "results.$i.verify.status" "$T/ok.json")
        [ "$vst" = ok ] || bad="$bad $base:$a=$vst($(jget "results.$i.verify.error" "$T/ok.json"))"
        i=$((i + 1))
    done
done
if [ "$n_traces" -gt 0 ] && [ -z "$bad" ]; then
    ok "in-house allocators and glibc: verify ok on $n_traces shipped traces"
else
    not_ok "in-house allocators and glibc: verify ok on every shipped trace" "traces=$n_traces" $bad
fi
# 3. zero-byte blocks live at the same time get distinct addresses on every
# in-house allocator (a bump allocator would hand out one address twice)
printf 'heapreplay-trace 1\nalloc 0 0\ncalloc 1 0 8\nalloc 2 0\nalloc 3 16\nfree 1\nfree 0\nfree 2\nfree 3\n' \
    >"$T/zero.hrtt"
"$HR" replay --verify --warm-time 0 -r 1 -q -a "$(echo $INHOUSE | tr ' ' ,)" -f json "$T/zero.hrtt" \
    >"$T/zero.json" 2>"$T/zero.err"
bad=""
i=0
for a in $INHOUSE; do
    vst=$(jget "results.$i.verify.status" "$T/zero.json")
    [ "$vst" = ok ] || bad="$bad $a=$vst($(jget "results.$i.verify.error" "$T/zero.json"))"
    i=$((i + 1))
done
[ -z "$bad" ] && ok "zero-byte blocks: verify ok on every in-house allocator" ||
    not_ok "zero-byte blocks: verify ok on every in-house allocator" $bad "$(head -3 "$T/zero.err")"
tap_done
