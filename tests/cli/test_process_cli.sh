#!/usr/bin/env bash
# Well-behaved processes: a replay stopped by SIGTERM (to the parent only, as
# CI runners and Popen.terminate() do) leaves no process behind and writes
# the rows finished so far marked interrupted (exit 143); SIGKILL of the
# parent takes its replay processes along; progress is quiet off a terminal
# unless -v; capture keeps the program's stdout byte-identical and
# --follow-forks turns each child's log into its own named trace.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup proc jget
"$HR" gen session -n 20000 -o "$T/s.hrt" > /dev/null || skip_all "cannot generate a trace"

# Processes whose command line names this test's directory (the replay
# processes carry the trace path), the caller excepted.
left() { pgrep -f -- "$T/s.hrt" | grep -vx "$$" || true; }
# Waits up to 10 s for every such process to end; prints what is left.
wait_gone() {
    local _
    for _ in $(seq 100); do [ -z "$(left)" ] && return 0; sleep 0.1; done
    left
}
# Waits up to 20 s until a replay process of spec $1 runs.
wait_worker() {
    local _
    for _ in $(seq 200); do pgrep -f -- "--spec $1 .*$T/s.hrt" > /dev/null && return 0; sleep 0.1; done
    return 1
}

# 1. SIGTERM to the parent: bump's rows are done, hang:5 never ends.
"$HR" replay -a bump,hang:5 -r 1 --warm-time 0 -o "$T/r.json" "$T/s.hrt" > "$T/out" 2> "$T/err" &
pid=$!
if wait_worker hang:5; then
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    rest=$(wait_gone)
    if [ $rc = 143 ] && [ -z "$rest" ]; then ok "SIGTERM: exit 143, no replay process left"
    else not_ok "SIGTERM: exit 143, no replay process left" "exit $rc" "left: $rest" "$(cat "$T/err")"; fi
    if [ "$("$JGET" interrupted "$T/r.json")" = SIGTERM ] && [ "$("$JGET" results.0.allocator "$T/r.json")" = bump ] &&
       [ "$("$JGET" results.0.status "$T/r.json")" = ok ] && [ "$("$JGET" results.1 "$T/r.json")" = null ]; then
        ok "SIGTERM: -o holds the finished row (bump), report marked interrupted"
    else
        not_ok "SIGTERM: partial report" "$(head -c 300 "$T/r.json")"
    fi
    check "SIGTERM: the text report says INTERRUPTED" grep -q "INTERRUPTED by SIGTERM" "$T/out"
    check "SIGTERM: one line on stderr names the partial report" grep -q "interrupted by SIGTERM; partial report in $T/r.json" "$T/err"
else
    kill "$pid" 2> /dev/null
    not_ok "SIGTERM: the hang:5 replay process started" "$(cat "$T/err")"
fi

# 2. SIGKILL to the parent (no handler runs): its processes still die.
"$HR" replay -a hang:5 -r 1 --warm-time 0 -q "$T/s.hrt" > /dev/null 2>&1 &
pid=$!
if wait_worker hang:5; then
    kill -KILL "$pid"
    wait "$pid" 2> /dev/null
    rest=$(wait_gone)
    if [ -z "$rest" ]; then ok "SIGKILL of the parent: no replay process left"
    else not_ok "SIGKILL of the parent: no replay process left" "left: $rest"; pkill -KILL -f -- "$T/s.hrt"; fi
else
    kill -KILL "$pid" 2> /dev/null
    not_ok "SIGKILL: the hang:5 replay process started"
fi

# 3. progress: nothing off a terminal; -v: one [k/N] line per process
"$HR" replay -a bump -r 2 --warm-time 0 "$T/s.hrt" > /dev/null 2> "$T/err"
check "progress: quiet when stderr is not a terminal" test ! -s "$T/err"
"$HR" replay -a bump -r 2 --warm-time 0 -v "$T/s.hrt" > /dev/null 2> "$T/err"
if [ "$(grep -c '^\[[1-4]/4\] replay ' "$T/err")" = 4 ]; then ok "progress: -v prints [k/N] per process"
else not_ok "progress: -v prints [k/N] per process" "$(cat "$T/err")"; fi

