#!/usr/bin/env bash
# The packed event form (src/trace/packed.h, --event-form): the replay
# processes read a trace packed (~4 bytes/event) and decoded in windows
# instead of as hr_event_t arrays. Every deterministic figure (op counts, the
# in-house allocators' exact footprints, fragmentation, failures, the
# digest) is the same as with the decoded form, in every mode (measure,
# time, verify, compositions, threads); auto packs a large binary trace;
# traces that need the decoded form (pools) get it with a note.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup packed jget
srcdir=${srcdir:-.}
skip_all_if_asan "$HR" "a replay worker (its malloc is the allocator under test)"
jget() { "$JGET" "$@"; }

# 1. a bad value
"$HR" replay --event-form squeezed "$srcdir/traces/frame_loop.hrt" >"$T/o" 2>"$T/e"
rc=$?
if [ $rc = 2 ] && [ "$(wc -l < "$T/e")" = 1 ] && grep -q "event-form" "$T/e" &&
    grep -q "auto|decoded|packed" "$T/e"; then
    ok "--event-form squeezed: one line naming the option and the values, exit 2"
else
    not_ok "--event-form squeezed: exit 2 with one line" "rc=$rc" "$(cat "$T/e")"
fi

# The deterministic fields of every row of a report, one line each.
fields() {
    local f=$1 i=0 a
    while a=$(jget "results.$i.allocator" "$f" 2>/dev/null) && [ "$a" != null ] && [ $i -lt 50 ]; do
        for k in allocator status trace_digest ops.total ops.events memory.peak_live \
            memory.peak_footprint memory.footprint_at_peak_live memory.live_at_peak_footprint \
            memory.frag_jw4 memory.frag_jw3 memory.internal_slop failed_allocs verify.status verify.checked \
            error; do
            printf '%s=%s ' "$k" "$(jget "results.$i.$k" "$f")"
        done
        echo
        i=$((i + 1))
    done
}

# 2. in-house allocators and a composition: exact footprints, same figures
A="stack,marker,block,bank,sizeclass,routed,stack+block"
for form in decoded packed; do
    "$HR" replay -q -a "$A" -r 1 --warm-time 0 --verify --event-form $form \
        "$srcdir/traces/game_session.hrt" -o "$T/$form.json" >/dev/null 2>"$T/$form.err"
    echo $? > "$T/$form.rc"
done
fields "$T/decoded.json" > "$T/decoded.f"
fields "$T/packed.json" > "$T/packed.f"
rows=$(wc -l < "$T/packed.f")
if [ "$(cat "$T/packed.rc")" = "$(cat "$T/decoded.rc")" ] && [ "$rows" = 7 ] &&
    cmp -s "$T/decoded.f" "$T/packed.f"; then
    ok "in-house rows and a composition, --verify: packed gives the decoded figures ($rows rows)"
else
    not_ok "in-house rows: packed = decoded" "rows=$rows rc=$(cat "$T/packed.rc")" \
        "$(diff "$T/decoded.f" "$T/packed.f" | head -6)" "$(head -3 "$T/packed.err")"
fi
if [ "$(jget results.0.event_form "$T/packed.json")" = packed ] &&
    [ "$(jget results.0.event_form "$T/decoded.json")" = null ]; then
    ok "a packed row says event_form packed; a decoded row has no such key"
else
    not_ok "event_form in the rows" "$(jget results.0.event_form "$T/packed.json")"
fi
if [ "$(grep -c "verify.status=ok verify.checked=[1-9]" "$T/packed.f")" = 7 ]; then
    ok "--verify on the packed form: every row checked, no violation"
else
    not_ok "--verify on the packed form" "$(head -2 "$T/packed.f")"
fi

# 3. glibc (a worker with LD_PRELOAD none): the counts and the live peak
for form in decoded packed; do
    "$HR" replay -q -a glibc -r 1 --warm-time 0 --event-form $form \
        "$srcdir/traces/particles.hrt" -o "$T/g$form.json" >/dev/null 2>&1
done
same=1
for k in status trace_digest ops.total ops.alloc ops.free ops.realloc memory.peak_live; do
    [ "$(jget "results.0.$k" "$T/gdecoded.json")" = "$(jget "results.0.$k" "$T/gpacked.json")" ] ||
        same=0
done
ns=$(jget results.0.time.ns_per_op "$T/gpacked.json")
if [ $same = 1 ] && [ "$(jget results.0.status "$T/gpacked.json")" = ok ] && [ "$ns" != null ]; then
    ok "glibc worker on the packed form: same counts, digest and live peak; timed ($ns ns/op)"
else
    not_ok "glibc worker on the packed form" "$(jget results.0.error "$T/gpacked.json")"
fi

# 4. a text trace with timestamps and sparse ids, forced packed
cat > "$T/t.hrtt" << 'SRC'
heapreplay-trace 1 timestamps
alloc 2000000000 64 @10
alloc 7 4096 64 t=1 @20
push level @30
calloc 3 10 24 @40
pop level @50
frame 1 @60
realloc 2000000000 9 300 @70
free 7 t=1 @80
free 3 @90
free 9 @100
SRC
for form in decoded packed; do
    "$HR" replay -q -a block,glibc -r 1 --warm-time 0 --event-form $form "$T/t.hrtt" \
        -o "$T/t$form.json" >/dev/null 2>"$T/t$form.err"
