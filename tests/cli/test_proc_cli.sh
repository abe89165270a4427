#!/usr/bin/env bash
# Every replay process is bounded and no row is ever lost
# (docs/ARCHITECTURE.md, "Replay processes"), against the test-only
# allocator "rogue" (src/backends/be_testonly.c): one that prints to
# standard output keeps its row and leaves the report on stdout intact; one
# that forks a child that keeps running keeps its row, the run does not wait
# for the child, and the child is gone afterwards; one that writes garbage on
# the result pipe gets an "error" row saying why, in JSON and in text; one
# that leaks 16 MiB per allocation (up to 3 GiB) is stopped by --mem-limit 1G
# and by the default limit with an "oom" row naming the figures; one that
# hands back a live block and then aborts is "invalid" at that event under
# --verify (crashed without it). And the server that waits for each replay
# process sleeps while it runs. TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup proc jget
"$HR" gen particles -n 20000 --seed 9 -o "$T/p.hrt" >/dev/null || skip_all "cannot generate"
RUN=(-q -r 1 --warm-time 0)

# row ALLOC FILE: the status and error of ALLOC's row in report FILE
row() {
    local i a
    for i in 0 1 2 3; do
        a=$(jget "results.$i.allocator" "$2" 2>/dev/null) || break
        if [ "$a" = "$1" ]; then
            echo "$(jget "results.$i.status" "$2")|$(jget "results.$i.error" "$2")"
            return
        fi
    done
    echo "missing|"
}

# expect_row NAME RC WANT_RC ALLOC FILE PATTERN: ok when the run exited
# WANT_RC and ALLOC's row ("STATUS|ERROR") matches the grep PATTERN
expect_row() {
    local r
    r=$(row "$4" "$5")
    if [ "$2" = "$3" ] && echo "$r" | grep -q "$6"; then
        ok "$1"
    else
        not_ok "$1" "rc=$2 row=$r"
    fi
}

# 1. prints to stdout: its row is there in JSON (stdout and -o) and text
"$HR" replay "${RUN[@]}" -a rogue:print,stack -f json "$T/p.hrt" -o "$T/print.json" \
    >"$T/print.out" 2>"$T/print.err"
rc=$?
r=$(row rogue:print "$T/print.json")
if [ $rc = 0 ] && [ "${r%%|*}" = ok ] && [ "$(row rogue:print "$T/print.out")" = "$r" ]; then
    ok "an allocator printing to stdout: row ok in -o and in the JSON on stdout"
else
    not_ok "an allocator printing to stdout: row ok in -o and in the JSON on stdout" \
        "rc=$rc row=$r" "$(head -c 300 "$T/print.out")"
fi
grep -q "rogue: allocation 1" "$T/print.err" && ok "its prints land on stderr" ||
    not_ok "its prints land on stderr" "$(head -5 "$T/print.err")"
"$HR" replay "${RUN[@]}" -a rogue:print,stack "$T/p.hrt" >"$T/print.txt" 2>/dev/null
if grep -q "rogue:print" "$T/print.txt" && ! grep -q "rogue: " "$T/print.txt"; then
    ok "text report: the row is there, none of the prints"
else
    not_ok "text report: the row is there, none of the prints" "$(head -20 "$T/print.txt")"
fi

# 2. forks a child that prints and sleeps 300 s holding every descriptor
start=$(date +%s)
HR_ROGUE_PIDFILE="$T/pid" "$HR" replay "${RUN[@]}" -a rogue:fork,stack --timeout 60 \
    "$T/p.hrt" -o "$T/fork.json" >"$T/fork.out" 2>"$T/fork.err"
rc=$?
took=$(( $(date +%s) - start ))
r=$(row rogue:fork "$T/fork.json")
if [ $rc = 0 ] && [ "${r%%|*}" = ok ] && [ "$took" -lt 30 ]; then
    ok "an allocator forking a child that keeps running: row ok, ${took} s"
else
    not_ok "an allocator forking a child that keeps running: row ok" "rc=$rc row=$r took=${took}s"
fi
pid=$(cat "$T/pid" 2>/dev/null)
gone=0
for _ in 1 2 3 4 5 6 7 8 9 10; do # SIGKILL is sent; init reaps the child soon after
    st=$(ps -o stat= -p "${pid:-1}" 2>/dev/null)
    if [ -n "$pid" ] && { [ -z "$st" ] || [ "${st#Z}" != "$st" ]; }; then gone=1; break; fi
    sleep 0.2
done
[ $gone = 1 ] && ok "the forked child is killed with its replay process" ||
    not_ok "the forked child is killed with its replay process" "pid=${pid:-none} stat=$st"

# 3. garbage on the result pipe: an error row that says so, never a lost row
"$HR" replay "${RUN[@]}" -a rogue:scribble,stack "$T/p.hrt" -o "$T/scr.json" >"$T/scr.txt" 2>&1
expect_row "garbage on the result pipe: error row, unreadable result" $? 1 \
    rogue:scribble "$T/scr.json" "^error|.*unreadable result"
