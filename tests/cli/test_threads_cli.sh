#!/usr/bin/env bash
# `heapreplay replay --threads` (docs/METRICS.md, "Threads"): a multi-thread trace is replayed
# on one OS thread per recorded thread by default and says so; --threads
# serial keeps one thread and gives the same exact figures; a trace whose
# cross-thread order could never be met (a free before the alloc it frees,
# on another thread) is refused at validation with its event index, exit 2,
# never a hang; --pace is reported; the hand-written reference
# (tests/tools/fresh_mt_replay) sees the same cross-thread frees. TAP.
set -u
. "$(dirname "$0")/tap.sh"
HR="${HR:-./heapreplay}"
[ -x "$HR" ] || HR="$(dirname "$0")/../../heapreplay"
top_builddir=$(dirname "$HR")
JGET="${JGET:-$top_builddir/tests/cli/jget}"
jget() { "$JGET" "$1" "$2"; }
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
RUN=(-r 1 -f json -q --warm-time 0 --verify)

# 1. the impossible order is a validation error: file, event index, exit 2
printf 'heapreplay-trace 1\nalloc 0 16\nfree 1 t=1\nalloc 1 16\nfree 0\n' > "$T/bad.hrtt"
timeout 20 "$HR" replay "$T/bad.hrtt" -a glibc "${RUN[@]}" > /dev/null 2> "$T/bad.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "bad.hrtt:3: event 1 (free)" "$T/bad.err" && [ "$(wc -l < "$T/bad.err")" = 1 ]; then
    ok "free on thread 1 before its alloc on thread 0: exit 2 with the event index"
else
    not_ok "free on thread 1 before its alloc on thread 0: exit 2 with the event index" \
        "exit $rc" "$(cat "$T/bad.err")"
fi

# 2. recorded by default, serial on request; exact figures equal
"$HR" gen particles --threads 3 --events 20000 -o "$T/p3.hrt" > /dev/null
for m in default serial; do
    opt=(); [ "$m" = serial ] && opt=(--threads serial)
    timeout 120 "$HR" replay "$T/p3.hrt" -a glibc,block "${RUN[@]}" "${opt[@]}" > "$T/$m.json"
    echo $? > "$T/$m.rc"
done
mode=$(jget results.0.threads.mode "$T/default.json"); n=$(jget results.0.threads.n "$T/default.json")
np=$(jget results.1.per_thread.2.thread "$T/default.json")
if [ "$(cat "$T/default.rc")" = 0 ] && [ "$mode" = recorded ] && [ "$n" = 3 ] && [ "$np" = 2 ]; then
    ok "3-thread trace: threads.mode recorded, n 3, per-thread figures"
else
    not_ok "3-thread trace: threads.mode recorded, n 3, per-thread figures" \
        "rc $(cat "$T/default.rc") mode '$mode' n '$n' per_thread.2 '$np'"
fi
smode=$(jget results.1.threads.mode "$T/serial.json"); sp=$(jget results.1.per_thread "$T/serial.json" 2>/dev/null)
a=$(jget results.1.memory.peak_footprint "$T/default.json"); b=$(jget results.1.memory.peak_footprint "$T/serial.json")
if [ "$(cat "$T/serial.rc")" = 0 ] && [ "$smode" = serial ] && { [ -z "$sp" ] || [ "$sp" = null ]; } && [ -n "$a" ] && [ "$a" = "$b" ]; then
    ok "--threads serial: mode serial, no per-thread figures, same exact peak footprint ($a)"
else
    not_ok "--threads serial: mode serial, no per-thread figures, same exact peak footprint" \
        "mode '$smode' per_thread '$sp' footprint '$a' vs '$b'"
fi

# 3. pacing by timestamps is reported, with its factor
"$HR" gen particles --threads 2 --timestamps --events 5000 -o "$T/ts.hrt" > /dev/null
timeout 120 "$HR" replay "$T/ts.hrt" -a glibc "${RUN[@]}" --pace timestamps:0.0001 > "$T/ts.json"
rc=$?
pace=$(jget results.0.threads.pace "$T/ts.json"); pf=$(jget results.0.threads.pace_factor "$T/ts.json")
if [ "$rc" = 0 ] && [ "$pace" = timestamps ] && [ "$pf" = 0.0001 ]; then
    ok "--pace timestamps:0.0001 reported as pace timestamps, factor 0.0001"
else
    not_ok "--pace timestamps:0.0001 reported as pace timestamps, factor 0.0001" "rc $rc pace '$pace' factor '$pf'"
fi

