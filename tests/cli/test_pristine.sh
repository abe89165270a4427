#!/usr/bin/env bash
# The harness must not perturb the allocator it measures (docs/ARCHITECTURE.md,
# "Measurement protocol"): the glibc
# worker replaying traces/frame_loop.hrt must make as many brk calls as a
# hand-written replay of the same events in a fresh process
# (tests/tools/fresh_replay), within 10 %. glibc grows and trims its heap with
# brk as a fresh program's heap rises and falls; a harness that left a freed
# large chunk behind (raising the dynamic mmap/trim thresholds) makes the
# replay never trim, and the brk count collapses (the old engine: ~5 against
# ~780 per lap).
#
# How the worker is found in `strace -f` output without knowing the process
# layout: the root process (the first line: its execve) is dropped, and the
# process with the most brk calls is the one that replays; the counts of every
# process are printed. Both sides run the same number of laps: heapreplay's
# cold lap plus its reported time.warm_laps, fresh_replay with --warm-laps.
#
# The comparison is skipped without strace (or when ptrace is not allowed)
# and while `heapreplay replay --help` does not mention --warm-time (the
# cold/warm lap engine). Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
S="${srcdir:-$(dirname "$0")/../..}"
HR="$top_builddir/heapreplay"
FRESH="$top_builddir/tests/tools/fresh_replay"
DUMP="$top_builddir/tests/tools/dump_events"
JGET="$top_builddir/tests/cli/jget"
for p in "$HR" "$FRESH" "$DUMP" "$JGET"; do [ -x "$p" ] || skip_all "$p not built"; done
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_pristine.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
TRACE="$S/traces/frame_loop.hrt"

# 1. the flat file holds exactly the trace's memory ops
"$DUMP" "$TRACE" "$T/fl.flat" > "$T/dump.out" 2>&1
"$HR" info --json "$TRACE" > "$T/info.json"
want=0
for k in alloc calloc realloc free; do want=$((want + $("$JGET" "0.ops.$k" "$T/info.json"))); done
want_ops=$want
if grep -q "^$T/fl.flat: $want events" "$T/dump.out"; then ok "dump_events: $want memory ops of frame_loop"
else not_ok "dump_events writes the $want memory ops" "$(cat "$T/dump.out")"; fi

# 2. fresh_replay: one cold lap, one line of JSON, plain glibc
"$FRESH" --warm-time 0 "$T/fl.flat" > "$T/fresh.json" 2> "$T/err"
if [ "$("$JGET" ops "$T/fresh.json")" = "$want" ] && [ "$("$JGET" warm_laps "$T/fresh.json")" = 0 ] &&
   [ "$("$JGET" failed_allocs "$T/fresh.json")" = 0 ] && [ "$("$JGET" ns_per_op "$T/fresh.json")" = null ]; then
    ok "fresh_replay --warm-time 0: cold lap only, $(printf %.1f "$("$JGET" cold_ns_per_op "$T/fresh.json")") ns/op"
else
    not_ok "fresh_replay --warm-time 0: cold lap only" "$(cat "$T/fresh.json" "$T/err")"
fi
case "$("$JGET" malloc_provider "$T/fresh.json")" in
    */libc.so*) ok "fresh_replay: malloc from the C library" ;;
    *) not_ok "fresh_replay: malloc from the C library" "$(cat "$T/fresh.json")" ;; esac
"$FRESH" --warm-laps 2 "$T/fl.flat" > "$T/fresh2.json"
check "fresh_replay --warm-laps 2: two warm laps" test "$("$JGET" warm_laps "$T/fresh2.json")" = 2
"$FRESH" --warm-time x "$T/fl.flat" > /dev/null 2>&1
check "fresh_replay: bad --warm-time is exit 2" test $? = 2
"$FRESH" "$TRACE" > /dev/null 2>&1
check "fresh_replay: a trace that is not a flat file is exit 2" test $? = 2

# 3. an LD_PRELOADed allocator is the one fresh_replay measures
if so=$(tap_lib jemalloc) && [ -f "$so" ]; then
    LD_PRELOAD="$so" "$FRESH" --warm-time 0 "$T/fl.flat" > "$T/je.json"
    got=$("$JGET" malloc_provider "$T/je.json")
    check "fresh_replay under LD_PRELOAD: malloc from $got" test "$(readlink -f "$got")" = "$(readlink -f "$so")"
else
    skip "fresh_replay under LD_PRELOAD=jemalloc" "jemalloc not found at configure time"
fi