# On a terminal (script(1) gives one): one line rewritten in place, [k/N],
# the share of the current process (from the previous sample) and an ETA.
if command -v script > /dev/null; then
    script -qec "'$HR' replay -a bump -r 2 --warm-time 0.6 '$T/s.hrt' > /dev/null" /dev/null > "$T/tty" 2>&1
    nl=$(tr -cd '\n' < "$T/tty" | wc -c)
    if grep -q '\[4/4\]' "$T/tty" && grep -q 'this one [0-9]*%' "$T/tty" && grep -q 'ETA [0-9]*m[0-9][0-9]s' "$T/tty" &&
       [ "$nl" -le 1 ]; then
        ok "progress on a terminal: [k/N], the current process's share, ETA, nothing scrolls ($nl newline)"
    else
        not_ok "progress on a terminal" "newlines $nl" "$(tr '\r' '\n' < "$T/tty" | head -8)"
    fi
else
    skip "progress on a terminal" "script(1) not installed"
fi

# 4. capture leaves the program's stdout byte-identical
LIB="$top_builddir/.libs/libheapreplay-capture.so"
if [ -f "$LIB" ]; then
    head -c 300000 /dev/urandom > "$T/data"
    "$HR" capture -o "$T/c.hrt" -- cat "$T/data" > "$T/copy" 2> "$T/cap.err"
    rc=$?
    if [ $rc = 0 ] && cmp -s "$T/data" "$T/copy" && grep -q "^trace: $T/c.hrt" "$T/cap.err"; then
        ok "capture: program stdout byte-identical, summary on stderr"
    else
        not_ok "capture: program stdout byte-identical" "exit $rc" "$(cat "$T/cap.err")"
    fi
    "$HR" capture --summary "$T/sum.txt" -o "$T/c2.hrt" -- cat "$T/data" > "$T/copy" 2> "$T/cap.err"
    if cmp -s "$T/data" "$T/copy" && [ ! -s "$T/cap.err" ] && grep -q "^trace: $T/c2.hrt" "$T/sum.txt"; then
        ok "capture --summary FILE: the summary goes there, stderr stays empty"
    else
        not_ok "capture --summary FILE" "$(cat "$T/cap.err")"
    fi
    # 5. --follow-forks: sh forks a child for each command
    "$HR" capture --follow-forks -o "$T/f.hrt" -- sh -c 'cat /dev/null; cat /dev/null; true' \
        > /dev/null 2> "$T/fk.err"
    rc=$?
    named=$(sed -n 's/^child process \([0-9]*\):$/\1/p' "$T/fk.err")
    good=1
    for p in $named; do
        grep -q "^trace: $T/f.$p.hrt" "$T/fk.err" && [ -s "$T/f.$p.hrt" ] &&
            "$HR" info "$T/f.$p.hrt" > /dev/null || good=0
    done
    raw=$(find "$T" -name 'f.hrt.raw*' | wc -l)
    if [ $rc = 0 ] && [ -n "$named" ] && [ $good = 1 ] && [ "$raw" = 0 ]; then
        ok "capture --follow-forks: $(echo $named | wc -w) child traces, named in the summary, no raw log left"
    else
        not_ok "capture --follow-forks: child traces named" "exit $rc, raw logs $raw" "$(cat "$T/fk.err")"
    fi
    # 6. each child trace carries its own process's program time (one
    #    captured run, its own CPU > 0 and below the whole run's, peak RSS)
    whole=$("$HR" info --json "$T/f.hrt" | "$JGET" 0.program.cpu_s /dev/stdin)
    good=1; seen=0
    for p in $named; do
        j=$("$HR" info --json "$T/f.$p.hrt")
        runs=$(echo "$j" | "$JGET" 0.program.runs /dev/stdin)
        cpu=$(echo "$j" | "$JGET" 0.program.cpu_s /dev/stdin)
        rss=$(echo "$j" | "$JGET" 0.program.max_rss /dev/stdin)
        seen=$((seen + 1))
        awk -v r="$runs" -v c="$cpu" -v w="$whole" -v m="$rss" \
            'BEGIN { exit !(r == 1 && c > 0 && c < w && m > 0) }' || good=0
    done
    if [ "$seen" -gt 0 ] && [ $good = 1 ]; then
        ok "capture --follow-forks: each child trace has its own program time ($seen children)"
    else
        not_ok "capture --follow-forks: each child trace has its own program time" \
            "whole $whole; last child runs $runs cpu $cpu rss $rss"
    fi
else
    skip "capture: program stdout byte-identical" "capture library not built"
    skip "capture --summary FILE" "capture library not built"
    skip "capture --follow-forks: each child trace has its own program time" "capture library not built"
    skip "capture --follow-forks" "capture library not built"
fi
tap_done
