#!/usr/bin/env bash
# One trace's threads apart (docs/METRICS.md, "Threads of a trace"): info
# --thread counts each thread's events, blocks and cross-thread frees;
# replay --thread keeps the chosen threads' events and the frees other
# threads do of their blocks, drops the other threads' blocks (a chosen
# thread's realloc of one becomes an alloc), replays clean under --verify;
# and the report shows the per-thread lines of a trace with several threads.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup thrsel jget

cat > "$T/t.txt" <<'TRACE'
heapreplay-trace 1
alloc 0 100
alloc 1 200 t=1
alloc 2 50
free 0 t=1
free 1
alloc 3 64 t=1
realloc 3 4 128
frame 1
free 2
free 4
alloc 5 10 t=1
free 5 t=1
TRACE

# 1. info --thread=all: per thread events, blocks made, ended (of others'), by others, frames
"$HR" info -j --thread=all "$T/t.txt" > "$T/all.json" 2> "$T/err"
got=$(for k in 0 1; do for f in events blocks ended ended_of_others ended_by_others frames; do
    printf '%s ' "$(jget "0.per_thread.$k.$f" "$T/all.json")"; done; done)
if [ "$got" = "7 3 4 2 1 1 5 3 2 1 2 0 " ]; then ok "info --thread=all: each thread's counts"
else not_ok "info --thread=all: each thread's counts" "got $got" "$(cat "$T/err")"; fi

# 2. info --thread=0: the trace cut to thread 0 (what replay --thread 0 replays)
"$HR" info -j --thread=0 "$T/t.txt" > "$T/t0.json" 2> "$T/err"
if [ "$(jget 0.selected.events "$T/t0.json")" = 7 ] && [ "$(jget 0.per_thread.1 "$T/t0.json")" = null ] &&
    [ "$(jget 0.selected.peak_live_bytes "$T/t0.json")" = 178 ]; then
    ok "info --thread=0: 7 events kept (thread 1's free of thread 0's block too), peak live 178"
else not_ok "info --thread=0" "$(cat "$T/t0.json" "$T/err")"; fi

# 3. replay --thread: the kept events, clean under --verify, on every thread choice
for sel in 0 1; do
    if "$HR" replay -q -r 1 --verify -a glibc,sizeclass --thread "$sel" -o "$T/r$sel.json" "$T/t.txt" \
        > /dev/null 2> "$T/err" &&
        [ "$(jget results.0.ops.events "$T/r$sel.json")" = 7 ] &&
        [ "$(jget results.0.verify.status "$T/r$sel.json")" = ok ] &&
        [ "$(jget results.1.verify.status "$T/r$sel.json")" = ok ] &&
        [ "$(jget options.thread "$T/r$sel.json")" = "$sel" ]; then
        ok "replay --thread $sel: 7 events, verify ok, options.thread recorded"
    else not_ok "replay --thread $sel" "$(cat "$T/err")" "$(jget results.0.ops "$T/r$sel.json" 2>&1)"; fi
done

# 4. bad selections: one line, exit 2
"$HR" replay -q --thread 7 -a glibc "$T/t.txt" > /dev/null 2> "$T/err"; rc=$?
if [ "$rc" = 2 ] && grep -q "no thread 7: the trace has threads 0..1" "$T/err"; then
    ok "replay --thread 7 of a 2-thread trace: exit 2, says which threads exist"
else not_ok "replay --thread 7" "rc $rc" "$(cat "$T/err")"; fi
"$HR" info --thread=0,x "$T/t.txt" > /dev/null 2> "$T/err"; rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "thread 'x'" "$T/err"; then
    ok "info --thread=0,x: exit 2, one line naming 'x'"
else not_ok "info --thread=0,x" "rc $rc" "$(cat "$T/err")"; fi

# 5. the report of a trace replayed on its threads shows the per-thread lines
if "$HR" replay -q -r 1 -a glibc "$T/t.txt" > "$T/r.txt" 2> "$T/err" &&
    grep -q "per thread: events / frees of blocks another thread made (the trace's own): t0 7 / 2, t1 5 / 1" "$T/r.txt" &&
    grep -q "glibc CPU per thread: the warm laps' allocator time, t0 " "$T/r.txt"; then
    ok "text report: per-thread events, cross-thread frees and allocator CPU"
else not_ok "text report: per-thread lines" "$(cat "$T/r.txt" "$T/err")"; fi

tap_done