# 4. brk calls: heapreplay's glibc worker against fresh_replay
# brk_counts FILE: "PID COUNT" per process that called brk, root first-line pid excluded.
brk_counts() {
    awk 'NR == 1 { root = $1 } $2 ~ /^brk\(/ && $1 != root { n[$1]++ } END { for (p in n) print p, n[p] }' "$1" |
        sort -k2,2nr
}
if ! command -v strace > /dev/null 2>&1; then
    skip "worker brk calls within 10 % of fresh_replay's" "strace not installed"
elif ! strace -f -o /dev/null true > /dev/null 2>&1; then
    skip "worker brk calls within 10 % of fresh_replay's" "strace cannot trace here (ptrace not permitted)"
elif ! "$HR" replay --help 2>&1 | grep -q -- --warm-time; then
    strace -f -o "$T/fr.st" -e trace=brk,execve "$FRESH" --warm-time 0 "$T/fl.flat" > /dev/null
    skip "worker brk calls within 10 % of fresh_replay's ($(grep -c ' brk(' "$T/fr.st") in one fresh lap)" \
        "replay has no --warm-time yet (no cold/warm lap engine)"
else
    strace -f -o "$T/hr.st" -e trace=brk,execve "$HR" replay "$TRACE" -a glibc -r 1 --warm-time 0 -q \
        -o "$T/hr.json" > /dev/null 2> "$T/hr.err"
    laps=$("$JGET" results.0.time.warm_laps "$T/hr.json" 2> /dev/null)
    case "$laps" in '' | null) laps=0 ;; esac
    strace -f -o "$T/fr.st" -e trace=brk,execve "$FRESH" --warm-laps "$laps" "$T/fl.flat" > /dev/null
    f=$(grep -c ' brk(' "$T/fr.st")
    brk_counts "$T/hr.st" > "$T/hr.counts"
    w=$(awk 'NR == 1 { print $2 }' "$T/hr.counts")
    w=${w:-0}
    name="glibc worker: $w brk calls, fresh_replay $f (1 + $laps laps each; within 10 %)"
    if [ "$("$JGET" results.0.status "$T/hr.json" 2> /dev/null)" != ok ]; then
        not_ok "$name" "heapreplay replay failed: $(cat "$T/hr.err")" "$(head -c 400 "$T/hr.json" 2> /dev/null)"
    elif [ $((w * 10)) -ge $((f * 9)) ] && [ $((w * 10)) -le $((f * 11)) ]; then
        ok "$name"
    else
        not_ok "$name" "brk calls per process (pid count), root excluded:" "$(cat "$T/hr.counts")"
    fi
fi

# 4. the benchmarks' reference relinked as heapreplay is linked
# (bench/lib/hr_bench_lib.sh, FRESH_LIBS=linked): its shared libraries are
# heapreplay's, in heapreplay's order (the order alone moved glibc's frame_loop
# by 15 % in a hand-written replay), and it replays the flat file.
if ! command -v readelf > /dev/null 2>&1 || ! command -v "${CC:-cc}" > /dev/null 2>&1; then
    skip "the reference relinked with heapreplay's libraries" "no readelf or C compiler"
elif [ ! -f "$top_builddir/tests/tools/fresh_replay.o" ]; then
    skip "the reference relinked with heapreplay's libraries" "tests/tools/fresh_replay.o not built"
elif nm "$top_builddir/tests/tools/fresh_replay.o" 2> /dev/null | grep -q __asan; then
    skip "the reference relinked with heapreplay's libraries" "ASan build (the benchmarks need a plain one)"
else
    ref=$( (B=$top_builddir W=$T; . "$S/bench/lib/hr_bench_lib.sh"; hr_fresh_ref linked fresh_replay) 2> "$T/ref.err")
    want=$(readelf -d "$HR" | awk '/\(NEEDED\)/ { print $5 }' | tr -d '[]' | tr '\n' ' ')
    got=$( [ -n "$ref" ] && readelf -d "$ref" | awk '/\(NEEDED\)/ { print $5 }' | tr -d '[]' | tr '\n' ' ')
    if [ -n "$ref" ] && [ "$got" = "$want" ]; then ok "the reference relinked maps $want"
    else not_ok "the reference relinked maps heapreplay's libraries in order" "heapreplay: $want" \
        "reference: $got" "$(cat "$T/ref.err")"; fi
    if [ -n "$ref" ] && "$ref" --warm-laps 0 "$T/fl.flat" > "$T/ref.json" 2> "$T/ref.err" &&
        [ "$("$JGET" ops "$T/ref.json" 2> /dev/null)" = "$want_ops" ]; then
        ok "the relinked reference replays frame_loop's $want_ops memory ops"
    else
        not_ok "the relinked reference replays frame_loop" "$(cat "$T/ref.err")" "$(head -c 300 "$T/ref.json" 2> /dev/null)"
    fi
fi

tap_done