# 4. two independent schedulers agree: the hand-written multithreaded replay
#    (tests/tools/fresh_mt_replay, the reference of bench/threads/threads_agreement.sh)
#    counts as many hand-offs as heapreplay's schedule has cross-thread frees,
#    replays every memory op and fails no allocation
DUMP="$top_builddir/tests/tools/dump_events"; FMT="$top_builddir/tests/tools/fresh_mt_replay"
if [ -x "$DUMP" ] && [ -x "$FMT" ]; then
    "$HR" gen jobs --threads 3 --events 20000 --seed 7 -o "$T/jobs.hrt" > /dev/null
    "$DUMP" "$T/jobs.hrt" "$T/jobs.flat" > /dev/null
    timeout 120 "$HR" replay "$T/jobs.hrt" -a glibc "${RUN[@]}" > "$T/jobs.json"
    timeout 120 "$FMT" --warm-laps 2 "$T/jobs.flat" > "$T/fmt.json"
    x=$(jget results.0.threads.cross_thread_frees "$T/jobs.json"); h=$(jget handoffs "$T/fmt.json")
    o=$(jget results.0.ops.total "$T/jobs.json"); fo=$(jget ops "$T/fmt.json")
    if [ -n "$x" ] && [ "$x" -gt 0 ] && [ "$x" = "$h" ] && [ "$o" = "$fo" ] &&
       [ "$(jget threads "$T/fmt.json")" = 3 ] && [ "$(jget failed_allocs "$T/fmt.json")" = 0 ] &&
       [ "$(jget warm_laps "$T/fmt.json")" = 2 ]; then
        ok "fresh_mt_replay: $h hand-offs = heapreplay's cross-thread frees, $fo ops, 3 threads"
    else
        not_ok "fresh_mt_replay agrees with the schedule" "cross '$x' handoffs '$h' ops '$o' vs '$fo'" \
            "$(cat "$T/fmt.json")"
    fi
    printf 'HRFLAT02' > "$T/short.flat"
    "$FMT" "$T/short.flat" > /dev/null 2>&1; r1=$?
    "$FMT" --warm-laps x "$T/jobs.flat" > /dev/null 2>&1; r2=$?
    check "fresh_mt_replay: a short file and a bad --warm-laps are exit 2 ($r1, $r2)" \
        test "$r1" = 2 -a "$r2" = 2
else
    skip "fresh_mt_replay not built"
    skip "fresh_mt_replay not built"
fi

# 5. bad values are usage errors
"$HR" replay "$T/p3.hrt" --threads many > /dev/null 2>&1; r1=$?
"$HR" replay "$T/p3.hrt" --pace timestamps:-1 > /dev/null 2>&1; r2=$?
if [ "$r1" = 2 ] && [ "$r2" = 2 ]; then
    ok "--threads many and --pace timestamps:-1: exit 2"
else
    not_ok "--threads many and --pace timestamps:-1: exit 2" "exit $r1, $r2"
fi
# 6. On one core, the threads' CPU less their spinning is the allocator's
# work, not what is left after the other threads' time: git pack-objects'
# three threads (traces/fidelity/) replayed on their threads pinned to one
# CPU cost at least half what the same events cost on one thread. (A waiting
# thread yields, so the wall time of its wait is mostly the other threads';
# subtracting that wall time put the warm figure at 0-3 % of the serial one.)
GP="$(dirname "$0")/../../traces/fidelity/git_pack.hrt.zst"
if ! command -v taskset > /dev/null 2>&1 || [ ! -f "$GP" ]; then
    skip "threaded CPU on one core" "no taskset or no traces/fidelity/git_pack.hrt.zst"
else
    for m in recorded serial; do
        taskset -c 0 "$HR" replay "$GP" -a glibc -r 1 -f json -q --warm-time 0.1 --memory-lap fast \
            --threads "$m" > "$T/gp-$m.json" 2> "$T/gp-$m.err"
    done
    rw=$(jget results.0.time.ns_per_op "$T/gp-recorded.json" 2> /dev/null)
    sw=$(jget results.0.time.ns_per_op "$T/gp-serial.json" 2> /dev/null)
    rc=$(jget results.0.time.cold_ns_per_op "$T/gp-recorded.json" 2> /dev/null)
    sc=$(jget results.0.time.cold_ns_per_op "$T/gp-serial.json" 2> /dev/null)
    name="threaded CPU on one core: warm $rw / cold $rc ns/op against serial $sw / $sc (at least half)"
    if [ -n "$rw" ] && [ -n "$sw" ] && [ -n "$rc" ] && [ -n "$sc" ] &&
        awk -v a="$rw" -v b="$sw" -v c="$rc" -v d="$sc" 'BEGIN { exit !(a >= 0.5 * b && c >= 0.5 * d && b > 0) }'; then
        ok "$name"
    else
        not_ok "$name" "$(cat "$T/gp-recorded.err" "$T/gp-serial.err")"
    fi
fi
tap_done