done
fields "$T/tdecoded.json" | sed 's/memory.live_at_peak_footprint=[^ ]*//' > "$T/td.f"
fields "$T/tpacked.json" | sed 's/memory.live_at_peak_footprint=[^ ]*//' > "$T/tp.f"
t1=$(jget results.0.series.memory.time_s.1 "$T/tpacked.json")
t1d=$(jget results.0.series.memory.time_s.1 "$T/tdecoded.json")
if cmp -s "$T/td.f" "$T/tp.f" && [ "$(wc -l < "$T/tp.f")" = 2 ] && [ "$t1" = "$t1d" ] &&
    [ "$t1" != null ]; then
    ok "text trace, sparse ids renamed, timestamps: packed = decoded (series time_s too)"
else
    not_ok "text trace packed" "$(diff "$T/td.f" "$T/tp.f" | head -4)" "t1=$t1 t1d=$t1d" \
        "$(cat "$T/tpacked.err")"
fi

# 5. a trace with pools: decoded, with a note
cat > "$T/p.hrtt" << 'SRC'
heapreplay-trace 1
alloc 0 4096
palloc 1 64 Particles
pfree 1 Particles
free 0
SRC
"$HR" replay -a block -r 1 --warm-time 0 --event-form packed "$T/p.hrtt" -o "$T/p.json" \
    >/dev/null 2>"$T/p.err"
rc=$?
if [ $rc = 0 ] && grep -q "the trace has pools: its events are decoded" "$T/p.err" &&
    [ "$(jget results.0.event_form "$T/p.json")" = null ]; then
    ok "a trace with pools is replayed decoded, and stderr says why"
else
    not_ok "pools with --event-form packed" "rc=$rc" "$(cat "$T/p.err")"
fi

# 5b. a threaded trace with timestamps: its threads replay from the packed form (the
# scheduler cuts the streams from its windows), with the same schedule and paced
"$HR" gen jobs -n 20000 --threads 2 --seed 3 --timestamps -o "$T/jobs.hrt" >/dev/null
thr() { # the deterministic threaded figures of every row
    local f=$1 i
    for i in 0 1; do
        for k in allocator status threads.mode threads.pace threads.cross_thread_frees \
            threads.locked_instances per_thread.0.ops per_thread.0.events per_thread.1.ops \
            per_thread.0.cross_thread_frees memory.peak_live; do
            printf '%s=%s ' "$k" "$(jget "results.$i.$k" "$f")"
        done
        echo
    done
}
for form in decoded packed; do
    "$HR" replay -q -a block,stack -r 1 --warm-time 0 --event-form $form \
        --pace timestamps:0.001 "$T/jobs.hrt" -o "$T/j$form.json" >/dev/null 2>"$T/j$form.err"
    thr "$T/j$form.json" > "$T/j$form.f"
done
if cmp -s "$T/jdecoded.f" "$T/jpacked.f" && grep -q "threads.mode=recorded threads.pace=timestamps" \
    "$T/jpacked.f" && grep -q "cross_thread_frees=[1-9]" "$T/jpacked.f" &&
    [ "$(jget results.0.event_form "$T/jpacked.json")" = packed ]; then
    ok "a threaded trace replays on its threads from the packed form: same schedule, paced"
else
    not_ok "threaded trace packed" "$(diff "$T/jdecoded.f" "$T/jpacked.f" | head -4)" \
        "$(head -2 "$T/jpacked.f")" "$(cat "$T/jpacked.err")"
fi

# 6. a bad trace: the decoded path's message, exit 2
printf 'heapreplay-trace 1\nalloc 1 8\nfree 2\n' > "$T/bad.hrtt"
"$HR" replay -q -a block --event-form decoded "$T/bad.hrtt" >/dev/null 2>"$T/bd.err"
rd=$?
"$HR" replay -q -a block --event-form packed "$T/bad.hrtt" >/dev/null 2>"$T/bp.err"
rp=$?
if [ $rd = 2 ] && [ $rp = 2 ] && cmp -s "$T/bd.err" "$T/bp.err"; then
    ok "a bad trace: the same one-line error either way, exit 2"
else
    not_ok "bad trace packed" "rc $rd/$rp" "$(cat "$T/bd.err")" "$(cat "$T/bp.err")"
fi

# 7. auto: a binary trace of 4 Mi events or more is packed, a smaller one is not
"$HR" gen session -n 4300000 --seed 5 -o "$T/big.hrt" >/dev/null || not_ok "gen 4.3 M events"
"$HR" replay -q -a block -r 1 --warm-time 0 "$T/big.hrt" -o "$T/auto.json" >/dev/null 2>&1
"$HR" replay -q -a block -r 1 --warm-time 0 "$srcdir/traces/particles.hrt" -o "$T/small.json" \
    >/dev/null 2>&1
if [ "$(jget results.0.event_form "$T/auto.json")" = packed ] &&
    [ "$(jget results.0.status "$T/auto.json")" = ok ] &&
    [ "$(jget results.0.event_form "$T/small.json")" = null ]; then
    ok "auto: 4.3 M events packed, the shipped particles trace decoded"
else
    not_ok "auto form" "$(jget results.0.event_form "$T/auto.json")" \
        "$(jget results.0.error "$T/auto.json")"
fi
tap_done