# the summary wraps its notes: one line of words
tr -s ' \n' ' ' <"$T/scr.txt" | grep -q "rogue:scribble: error: .* an unreadable result" &&
    ok "the text report says why" || not_ok "the text report says why" "$(tail -5 "$T/scr.txt")"
[ "$(row stack "$T/scr.json")" = "ok|null" ] && ok "the other row of that run is ok" ||
    not_ok "the other row of that run is ok" "$(row stack "$T/scr.json")"

# 4. a 3 GiB leak: stopped at 1 GiB (the option), and by the default limit
#    (the floor, 1 GiB, for this small trace)
for how in "--mem-limit 1G" ""; do
    name="a 3 GiB leak under ${how:-the default limit}: oom row with the figures"
    # shellcheck disable=SC2086 # $how is zero or two words
    "$HR" replay "${RUN[@]}" -a rogue:leak $how "$T/p.hrt" -o "$T/leak.json" >/dev/null 2>&1
    expect_row "$name" $? 1 rogue:leak "$T/leak.json" \
        "^oom|RSS 1\.0[0-9] GiB > limit 1\(\.00\)\? GiB"
done
"$HR" replay -q -a stack --mem-limit 12 "$T/p.hrt" >/dev/null 2>"$T/bad.err"
rc=$?
[ $rc = 2 ] && grep -q "mem-limit" "$T/bad.err" && ok "--mem-limit 12: usage error, exit 2" ||
    not_ok "--mem-limit 12: usage error, exit 2" "rc=$rc $(cat "$T/bad.err")"

# 5. hands back a live block, then aborts: invalid at that event under --verify
"$HR" replay "${RUN[@]}" -a rogue:overlap,stack --verify "$T/p.hrt" -o "$T/ov.json" \
    >"$T/ov.out" 2>/dev/null
expect_row "overlap then abort, --verify: invalid with the event" $? 1 rogue:overlap "$T/ov.json" \
    "^invalid|event 100 .*overlaps live block"
r=$(row rogue:overlap "$T/ov.json")
echo "$r" | grep -q "then the measure process crashed" && ok "the crash that followed is named" ||
    not_ok "the crash that followed is named" "$r"
"$HR" replay "${RUN[@]}" -a rogue:overlap "$T/p.hrt" -o "$T/ov2.json" >/dev/null 2>&1
[ "$(jget results.0.status "$T/ov2.json")" = crashed ] &&
    [ "$(jget results.0.signal "$T/ov2.json")" = 6 ] &&
    ok "the same without --verify: crashed, signal 6" ||
    not_ok "the same without --verify: crashed, signal 6" "$(row rogue:overlap "$T/ov2.json")"
# 6. the server that waits for each replay process sleeps while it runs: it
#    wakes at the process's end, its deadline or an RSS reading (at most every
#    100 ms far below the memory limit), where it used to look every
#    millisecond (docs/ARCHITECTURE.md, "Replay processes"). Its voluntary
#    context switches over one second of a long warm phase: a few dozen at
#    most, against about a thousand before.
children_of() { # PID: the pids whose parent is PID (/proc/N/stat after the comm's ")")
    local f line rest
    for f in /proc/[0-9]*/stat; do
        read -r line 2>/dev/null < "$f" || continue
        rest=${line##*) }
        read -r _ ppid _ <<< "$rest"
        [ "$ppid" = "$1" ] && echo "${f//[^0-9]/}"
    done
    return 0
}
vcsw() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
"$HR" gen session -n 400000 --seed 3 -o "$T/long.hrt" >/dev/null 2>&1
"$HR" replay -q -r 1 -a glibc --warm-time 4 --warm-stop off "$T/long.hrt" -o "$T/long.json" \
    >/dev/null 2>&1 &
hr_pid=$!
server="" n=0
while [ -z "$server" ] && [ $n -lt 100 ] && kill -0 "$hr_pid" 2>/dev/null; do # the server with a replay process under it
    for c in $(children_of "$hr_pid"); do
        [ -n "$(children_of "$c")" ] && server=$c
    done
    [ -n "$server" ] || sleep 0.05
    n=$((n + 1))
done
if [ -z "$server" ]; then
    skip "the server sleeps while a replay process runs" "no server seen under $hr_pid"
else
    a=$(vcsw "$server")
    sleep 1
    b=$(vcsw "$server")
    if [ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -lt 100 ]; then
        ok "the server sleeps while a replay process runs ($((b - a)) wake-ups in 1 s)"
    else
        not_ok "the server sleeps while a replay process runs" "voluntary switches ${a:-?} -> ${b:-?} in 1 s"
    fi
fi
wait "$hr_pid"
tap_done
